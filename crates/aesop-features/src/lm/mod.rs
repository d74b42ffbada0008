//! The `lm` feature class (reference-free): word choice and fluency under a trigram language
//! model with interpolated modified Kneser-Ney smoothing (Chen & Goodman 1999), trained on the
//! open English corpus (`resources/english_text_corpus`) by `scripts/build/build-lm` and shipped as
//! `features/lm.bin.gz` (attribution: `features/ATTRIBUTION-lm.md`).
//!
//! # Tokenization ([`lm_sentences`])
//! Sentences from [`aesop_text::sentences`]; words from the UD-style tokenizer of
//! [`aesop_text::nlp::tokenize`] (clitics `n't 's 'll …` split off, abbreviations, numbers and
//! hyphenated prefixes kept whole), lowercased, `’` written `'`, every ASCII digit written `0`
//! (so all numbers of one shape share statistics). Tokens without a letter or digit
//! (punctuation) are dropped: summaries differ wildly in punctuation conventions (SummEval's are
//! lowercased and space-tokenized), and the features are about words. Each sentence is scored
//! as `<s> w1 … wn </s>`.
//!
//! # Model
//! Interpolated modified Kneser-Ney, order 3. With adjusted counts a(·): raw counts for
//! trigrams and for n-grams starting with `<s>`, continuation counts N1+(• v w) (number of
//! distinct left neighbours) otherwise,
//!
//! ```text
//! P(w | ctx) = max(a(ctx w) − D(a(ctx w)), 0) / Σ_x a(ctx x)  +  γ(ctx) · P(w | shorter ctx)
//! P(w)       = max(a(w) − D(a(w)), 0) / Σ_x a(x)             +  γ0 / (V − 1)
//! ```
//!
//! with three discounts per order, D1, D2 and D3+ for counts 1, 2 and ≥ 3, estimated from that
//! order's counts of adjusted counts n1..n4 (Chen & Goodman): Y = n1/(n1 + 2 n2),
//! D1 = 1 − 2Y n2/n1, D2 = 2 − 3Y n3/n2, D3+ = 3 − 4Y n4/n3 (see [`estimate_discounts`] for
//! degenerate counts). V − 1 counts every word of the vocabulary except `<s>` (which is never
//! predicted). γ(ctx) = 1 − Σ over the *kept* continuations of the discounted term, which is the
//! usual Σ D·N_k / total without pruning and also receives the whole mass of pruned n-grams, so
//! every conditional distribution sums to exactly 1. Words outside the vocabulary are `<unk>`,
//! a word of the model like any other (closed vocabulary).
//!
//! Pruning (defaults of [`TrainOptions`]): vocabulary = words seen at least twice (at most
//! 100,000 by frequency); trigrams seen only once are dropped, all bigrams are kept (dropping
//! singleton bigrams too saves 0.5 MB but costs 9% held-out perplexity; docs/FEATURES.md).
//!
//! # Features (natural logarithms)
//! Over the scored tokens of a summary (every word plus one `</s>` per sentence):
//! `lm.mean_logprob`, `lm.min_logprob`, `lm.std_logprob` (population standard deviation),
//! `lm.p10_logprob` (10th percentile, linear interpolation between order statistics),
//! `lm.perplexity` = exp(−mean), `lm.low_prob_share` (share of tokens with
//! ln p < [`LOW_LOGPROB`], i.e. p < 1/10,000). Over the words only: `lm.oov_rate` (share not in
//! the vocabulary) and `lm.unigram_mean_logprob` (mean ln of the maximum-likelihood word
//! frequency, a rarity measure; an out-of-vocabulary word gets the average frequency of the
//! training words folded into `<unk>`).
//!
//! Undefined values: a summary without any word gives NaN for every feature.

mod file;
mod kneser_ney;

pub use kneser_ney::{estimate_discounts, ContextCounts, LmCounts, TrainOptions};

use super::background::corpus_documents;
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};
use aesop_text::nlp::tokenize::tokenize;
use aesop_text::sentences::sentence_spans;
use kneser_ney::{bigram_key, discount, trigram_key};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// The shipped model (built by `scripts/build/build-lm`).
const SHIPPED_GZ: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../features/lm.bin.gz"
));

/// The model order. Trigrams: a 4-gram model over a 2 M-word corpus would be nearly all
/// singletons, pruned away.
pub const ORDER: usize = 3;

