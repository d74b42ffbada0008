//! The `continuity` feature class (reference-free): the local-coherence and summary-specific
//! features of Pitler, Louis & Nenkova (2010)'s Continuity class: similarity of adjacent
//! sentences, sentence-initial pronouns and connectives with nothing to refer to, properties of
//! the first sentence, and quotes.
//!
//! # Features ([`feature_names`], [`continuity_features`])
//! * `continuity.cosine_mean`, `continuity.cosine_min`: cosine of the content-stem count vectors
//!   (as the `discourse` class: Porter stems, SMART stop list) of adjacent sentences; a pair in
//!   which a sentence has no content stem has cosine 0.
//! * `continuity.pronoun_start_share`: share of sentences whose first word (the first token
//!   starting with a letter or digit) is a third-person pronoun (*he she it they him her them
//!   his its their hers theirs*, or *this that these those* tagged PRON);
//!   `continuity.dangling_pronoun_share`: share of sentences starting with such a pronoun that
//!   has nothing to refer to: the sentence is the first, or the previous sentence has no noun,
//!   proper noun or pronoun.
//! * `continuity.connective_start_share`: share of sentences whose first word starts a discourse
//!   connective (the `discourse` lexicon and use test); `continuity.first_connective_dangling`:
//!   1 when the first sentence starts with a connective whose Arg1 would be a previous sentence
//!   (*However, …*, *But …*: nothing to connect to), else 0. *When X, Y* links within the
//!   sentence and does not count.
//! * `continuity.first_tokens` (words of the first sentence), `continuity.first_pronoun_start`,
//!   `continuity.first_has_proper_noun` (a PROPN/NNP/NNPS token), 0/1.
//! * `continuity.quote_share`: share of sentences with a quotation mark token (`"`, `“`, `”`,
//!   ``` `` ```, `''`); `continuity.unbalanced_quote_share`: share with an odd number of `"` or
//!   different numbers of opening (`“`, ``` `` ```) and closing (`”`, `''`) marks.
//!
//! Undefined values are NaN: cosines with fewer than two sentences, everything else for an empty
//! summary.

use super::discourse::{find_connectives, sentence_stems, Lexicon, SentenceFacts};
use super::{ClassSpec, ParseFeatures, ReferenceUse};
use aesop_text::nlp::{Analysis, AnalyzedSentence};
use std::collections::HashMap;

/// Pronouns that need an antecedent whatever their tag.
const PERSONAL_PRONOUNS: &[&str] = &[
    "he", "she", "it", "they", "him", "her", "them", "his", "its", "their", "hers", "theirs",
];
/// Demonstratives, counted only when tagged PRON (*This is …*, not *This plan …*).
const DEMONSTRATIVES: &[&str] = &["this", "that", "these", "those"];

/// Feature names, in output order.
pub fn feature_names() -> Vec<String> {
    [
        "cosine_mean",
        "cosine_min",
        "pronoun_start_share",
        "dangling_pronoun_share",
        "connective_start_share",
        "first_connective_dangling",
        "first_tokens",
        "first_pronoun_start",
        "first_has_proper_noun",
        "quote_share",
        "unbalanced_quote_share",
    ]
    .iter()
    .map(|f| format!("continuity.{f}"))
    .collect()
}

/// Cosine of two count vectors given as token lists (0 when either is empty).
pub fn cosine(a: &[String], b: &[String]) -> f64 {
    fn count(v: &[String]) -> HashMap<&str, f64> {
        let mut m: HashMap<&str, f64> = HashMap::new();
        for t in v {
            *m.entry(t.as_str()).or_insert(0.0) += 1.0;
        }
        m
    }
    let (ca, cb) = (count(a), count(b));
    let dot: f64 = ca
        .iter()
        .map(|(t, x)| x * cb.get(t).copied().unwrap_or(0.0))
        .sum();
    let norm = |m: &HashMap<&str, f64>| m.values().map(|x| x * x).sum::<f64>().sqrt();
    let denominator = norm(&ca) * norm(&cb);
    if denominator == 0.0 {
        0.0
    } else {
        dot / denominator
    }
}

/// 0-based index of the first word (a token starting with a letter or digit).
fn first_word(sentence: &AnalyzedSentence) -> Option<usize> {
    sentence
        .tokens
        .iter()
        .position(|t| t.form.chars().next().is_some_and(char::is_alphanumeric))
}

