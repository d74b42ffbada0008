//! The `alignment` feature class (reference-free): how a summary's sentences align to the
//! input sentences they were copied or rewritten from. Lead-style and fluent summaries take
//! whole sentences in input order; summaries that splice fragments of several input sentences,
//! repeat one, or jump around the input read as incoherent.
//!
//! # Definitions
//! * **Sentences**: [`aesop_text::sentences::sentence_spans`] (default options) of the summary
//!   and of every input document; tokens are [`super::surface::word_tokens`] of each sentence.
//!   Sentences without a word token are left out.
//! * **Fragments**: Grusky et al.'s greedy extractive fragments
//!   ([`ArticleIndex::fragments_with_positions`]) of each summary sentence on its own, over all
//!   input documents (never across two), keeping those of at least [`MIN_FRAGMENT`] tokens.
//!   A fragment's *input sentence* is the sentence of its document holding most of its tokens
//!   (the earliest on ties); a fragment may run over an input sentence boundary.
//! * A summary sentence is **aligned** when it has a fragment. Its **source** is the input
//!   sentence of its longest fragment (the first in the summary on ties).
//! * A **splice** is a pair of consecutive fragments of one summary sentence where the second
//!   comes from another input sentence, or from the same input sentence but not after the end
//!   of the first (dropping or replacing words within one input sentence is not a splice).
//!
//! # Features (`alignment.*`)
//! | feature | definition |
//! |---|---|
//! | `fragments_per_sentence` | fragments per summary sentence |
//! | `splices_per_sentence` | splices per summary sentence |
//! | `multi_source_share` | share of summary sentences whose fragments come from more than one input sentence |
//! | `verbatim_share` | share of summary sentences whose longest fragment covers all its tokens but at most one |
//! | `unaligned_share` | share of summary sentences without a fragment |
//! | `order_inversions` | over pairs of aligned summary sentences (earlier, later) whose sources are in the same document, the share whose later source comes strictly before the earlier one |
//! | `adjacent_share` | over consecutive aligned summary sentences (unaligned ones skipped), the share whose second source is the first source or the sentence after it |
//! | `repeated_source_share` | share of aligned summary sentences whose source is the source of an earlier one |
//! | `mean_source_position` | mean relative position of the sources: sentence index (from 0) / sentences in its document |
//! | `first_source_position` | relative position of the first aligned summary sentence's source |
//!
//! Undefined values are NaN: everything for a topic without input documents and for a summary
//! without sentences; `order_inversions` without a pair of aligned sentences with sources in
//! one document; `adjacent_share` with fewer than two aligned sentences;
//! `repeated_source_share` and both positions without an aligned sentence. An input without
//! words leaves every summary sentence unaligned (the counts and shares are then defined).

use super::surface::{word_tokens, ArticleIndex, FragmentPosition};
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, SharedKey, TopicContext};
use aesop_corpus::Topic;
use aesop_text::sentences::sentence_spans;
use std::collections::{HashMap, HashSet};

/// Shortest fragment (in tokens) that counts as copied material.
pub const MIN_FRAGMENT: usize = 3;

/// Names of the features, without the class prefix, in output order.
pub const FEATURES: &[&str] = &[
    "fragments_per_sentence",
    "splices_per_sentence",
    "multi_source_share",
    "verbatim_share",
    "unaligned_share",
    "order_inversions",
    "adjacent_share",
    "repeated_source_share",
    "mean_source_position",
    "first_source_position",
];

/// Word tokens of each sentence of `text` (sentences without words left out).
pub fn sentence_tokens(text: &str) -> Vec<Vec<String>> {
    sentence_spans(text)
        .into_iter()
        .map(|span| word_tokens(&text[span]))
        .filter(|t| !t.is_empty())
        .collect()
}

/// An input sentence: its document and its index among that document's sentences.
type SentenceId = (usize, usize);

/// The input side of one topic, shared by its summaries.
#[derive(Debug, Clone, Default)]
pub struct AlignmentInput {
    vocabulary: HashMap<String, u32>,
    index: ArticleIndex,
    /// Per document, the token offset where each sentence starts.
    sentence_starts: Vec<Vec<usize>>,
    has_documents: bool,
}

impl AlignmentInput {
    /// Split and tokenize the topic's documents and index them.
    pub fn build(topic: &Topic) -> AlignmentInput {
        let texts: Vec<&str> = topic.documents.iter().map(|d| d.text.as_str()).collect();
        AlignmentInput::from_texts(&texts)
    }

    /// The same from document texts.
    pub fn from_texts(texts: &[&str]) -> AlignmentInput {
        let mut vocabulary: HashMap<String, u32> = HashMap::new();
        let mut documents = Vec::with_capacity(texts.len());
        let mut sentence_starts = Vec::with_capacity(texts.len());
        for text in texts {
            let mut ids = Vec::new();
            let mut starts = Vec::new();
            for sentence in sentence_tokens(text) {
                starts.push(ids.len());
                for w in sentence {
                    let next = vocabulary.len() as u32;
                    ids.push(*vocabulary.entry(w).or_insert(next));
                }
            }
            documents.push(ids);
            sentence_starts.push(starts);
        }
        AlignmentInput {
            index: ArticleIndex::new(&documents),
            vocabulary,
            sentence_starts,
            has_documents: !texts.is_empty(),
        }
    }

    /// Token ids of a summary sentence; a word absent from the input gets an id no input
    /// token has, so it never matches.
    fn ids(&self, tokens: &[String]) -> Vec<u32> {
        let unseen = self.vocabulary.len() as u32;
        tokens
            .iter()
            .map(|t| self.vocabulary.get(t).copied().unwrap_or(unseen))
            .collect()
    }

