//! The `surface` feature class (reference-free): length, compression, extractive fragments
//! (Grusky, Naaman & Artzi 2018), novel n-grams and repetition.
//!
//! # What is implemented
//! * **Tokens** ([`word_tokens`]): lowercase runs of letters and digits; punctuation and other
//!   symbols are dropped. The input is tokenized once per topic.
//! * **Extractive fragments** ([`greedy_fragments`], [`ArticleIndex::fragments`]): Grusky et
//!   al.'s greedy procedure: at summary position i, scan the article left to right; at each
//!   article position j where the tokens agree, extend the match as far as both sequences
//!   agree, keep it if it is the longest so far, and resume scanning after it; then take the
//!   longest match as a fragment (if any) and move i past it (or by one token). Fragments never
//!   span two input documents.
//! * Coverage = Σ|f| / |S|, density = Σ|f|² / |S|, compression = |A| / |S| (|A| = input
//!   tokens over all documents, |S| = summary tokens).
//!
//! # Features
//! `surface.summary_tokens`, `surface.summary_chars` (Unicode characters of the trimmed text),
//! `surface.compression`, `surface.coverage`, `surface.density`, `surface.novel_{1..4}` (share of
//! the summary's n-gram occurrences that never occur in any input document), and
//! `surface.repeated_{1..3}` (share of the summary's n-gram occurrences whose n-gram occurs more
//! than once in the summary).
//!
//! Undefined values: an empty summary has length 0, coverage and density 0 (no token is
//! covered), compression NaN (division by zero), novel shares NaN (no n-gram), repeated shares 0
//! (nothing repeats). A summary shorter than n tokens has novel_n NaN and repeated_n 0. A topic
//! without input documents has compression, coverage, density and novel shares NaN.

use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, SharedKey, TopicContext};
use aesop_corpus::Topic;
// FxHash: these keys are our own token ids and words, and SipHash showed in profiles.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Lowercase words: maximal runs of alphanumeric characters; everything else separates.
pub fn word_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Lengths of Grusky et al.'s greedy extractive fragments of `summary` in `article`, in
/// summary order (the straightforward O(|S|·|A|) form of their algorithm).
pub fn greedy_fragments<T: PartialEq>(article: &[T], summary: &[T]) -> Vec<usize> {
    let mut fragments = Vec::new();
    let mut i = 0;
    while i < summary.len() {
        let mut best = 0;
        let mut j = 0;
        while j < article.len() {
            if summary[i] == article[j] {
                let len = match_length(article, summary, j, i);
                best = best.max(len);
                j += len;
            } else {
                j += 1;
            }
        }
        if best > 0 {
            fragments.push(best);
        }
        i += best.max(1);
    }
    fragments
}

/// Length of the common run of `article` from `j` and `summary` from `i`.
fn match_length<T: PartialEq>(article: &[T], summary: &[T], j: usize, i: usize) -> usize {
    article[j..]
        .iter()
        .zip(&summary[i..])
        .take_while(|(a, s)| a == s)
        .count()
}

/// Token id that separates documents; never given to a word.
const SEPARATOR: u32 = u32::MAX;

/// An article (the input documents' token ids, separated by `u32::MAX`) with the positions
/// of every token, so [`ArticleIndex::fragments`] only visits positions where a match starts.
#[derive(Debug, Clone, Default)]
pub struct ArticleIndex {
    tokens: Vec<u32>,
    positions: HashMap<u32, Vec<usize>>,
    /// Offset of each document's first token in `tokens`.
    document_starts: Vec<usize>,
}

/// Where one greedy fragment lies: its first token in the summary, the input document and the
/// first token within that document (the earliest of equally long matches), and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentPosition {
    pub summary_start: usize,
    pub document: usize,
    pub input_start: usize,
    pub len: usize,
}