/// Id of the unknown word.
pub const UNK: u32 = 0;
/// Id of the sentence start `<s>` (a context only, never predicted).
pub const BOS: u32 = 1;
/// Id of the sentence end `</s>`.
pub const EOS: u32 = 2;
const SPECIALS: [&str; 3] = ["<unk>", "<s>", "</s>"];

/// Tokens with ln p below this are "low-probability" (p < 1/10,000).
pub const LOW_LOGPROB: f64 = -9.210_340_371_976_182;

/// The `lm` feature names, in output order.
pub const FEATURES: [&str; 8] = [
    "mean_logprob",
    "min_logprob",
    "std_logprob",
    "p10_logprob",
    "perplexity",
    "oov_rate",
    "unigram_mean_logprob",
    "low_prob_share",
];

/// Why a model file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LmError {
    #[error("cannot decompress language model: {0}")]
    Io(#[from] std::io::Error),
    #[error("invalid language model file: {0}")]
    Format(String),
}

fn format_error(message: impl Into<String>) -> LmError {
    LmError::Format(message.into())
}

/// Sentences of `text` as the model sees them (see the module documentation): lowercased word
/// tokens, punctuation dropped, digits written `0`. Sentences without words are left out.
pub fn lm_sentences(text: &str) -> Vec<Vec<String>> {
    let mut sentences = Vec::new();
    for span in sentence_spans(text) {
        let sentence = &text[span];
        let words: Vec<String> = tokenize(sentence)
            .iter()
            .map(|t| t.text(sentence))
            .filter(|t| t.chars().any(char::is_alphanumeric))
            .map(normalize_word)
            .collect();
        if !words.is_empty() {
            sentences.push(words);
        }
    }
    sentences
}

fn normalize_word(token: &str) -> String {
    token
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            '0'..='9' => '0',
            '’' => '\'',
            c => c,
        })
        .collect()
}

/// Sentences of every paragraph of raw corpus files in the `### source/id` format of
/// `resources/english_text_corpus`, split into training and held-out parts: every
/// `holdout_every`-th paragraph (counted over all files, in order) is held out (0: none).
pub fn corpus_sentences<S: AsRef<str>>(
    files: &[S],
    holdout_every: usize,
) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut train = Vec::new();
    let mut heldout = Vec::new();
    let mut paragraph = 0usize;
    for file in files {
        for (_, body) in corpus_documents(file.as_ref()) {
            // One paragraph per line.
            for line in body.lines().filter(|l| !l.trim().is_empty()) {
                paragraph += 1;
                let target = if holdout_every > 0 && paragraph.is_multiple_of(holdout_every) {
                    &mut heldout
                } else {
                    &mut train
                };
                target.extend(lm_sentences(line));
            }
        }
    }
    (train, heldout)
}

/// A trigram Kneser-Ney model ready for queries.
#[derive(Debug, Clone)]
pub struct LanguageModel {
    counts: LmCounts,
    ids: FxHashMap<String, u32>,
    /// Interpolated unigram probability of each id (0 for `<s>`).
    unigram: Vec<f64>,
    /// Discounted bigram terms max(a − D, 0) / total, by (v, w).
    bigram: FxHashMap<u64, f64>,
    /// γ(v) of each id as a bigram context (1 when it has no kept continuation).
    bigram_backoff: Vec<f64>,
    trigram: FxHashMap<u64, f64>,
    trigram_backoff: FxHashMap<u64, f64>,
    /// ln of the maximum-likelihood word frequency of each id (words only; see the features).
    unigram_ml_ln: Vec<f64>,
}

static SHIPPED: OnceLock<Result<LanguageModel, String>> = OnceLock::new();

