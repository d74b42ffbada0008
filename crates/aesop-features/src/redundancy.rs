//! The `redundancy` feature class (reference-free): how much a summary repeats itself (Pitler,
//! Louis & Nenkova 2010's redundancy class: pairwise sentence similarity and repeated n-grams).
//!
//! Computed from the shared per-topic analyses ([`super::analyses::topic_analyses`]);
//! [`redundancy_values`] takes one [`Analysis`], so tests can build analyses by hand.
//!
//! # Definitions
//! * **Sentence vector**: counts of the sentence's content stems (Porter stems of lowercase
//!   NOUN/PROPN/VERB/ADJ/ADV words off the SMART list, [`super::cohmetrix::content_stem`]).
//!   The cosine of a pair is 0 when either vector is empty.
//! * **Words** for n-grams: lowercase forms of tokens with a letter or digit; n-grams never
//!   cross a sentence boundary.
//!
//! # Features (`redundancy.*`)
//! | feature | definition |
//! |---|---|
//! | `max_cosine`, `mean_cosine` | maximum and mean cosine over all pairs of sentences i < j |
//! | `near_duplicate_share` | share of sentences whose cosine with some other sentence is ≥ [`NEAR_DUPLICATE_COSINE`] |
//! | `repeated_bigrams`, `repeated_trigrams` | share of the distinct word n-grams that occur more than once |
//! | `longest_repeated_ngram` | length of the longest word n-gram occurring at least twice (occurrences may overlap; 0 if none) |
//! | `repeated_content_share` | share of content-stem occurrences whose stem occurs more than once in the summary |
//!
//! Undefined values are NaN: the cosines with fewer than two sentences, `near_duplicate_share`
//! without sentences (one sentence gives 0), the n-gram shares without any n-gram of that
//! order, `repeated_content_share` without content words. `longest_repeated_ngram` is 0 for an
//! empty summary.

use super::cohmetrix::{content_stem, is_word};
use super::{ClassSpec, ParseFeatures, ReferenceUse};
use aesop_text::nlp::Analysis;
use std::collections::HashMap;

/// Cosine at or above which two sentences count as near-duplicates.
pub const NEAR_DUPLICATE_COSINE: f64 = 0.8;

/// Names of the features, without the class prefix, in output order.
pub const FEATURES: &[&str] = &[
    "max_cosine",
    "mean_cosine",
    "near_duplicate_share",
    "repeated_bigrams",
    "repeated_trigrams",
    "longest_repeated_ngram",
    "repeated_content_share",
];

/// The values of one summary, in the order of [`FEATURES`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedundancyValues {
    pub max_cosine: f64,
    pub mean_cosine: f64,
    pub near_duplicate_share: f64,
    pub repeated_bigrams: f64,
    pub repeated_trigrams: f64,
    pub longest_repeated_ngram: f64,
    pub repeated_content_share: f64,
}

impl RedundancyValues {
    /// The values in the order of [`FEATURES`].
    pub fn to_row(&self) -> Vec<f64> {
        vec![
            self.max_cosine,
            self.mean_cosine,
            self.near_duplicate_share,
            self.repeated_bigrams,
            self.repeated_trigrams,
            self.longest_repeated_ngram,
            self.repeated_content_share,
        ]
    }
}

/// Cosine of two count vectors (0 when either is empty).
pub fn cosine(a: &HashMap<String, usize>, b: &HashMap<String, usize>) -> f64 {
    let norm = |v: &HashMap<String, usize>| v.values().map(|&c| (c * c) as f64).sum::<f64>().sqrt();
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let dot: f64 = small
        .iter()
        .filter_map(|(k, &c)| large.get(k).map(|&d| (c * d) as f64))
        .sum();
    dot / (na * nb)
}

/// A count vector as (stem id, count) sorted by id, with its norm.
struct SparseCounts {
    counts: Vec<(u32, usize)>,
    norm: f64,
}

