//! The `content` feature class: input-summary similarity without references (Louis & Nenkova
//! 2013, §4; their tool SIMetrix).
//!
//! P is the pooled word distribution of all input documents of the topic, Q the summary's, both
//! after the `simetrix` tokenization profile. Features, in output order:
//!
//! | name | definition |
//! |---|---|
//! | `content.kl_input_summary` | KL(P‖Q), both Lidstone-smoothed |
//! | `content.kl_summary_input` | KL(Q‖P), both Lidstone-smoothed |
//! | `content.js` | Jensen-Shannon divergence, unsmoothed |
//! | `content.js_smoothed` | Jensen-Shannon divergence, smoothed |
//! | `content.cosine_tfidf` | cosine of tf·idf vectors, all words |
//! | `content.cosine_topic_words` | cosine of tf·idf vectors: input topic signatures vs all summary words |
//! | `content.topic_word_share` | share of summary tokens that are input topic words |
//! | `content.topic_word_coverage` | share of input topic words present in the summary |
//! | `content.unigram_loglik` | ln Π_w p_inp(w)^{n_w} (eq. 6) |
//! | `content.multinomial_loglik` | ln of the multinomial probability (eq. 7) |
//!
//! Conventions: Lidstone p(w) = (c(w)+δ)/(N+δ·B) with δ = 0.005, B = 1.5 × input vocabulary, the
//! same B for P and Q; divergences sum over the union of input and summary vocabularies
//! (SIMetrix does this; the paper does not say). Natural log throughout. idf = ln(D/df) from the
//! shipped background corpus ([`super::background`]), ln D for unseen words. Likelihoods are not
//! length-normalised (as in the paper).
//!
//! Degenerate cases: an empty summary gets finite values (smoothed divergences by the formula,
//! unsmoothed JS = ln 2, cosines 0, shares 0, log-likelihoods 0). An input with no tokens gives
//! a row of NaN (P is undefined). A topic with no documents gives `None` rows.

use super::background::Background;
use super::distribution::{
    ln_multinomial_coefficient, topic_signatures, topic_word_coverage, topic_word_share,
    IndexedCounts, Lidstone, LogBase, TopicSignatureTest, WordCounts, SIMETRIX_BINS_FACTOR,
    SIMETRIX_DELTA,
};
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, SharedKey, TopicContext};
use aesop_text::simetrix_tokens;
use std::sync::Arc;

/// [`TopicContext::shared`] key of the pooled input counts.
pub const INPUT_COUNTS_KEY: SharedKey<WordCounts> = SharedKey::new("simetrix.input_counts");
/// [`TopicContext::shared`] key of the per-summary counts (topic order).
pub const SUMMARY_COUNTS_KEY: SharedKey<Vec<WordCounts>> =
    SharedKey::new("simetrix.summary_counts");

/// Feature names without the class prefix, in output order.
pub const FEATURES: &[&str] = &[
    "kl_input_summary",
    "kl_summary_input",
    "js",
    "js_smoothed",
    "cosine_tfidf",
    "cosine_topic_words",
    "topic_word_share",
    "topic_word_coverage",
    "unigram_loglik",
    "multinomial_loglik",
];

/// The features computed from the topic words (the topic-signature test's options change them).
const TOPIC_WORD_FEATURES: &[&str] = &[
    "cosine_topic_words",
    "topic_word_share",
    "topic_word_coverage",
];

/// Options of the `content` class.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentOptions {
    /// Lidstone δ (default 0.005, SIMetrix's value; the paper's text says 0.0005).
    pub delta: f64,
    /// Smoothing bins B as a multiple of the input vocabulary size (default 1.5).
    pub bins_factor: f64,
    /// Topic-signature cutoff on −2 log λ in `log_base` (default 10.83: p < 0.001 on the ln
    /// scale; SIMetrix uses 10 with log base 10, ≈ 23.03 on the ln scale).
    pub llr_cutoff: f64,
    /// Base of the log in the log-likelihood ratio (default e).
    pub log_base: LogBase,
    /// Topic words must also be more frequent in the input than in the background (default
    /// true, as Lin & Hovy; SIMetrix does not check).
    pub require_higher_input_rate: bool,
    /// Score likelihoods with the smoothed input distribution (default true), so summary words
    /// absent from the input lower the likelihood; false skips them and uses unsmoothed input
    /// frequencies, as SIMetrix.
    pub smooth_likelihood: bool,
}

impl Default for ContentOptions {
    fn default() -> ContentOptions {
        ContentOptions {
            delta: SIMETRIX_DELTA,
            bins_factor: SIMETRIX_BINS_FACTOR,
            llr_cutoff: 10.83,
            log_base: LogBase::E,
            require_higher_input_rate: true,
            smooth_likelihood: true,
        }
    }
}

impl ContentOptions {
    /// The choices of the released SIMetrix tool: log10 LLR with cutoff 10, no direction check
    /// on topic words, unsmoothed likelihood skipping unseen words.
    pub fn simetrix() -> ContentOptions {
        ContentOptions {
            llr_cutoff: 10.0,
            log_base: LogBase::Ten,
            require_higher_input_rate: false,
            smooth_likelihood: false,
            ..ContentOptions::default()
        }
    }

    fn topic_test(&self) -> TopicSignatureTest {
        TopicSignatureTest {
            cutoff: self.llr_cutoff,
            log_base: self.log_base,
            require_higher_input_rate: self.require_higher_input_rate,
        }
    }
}

