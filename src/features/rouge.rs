//! The `rouge` feature class: ROUGE-1.5.5-compatible ROUGE-1/2/L/SU4. STUB API.
//! Other classes (consensus) call [`PreparedText`] and [`score`] to use peers as pseudo-references.

use super::{FeatureClass, FeatureRow, TopicContext};

/// How scores against several references are combined (ROUGE-1.5.5 `-f`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MultiRefMode {
    /// Model average (ROUGE default `-f A`): pooled hits over pooled counts.
    #[default]
    Average,
    /// Best single reference (`-f B`).
    Best,
}

/// Options of the `rouge` class.
#[derive(Debug, Clone, Default)]
pub struct RougeOptions {
    pub mode: MultiRefMode,
    pub jackknife: bool,
    pub stem: bool,
    pub remove_stopwords: bool,
}

/// Recall, precision and F of one ROUGE measure.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prf {
    pub recall: f64,
    pub precision: f64,
    pub f: f64,
}

/// ROUGE-1, -2, -L and -SU4 of one summary.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RougeScores {
    pub rouge1: Prf,
    pub rouge2: Prf,
    pub rouge_l: Prf,
    pub rouge_su4: Prf,
}

/// A text tokenized and counted once, to be scored many times (as peer or as reference).
#[derive(Debug, Clone, Default)]
pub struct PreparedText {}

impl PreparedText {
    pub fn new(_text: &str, _opts: &RougeOptions) -> PreparedText {
        PreparedText {}
    }
}

/// Score `peer` against `references` (no jackknifing here: the class does that).
pub fn score(
    _peer: &PreparedText,
    _references: &[&PreparedText],
    _opts: &RougeOptions,
) -> RougeScores {
    RougeScores::default()
}

/// The `rouge` feature class.
pub struct Rouge {
    #[allow(dead_code)]
    opts: RougeOptions,
}

impl Rouge {
    pub fn new(opts: RougeOptions) -> Rouge {
        Rouge { opts }
    }
}

impl FeatureClass for Rouge {
    fn name(&self) -> &'static str {
        "rouge"
    }
    fn feature_names(&self) -> Vec<String> {
        Vec::new()
    }
    fn needs_references(&self) -> bool {
        true
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        vec![None; ctx.topic.summaries.len()]
    }
}
