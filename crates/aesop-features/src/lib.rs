//! Feature classes. Each class lives in its own module behind [`FeatureClass`] and declares its
//! [`ClassSpec`]; the [`registry`] lists them and selects classes by name, which is how
//! `--classes`, `--no-references` and ablation work.
//!
//! A class extracts a whole topic at once, so topic-level work (input distribution, topic
//! signatures, reference n-grams, the peer pool) is done once per topic. Analyses that several
//! classes need are shared through [`TopicContext::shared`].

pub mod alignment;
pub mod analyses;
pub mod arcs;
pub mod background;
pub mod cohmetrix;
pub mod consensus;
pub mod content;
pub mod continuity;
pub mod discourse;
pub mod distribution;
pub mod entity;
pub mod graph;
pub mod language;
pub mod lm;
pub mod named_options;
pub mod neural;
pub mod neural_hidden;
pub mod neural_match;
pub mod npsyntax;
pub mod redundancy;
mod reference_runs;
pub mod registry;
pub mod rouge;
pub mod run;
pub mod surface;
pub mod syntax;
pub mod tesla;
pub mod wordfreq;

/// Every class of this build, in output order: the registry ([`registry`] derives the rest).
pub static CLASSES: &[&ClassSpec] = &[
    &content::CLASS,
    &rouge::CLASS,
    &rouge::extended::CLASS,
    &rouge::rouge_score::CLASS,
    &graph::CLASS,
    &tesla::CLASS,
    &consensus::CLASS,
    &surface::CLASS,
    &entity::CLASS,
    &syntax::CLASS,
    &cohmetrix::CLASS,
    &redundancy::CLASS,
    &npsyntax::CLASS,
    &discourse::CLASS,
    &continuity::CLASS,
    &lm::CLASS,
    &alignment::CLASS,
    &arcs::CLASS,
    &neural::CLASS,
    &neural::GEMMA3_CLASS,
    &neural::TRUECASED_CLASS,
    &neural_hidden::CLASS,
    &neural_match::CLASS,
];

pub use registry::{
    all_reference_free, batch_dependent_class_names, build_classes, check_options_apply,
    class_spec, default_class_names, feature_plan, feature_plan_dropping, is_batch_dependent,
    is_reference_free, optional_class_names, select_features, ClassSpec, ReferenceUse,
};

use aesop_corpus::Topic;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The values one class gives one summary, in the order of [`FeatureClass::feature_names`].
/// `None` when the class cannot be computed for this summary (e.g. it needs references and
/// the topic has none). A single value may be NaN where it is undefined.
pub type FeatureRow = Option<Vec<f64>>;

/// One feature class (e.g. `rouge`): a fixed list of named features for every summary.
pub trait FeatureClass: Send + Sync {
    /// The class's entry in the [`registry`]: its name and what it needs.
    fn spec(&self) -> &'static ClassSpec;
    /// The class name used in `--classes` and as the prefix of every feature name.
    fn name(&self) -> &'static str {
        self.spec().name
    }
    /// Full feature names, `class.feature`, in output order. Depends only on the options.
    fn feature_names(&self) -> Vec<String>;
    /// Does the class need human references? Such classes give `None` rows for topics without.
    fn needs_references(&self) -> bool {
        self.spec().references == ReferenceUse::All
    }
    /// Does any feature of the class look at the references? (A class may mix reference-based
    /// and reference-free features, giving NaN for the former when there are none.) The runner
    /// uses this to score a human summary that is also a reference against the others only.
    fn uses_references(&self) -> bool {
        self.spec().references != ReferenceUse::None
    }
    /// Is the feature `name` (one of [`FeatureClass::feature_names`]) computed without
    /// references? `--no-references` keeps only these. A class whose spec says
    /// [`ReferenceUse::Some`] must say which.
    fn is_reference_free_feature(&self, _name: &str) -> bool {
        self.spec().references == ReferenceUse::None
    }
    /// Is the feature `name` turned off by the class's options, so that it is never computed
    /// (NaN for every summary; `neural.ref_*` under `--neural-references 0`)? Learning keeps
    /// such a column, as every model trained before did, but does not warn that it is missing.
    fn is_feature_off(&self, _name: &str) -> bool {
        false
    }
    /// The class's options, changed from their defaults, that change nothing on `topic`, each
    /// with the reason (`--consensus-include-human` where no summary is marked human). A run
    /// in which an option changed nothing on any topic says so ([`run::IdleOptions`]), so a user
    /// does not believe it applied.
    fn idle_options(&self, _topic: &Topic) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// Begins loading, on another thread, what the class needs at its first topic but did not
    /// load when it was built (the parse-based classes: the tagger and parser), so that the
    /// loading overlaps the building of the classes after it ([`registry::build_classes`]).
    fn start_loading(&self) {}
    /// One row per summary of `ctx.topic`, in the topic's order.
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow>;
}

/// The key of one analysis in [`TopicContext::shared`], typed by the value it stores, so a
/// key cannot be read as another type. Declare each as a `const` next to the code computing it.
pub struct SharedKey<T> {
    name: &'static str,
    _value: PhantomData<fn() -> T>,
}

impl<T> SharedKey<T> {
    pub const fn new(name: &'static str) -> SharedKey<T> {
        SharedKey {
            name,
            _value: PhantomData,
        }
    }
}

