//! `evaluate_command` end to end: fixtures for the file formats and error messages, SummEval for
//! the measured ROUGE-1 F correlations.

use crate::common;

use aesop::eval::bootstrap::Resample;
use aesop::eval::{evaluate_command, EvaluateArgs};
use common::fixture;
use serde_json::Value;
use std::path::PathBuf;

fn args(predictions: PathBuf, human: PathBuf, target: &str) -> EvaluateArgs {
    EvaluateArgs {
        predictions,
        human,
        target: target.to_string(),
        feature: None,
        features: Vec::new(),
        also: Vec::new(),
        model: None,
        predicted: None,
        set: None,
        compare: None,
        compare_feature: None,
        compare_model: None,
        bootstrap: 200,
        resample: Resample::Both,
        seed: 1,
        alpha: 0.05,
        length_tolerance: 0.1,
        json: None,
        plot: None,
        csv: None,
    }
}

fn statistic(report: &Value, name: &str) -> f64 {
    report["estimates"]
        .as_array()
        .expect("estimates")
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["value"].as_f64())
        .unwrap_or_else(|| panic!("no statistic {name}"))
}

/// Run `evaluate` with `--json` written into `dir`, and read that report.
fn evaluate_json(mut a: EvaluateArgs, dir: &std::path::Path) -> Value {
    let path = dir.join("report.json");
    a.json = Some(path.clone());
    evaluate_command(a).expect("evaluate");
    common::read_json(path)
}

/// The paired comparison's row `name` in a report.
fn compared<'r>(report: &'r Value, name: &str) -> &'r Value {
    report["comparison"]["statistics"]
        .as_array()
        .expect("statistics")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no compared {name}"))
}

fn error_of(a: EvaluateArgs) -> String {
    match evaluate_command(a) {
        Ok(()) => panic!("expected an error"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn predictions_file_on_the_hand_computed_grid() {
    // The fixture is the 3-topic × 4-system grid of eval_statistics.rs: summary τ = 2/9,
    // system τ = 2/3, system pairwise accuracy 5/6. The T9 row is not in the set and the
    // readability row is another target: both are left out.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = args(
        fixture("eval/predictions.jsonl"),
        fixture("eval/set.jsonl"),
        "pyramid",
    );
    a.json = Some(dir.path().join("report.json"));
    a.plot = Some(dir.path().join("plot.svg"));
    evaluate_command(a).expect("evaluate");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("report.json")).expect("json written"),
    )
    .expect("valid JSON");
    assert!((statistic(&report, "summary.kendall") - 2.0 / 9.0).abs() < 1e-12);
    assert!((statistic(&report, "system.kendall") - 2.0 / 3.0).abs() < 1e-12);
    assert!((statistic(&report, "system.pairwise_accuracy") - 5.0 / 6.0).abs() < 1e-12);
    // No pair is tied by the annotators, so no metric tie can be right: the tie-calibrated
    // accuracy keeps ε 0 and equals the input-level pairwise accuracy, over the same 18 pairs.
    let tied = &report["statistics"]["input_tie_calibrated"];
    assert_eq!(tied["pairs"], 18, "{tied}");
    assert_eq!(tied["human_ties"], 0, "{tied}");
    assert_eq!(tied["epsilon"], 0.0, "{tied}");
    assert_eq!(
        statistic(&report, "input.tie_calibrated_accuracy"),
        statistic(&report, "input.pairwise_accuracy")
    );
    // The one wrong pair of six: humans B 8/3 > C 7/3, metric B 2 < C 3.
    let wrong = report["misordered_system_pairs"].as_array().expect("pairs");
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert_eq!(
        (&wrong[0]["higher"], &wrong[0]["lower"]),
        (&"B".into(), &"C".into())
    );
    assert!((wrong[0]["human_gap"].as_f64().expect("gap") - 1.0 / 3.0).abs() < 1e-12);
    assert!((wrong[0]["metric_gap"].as_f64().expect("gap") + 1.0).abs() < 1e-12);
    assert_eq!(report["counts"]["matched"], 12);
    assert_eq!(report["counts"]["metric_only"], 1);
    let svg = std::fs::read_to_string(dir.path().join("plot.svg")).expect("svg written");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<circle").count(), 4, "one dot per system");
}

#[test]
fn feature_columns_and_comparison() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = args(
        fixture("eval/features.csv"),
        fixture("eval/set.jsonl"),
        "pyramid",
    );
    a.feature = Some("rouge.r1_f".into());
    a.compare = Some(fixture("eval/features.csv"));
    a.compare_feature = Some("rouge.r2_f".into());
    let report = evaluate_json(a, dir.path());
    assert!((statistic(&report, "summary.kendall") - 2.0 / 9.0).abs() < 1e-12);
    let comparison = &report["comparison"];
    // rouge.r2_f is the reverse ordering with T2/D missing: 11 shared rows.
    assert_eq!(comparison["shared_rows"], 11);
    let tau = compared(&report, "system.kendall");
    assert!(tau["difference"].as_f64().expect("number") > 0.0);
}

/// A features file under a name that says nothing of its format (`aesop features … > f`, or
/// `-o f.out`, both CSV) is read by its content: CSV, or JSON Lines when its first line is an
/// object. It was read as JSON Lines, so aesop could not read back what it wrote ("f:1:
/// malformed JSON").
#[test]
fn a_features_file_of_any_name_is_read_by_its_content() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tau_of = |features: PathBuf| {
        let mut a = args(features, fixture("eval/set.jsonl"), "pyramid");
        a.feature = Some("rouge.r1_f".into());
        a.bootstrap = 0;
        statistic(&evaluate_json(a, dir.path()), "summary.kendall")
    };
    let expected = tau_of(fixture("eval/features.csv"));
    assert!((expected - 2.0 / 9.0).abs() < 1e-12);
    for (source, name) in [
        ("eval/features.csv", "features"),
        ("eval/features.csv", "features.out"),
        ("eval/features.jsonl", "features.out.gz"),
        ("eval/features.jsonl", "features.txt"),
    ] {
        let copy = dir.path().join(name);
        let bytes = std::fs::read(fixture(source)).expect("fixture");
        let bytes = if name.ends_with(".gz") {
            common::gzip(&bytes)
        } else {
            bytes
        };
        std::fs::write(&copy, bytes).expect("copy");
        assert_eq!(tau_of(copy), expected, "{source} as {name}");
    }
}

/// `cross-validate -o oof.csv` writes CSV (it wrote JSON Lines under the `.csv` name, which
/// `evaluate` then read as a CSV whose "columns" were JSON fragments), with the JSON lines' fields
/// as columns: `evaluate oof.csv --feature raw` gives the JSON lines' statistics. `oof.tsv` is the
/// CSV with tabs (it was JSON Lines too). A `.csv` that holds JSON Lines (written before) is read
/// as JSON Lines.
#[test]
fn cross_validate_writes_csv_under_a_csv_name_and_evaluate_reads_both_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    for name in ["oof.jsonl", "oof.csv", "oof.csv.gz", "oof.tsv"] {
        common::aesop()
            .arg("cross-validate")
            .arg(&set)
            .args([
                "--target",
                "relevance",
                "--classes",
                "surface",
                "--bootstrap",
                "0",
            ])
            .arg("-o")
            .arg(dir.path().join(name))
            .assert()
            .success();
    }
    let csv = std::fs::read_to_string(dir.path().join("oof.csv")).expect("oof.csv");
    assert!(
        csv.starts_with("topic,system,target,score,raw\n"),
        "{}",
        &csv[..80]
    );
    assert_eq!(csv.lines().count(), 161);
    assert_eq!(
        common::gunzip(&dir.path().join("oof.csv.gz")),
        csv.as_bytes()
    );
    let tau_of = |predictions: PathBuf, feature: Option<&str>| {
        let mut a = args(predictions, set.clone(), "relevance");
        a.feature = feature.map(str::to_string);
        a.bootstrap = 0;
        statistic(&evaluate_json(a, dir.path()), "summary.kendall")
    };
    let expected = tau_of(dir.path().join("oof.jsonl"), None);
    assert_eq!(tau_of(dir.path().join("oof.csv"), Some("raw")), expected);
    assert_eq!(tau_of(dir.path().join("oof.csv.gz"), Some("raw")), expected);
    let tsv = std::fs::read_to_string(dir.path().join("oof.tsv")).expect("oof.tsv");
    assert_eq!(tsv.replace('\t', ","), csv);
    assert_eq!(tau_of(dir.path().join("oof.tsv"), Some("raw")), expected);
    let old = dir.path().join("old.csv");
    std::fs::copy(dir.path().join("oof.jsonl"), &old).expect("copy");
    assert_eq!(tau_of(old, None), expected);
}

