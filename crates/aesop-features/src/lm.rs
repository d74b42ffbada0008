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

use super::background::corpus_documents;
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};
use aesop_core::varint::{put as put_varint, VarintError};
use aesop_text::nlp::tokenize::tokenize;
use aesop_text::sentences::sentence_spans;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use rustc_hash::FxHashMap;
use std::io::{Read, Write};
use std::sync::OnceLock;

/// The shipped model (built by `scripts/build/build-lm`).
const SHIPPED_GZ: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../features/lm.bin.gz"
));

const MAGIC: &[u8; 8] = b"AESOPLM\n";
const FORMAT_VERSION: u64 = 1;
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

/// Training and pruning settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// Words seen fewer times are `<unk>`.
    pub min_word_count: u64,
    /// At most this many words (the most frequent; ties by byte order), besides the specials.
    pub max_vocabulary: usize,
    /// Bigrams seen fewer times are pruned (their mass goes to the backoff weight).
    pub min_bigram_count: u64,
    /// Trigrams seen fewer times are pruned.
    pub min_trigram_count: u64,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            min_word_count: 2,
            max_vocabulary: 100_000,
            min_bigram_count: 1,
            min_trigram_count: 2,
        }
    }
}

/// The continuations kept for one context: the context's total adjusted count (over all
/// continuations, pruned ones included) and the kept `(word, adjusted count)` pairs, by word id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContextCounts {
    pub total: u64,
    pub entries: Vec<(u32, u64)>,
}

/// Everything the model file stores: the vocabulary, counts and discounts. Probabilities are
/// derived from it ([`LanguageModel::from_counts`]) the same way at build time and at load time.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LmCounts {
    /// Word of each id; ids 0, 1, 2 are `<unk>`, `<s>`, `</s>`, then words by falling count.
    pub words: Vec<String>,
    /// Raw token count of each id (`<s>`: number of sentences; `<unk>`: folded tokens).
    pub unigram_counts: Vec<u64>,
    /// Adjusted unigram count N1+(• w) of each id (0 for `<s>`).
    pub continuation_counts: Vec<u64>,
    /// Discounts D1, D2, D3+ of orders 1, 2, 3.
    pub discounts: [[f64; 3]; ORDER],
    /// Bigram contexts `v` with their kept continuations, sorted by `v`.
    pub bigrams: Vec<(u32, ContextCounts)>,
    /// Trigram contexts `(u, v)` with their kept continuations, sorted.
    pub trigrams: Vec<((u32, u32), ContextCounts)>,
    /// Build facts (`key`, `value`), e.g. training token count, held-out perplexity.
    pub metadata: Vec<(String, String)>,
}

/// Chen & Goodman's discounts D1, D2, D3+ from the counts of counts `n = [n1, n2, n3, n4]`.
/// Each is clamped to [0, k] (a discount never exceeds the count it applies to). When some n_k
/// is zero (tiny corpora) the formulas are undefined and absolute discounting is used instead:
/// all three discounts equal Y = n1/(n1 + 2 n2) if n1 and n2 are positive, else 0.5 (Y would be
/// 0 or 1, and a zero discount leaves no mass for unseen words).
pub fn estimate_discounts(n: [u64; 4]) -> [f64; 3] {
    let [n1, n2, n3, n4] = n.map(|x| x as f64);
    let y = if n1 > 0.0 && n2 > 0.0 {
        n1 / (n1 + 2.0 * n2)
    } else {
        0.5
    };
    if n.contains(&0) {
        return [y; 3];
    }
    [
        (1.0 - 2.0 * y * n2 / n1).clamp(0.0, 1.0),
        (2.0 - 3.0 * y * n3 / n2).clamp(0.0, 2.0),
        (3.0 - 4.0 * y * n4 / n3).clamp(0.0, 3.0),
    ]
}

fn count_of_counts<'a>(counts: impl Iterator<Item = &'a u64>) -> [u64; 4] {
    let mut n = [0u64; 4];
    for &c in counts {
        if (1..=4).contains(&c) {
            n[(c - 1) as usize] += 1;
        }
    }
    n
}