type Cache = HashMap<(&'static str, TypeId), Arc<dyn Any + Send + Sync>>;

/// A topic plus a per-topic cache of analyses that several classes share (tokenized
/// input, reference n-grams, …), so each is computed at most once per topic.
pub struct TopicContext<'a> {
    pub topic: &'a Topic,
    /// The topic's references are already the others of a human summary that was one of them
    /// (its jackknife: [`TopicContext::for_self_reference`]); a class that jackknifes its
    /// references must not leave one out again.
    pub references_left_out: bool,
    /// Set when the run is cancelled (Ctrl-C, a service request that timed out or whose
    /// client left): see [`TopicContext::stopped`].
    stop: &'a AtomicBool,
    cache: Mutex<Cache>,
    _in_work: InWork,
}

/// The stop flag of a context that nothing cancels.
static NEVER_STOPPED: AtomicBool = AtomicBool::new(false);

/// Topics being worked on right now in this process: the live [`TopicContext`]s.
static TOPICS_IN_WORK: AtomicUsize = AtomicUsize::new(0);

impl<'a> TopicContext<'a> {
    pub fn new(topic: &'a Topic) -> TopicContext<'a> {
        TopicContext {
            topic,
            references_left_out: false,
            stop: &NEVER_STOPPED,
            cache: Mutex::new(HashMap::new()),
            _in_work: InWork::start(),
        }
    }

    /// Whether this is the only topic being worked on in the process (one HTTP request, one
    /// topic from the command line): then a class may spread the topic's summaries over threads
    /// that would otherwise idle. While other topics are worked on the threads are busy already,
    /// and splitting each topic as well cost the service 8-10 % of its requests per second at
    /// full load (docs/SPEED.md, "one topic alone").
    pub fn alone(&self) -> bool {
        TOPICS_IN_WORK.load(Ordering::Relaxed) == 1
    }

    /// The context of a human summary scored against the other references of its topic
    /// (`others` holds it and them): with k references it is scored once against the k − 1
    /// others, as NIST jackknifes model summaries, while peers average over the k subsets of k − 1.
    pub fn for_self_reference(others: &'a Topic) -> TopicContext<'a> {
        TopicContext {
            references_left_out: true,
            ..TopicContext::new(others)
        }
    }

    /// The same context, to be stopped early once `stop` is set.
    pub fn with_stop(self, stop: &'a AtomicBool) -> TopicContext<'a> {
        TopicContext { stop, ..self }
    }

    /// The flag that cancels the run. Classes are polled between them (`run::extract_topic`);
    /// one that can work for minutes on one topic (the LM classes, between passes through the
    /// network) polls it too and returns early: the run then ends as interrupted and nothing
    /// computed for the topic is kept.
    pub fn stop(&self) -> &'a AtomicBool {
        self.stop
    }

    /// Whether the run has been cancelled.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The analysis stored under `key`, computing it with `compute` the first time.
    pub fn shared<T, F>(&self, key: SharedKey<T>, compute: F) -> Arc<T>
    where
        T: Any + Send + Sync,
        F: FnOnce(&Topic) -> T,
    {
        // Entries are keyed by name and type, so the downcasts below cannot fail.
        let key = (key.name, TypeId::of::<T>());
        let lookup = |cache: &Cache| {
            cache
                .get(&key)
                .and_then(|v| Arc::clone(v).downcast::<T>().ok())
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

/// A topic counted in [`TOPICS_IN_WORK`] from its context's making to its dropping. Apart from
/// the context, which borrows the topic, so that it adds no drop-order constraint on that borrow.
struct InWork;

impl InWork {
    fn start() -> InWork {
        TOPICS_IN_WORK.fetch_add(1, Ordering::Relaxed);
        InWork
    }
}

impl Drop for InWork {
    fn drop(&mut self) {
        TOPICS_IN_WORK.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The shape of a class computed from each summary's parse alone (entity, syntax, cohmetrix,
/// redundancy, npsyntax, discourse, continuity): its spec, its feature names and one row per
/// parse. [`FeatureClass`] follows for every such class, on the shared per-topic analyses
/// ([`analyses::topic_analyses`]).
pub trait ParseFeatures: Send + Sync {
    /// The class's entry in the [`registry`].
    const SPEC: &'static ClassSpec;
    /// Full feature names, `class.feature`, in the order of [`ParseFeatures::row`].
    fn names(&self) -> Vec<String>;
    /// The features of one summary's parse.
    fn row(&self, analysis: &aesop_text::nlp::Analysis) -> Vec<f64>;
}

impl<T: ParseFeatures> FeatureClass for T {
    fn spec(&self) -> &'static ClassSpec {
        T::SPEC
    }
    fn feature_names(&self) -> Vec<String> {
        self.names()
    }
    fn start_loading(&self) {
        aesop_text::nlp::Pipeline::decode_in_background();
    }
    /// When the embedded NLP models cannot be loaded nothing parse-based can be computed: every
    /// row is missing, after a note on stderr naming the class and the topic.
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let rows = analyses::topic_analyses(ctx)
            .map(|analyses| analyses.summaries.iter().map(|a| self.row(a)).collect());
        analyses::rows_or_missing(T::SPEC.name, ctx, rows)
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