/// `features -o f.tsv` writes tabs between the fields (it wrote commas), and `evaluate` reads a
/// `.tsv` back split at tabs: the same τ as from the CSV.
#[test]
fn features_written_as_tsv_read_back_as_the_csv_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    for name in ["f.csv", "f.tsv", "f.tsv.gz"] {
        common::aesop()
            .arg("features")
            .arg(&set)
            .args(["--classes", "surface", "-o"])
            .arg(dir.path().join(name))
            .assert()
            .success();
    }
    let csv = std::fs::read_to_string(dir.path().join("f.csv")).expect("csv");
    let tsv = std::fs::read_to_string(dir.path().join("f.tsv")).expect("tsv");
    assert!(tsv.starts_with("topic\tsystem\tsurface."), "{}", &tsv[..60]);
    assert_eq!(tsv.replace('\t', ","), csv);
    let tau_of = |features: &str| {
        let mut a = args(dir.path().join(features), set.clone(), "relevance");
        a.feature = Some("surface.density".into());
        a.bootstrap = 0;
        statistic(&evaluate_json(a, dir.path()), "summary.kendall")
    };
    let expected = tau_of("f.csv");
    assert!(expected.is_finite() && expected != 0.0);
    assert_eq!(tau_of("f.tsv"), expected);
    assert_eq!(tau_of("f.tsv.gz"), expected);
}

/// `score -o p.tsv` writes the CSV's rows with tabs (it wrote JSON Lines under the `.tsv` name
/// unless `--format csv` was given), `--format tsv` does so under any name, and `evaluate`
/// reads the `.tsv` back with the CSV's τ.
#[test]
fn score_writes_tsv_under_a_tsv_name_and_evaluate_reads_it_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    for name in ["p.csv", "p.tsv"] {
        common::aesop()
            .arg("score")
            .arg(&set)
            .arg("-o")
            .arg(dir.path().join(name))
            .assert()
            .success();
    }
    // The format asked for under another name: a table under `.txt` or `.jsonl`.
    for (format, name) in [
        ("tsv", "p.txt"),
        ("csv", "p-csv.jsonl"),
        ("tsv", "p-tsv.jsonl"),
    ] {
        common::aesop()
            .arg("score")
            .arg(&set)
            .args(["--format", format, "-o"])
            .arg(dir.path().join(name))
            .assert()
            .success();
    }
    let csv = std::fs::read_to_string(dir.path().join("p.csv")).expect("csv");
    let tsv = std::fs::read_to_string(dir.path().join("p.tsv")).expect("tsv");
    assert!(
        tsv.starts_with("topic\tsystem\tpyramid\t"),
        "{}",
        &tsv[..60]
    );
    assert_eq!(tsv.lines().count(), 161);
    assert_eq!(tsv.replace('\t', ","), csv);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("p.txt")).expect("txt"),
        tsv
    );
    let tau_of = |predictions: &str| {
        let mut a = args(dir.path().join(predictions), set.clone(), "relevance");
        a.feature = Some("responsiveness".into());
        a.bootstrap = 0;
        statistic(&evaluate_json(a, dir.path()), "summary.kendall")
    };
    let expected = tau_of("p.csv");
    assert!(expected.is_finite() && expected != 0.0);
    assert_eq!(tau_of("p.tsv"), expected);
    // Read by their header: the `.jsonl` names failed as `malformed JSON`, and the tabs of the
    // `.txt` were split at commas (one column, no `responsiveness`).
    for name in ["p.txt", "p-csv.jsonl", "p-tsv.jsonl"] {
        assert_eq!(tau_of(name), expected, "{name}");
    }
}

/// Ids written in decomposed Unicode in one file (some macOS file systems store file names so, and
/// `score` takes file names as system ids) meet the composed ones of the other: the same figures
/// as with one form throughout.
#[test]
fn ids_in_another_unicode_form_are_joined() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Each file's ids: a topic and a system prefix, one composed and one decomposed, the other
    // way round in the other file.
    let rewrite = |name: &str, topic: &str, system: &str| {
        let text = std::fs::read_to_string(fixture(&format!("eval/{name}"))).expect("fixture");
        let text = text
            .replace("\"topic\": \"T", &format!("\"topic\": \"{topic}"))
            .replace("\"system\": \"", &format!("\"system\": \"{system}"));
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    };
    let set = rewrite("set.jsonl", "Caf\u{e9}-T", "Syste\u{300}me-");
    let predictions = rewrite("predictions.jsonl", "Cafe\u{301}-T", "Syst\u{e8}me-");
    let mut a = args(predictions.clone(), set.clone(), "pyramid");
    a.compare = Some(predictions);
    let report = evaluate_json(a, dir.path());
    assert_eq!(report["counts"]["matched"], 12, "{}", report["counts"]);
    assert!((statistic(&report, "summary.kendall") - 2.0 / 9.0).abs() < 1e-12);
    assert!((statistic(&report, "system.kendall") - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(report["comparison"]["shared_rows"], 12);
    // One id in both forms in one file is one id given twice.
    let twice = dir.path().join("twice.jsonl");
    let line = |topic: &str| {
        format!("{{\"topic\": \"{topic}\", \"system\": \"A\", \"target\": \"pyramid\", \"score\": 1.0}}\n")
    };
    std::fs::write(&twice, line("Caf\u{e9}-T1") + &line("Cafe\u{301}-T1")).expect("write");
    let error = error_of(args(twice, set, "pyramid"));
    assert!(error.contains("appears twice (lines 1 and 2)"), "{error}");
}

/// `evaluate features.csv --feature F --compare predictions.jsonl`: --feature names A's column
/// only; the predictions file is read as predictions (it failed with "no field F").
#[test]
fn a_feature_compares_with_a_predictions_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = args(
        fixture("eval/features.csv"),
        fixture("eval/set.jsonl"),
        "pyramid",
    );
    a.feature = Some("rouge.r2_f".into());
    a.compare = Some(fixture("eval/predictions.jsonl"));
    let report = evaluate_json(a, dir.path());
    let comparison = &report["comparison"];
    assert!(comparison["metric"]
        .as_str()
        .is_some_and(|m| m.ends_with("predictions.jsonl")));
    // rouge.r2_f lacks T2/D; the predictions have every row of the set.
    assert_eq!(comparison["shared_rows"], 11);
    let tau = compared(&report, "system.kendall");
    // The predictions (system τ 2/3 on all rows) against the reversed feature.
    assert!(
        tau["b"].as_f64().expect("b") > tau["a"].as_f64().expect("a"),
        "{tau}"
    );
}

#[test]
fn features_jsonl_with_missing_values() {
    // T1/A is null: skipped, so 11 rows match; T1 still orders B < C < D as the humans do.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = args(
        fixture("eval/features.jsonl"),
        fixture("eval/set.jsonl"),
        "pyramid",
    );
    a.feature = Some("rouge.r1_f".into());
    let report = evaluate_json(a, dir.path());
    assert_eq!(report["counts"]["matched"], 11);
    assert_eq!(report["counts"]["human_only"], 1);
    assert_eq!(report["counts"]["metric_missing"], 1);
    // Summary τ: T1 (3 systems, all concordant) 1, T2 −1, T3 2/3 → (2/3)/3 = 2/9.
    assert!((statistic(&report, "summary.kendall") - 2.0 / 9.0).abs() < 1e-12);

    let mut a = args(
        fixture("eval/features.jsonl"),
        fixture("eval/set.jsonl"),
        "pyramid",
    );
    a.feature = Some("rouge.r9_f".into());
    let e = error_of(a);
    assert!(e.contains("features.jsonl:1: no field 'rouge.r9_f'"), "{e}");
}

