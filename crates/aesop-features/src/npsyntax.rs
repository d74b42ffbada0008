//! The `npsyntax` feature class (reference-free): named-entity references and noun-phrase
//! syntax (Pitler, Louis & Nenkova 2010's "named entities" and "NP syntax" classes, after
//! Nenkova's work on references to people: a well-written summary introduces a name in full and
//! shortens it later, introduces a thing with an indefinite NP and refers back to it with a
//! definite one).
//!
//! Computed from the shared per-topic analyses ([`super::analyses::topic_analyses`]): UPOS tags and
//! the UD dependency tree. [`npsyntax_values`] takes one [`Analysis`], so tests can build
//! analyses by hand.
//!
//! # Definitions
//! * **Name mention**: a maximal run of consecutive PROPN tokens in a sentence (no named-entity
//!   recogniser: `Bank of America` is two mentions). Mentions with the same lowercase last word
//!   (`Barack Obama`, `Obama`, `Mr. Obama`) are one **entity**; its first mention is the
//!   earliest. A **multi-word entity** has a mention of at least two words and at least two
//!   mentions.
//! * **NP head**: a NOUN, PROPN or PRON token whose relation (without subtype) is not
//!   `compound`, `flat`, `fixed` or `goeswith` (those are parts of another nominal). A
//!   **noun NP** is one headed by a NOUN.
//! * **NP extent**: the head plus the whole subtrees of its NP-internal dependents (`det`,
//!   `amod`, `nmod`, `compound`, `acl`, `nummod`, `flat`, `fixed`, `goeswith`, any subtype);
//!   clausal dependents of a predicate nominal (`nsubj`, `cop`, …), `case`, `conj` and
//!   punctuation are left out. Its length is capped at [`MAX_NP_LENGTH`] tokens so a long
//!   relative clause does not dominate the mean.
//! * **Definite**: the noun has a `det` dependent `the`. **First mention**: no earlier noun
//!   NP of the summary has a head with the same Porter stem (lowercase).
//!
//! # Features (`npsyntax.*`)
//! | feature | definition |
//! |---|---|
//! | `names_per_sentence` | name mentions / sentences |
//! | `name_first_mention_fullest` | share of multi-word entities whose first mention is (one of) their longest |
//! | `name_later_mentions_reduced` | share of the later mentions of multi-word entities that are shorter than the entity's first mention |
//! | `definite_first_mention` | share of first-mention noun NPs that are definite |
//! | `definite_later_mention` | share of later-mention noun NPs that are definite |
//! | `np_modifier_share` | share of noun NPs with an `amod`, `nmod`, `compound` or `acl` dependent |
//! | `np_mean_length` | mean NP extent of noun NPs, in tokens (capped) |
//! | `pronoun_np_share` | PRON NP heads / NP heads |
//! | `nps_per_sentence` | NP heads / sentences |
//!
//! Undefined values are NaN: the per-sentence values without sentences, each share whose
//! denominator is empty (e.g. no multi-word entity, no later mention of a noun), the mean
//! length without noun NPs. Malformed trees (heads out of range, cycles) never panic.

use super::{ClassSpec, ParseFeatures, ReferenceUse};
use aesop_text::nlp::{Analysis, AnalyzedSentence};
use aesop_text::porter;
use std::collections::{HashMap, HashSet};

/// Cap on the length of one NP (tokens), so long relative clauses do not dominate the mean.
pub const MAX_NP_LENGTH: usize = 10;

/// Names of the features, without the class prefix, in output order.
pub const FEATURES: &[&str] = &[
    "names_per_sentence",
    "name_first_mention_fullest",
    "name_later_mentions_reduced",
    "definite_first_mention",
    "definite_later_mention",
    "np_modifier_share",
    "np_mean_length",
    "pronoun_np_share",
    "nps_per_sentence",
];

/// The values of one summary, in the order of [`FEATURES`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NpSyntaxValues {
    pub names_per_sentence: f64,
    pub name_first_mention_fullest: f64,
    pub name_later_mentions_reduced: f64,
    pub definite_first_mention: f64,
    pub definite_later_mention: f64,
    pub np_modifier_share: f64,
    pub np_mean_length: f64,
    pub pronoun_np_share: f64,
    pub nps_per_sentence: f64,
}

impl NpSyntaxValues {
    /// The values in the order of [`FEATURES`].
    pub fn to_row(&self) -> Vec<f64> {
        vec![
            self.names_per_sentence,
            self.name_first_mention_fullest,
            self.name_later_mentions_reduced,
            self.definite_first_mention,
            self.definite_later_mention,
            self.np_modifier_share,
            self.np_mean_length,
            self.pronoun_np_share,
            self.nps_per_sentence,
        ]
    }
}

/// `count / total`, NaN when `total` is 0.
fn share(count: usize, total: usize) -> f64 {
    if total == 0 {
        f64::NAN
    } else {
        count as f64 / total as f64
    }
}

/// Name mentions of one sentence: the lowercase words of each maximal PROPN run, in order.
pub fn name_mentions(sentence: &AnalyzedSentence) -> Vec<Vec<String>> {
    let mut mentions = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for token in &sentence.tokens {
        if token.upos == "PROPN" {
            current.push(token.form.to_lowercase());
        } else if !current.is_empty() {
            mentions.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        mentions.push(current);
    }
    mentions
}

/// Is the token (0-based `i`) an NP head?
fn is_np_head(sentence: &AnalyzedSentence, i: usize) -> bool {
    let token = &sentence.tokens[i];
    matches!(token.upos.as_str(), "NOUN" | "PROPN" | "PRON")
        && !matches!(
            token.base_deprel(),
            "compound" | "flat" | "fixed" | "goeswith"
        )
}

/// Dependents of every token of a sentence (0-based), ignoring heads out of range.
fn children_lists(sentence: &AnalyzedSentence) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); sentence.tokens.len()];
    for (k, token) in sentence.tokens.iter().enumerate() {
        if token.head >= 1 && token.head <= sentence.tokens.len() && token.head != k + 1 {
            children[token.head - 1].push(k);
        }
    }
    children
}