impl LanguageModel {
    /// The shipped model, decoded once on first use.
    pub fn shipped() -> anyhow::Result<&'static LanguageModel> {
        SHIPPED
            .get_or_init(|| {
                LmCounts::from_gzip(SHIPPED_GZ)
                    .map(LanguageModel::from_counts)
                    .map_err(|e| format!("{e}; re-run scripts/build/build-lm"))
            })
            .as_ref()
            .map_err(|e| anyhow::anyhow!("the embedded features/lm.bin.gz: {e}"))
    }

    /// Derive the probabilities (see the module documentation).
    pub fn from_counts(counts: LmCounts) -> LanguageModel {
        let vocabulary = counts.words.len();
        let ids: FxHashMap<String, u32> = counts
            .words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i as u32))
            .collect();

        let d1 = &counts.discounts[0];
        let total1: u64 = counts.continuation_counts.iter().sum();
        let mut unigram = vec![0.0; vocabulary];
        if total1 > 0 {
            let mut kept = 0.0;
            for (w, &a) in counts.continuation_counts.iter().enumerate() {
                if w as u32 != BOS {
                    unigram[w] = (a as f64 - discount(d1, a)).max(0.0) / total1 as f64;
                    kept += unigram[w];
                }
            }
            let uniform = (1.0 - kept).max(0.0) / (vocabulary - 1) as f64;
            for (w, p) in unigram.iter_mut().enumerate() {
                if w as u32 != BOS {
                    *p += uniform;
                }
            }
        } else {
            // No training data: uniform over the predictable words.
            let uniform = 1.0 / (vocabulary - 1) as f64;
            for (w, p) in unigram.iter_mut().enumerate() {
                if w as u32 != BOS {
                    *p = uniform;
                }
            }
        }

        let n_bigrams = counts.bigrams.iter().map(|(_, c)| c.entries.len()).sum();
        let mut bigram = FxHashMap::with_capacity_and_hasher(n_bigrams, Default::default());
        let mut bigram_backoff = vec![1.0; vocabulary];
        for (v, context) in &counts.bigrams {
            let kept = discounted_terms(&counts.discounts[1], context, |w, p| {
                bigram.insert(bigram_key(*v, w), p);
            });
            bigram_backoff[*v as usize] = (1.0 - kept).max(0.0);
        }
        let n_trigrams = counts.trigrams.iter().map(|(_, c)| c.entries.len()).sum();
        let mut trigram = FxHashMap::with_capacity_and_hasher(n_trigrams, Default::default());
        let mut trigram_backoff =
            FxHashMap::with_capacity_and_hasher(counts.trigrams.len(), Default::default());
        for ((u, v), context) in &counts.trigrams {
            let kept = discounted_terms(&counts.discounts[2], context, |w, p| {
                trigram.insert(trigram_key(*u, *v, w), p);
            });
            trigram_backoff.insert(trigram_key(*u, *v, 0), (1.0 - kept).max(0.0));
        }

        // Word frequencies: tokens other than <s> and </s>. <unk> stands for many rare types,
        // so an unknown word gets <unk>'s count shared over the folded types.
        let word_tokens: u64 = counts
            .unigram_counts
            .iter()
            .enumerate()
            .filter(|&(i, _)| i as u32 != BOS && i as u32 != EOS)
            .map(|(_, &c)| c)
            .sum();
        let folded_types: f64 = counts
            .metadata("folded_types")
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(1.0)
            .max(1.0);
        let unigram_ml_ln = counts
            .unigram_counts
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let c = if i as u32 == UNK {
                    c as f64 / folded_types
                } else {
                    c as f64
                };
                // A word never seen (only in hand-made models) gets half a count.
                (c.max(0.5) / word_tokens.max(1) as f64).ln()
            })
            .collect();

        LanguageModel {
            counts,
            ids,
            unigram,
            bigram,
            bigram_backoff,
            trigram,
            trigram_backoff,
            unigram_ml_ln,
        }
    }

    /// The counts the model was derived from (vocabulary, discounts, metadata).
    pub fn counts(&self) -> &LmCounts {
        &self.counts
    }

    /// Number of words including `<unk>`, `<s>` and `</s>`.
    pub fn vocabulary_size(&self) -> usize {
        self.counts.words.len()
    }

    /// The id of `word` (already normalized as by [`lm_sentences`]), `None` if out of vocabulary.
    pub fn word_id(&self, word: &str) -> Option<u32> {
        self.ids.get(word).copied()
    }

    /// The id of `word`, or `<unk>`.
    pub fn id_or_unk(&self, word: &str) -> u32 {
        self.word_id(word).unwrap_or(UNK)
    }

    /// P(w | history), using the last two ids of `history` (fewer at a sentence start; pass
    /// `[BOS]` for the first word). `<s>` is never predicted (probability 0).
    pub fn prob(&self, history: &[u32], w: u32) -> f64 {
        let w_index = w as usize;
        if w == BOS || w_index >= self.unigram.len() {
            return 0.0;
        }
        let p1 = self.unigram[w_index];
        let Some(&v) = history.last() else {
            return p1;
        };
        let p2 = self.bigram.get(&bigram_key(v, w)).copied().unwrap_or(0.0)
            + self.bigram_backoff.get(v as usize).copied().unwrap_or(1.0) * p1;
        let Some(&u) = history.len().checked_sub(2).and_then(|i| history.get(i)) else {
            return p2;
        };
        match self.trigram_backoff.get(&trigram_key(u, v, 0)) {
            Some(&gamma) => {
                self.trigram
                    .get(&trigram_key(u, v, w))
                    .copied()
                    .unwrap_or(0.0)
                    + gamma * p2
            }
            None => p2,
        }
    }

    /// ln P of every scored token of one sentence of words: each word, then `</s>`.
    pub fn sentence_logprobs<S: AsRef<str>>(&self, words: &[S]) -> Vec<f64> {
        let mut history = vec![BOS];
        let mut out = Vec::with_capacity(words.len() + 1);
        for w in words
            .iter()
            .map(|w| self.id_or_unk(w.as_ref()))
            .chain([EOS])
        {
            out.push(self.prob(&history, w).ln());
            history.push(w);
        }
        out
    }

    /// ln of the maximum-likelihood frequency of `word` among training word tokens.
    pub fn unigram_ml_logprob(&self, word: &str) -> f64 {
        self.unigram_ml_ln[self.id_or_unk(word) as usize]
    }

    /// Perplexity over tokenized sentences (every word and `</s>`; unknown words as `<unk>`),
    /// with the number of scored tokens.
    pub fn perplexity<S: AsRef<str>>(&self, sentences: &[Vec<S>]) -> (f64, usize) {
        let mut sum = 0.0;
        let mut n = 0usize;
        for s in sentences {
            for lp in self.sentence_logprobs(s) {
                sum += lp;
                n += 1;
            }
        }
        ((-sum / n as f64).exp(), n)
    }

    /// The `lm` feature values of `text`, in the order of [`FEATURES`].
    pub fn features(&self, text: &str) -> Vec<f64> {
        let sentences = lm_sentences(text);
        let words: Vec<&String> = sentences.iter().flatten().collect();
        if words.is_empty() {
            return vec![f64::NAN; FEATURES.len()];
        }
        let logprobs: Vec<f64> = sentences
            .iter()
            .flat_map(|s| self.sentence_logprobs(s))
            .collect();
        let n = logprobs.len() as f64;
        let mean = logprobs.iter().sum::<f64>() / n;
        let variance = logprobs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let min = logprobs.iter().copied().fold(f64::INFINITY, f64::min);
        let low = logprobs.iter().filter(|&&x| x < LOW_LOGPROB).count() as f64 / n;
        let oov = words.iter().filter(|w| self.word_id(w).is_none()).count() as f64;
        let unigram_mean = words
            .iter()
            .map(|w| self.unigram_ml_logprob(w))
            .sum::<f64>()
            / words.len() as f64;
        vec![
            mean,
            min,
            variance.sqrt(),
            percentile(&logprobs, 0.10),
            (-mean).exp(),
            oov / words.len() as f64,
            unigram_mean,
            low,
        ]
    }
}