/// The flags the `aesop evaluate` subcommand exposes, parsed as the binary will parse them.
#[test]
fn command_line_flags_parse() {
    use clap::Parser;
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        evaluate: EvaluateArgs,
    }
    let cli = Cli::try_parse_from([
        "evaluate",
        "features.csv",
        "--human",
        "set.jsonl",
        "--target",
        "relevance",
        "--feature",
        "rouge.r1_f",
        "--compare",
        "pred.jsonl",
        "--bootstrap",
        "500",
        "--resample",
        "systems",
        "--seed",
        "9",
        "--json",
        "out.json",
        "--plot",
        "out.svg",
    ])
    .expect("parses");
    let a = cli.evaluate;
    assert_eq!(a.feature.as_deref(), Some("rouge.r1_f"));
    assert_eq!(
        (a.bootstrap, a.seed, a.resample),
        (500, 9, Resample::Systems)
    );
    assert_eq!(a.plot, Some(PathBuf::from("out.svg")));
    let defaults = Cli::try_parse_from([
        "evaluate", "p.jsonl", "--human", "s.jsonl", "--target", "pyramid",
    ])
    .expect("parses");
    assert_eq!(defaults.evaluate.bootstrap, 1000);
    assert_eq!(defaults.evaluate.resample, Resample::Both);
    assert!(Cli::try_parse_from(["evaluate", "p.jsonl", "--target", "pyramid"]).is_err());
    // A negated column (`-COLUMN`, as cross-validate names a best single feature) is a value,
    // not a flag.
    let negated = Cli::try_parse_from([
        "evaluate",
        "f.csv",
        "--human",
        "s.jsonl",
        "--target",
        "pyramid",
        "--feature",
        "-content.js",
        "--compare-feature",
        "-rouge.r1_f",
    ])
    .expect("parses");
    assert_eq!(negated.evaluate.feature.as_deref(), Some("-content.js"));
    assert_eq!(
        negated.evaluate.compare_feature.as_deref(),
        Some("-rouge.r1_f")
    );
}

/// `--feature -COLUMN` reads COLUMN negated, in a CSV and in JSON Lines, unless the file has a
/// column called `-COLUMN`; an unknown column is still an error naming the name given.
#[test]
fn a_dash_before_a_column_reads_it_negated() {
    let dir = tempfile::tempdir().expect("tempdir");
    for file in ["eval/features.csv", "eval/features.jsonl"] {
        let mut a = args(fixture(file), fixture("eval/set.jsonl"), "pyramid");
        a.feature = Some("rouge.r1_f".into());
        let plain = evaluate_json(a.clone(), dir.path());
        a.feature = Some("-rouge.r1_f".into());
        let negated = evaluate_json(a.clone(), dir.path());
        assert!(negated["metric"]
            .as_str()
            .is_some_and(|m| m.ends_with("[-rouge.r1_f]")));
        for name in ["summary.kendall", "system.kendall", "global.pearson"] {
            assert!(
                (statistic(&negated, name) + statistic(&plain, name)).abs() < 1e-12,
                "{file} {name}"
            );
        }
        a.feature = Some("-rouge.r9_f".into());
        let e = error_of(a);
        assert!(e.contains("'-rouge.r9_f'"), "{e}");
    }
    // A column whose own name starts with a dash is read as it is.
    let features = dir.path().join("dash.csv");
    std::fs::write(
        &features,
        "topic,system,-x,x\nT1,A,1,4\nT1,B,2,3\nT1,C,3,2\nT1,D,4,1\n",
    )
    .expect("write");
    let mut a = args(features, fixture("eval/set.jsonl"), "pyramid");
    a.feature = Some("-x".into());
    a.bootstrap = 0;
    let report = evaluate_json(a, dir.path());
    // The literal column `-x` (1 to 4) is read, not `x` negated (−4 to −1).
    let means = report["system_means"].as_array().expect("means");
    assert!(
        means.iter().all(|m| m[1].as_f64().is_some_and(|v| v > 0.0)),
        "{means:?}"
    );
}

#[test]
fn errors_name_the_file_line_and_field() {
    let set = fixture("eval/set.jsonl");
    let e = error_of(args(
        fixture("eval/predictions.jsonl"),
        set.clone(),
        "relevance",
    ));
    assert!(
        e.contains("set.jsonl") && e.contains("no summary has a score 'relevance'"),
        "{e}"
    );
    assert!(e.contains("pyramid"), "lists the scores present: {e}");

    let mut a = args(fixture("eval/features.csv"), set.clone(), "pyramid");
    a.feature = Some("rouge.nope".into());
    let e = error_of(a);
    assert!(
        e.contains("features.csv:1") && e.contains("no column 'rouge.nope'"),
        "{e}"
    );
    assert!(e.contains("rouge.r1_f"), "lists the columns: {e}");

    let e = error_of(args(fixture("eval/features.csv"), set.clone(), "pyramid"));
    assert!(
        e.contains("give --feature COLUMN (e.g. --feature rouge.r1_f; its columns: rouge.r1_f, rouge.r2_f)"),
        "{e}"
    );

    // A --compare column without a --compare file; a report and a plot on one path.
    let mut a = args(fixture("eval/predictions.jsonl"), set.clone(), "pyramid");
    a.compare_feature = Some("rouge.r1_f".into());
    let e = error_of(a);
    assert!(
        e.contains("--compare-feature") && e.contains("--compare FILE"),
        "{e}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = args(fixture("eval/predictions.jsonl"), set.clone(), "pyramid");
    a.json = Some(dir.path().join("out"));
    a.plot = Some(dir.path().join("out"));
    let e = error_of(a);
    assert!(e.contains("--json and --plot name the same file"), "{e}");
    assert!(!dir.path().join("out").exists());
    // A features CSV to compare names its column with --compare-feature.
    let mut a = args(fixture("eval/predictions.jsonl"), set.clone(), "pyramid");
    a.compare = Some(fixture("eval/features.csv"));
    let e = error_of(a);
    assert!(
        e.contains("features.csv: a CSV (features, or `aesop score`'s predictions) is read one column at a time: give --compare-feature COLUMN (e.g. --compare-feature rouge.r1_f; its columns: rouge.r1_f, rouge.r2_f"),
        "{e}"
    );

    let e = error_of(args(
        fixture("eval/bad_score.jsonl"),
        set.clone(),
        "pyramid",
    ));
    assert!(
        e.contains("bad_score.jsonl:3: score: expected a number"),
        "{e}"
    );

    let e = error_of(args(fixture("eval/other_topics.jsonl"), set, "pyramid"));
    assert!(e.contains("share no (topic, system) row"), "{e}");
}

/// aesop's other outputs given where predictions, features or a set belong are named for what
/// they are: the set as the predictions (or as a features file), the system means of `score
/// --systems` as predictions, predictions as the human scores (and as the set to score).
#[test]
fn outputs_given_in_each_others_place_are_named() {
    let set = fixture("eval/set.jsonl");
    let predictions = fixture("eval/predictions.jsonl");
    let e = error_of(args(set.clone(), set.clone(), "pyramid"));
    assert!(
        e.contains(
            "set.jsonl:1: a judgment-set topic (`documents`, `summaries`), not a prediction"
        ) && e.contains("aesop score SET -o pred.jsonl"),
        "{e}"
    );
    let mut a = args(set.clone(), set.clone(), "pyramid");
    a.feature = Some("rouge.r1_f".into());
    let e = error_of(a);
    assert!(e.contains("set.jsonl:1: a judgment-set topic"), "{e}");

    let dir = tempfile::tempdir().expect("tempdir");
    let means = dir.path().join("systems.jsonl");
    common::aesop()
        .arg("score")
        .arg(&set)
        .arg("-o")
        .arg(dir.path().join("p.jsonl"))
        .arg("--systems")
        .arg(&means)
        .assert()
        .success();
    let e = error_of(args(means, set.clone(), "pyramid"));
    assert!(
        e.contains("systems.jsonl:1: a system's mean (`aesop score --systems`"),
        "{e}"
    );

    let e = error_of(args(predictions.clone(), predictions.clone(), "pyramid"));
    assert!(
        e.contains("predictions.jsonl:1: system: a line of scores for one summary or system")
            && e.contains("give the judgment set"),
        "{e}"
    );
    let out = common::aesop()
        .arg("score")
        .arg(&predictions)
        .arg("-o")
        .arg(dir.path().join("q.jsonl"))
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("not a judgment-set topic"), "{stderr}");
    assert!(!dir.path().join("q.jsonl").exists());

    // A model file as the predictions, or as the human scores.
    let model =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/builtin/pyramid.aesop");
    let e = error_of(args(model.clone(), set.clone(), "pyramid"));
    assert!(
        e.contains("pyramid.aesop: not UTF-8 text: it is an aesop model file"),
        "{e}"
    );
    let e = error_of(args(predictions, model, "pyramid"));
    assert!(e.contains("it is an aesop model file"), "{e}");
}

