//! The learning verbs' outputs, reports and flags (docs/ROBUSTNESS.md, "Learning verbs audit"):
//! several outputs of one run never land on one file and are written all or none, the folds
//! reported are those used, `train --report` stores only a report of the model it trains, the
//! card prints numbers exactly, undefined statistics print as `—`, and flags that cannot apply
//! are usage errors.

use crate::cli_verbs::imported_sample;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

/// The first `topics` topics of the SummEval sample, each with its first `systems` summaries;
/// with `constant`, every relevance score is that value.
fn sample_subset(
    dir: &Path,
    name: &str,
    topics: usize,
    systems: usize,
    constant: Option<f64>,
) -> PathBuf {
    let full = imported_sample(dir, &format!("full-{name}"));
    let text = std::fs::read_to_string(&full).expect("sample");
    let mut out = String::new();
    for line in text.lines().take(topics) {
        let mut topic: serde_json::Value = serde_json::from_str(line).expect("json");
        // Each file its own topic ids: sets sharing summaries are refused by cross-validate.
        let id = format!("{name}-{}", topic["topic"].as_str().expect("topic id"));
        topic["topic"] = id.into();
        let summaries = topic["summaries"].as_array_mut().expect("summaries");
        summaries.truncate(systems);
        if let Some(value) = constant {
            for summary in summaries {
                summary["scores"]["relevance"] = value.into();
            }
        }
        out.push_str(&topic.to_string());
        out.push('\n');
    }
    let path = dir.join(name);
    std::fs::write(&path, out).expect("write");
    path
}

/// `aesop VERB SET --target relevance --classes surface --c 0.1`: a small model, quick to fit.
fn surface_model(verb: &str, set: &Path) -> assert_cmd::Command {
    let mut command = common::aesop();
    command.arg(verb).arg(set).args([
        "--target",
        "relevance",
        "--classes",
        "surface",
        "--c",
        "0.1",
    ]);
    command
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Two outputs of one run on one file lost the earlier one with exit 0 (`-o o --report o` kept
/// the predictions only; `-o ab.md --csv ab.md --chart ab.md` the SVG); a destination that
/// cannot be written (`--report nodir/r.json`) failed after `-o` was written. Now both are
/// refused before anything is written, naming the flags.
#[test]
fn outputs_on_one_file_are_refused_and_a_run_writes_all_its_outputs_or_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = sample_subset(dir.path(), "set.jsonl", 4, 6, None);
    let cv = |output: &Path, report: &Path| {
        surface_model("cross-validate", &set)
            .arg("-o")
            .arg(output)
            .arg("--report")
            .arg(report)
            .output()
            .expect("cross-validate")
    };
    let same = dir.path().join("o.jsonl");
    let out = cv(&same, &dir.path().join(".").join("o.jsonl"));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("-o and --report name the same file"),
        "{}",
        stderr(&out)
    );
    assert!(!same.exists());

    let predictions = dir.path().join("o2.jsonl");
    let out = cv(&predictions, &dir.path().join("nodir").join("r.json"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no such directory"),
        "{}",
        stderr(&out)
    );
    assert!(
        !predictions.exists(),
        "-o was written though --report failed"
    );

    let table = dir.path().join("ab.md");
    let out = common::aesop()
        .arg("ablate")
        .arg(&set)
        .args(["--target", "relevance", "--classes", "content,surface"])
        .args(["--c", "0.1", "--bootstrap", "0", "-o"])
        .arg(&table)
        .arg("--csv")
        .arg(&table)
        .arg("--chart")
        .arg(&table)
        .output()
        .expect("ablate");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("-o and --csv name the same file"),
        "{}",
        stderr(&out)
    );
    assert!(!table.exists());
}

