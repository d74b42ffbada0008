//! The `syntax` feature class (reference-free): sentence fluency from the dependency parse
//! (Pitler, Louis & Nenkova 2010's "sentence fluency" class), computed on the shared analysis
//! ([`super::analyses::topic_analyses`]).
//!
//! # Features
//! Words are the tokens that are not punctuation (UPOS `PUNCT`); shares of tokens count every
//! token, punctuation included.
//! * `syntax.sentences`: number of sentences.
//! * `syntax.mean_sentence_words`, `syntax.max_sentence_words`: sentence length in words.
//! * `syntax.verbless_root_share`: share of sentences whose root is neither a VERB nor an AUX
//!   and has no copula (`cop`) dependent: fragments such as *A new hope for the city.* (UD puts
//!   the root of a copular clause on the predicate, so *He is happy* is not verbless).
//! * `syntax.no_subject_share`: share of sentences whose root has no subject dependent (base
//!   relation `nsubj` or `csubj`): imperatives, fragments, broken parses.
//! * `syntax.unterminated_share`: share of sentences whose last token is not `.`, `!`, `?` or
//!   `…`, possibly followed by closing quotes or brackets (truncated output).
//! * `syntax.mean_depth`, `syntax.max_depth`: tree depth = number of tokens on the longest
//!   root-to-leaf path (a one-token sentence has depth 1); mean over sentences and maximum.
//! * `syntax.mean_dependency_length`: mean |head − dependent| (in token positions) over all
//!   non-root, non-punctuation tokens.
//! * `syntax.rel_<r>` for each base relation r of [`RELATIONS`]: share of the summary's tokens
//!   attached by r (subtypes folded in: `nsubj:pass` counts as `nsubj`). `rel_dep` is the
//!   parser's unclassified relation, a sign of hard-to-parse text.
//! * `syntax.upos_x`, `syntax.upos_sym`, `syntax.upos_intj`: share of tokens tagged X (other,
//!   foreign, typos), SYM and INTJ.
//!
//! An empty summary has 0 sentences and every other value NaN. Depth and dependency length
//! guard against malformed head chains (a cycle or an out-of-range head counts as reaching the
//! root) so hand-built or CoNLL-U analyses cannot hang the extractor.

use super::{ClassSpec, ParseFeatures, ReferenceUse};
use aesop_text::nlp::{Analysis, AnalyzedSentence};

/// Base relations whose token shares are features, in output order.
pub const RELATIONS: &[&str] = &[
    "nsubj",
    "obj",
    "iobj",
    "csubj",
    "expl",
    "amod",
    "advmod",
    "nmod",
    "nummod",
    "obl",
    "conj",
    "cc",
    "mark",
    "advcl",
    "acl",
    "ccomp",
    "xcomp",
    "compound",
    "flat",
    "det",
    "case",
    "aux",
    "cop",
    "punct",
    "appos",
    "parataxis",
    "dep",
];

/// Parts of speech whose token shares are features (the name is the lowercase tag).
pub const RARE_UPOS: &[&str] = &["X", "SYM", "INTJ"];

/// Features before the relation shares.
const SENTENCE_FEATURES: &[&str] = &[
    "sentences",
    "mean_sentence_words",
    "max_sentence_words",
    "verbless_root_share",
    "no_subject_share",
    "unterminated_share",
    "mean_depth",
    "max_depth",
    "mean_dependency_length",
];

/// Number of tokens on the longest root-to-leaf path of a sentence (0 when empty). A head that
/// points outside the sentence ends the path there; a cycle (no parse of ours makes one) counts
/// as a path through every token.
pub fn tree_depth(sentence: &AnalyzedSentence) -> usize {
    let tokens = &sentence.tokens;
    let n = tokens.len();
    // Each token's depth once known, so that a long chain (a parse of 30,000 tokens, each the
    // head of the next) is walked once rather than once per token.
    const UNKNOWN: usize = 0;
    const ON_PATH: usize = usize::MAX;
    let mut depth = vec![UNKNOWN; n];
    let mut path = Vec::new();
    for i in 0..n {
        let mut k = i;
        let above = loop {
            match depth[k] {
                ON_PATH => return n,
                UNKNOWN => {}
                known => break known,
            }
            depth[k] = ON_PATH;
            path.push(k);
            let head = tokens[k].head;
            if head == 0 || head > n {
                break 0;
            }
            k = head - 1;
        };
        for (below, &token) in path.iter().rev().enumerate() {
            depth[token] = above + below + 1;
        }
        path.clear();
    }
    depth.into_iter().max().unwrap_or(0).min(n)
}