/// Two models' predictions of one target in one file (`aesop score --model A --model B`): the
/// repeat names both lines and `--model`; `--model` and `--compare-model` choose; a predictions
/// file whose values are all missing, and a features CSV giving the column twice, say so.
#[test]
fn predictions_of_two_models_are_told_apart() {
    let set = fixture("eval/set.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let single = std::fs::read_to_string(fixture("eval/predictions.jsonl")).expect("read");
    let mut two = String::new();
    for (model, sign) in [("a", 1.0), ("b", -1.0)] {
        for line in single.lines() {
            let mut v: Value = serde_json::from_str(line).expect("line");
            v["model"] = model.into();
            v["score"] = (v["score"].as_f64().expect("score") * sign).into();
            two += &format!("{v}\n");
        }
    }
    let both = dir.path().join("two.jsonl");
    std::fs::write(&both, &two).expect("write");
    let e = error_of(args(both.clone(), set.clone(), "pyramid"));
    assert!(
        e.contains("two.jsonl:15: topic \"T1\", system \"A\" already has a prediction at line 1: models a and b both predict 'pyramid'; choose one with --model NAME"),
        "{e}"
    );
    let tau = |model: &str| {
        let mut a = args(both.clone(), set.clone(), "pyramid");
        a.model = Some(model.into());
        statistic(&evaluate_json(a, dir.path()), "summary.kendall")
    };
    let single_tau = statistic(
        &evaluate_json(
            args(fixture("eval/predictions.jsonl"), set.clone(), "pyramid"),
            dir.path(),
        ),
        "summary.kendall",
    );
    assert_eq!(tau("a"), single_tau);
    assert_eq!(tau("b"), -single_tau);
    let mut a = args(both.clone(), set.clone(), "pyramid");
    a.model = Some("c".into());
    let e = error_of(a);
    assert!(
        e.contains("no prediction of 'pyramid' by model 'c' (models in the file: a, b)"),
        "{e}"
    );
    // A model that predicts another target (audit stop 53: "its lines name no model").
    let other_target = dir.path().join("other-target.jsonl");
    std::fs::write(&other_target, two.replace("\"pyramid\"", "\"readability\"")).expect("write");
    let mut a = args(other_target, set.clone(), "pyramid");
    a.model = Some("a".into());
    let e = error_of(a);
    assert!(
        e.contains(
            "no prediction of 'pyramid' by model 'a' (no line predicts 'pyramid'; targets in the file: readability)"
        ),
        "{e}"
    );
    // One file, two models compared.
    let mut a = args(both.clone(), set.clone(), "pyramid");
    a.model = Some("a".into());
    a.compare = Some(both.clone());
    a.compare_model = Some("b".into());
    let report = evaluate_json(a, dir.path());
    assert!(report["comparison"]["metric"]
        .as_str()
        .is_some_and(|m| m.ends_with("two.jsonl [model b]")));
    let mut a = args(both.clone(), set.clone(), "pyramid");
    a.compare_model = Some("b".into());
    assert!(error_of(a).contains("--compare-model names a model of the --compare file"));

    // Every value null: said as such, not "share no row".
    let nulls: String = single
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).expect("line");
            v["score"] = Value::Null;
            format!("{v}\n")
        })
        .collect();
    let null_path = dir.path().join("nulls.jsonl");
    std::fs::write(&null_path, nulls).expect("write");
    let e = error_of(args(null_path, set.clone(), "pyramid"));
    assert!(
        e.contains("nulls.jsonl: all 13 values are missing (null, NaN or empty)"),
        "{e}"
    );

    // A features CSV naming the column twice.
    let csv = std::fs::read_to_string(fixture("eval/features.csv")).expect("read");
    let doubled: String = csv
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let first = line.split(',').nth(2).unwrap_or("");
            let extra = if i == 0 { "rouge.r1_f" } else { first };
            format!("{line},{extra}\n")
        })
        .collect();
    let doubled_path = dir.path().join("doubled.csv");
    std::fs::write(&doubled_path, doubled).expect("write");
    let mut a = args(doubled_path, set, "pyramid");
    a.feature = Some("rouge.r1_f".into());
    let e = error_of(a);
    assert!(
        e.contains("doubled.csv:1: column 'rouge.r1_f' appears 2 times (columns 3, 5); keep one"),
        "{e}"
    );
}

/// ROUGE-1 F of the library's `rouge` class against SummEval relevance: our measured values are
/// summary-level τ 0.252 and system-level τ 0.567 (EVALUATION.md's anchor from rouge-score:
/// .253 / .583).
#[test]
fn summeval_rouge1_f_against_relevance() {
    let Some(path) = common::data_or_skip(
        "summeval_rouge1_f_against_relevance",
        "summeval/summeval.jsonl",
    ) else {
        return;
    };
    let topics = common::load_summeval(&path);
    let dir = tempfile::tempdir().expect("tempdir");
    let set_path = dir.path().join("summeval.jsonl");
    let set_file = std::fs::File::create(&set_path).expect("create set");
    aesop::corpus::jsonl::write_set(std::io::BufWriter::new(set_file), &topics).expect("write set");

    let options = aesop::features::FeatureOptions::default();
    let classes =
        aesop::features::build_classes(&["rouge".to_string()], &options).expect("rouge class");
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let table = aesop::features::run::extract_features(&topics, &classes, false, &cancel)
        .expect("features");
    let features_path = dir.path().join("features.csv");
    let features_file = std::fs::File::create(&features_path).expect("create features");
    aesop::features::run::write_table(
        &table,
        aesop::features::run::TableFormat::Csv,
        features_file,
    )
    .expect("write features");

    let mut a = args(features_path.clone(), set_path, "relevance");
    a.feature = Some("rouge.r1_f".into());
    a.compare = Some(features_path);
    a.compare_feature = Some("rouge.r2_f".into());
    a.bootstrap = 1000;
    let report = evaluate_json(a, dir.path());
    assert_eq!(report["counts"]["matched"], 1600);
    assert_eq!(report["systems"], 16);
    let summary_tau = statistic(&report, "summary.kendall");
    let system_tau = statistic(&report, "system.kendall");
    eprintln!(
        "SummEval relevance, rouge.r1_f: summary tau {summary_tau:.4}, system tau {system_tau:.4}"
    );
    assert!(
        (summary_tau - 0.252).abs() < 0.005,
        "summary tau {summary_tau}"
    );
    assert!(
        (system_tau - 0.567).abs() < 0.005,
        "system tau {system_tau}"
    );
    // The intervals EVALUATION_STATS.md ("Measured") quotes: a change to the bootstrap that
    // moves them must update the document too (audit stop 54: they had gone stale).
    let interval = |name: &str| {
        let e = report["estimates"]
            .as_array()
            .expect("estimates")
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone();
        (
            e["interval"]["lower"].as_f64().expect("lower"),
            e["interval"]["upper"].as_f64().expect("upper"),
        )
    };
    for (name, lower, upper) in [
        ("summary.kendall", 0.171, 0.339),
        ("system.kendall", 0.106, 0.823),
        ("system.pairwise_accuracy", 0.553, 0.912),
    ] {
        let (lo, hi) = interval(name);
        assert!(
            (lo - lower).abs() < 0.0005 && (hi - upper).abs() < 0.0005,
            "{name}: [{lo:.4}, {hi:.4}], EVALUATION_STATS.md says [{lower}, {upper}]"
        );
    }
    // The paired comparison with ROUGE-2 F runs on all 1,600 rows and gives probabilities.
    let comparison = &report["comparison"];
    assert_eq!(comparison["shared_rows"], 1600);
    for row in comparison["statistics"].as_array().expect("statistics") {
        let (wins, p) = (
            row["bootstrap_a_wins"].as_f64().expect("share"),
            row["permutation_p"].as_f64().expect("p"),
        );
        assert!((0.0..=1.0).contains(&wins) && p > 0.0 && p <= 1.0, "{row}");
    }
    assert_eq!(report["discriminative_power"]["pairs"], 120);
    // The listed misordered system pairs are exactly the ones system pairwise accuracy counts
    // wrong, each with the humans' higher system first.
    let pairwise = &report["statistics"]["system_pairwise"];
    let wrong = report["misordered_system_pairs"].as_array().expect("pairs");
    assert_eq!(
        wrong.len() as u64,
        pairwise["pairs"].as_u64().expect("pairs") - pairwise["correct"].as_u64().expect("correct")
    );
    assert!(!wrong.is_empty());
    for p in wrong {
        assert!(p["human_gap"].as_f64().expect("gap") > 0.0, "{p}");
        assert!(p["metric_gap"].as_f64().expect("gap") <= 0.0, "{p}");
    }
    // The bootstrap interval contains the point estimate on real data.
    for e in report["estimates"].as_array().expect("estimates") {
        let (v, lo, hi) = (
            e["value"].as_f64().expect("value"),
            e["interval"]["lower"].as_f64().expect("lower"),
            e["interval"]["upper"].as_f64().expect("upper"),
        );
        assert!(lo <= v && v <= hi, "{}: {v} not in [{lo}, {hi}]", e["name"]);
    }
}

