//! The `surface` feature class. STUB: produces no features until written.

use super::{FeatureClass, FeatureRow, TopicContext};

/// Options of the `surface` class.
#[derive(Debug, Clone, Default)]
pub struct SurfaceOptions {}

/// The `surface` feature class.
pub struct Surface {
    #[allow(dead_code)]
    opts: SurfaceOptions,
}

impl Surface {
    pub fn new(opts: SurfaceOptions) -> Surface {
        Surface { opts }
    }
}

impl FeatureClass for Surface {
    fn name(&self) -> &'static str {
        "surface"
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