impl SparseCounts {
    /// The vectors with their stems numbered in one table.
    fn of_all(vectors: &[HashMap<String, usize>]) -> Vec<SparseCounts> {
        let mut ids: HashMap<&str, u32> = HashMap::new();
        vectors
            .iter()
            .map(|vector| {
                let mut counts: Vec<(u32, usize)> = vector
                    .iter()
                    .map(|(stem, &count)| {
                        let next = ids.len() as u32;
                        (*ids.entry(stem.as_str()).or_insert(next), count)
                    })
                    .collect();
                counts.sort_unstable();
                let norm = counts
                    .iter()
                    .map(|&(_, c)| (c * c) as f64)
                    .sum::<f64>()
                    .sqrt();
                SparseCounts { counts, norm }
            })
            .collect()
    }

    /// As [`cosine`]: the dot product of whole counts over the product of the norms.
    fn cosine(&self, other: &SparseCounts) -> f64 {
        if self.norm == 0.0 || other.norm == 0.0 {
            return 0.0;
        }
        let (mut a, mut b) = (
            self.counts.iter().peekable(),
            other.counts.iter().peekable(),
        );
        let mut dot = 0usize;
        while let (Some(&&(i, c)), Some(&&(j, d))) = (a.peek(), b.peek()) {
            match i.cmp(&j) {
                std::cmp::Ordering::Less => {
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    dot += c * d;
                    a.next();
                    b.next();
                }
            }
        }
        dot as f64 / (self.norm * other.norm)
    }
}