#[test]
fn predictions_are_judged_by_raw_when_a_line_has_it() {
    // The grid's predictions moved to `raw`, and `score` reversed (as per-fold calibrations
    // could distort it): evaluate ranks by `raw`, so the hand-computed τ values still hold.
    let dir = tempfile::tempdir().expect("tempdir");
    let moved: Vec<String> = std::fs::read_to_string(fixture("eval/predictions.jsonl"))
        .expect("fixture")
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).expect("json");
            let score = v["score"].clone();
            v["raw"] = score.clone();
            v["score"] = serde_json::json!(-score.as_f64().expect("number"));
            v.to_string()
        })
        .collect();
    let predictions = dir.path().join("oof.jsonl");
    std::fs::write(&predictions, moved.join("\n") + "\n").expect("write");
    let a = args(predictions, fixture("eval/set.jsonl"), "pyramid");
    let report = evaluate_json(a, dir.path());
    assert!((statistic(&report, "summary.kendall") - 2.0 / 9.0).abs() < 1e-12);
    assert!((statistic(&report, "system.kendall") - 2.0 / 3.0).abs() < 1e-12);
}

/// Lines of two models (`aesop score`'s defaults: the reference-based built-in where a topic has
/// references, its `-noref` variant where not) are judged by `score`, their common scale: their
/// `raw` outputs are on two models' scales (audit stop 54: evaluate mixed them).
#[test]
fn predictions_of_several_models_are_judged_by_score() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mixed: Vec<String> = std::fs::read_to_string(fixture("eval/predictions.jsonl"))
        .expect("fixture")
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).expect("json");
            let score = v["score"].as_f64().expect("number");
            // The second model's raw scale runs the other way: ranked by `raw`, its topics
            // would be reversed.
            let (model, raw) = if v["topic"] == "T1" {
                ("m1", score)
            } else {
                ("m2", -10.0 * score)
            };
            v["model"] = serde_json::json!(model);
            v["raw"] = serde_json::json!(raw);
            v.to_string()
        })
        .collect();
    let predictions = dir.path().join("scores.jsonl");
    std::fs::write(&predictions, mixed.join("\n") + "\n").expect("write");
    let a = args(predictions.clone(), fixture("eval/set.jsonl"), "pyramid");
    let report = evaluate_json(a, dir.path());
    // The report names the bytes it measured (stop 54): each input with its content hash.
    let inputs = report["inputs"].as_array().expect("inputs");
    assert_eq!(inputs.len(), 2);
    for (input, (role, path)) in inputs.iter().zip([
        ("predictions", predictions),
        ("human", fixture("eval/set.jsonl")),
    ]) {
        assert_eq!(input["role"], role);
        assert_eq!(
            input["content_hash"],
            aesop::hash::content_hash(&path).expect("hash")
        );
    }
    assert!((statistic(&report, "summary.kendall") - 2.0 / 9.0).abs() < 1e-12);
    assert!((statistic(&report, "system.kendall") - 2.0 / 3.0).abs() < 1e-12);
    assert!(
        report["metric"]
            .as_str()
            .is_some_and(|m| m.ends_with("[`score`, not `raw`: lines of the models m1, m2]")),
        "{}",
        report["metric"]
    );
}

/// With --compare, both discriminative-power tables of the comparison are over the shared rows
/// (A's was over all of its rows, B's over the shared ones): the same metric compared with a
/// copy of itself holding half the topics gets two equal tables.
#[test]
fn compared_discriminative_power_uses_the_shared_rows_for_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let features = dir.path().join("f.csv");
    common::aesop()
        .arg("features")
        .arg(&set)
        .args(["--classes", "rouge", "-o"])
        .arg(&features)
        .assert()
        .success();
    // The header and the first 5 topics' 80 rows.
    let text = std::fs::read_to_string(&features).expect("features");
    let part: Vec<&str> = text.lines().take(81).collect();
    let partial = dir.path().join("part.csv");
    std::fs::write(&partial, part.join("\n") + "\n").expect("write");
    let mut a = args(features, set, "relevance");
    a.feature = Some("rouge.r1_f".into());
    a.compare = Some(partial);
    a.bootstrap = 0;
    a.alpha = 0.2;
    let report = evaluate_json(a, dir.path());
    let comparison = &report["comparison"];
    assert_eq!(comparison["shared_rows"], 80);
    assert_eq!(
        comparison["discriminative_power_a"],
        comparison["discriminative_power"]
    );
    // Said as a warning: A's figures in the comparison are on 80 of its 160 rows.
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w.as_str().is_some_and(|w| {
            w.contains("the comparison uses the 80 rows both metrics score, of the 160 above")
        })),
        "{warnings:?}"
    );
    // Over all ten topics A's own table differs (more topics, more significant pairs).
    assert_ne!(
        report["discriminative_power"],
        comparison["discriminative_power"]
    );
}

/// A metric that gives every summary of a topic one value ranks nothing there: the summary level
/// leaves that topic out of its mean, and the report says so (text, JSON and a warning), so a
/// metric that abstains is not read as one that ranks every topic.
#[test]
fn topics_the_metric_ties_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let features = dir.path().join("features.csv");
    // `abstains` ties T2's four summaries; `ranks` is the fixture's rouge.r1_f (every topic).
    let mut csv = String::from("topic,system,abstains,ranks\n");
    for (topic, abstains) in [
        ("T1", [1, 2, 3, 4]),
        ("T2", [5, 5, 5, 5]),
        ("T3", [1, 2, 3, 4]),
    ] {
        for (k, system) in ["A", "B", "C", "D"].iter().enumerate() {
            csv += &format!("{topic},{system},{},{}\n", abstains[k], k + 1);
        }
    }
    std::fs::write(&features, csv).expect("write features");
    let mut a = args(features.clone(), fixture("eval/set.jsonl"), "pyramid");
    a.feature = Some("abstains".into());
    a.compare = Some(features);
    a.compare_feature = Some("ranks".into());
    a.bootstrap = 0;
    let report = evaluate_json(a.clone(), dir.path());
    let coverage = &report["summary_coverage"];
    assert_eq!(coverage["ranked_by_humans"], 3, "{coverage}");
    assert_eq!(coverage["metric_constant"], 1, "{coverage}");
    assert_eq!(coverage["human_constant"], 0, "{coverage}");
    // T1 τ 1, T3 τ 2/3 (one discordant pair of six): the mean over the two ranked topics.
    assert_eq!(report["statistics"]["summary_topics"], 2);
    assert!((statistic(&report, "summary.kendall") - 5.0 / 6.0).abs() < 1e-12);
    // The comparison's second metric ranks all three topics.
    assert_eq!(
        report["comparison"]["summary_coverage"][0]["metric_constant"],
        1
    );
    assert_eq!(
        report["comparison"]["summary_coverage"][1]["metric_constant"],
        0
    );
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.contains("in 1 of the 3 topics the annotators rank"))),
        "{warnings:?}"
    );
    // Both columns score every row: no word on the comparison's rows.
    assert!(
        !warnings.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.contains("the comparison uses"))),
        "{warnings:?}"
    );
    let text = aesop::eval::report::render_text(
        &aesop::eval::report::build_report(&a, &std::sync::atomic::AtomicBool::new(false))
            .expect("report"),
    );
    assert!(
        text.contains("same value in 1 of the 3 topics the annotators rank; those have no coefficient, and the means are over the other 2"),
        "{text}"
    );
    assert!(
        text.contains("A ranks the summaries of 2 topics, B of 3"),
        "{text}"
    );
    // The abstaining column's tie in T2 is wrong there (the annotators order T2): 18 pairs, no
    // human tie, so a constant metric would get 0.
    assert!(
        text.contains("(18 pairs, 0 tied by the humans, so a constant metric gets 0.000;"),
        "{text}"
    );

    // The ranking column alone: no line, no warning.
    let mut b = args(
        fixture("eval/features.csv"),
        fixture("eval/set.jsonl"),
        "pyramid",
    );
    b.feature = Some("rouge.r1_f".into());
    b.bootstrap = 0;
    let report = evaluate_json(b.clone(), dir.path());
    assert_eq!(report["summary_coverage"]["metric_constant"], 0);
    assert!(report.get("warnings").is_none(), "{report}");
    let text = aesop::eval::report::render_text(
        &aesop::eval::report::build_report(&b, &std::sync::atomic::AtomicBool::new(false))
            .expect("report"),
    );
    assert!(!text.contains("same value in"), "{text}");
}