impl ArticleIndex {
    /// Index the documents' token-id sequences.
    pub fn new(documents: &[Vec<u32>]) -> ArticleIndex {
        let mut tokens = Vec::new();
        let mut document_starts = Vec::with_capacity(documents.len());
        for (k, doc) in documents.iter().enumerate() {
            if k > 0 {
                tokens.push(SEPARATOR);
            }
            document_starts.push(tokens.len());
            tokens.extend_from_slice(doc);
        }
        let mut positions: HashMap<u32, Vec<usize>> = HashMap::default();
        for (p, &t) in tokens.iter().enumerate() {
            if t != SEPARATOR {
                positions.entry(t).or_default().push(p);
            }
        }
        ArticleIndex {
            tokens,
            positions,
            document_starts,
        }
    }

    /// The same fragments as [`greedy_fragments`] over the concatenated article: the scan only
    /// stops at positions holding the summary token, skipping those inside the last match.
    pub fn fragments(&self, summary: &[u32]) -> Vec<usize> {
        self.fragments_with_positions(summary)
            .iter()
            .map(|f| f.len)
            .collect()
    }

    /// The fragments of [`ArticleIndex::fragments`] with their positions in the summary and
    /// the input.
    pub fn fragments_with_positions(&self, summary: &[u32]) -> Vec<FragmentPosition> {
        let mut fragments = Vec::new();
        let mut i = 0;
        while i < summary.len() {
            let mut best = 0;
            let mut best_start = 0;
            let mut resume = 0;
            if let Some(starts) = self.positions.get(&summary[i]) {
                for &j in starts {
                    if j < resume {
                        continue;
                    }
                    let len = match_length(&self.tokens, summary, j, i);
                    // Strictly longer only: the earliest of equally long matches is kept.
                    if len > best {
                        best = len;
                        best_start = j;
                    }
                    resume = j + len;
                }
            }
            if best > 0 {
                // Every position holding a word lies in some document, so this is ≥ 1.
                let document = self
                    .document_starts
                    .partition_point(|&s| s <= best_start)
                    .saturating_sub(1);
                fragments.push(FragmentPosition {
                    summary_start: i,
                    document,
                    input_start: best_start - self.document_starts[document],
                    len: best,
                });
            }
            i += best.max(1);
        }
        fragments
    }
}

/// Coverage Σ|f| / |S| (0 for an empty summary).
pub fn coverage(fragments: &[usize], summary_len: usize) -> f64 {
    if summary_len == 0 {
        return 0.0;
    }
    fragments.iter().sum::<usize>() as f64 / summary_len as f64
}

/// Density Σ|f|² / |S| (0 for an empty summary).
pub fn density(fragments: &[usize], summary_len: usize) -> f64 {
    if summary_len == 0 {
        return 0.0;
    }
    fragments.iter().map(|f| f * f).sum::<usize>() as f64 / summary_len as f64
}

/// Highest n of the novel n-gram shares.
const MAX_NOVEL_N: usize = 4;
/// Highest n of the repeated n-gram shares.
const MAX_REPEATED_N: usize = 3;

/// An n-gram (n ≤ 4) of token ids, padded with [`SEPARATOR`].
type NGramKey = [u32; MAX_NOVEL_N];

fn ngram_key(window: &[u32]) -> NGramKey {
    let mut key = [SEPARATOR; MAX_NOVEL_N];
    key[..window.len()].copy_from_slice(window);
    key
}

/// The tokenized input of one topic, shared by all its summaries.
struct TopicInput {
    vocabulary: HashMap<String, u32>,
    index: ArticleIndex,
    input_tokens: usize,
    has_documents: bool,
    /// `ngrams[n-1]`: the distinct n-grams of the input (within documents).
    ngrams: Vec<HashSet<NGramKey>>,
}

impl TopicInput {
    fn build(topic: &Topic) -> TopicInput {
        let mut vocabulary: HashMap<String, u32> = HashMap::default();
        let documents: Vec<Vec<u32>> = topic
            .documents
            .iter()
            .map(|d| {
                word_tokens(&d.text)
                    .into_iter()
                    .map(|w| {
                        let next = vocabulary.len() as u32;
                        *vocabulary.entry(w).or_insert(next)
                    })
                    .collect()
            })
            .collect();
        let mut ngrams = vec![HashSet::default(); MAX_NOVEL_N];
        for doc in &documents {
            for (n, set) in (1..=MAX_NOVEL_N).zip(ngrams.iter_mut()) {
                set.extend(doc.windows(n).map(ngram_key));
            }
        }
        TopicInput {
            input_tokens: documents.iter().map(Vec::len).sum(),
            has_documents: !documents.is_empty(),
            index: ArticleIndex::new(&documents),
            vocabulary,
            ngrams,
        }
    }