/// The discount for an n-gram with adjusted count `count`.
fn discount(d: &[f64; 3], count: u64) -> f64 {
    match count {
        0 => 0.0,
        1 => d[0],
        2 => d[1],
        _ => d[2],
    }
}

fn bigram_key(v: u32, w: u32) -> u64 {
    (u64::from(v) << 32) | u64::from(w)
}

/// Word ids are below 2^21 (the vocabulary cap is checked), so three fit in a u64.
const ID_BITS: u32 = 21;
const MAX_IDS: usize = 1 << ID_BITS;

fn trigram_key(u: u32, v: u32, w: u32) -> u64 {
    (u64::from(u) << (2 * ID_BITS)) | (u64::from(v) << ID_BITS) | u64::from(w)
}

impl LmCounts {
    /// Count 1..3-grams of tokenized sentences (as from [`lm_sentences`]), choose the
    /// vocabulary, estimate the discounts and prune.
    pub fn train<I, S>(sentences: I, opts: &TrainOptions) -> LmCounts
    where
        I: IntoIterator<Item = Vec<S>>,
        S: AsRef<str>,
    {
        // Intern every word first (ids in order of first sight), keeping sentences as ids.
        let mut interned: FxHashMap<String, u32> = FxHashMap::default();
        let mut raw_words: Vec<String> = Vec::new();
        let mut raw_counts: Vec<u64> = Vec::new();
        let mut sentences_ids: Vec<Vec<u32>> = Vec::new();
        for sentence in sentences {
            let ids: Vec<u32> = sentence
                .iter()
                .map(|w| {
                    let w = w.as_ref();
                    let id = match interned.get(w) {
                        Some(&id) => id,
                        None => {
                            let id = raw_words.len() as u32;
                            interned.insert(w.to_string(), id);
                            raw_words.push(w.to_string());
                            raw_counts.push(0);
                            id
                        }
                    };
                    raw_counts[id as usize] += 1;
                    id
                })
                .collect();
            if !ids.is_empty() {
                sentences_ids.push(ids);
            }
        }

        // Vocabulary: frequent words by falling count, then byte order (deterministic).
        let mut order: Vec<u32> = (0..raw_words.len() as u32)
            .filter(|&i| raw_counts[i as usize] >= opts.min_word_count.max(1))
            .collect();
        order.sort_by(|&a, &b| {
            raw_counts[b as usize]
                .cmp(&raw_counts[a as usize])
                .then_with(|| raw_words[a as usize].cmp(&raw_words[b as usize]))
        });
        order.truncate(opts.max_vocabulary.min(MAX_IDS - SPECIALS.len()));
        let mut remap = vec![UNK; raw_words.len()];
        let mut words: Vec<String> = SPECIALS.iter().map(|s| s.to_string()).collect();
        for &raw in &order {
            remap[raw as usize] = words.len() as u32;
            words.push(raw_words[raw as usize].clone());
        }
        let folded_types = raw_words.len() - order.len();

        // Raw n-gram counts over `<s> w1 … wn </s>`.
        let mut unigram_counts = vec![0u64; words.len()];
        let mut bigram_counts: FxHashMap<u64, u64> = FxHashMap::default();
        let mut trigram_counts: FxHashMap<u64, u64> = FxHashMap::default();
        let mut tokens = 0u64;
        let mut padded: Vec<u32> = Vec::new();
        for ids in &sentences_ids {
            padded.clear();
            padded.push(BOS);
            padded.extend(ids.iter().map(|&i| remap[i as usize]));
            padded.push(EOS);
            tokens += ids.len() as u64;
            for &w in &padded {
                unigram_counts[w as usize] += 1;
            }
            for pair in padded.windows(2) {
                *bigram_counts
                    .entry(bigram_key(pair[0], pair[1]))
                    .or_default() += 1;
            }
            for triple in padded.windows(3) {
                *trigram_counts
                    .entry(trigram_key(triple[0], triple[1], triple[2]))
                    .or_default() += 1;
            }
        }

        // Adjusted counts: continuation counts for bigrams (except after <s>) and unigrams.
        let mask = (1u64 << ID_BITS) - 1;
        let mut bigram_adjusted: FxHashMap<u64, u64> = FxHashMap::default();
        for (&key, &count) in &bigram_counts {
            if (key >> 32) as u32 == BOS {
                bigram_adjusted.insert(key, count);
            }
        }
        for &key in trigram_counts.keys() {
            let (v, w) = ((key >> ID_BITS) & mask, key & mask);
            if v as u32 != BOS {
                *bigram_adjusted
                    .entry(bigram_key(v as u32, w as u32))
                    .or_default() += 1;
            }
        }
        let mut continuation_counts = vec![0u64; words.len()];
        for &key in bigram_counts.keys() {
            continuation_counts[(key & 0xFFFF_FFFF) as usize] += 1;
        }

        let discounts = [
            estimate_discounts(count_of_counts(continuation_counts.iter())),
            estimate_discounts(count_of_counts(bigram_adjusted.values())),
            estimate_discounts(count_of_counts(trigram_counts.values())),
        ];

        // Bigram contexts: totals over all continuations, entries only for kept bigrams.
        let mut bigram_contexts: FxHashMap<u32, ContextCounts> = FxHashMap::default();
        for (&key, &adjusted) in &bigram_adjusted {
            let (v, w) = ((key >> 32) as u32, (key & 0xFFFF_FFFF) as u32);
            let context = bigram_contexts.entry(v).or_default();
            context.total += adjusted;
            if bigram_counts.get(&key).copied().unwrap_or(0) >= opts.min_bigram_count {
                context.entries.push((w, adjusted));
            }
        }
        let mut trigram_contexts: FxHashMap<(u32, u32), ContextCounts> = FxHashMap::default();
        for (&key, &count) in &trigram_counts {
            let u = (key >> (2 * ID_BITS)) as u32;
            let (v, w) = (((key >> ID_BITS) & mask) as u32, (key & mask) as u32);
            let context = trigram_contexts.entry((u, v)).or_default();
            context.total += count;
            if count >= opts.min_trigram_count {
                context.entries.push((w, count));
            }
        }
        // A context without kept entries backs off completely (γ = 1): no need to store it.
        let mut bigrams: Vec<(u32, ContextCounts)> = bigram_contexts
            .into_iter()
            .filter(|(_, c)| !c.entries.is_empty())
            .collect();
        let mut trigrams: Vec<((u32, u32), ContextCounts)> = trigram_contexts
            .into_iter()
            .filter(|(_, c)| !c.entries.is_empty())
            .collect();
        bigrams.sort_unstable_by_key(|(v, _)| *v);
        trigrams.sort_unstable_by_key(|(uv, _)| *uv);
        for (_, c) in bigrams.iter_mut() {
            c.entries.sort_unstable();
        }
        for (_, c) in trigrams.iter_mut() {
            c.entries.sort_unstable();
        }

        let metadata = vec![
            ("sentences".to_string(), sentences_ids.len().to_string()),
            ("training_tokens".to_string(), tokens.to_string()),
            ("training_types".to_string(), raw_words.len().to_string()),
            ("folded_types".to_string(), folded_types.to_string()),
            ("bigrams_seen".to_string(), bigram_counts.len().to_string()),
            (
                "trigrams_seen".to_string(),
                trigram_counts.len().to_string(),
            ),
            (
                "pruning".to_string(),
                format!(
                    "min_word_count={} max_vocabulary={} min_bigram_count={} min_trigram_count={}",
                    opts.min_word_count,
                    opts.max_vocabulary,
                    opts.min_bigram_count,
                    opts.min_trigram_count
                ),
            ),
        ];
        LmCounts {
            words,
            unigram_counts,
            continuation_counts,
            discounts,
            bigrams,
            trigrams,
            metadata,
        }
    }

