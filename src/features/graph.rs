//! The `graph` feature class. STUB: produces no features until written.

use super::{FeatureClass, FeatureRow, TopicContext};

/// Options of the `graph` class.
#[derive(Debug, Clone, Default)]
pub struct GraphOptions {}

/// The `graph` feature class.
pub struct Graph {
    #[allow(dead_code)]
    opts: GraphOptions,
}

impl Graph {
    pub fn new(opts: GraphOptions) -> Graph {
        Graph { opts }
    }
}

impl FeatureClass for Graph {
    fn name(&self) -> &'static str {
        "graph"
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