    /// Token ids of a summary: input words keep their ids, other words get fresh ids above the
    /// input vocabulary (distinct words stay distinct for the repetition counts).
    fn summary_ids(&self, tokens: &[String]) -> Vec<u32> {
        let base = self.vocabulary.len() as u32;
        let mut unseen: HashMap<&str, u32> = HashMap::default();
        tokens
            .iter()
            .map(|t| {
                self.vocabulary.get(t).copied().unwrap_or_else(|| {
                    let next = base + unseen.len() as u32;
                    *unseen.entry(t.as_str()).or_insert(next)
                })
            })
            .collect()
    }
}

/// Share of the n-gram occurrences of `ids` absent from `input` (NaN without n-grams).
fn novel_share(ids: &[u32], n: usize, input: &HashSet<NGramKey>) -> f64 {
    let total = ids.len().saturating_sub(n - 1);
    if ids.len() < n || total == 0 {
        return f64::NAN;
    }
    let novel = ids
        .windows(n)
        .filter(|w| !input.contains(&ngram_key(w)))
        .count();
    novel as f64 / total as f64
}

/// Share of the n-gram occurrences of `tokens` whose n-gram occurs more than once (0 without
/// n-grams).
pub fn repeated_share<T: std::hash::Hash + Eq>(tokens: &[T], n: usize) -> f64 {
    if n == 0 || tokens.len() < n {
        return 0.0;
    }
    let mut counts: HashMap<&[T], usize> = HashMap::default();
    for w in tokens.windows(n) {
        *counts.entry(w).or_insert(0) += 1;
    }
    let total = tokens.len() - n + 1;
    let repeated: usize = counts.values().filter(|&&c| c > 1).sum();
    repeated as f64 / total as f64
}

/// Options of the `surface` class (none yet: the n-gram ranges are fixed).
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

    fn summary_row(&self, input: &TopicInput, text: &str) -> Vec<f64> {
        let tokens = word_tokens(text);
        let ids = input.summary_ids(&tokens);
        let len = ids.len();
        let mut row = vec![len as f64, text.trim().chars().count() as f64];
        if input.has_documents {
            let fragments = input.index.fragments(&ids);
            row.push(if len == 0 {
                f64::NAN
            } else {
                input.input_tokens as f64 / len as f64
            });
            row.push(coverage(&fragments, len));
            row.push(density(&fragments, len));
            for (n, set) in (1..=MAX_NOVEL_N).zip(&input.ngrams) {
                row.push(novel_share(&ids, n, set));
            }
        } else {
            row.extend(std::iter::repeat_n(f64::NAN, 3 + MAX_NOVEL_N));
        }
        for n in 1..=MAX_REPEATED_N {
            row.push(repeated_share(&ids, n));
        }
        row
    }
}

/// The `surface` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "surface",
    about: "length, compression, extractive fragments, repetition",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |o| Ok(Box::new(Surface::new(o.surface.clone()))),
};

impl FeatureClass for Surface {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        let mut names: Vec<String> = [
            "summary_tokens",
            "summary_chars",
            "compression",
            "coverage",
            "density",
        ]
        .iter()
        .map(|f| format!("surface.{f}"))
        .collect();
        names.extend((1..=MAX_NOVEL_N).map(|n| format!("surface.novel_{n}")));
        names.extend((1..=MAX_REPEATED_N).map(|n| format!("surface.repeated_{n}")));
        names
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let input = ctx.shared(SharedKey::new("surface.input"), TopicInput::build);
        ctx.topic
            .summaries
            .iter()
            .map(|s| Some(self.summary_row(&input, &s.text)))
            .collect()
    }
}