/// `input.length_matched_accuracy`: the pairwise accuracy over pairs whose word counts are
/// within the tolerance, next to what length alone gets; lengths counted as
/// `surface.summary_tokens` counts them, so length alone equals that feature's input-level
/// pairwise accuracy.
#[test]
fn a_metric_is_judged_at_matched_length() {
    use aesop::eval::report::word_count;
    use aesop::features::surface::word_tokens;
    let dir = tempfile::tempdir().expect("tempdir");
    // Word counts 5, 5, 9, 6 (punctuation, digits and accents as the surface class splits
    // them: "2.5" is two words); the humans prefer the longer summaries, the metric gets (a, b)
    // wrong.
    let texts = [
        ("a", "Rates rose 2.5 points.", 1.0, 3.0),
        ("b", "Prices fell — very sharply, again!", 2.0, 2.0),
        (
            "c",
            "Café owners said the rates rose by two points.",
            4.0,
            5.0,
        ),
        ("d", "Rates rose by 3%, officials said.", 3.0, 4.0),
    ];
    let set = dir.path().join("set.jsonl");
    let summaries: Vec<Value> = texts
        .iter()
        .map(|(system, text, human, _)| {
            serde_json::json!({"system": system, "text": text, "scores": {"relevance": human}})
        })
        .collect();
    let topic = serde_json::json!({"topic": "t1", "documents": [{"id": "d", "text": "Rates rose."}],
        "summaries": summaries});
    std::fs::write(&set, format!("{topic}\n")).expect("write set");
    let predictions = dir.path().join("pred.jsonl");
    let mut lines = String::new();
    let mut csv = String::from("topic,system,surface.summary_tokens\n");
    for (system, text, _, metric) in &texts {
        assert_eq!(word_count(text), word_tokens(text).len(), "{text}");
        lines += &format!(
            "{}\n",
            serde_json::json!({"topic": "t1", "system": system, "target": "relevance", "score": metric})
        );
        csv += &format!("t1,{system},{}\n", word_tokens(text).len());
    }
    std::fs::write(&predictions, lines).expect("write predictions");
    let lengths = dir.path().join("lengths.csv");
    std::fs::write(&lengths, csv).expect("write lengths");

    // At 25 %: (a, b) equal and (a, d), (b, d) one word of six apart are matched; the
    // metric orders (a, d) and (b, d) rightly and (a, b) wrongly.
    let mut a = args(predictions.clone(), set.clone(), "relevance");
    a.length_tolerance = 0.25;
    a.bootstrap = 0;
    let report = evaluate_json(a, dir.path());
    let matched = &report["statistics"]["input_length_matched"];
    assert_eq!(
        (&matched["pairs"], &matched["correct"]),
        (&3.into(), &2.into())
    );
    assert!((statistic(&report, "input.length_matched_accuracy") - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(report["statistics"]["length_tolerance"], 0.25);
    // Length alone: the tie (a, b) is wrong, the five other pairs right.
    let alone = report["length_alone"]["all"]["accuracy"]
        .as_f64()
        .expect("number");
    assert!((alone - 5.0 / 6.0).abs() < 1e-12, "{alone}");

    // The same length as a features column: its input-level pairwise accuracy is length
    // alone, and at matched length it is length alone on those pairs.
    let mut a = args(lengths, set.clone(), "relevance");
    a.feature = Some("surface.summary_tokens".into());
    a.length_tolerance = 0.25;
    a.bootstrap = 0;
    let as_feature = evaluate_json(a, dir.path());
    assert_eq!(
        as_feature["statistics"]["input_pairwise"],
        report["length_alone"]["all"]
    );
    assert_eq!(
        as_feature["statistics"]["input_length_matched"],
        report["length_alone"]["matched"]
    );

    // The default (10 %) matches only the equal pair.
    let mut a = args(predictions.clone(), set.clone(), "relevance");
    a.bootstrap = 0;
    let report = evaluate_json(a, dir.path());
    assert_eq!(report["statistics"]["input_length_matched"]["pairs"], 1);

    // A tolerance outside [0, 1] is refused, naming the flag.
    let mut a = args(predictions, set, "relevance");
    a.length_tolerance = 1.5;
    let message = error_of(a);
    assert!(message.contains("--length-tolerance"), "{message}");
}

/// `evaluate`'s flag checks that clap cannot make (`--alpha`, `--length-tolerance`, `--csv`
/// without `--features`, `--compare-feature` / `--compare-model` without `--compare`) are usage
/// errors (exit 2) found before any file is read: the files named here do not exist, so a later
/// check would fail on them first. They exited 1 until stop 75. `--alpha`, which only the
/// discriminative-power table of a one-metric report uses, is refused beside `--features`,
/// which ignored it (any value, `--alpha 5` too, ran).
#[test]
fn flags_that_cannot_work_are_usage_errors_before_any_file_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.csv");
    let human = dir.path().join("missing.jsonl");
    for (flags, message) in [
        (
            &["--alpha", "0"][..],
            "--alpha must be between 0 and 1, got 0",
        ),
        (
            &["--alpha", "nan"],
            "--alpha must be between 0 and 1, got NaN",
        ),
        (
            &["--length-tolerance", "2"],
            "--length-tolerance must be between 0 and 1",
        ),
        (
            &["--features", "*", "--length-tolerance", "-1"],
            "--length-tolerance must be",
        ),
        (
            &["--feature", "rouge.r1_f", "--csv", "t.csv"],
            "--csv writes the table of --features",
        ),
        (
            &["--compare-feature", "rouge.r1_f"],
            "--compare-feature names a column of the --compare file",
        ),
        (
            &["--compare-model", "A"],
            "--compare-model names a model of the --compare file",
        ),
        (
            &["--features", "*", "--alpha", "0.1"],
            "cannot be used with '--alpha <ALPHA>'",
        ),
    ] {
        let out = common::aesop()
            .arg("evaluate")
            .arg(&missing)
            .arg("--human")
            .arg(&human)
            .args(["--target", "pyramid"])
            .args(flags)
            .current_dir(dir.path())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(message), "{flags:?}: {stderr}");
        assert!(!stderr.contains("cannot open"), "{flags:?}: {stderr}");
    }
    assert!(!dir.path().join("t.csv").exists());
}

