//! Feature classes. Each class lives in its own module behind [`FeatureClass`]; the registry
//! ([`build_classes`]) selects classes by name, which is how `--classes` and ablation work.
//!
//! A class extracts a whole topic at once, so topic-level work (input distribution, topic
//! signatures, reference n-grams, the peer pool) is done once per topic. Analyses that several
//! classes need are shared through [`TopicContext::shared`].

pub mod alignment;
pub mod background;
pub mod cohmetrix;
pub mod consensus;
pub mod content;
pub mod continuity;
pub mod discourse;
pub mod distribution;
pub mod entity;
pub mod graph;
pub mod lm;
pub mod neural;
pub mod npsyntax;
pub mod redundancy;
pub mod rouge;
pub mod run;
pub mod surface;
pub mod syntax;
pub mod tesla;

use crate::corpus::Topic;
use anyhow::{bail, Result};
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The values one class gives one summary, in the order of [`FeatureClass::feature_names`].
/// `None` when the class cannot be computed for this summary (e.g. it needs references and
/// the topic has none). A single value may be NaN where it is undefined.
pub type FeatureRow = Option<Vec<f64>>;

/// One feature class (e.g. `rouge`): a fixed list of named features for every summary.
pub trait FeatureClass: Send + Sync {
    /// The class name used in `--classes` and as the prefix of every feature name.
    fn name(&self) -> &'static str;
    /// Full feature names, `class.feature`, in output order. Depends only on the options.
    fn feature_names(&self) -> Vec<String>;
    /// Does the class need human references? Such classes give `None` rows for topics without.
    fn needs_references(&self) -> bool;
    /// Does any feature of the class look at the references? (A class may mix reference-based
    /// and reference-free features, giving NaN for the former when there are none.) The runner
    /// uses this to score a human summary that is also a reference against the others only.
    fn uses_references(&self) -> bool {
        self.needs_references()
    }
    /// One row per summary of `ctx.topic`, in the topic's order.
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow>;
}

/// A topic plus a per-topic cache of analyses that several classes share (tokenized
/// input, reference n-grams, …), so each is computed at most once per topic.
pub struct TopicContext<'a> {
    pub topic: &'a Topic,
    cache: Mutex<HashMap<&'static str, Arc<dyn Any + Send + Sync>>>,
}

