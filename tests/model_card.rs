//! `aesop models FILE.aesop`: the card of a trained model, read from the file
//! (crates/aesop-learn/src/card.rs); and a stacked model is calibrated and clamped like any
//! other model `train` writes.

use crate::cli_verbs::imported_sample;
use crate::common;
use aesop::learn::model_file::FORMAT_VERSION;
use aesop::learn::{Fitted, ModelFile};
use serde_json::Value;
use std::path::Path;

/// `aesop models FILE [extra]`'s standard output, the run checked.
fn models_output(model: &std::path::Path, extra: &[&str]) -> Vec<u8> {
    let out = common::aesop()
        .arg("models")
        .arg(model)
        .args(extra)
        .output()
        .expect("aesop models");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `aesop models FILE --json`: the card's facts.
fn card_json(model: &std::path::Path) -> Value {
    serde_json::from_slice(&models_output(model, &["--json"])).expect("card JSON")
}

/// `aesop models FILE`: the card as Markdown.
fn card_text(model: &std::path::Path) -> String {
    String::from_utf8_lossy(&models_output(model, &[])).into_owned()
}

#[test]
fn a_trained_models_card_says_what_the_file_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let model = dir.path().join("rouge.aesop");
    common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "rouge",
            "--c",
            "0.01",
            "--rouge-remove-stopwords",
        ],
        &model,
    );

    let card = card_json(&model);
    assert_eq!(card["target"], "relevance");
    assert_eq!(card["learner"], "rank-svm");
    assert_eq!(card["hyper"]["c"], 0.01);
    assert_eq!(card["reference_free"], false);
    assert_eq!(card["classes"], serde_json::json!(["rouge"]));
    assert_eq!(card["columns_per_class"]["rouge"], 12);
    // Only the option given differs from the defaults.
    let changed = card["feature_options_changed"].as_object().expect("object");
    assert_eq!(
        changed.keys().collect::<Vec<_>>(),
        vec!["rouge.remove_stopwords"]
    );
    assert_eq!(changed["rouge.remove_stopwords"]["value"], true);
    assert_eq!(changed["rouge.remove_stopwords"]["default"], false);
    // And as the flag that sets it, which the card's text leads with.
    assert_eq!(
        card["feature_option_flags"],
        serde_json::json!(["--rouge-remove-stopwords"])
    );
    let text = card_text(&model);
    assert!(
        text.contains(
            "Feature-class options other than the defaults: `--rouge-remove-stopwords`; stored as"
        ),
        "{text}"
    );
    let sets = card["training_sets"].as_array().expect("sets");
    assert_eq!(sets.len(), 1);
    assert_eq!(
        (
            &sets[0]["column"],
            &sets[0]["topics"],
            &sets[0]["summaries"]
        ),
        (
            &Value::from("relevance"),
            &Value::from(10),
            &Value::from(160)
        )
    );
    assert_eq!(card["feature_ranges"], true);
    let calibration = &card["calibration"];
    assert!(calibration["slope"].as_f64().expect("slope") >= 0.0);
    assert!(calibration["min"].as_f64() <= calibration["max"].as_f64());

    // The weights are the fitted model's, largest magnitude first.
    let file = ModelFile::load(&model).expect("load");
    let Fitted::Linear(linear) = &file.model.fitted else {
        panic!("a ranking SVM is linear");
    };
    let weights = card["weights"].as_array().expect("weights");
    assert_eq!(weights.len(), 12);
    for w in weights {
        let name = w["feature"].as_str().expect("name");
        let k = file
            .feature_names
            .iter()
            .position(|n| n == name)
            .expect("a model column");
        assert_eq!(w["weight"].as_f64(), Some(linear.weights[k]), "{name}");
    }
    let magnitudes: Vec<f64> = weights
        .iter()
        .map(|w| w["weight"].as_f64().expect("weight").abs())
        .collect();
    assert!(
        magnitudes.windows(2).all(|p| p[0] >= p[1]),
        "{magnitudes:?}"
    );

    // The text card says the same.
    let text = card_text(&model);
    for expected in [
        "Predicts `relevance` with rank-svm (c 0.01), 12 features of 1 class",
        "`sample.jsonl`, column `relevance`: 10 topics, 160 summaries, 160 rows",
        "`rouge.remove_stopwords` true (default false)",
        "## Largest weights",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }

    // Neither a built-in nor a file: the error names both; a corrupt file names the file.
    let missing = dir.path().join("missing.aesop");
    let out = common::aesop()
        .arg("models")
        .arg(&missing)
        .output()
        .expect("aesop models");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("no built-in model") && stderr.contains("no model file"),
        "{stderr}"
    );
    let corrupt = dir.path().join("corrupt.aesop");
    let mut bytes = std::fs::read(&model).expect("model bytes");
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&corrupt, bytes).expect("write");
    let out = common::aesop()
        .arg("models")
        .arg(&corrupt)
        .output()
        .expect("aesop models");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("corrupt.aesop") && stderr.contains("checksum"),
        "{stderr}"
    );
}