/// A bootstrap count past `aesop_eval::bootstrap::MAX_SAMPLES` is a usage error in every verb
/// that takes `--bootstrap`, before any file is read: `evaluate --bootstrap 1000000000000`
/// reserved its draws up front (8 TB) and ran until killed (audit stop 93). A million is taken.
#[test]
fn bootstrap_counts_past_a_million_are_usage_errors_in_every_verb() {
    let dir = tempfile::tempdir().expect("tempdir");
    for verb in [
        &[
            "evaluate",
            "missing.jsonl",
            "--human",
            "missing.jsonl",
            "--target",
            "t",
        ][..],
        &[
            "cross-validate",
            "missing.jsonl",
            "--target",
            "t",
            "--classes",
            "surface",
            "-o",
            "o.jsonl",
        ],
        &[
            "ablate",
            "missing.jsonl",
            "--target",
            "t",
            "--classes",
            "surface,content",
            "-o",
            "a.txt",
        ],
    ] {
        let out = common::aesop()
            .args(verb)
            .args(["--bootstrap", "1000000000000"])
            .current_dir(dir.path())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{verb:?}: {stderr}");
        assert!(
            stderr.contains("1000000000000 is not in 0..=1000000"),
            "{verb:?}: {stderr}"
        );
        // A million passes the flag's check (and fails on the missing file instead).
        let out = common::aesop()
            .args(verb)
            .args(["--bootstrap", "1000000"])
            .current_dir(dir.path())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{verb:?}: {stderr}");
        assert!(stderr.contains("missing.jsonl"), "{verb:?}: {stderr}");
    }
    // The library's own check, for callers that did not parse the flag.
    let message = aesop::eval::bootstrap::check_samples(1_000_001)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("--bootstrap: at most 1000000 samples, got 1000001"),
        "{message}"
    );
}

/// `aesop evaluate PREDICTIONS --human HUMAN --target pyramid --bootstrap 0`, run.
fn evaluate_pyramid(
    human: &std::path::Path,
    predictions: &std::path::Path,
) -> std::process::Output {
    common::aesop()
        .args([
            "evaluate",
            "--bootstrap",
            "0",
            "--target",
            "pyramid",
            "--human",
        ])
        .arg(human)
        .arg(predictions)
        .output()
        .expect("evaluate")
}

/// Human scores kept as a table (CSV, TSV or JSON Lines of topic, system and the target, as
/// annotations often are) judge a metric as the judgment set they come from does: every statistic the same,
/// but the accuracy at matched length, which needs the summaries' lengths and says so. A score
/// given twice, a missing column and an empty cell are handled as a set's are.
#[test]
fn human_scores_in_a_table_judge_as_their_set_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = fixture("eval/set.jsonl");
    let text = std::fs::read_to_string(&set).expect("set");
    let mut table = String::from("system,topic,pyramid,notes\n");
    let mut rows = String::new();
    for line in text.lines() {
        let topic: Value = serde_json::from_str(line).expect("json");
        for summary in topic["summaries"].as_array().expect("summaries") {
            table.push_str(&format!(
                "{},{},{},\"a, b\"\n",
                summary["system"].as_str().expect("system"),
                topic["topic"].as_str().expect("topic"),
                summary["scores"]["pyramid"]
            ));
            let row = serde_json::json!({
                "system": summary["system"],
                "topic": topic["topic"],
                "pyramid": summary["scores"]["pyramid"],
                "notes": "a, b",
            });
            rows.push_str(&format!("{row}\n"));
        }
    }
    table.push_str("Z,T1,,\n");
    rows.push_str("{\"system\": \"Z\", \"topic\": \"T1\", \"pyramid\": null}\n");
    // JSON Lines of rows (pandas' `to_json(orient="records", lines=True)`), told from a set by
    // their first line.
    let jsonl = dir.path().join("human.jsonl");
    std::fs::write(&jsonl, &rows).expect("write");
    let csv = dir.path().join("human.csv");
    std::fs::write(&csv, &table).expect("write");
    let tsv = dir.path().join("human.tsv");
    std::fs::write(&tsv, table.replace(',', "\t").replace("\"a\t b\"", "x")).expect("write");
    let predictions = fixture("eval/predictions.jsonl");
    let from_set = evaluate_json(args(predictions.clone(), set, "pyramid"), dir.path());
    for human in [&csv, &tsv, &jsonl] {
        let from_table = evaluate_json(
            args(predictions.clone(), human.clone(), "pyramid"),
            dir.path(),
        );
        for name in [
            "summary.kendall",
            "system.kendall",
            "global.pearson",
            "system.pairwise_accuracy",
            "input.pairwise_accuracy",
        ] {
            assert_eq!(
                statistic(&from_table, name),
                statistic(&from_set, name),
                "{name}"
            );
        }
        assert_eq!(from_table["length_alone"]["lengths_known"], false);
        assert_eq!(from_set["length_alone"]["lengths_known"], true);
    }
    let rendered = String::from_utf8(common::stdout_of_success(evaluate_pyramid(
        &csv,
        &predictions,
    )))
    .expect("UTF-8");
    assert!(
        rendered.contains(
            "input-level accuracy at matched length: —  (the summaries' lengths are \
            unknown: the human scores came from a table without their texts)"
        ),
        "{rendered}"
    );
    std::fs::write(&csv, "topic,system,pyramid\nT1,A,1\nT1,A,2\n").expect("write");
    let message = error_of(args(predictions.clone(), csv.clone(), "pyramid"));
    assert!(
        message.contains("topic \"T1\", system \"A\" is scored twice (lines 2 and 3)")
            && message.ends_with(
                "with a row per annotator, average each summary's scores first (pandas: \
                 df.groupby([\"topic\", \"system\"], as_index=False)[\"pyramid\"].mean())"
            ),
        "{message}"
    );
    let message = error_of(args(predictions.clone(), csv, "relevance"));
    assert!(
        message.contains("no column 'relevance' (columns: topic, system, pyramid)"),
        "{message}"
    );
    let twice = "{\"topic\": \"T1\", \"system\": \"A\", \"pyramid\": 1}\n";
    std::fs::write(&jsonl, format!("{twice}\n{twice}")).expect("write");
    let message = error_of(args(predictions.clone(), jsonl.clone(), "pyramid"));
    assert!(
        message.contains("topic \"T1\", system \"A\" is scored twice (lines 1 and 3)"),
        "{message}"
    );
    let message = error_of(args(predictions, jsonl, "relevance"));
    assert!(
        message.contains("human.jsonl:1: no field 'relevance' (fields: pyramid, system, topic)"),
        "{message}"
    );
}

