//! The `alignment` class: sentence-level alignment of summaries to the input, on hand-built
//! topics with hand-computed values, plus a SummEval check.

use crate::common;

use aesop::corpus::Document;
use aesop::features::alignment::{alignment_values, Alignment, AlignmentInput, FEATURES};
use aesop::features::surface::{ArticleIndex, FragmentPosition};
use aesop::features::{build_classes, is_reference_free, FeatureClass, FeatureOptions};
use aesop::features::{default_class_names, TopicContext};
use std::collections::BTreeMap;

// Document 0 has four 6-word sentences A B C D (tokens 0–5, 6–11, 12–17, 18–23), so their
// relative positions are 0, 0.25, 0.5, 0.75. Document 1 is one 10-word sentence E. No word is
// shared between sentences.
const DOC0: &str = "Anna bought seven red apples today. Boris sold three old bikes yesterday. \
                    Carla painted nine blue doors quickly. Dmitri wrote four long letters tonight.";
const DOC1: &str = "Elena cooked rice with fresh green beans and hot peppers.";

fn input() -> AlignmentInput {
    AlignmentInput::from_texts(&[DOC0, DOC1])
}

fn value(row: &[f64], name: &str) -> f64 {
    let k = FEATURES
        .iter()
        .position(|f| *f == name)
        .unwrap_or_else(|| panic!("no feature {name}"));
    row[k]
}

/// Asserts each (feature, expected) pair; an expected NaN must be NaN.
fn check(summary: &str, expected: &[(&str, f64)]) {
    let row = alignment_values(&input(), summary);
    assert_eq!(row.len(), FEATURES.len());
    for &(name, want) in expected {
        let got = value(&row, name);
        if want.is_nan() {
            assert!(got.is_nan(), "{summary:?}: {name} = {got}, want NaN");
        } else {
            assert!(
                (got - want).abs() < 1e-12,
                "{summary:?}: {name} = {got}, want {want}"
            );
        }
    }
}

#[test]
fn fragments_with_positions_locate_document_and_offset() {
    // Concatenated article: 1 2 3 | 4 5 1 2 3 9. Summary 4 5 1 7 1 2 3:
    // i=0 "4 5 1" at document 1 offset 0 (then 2 ≠ 7), i=3 "7" nowhere, i=4 "1 2 3" occurs at
    // document 0 offset 0 and document 1 offset 2, equally long: the earliest is kept.
    let index = ArticleIndex::new(&[vec![1, 2, 3], vec![4, 5, 1, 2, 3, 9]]);
    let summary = [4, 5, 1, 7, 1, 2, 3];
    let positions = index.fragments_with_positions(&summary);
    let at = |summary_start, document, input_start, len| FragmentPosition {
        summary_start,
        document,
        input_start,
        len,
    };
    assert_eq!(positions, vec![at(0, 1, 0, 3), at(4, 0, 0, 3)]);
    assert_eq!(index.fragments(&summary), vec![3, 3]);
    assert!(ArticleIndex::new(&[])
        .fragments_with_positions(&summary)
        .is_empty());
}

#[test]
fn inverted_order() {
    // Sources C (0,2) then A (0,0): one same-document pair, inverted; not adjacent.
    check(
        "Carla painted nine blue doors quickly. Anna bought seven red apples today.",
        &[
            ("fragments_per_sentence", 1.0),
            ("splices_per_sentence", 0.0),
            ("multi_source_share", 0.0),
            ("verbatim_share", 1.0),
            ("unaligned_share", 0.0),
            ("order_inversions", 1.0),
            ("adjacent_share", 0.0),
            ("repeated_source_share", 0.0),
            ("mean_source_position", 0.25),
            ("first_source_position", 0.5),
        ],
    );
}

#[test]
fn spliced_sentence() {
    // "anna bought seven" (A, 3 tokens) + "blue doors quickly" (C, 3 tokens): two fragments
    // from two input sentences, one splice; longest 3 of 6 tokens is not verbatim; the source
    // is the first longest fragment's sentence, A.
    check(
        "Anna bought seven blue doors quickly.",
        &[
            ("fragments_per_sentence", 2.0),
            ("splices_per_sentence", 1.0),
            ("multi_source_share", 1.0),
            ("verbatim_share", 0.0),
            ("unaligned_share", 0.0),
            ("order_inversions", f64::NAN),
            ("adjacent_share", f64::NAN),
            ("repeated_source_share", 0.0),
            ("mean_source_position", 0.0),
            ("first_source_position", 0.0),
        ],
    );
}

