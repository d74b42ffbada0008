//! The `rouge_score` feature class: ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum as Google's
//! rouge-score package computes them (`rouge_score.rouge_scorer.RougeScorer`, the ROUGE behind
//! Hugging Face's `evaluate.load("rouge")` and most papers since 2020).
//!
//! Why a class of its own: rouge-score set out to replicate ROUGE-1.5.5, but its numbers
//! differ from the `rouge` class's, and a study comparing with published rouge-score figures
//! needs the same numbers, not close ones. The differences, all reproduced here:
//! - tokens: Unicode lowercasing, everything outside ASCII `[a-z0-9]` a separator, and with
//!   stemming NLTK's Porter (no WordNet exceptions) on tokens longer than 3 characters
//!   ([`aesop_text::profile::for_each_rouge_score_token`]);
//! - `rouge_l` (rouge-score's `rougeL`) is the LCS of the two whole texts; `rouge_lsum`
//!   (`rougeLsum`) is the summary-level union LCS over the texts' lines, as ROUGE-1.5.5's
//!   ROUGE-L (a summary on one line has `rouge_lsum` equal to `rouge_l`, as in rouge-score:
//!   write one sentence per line to tell them apart);
//! - several references: each measure takes recall, precision and F from the reference with
//!   the best F, the first on ties (`RougeScorer.score_multi`, which `evaluate` calls for a
//!   list of references), where ROUGE-1.5.5 pools the references' counts;
//! - F is `2PR / (P + R)`, evaluated in that order, and nothing is rounded.
//!
//! Stemming follows the `rouge` class's option: on by default (`use_stemmer=True`, the setting
//! of the summarization examples of Hugging Face's transformers), off under `--rouge-no-stem`
//! (`use_stemmer=False`, rouge-score's and `evaluate`'s default). The other `--rouge-…`
//! options are ROUGE-1.5.5's and do not apply.

use super::lcs::{lcs_length, union_lcs_hits, LcsScratch, TokenPositions};
use super::{line_token_ids, measure_columns, values_of, PreparedText, Prf, Vocabulary};
use crate::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};
use aesop_text::profile::for_each_rouge_score_token;

/// Measure names in output order (rouge-score's `rouge1`, `rouge2`, `rougeL`, `rougeLsum`);
/// each gives `_recall`, `_precision` and `_f` columns.
pub const MEASURES: &[&str] = &["rouge1", "rouge2", "rouge_l", "rouge_lsum"];

/// `text` tokenized as rouge-score tokenizes it, line by line (for `rougeLsum`), and counted
/// by the `rouge` class's [`PreparedText`]: the n-grams over the whole text, as rouge-score
/// counts them over the text tokenized in one piece (a line break is a separator either way).
fn prepared(text: &str, stem: bool, vocabulary: &Vocabulary) -> PreparedText {
    let (ids, line_lengths) = line_token_ids(text, vocabulary, |line, emit| {
        for_each_rouge_score_token(line, stem, emit)
    });
    PreparedText::from_tokens(&ids, &ids, &line_lengths, vocabulary)
}

/// rouge-score's F (`scoring.fmeasure`): the harmonic mean, 0 when both are 0.
fn f_measure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// Recall and precision as rouge-score divides (by the counts, 0 for an empty text).
fn prf(hits: u32, reference_total: u32, peer_total: u32) -> Prf {
    let share = |total: u32| {
        if total > 0 {
            f64::from(hits) / f64::from(total)
        } else {
            0.0
        }
    };
    let (recall, precision) = (share(reference_total), share(peer_total));
    Prf {
        recall,
        precision,
        f: f_measure(precision, recall),
    }
}

/// The four measures of `peer` against one reference.
fn against(
    peer: &PreparedText,
    peer_positions: &TokenPositions,
    reference: &PreparedText,
) -> [Prf; 4] {
    let mut scratch = LcsScratch::default();
    let (reference_tokens, peer_tokens) = (reference.unigrams.total, peer.unigrams.total);
    [
        prf(
            reference.unigrams.clipped_hits(&peer.unigrams),
            reference_tokens,
            peer_tokens,
        ),
        prf(
            reference.bigrams.clipped_hits(&peer.bigrams),
            reference.bigrams.total,
            peer.bigrams.total,
        ),
        prf(
            lcs_length(&reference.ids, peer_positions, &mut scratch),
            reference_tokens,
            peer_tokens,
        ),
        prf(
            union_lcs_hits(reference, peer),
            reference_tokens,
            peer_tokens,
        ),
    ]
}