/// Share of the distinct n-grams of `sequences` (n-grams within each sequence) occurring more
/// than once; NaN when there is none.
pub fn repeated_ngram_share<T: std::hash::Hash + Eq>(sequences: &[Vec<T>], n: usize) -> f64 {
    let mut counts: HashMap<&[T], usize> = HashMap::new();
    for s in sequences {
        if n == 0 || s.len() < n {
            continue;
        }
        for w in s.windows(n) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    if counts.is_empty() {
        return f64::NAN;
    }
    counts.values().filter(|&&c| c > 1).count() as f64 / counts.len() as f64
}

/// Length of the longest n-gram occurring at least twice in `sequences` (within sequences,
/// overlapping occurrences count); 0 if no word repeats.
///
/// If an n-gram repeats, so do its prefixes, so the length is found by binary search, each
/// step one pass of rolling hashes (equal hashes are confirmed by comparing the words): time
/// O(words · log(longest sequence)), where trying every length would be quadratic in the
/// length of a summary that repeats a long passage.
pub fn longest_repeated_ngram<T: std::hash::Hash + Eq>(sequences: &[Vec<T>]) -> usize {
    let mut ids: HashMap<&T, u64> = HashMap::new();
    let sequences: Vec<Vec<u64>> = sequences
        .iter()
        .map(|s| {
            s.iter()
                .map(|w| {
                    let next = ids.len() as u64 + 1;
                    *ids.entry(w).or_insert(next)
                })
                .collect()
        })
        .collect();
    // Invariant: an n-gram of length `repeating` repeats; none longer than `limit` does.
    let (mut repeating, mut limit) = (0, sequences.iter().map(Vec::len).max().unwrap_or(0));
    while repeating < limit {
        let n = (repeating + limit).div_ceil(2);
        if has_repeated_ngram(&sequences, n) {
            repeating = n;
        } else {
            limit = n - 1;
        }
    }
    repeating
}

/// Whether some n-gram (n ≥ 1) occurs twice within `sequences`.
fn has_repeated_ngram(sequences: &[Vec<u64>], n: usize) -> bool {
    // Polynomial hash mod 2^64 over an odd base; BASE^n removes the word leaving the window.
    const BASE: u64 = 0x100_0000_01b3;
    let leaving = (0..n).fold(1u64, |p, _| p.wrapping_mul(BASE));
    let mut seen: HashMap<u64, Vec<&[u64]>> = HashMap::new();
    for s in sequences.iter().filter(|s| s.len() >= n) {
        let mut hash = 0u64;
        for (end, &id) in s.iter().enumerate() {
            hash = hash.wrapping_mul(BASE).wrapping_add(id);
            if end >= n {
                hash = hash.wrapping_sub(leaving.wrapping_mul(s[end - n]));
            }
            if end + 1 >= n {
                let window = &s[end + 1 - n..=end];
                let same_hash = seen.entry(hash).or_default();
                if same_hash.contains(&window) {
                    return true;
                }
                same_hash.push(window);
            }
        }
    }
    false
}

/// The `redundancy` values of one analysed summary.
pub fn redundancy_values(analysis: &Analysis) -> RedundancyValues {
    let mut vectors: Vec<HashMap<String, usize>> = Vec::new();
    let mut words: Vec<Vec<String>> = Vec::new();
    let mut stem_counts: HashMap<String, usize> = HashMap::new();
    for sentence in &analysis.sentences {
        let mut vector: HashMap<String, usize> = HashMap::new();
        for stem in sentence.tokens.iter().filter_map(content_stem) {
            *stem_counts.entry(stem.clone()).or_insert(0) += 1;
            *vector.entry(stem).or_insert(0) += 1;
        }
        vectors.push(vector);
        words.push(
            sentence
                .tokens
                .iter()
                .filter(|t| is_word(t))
                .map(|t| t.form.to_lowercase())
                .collect(),
        );
    }
    let n = vectors.len();
    // The pairs are many in a long summary (13,000 list items: 85 million), so each vector is
    // compared as sorted stem ids rather than by hashing strings; the counts are whole numbers,
    // so every cosine is the one [`cosine`] gives, to the bit.
    let sparse = SparseCounts::of_all(&vectors);
    let mut max_cosine = f64::NAN;
    let mut sum = 0.0;
    let mut near_duplicate = vec![false; n];
    for i in 0..n {
        for j in i + 1..n {
            let c = sparse[i].cosine(&sparse[j]);
            sum += c;
            // NaN.max(c) = c, so the first pair sets the maximum.
            max_cosine = max_cosine.max(c);
            if c >= NEAR_DUPLICATE_COSINE {
                near_duplicate[i] = true;
                near_duplicate[j] = true;
            }
        }
    }
    let pairs = n * n.saturating_sub(1) / 2;
    let content_occurrences: usize = stem_counts.values().sum();
    let repeated_content: usize = stem_counts.values().filter(|&&c| c > 1).sum();
    RedundancyValues {
        max_cosine,
        mean_cosine: if pairs == 0 {
            f64::NAN
        } else {
            sum / pairs as f64
        },
        near_duplicate_share: if n == 0 {
            f64::NAN
        } else {
            near_duplicate.iter().filter(|&&d| d).count() as f64 / n as f64
        },
        repeated_bigrams: repeated_ngram_share(&words, 2),
        repeated_trigrams: repeated_ngram_share(&words, 3),
        longest_repeated_ngram: longest_repeated_ngram(&words) as f64,
        repeated_content_share: if content_occurrences == 0 {
            f64::NAN
        } else {
            repeated_content as f64 / content_occurrences as f64
        },
    }
}

/// The `redundancy` feature class.
#[derive(Debug, Clone, Default)]
pub struct Redundancy;

impl Redundancy {
    pub fn new() -> Redundancy {
        Redundancy
    }
}

/// The `redundancy` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "redundancy",
    about: "how much a summary repeats itself",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(Redundancy::new())),
};

impl ParseFeatures for Redundancy {
    const SPEC: &'static ClassSpec = &CLASS;
    fn names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("redundancy.{f}")).collect()
    }
    fn row(&self, analysis: &Analysis) -> Vec<f64> {
        redundancy_values(analysis).to_row()
    }
}
