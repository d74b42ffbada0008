//! Degenerate summaries (crates/aesop-learn/src/degenerate.rs) rank at the bottom for every built-in model: on
//! real SummEval topics (the sample shipped in examples/data, and the full set when present),
//! empty, punctuation-only, symbol-only and absurdly long summaries get no score (`null`, with a
//! warning), and an extreme but linguistic summary is bounded by the prediction-time clipping.

use crate::common;

use aesop::corpus::{Summary, Topic};
use aesop::learn::builtin;
use aesop::learn::scoring::{score_topics, NamedModel};
use std::sync::atomic::AtomicBool;

fn degenerate_texts() -> Vec<(&'static str, String)> {
    vec![
        ("empty", String::new()),
        ("ellipsis", "…".to_string()),
        ("punctuation", "!!! ??? ... --- ,,, ;;;".to_string()),
        ("symbols", "$$$ %%% ### @@@ *** 123 456".to_string()),
        ("one-long-word", "a".repeat(199_000)),
        (
            "too-long",
            "The council approved the budget. ".repeat(4_000),
        ),
    ]
}

fn add_degenerate(topic: &Topic) -> Topic {
    let mut topic = topic.clone();
    let template = topic.summaries[0].clone();
    for (name, text) in degenerate_texts() {
        topic.summaries.push(Summary {
            system: format!("degenerate-{name}"),
            text,
            ..template.clone()
        });
    }
    topic
}

/// The built-ins to check: the classic ones, and with `neural` (and the LM installed) the ones
/// with the neural class, which cost a network pass per summary and so run on fewer topics.
fn builtins(neural: bool) -> Vec<NamedModel> {
    let neural = neural && common::neural_model_or_skip("degenerate");
    builtin::BUILTINS
        .iter()
        .filter(|b| neural || !b.neural)
        .map(|b| NamedModel::from_builtin(b).expect("builtin"))
        .collect()
}

fn check_topics(topics: &[Topic], neural: bool) {
    let with: Vec<Topic> = topics.iter().map(add_degenerate).collect();
    let models = builtins(neural);
    let refs: Vec<&NamedModel> = models.iter().collect();
    // One run for all models: the features (and the LM pass) are computed once.
    let scored = score_topics(&refs, &with, false, &AtomicBool::new(false))
        .unwrap_or_else(|e| panic!("{e:#}"));
    for (m, b) in models.iter().enumerate() {
        for topic in &with {
            let rows: Vec<usize> = (0..scored.table.records.len())
                .filter(|&r| scored.table.records[r].topic == topic.topic)
                .collect();
            let mut real: Vec<f64> = rows
                .iter()
                .filter(|&&r| !scored.table.records[r].system.starts_with("degenerate-"))
                .map(|&r| scored.scores[m][r])
                .collect();
            assert!(real.iter().all(|s| s.is_finite()), "{}", b.name);
            real.sort_by(f64::total_cmp);
            let median = real[real.len() / 2];
            for &r in &rows {
                let record = &scored.table.records[r];
                if !record.system.starts_with("degenerate-") {
                    continue;
                }
                let score = scored.scores[m][r];
                // Null (NaN) sorts below every real summary; a finite score must be below the median.
                assert!(
                    score.is_nan() || score < median,
                    "{}: {}/{} scored {score} ≥ median real summary {median}",
                    b.name,
                    topic.topic,
                    record.system
                );
                assert!(
                    scored.degenerate[r].is_some(),
                    "{}: {} not flagged",
                    b.name,
                    record.system
                );
            }
        }
        let warnings = scored.degenerate_warnings();
        assert!(!warnings.is_empty(), "no warning for {}", b.name);
    }
}

#[test]
fn degenerate_summaries_rank_below_the_median_on_the_shipped_sample() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join("data")
        .join("summeval-sample.jsonl");
    let topics = common::load_summeval(&path);
    check_topics(&topics[..3], false);
    check_topics(&topics[..1], true);
}

#[test]
fn degenerate_summaries_rank_below_the_median_on_summeval() {
    let Some(path) = common::data_or_skip(
        "degenerate_summaries_rank_below_the_median_on_summeval",
        "summeval/summeval.jsonl",
    ) else {
        return;
    };
    let topics = common::load_summeval(&path);
    // Five topics not in the shipped sample, spread over the set.
    let picked: Vec<Topic> = [20, 40, 60, 80, 99]
        .iter()
        .map(|&i| topics[i].clone())
        .collect();
    check_topics(&picked, false);
}

/// Clipping: a long but linguistic summary (no detector fires) still gets a score within the
/// range a linear model can reach with features at most 6 scaled units from the training mean,
/// far from the unbounded values of before (readability 140,141 for a 1M-character word).
#[test]
fn a_long_repetitive_summary_gets_a_bounded_score() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join("data")
        .join("summeval-sample.jsonl");
    let topics = common::load_summeval(&path);
    let mut topic = topics[0].clone();
    let mut long = topic.summaries[0].clone();
    long.system = "long".into();
    long.text = "The council approved the budget after a long debate. ".repeat(1_500);
    topic.summaries.push(long);
    let models = builtins(true);
    let refs: Vec<&NamedModel> = models.iter().collect();
    let scored = score_topics(
        &refs,
        std::slice::from_ref(&topic),
        false,
        &AtomicBool::new(false),
    )
    .expect("score");
    for (m, b) in models.iter().enumerate() {
        let n = scored.scores[m].len();
        let real = &scored.scores[m][..n - 1];
        let (lo, hi) = real
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &s| (a.min(s), b.max(s)));
        let spread = (hi - lo).max(1e-9);
        let long_score = scored.scores[m][n - 1];
        assert!(long_score.is_finite(), "{}", b.name);
        assert!(
            long_score < hi + 20.0 * spread && long_score > lo - 20.0 * spread,
            "{}: long summary {long_score} far outside the real range [{lo}, {hi}]",
            b.name
        );
    }
}