/// Is the sentence a fragment: a root that is not a verb, auxiliary or copular predicate?
pub fn verbless_root(sentence: &AnalyzedSentence) -> bool {
    let Some(root) = sentence.root() else {
        return true;
    };
    let verbal = matches!(sentence.tokens[root].upos.as_str(), "VERB" | "AUX");
    let copular = sentence
        .children(root)
        .any(|c| sentence.tokens[c].base_deprel() == "cop");
    !verbal && !copular
}

/// Does the root lack a subject dependent?
pub fn root_without_subject(sentence: &AnalyzedSentence) -> bool {
    let Some(root) = sentence.root() else {
        return true;
    };
    !sentence
        .children(root)
        .any(|c| matches!(sentence.tokens[c].base_deprel(), "nsubj" | "csubj"))
}

/// Does the sentence lack final punctuation (ignoring closing quotes and brackets)?
pub fn unterminated(sentence: &AnalyzedSentence) -> bool {
    let last = sentence.tokens.iter().rev().find(|t| {
        !matches!(
            t.form.as_str(),
            "\"" | "'" | "”" | "’" | "»" | ")" | "]" | "''"
        )
    });
    match last {
        Some(t) => !matches!(t.form.as_str(), "." | "!" | "?" | "…" | "..." | "?!" | "!!"),
        None => true,
    }
}

/// The `syntax` feature values of one analysed summary, in [`CLASS`]'s feature order.
pub fn syntax_features(analysis: &Analysis) -> Vec<f64> {
    let sentences: Vec<&AnalyzedSentence> = analysis
        .sentences
        .iter()
        .filter(|s| !s.tokens.is_empty())
        .collect();
    let width = SENTENCE_FEATURES.len() + RELATIONS.len() + RARE_UPOS.len();
    let mut row = Vec::with_capacity(width);
    let n = sentences.len();
    row.push(n as f64);
    if n == 0 {
        row.resize(width, f64::NAN);
        return row;
    }
    let share = |count: usize| count as f64 / n as f64;

    let words: Vec<usize> = sentences
        .iter()
        .map(|s| s.tokens.iter().filter(|t| t.upos != "PUNCT").count())
        .collect();
    row.push(words.iter().sum::<usize>() as f64 / n as f64);
    row.push(words.iter().copied().max().unwrap_or(0) as f64);
    row.push(share(sentences.iter().filter(|s| verbless_root(s)).count()));
    row.push(share(
        sentences.iter().filter(|s| root_without_subject(s)).count(),
    ));
    row.push(share(sentences.iter().filter(|s| unterminated(s)).count()));
    let depths: Vec<usize> = sentences.iter().map(|s| tree_depth(s)).collect();
    row.push(depths.iter().sum::<usize>() as f64 / n as f64);
    row.push(depths.iter().copied().max().unwrap_or(0) as f64);

    let (mut dep_length, mut arcs) = (0usize, 0usize);
    for s in &sentences {
        for (i, t) in s.tokens.iter().enumerate() {
            if t.head == 0 || t.head > s.tokens.len() || t.upos == "PUNCT" {
                continue;
            }
            dep_length += (t.head - 1).abs_diff(i);
            arcs += 1;
        }
    }
    row.push(if arcs == 0 {
        f64::NAN
    } else {
        dep_length as f64 / arcs as f64
    });

    let tokens: Vec<_> = sentences.iter().flat_map(|s| s.tokens.iter()).collect();
    let ntokens = tokens.len() as f64;
    for rel in RELATIONS {
        let count = tokens.iter().filter(|t| t.base_deprel() == *rel).count();
        row.push(count as f64 / ntokens);
    }
    for tag in RARE_UPOS {
        let count = tokens.iter().filter(|t| t.upos == *tag).count();
        row.push(count as f64 / ntokens);
    }
    row
}

/// The `syntax` feature class.
#[derive(Debug, Clone, Default)]
pub struct Syntax;

impl Syntax {
    pub fn new() -> Syntax {
        Syntax
    }
}

/// The `syntax` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "syntax",
    about: "sentence fluency from the dependency parse",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(Syntax::new())),
};

impl ParseFeatures for Syntax {
    const SPEC: &'static ClassSpec = &CLASS;
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = SENTENCE_FEATURES
            .iter()
            .map(|f| format!("syntax.{f}"))
            .collect();
        names.extend(RELATIONS.iter().map(|r| format!("syntax.rel_{r}")));
        names.extend(
            RARE_UPOS
                .iter()
                .map(|u| format!("syntax.upos_{}", u.to_lowercase())),
        );
        names
    }
    fn row(&self, analysis: &Analysis) -> Vec<f64> {
        syntax_features(analysis)
    }
}