/// Add the discounted terms of one context's kept entries (calling `store` with each), returning
/// their sum.
fn discounted_terms(
    discounts: &[f64; 3],
    context: &ContextCounts,
    mut store: impl FnMut(u32, f64),
) -> f64 {
    let mut kept = 0.0;
    for &(w, a) in &context.entries {
        let p = (a as f64 - discount(discounts, a)).max(0.0) / context.total as f64;
        store(w, p);
        kept += p;
    }
    kept
}

/// The q-quantile with linear interpolation between order statistics (position q·(n − 1)).
/// NaN for no values.
pub fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let position = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lower = position.floor() as usize;
    let upper = position.ceil() as usize;
    sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower as f64)
}

/// The `lm` class.
pub struct Lm {
    model: &'static LanguageModel,
}

impl Lm {
    /// The class with the shipped model (decoded here, once per process).
    pub fn new() -> anyhow::Result<Lm> {
        Ok(Lm {
            model: LanguageModel::shipped()?,
        })
    }
}

/// The `lm` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "lm",
    about: "trigram Kneser-Ney language model",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(Lm::new()?)),
};

impl FeatureClass for Lm {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }

    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("lm.{f}")).collect()
    }

    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        ctx.topic
            .summaries
            .iter()
            .map(|s| Some(self.model.features(&s.text)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn chen_goodman_discounts_by_hand() {
        // n = (100, 40, 20, 10): Y = 100/(100 + 80) = 5/9;
        // D1 = 1 − 2·(5/9)·40/100 = 5/9; D2 = 2 − 3·(5/9)·20/40 = 7/6;
        // D3+ = 3 − 4·(5/9)·10/20 = 17/9.
        let d = estimate_discounts([100, 40, 20, 10]);
        assert!(close(d[0], 5.0 / 9.0), "{d:?}");
        assert!(close(d[1], 7.0 / 6.0), "{d:?}");
        assert!(close(d[2], 17.0 / 9.0), "{d:?}");
        // n3 = 0: absolute discounting with Y = 3/(3 + 4) = 3/7.
        assert_eq!(estimate_discounts([3, 2, 0, 0]), [3.0 / 7.0; 3]);
        // n1 = 0: the fixed 0.5.
        assert_eq!(estimate_discounts([0, 3, 0, 0]), [0.5; 3]);
        // D2 = 2 − 3·Y·n3/n2 would be negative (Y = 1/3, n3/n2 = 10): clamped to 0.
        assert_eq!(estimate_discounts([10, 10, 100, 1])[1], 0.0);
    }

    #[test]
    fn percentile_interpolates_between_order_statistics() {
        // Position 0.1·(5 − 1) = 0.4 between 1 and 2.
        assert!(close(percentile(&[5.0, 3.0, 1.0, 4.0, 2.0], 0.1), 1.4));
        assert_eq!(percentile(&[7.0], 0.1), 7.0);
        assert!(percentile(&[], 0.1).is_nan());
    }

    #[test]
    fn tokenization_lowercases_splits_clitics_and_drops_punctuation() {
        let sentences = lm_sentences("He didn’t pay $1,250. Then 3 dogs ran!\n\n");
        assert_eq!(
            sentences,
            vec![
                vec!["he", "did", "n't", "pay", "0,000"],
                vec!["then", "0", "dogs", "ran"]
            ]
        );
        assert!(lm_sentences(" ... !! ").is_empty());
    }

    #[test]
    fn file_round_trip_and_malformed_input() {
        let sentences = vec![vec!["a", "b"], vec!["a", "b"], vec!["b", "a"], vec!["a"]];
        let opts = TrainOptions {
            min_word_count: 1,
            ..TrainOptions::default()
        };
        let mut counts = LmCounts::train(sentences, &opts);
        counts.set_metadata("note", "tiny".to_string());
        let gz = counts.to_gzip().map_err(|e| e.to_string());
        let back = gz.and_then(|g| LmCounts::from_gzip(&g).map_err(|e| e.to_string()));
        assert_eq!(back.as_ref().ok(), Some(&counts));
        assert_eq!(counts.metadata("note"), Some("tiny"));

        let bytes = counts.to_bytes();
        assert!(LmCounts::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(LmCounts::from_bytes(&extra).is_err());
        assert!(LmCounts::from_bytes(b"AESOPLM\n\x02").is_err());
        assert!(LmCounts::from_gzip(b"not gzip").is_err());
    }

    #[test]
    fn shipped_model_loads_and_is_plausible() {
        let model = LanguageModel::shipped().map_err(|e| e.to_string());
        let model = model.as_ref().map_err(String::clone);
        let Ok(model) = model else {
            panic!("{model:?}");
        };
        assert!(model.vocabulary_size() > 20_000);
        let tokens: u64 = model
            .counts()
            .metadata("training_tokens")
            .map_or(0, |v| v.parse().unwrap_or(0));
        assert!(tokens > 1_500_000, "{tokens}");
        // Frequent function words are known and common; a made-up word is not.
        assert!(model.word_id("the").is_some() && model.word_id("n't").is_some());
        assert!(model.word_id("qqxqq").is_none());
        assert!(model.unigram_ml_logprob("the") > (0.03f64).ln());
        assert!(model.unigram_ml_logprob("qqxqq") < model.unigram_ml_logprob("economy"));
    }
}