/// Pooled `simetrix` counts of all input documents, computed once per topic and shared.
pub fn input_counts(ctx: &TopicContext) -> Arc<WordCounts> {
    ctx.shared(INPUT_COUNTS_KEY, |topic| {
        let mut counts = WordCounts::new();
        for doc in &topic.documents {
            counts.add_tokens(&simetrix_tokens(&doc.text));
        }
        counts
    })
}

/// `simetrix` counts of every summary of the topic (topic order), computed once and shared.
pub fn summary_counts(ctx: &TopicContext) -> Arc<Vec<WordCounts>> {
    ctx.shared(SUMMARY_COUNTS_KEY, |topic| {
        topic
            .summaries
            .iter()
            .map(|s| WordCounts::from_tokens(&simetrix_tokens(&s.text)))
            .collect()
    })
}

/// Everything about one topic's input that the features need, computed once per topic.
#[derive(Debug, Clone)]
pub struct InputAnalysis {
    /// Pooled input counts (P).
    pub counts: Arc<WordCounts>,
    /// P indexed for aligning with each summary.
    pub index: IndexedCounts,
    /// Background idf of each word of `index`, in its order.
    pub idf: Vec<f64>,
    /// Lidstone smoothing with B = bins_factor × input vocabulary.
    pub smoothing: Lidstone,
    /// Input topic signatures, sorted.
    pub topic_words: Vec<String>,
    /// Whether each word of `index` is a topic word, in its order.
    pub is_topic_word: Vec<bool>,
}

impl InputAnalysis {
    pub fn new(
        counts: Arc<WordCounts>,
        background: &Background,
        opts: &ContentOptions,
    ) -> InputAnalysis {
        let smoothing = Lidstone::for_reference(&counts, opts.delta, opts.bins_factor);
        let topic_words = topic_signatures(
            &counts,
            |w| background.count(w),
            background.total_tokens(),
            opts.topic_test(),
        );
        let index = IndexedCounts::new(&counts);
        let idf = index.words().iter().map(|w| background.idf(w)).collect();
        let is_topic_word = index
            .words()
            .iter()
            .map(|w| topic_words.binary_search(w).is_ok())
            .collect();
        InputAnalysis {
            counts,
            index,
            idf,
            smoothing,
            topic_words,
            is_topic_word,
        }
    }
}

/// The feature values of one summary, in [`FEATURES`] order. NaN everywhere when the input has
/// no tokens.
pub fn summary_features(
    input: &InputAnalysis,
    summary: &WordCounts,
    background: &Background,
    opts: &ContentOptions,
) -> Vec<f64> {
    let p = &*input.counts;
    if p.is_empty() {
        return vec![f64::NAN; FEATURES.len()];
    }
    let s = input.smoothing;
    let (extra_words, mut aligned) = input.index.align(summary);
    // Input words first (idf precomputed), then the summary's other words.
    let mut idf = input.idf.clone();
    idf.extend(extra_words.iter().map(|w| background.idf(w)));
    let d = aligned.divergences(s);
    let unigram_loglik = aligned.log_likelihood_of_b(opts.smooth_likelihood.then_some(s));
    let cosine_tfidf = aligned.tfidf_cosine(&idf);
    // The input side keeps only its topic words; the summary keeps all its words.
    for (a, &keep) in aligned.a.iter_mut().zip(&input.is_topic_word) {
        if !keep {
            *a = 0;
        }
    }
    let cosine_topic_words = aligned.tfidf_cosine(&idf);
    vec![
        d.kl_ab,
        d.kl_ba,
        d.js,
        d.js_smoothed,
        cosine_tfidf,
        cosine_topic_words,
        topic_word_share(summary, &input.topic_words),
        topic_word_coverage(summary, &input.topic_words),
        unigram_loglik,
        ln_multinomial_coefficient(summary) + unigram_loglik,
    ]
}

/// The `content` feature class.
pub struct Content {
    opts: ContentOptions,
    background: Arc<Background>,
}

impl Content {
    /// With the shipped background corpus.
    pub fn new(opts: ContentOptions) -> Content {
        Content::with_background(opts, Background::shipped())
    }

    /// With another background corpus (tests, other languages or domains).
    pub fn with_background(opts: ContentOptions, background: Arc<Background>) -> Content {
        Content { opts, background }
    }
}

/// The `content` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "content",
    about: "input-summary similarity, SIMetrix",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &["simetrix", "topic_word_cutoff", "topic_word_log_base"],
    // The topic-signature test picks the topic words; `simetrix` also changes the likelihoods.
    // The divergences and the tf-idf cosine read neither.
    partial_options: &[
        ("topic_word_cutoff", TOPIC_WORD_FEATURES),
        ("topic_word_log_base", TOPIC_WORD_FEATURES),
        (
            "simetrix",
            &[
                "cosine_topic_words",
                "topic_word_share",
                "topic_word_coverage",
                "unigram_loglik",
                "multinomial_loglik",
            ],
        ),
    ],
    build: |o| Ok(Box::new(Content::new(o.content.clone()))),
};

impl FeatureClass for Content {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("content.{f}")).collect()
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        if ctx.topic.documents.is_empty() {
            return vec![None; ctx.topic.summaries.len()];
        }
        let input = InputAnalysis::new(input_counts(ctx), &self.background, &self.opts);
        summary_counts(ctx)
            .iter()
            .map(|summary| {
                Some(summary_features(
                    &input,
                    summary,
                    &self.background,
                    &self.opts,
                ))
            })
            .collect()
    }
}