#[test]
fn repeated_sentence() {
    // B twice: the pair has equal sources (not inverted, adjacent), the second repeats.
    check(
        "Boris sold three old bikes yesterday. Boris sold three old bikes yesterday.",
        &[
            ("fragments_per_sentence", 1.0),
            ("splices_per_sentence", 0.0),
            ("verbatim_share", 1.0),
            ("order_inversions", 0.0),
            ("adjacent_share", 1.0),
            ("repeated_source_share", 0.5),
            ("mean_source_position", 0.25),
            ("first_source_position", 0.25),
        ],
    );
}

#[test]
fn lead_in_order() {
    check(
        "Anna bought seven red apples today. Boris sold three old bikes yesterday.",
        &[
            ("fragments_per_sentence", 1.0),
            ("splices_per_sentence", 0.0),
            ("multi_source_share", 0.0),
            ("verbatim_share", 1.0),
            ("unaligned_share", 0.0),
            ("order_inversions", 0.0),
            ("adjacent_share", 1.0),
            ("repeated_source_share", 0.0),
            ("mean_source_position", 0.125),
            ("first_source_position", 0.0),
        ],
    );
}

#[test]
fn unaligned_and_nearly_verbatim_sentences() {
    // Sentence 1 shares no word with the input. Sentence 2: "dmitri wrote four long letters
    // tonight" (6 of its 7 tokens, D) is verbatim. One aligned sentence: no pair.
    check(
        "Nobody knows anything here. Dmitri wrote four long letters tonight again.",
        &[
            ("fragments_per_sentence", 0.5),
            ("splices_per_sentence", 0.0),
            ("multi_source_share", 0.0),
            ("verbatim_share", 0.5),
            ("unaligned_share", 0.5),
            ("order_inversions", f64::NAN),
            ("adjacent_share", f64::NAN),
            ("repeated_source_share", 0.0),
            ("mean_source_position", 0.75),
            ("first_source_position", 0.75),
        ],
    );
}

#[test]
fn dropped_words_within_one_input_sentence_are_not_a_splice() {
    // "elena cooked rice with" + "beans and hot peppers": both from E, the second after the
    // first, so no splice and one source; longest 4 of 8 tokens.
    check(
        "Elena cooked rice with beans and hot peppers.",
        &[
            ("fragments_per_sentence", 2.0),
            ("splices_per_sentence", 0.0),
            ("multi_source_share", 0.0),
            ("verbatim_share", 0.0),
            ("first_source_position", 0.0),
        ],
    );
    // Reversed halves of E: the second fragment starts before the first: a splice, although
    // both come from one input sentence.
    check(
        "Beans and hot peppers elena cooked rice with.",
        &[
            ("fragments_per_sentence", 2.0),
            ("splices_per_sentence", 1.0),
            ("multi_source_share", 0.0),
        ],
    );
}

#[test]
fn fragment_across_an_input_sentence_boundary_takes_the_majority_sentence() {
    // "red apples today boris sold three old bikes": 3 tokens of A, 5 of B → source B.
    check(
        "Red apples today Boris sold three old bikes.",
        &[
            ("fragments_per_sentence", 1.0),
            ("multi_source_share", 0.0),
            ("verbatim_share", 1.0),
            ("first_source_position", 0.25),
        ],
    );
}

#[test]
fn sources_in_two_documents() {
    // Sources E (1,0), D (0,3), A (0,0). Same-document pairs: only (D, A), inverted.
    // Consecutive pairs (E→D, D→A): neither adjacent. Positions 0, 0.75, 0 → mean 0.25.
    check(
        "Elena cooked rice with fresh green beans and hot peppers. Dmitri wrote four long \
         letters tonight. Anna bought seven red apples today.",
        &[
            ("order_inversions", 1.0),
            ("adjacent_share", 0.0),
            ("repeated_source_share", 0.0),
            ("mean_source_position", 0.25),
            ("first_source_position", 0.0),
        ],
    );
}

