//! The built-in models: they load, have real cards, and `score` picks the right variant per topic.

use crate::common;

use aesop::corpus::{Document, Reference, Summary, Topic};
use aesop::learn::builtin::{self, BUILTINS};
use aesop::learn::commands::{score_command, ScoreArgs};
use aesop::learn::scoring::{default_model_names, NamedModel};
use std::sync::atomic::AtomicBool;

#[test]
fn every_builtin_stores_the_training_range_of_each_feature() {
    // Issue 14: score clamps each feature into the range seen in training, so a value no
    // training summary had cannot push a built-in's score past the most extreme one.
    for b in BUILTINS {
        let model = b.load().unwrap_or_else(|e| panic!("{}: {e:#}", b.name));
        let ranges = model
            .feature_ranges
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no feature ranges (retrain it)", b.name));
        assert_eq!(ranges.len(), model.feature_names.len(), "{}", b.name);
        let spread = ranges
            .iter()
            .filter(|r| r.min.is_finite() && r.max.is_finite() && r.min < r.max)
            .count();
        assert!(
            ranges.iter().all(|r| r.min <= r.max),
            "{}: a range with min above max (or NaN)",
            b.name
        );
        // Nearly every column varies over thousands of training summaries.
        assert!(
            spread * 10 >= ranges.len() * 8,
            "{}: only {spread} of {} columns have a finite range",
            b.name,
            ranges.len()
        );
    }
}

#[test]
fn every_builtin_calibration_rises_with_its_raw_score() {
    // A flat calibration gives every summary the same `score` (the anchored `readability` did,
    // before flat pooled fits took the within-topic slope): the scores would rank nothing.
    for b in BUILTINS {
        let model = b.load().unwrap_or_else(|e| panic!("{}: {e:#}", b.name));
        let c = model
            .transfer
            .calibration
            .unwrap_or_else(|| panic!("{}: no calibration", b.name));
        assert!(c.slope > 0.0 && c.min < c.max, "{}: {c:?}", b.name);
    }
}

#[test]
fn every_builtin_loads_and_has_a_card_with_protocol1_scores() {
    assert_eq!(BUILTINS.iter().filter(|b| !b.neural).count(), 6);
    // Issue 15: four more that use the neural LM class (tests/neural_builtins.rs); they have the
    // same kind of card and calibration.
    assert_eq!(BUILTINS.len(), 10);
    for b in BUILTINS.iter().filter(|b| b.neural) {
        let model = b.load().unwrap_or_else(|e| panic!("{}: {e:#}", b.name));
        // What the registry says the model needs is what its columns need (`readability-lm`'s
        // file predates the rule that marks such files reference-free).
        assert_eq!(model.needs_references(), !b.reference_free, "{}", b.name);
        assert!(b.card.contains("Protocol 1") && b.card.contains("Protocol 2"));
        assert!(model.transfer.sets.len() >= 3 && model.transfer.calibration.is_some());
    }
    for target in builtin::DEFAULT_TARGETS {
        for noref in [false, true] {
            let b = builtin::default_for(target, !noref).expect("variant exists");
            // Without references the `-noref` variant; with them the plain one, which may need
            // none either (`readability`: every column is reference-free).
            let expected = if noref {
                format!("{target}-noref")
            } else {
                target.to_string()
            };
            assert_eq!(b.name, expected);
            assert!(b.reference_free || !noref, "{}", b.name);
            let model = b.load().unwrap_or_else(|e| panic!("{}: {e:#}", b.name));
            assert_eq!(model.reference_free, b.reference_free, "{}", b.name);
            assert_eq!(model.needs_references(), !b.reference_free, "{}", b.name);
            assert!(!model.feature_names.is_empty());
            assert!(
                b.card.contains("Protocol 1") && b.card.contains("summary-level Kendall"),
                "{}: card without protocol-1 scores (run scripts/build/train-builtin)",
                b.name
            );
            assert!(
                model.report.is_some(),
                "{}: no evaluation report stored",
                b.name
            );
            // Issue 13: trained on several sets, calibrated, judged by leave-one-set-out; and
            // batch-independent (no consensus class, no within-topic normalization; issue 14).
            assert!(
                b.card.contains("Protocol 2") && model.transfer.sets.len() >= 3,
                "{}: not a multi-set model with a protocol-2 card",
                b.name
            );
            let calibration = model.transfer.calibration.expect("calibrated");
            assert!(calibration.slope >= 0.0 && calibration.min <= calibration.max);
            assert!(
                !model.classes.iter().any(|c| c == "consensus"),
                "{}",
                b.name
            );
            assert!(
                !model.transfer.normalization.batch_dependent(),
                "{}",
                b.name
            );
        }
    }
    assert!(builtin::find("nonexistent")
        .unwrap_err()
        .to_string()
        .contains("pyramid-noref"));
}