/// A table as a spreadsheet writes it where the decimal mark is a comma (Excel, LibreOffice in
/// German, French, Spanish, … locales: fields split at semicolons, `0,25` for a quarter) is
/// read as its comma-split twin, for human scores as for a metric's column; the number with a
/// grouping mark (`1.234,5`) is refused, and a header that holds no `topic` and `system` under
/// any split says how it was split and what it found.
#[test]
fn a_spreadsheets_table_split_at_semicolons_with_decimal_commas_reads_as_its_csv_twin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = fixture("eval/set.jsonl");
    let text = std::fs::read_to_string(&set).expect("set");
    // The scores as quarters, so a decimal comma read as anything but the decimal mark
    // (`0,25` as 0 or 25) changes the orderings the statistics compare.
    let (mut comma, mut semicolon) = (
        String::from("topic,system,pyramid,notes\n"),
        String::from("\u{feff}topic;system;pyramid;notes\r\n"),
    );
    for line in text.lines() {
        let topic: Value = serde_json::from_str(line).expect("json");
        for summary in topic["summaries"].as_array().expect("summaries") {
            let (id, system) = (
                topic["topic"].as_str().expect("topic"),
                summary["system"].as_str().expect("system"),
            );
            let quarter = summary["scores"]["pyramid"].as_f64().expect("score") * 0.25 - 0.5;
            comma.push_str(&format!("{id},{system},{quarter},\"a; b, c\"\n"));
            let decimal_comma = format!("{quarter}").replace('.', ",");
            semicolon.push_str(&format!("{id};{system};{decimal_comma};\"a; b, c\"\r\n"));
        }
    }
    assert!(semicolon.contains(";-0,25;"), "{semicolon}");
    let comma_path = dir.path().join("human.csv");
    std::fs::write(&comma_path, &comma).expect("write");
    let semicolon_path = dir.path().join("human-excel.csv");
    std::fs::write(&semicolon_path, &semicolon).expect("write");
    let predictions = fixture("eval/predictions.jsonl");
    let names = [
        "summary.kendall",
        "system.kendall",
        "summary.spearman",
        "system.pairwise_accuracy",
        "input.pairwise_accuracy",
    ];
    let as_human = |human: &PathBuf| {
        let mut a = args(predictions.clone(), human.clone(), "pyramid");
        a.bootstrap = 0;
        evaluate_json(a, dir.path())
    };
    let (from_comma, from_semicolon) = (as_human(&comma_path), as_human(&semicolon_path));
    for name in names {
        assert_eq!(
            statistic(&from_semicolon, name),
            statistic(&from_comma, name),
            "{name}"
        );
    }
    assert_eq!(from_semicolon["counts"]["matched"], 12);
    // The same table as the metric (`--feature pyramid`) judged against the set.
    let as_metric = |table: &PathBuf| {
        let mut a = args(table.clone(), set.clone(), "pyramid");
        a.feature = Some("pyramid".to_string());
        a.bootstrap = 0;
        evaluate_json(a, dir.path())
    };
    let (from_comma, from_semicolon) = (as_metric(&comma_path), as_metric(&semicolon_path));
    for name in names {
        assert_eq!(
            statistic(&from_semicolon, name),
            statistic(&from_comma, name),
            "{name}"
        );
    }
    assert_eq!(statistic(&from_semicolon, "summary.kendall"), 1.0);
    // A grouping mark is no decimal mark: refused, named by line and column.
    std::fs::write(&semicolon_path, "topic;system;pyramid\nT1;A;1.234,5\n").expect("write");
    let message = error_of(args(predictions.clone(), semicolon_path.clone(), "pyramid"));
    assert!(
        message.ends_with("human-excel.csv:2: pyramid: expected a number, found \"1.234,5\""),
        "{message}"
    );
    // A decimal comma in a table split at commas (quoted) is no number there, and says why.
    std::fs::write(&semicolon_path, "topic,system,pyramid\nT1,A,\"1,5\"\n").expect("write");
    let message = error_of(args(predictions.clone(), semicolon_path.clone(), "pyramid"));
    assert!(
        message.ends_with(
            "human-excel.csv:2: pyramid: expected a number, found \"1,5\" (a decimal comma is \
             read only in a table split at semicolons, where it cannot be a thousands separator: \
             write a decimal point, or save the table split at semicolons)"
        ),
        "{message}"
    );
    // A row of another field count, named by its line.
    std::fs::write(&semicolon_path, "topic;system;pyramid\nT1;A;1;2\n").expect("write");
    let message = error_of(args(predictions.clone(), semicolon_path.clone(), "pyramid"));
    assert!(
        message.ends_with(
            "human-excel.csv:2: 4 fields where the header has 3 (split at semicolons): a quote \
             left open, or the delimiter inside an unquoted text (quote that text)"
        ),
        "{message}"
    );
    // A header split at none of the three.
    std::fs::write(&semicolon_path, "topic|system|pyramid\nT1|A|1\n").expect("write");
    let message = error_of(args(predictions, semicolon_path, "pyramid"));
    assert!(
        message.ends_with(
            "human-excel.csv:1: the header needs 'topic' and 'system' columns (split at \
             commas, its columns are: topic|system|pyramid); a table's fields may be split at \
             tabs, commas or semicolons"
        ),
        "{message}"
    );
}

/// Human scores whose ids a spreadsheet or a hand edit changed (`T1` as `t1`, a space after a
/// system) leave those rows out of the figures: the report says how many on each side, and
/// which differ only so, in `--json` and on standard error; human scores of a subset of the
/// predictions' summaries (one side's extra rows alone) get no warning.
#[test]
fn rows_each_file_lacks_are_warned_of_with_the_ids_that_nearly_match() {
    let dir = tempfile::tempdir().expect("tempdir");
    let predictions = fixture("eval/predictions.jsonl");
    let mut table = String::from("topic,system,pyramid\n");
    for (topic, system, score) in [
        ("T1", "A", 1),
        ("T1", "B", 2),
        ("t1", "C", 3),
        ("T1", "D ", 4),
        ("T2", "A", 4),
        ("T2", "B", 3),
        ("T2", "C", 2),
        ("T2", "D", 1),
        ("T7", "A", 1),
    ] {
        table.push_str(&format!("{topic},{system},{score}\n"));
    }
    let human = dir.path().join("human.csv");
    std::fs::write(&human, &table).expect("write");
    let mut a = args(predictions.clone(), human.clone(), "pyramid");
    a.bootstrap = 0;
    let report = evaluate_json(a, dir.path());
    assert_eq!(report["counts"]["matched"], 6);
    let warnings = report["warnings"].as_array().expect("warnings");
    let warning = warnings
        .iter()
        .filter_map(Value::as_str)
        .find(|w| w.contains("no human score"))
        .unwrap_or_else(|| panic!("no warning of the unmatched rows: {warnings:?}"));
    assert!(
        warning.contains("predictions.jsonl have no human score and 3 of")
            && warning.contains("human.csv no metric score")
            && warning.contains("the figures are over the 6 rows both hold")
            && warning.contains("2 rows of")
            && warning.contains(
                "human.csv only in letter case, spaces or leading zeros (as a spreadsheet or a \
                 hand edit changes ids), e.g. (\"T1\", \"C\") against (\"t1\", \"C\")"
            ),
        "{warning}"
    );
    // Standard error says it too.
    let out = evaluate_pyramid(&human, &predictions);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    common::stdout_of_success(out);
    assert!(
        stderr.contains("warning: ") && stderr.contains("only in letter case"),
        "{stderr}"
    );
    // No row shared: the error names the near misses too.
    std::fs::write(&human, "topic,system,pyramid\nT1,a,1\nT1,b,2\nT2,c,3\n").expect("write");
    let message = error_of(args(predictions.clone(), human.clone(), "pyramid"));
    assert!(
        message.contains("share no (topic, system) row")
            && message.contains("; 3 rows of")
            && message.contains("e.g. (\"T1\", \"A\") against (\"T1\", \"a\")"),
        "{message}"
    );
    // The human scores of a subset of the predicted summaries: no such warning.
    std::fs::write(&human, "topic,system,pyramid\nT1,A,1\nT1,B,2\nT1,C,3\n").expect("write");
    let mut a = args(predictions, human, "pyramid");
    a.bootstrap = 0;
    let report = evaluate_json(a, dir.path());
    assert!(
        !report["warnings"].to_string().contains("no human score"),
        "{}",
        report["warnings"]
    );
}

/// The lines of a pooled cross-validation name their set; `--set` (or the `--human` file's name)
/// chooses one, and the messages when it cannot say which sets there are and how to choose
/// (the reader is shared with Python's `aesop.evaluate` since stop 93, whose messages say
/// `set=NAME` instead; these keep the CLI's).
#[test]
fn pooled_predictions_are_read_one_set_at_a_time_with_the_cli_s_messages() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = std::fs::read_to_string(fixture("eval/predictions.jsonl")).expect("fixture");
    let mut pooled = String::new();
    for set in ["a.jsonl", "b.jsonl"] {
        for line in lines.lines().filter(|l| !l.trim().is_empty()) {
            let mut row: Value = serde_json::from_str(line).expect("json");
            row["set"] = Value::from(set);
            pooled.push_str(&format!("{row}\n"));
        }
    }
    let pooled_path = dir.path().join("pooled.jsonl");
    std::fs::write(&pooled_path, pooled).expect("write");
    let named = |set: &str| {
        let mut a = args(pooled_path.clone(), fixture("eval/set.jsonl"), "pyramid");
        a.set = Some(set.to_string());
        a.bootstrap = 0;
        a
    };
    let report = evaluate_json(named("b.jsonl"), dir.path());
    assert_eq!(report["counts"]["matched"], 12);
    // Neither --set nor a --human file named as a set: the sets are listed.
    let message = error_of(args(
        pooled_path.clone(),
        fixture("eval/set.jsonl"),
        "pyramid",
    ));
    assert!(
        message.ends_with(
            "no line of set 'set.jsonl', the --human file's name (sets in the file: a.jsonl, \
             b.jsonl); choose one with --set NAME and give that set's file as --human"
        ),
        "{message}"
    );
    // --set on lines that name no set.
    let mut a = args(
        fixture("eval/predictions.jsonl"),
        fixture("eval/set.jsonl"),
        "pyramid",
    );
    a.set = Some("a.jsonl".into());
    let message = error_of(a);
    assert!(
        message.ends_with(
            "--set a.jsonl: its lines name no set (only `cross-validate` with several --set \
             writes `set`)"
        ),
        "{message}"
    );
}