    /// The input sentence holding most tokens of `f` (the earliest on ties).
    fn fragment_sentence(&self, f: &FragmentPosition) -> SentenceId {
        let starts = &self.sentence_starts[f.document];
        let end = f.input_start + f.len;
        // Sentence holding the fragment's first token.
        let mut k = starts
            .partition_point(|&s| s <= f.input_start)
            .saturating_sub(1);
        let mut best = (k, 0);
        while k < starts.len() && starts[k] < end {
            let sentence_end = starts.get(k + 1).copied().unwrap_or(usize::MAX);
            let overlap = end.min(sentence_end) - f.input_start.max(starts[k]);
            if overlap > best.1 {
                best = (k, overlap);
            }
            k += 1;
        }
        (f.document, best.0)
    }

    /// Number of sentences of document `d`.
    fn sentence_count(&self, d: usize) -> usize {
        self.sentence_starts[d].len()
    }
}

/// One summary sentence's alignment.
struct SentenceAlignment {
    /// Input sentences of its fragments (≥ [`MIN_FRAGMENT`] tokens), in summary order.
    fragment_sentences: Vec<SentenceId>,
    splices: usize,
    verbatim: bool,
    source: Option<SentenceId>,
}

fn align_sentence(input: &AlignmentInput, tokens: &[String]) -> SentenceAlignment {
    let fragments: Vec<FragmentPosition> = input
        .index
        .fragments_with_positions(&input.ids(tokens))
        .into_iter()
        .filter(|f| f.len >= MIN_FRAGMENT)
        .collect();
    let fragment_sentences: Vec<SentenceId> = fragments
        .iter()
        .map(|f| input.fragment_sentence(f))
        .collect();
    let splices = fragments
        .windows(2)
        .zip(fragment_sentences.windows(2))
        .filter(|(f, s)| s[0] != s[1] || f[1].input_start < f[0].input_start + f[0].len)
        .count();
    // The first longest fragment (max_by_key would keep the last).
    let longest = fragments.iter().enumerate().fold(
        None,
        |best: Option<(usize, usize)>, (k, f)| match best {
            Some((_, len)) if len >= f.len => best,
            _ => Some((k, f.len)),
        },
    );
    SentenceAlignment {
        splices,
        verbatim: longest.is_some_and(|(_, len)| len + 1 >= tokens.len()),
        source: longest.map(|(k, _)| fragment_sentences[k]),
        fragment_sentences,
    }
}

/// Numerator / denominator, NaN when the denominator is 0.
fn ratio(numerator: usize, denominator: usize) -> f64 {
    if denominator == 0 {
        f64::NAN
    } else {
        numerator as f64 / denominator as f64
    }
}

/// The values of one summary, in the order of [`FEATURES`].
pub fn alignment_values(input: &AlignmentInput, summary: &str) -> Vec<f64> {
    let sentences = sentence_tokens(summary);
    if !input.has_documents || sentences.is_empty() {
        return vec![f64::NAN; FEATURES.len()];
    }
    let aligned: Vec<SentenceAlignment> =
        sentences.iter().map(|t| align_sentence(input, t)).collect();
    let n = aligned.len();
    let fragments: usize = aligned.iter().map(|a| a.fragment_sentences.len()).sum();
    let splices: usize = aligned.iter().map(|a| a.splices).sum();
    let multi_source = aligned
        .iter()
        .filter(|a| {
            let distinct: HashSet<&SentenceId> = a.fragment_sentences.iter().collect();
            distinct.len() > 1
        })
        .count();
    let verbatim = aligned.iter().filter(|a| a.verbatim).count();
    let sources: Vec<SentenceId> = aligned.iter().filter_map(|a| a.source).collect();

    let mut same_document_pairs = 0;
    let mut inversions = 0;
    for (i, a) in sources.iter().enumerate() {
        for b in &sources[i + 1..] {
            if a.0 == b.0 {
                same_document_pairs += 1;
                if b.1 < a.1 {
                    inversions += 1;
                }
            }
        }
    }
    let adjacent = sources
        .windows(2)
        .filter(|p| p[0].0 == p[1].0 && (p[1].1 == p[0].1 || p[1].1 == p[0].1 + 1))
        .count();
    let mut seen = HashSet::new();
    let repeated = sources.iter().filter(|s| !seen.insert(**s)).count();
    // A source sentence exists, so its document has at least one sentence.
    let position = |s: &SentenceId| s.1 as f64 / input.sentence_count(s.0) as f64;
    let mean_position = if sources.is_empty() {
        f64::NAN
    } else {
        sources.iter().map(position).sum::<f64>() / sources.len() as f64
    };
    vec![
        ratio(fragments, n),
        ratio(splices, n),
        ratio(multi_source, n),
        ratio(verbatim, n),
        ratio(n - sources.len(), n),
        ratio(inversions, same_document_pairs),
        ratio(adjacent, sources.len().saturating_sub(1)),
        ratio(repeated, sources.len()),
        mean_position,
        sources.first().map_or(f64::NAN, position),
    ]
}

/// The `alignment` feature class.
#[derive(Debug, Clone, Default)]
pub struct Alignment;

impl Alignment {
    pub fn new() -> Alignment {
        Alignment
    }
}

/// The `alignment` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "alignment",
    about: "alignment of summary sentences to the input",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(Alignment::new())),
};

impl FeatureClass for Alignment {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("alignment.{f}")).collect()
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let input = ctx.shared(SharedKey::new("alignment.input"), AlignmentInput::build);
        ctx.topic
            .summaries
            .iter()
            .map(|s| Some(alignment_values(&input, &s.text)))
            .collect()
    }
}