/// Number of non-punctuation tokens in the NP extent of the head `i` (uncapped): the head plus
/// the full subtrees of its NP-internal dependents. Each token is visited once, so cycles in a
/// malformed tree end.
pub fn np_extent(sentence: &AnalyzedSentence, i: usize) -> usize {
    let children = children_lists(sentence);
    np_extent_with(sentence, &children, i)
}

fn np_extent_with(sentence: &AnalyzedSentence, children: &[Vec<usize>], i: usize) -> usize {
    let mut visited = vec![false; sentence.tokens.len()];
    visited[i] = true;
    let mut stack: Vec<usize> = children[i]
        .iter()
        .copied()
        .filter(|&c| {
            matches!(
                sentence.tokens[c].base_deprel(),
                "det"
                    | "amod"
                    | "nmod"
                    | "compound"
                    | "acl"
                    | "nummod"
                    | "flat"
                    | "fixed"
                    | "goeswith"
            )
        })
        .collect();
    let mut size = 1;
    while let Some(k) = stack.pop() {
        if visited[k] {
            continue;
        }
        visited[k] = true;
        if sentence.tokens[k].upos != "PUNCT" {
            size += 1;
        }
        stack.extend(children[k].iter().copied().filter(|&c| !visited[c]));
    }
    size
}

/// Per-entity mention lengths (in order of first mention), grouping mentions by last word.
fn entity_mentions(analysis: &Analysis) -> Vec<Vec<usize>> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut entities: Vec<Vec<usize>> = Vec::new();
    for sentence in &analysis.sentences {
        for mention in name_mentions(sentence) {
            let Some(last) = mention.last() else { continue };
            let next = entities.len();
            let e = *index.entry(last.clone()).or_insert(next);
            if e == next {
                entities.push(Vec::new());
            }
            entities[e].push(mention.len());
        }
    }
    entities
}

/// The `npsyntax` values of one analysed summary.
pub fn npsyntax_values(analysis: &Analysis) -> NpSyntaxValues {
    let nsentences = analysis.sentences.len();
    let mentions: usize = analysis
        .sentences
        .iter()
        .map(|s| name_mentions(s).len())
        .sum();

    let (mut multiword, mut first_fullest, mut later, mut reduced) = (0, 0, 0, 0);
    for lengths in entity_mentions(analysis) {
        let longest = lengths.iter().copied().max().unwrap_or(0);
        if lengths.len() < 2 || longest < 2 {
            continue;
        }
        multiword += 1;
        if lengths[0] == longest {
            first_fullest += 1;
        }
        later += lengths.len() - 1;
        reduced += lengths[1..].iter().filter(|&&l| l < lengths[0]).count();
    }

    let (mut np_heads, mut pronoun_heads) = (0, 0);
    let (mut noun_nps, mut modified, mut length_sum) = (0, 0, 0);
    let (mut first, mut first_definite, mut subsequent, mut subsequent_definite) = (0, 0, 0, 0);
    let mut seen_heads: HashSet<String> = HashSet::new();
    for sentence in &analysis.sentences {
        let children = children_lists(sentence);
        for (i, token) in sentence.tokens.iter().enumerate() {
            if !is_np_head(sentence, i) {
                continue;
            }
            np_heads += 1;
            match token.upos.as_str() {
                "PRON" => pronoun_heads += 1,
                "NOUN" => {
                    noun_nps += 1;
                    let deps = &children[i];
                    if deps.iter().any(|&c| {
                        matches!(
                            sentence.tokens[c].base_deprel(),
                            "amod" | "nmod" | "compound" | "acl"
                        )
                    }) {
                        modified += 1;
                    }
                    length_sum += np_extent_with(sentence, &children, i).min(MAX_NP_LENGTH);
                    let definite = deps.iter().any(|&c| {
                        let dep = &sentence.tokens[c];
                        dep.base_deprel() == "det" && dep.form.eq_ignore_ascii_case("the")
                    });
                    if seen_heads.insert(porter::stem(&token.form.to_lowercase())) {
                        first += 1;
                        first_definite += usize::from(definite);
                    } else {
                        subsequent += 1;
                        subsequent_definite += usize::from(definite);
                    }
                }
                _ => {}
            }
        }
    }

    NpSyntaxValues {
        names_per_sentence: share(mentions, nsentences),
        name_first_mention_fullest: share(first_fullest, multiword),
        name_later_mentions_reduced: share(reduced, later),
        definite_first_mention: share(first_definite, first),
        definite_later_mention: share(subsequent_definite, subsequent),
        np_modifier_share: share(modified, noun_nps),
        np_mean_length: share(length_sum, noun_nps),
        pronoun_np_share: share(pronoun_heads, np_heads),
        nps_per_sentence: share(np_heads, nsentences),
    }
}

/// The `npsyntax` feature class.
#[derive(Debug, Clone, Default)]
pub struct NpSyntax;

impl NpSyntax {
    pub fn new() -> NpSyntax {
        NpSyntax
    }
}

/// The `npsyntax` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "npsyntax",
    about: "named-entity references and noun-phrase syntax",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(NpSyntax::new())),
};

impl ParseFeatures for NpSyntax {
    const SPEC: &'static ClassSpec = &CLASS;
    fn names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("npsyntax.{f}")).collect()
    }
    fn row(&self, analysis: &Analysis) -> Vec<f64> {
        npsyntax_values(analysis).to_row()
    }
}