impl<'a> TopicContext<'a> {
    pub fn new(topic: &'a Topic) -> TopicContext<'a> {
        TopicContext {
            topic,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The analysis stored under `key`, computing it with `compute` the first time.
    /// `key` must always be used with the same type `T` (a mismatch is a programming error
    /// and panics).
    pub fn shared<T, F>(&self, key: &'static str, compute: F) -> Arc<T>
    where
        T: Any + Send + Sync,
        F: FnOnce(&Topic) -> T,
    {
        let lookup = |cache: &HashMap<&'static str, Arc<dyn Any + Send + Sync>>| {
            cache.get(key).map(|v| {
                Arc::clone(v)
                    .downcast::<T>()
                    .unwrap_or_else(|_| panic!("TopicContext key {key} used with two types"))
            })
        };
        if let Some(v) = lookup(&self.cache.lock().unwrap_or_else(|e| e.into_inner())) {
            return v;
        }
        // Computed outside the lock: classes run one after another within a topic, so a
        // rare double computation is harmless and the lock is never held during real work.
        let value: Arc<T> = Arc::new(compute(self.topic));
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let stored = cache
            .entry(key)
            .or_insert_with(|| value.clone() as Arc<dyn Any + Send + Sync>);
        Arc::clone(stored).downcast::<T>().unwrap_or(value)
    }

    /// Texts of the references.
    pub fn reference_texts(&self) -> Vec<&str> {
        self.topic
            .references
            .iter()
            .map(|r| r.text.as_str())
            .collect()
    }
}

/// One row per summary computed from its parse ([`crate::nlp::topic_analyses`], shared by every
/// parse-based class). When the embedded NLP models cannot be loaded nothing parse-based can be
/// computed: every row is missing, after a note on stderr naming the class and the topic.
pub fn rows_from_summary_analyses(
    ctx: &TopicContext,
    class: &str,
    row: impl Fn(&crate::nlp::Analysis) -> Vec<f64>,
) -> Vec<FeatureRow> {
    match crate::nlp::topic_analyses(ctx) {
        Ok(analyses) => analyses.summaries.iter().map(|a| Some(row(a))).collect(),
        Err(e) => {
            eprintln!("{class}: no analyses for topic {}: {e:#}", ctx.topic.topic);
            vec![None; ctx.topic.summaries.len()]
        }
    }
}

/// Options of every class, with the documented defaults.
#[derive(Debug, Clone, Default)]
pub struct FeatureOptions {
    pub content: content::ContentOptions,
    pub rouge: rouge::RougeOptions,
    pub graph: graph::GraphOptions,
    pub tesla: tesla::TeslaOptions,
    pub consensus: consensus::ConsensusOptions,
    pub surface: surface::SurfaceOptions,
    pub neural: neural::NeuralOptions,
}

/// Every class this build can compute, in default output order.
pub const ALL_CLASSES: &[&str] = &[
    "content",
    "rouge",
    "graph",
    "tesla",
    "consensus",
    "surface",
    "entity",
    "syntax",
    "cohmetrix",
    "redundancy",
    "npsyntax",
    "discourse",
    "continuity",
    "lm",
    "alignment",
];

/// Classes this build can compute on request only (not in the default set): `neural` needs a
/// downloaded model (`aesop models fetch smollm2`).
pub const OPTIONAL_CLASSES: &[&str] = &["neural"];

/// Classes that work without references.
pub fn is_reference_free(name: &str) -> bool {
    matches!(
        name,
        "content"
            | "consensus"
            | "surface"
            | "entity"
            | "syntax"
            | "cohmetrix"
            | "redundancy"
            | "npsyntax"
            | "discourse"
            | "continuity"
            | "lm"
            | "alignment"
            | "neural"
    )
}

/// Build the named classes (all of them when `names` is empty), in the order given.
pub fn build_classes(
    names: &[String],
    opts: &FeatureOptions,
) -> Result<Vec<Box<dyn FeatureClass>>> {
    let names: Vec<&str> = if names.is_empty() {
        ALL_CLASSES.to_vec()
    } else {
        names.iter().map(String::as_str).collect()
    };
    let mut classes: Vec<Box<dyn FeatureClass>> = Vec::new();
    for name in names {
        if classes.iter().any(|c| c.name() == name) {
            continue;
        }
        let class: Box<dyn FeatureClass> = match name {
            "content" => Box::new(content::Content::new(opts.content.clone())),
            "rouge" => Box::new(rouge::Rouge::new(opts.rouge.clone())),
            "graph" => Box::new(graph::Graph::new(opts.graph.clone())),
            "tesla" => Box::new(tesla::Tesla::new(opts.tesla.clone())),
            "consensus" => Box::new(consensus::Consensus::new(opts.consensus.clone())),
            "surface" => Box::new(surface::Surface::new(opts.surface.clone())),
            "entity" => Box::new(entity::EntityClass::new()),
            "syntax" => Box::new(syntax::Syntax::new()),
            "cohmetrix" => Box::new(cohmetrix::CohMetrix::new()),
            "redundancy" => Box::new(redundancy::Redundancy::new()),
            "npsyntax" => Box::new(npsyntax::NpSyntax::new()),
            "discourse" => Box::new(discourse::Discourse::new()),
            "continuity" => Box::new(continuity::Continuity::new()),
            "lm" => Box::new(lm::Lm::new()?),
            "alignment" => Box::new(alignment::Alignment::new()),
            "neural" => Box::new(neural::Neural::new(opts.neural.clone())?),
            other => bail!(
                "unknown feature class '{other}'; known classes: {}, {}",
                ALL_CLASSES.join(", "),
                OPTIONAL_CLASSES.join(", ")
            ),
        };
        classes.push(class);
    }
    Ok(classes)
}
