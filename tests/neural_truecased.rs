//! The `neural_truecased` class: the `neural` features of each summary with its lowercase words
//! cased as the source writes them. Its row for a lowercase summary is the `neural` row of the
//! same summary recased by hand (the same tokens through the same network), and differs from the
//! `neural` row of the lowercase text; a summary that is already cased gets the `neural` row
//! unchanged. Needs `aesop models fetch smollm2` (skips with a notice without it, unless
//! AESOP_REQUIRE_MODELS=1).

use crate::common;
use aesop::corpus::{Document, Summary, Topic};
use aesop::features::{build_classes, FeatureOptions, TopicContext};

fn topic(summaries: &[(&str, &str)]) -> Topic {
    let mut topic = Topic::new("t");
    topic.documents.push(Document::new(
        "d",
        "Paul Merson has restarted his row with Andros Townsend after the Tottenham midfielder \
         was brought on against Burnley . Merson wrote on Twitter that Townsend should not play \
         for England .",
    ));
    for (system, text) in summaries {
        let s: Summary =
            serde_json::from_value(serde_json::json!({"system": system, "text": text})).unwrap();
        topic.summaries.push(s);
    }
    topic
}

/// Each summary's row of `class`, keyed by feature suffix (`src_mean`, …).
fn rows(class: &str, topic: &Topic) -> Vec<Vec<(String, f64)>> {
    let classes = build_classes(&[class.to_string()], &FeatureOptions::default()).unwrap();
    let names = classes[0].feature_names();
    classes[0]
        .extract(&TopicContext::new(topic))
        .into_iter()
        .map(|row| {
            let row = row.expect("a row for every summary");
            names
                .iter()
                .map(|n| n.split_once('.').unwrap().1.to_string())
                .zip(row)
                .collect()
        })
        .collect()
}

fn same(a: &[(String, f64)], b: &[(String, f64)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((na, va), (nb, vb))| na == nb && common::close_or_both_nan(*va, *vb))
}

#[test]
fn lowercase_summaries_are_read_with_the_source_casing() {
    if !common::neural_model_or_skip("lowercase_summaries_are_read_with_the_source_casing") {
        return;
    }
    let lower = "Paul merson criticised andros townsend on twitter after the burnley game .";
    let recased = "Paul Merson criticised Andros Townsend on Twitter after the Burnley game .";
    let cased = "Tottenham drew with Burnley . Merson criticised Townsend .";
    let truecased = rows(
        "neural_truecased",
        &topic(&[("lower", lower), ("cased", cased)]),
    );
    let neural = rows(
        "neural",
        &topic(&[("lower", lower), ("recased", recased), ("cased", cased)]),
    );
    assert!(same(&truecased[0], &neural[1]), "{truecased:?}\n{neural:?}");
    assert!(!same(&truecased[0], &neural[0]));
    assert!(same(&truecased[1], &neural[2]));
    // The LM finds the recased names likelier than the lowercase ones.
    let src_mean = |row: &[(String, f64)]| row.iter().find(|(n, _)| n == "src_mean").unwrap().1;
    assert!(src_mean(&truecased[0]) > src_mean(&neural[0]));
}