/// The format version a trained model would take without its training summaries' identities
/// (format 11, which every model `train` writes holds): the version its other contents need.
fn version_without_identities(path: &Path) -> u32 {
    let mut file = ModelFile::load(path).expect("load");
    assert!(file.training_identities.is_some(), "{}", path.display());
    file.training_identities = None;
    file.format_version()
}

/// `--seed` and `--equal-set-weights` are stored (format 8) and shown on the card; a model
/// trained with the defaults keeps an older format that older builds read.
#[test]
fn the_seed_and_set_weighting_are_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let text = std::fs::read_to_string(&set).expect("set");
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    std::fs::write(&a, lines[..3].join("\n") + "\n").expect("a");
    std::fs::write(&b, lines[3..].join("\n") + "\n").expect("b");
    let train = |extra: &[&str], out: &str| {
        let path = dir.path().join(out);
        common::aesop()
            .arg("train")
            .arg("--set")
            .arg(format!("{}:relevance", a.display()))
            .arg("--set")
            .arg(format!("{}:relevance", b.display()))
            .args(["--target", "relevance", "--classes", "content,rouge"])
            .args(extra)
            .arg("-o")
            .arg(&path)
            .assert()
            .success();
        path
    };
    let set_by_rows = train(&["--c", "0.01"], "rows.aesop");
    let equal = train(
        &["--c", "0.01", "--seed", "7", "--equal-set-weights"],
        "equal.aesop",
    );
    let card = card_json(&equal);
    assert_eq!(card["format_version"], FORMAT_VERSION);
    assert_eq!(version_without_identities(&equal), 8);
    assert_eq!(card["seed"], 7);
    assert_eq!(card["equal_set_weights"], true);
    let loaded = ModelFile::load(&equal).expect("load");
    assert_eq!(loaded.settings.seed, 7);
    assert!(loaded.settings.equal_set_weights);
    // 3 topics against 7: weighing the sets equally changes the fit.
    let by_rows = ModelFile::load(&set_by_rows).expect("load");
    let (Fitted::Linear(w_equal), Fitted::Linear(w_rows)) =
        (&loaded.model.fitted, &by_rows.model.fitted)
    else {
        panic!("a ranking SVM is linear");
    };
    assert_ne!(w_equal.weights, w_rows.weights);

    let card = card_json(&set_by_rows);
    assert!(version_without_identities(&set_by_rows) < 8, "{card}");
    assert!(
        card["stack_folds"].is_null(),
        "only a stacked model has an inner split"
    );
    assert_eq!(card["seed"], 1);
    assert_eq!(card["equal_set_weights"], false);
    let text = card_text(&equal);
    assert!(
        text.contains("Seed 7; every set weighed the same (`--equal-set-weights`)"),
        "{text}"
    );
}

/// A model file names the aesop that wrote it as `aesop --version` does: the version and, for a
/// binary built from a git checkout, the commit (with `-dirty` for a modified tree), so a card
/// says which code trained it.
#[test]
fn a_trained_model_names_the_version_and_commit_that_wrote_it() {
    const CONTENT_MODEL: [&str; 6] = [
        "--target",
        "relevance",
        "--classes",
        "content",
        "--c",
        "0.01",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let model = dir.path().join("content.aesop");
    common::train(&set, &CONTENT_MODEL, &model);
    let out = common::aesop()
        .arg("--version")
        .output()
        .expect("aesop --version");
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let written_by = version.strip_prefix("aesop ").expect("aesop VERSION");
    assert_eq!(card_json(&model)["written_by"], written_by);
    assert!(
        card_text(&model).contains(&format!("written by aesop {written_by}.")),
        "{}",
        card_text(&model)
    );
    let report = dir.path().join("report.json");
    common::aesop()
        .arg("cross-validate")
        .arg(&set)
        .args(CONTENT_MODEL)
        .arg("-o")
        .arg(dir.path().join("oof.jsonl"))
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    assert_eq!(common::read_json::<Value>(&report)["written_by"], version);
    // Built from this checkout (the test binary is rebuilt when HEAD moves): its commit.
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string());
    match head {
        Some(head) => assert!(
            written_by.starts_with(&format!("{} (commit {head}", env!("CARGO_PKG_VERSION"))),
            "{written_by} against HEAD {head}"
        ),
        None => assert_eq!(written_by, env!("CARGO_PKG_VERSION")),
    }
}