    /// A metadata value.
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Set (or replace) a metadata value.
    pub fn set_metadata(&mut self, key: &str, value: String) {
        match self.metadata.iter_mut().find(|(k, _)| k == key) {
            Some(entry) => entry.1 = value,
            None => self.metadata.push((key.to_string(), value)),
        }
    }

    /// The binary file format (uncompressed): magic `AESOPLM\n`, then LEB128 varints:
    /// version, order, metadata (count, then key/value strings), words (count, strings; a
    /// string is its byte length and UTF-8 bytes), raw unigram counts, continuation counts, the
    /// 3×3 discounts as little-endian f64, bigram contexts (count; per context: v as a delta
    /// from the previous v, total, number of entries, entries as (word delta, count)), trigram
    /// contexts (count; per context: u delta, v (delta when u repeats), total, entries).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put_varint(&mut out, FORMAT_VERSION);
        put_varint(&mut out, ORDER as u64);
        put_varint(&mut out, self.metadata.len() as u64);
        for (k, v) in &self.metadata {
            put_string(&mut out, k);
            put_string(&mut out, v);
        }
        put_varint(&mut out, self.words.len() as u64);
        for w in &self.words {
            put_string(&mut out, w);
        }
        for &c in self.unigram_counts.iter().chain(&self.continuation_counts) {
            put_varint(&mut out, c);
        }
        for d in self.discounts.iter().flatten() {
            out.extend_from_slice(&d.to_le_bytes());
        }
        put_varint(&mut out, self.bigrams.len() as u64);
        let mut previous_v = 0u32;
        for (v, context) in &self.bigrams {
            put_varint(&mut out, u64::from(v - previous_v));
            previous_v = *v;
            put_context(&mut out, context);
        }
        put_varint(&mut out, self.trigrams.len() as u64);
        let (mut previous_u, mut previous_v) = (0u32, 0u32);
        for ((u, v), context) in &self.trigrams {
            put_varint(&mut out, u64::from(u - previous_u));
            if *u != previous_u {
                previous_v = 0;
            }
            put_varint(&mut out, u64::from(v - previous_v));
            (previous_u, previous_v) = (*u, *v);
            put_context(&mut out, context);
        }
        out
    }

    /// Parse [`LmCounts::to_bytes`]' format, checking ids and sort order.
    pub fn from_bytes(bytes: &[u8]) -> Result<LmCounts, LmError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(MAGIC.len())? != MAGIC {
            return Err(format_error("not an aesop language model (bad magic)"));
        }
        let version = r.varint()?;
        if version != FORMAT_VERSION {
            return Err(format_error(format!(
                "format version {version}, this build reads {FORMAT_VERSION}"
            )));
        }
        let order = r.varint()?;
        if order != ORDER as u64 {
            return Err(format_error(format!("order {order}, expected {ORDER}")));
        }
        let metadata_len = r.length()?;
        let mut metadata = Vec::with_capacity(metadata_len.min(1024));
        for _ in 0..metadata_len {
            metadata.push((r.string()?, r.string()?));
        }
        let vocabulary = r.length()?;
        if !(SPECIALS.len()..=MAX_IDS).contains(&vocabulary) {
            return Err(format_error(format!("vocabulary of {vocabulary} words")));
        }
        let mut words = Vec::with_capacity(vocabulary);
        for _ in 0..vocabulary {
            words.push(r.string()?);
        }
        if words[..SPECIALS.len()] != SPECIALS {
            return Err(format_error("the first words must be <unk>, <s>, </s>"));
        }
        let mut counts = || {
            (0..vocabulary)
                .map(|_| r.varint())
                .collect::<Result<Vec<_>, _>>()
        };
        let unigram_counts = counts()?;
        let continuation_counts = counts()?;
        let mut discounts = [[0.0; 3]; ORDER];
        for d in discounts.iter_mut().flatten() {
            let raw = r.take(8)?;
            let mut le = [0u8; 8];
            le.copy_from_slice(raw);
            *d = f64::from_le_bytes(le);
            if !(0.0..=3.0).contains(d) {
                return Err(format_error(format!("discount {d} out of range")));
            }
        }
        let id = |x: u64| -> Result<u32, LmError> {
            if x < vocabulary as u64 {
                Ok(x as u32)
            } else {
                Err(format_error(format!("word id {x} out of range")))
            }
        };
        let n_bigram_contexts = r.length()?;
        let mut bigrams = Vec::with_capacity(n_bigram_contexts.min(MAX_IDS));
        let mut v = 0u64;
        for _ in 0..n_bigram_contexts {
            v += r.varint()?;
            bigrams.push((id(v)?, r.context(vocabulary)?));
        }
        let n_trigram_contexts = r.length()?;
        let mut trigrams = Vec::with_capacity(n_trigram_contexts.min(1 << 24));
        let (mut u, mut v) = (0u64, 0u64);
        for _ in 0..n_trigram_contexts {
            let du = r.varint()?;
            if du > 0 {
                v = 0;
            }
            u += du;
            v += r.varint()?;
            trigrams.push(((id(u)?, id(v)?), r.context(vocabulary)?));
        }
        if r.pos != bytes.len() {
            return Err(format_error("trailing bytes"));
        }
        Ok(LmCounts {
            words,
            unigram_counts,
            continuation_counts,
            discounts,
            bigrams,
            trigrams,
            metadata,
        })
    }

    /// Gzip-compressed [`LmCounts::to_bytes`]. Deterministic (no time stamp or name in the header).
    pub fn to_gzip(&self) -> std::io::Result<Vec<u8>> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(&self.to_bytes())?;
        encoder.finish()
    }

    /// Parse a gzip-compressed model file.
    pub fn from_gzip(bytes: &[u8]) -> Result<LmCounts, LmError> {
        let mut raw = Vec::new();
        GzDecoder::new(bytes).read_to_end(&mut raw)?;
        LmCounts::from_bytes(&raw)
    }
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_context(out: &mut Vec<u8>, context: &ContextCounts) {
    put_varint(out, context.total);
    put_varint(out, context.entries.len() as u64);
    let mut previous = 0u32;
    for &(w, count) in &context.entries {
        put_varint(out, u64::from(w - previous));
        previous = w;
        put_varint(out, count);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], LmError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format_error("truncated file"))?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn varint(&mut self) -> Result<u64, LmError> {
        aesop_core::varint::get(self.bytes, &mut self.pos).map_err(|e| match e {
            VarintError::Truncated => format_error("truncated file"),
            VarintError::TooLong => format_error("varint too long"),
        })
    }

    /// A count of following items, bounded by the remaining bytes (each takes at least one).
    fn length(&mut self) -> Result<usize, LmError> {
        let n = self.varint()?;
        if n > (self.bytes.len() - self.pos) as u64 {
            return Err(format_error(format!("length {n} exceeds the file")));
        }
        Ok(n as usize)
    }

    fn string(&mut self) -> Result<String, LmError> {
        let n = self.length()?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| format_error("invalid UTF-8"))
    }

    fn context(&mut self, vocabulary: usize) -> Result<ContextCounts, LmError> {
        let total = self.varint()?;
        let n = self.length()?;
        let mut entries = Vec::with_capacity(n);
        let mut w = 0u64;
        let mut sum = 0u64;
        for i in 0..n {
            let delta = self.varint()?;
            if i > 0 && delta == 0 {
                return Err(format_error("context entries not sorted"));
            }
            w += delta;
            if w >= vocabulary as u64 {
                return Err(format_error(format!("word id {w} out of range")));
            }
            let count = self.varint()?;
            sum = sum.saturating_add(count);
            entries.push((w as u32, count));
        }
        if sum > total || total == 0 {
            return Err(format_error("context total smaller than its entries"));
        }
        Ok(ContextCounts { total, entries })
    }
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
