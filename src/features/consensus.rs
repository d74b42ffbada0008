//! The `consensus` feature class. STUB: produces no features until written.

use super::{FeatureClass, FeatureRow, TopicContext};

/// Options of the `consensus` class.
#[derive(Debug, Clone, Default)]
pub struct ConsensusOptions {}

/// The `consensus` feature class.
pub struct Consensus {
    #[allow(dead_code)]
    opts: ConsensusOptions,
}

impl Consensus {
    pub fn new(opts: ConsensusOptions) -> Consensus {
        Consensus { opts }
    }
}

impl FeatureClass for Consensus {
    fn name(&self) -> &'static str {
        "consensus"
    }
    fn feature_names(&self) -> Vec<String> {
        Vec::new()
    }
    fn needs_references(&self) -> bool {
        false
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        vec![Some(Vec::new()); ctx.topic.summaries.len()]
    }
}
