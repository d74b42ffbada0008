//! The `content` feature class. STUB: produces no features until written.

use super::{FeatureClass, FeatureRow, TopicContext};

/// Options of the `content` class.
#[derive(Debug, Clone, Default)]
pub struct ContentOptions {}

/// The `content` feature class.
pub struct Content {
    #[allow(dead_code)]
    opts: ContentOptions,
}

impl Content {
    pub fn new(opts: ContentOptions) -> Content {
        Content { opts }
    }
}

impl FeatureClass for Content {
    fn name(&self) -> &'static str {
        "content"
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