/// `ablate --topic-folds 50` on 3 topics said "Protocol 1: 50×4 folds"; it notes the folds
/// asked for and used, as `cross-validate` does, and the header gives those used.
#[test]
fn ablate_reports_the_folds_it_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = sample_subset(dir.path(), "set3.jsonl", 3, 8, None);
    let table = dir.path().join("ab.md");
    let out = common::aesop()
        .arg("ablate")
        .arg(&set)
        .args(["--target", "relevance", "--classes", "content,surface"])
        .args([
            "--c",
            "0.1",
            "--bootstrap",
            "0",
            "--topic-folds",
            "50",
            "-o",
        ])
        .arg(&table)
        .output()
        .expect("ablate");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("note: 50×4 folds asked for, 3×4 used"),
        "{}",
        stderr(&out)
    );
    let markdown = std::fs::read_to_string(&table).expect("table");
    assert!(markdown.contains("Protocol 1: 3×4 folds"), "{markdown}");
}

/// `train --report` stored any JSON: `{"calibrated_mae": -3}` showed a negative held-out error
/// on the card, an array or a report of another target or feature set was stored silently.
#[test]
fn train_stores_only_a_report_of_the_model_it_trains() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = sample_subset(dir.path(), "set.jsonl", 4, 6, None);
    let report = dir.path().join("r.json");
    surface_model("cross-validate", &set)
        .arg("-o")
        .arg(dir.path().join("oof.jsonl"))
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let train = |report: &Path, target: &str, classes: &str| {
        let report = report.to_str().expect("utf-8 path");
        let args = ["--target", target, "--classes", classes, "--c", "0.1"];
        let args = [&args[..], &["--report", report]].concat();
        common::run_train(&set, &args, &dir.path().join("m.aesop"))
    };
    let out = train(&report, "relevance", "surface");
    assert!(out.status.success(), "{}", stderr(&out));
    let card = common::aesop()
        .arg("models")
        .arg(dir.path().join("m.aesop"))
        .output()
        .expect("models");
    assert!(
        stdout(&card).contains("Mean absolute error on held-out data: "),
        "{}",
        stdout(&card)
    );

    // The same report saved by an editor that writes a byte-order mark is the same report.
    let bom = dir.path().join("bom.json");
    let text = std::fs::read_to_string(&report).expect("report");
    std::fs::write(&bom, format!("\u{feff}{text}")).expect("write");
    let out = train(&bom, "relevance", "surface");
    assert!(out.status.success(), "{}", stderr(&out));

    let refused = |json: &str, target: &str, classes: &str, expected: &str| {
        let path = dir.path().join("bad.json");
        std::fs::write(&path, json).expect("write");
        let out = train(&path, target, classes);
        assert_eq!(out.status.code(), Some(1), "{json}: {}", stderr(&out));
        assert!(stderr(&out).contains(expected), "{json}: {}", stderr(&out));
    };
    refused(
        r#"{"calibrated_mae": -3, "target": "relevance"}"#,
        "relevance",
        "surface",
        "calibrated_mae: -3 is not a mean absolute error",
    );
    refused("[1,2]", "relevance", "surface", "not a report");
    let text = std::fs::read_to_string(&report).expect("report");
    refused(&text, "coherence", "surface", "target: the report measured");
    refused(
        &text,
        "relevance",
        "content",
        "feature_names: the report measured",
    );
    // A report of the same features computed with other options (here a changed TESLA α).
    let mut other_options: serde_json::Value = serde_json::from_str(&text).expect("report JSON");
    other_options["feature_options_changed"] =
        serde_json::json!({"tesla.alpha": {"value": 0.5, "default": 0.8}});
    refused(
        &other_options.to_string(),
        "relevance",
        "surface",
        "feature_options_changed: the report measured features computed with tesla.alpha = 0.5, \
         this model's are computed with the default feature options",
    );
    // A report of other data under the same file name (audit stop 53: it was stored, its
    // held-out error shown beside this set's hash).
    let other = dir.path().join("other");
    std::fs::create_dir(&other).expect("dir");
    let other_set = sample_subset(&other, "set.jsonl", 5, 6, None);
    let other_report = other.join("r.json");
    surface_model("cross-validate", &other_set)
        .arg("-o")
        .arg(other.join("oof.jsonl"))
        .arg("--report")
        .arg(&other_report)
        .assert()
        .success();
    let text = std::fs::read_to_string(&other_report).expect("report");
    refused(
        &text,
        "relevance",
        "surface",
        "set_hashes: the report measured set.jsonl with content hash",
    );
}