#[test]
fn undefined_cases_are_nan() {
    for summary in ["", "   ", "... !!"] {
        let row = alignment_values(&input(), summary);
        assert!(row.iter().all(|v| v.is_nan()), "{summary:?}: {row:?}");
    }
    let no_documents = AlignmentInput::from_texts(&[]);
    let row = alignment_values(&no_documents, "Anna bought seven red apples today.");
    assert!(row.iter().all(|v| v.is_nan()), "{row:?}");
    // An input without words: every sentence unaligned; the counts are defined.
    let wordless = AlignmentInput::from_texts(&["!!! ..."]);
    let row = alignment_values(&wordless, "Anna bought seven red apples today.");
    assert_eq!(&row[..5], &[0.0, 0.0, 0.0, 0.0, 1.0]);
    assert!(row[5..].iter().all(|v| v.is_nan()), "{row:?}");
}

#[test]
fn class_is_registered_and_reference_free() {
    assert!(default_class_names().contains(&"alignment"));
    assert!(is_reference_free("alignment"));
    let classes = build_classes(&["alignment".to_string()], &FeatureOptions::default())
        .expect("alignment builds");
    assert_eq!(classes[0].name(), "alignment");
    assert_eq!(classes[0].feature_names().len(), FEATURES.len());
    assert!(classes[0].feature_names()[0].starts_with("alignment."));
    assert!(!classes[0].needs_references());

    let mut topic = common::topic_with_summaries(&["Anna bought seven red apples today.", ""]);
    topic.documents.push(Document::new("d", DOC0));
    let rows = Alignment::new().extract(&TopicContext::new(&topic));
    assert_eq!(rows.len(), 2);
    let first = rows[0].as_ref().expect("row");
    assert_eq!(value(first, "verbatim_share"), 1.0);
    assert!(rows[1].as_ref().expect("row").iter().all(|v| v.is_nan()));
}

/// The features a SummEval value may be NaN for, given the summary's sentence count and how
/// many of them are aligned (SummEval has one document per topic).
fn nan_allowed(name: &str, aligned: usize) -> bool {
    match name {
        "order_inversions" | "adjacent_share" => aligned < 2,
        "repeated_source_share" | "mean_source_position" | "first_source_position" => aligned == 0,
        _ => false,
    }
}

#[test]
fn summeval_alignment_features() {
    let Some(path) = common::data_or_skip("summeval_alignment_features", "summeval/summeval.jsonl")
    else {
        return;
    };
    let topics = common::load_summeval(&path);
    let class = Alignment::new();
    // Per system: sum and count of the finite order_inversions.
    let mut inversions: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let start = std::time::Instant::now();
    for topic in &topics {
        let rows = class.extract(&TopicContext::new(topic));
        assert_eq!(rows.len(), topic.summaries.len());
        for (summary, row) in topic.summaries.iter().zip(rows) {
            let row = row.expect("reference-free: always a row");
            let sentences = aesop::features::alignment::sentence_tokens(&summary.text).len();
            assert!(sentences > 0, "an empty SummEval summary");
            let unaligned = value(&row, "unaligned_share");
            let aligned = ((1.0 - unaligned) * sentences as f64).round() as usize;
            for (name, v) in FEATURES.iter().zip(&row) {
                assert!(
                    v.is_finite() || (v.is_nan() && nan_allowed(name, aligned)),
                    "{} {}: {name} = {v} ({aligned} aligned)",
                    topic.topic,
                    summary.system
                );
            }
            for name in ["multi_source_share", "verbatim_share", "unaligned_share"] {
                assert!((0.0..=1.0).contains(&value(&row, name)));
            }
            let inv = value(&row, "order_inversions");
            if inv.is_finite() {
                let e = inversions.entry(summary.system.clone()).or_default();
                e.0 += inv;
                e.1 += 1.0;
            }
        }
    }
    let mean = |s: &str| {
        let e = inversions.get(s).copied().unwrap_or_default();
        e.0 / e.1
    };
    eprintln!(
        "alignment: {} topics in {:.2} s; mean order_inversions M0 {:.3}, M11 {:.3}",
        topics.len(),
        start.elapsed().as_secs_f64(),
        mean("M0"),
        mean("M11")
    );
    // M0 is lead-3: its sentences come from the input's start, in order.
    assert!(mean("M0") < mean("M11"), "{inversions:?}");
}