fn topic(id: &str, with_reference: bool) -> Topic {
    let mut t = Topic::new(id);
    t.documents.push(Document::new(
        "d1",
        "The city council approved a new budget on Monday. The budget raises spending on schools \
         and roads. Critics said the plan ignores rising debt. The mayor defended the plan.",
    ));
    if with_reference {
        t.references.push(Reference::new(
            "r1",
            "The council approved a budget raising school and road spending; critics cite debt.",
        ));
    }
    t.summaries.push(Summary::new(
        "good",
        "The council approved a budget that raises spending on schools and roads.",
    ));
    t.summaries.push(Summary::new(
        "bad",
        "Monday was a day. The mayor said things.",
    ));
    t
}

#[test]
fn score_without_a_model_picks_the_variant_per_topic_and_keeps_set_order() {
    assert_eq!(
        default_model_names(&topic("a", true)),
        ["pyramid", "responsiveness", "readability"]
    );
    assert_eq!(
        default_model_names(&topic("b", false)),
        ["pyramid-noref", "responsiveness-noref", "readability-noref"]
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    // without references first, so a partition by variant would reorder the output
    let topics = vec![topic("no-refs", false), topic("refs", true)];
    let file = std::fs::File::create(&set).expect("create");
    aesop::corpus::jsonl::write_set(std::io::BufWriter::new(file), &topics).expect("write");
    let out = dir.path().join("pred.jsonl");
    let args = ScoreArgs {
        set: Some(set.clone()),
        model: Vec::new(),
        neural: false,
        documents: Vec::new(),
        summary: Vec::new(),
        reference: Vec::new(),
        output: Some(out.clone()),
        format: None,
        systems: None,
    };
    let written = score_command(&args, &AtomicBool::new(false)).expect("score");
    assert_eq!(written.len(), 2 * 2 * 3);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 12);
    assert_eq!(lines[0]["topic"], "no-refs");
    assert_eq!(lines[0]["model"], "pyramid-noref");
    assert_eq!(lines[0]["target"], "pyramid");
    assert_eq!(lines[6]["topic"], "refs");
    assert_eq!(lines[6]["model"], "pyramid");
    assert!(lines
        .iter()
        .all(|l| l["score"].as_f64().is_some_and(f64::is_finite)));

    // The same scores as naming the models explicitly.
    let named = NamedModel::from_spec("builtin:readability").expect("builtin");
    assert_eq!(named.target, "readability");
    let args = ScoreArgs {
        model: vec!["builtin:readability".into()],
        neural: false,
        output: Some(dir.path().join("one.jsonl")),
        set: Some(dir.path().join("refs-only.jsonl")),
        ..args
    };
    let file = std::fs::File::create(args.set.as_ref().expect("set")).expect("create");
    aesop::corpus::jsonl::write_set(std::io::BufWriter::new(file), &topics[1..]).expect("write");
    let explicit = score_command(&args, &AtomicBool::new(false)).expect("score explicit");
    let defaults: Vec<f64> = lines[6..]
        .iter()
        .filter(|l| l["model"] == "readability")
        .map(|l| l["score"].as_f64().expect("score"))
        .collect();
    let explicit: Vec<f64> = explicit.iter().map(|(_, s)| *s).collect();
    assert_eq!(defaults, explicit);
}

#[test]
fn a_reference_based_builtin_on_a_topic_without_references_names_the_noref_variant() {
    let model = NamedModel::from_spec("builtin:pyramid").expect("builtin");
    let e = model
        .check_references(&[topic("t", false)])
        .expect_err("needs references")
        .to_string();
    assert!(e.contains("pyramid-noref") && e.contains("'t'"), "{e}");
}

#[test]
fn models_verb_lists_the_builtins_and_prints_a_card() {
    let out = common::aesop().arg("models").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for b in BUILTINS {
        assert!(text.contains(b.name), "{text}");
    }
    let out = common::aesop()
        .args(["models", "readability-noref"])
        .output()
        .expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("# Built-in model `readability-noref`"));
    let out = common::aesop()
        .args(["models", "nope"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no built-in model 'nope'"));
}