/// The card printed numbers through f64: `--seed 9007199254740993` showed ...992, and
/// 2^64 − 1 showed 18446744073709551616.
#[test]
fn the_card_prints_a_large_seed_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = sample_subset(dir.path(), "set.jsonl", 4, 6, None);
    let model = dir.path().join("m.aesop");
    surface_model("train", &set)
        .args(["--seed", "18446744073709551615", "-o"])
        .arg(&model)
        .assert()
        .success();
    let card = common::aesop()
        .arg("models")
        .arg(&model)
        .output()
        .expect("models");
    assert!(
        stdout(&card).contains("Seed 18446744073709551615"),
        "{}",
        stdout(&card)
    );
}

/// `--anchor content.js` on a surface-only model suggested content.js itself; the example is
/// now a feature of the chosen classes.
#[test]
fn an_unknown_anchor_is_answered_with_features_of_the_chosen_classes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = sample_subset(dir.path(), "set.jsonl", 4, 6, None);
    let out = common::run_train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "surface",
            "--anchor",
            "content.js",
        ],
        &dir.path().join("an.aesop"),
    );
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let message = stderr(&out);
    assert!(message.contains("e.g. surface."), "{message}");
    assert!(!message.contains("e.g. content.js"), "{message}");
}

/// Undefined statistics printed as `NaN` (one system: summary τ; one system fold: system
/// Pearson r; a held-out set with a constant target: Δ summary τ); every one is `—` now.
#[test]
fn undefined_statistics_print_as_a_dash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let one_system = sample_subset(dir.path(), "one.jsonl", 6, 1, None);
    let out = common::aesop()
        .arg("cross-validate")
        .arg(&one_system)
        .args([
            "--target",
            "relevance",
            "--classes",
            "surface",
            "--learner",
            "ols",
        ])
        .arg("-o")
        .arg(dir.path().join("x.jsonl"))
        .output()
        .expect("cross-validate");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("NaN"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("summary-level Kendall τ-b —"),
        "{}",
        stdout(&out)
    );
    // "1 systems" before.
    assert!(
        stdout(&out).contains("6 topics, 1 system, "),
        "{}",
        stdout(&out)
    );

    let varied = sample_subset(dir.path(), "varied.jsonl", 4, 6, None);
    let more = sample_subset(dir.path(), "more.jsonl", 5, 6, None);
    let constant = sample_subset(dir.path(), "constant.jsonl", 4, 6, Some(3.0));
    let mut command = common::aesop();
    command.arg("cross-validate");
    for set in [&varied, &constant, &more] {
        command
            .arg("--set")
            .arg(format!("{}:relevance", set.display()));
    }
    let out = command
        .args(["--classes", "surface", "--c", "0.1", "--leave-one-set-out"])
        .args(["--bootstrap", "0", "-o"])
        .arg(dir.path().join("l.jsonl"))
        .output()
        .expect("cross-validate");
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(!table.contains("NaN"), "{table}");
    let row = table
        .lines()
        .find(|l| l.starts_with("| constant.jsonl:relevance |"))
        .unwrap_or_else(|| panic!("no row of the constant set: {table}"));
    // The best feature's summary τ and its accuracy at matched length, then Δ.
    assert!(row.contains("| none | — [—, —] | — [—, —] | — |"), "{row}");
    // Length alone, then the feature chosen on the other sets: none covers a set the
    // annotators rank nowhere.
    assert!(
        row.ends_with("| — / — | none | — [—, —] | — | — |"),
        "{row}"
    );
}