/// Until 2026-11-28 a stacked model had neither a calibration (its scores were the meta
/// learner's raw output, off the target's scale for a ranking SVM) nor feature ranges.
#[test]
fn a_stacked_model_is_calibrated_and_clamped_like_any_other() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    // A stacked model of two bases, with `extra` flags, written to `name`.
    let train_stacked = |extra: &[&str], name: &str| {
        let model = dir.path().join(name);
        let stacked = [
            "--target",
            "relevance",
            "--learner",
            "rank-svm",
            "--stack",
            "content=relevance:content,rouge:0.001",
            "--stack",
            "form=coherence:surface:0.0001",
        ];
        common::train(&set, &[&stacked[..], extra].concat(), &model);
        model
    };
    let model = train_stacked(&[], "stacked.aesop");
    let file = ModelFile::load(&model).expect("load");
    assert!(file.model.stack_bases().is_some());
    let ranges = file.feature_ranges.as_ref().expect("feature ranges");
    assert_eq!(ranges.len(), file.feature_names.len());
    let calibration = file.transfer.calibration.expect("a calibration");
    assert_eq!(file.transfer.sets.len(), 1);
    assert_eq!(file.transfer.sets[0].column, "relevance");

    let predictions = dir.path().join("pred.jsonl");
    common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(&model)
        .arg("-o")
        .arg(&predictions)
        .assert()
        .success();
    let text = std::fs::read_to_string(&predictions).expect("predictions");
    let mut distinct = std::collections::BTreeSet::new();
    for line in text.lines() {
        let p: Value = serde_json::from_str(line).expect("prediction");
        let (score, raw) = (
            p["score"].as_f64().expect("score"),
            p["raw"].as_f64().expect("raw"),
        );
        assert_eq!(score, calibration.apply(raw), "{line}");
        // The human relevance scores of the sample lie in [1, 5].
        assert!((1.0..=5.0).contains(&score), "{score}");
        distinct.insert(score.to_bits());
    }
    assert_eq!(text.lines().count(), 160);
    assert!(distinct.len() > 100, "{} distinct scores", distinct.len());
    let card = card_json(&model);
    assert_eq!(card["stack_bases"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        card["stack_bases"][0]["classes"],
        serde_json::json!(["content", "rouge"])
    );
    assert_eq!(card["feature_ranges"], true);
    // The text card names each base's classes (audit stop 53: only their feature count).
    let text = card_text(&model);
    assert!(
        text.contains("- `form`: predicts `coherence` with rank-svm (c 1e-4), ")
            && text.contains("features of surface"),
        "{text}"
    );
    // The inner split: the defaults are not stored (the file needs no newer format for it),
    // another split is (format 9; audit stop 53: it was not recorded at all).
    assert_eq!(
        card["stack_folds"],
        serde_json::json!({"topic_folds": 3, "system_folds": 2})
    );
    assert!(version_without_identities(&model) < 9, "{card}");
    assert!(
        text.contains("3 topic folds × 2 system folds")
            && !text.contains("the defaults, unless the file was written before format 9"),
        "{text}"
    );
    let split = train_stacked(
        &["--stack-topic-folds", "4", "--stack-system-folds", "3"],
        "split.aesop",
    );
    let card = card_json(&split);
    assert_eq!(version_without_identities(&split), 9);
    assert_eq!(
        card["stack_folds"],
        serde_json::json!({"topic_folds": 4, "system_folds": 3})
    );
    let loaded = ModelFile::load(&split).expect("load");
    assert_eq!(loaded.settings.stack_folds.topic_folds, 4);
    assert_eq!(loaded.settings.stack_folds.system_folds, 3);
    let text = card_text(&split);
    assert!(
        text.contains(
            "4 topic folds × 3 system folds (`--stack-topic-folds`, `--stack-system-folds`).\n"
        ),
        "{text}"
    );
}

/// A model that gives every summary one score is written, with a warning that says so (a
/// forest whose leaves hold every row); an ordinary model gets none.
#[test]
fn a_model_that_ranks_nothing_is_named_at_training() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let train = |extra: &[&str]| {
        let args = [&["--target", "relevance", "--classes", "rouge"][..], extra].concat();
        common::train(&set, &args, &dir.path().join("m.aesop"))
    };
    let stderr = train(&[
        "--learner",
        "forest",
        "--trees",
        "3",
        "--min-leaf",
        "100000",
    ]);
    assert!(
        stderr.contains("the model gives every summary the same score"),
        "{stderr}"
    );
    assert!(!train(&["--c", "0.01"]).contains("warning"));
}

/// `train`'s message and the card count features in English and print hyper-parameters in the
/// card's words (`c 0.01`, `max_depth none`), not as Rust's debug output (`RankSvm { c: 0.01 }`).
#[test]
fn train_and_the_card_print_counts_and_hyper_parameters_in_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let one = dir.path().join("one.aesop");
    let stderr = common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "rouge",
            "--features",
            "rouge.r1_recall",
            "--c",
            "0.01",
        ],
        &one,
    );
    assert!(stderr.contains("(1 feature, c 0.01); wrote"), "{stderr}");
    assert!(!stderr.contains("RankSvm"), "{stderr}");
    let card = card_text(&one);
    assert!(
        card.contains("with rank-svm (c 0.01), 1 feature of 1 class;"),
        "{card}"
    );

    let forest = dir.path().join("forest.aesop");
    let stderr = common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "rouge",
            "--learner",
            "forest",
            "--trees",
            "3",
        ],
        &forest,
    );
    assert!(
        stderr.contains("features, max_depth none, min_leaf 5, trees 3); wrote"),
        "{stderr}"
    );
    assert!(
        card_text(&forest).contains("with forest (max_depth none, min_leaf 5, trees 3),"),
        "{}",
        card_text(&forest)
    );
}