/// `RougeScorer.score_multi`: per measure, the scores against the reference with the highest
/// F, the first of equal ones (`numpy.argmax`).
fn best_by_f(per_reference: &[[Prf; 4]]) -> [Prf; 4] {
    let mut best = [Prf::default(); 4];
    for measure in 0..4 {
        let mut best_f = f64::NEG_INFINITY;
        for scores in per_reference {
            if scores[measure].f > best_f {
                best_f = scores[measure].f;
                best[measure] = scores[measure];
            }
        }
    }
    best
}

/// The `rouge_score` feature class.
pub struct RougeScoreClass {
    /// `use_stemmer`.
    stem: bool,
}

impl RougeScoreClass {
    pub fn new(stem: bool) -> RougeScoreClass {
        RougeScoreClass { stem }
    }
}

/// The `rouge_score` class in the [registry](crate::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "rouge_score",
    about: "ROUGE-1, -2, -L and -Lsum as Google's rouge-score package (Hugging Face evaluate) computes them",
    default: false,
    references: ReferenceUse::All,
    batch_dependent: false,
    options: &["rouge_no_stem"],
    partial_options: &[],
    build: |o| Ok(Box::new(RougeScoreClass::new(o.rouge.stem))),
};

impl FeatureClass for RougeScoreClass {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }

    fn feature_names(&self) -> Vec<String> {
        measure_columns(CLASS.name, MEASURES)
    }

    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let topic = ctx.topic;
        if topic.references.is_empty() {
            return vec![None; topic.summaries.len()];
        }
        let vocabulary = Vocabulary::default();
        let references: Vec<PreparedText> = topic
            .references
            .iter()
            .map(|r| prepared(&r.text, self.stem, &vocabulary))
            .collect();
        topic
            .summaries
            .iter()
            .map(|summary| {
                let peer = prepared(&summary.text, self.stem, &vocabulary);
                let positions = TokenPositions::new(&peer.ids);
                let per_reference: Vec<[Prf; 4]> = references
                    .iter()
                    .map(|reference| against(&peer, &positions, reference))
                    .collect();
                Some(values_of(&best_by_f(&per_reference)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{close, row_of};
    use super::*;
    use aesop_corpus::{Summary, Topic};

    fn rows(references: &[&str], summary: &str, stem: bool) -> Vec<f64> {
        row_of(&RougeScoreClass::new(stem), references, summary)
    }

    #[test]
    fn feature_names_in_order() {
        let names = RougeScoreClass::new(true).feature_names();
        assert_eq!(names.len(), 12);
        assert_eq!(names[0], "rouge_score.rouge1_recall");
        assert_eq!(names[11], "rouge_score.rouge_lsum_f");
    }

    #[test]
    fn rouge_l_reads_the_whole_text_and_rouge_lsum_its_lines() {
        // Reference "a b c d" on one line; summary "c d" then "a b" on two lines. rougeL: the
        // LCS of "a b c d" and "c d a b" is 2; rougeLsum: the one reference line's union LCS
        // with "c d" and with "a b" marks all four.
        let got = rows(&["a b c d"], "c d\na b", false);
        let (l, lsum) = (&got[6..9], &got[9..12]);
        assert!(
            close(l[0], 0.5) && close(l[1], 0.5) && close(l[2], 0.5),
            "{l:?}"
        );
        assert!(close(lsum[0], 1.0) && close(lsum[1], 1.0), "{lsum:?}");
        // On one line the two agree.
        let one_line = rows(&["a b c d"], "c d a b", false);
        assert_eq!(one_line[6..9], one_line[9..12]);
    }

    #[test]
    fn several_references_take_the_one_with_the_best_f_per_measure() {
        // Against "a b" the summary "a b c d e f" has R 1, P 1/3, F .5; against
        // "a b c d e f g h" R .75, P 1, F ≈ .857: the second, for ROUGE-1.
        let got = rows(&["a b", "a b c d e f g h"], "a b c d e f", false);
        assert!(close(got[0], 0.75) && close(got[1], 1.0), "{got:?}");
        assert!(close(got[2], 2.0 * 0.75 / 1.75), "{got:?}");
    }

    #[test]
    fn an_empty_summary_scores_zero_and_no_references_no_row() {
        assert!(rows(&["a b"], " ... ", true).iter().all(|&v| v == 0.0));
        let mut topic = Topic::new("t");
        topic.summaries.push(Summary::new("s", "a b"));
        let ctx = TopicContext::new(&topic);
        assert_eq!(RougeScoreClass::new(true).extract(&ctx), vec![None]);
    }
}
