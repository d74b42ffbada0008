//! The `tesla` feature class. STUB: produces no features until written.

use super::{FeatureClass, FeatureRow, TopicContext};

/// Options of the `tesla` class.
#[derive(Debug, Clone, Default)]
pub struct TeslaOptions {}

/// The `tesla` feature class.
pub struct Tesla {
    #[allow(dead_code)]
    opts: TeslaOptions,
}

impl Tesla {
    pub fn new(opts: TeslaOptions) -> Tesla {
        Tesla { opts }
    }
}

impl FeatureClass for Tesla {
    fn name(&self) -> &'static str {
        "tesla"
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