/// Flags that cannot apply: `ablate --help` listed the stacked-model flags it refuses;
/// `--equal-set-weights` with one set or `--stack` changed nothing; `--c 0`, `NaN` or `inf`
/// failed with exit 1 after reading the sets while `--c abc` was a usage error. All are usage
/// errors now (exit 2), and `--recipe` takes the `builtin:NAME` spelling of `score --model`.
#[test]
fn flags_that_cannot_apply_are_usage_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = sample_subset(dir.path(), "set.jsonl", 4, 6, None);
    let help = common::aesop()
        .args(["ablate", "--help"])
        .output()
        .expect("help");
    assert!(stdout(&help).contains("--classes"), "{}", stdout(&help));
    assert!(!stdout(&help).contains("--stack"), "{}", stdout(&help));

    let train = |extra: &[&str]| {
        let args = [&["--target", "relevance"][..], extra].concat();
        common::run_train(&set, &args, &dir.path().join("m.aesop"))
    };
    for c in ["0", "NaN", "inf", "abc"] {
        let out = train(&["--classes", "surface", "--c", c]);
        assert_eq!(out.status.code(), Some(2), "--c {c}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("expected a positive number"),
            "{}",
            stderr(&out)
        );
    }
    let out = train(&["--stack", "a=relevance:surface:0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A forest of 10^12 trees grew until killed (audit stop 93); 10,000 is the most taken.
    let out = train(&[
        "--classes",
        "surface",
        "--learner",
        "forest",
        "--trees",
        "1000000000000",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--trees: at most 10000, got 1000000000000"),
        "{}",
        stderr(&out)
    );
    for extra in [
        &["--classes", "surface", "--equal-set-weights"][..],
        &["--stack", "a=relevance:surface", "--equal-set-weights"][..],
    ] {
        let out = train(extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--equal-set-weights weighs several sets"),
            "{}",
            stderr(&out)
        );
    }
    let out = train(&["--stack", "a=relevance:surface", "--normalize", "topic-z"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("stacked models take no --normalize"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("one judgment set"),
        "{}",
        stderr(&out)
    );

    let out = common::aesop()
        .arg("ablate")
        .arg(&set)
        .args([
            "--target",
            "relevance",
            "--stack",
            "a=relevance:surface",
            "-o",
        ])
        .arg(dir.path().join("ab.md"))
        .output()
        .expect("ablate");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let out = common::aesop()
        .arg("cross-validate")
        .arg(&set)
        .args(["--target", "relevance", "--recipe", "builtin:pyramid-noref"])
        .args(["--topic-folds", "2", "--system-folds", "2", "-o"])
        .arg(dir.path().join("x.jsonl"))
        .output()
        .expect("cross-validate");
    assert!(out.status.success(), "{}", stderr(&out));
}

/// An output named for a format aesop does not write (`-o p.xlsx`, `--report r.pkl`, `-o
/// f.csv.xz`) is refused before any input is read, as a missing directory is; `train` opened its
/// destination only once trained, so a typo in `-o` cost the whole training (each set named here
/// does not exist: the error about the output shows it was checked first).
#[test]
fn outputs_named_for_formats_aesop_does_not_write_are_refused_before_the_work() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Each run fails with exit 1 saying `expected`, and leaves only the files `left`.
    let refused = |command: &str, expected: &str, left: &[&str]| {
        let args: Vec<&str> = command.split_whitespace().collect();
        let out = common::aesop()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(expected),
            "{command}: {}",
            stderr(&out)
        );
        assert_eq!(common::file_names(dir.path()), left, "{command}");
    };
    let learn = "--set absent.jsonl:readability --classes surface";
    for (command, expected) in [
        (
            format!("train {learn} -o m.pkl"),
            "m.pkl: a name ending in .pkl says a binary data file, a format aesop does not write",
        ),
        (
            format!("train {learn} -o m.jsonl"),
            "m.jsonl: the name says JSON Lines (a judgment set, predictions or features), but a \
             model file is binary: name it .aesop",
        ),
        (
            format!("train {learn} -o m.csv.gz"),
            "m.csv.gz: the name says a table, but a model file is binary",
        ),
        (
            format!("train {learn} -o nodir/m.aesop"),
            "writing the model: nodir/m.aesop: no such directory nodir",
        ),
        (
            format!("cross-validate {learn} -o o.parquet"),
            "o.parquet: a name ending in .parquet says a columnar data file",
        ),
        (
            format!("cross-validate {learn} -o o.jsonl --report r.xlsx"),
            "r.xlsx: a name ending in .xlsx says a spreadsheet workbook",
        ),
        (
            format!("ablate {learn},lm -o t.md --csv t.csv.xz"),
            "t.csv.xz: a name ending in .xz asks for a compression aesop does not write; aesop \
             compresses with gzip: end the name in .gz",
        ),
        (
            "evaluate absent.jsonl --human absent.jsonl --target x --plot s.pdf".into(),
            "s.pdf: a name ending in .pdf says a document",
        ),
    ] {
        refused(&command, expected, &[]);
    }
    // With the set there, `score` and `features` refuse such a name before scoring.
    sample_subset(dir.path(), "set.jsonl", 2, 4, None);
    let left = ["full-set.jsonl", "set.jsonl"];
    refused(
        "score set.jsonl -o p.xlsx",
        "p.xlsx: a name ending in .xlsx",
        &left,
    );
    refused(
        "features set.jsonl -o f.feather",
        "f.feather: a name ending in .feather",
        &left,
    );
}

/// A trained model records the identity of every summary it learned from, one list per set
/// (format 11): those with a score in the set's column, whatever their system is called.
#[test]
fn train_records_the_summaries_it_learned_from() {
    use aesop::learn::multiset::training_identities;
    let dir = tempfile::tempdir().expect("tempdir");
    let a = sample_subset(dir.path(), "a.jsonl", 3, 16, None);
    // The second set: four summaries per topic, one without the column (not learned from).
    let b = sample_subset(dir.path(), "b.jsonl", 2, 4, None);
    let text = std::fs::read_to_string(&b).expect("b");
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut topic: serde_json::Value = serde_json::from_str(line).expect("topic");
        let scores = &mut topic["summaries"][0]["scores"];
        scores.as_object_mut().expect("scores").remove("relevance");
        lines.push(topic.to_string());
    }
    std::fs::write(&b, lines.join("\n") + "\n").expect("write");
    let model = dir.path().join("m.aesop");
    common::aesop()
        .arg("train")
        .arg("--set")
        .arg(format!("{}:relevance", a.display()))
        .arg("--set")
        .arg(format!("{}:relevance", b.display()))
        .args([
            "--target",
            "relevance",
            "--classes",
            "surface",
            "--c",
            "0.1",
            "-o",
        ])
        .arg(&model)
        .assert()
        .success();
    let file = aesop::learn::ModelFile::load(&model).expect("load");
    let read = |p: &Path| aesop::corpus::jsonl::read_set(p).expect("set");
    let expected = vec![
        training_identities(&read(&a), "relevance"),
        training_identities(&read(&b), "relevance"),
    ];
    // One identity per distinct topic and text (the sample's systems write some summaries alike).
    let distinct = |p: &Path, with_column: bool| {
        let mut seen = std::collections::HashSet::new();
        for topic in read(p) {
            for s in &topic.summaries {
                if !with_column || s.scores.contains_key("relevance") {
                    seen.insert((topic.topic.clone(), s.text.clone()));
                }
            }
        }
        seen.len()
    };
    assert_eq!(expected[0].len(), distinct(&a, false));
    assert!(expected[1].len() == distinct(&b, true) && distinct(&b, true) < distinct(&b, false));
    assert_eq!(file.training_identities, Some(expected));
    assert_eq!(
        file.format_version(),
        aesop::learn::model_file::FORMAT_VERSION
    );
}