/// Does the sentence start with an anaphoric pronoun?
pub fn starts_with_pronoun(sentence: &AnalyzedSentence) -> bool {
    let Some(i) = first_word(sentence) else {
        return false;
    };
    let t = &sentence.tokens[i];
    let lower = t.form.to_lowercase();
    PERSONAL_PRONOUNS.contains(&lower.as_str())
        || (DEMONSTRATIVES.contains(&lower.as_str()) && t.upos == "PRON")
}

/// Could the sentence hold an antecedent (a noun, proper noun or pronoun)?
fn has_antecedent_candidate(sentence: &AnalyzedSentence) -> bool {
    sentence
        .tokens
        .iter()
        .any(|t| matches!(t.upos.as_str(), "NOUN" | "PROPN" | "PRON"))
}

/// The sentence's first word starts a discourse connective: Some(true) when its Arg1 lies in
/// a previous sentence, Some(false) when within the sentence; None without one.
pub fn starting_connective(sentence: &AnalyzedSentence, lexicon: &Lexicon) -> Option<bool> {
    let first = first_word(sentence)?;
    let m = find_connectives(lexicon, sentence)
        .into_iter()
        .find(|m| m.start == first)?;
    let facts = SentenceFacts::new(sentence);
    if !facts.is_discourse_use(&m) {
        return None;
    }
    Some(facts.connective_args(&m).arg1_same_sentence.is_none())
}

/// (has a quotation mark, has unbalanced quotation marks).
pub fn quotes(sentence: &AnalyzedSentence) -> (bool, bool) {
    let (mut straight, mut open, mut close) = (0usize, 0usize, 0usize);
    for t in &sentence.tokens {
        match t.form.as_str() {
            "\"" => straight += 1,
            "“" | "``" => open += 1,
            "”" | "''" => close += 1,
            _ => {}
        }
    }
    (
        straight + open + close > 0,
        straight % 2 == 1 || open != close,
    )
}

/// Every feature of one analysed summary, in [`feature_names`] order.
pub fn continuity_features(analysis: &Analysis, lexicon: &Lexicon) -> Vec<f64> {
    let sentences = &analysis.sentences;
    let n = sentences.len();
    if n == 0 {
        return vec![f64::NAN; feature_names().len()];
    }
    let stems: Vec<Vec<String>> = sentences.iter().map(sentence_stems).collect();
    let cosines: Vec<f64> = stems.windows(2).map(|w| cosine(&w[0], &w[1])).collect();
    let (cosine_mean, cosine_min) = if cosines.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        (
            cosines.iter().sum::<f64>() / cosines.len() as f64,
            cosines.iter().copied().fold(f64::INFINITY, f64::min),
        )
    };
    let share = |count: usize| count as f64 / n as f64;
    let pronoun_starts: Vec<bool> = sentences.iter().map(starts_with_pronoun).collect();
    let dangling = (0..n)
        .filter(|&s| pronoun_starts[s] && (s == 0 || !has_antecedent_candidate(&sentences[s - 1])))
        .count();
    let connective_starts: Vec<Option<bool>> = sentences
        .iter()
        .map(|s| starting_connective(s, lexicon))
        .collect();
    let first = &sentences[0];
    let first_words = first
        .tokens
        .iter()
        .filter(|t| t.form.chars().any(char::is_alphanumeric))
        .count();
    let first_proper = first
        .tokens
        .iter()
        .any(|t| t.upos == "PROPN" || t.xpos == "NNP" || t.xpos == "NNPS");
    let quote_flags: Vec<(bool, bool)> = sentences.iter().map(quotes).collect();
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    vec![
        cosine_mean,
        cosine_min,
        share(pronoun_starts.iter().filter(|&&b| b).count()),
        share(dangling),
        share(connective_starts.iter().filter(|c| c.is_some()).count()),
        flag(connective_starts[0] == Some(true)),
        first_words as f64,
        flag(pronoun_starts[0]),
        flag(first_proper),
        share(quote_flags.iter().filter(|q| q.0).count()),
        share(quote_flags.iter().filter(|q| q.1).count()),
    ]
}

/// The `continuity` class.
#[derive(Debug, Clone, Default)]
pub struct Continuity;

impl Continuity {
    pub fn new() -> Continuity {
        Continuity
    }
}

/// The `continuity` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "continuity",
    about: "local coherence of adjacent sentences",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(Continuity::new())),
};

impl ParseFeatures for Continuity {
    const SPEC: &'static ClassSpec = &CLASS;
    fn names(&self) -> Vec<String> {
        feature_names()
    }
    fn row(&self, analysis: &Analysis) -> Vec<f64> {
        continuity_features(analysis, Lexicon::embedded())
    }
}
