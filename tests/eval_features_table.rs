//! `aesop evaluate --features`: many columns ranked at once, each row equal to that column's own
//! `evaluate --feature` report, oriented and ranked as `cross-validate` picks its best single
//! feature, sparse columns set apart, and errors that name the file and the pattern.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The shipped SummEval sample imported into `dir`, and its features (`content`, `rouge`,
/// `surface`) as CSV.
fn sample_with_features(dir: &Path) -> (PathBuf, PathBuf) {
    let set = crate::cli_verbs::imported_sample(dir, "sample.jsonl");
    let features = dir.join("features.csv");
    write_features(&set, "content,rouge,surface", &features);
    (set, features)
}

/// `aesop features SET --classes CLASSES -o OUT`.
fn write_features(set: &Path, classes: &str, out: &Path) {
    let run = common::aesop()
        .arg("features")
        .arg(set)
        .args(["--classes", classes, "-o"])
        .arg(out)
        .output()
        .expect("features");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// `aesop evaluate FEATURES --human SET --target TARGET EXTRA… --json OUT`: its JSON report and
/// standard output.
fn evaluate_json(
    features: &Path,
    (set, target): (&Path, &str),
    extra: &[&str],
    json: &Path,
) -> (Value, String) {
    let out = common::aesop()
        .arg("evaluate")
        .arg(features)
        .arg("--human")
        .arg(set)
        .args(["--target", target])
        .args(extra)
        .arg("--json")
        .arg(json)
        .output()
        .expect("evaluate");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        common::read_json(json),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The failure of `aesop evaluate ARGS…`: exit code and standard error.
fn evaluate_error<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (Option<i32>, String) {
    let out = common::aesop()
        .arg("evaluate")
        .args(args)
        .output()
        .expect("evaluate");
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// The arguments of `aesop evaluate` on the fixture features and set (`pyramid`), writing
/// `--json JSON`, then `extra`.
fn on_the_fixture(json: &Path, extra: &[&str]) -> Vec<String> {
    let (features, set) = (
        common::fixture("eval/features.csv"),
        common::fixture("eval/set.jsonl"),
    );
    [
        path(&features),
        "--human",
        path(&set),
        "--target",
        "pyramid",
        "--json",
        path(json),
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .map(str::to_string)
    .collect()
}

/// Every row carries the statistics and intervals `evaluate --feature` gives its column alone
/// (a negated column under its `-COLUMN` name); ranked rows come first, by summary-level τ,
/// numbered from 1; a negated row's column falls as the annotators' scores rise.
#[test]
fn every_row_is_its_columns_own_report_ranked_by_summary_tau() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (set, features) = sample_with_features(dir.path());
    let (table, stdout) = evaluate_json(
        &features,
        (&set, "relevance"),
        &[
            "--features",
            "content.*,rouge.r1_recall,surface.summary_tokens",
            "--bootstrap",
            "200",
            "--seed",
            "7",
        ],
        &dir.path().join("table.json"),
    );
    let rows = table["rows"].as_array().expect("rows");
    let header = std::fs::read_to_string(&features).expect("features");
    let content_columns = header
        .lines()
        .next()
        .expect("header")
        .split(',')
        .filter(|c| c.starts_with("content."))
        .count();
    assert_eq!(rows.len(), content_columns + 2, "{table}");
    assert_eq!(table["bootstrap_samples"], 200);
    assert_eq!(table["topics_ranked_by_humans"], 10);
    let tau = |row: &Value| row["statistics"]["summary"]["kendall"].as_f64();
    let ranked: Vec<&Value> = rows
        .iter()
        .filter(|r| r["covers_the_set"] == true)
        .collect();
    assert!(ranked.len() >= 3, "{table}");
    for (i, row) in ranked.iter().enumerate() {
        assert_eq!(row["rank"], i + 1, "{row}");
        assert!(tau(row).expect("tau") >= 0.0, "{row}");
        if i > 0 {
            assert!(tau(ranked[i - 1]) >= tau(row), "not in order: {table}");
        }
    }
    assert!(
        rows.iter().any(|r| r["negated"] == true),
        "no column falls as relevance rises: {table}"
    );
    // The text table lists the ranked rows in the same order.
    let first = ranked[0]["feature"].as_str().expect("feature");
    assert!(
        stdout
            .lines()
            .any(|l| l.trim_start().starts_with("1  ") && l.contains(first)),
        "{stdout}"
    );
    for row in rows {
        let feature = row["feature"].as_str().expect("feature");
        let column = row["column"].as_str().expect("column");
        let negated = row["negated"].as_bool().expect("negated");
        assert_eq!(
            feature,
            if negated {
                format!("-{column}")
            } else {
                column.to_string()
            }
        );
        let (single, _) = evaluate_json(
            &features,
            (&set, "relevance"),
            &["--feature", feature, "--bootstrap", "200", "--seed", "7"],
            &dir.path().join("single.json"),
        );
        assert_eq!(row["statistics"], single["statistics"], "{feature}");
        assert_eq!(row["counts"], single["counts"], "{feature}");
        if row["covers_the_set"] == true {
            assert_eq!(row["estimates"], single["estimates"], "{feature}");
        }
        if negated {
            let (plain, _) = evaluate_json(
                &features,
                (&set, "relevance"),
                &["--feature", column, "--bootstrap", "0"],
                &dir.path().join("plain.json"),
            );
            let plain_tau = plain["statistics"]["summary"]["kendall"].as_f64();
            assert!(plain_tau.expect("tau") < 0.0, "{column}");
        }
    }
}

/// Two sets of five topics each from the imported sample, `a.jsonl` and `b.jsonl` in `dir`.
fn two_sets_of_the_sample(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let sample = crate::cli_verbs::imported_sample(dir, "sample.jsonl");
    let text = std::fs::read_to_string(&sample).expect("sample");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 10);
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    std::fs::write(&a, lines[..5].join("\n") + "\n").expect("write a");
    std::fs::write(&b, lines[5..].join("\n") + "\n").expect("write b");
    (a, b)
}

/// The first ranked row is the best single feature `cross-validate --leave-one-set-out` names
/// for a held-out set, from the same classes on the same rows; and with `--also`, the column
/// the other sets choose is the feature it reports as chosen without the held-out set.
#[test]
fn the_first_row_and_the_choice_without_a_set_are_cross_validates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = two_sets_of_the_sample(dir.path());
    let report = dir.path().join("loso.json");
    let out = common::aesop()
        .arg("cross-validate")
        .arg("--set")
        .arg(format!("{}:relevance", a.display()))
        .arg("--set")
        .arg(format!("{}:relevance", b.display()))
        .args([
            "--classes",
            "content,rouge",
            "--leave-one-set-out",
            "--bootstrap",
            "0",
        ])
        .arg("-o")
        .arg(dir.path().join("oof.jsonl"))
        .arg("--report")
        .arg(&report)
        .output()
        .expect("cross-validate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = common::read_json(&report);
    let held = report["leave_one_set_out"]
        .as_array()
        .expect("held-out sets");
    assert_eq!(held.len(), 2);
    let (fa, fb) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    for (h, (set, features)) in held.iter().zip([(&a, &fa), (&b, &fb)]) {
        write_features(set, "content,rouge", features);
        let (table, _) = evaluate_json(
            features,
            (set, "relevance"),
            &["--features", "*", "--bootstrap", "0"],
            &dir.path().join("table.json"),
        );
        let first = &table["rows"][0];
        assert_eq!(first["rank"], 1, "{table}");
        assert_eq!(first["feature"], h["best_feature"], "{h}\n{table}");
        let tau = first["statistics"]["summary"]["kendall"]
            .as_f64()
            .expect("tau");
        let best = h["best_feature_stats"]["summary_kendall"]["value"]
            .as_f64()
            .expect("best tau");
        assert!((tau - best).abs() < 1e-12, "{tau} vs {best}");
    }
    // The feature protocol 2 chooses for each held-out set is the one `evaluate --also` names
    // the column the other sets choose, with the same τ there.
    let (across, _) = evaluate_json(
        &fa,
        (&a, "relevance"),
        &[
            "--features",
            "*",
            "--bootstrap",
            "0",
            "--also",
            &format!("{}={}:relevance", fb.display(), b.display()),
        ],
        &dir.path().join("across.json"),
    );
    let chosen = across["across"]["chosen_without_the_set"]
        .as_array()
        .expect("chosen");
    for (h, c) in held.iter().zip(chosen) {
        let from_cv = &h["chosen_without_the_set"];
        assert_eq!(from_cv["feature"], c["chosen"], "{h}\n{c}");
        let tau = from_cv["stats"]["summary_kendall"]["value"]
            .as_f64()
            .expect("tau");
        let expected = c["summary_kendall"].as_f64().expect("tau");
        assert!((tau - expected).abs() < 1e-12, "{tau} vs {expected}");
        let mean = from_cv["mean_on_training_sets"].as_f64().expect("mean");
        let expected = c["mean_on_the_others"].as_f64().expect("mean");
        assert!((mean - expected).abs() < 1e-12, "{mean} vs {expected}");
    }
}

/// With `--also`, a judgment file given under a second column is the same summaries, not another
/// set: the column chosen without a set comes from the other corpora only (as `cross-validate
/// --leave-one-set-out` holds a corpus's columns out together), and from none when there is none.
#[test]
fn the_choice_without_a_set_ignores_the_same_summaries_under_another_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = two_sets_of_the_sample(dir.path());
    let (fa, fb) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    write_features(&a, "content,rouge", &fa);
    write_features(&b, "content,rouge", &fb);
    let also = |features: &Path, set: &Path, column: &str| {
        format!("{}={}:{column}", features.display(), set.display())
    };
    let chosen = |extra: &[String]| -> Vec<Value> {
        let mut args: Vec<&str> = vec!["--features", "*", "--bootstrap", "0"];
        for e in extra {
            args.extend(["--also", e.as_str()]);
        }
        let (report, _) = evaluate_json(&fa, (&a, "relevance"), &args, &dir.path().join("x.json"));
        report["across"]["chosen_without_the_set"]
            .as_array()
            .expect("chosen")
            .clone()
    };
    // a under two columns and b: each of a's columns is given b's choice.
    let three = chosen(&[also(&fa, &a, "coherence"), also(&fb, &b, "relevance")]);
    let two = chosen(&[also(&fb, &b, "relevance")]);
    assert_eq!(three.len(), 3);
    assert_eq!(three[0]["chosen"], two[0]["chosen"], "{three:?}\n{two:?}");
    assert_eq!(three[0]["mean_on_the_others"], two[0]["mean_on_the_others"]);
    assert_eq!(three[1]["chosen"], two[0]["chosen"], "{three:?}\n{two:?}");
    assert_eq!(three[1]["mean_on_the_others"], two[0]["mean_on_the_others"]);
    // a alone, under two columns: nothing to choose from.
    let alone = chosen(&[also(&fa, &a, "coherence")]);
    assert!(alone.iter().all(|c| c["chosen"].is_null()), "{alone:?}");
}

/// A column with values for few summaries is listed after the ranked ones, unranked and without
/// intervals, however high its τ over the summaries it has; the CSV holds one line per column
/// with the JSON's figures.
#[test]
fn sparse_columns_are_listed_apart_and_the_csv_holds_every_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = common::fixture("eval/set.jsonl");
    // Three topics of four summaries; `sparse` agrees perfectly with pyramid, but only in T1.
    let human = fixture_scores();
    let mut csv = String::from("topic,system,sparse,noisy,reversed\n");
    for (i, (topic, system, score)) in human.iter().enumerate() {
        let sparse = if topic == "T1" {
            score.to_string()
        } else {
            String::new()
        };
        let noisy = ((i * 7) % 5) as f64;
        csv.push_str(&format!("{topic},{system},{sparse},{noisy},{}\n", -score));
    }
    let features = dir.path().join("f.csv");
    std::fs::write(&features, csv).expect("write");
    // The same columns as JSON Lines (the missing values null).
    let mut jsonl = String::new();
    for (topic, system, score) in &human {
        let sparse = if topic == "T1" {
            serde_json::json!(score)
        } else {
            Value::Null
        };
        let line = serde_json::json!({"topic": topic, "system": system, "sparse": sparse,
            "reversed": -score});
        jsonl.push_str(&format!("{line}\n"));
    }
    let features_jsonl = dir.path().join("f.jsonl");
    std::fs::write(&features_jsonl, jsonl).expect("write");
    let out_csv = dir.path().join("table.csv");
    let (table, stdout) = evaluate_json(
        &features,
        (&set, "pyramid"),
        &[
            "--features",
            "*",
            "--bootstrap",
            "50",
            "--csv",
            path(&out_csv),
        ],
        &dir.path().join("table.json"),
    );
    let rows = table["rows"].as_array().expect("rows");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["feature"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["-reversed", "noisy", "sparse"], "{table}");
    assert_eq!(rows[0]["rank"], 1);
    assert_eq!(rows[0]["statistics"]["summary"]["kendall"], 1.0);
    let sparse = &rows[2];
    assert_eq!(sparse["rank"], Value::Null);
    assert_eq!(sparse["covers_the_set"], false);
    assert_eq!(sparse["statistics"]["summary"]["kendall"], 1.0, "{sparse}");
    assert!(sparse["estimates"]
        .as_array()
        .expect("estimates")
        .iter()
        .all(|e| e["interval"]["samples"] == 0));
    assert!(stdout.contains("not ranked, 1 column:"), "{stdout}");
    let mut reader = csv::Reader::from_path(&out_csv).expect("csv");
    let headers = reader.headers().expect("header").clone();
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("record")).collect();
    assert_eq!(records.len(), 3);
    let at = |record: &csv::StringRecord, name: &str| {
        let i = headers.iter().position(|h| h == name).expect(name);
        record[i].to_string()
    };
    for (record, row) in records.iter().zip(rows) {
        assert_eq!(
            at(record, "feature"),
            row["feature"].as_str().expect("feature")
        );
        let tau: f64 = at(record, "summary.kendall").parse().expect("tau");
        assert_eq!(
            tau,
            row["statistics"]["summary"]["kendall"]
                .as_f64()
                .expect("tau")
        );
    }
    assert_eq!(at(&records[0], "rank"), "1");
    assert!(!at(&records[0], "summary.kendall.lower").is_empty());
    assert_eq!(at(&records[2], "rank"), "");
    assert_eq!(at(&records[2], "summary.kendall.lower"), "");
    // `--csv table.tsv` writes the same rows with tabs between the fields (it wrote commas).
    let out_tsv = dir.path().join("table.tsv");
    evaluate_json(
        &features,
        (&set, "pyramid"),
        &[
            "--features",
            "*",
            "--bootstrap",
            "50",
            "--csv",
            path(&out_tsv),
        ],
        &dir.path().join("tsv.json"),
    );
    let tsv = std::fs::read_to_string(&out_tsv).expect("tsv");
    assert!(tsv.starts_with("set\trank\tfeature\t"), "{}", &tsv[..40]);
    assert_eq!(
        tsv.replace('\t', ","),
        std::fs::read_to_string(&out_csv).expect("csv")
    );
    let (from_jsonl, _) = evaluate_json(
        &features_jsonl,
        (&set, "pyramid"),
        &["--features", "sparse,reversed", "--bootstrap", "50"],
        &dir.path().join("jsonl.json"),
    );
    let jsonl_rows = from_jsonl["rows"].as_array().expect("rows");
    assert_eq!(jsonl_rows.len(), 2);
    for (a, b) in jsonl_rows.iter().zip([&rows[0], &rows[2]]) {
        for field in [
            "feature",
            "covers_the_set",
            "counts",
            "statistics",
            "estimates",
        ] {
            assert_eq!(a[field], b[field], "{field}");
        }
    }
}

/// A pattern that matches no column names the file and the pattern; a negated name says to
/// give the column; a predictions file is refused; `--features` with a flag of the
/// single-column report, or `--csv` without it, is a usage error; nothing is written.
#[test]
fn bad_patterns_and_flag_combinations_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = common::fixture("eval/set.jsonl");
    let json = dir.path().join("t.json");
    let with = |extra: &[&str]| on_the_fixture(&json, extra);
    let (code, e) = evaluate_error(&with(&["--features", "rouge.r1_f,content.*"]));
    assert_eq!(code, Some(1));
    assert!(
        e.contains("--features content.*")
            && e.contains("features.csv")
            && e.contains("rouge.r2_f"),
        "{e}"
    );
    let (_, e) = evaluate_error(&with(&["--features", "-rouge.r1_f"]));
    assert!(e.contains("give rouge.r1_f"), "{e}");
    let (_, e) = evaluate_error(&[
        path(&common::fixture("eval/predictions.jsonl")),
        "--features",
        "*",
        "--human",
        path(&set),
        "--target",
        "pyramid",
    ]);
    assert!(e.contains("predictions file"), "{e}");
    for extra in [
        &["--features", "*", "--feature", "rouge.r1_f"][..],
        &["--features", "*", "--plot", "x.svg"],
        &["--features", "*", "--compare", "x.csv"],
        &["--csv", "x.csv"],
    ] {
        let (code, e) = evaluate_error(&with(extra));
        assert_eq!(code, Some(2), "{extra:?}: {e}");
    }
    let (_, e) = evaluate_error(&with(&["--feature", "rouge.r1_f", "--csv", "x.csv"]));
    assert!(e.contains("--csv writes the table of --features"), "{e}");
    assert!(!json.exists());
}

/// Ctrl-C while the columns are evaluated: exit 130, "interrupted", and no `--json` or `--csv`
/// file (nor a temporary one) left behind.
#[test]
fn sigint_stops_between_columns_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let base = dir.path().join("base.csv");
    write_features(&set, "surface", &base);
    // Many columns (each a copy of the first feature column) for a run of some seconds.
    let text = std::fs::read_to_string(&base).expect("features");
    let mut wide = String::new();
    for (i, line) in text.lines().enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        wide.push_str(&cells[..2].join(","));
        for k in 0..400 {
            wide.push(',');
            if i == 0 {
                wide.push_str(&format!("f{k}"));
            } else {
                wide.push_str(cells[2]);
            }
        }
        wide.push('\n');
    }
    let features = dir.path().join("wide.csv");
    std::fs::write(&features, wide).expect("write");
    let (json, csv) = (dir.path().join("t.json"), dir.path().join("t.csv"));
    let args: Vec<String> = [
        "evaluate",
        path(&features),
        "--features",
        "*",
        "--human",
        path(&set),
        "--target",
        "relevance",
        "--bootstrap",
        "5000",
        "--json",
        path(&json),
        "--csv",
        path(&csv),
        "--progress",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, stderr) = crate::cli_verbs::interrupted_run(&args, "evaluate [")
        .expect("the run ended before the signal: it needs more columns");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let left = common::file_names(dir.path());
    assert_eq!(left, ["base.csv", "sample.jsonl", "wide.csv"]);
}

/// Ctrl-C while one column is evaluated (not `--features`), in its bootstrap: exit 130,
/// "interrupted", and no `--json` or `--plot` file nor a temporary one. The plain `evaluate`
/// used to install no handler, so the signal killed it and left the outputs' temporary files
/// (`.report.json.XXXXXX.tmp`) beside the destination.
#[test]
fn sigint_during_one_columns_bootstrap_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let features = dir.path().join("f.csv");
    write_features(&set, "surface", &features);
    let (json, plot) = (dir.path().join("report.json"), dir.path().join("plot.svg"));
    let args: Vec<String> = [
        "evaluate",
        path(&features),
        "--feature",
        "surface.summary_tokens",
        "--human",
        path(&set),
        "--target",
        "relevance",
        "--bootstrap",
        "1000000",
        "--json",
        path(&json),
        "--plot",
        path(&plot),
        "--progress",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, stderr) = crate::cli_verbs::interrupted_run(&args, "evaluating")
        .expect("1,000,000 bootstrap samples (the most taken; 38 s) ended before the signal");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted; no output written"),
        "{stderr}"
    );
    let left = common::file_names(dir.path());
    assert_eq!(left, ["f.csv", "sample.jsonl"]);
}

/// (topic, system, pyramid) of every summary of the fixture set `eval/set.jsonl`.
fn fixture_scores() -> Vec<(String, String, f64)> {
    std::fs::read_to_string(common::fixture("eval/set.jsonl"))
        .expect("set")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .flat_map(|l| {
            let topic: Value = serde_json::from_str(l).expect("topic");
            let id = topic["topic"].as_str().expect("id").to_string();
            topic["summaries"]
                .as_array()
                .expect("summaries")
                .iter()
                .map(|s| {
                    (
                        id.clone(),
                        s["system"].as_str().expect("system").to_string(),
                        s["scores"]["pyramid"].as_f64().expect("pyramid"),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A column's value from (row index, the summary's pyramid score); `None`: an empty cell.
type ColumnValue<'a> = &'a dyn Fn(usize, f64) -> Option<f64>;

/// A features CSV over the fixture's summaries, one column per (name, value).
fn write_columns(path: &Path, columns: &[(&str, ColumnValue)]) {
    let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
    let mut csv = format!("topic,system,{}\n", names.join(","));
    for (i, (topic, system, score)) in fixture_scores().iter().enumerate() {
        let cells: Vec<String> = columns
            .iter()
            .map(|(_, f)| f(i, *score).map_or(String::new(), |v| v.to_string()))
            .collect();
        csv.push_str(&format!("{topic},{system},{}\n", cells.join(",")));
    }
    std::fs::write(path, csv).expect("write features");
}

/// With `--also`, each set's table is the one `--features` gives it alone, and across the sets:
/// each column in every file that covers every set is read one way round on all of them (the way
/// its mean τ agrees), ranked by that mean with its worst set beside; for each set, the column
/// the other set ranks first, oriented by it, is scored there against the best in hindsight.
#[test]
fn several_sets_each_judged_alone_then_across_and_without_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (set_a, set_b) = (
        dir.path().join("alpha.jsonl"),
        dir.path().join("beta.jsonl"),
    );
    std::fs::copy(common::fixture("eval/set.jsonl"), &set_a).expect("copy");
    // beta: the same topic and system ids and scores, but other documents, so another corpus
    // (an identical file would be the same summaries, no other set for the choice below).
    let mut beta = aesop::corpus::jsonl::read_set(&set_a).expect("read");
    for topic in &mut beta {
        for document in &mut topic.documents {
            document.text.push_str(" It was reported again.");
        }
    }
    let file = std::fs::File::create(&set_b).expect("create");
    aesop::corpus::jsonl::write_set(std::io::BufWriter::new(file), &beta).expect("write");
    let noisy = |i: usize, _: f64| Some(((i * 7) % 5) as f64);
    let other_noise = |i: usize, _: f64| Some(((i * 3) % 4) as f64);
    // x: reversed on alpha, noise on beta; y: noise on alpha, the human score on beta;
    // z: the score on both; sparse: values in one topic only; only_a / only_b: one file each.
    let (fa, fb) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    let sparse = |i: usize, s: f64| (i < 4).then_some(s);
    write_columns(
        &fa,
        &[
            ("x", &|_, s| Some(-s)),
            ("y", &noisy),
            ("z", &|_, s| Some(s)),
            ("sparse", &sparse),
            ("only_a", &|_, s| Some(s)),
        ],
    );
    write_columns(
        &fb,
        &[
            ("only_b", &|_, s| Some(s)),
            ("z", &|_, s| Some(s)),
            ("y", &|_, s| Some(s)),
            ("x", &other_noise),
            ("sparse", &sparse),
        ],
    );
    let out_csv = dir.path().join("t.csv");
    let also = format!("{}={}:pyramid", fb.display(), set_b.display());
    let (report, stdout) = evaluate_json(
        &fa,
        (&set_a, "pyramid"),
        &[
            "--features",
            "*",
            "--bootstrap",
            "30",
            "--also",
            &also,
            "--csv",
            path(&out_csv),
        ],
        &dir.path().join("t.json"),
    );
    let sets = report["sets"].as_array().expect("sets");
    assert_eq!(sets.len(), 2);
    assert_eq!(sets[0]["set"], "alpha");
    assert_eq!(sets[1]["set"], "beta");
    // Each set's table equals its own run.
    for (table, (features, set)) in sets.iter().zip([(&fa, &set_a), (&fb, &set_b)]) {
        let (alone, _) = evaluate_json(
            features,
            (set, "pyramid"),
            &["--features", "*", "--bootstrap", "30"],
            &dir.path().join("alone.json"),
        );
        assert_eq!(table["rows"], alone["rows"], "{}", table["set"]);
    }
    // Raw (unoriented) summary τ of each column on each set, from the sets' own tables.
    let raw = |set: usize, column: &str| -> f64 {
        let row = sets[set]["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["column"] == column)
            .unwrap_or_else(|| panic!("{column}"));
        let tau = row["statistics"]["summary"]["kendall"]
            .as_f64()
            .expect("tau");
        if row["negated"] == true {
            -tau
        } else {
            tau
        }
    };
    assert_eq!(raw(0, "x"), -1.0);
    assert_eq!(raw(1, "y"), 1.0);
    let (x_b, y_a) = (raw(1, "x"), raw(0, "y"));
    assert!(x_b.abs() < 1.0 && y_a.abs() < 1.0, "{x_b} {y_a}");
    // x rises with beta's scores: read negated, as alpha says, it disagrees there, which a
    // choice oriented on the held-out set would hide.
    assert!(x_b > 0.0, "{x_b}");

    let across = &report["across"];
    assert_eq!(across["sets"], serde_json::json!(["alpha", "beta"]));
    assert_eq!(
        across["not_in_every_file"],
        serde_json::json!(["only_a", "only_b"])
    );
    assert_eq!(
        across["not_covering_every_set"],
        serde_json::json!(["sparse"])
    );
    let rows = across["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 3, "{across}");
    for (i, row) in rows.iter().enumerate() {
        let column = row["column"].as_str().expect("column");
        let raws = [raw(0, column), raw(1, column)];
        let negated = (raws[0] + raws[1]) / 2.0 < 0.0;
        assert_eq!(row["negated"], negated, "{row}");
        let sign = if negated { -1.0 } else { 1.0 };
        let taus: Vec<f64> = raws.iter().map(|t| sign * t).collect();
        assert_eq!(row["summary_kendall"], serde_json::json!(taus), "{row}");
        assert_eq!(row["mean"].as_f64(), Some((taus[0] + taus[1]) / 2.0));
        assert_eq!(row["worst"].as_f64(), Some(taus[0].min(taus[1])));
        assert_eq!(row["rank"], i + 1);
        if i > 0 {
            assert!(rows[i - 1]["mean"].as_f64() >= row["mean"].as_f64());
        }
    }
    assert_eq!(rows[0]["feature"], "z");
    // Without alpha, beta chooses y over z (both τ 1 there; y comes first in alpha's file),
    // scored on alpha as it reads; alpha's best in hindsight is -x (τ 1 read negated).
    let chosen = across["chosen_without_the_set"].as_array().expect("chosen");
    assert_eq!(chosen[0]["set"], "alpha");
    assert_eq!(chosen[0]["chosen"], "y");
    assert_eq!(chosen[0]["mean_on_the_others"].as_f64(), Some(1.0));
    assert_eq!(chosen[0]["summary_kendall"].as_f64(), Some(y_a));
    assert_eq!(chosen[0]["best_in_hindsight"], "-x");
    assert_eq!(chosen[0]["best_in_hindsight_kendall"].as_f64(), Some(1.0));
    // Without beta, alpha chooses -x (τ 1 there, read negated): scored on beta as -x.
    assert_eq!(chosen[1]["set"], "beta");
    assert_eq!(chosen[1]["chosen"], "-x");
    assert_eq!(chosen[1]["mean_on_the_others"].as_f64(), Some(1.0));
    assert_eq!(chosen[1]["summary_kendall"].as_f64(), Some(-x_b));
    assert_eq!(chosen[1]["best_in_hindsight"], "y");
    assert_eq!(chosen[1]["best_in_hindsight_kendall"].as_f64(), Some(1.0));
    assert!(stdout.contains("across 2 sets"), "{stdout}");
    assert!(stdout.contains("chosen without the set"), "{stdout}");
    // The CSV: every set's columns, each line naming its set.
    let mut reader = csv::Reader::from_path(&out_csv).expect("csv");
    let set_names: Vec<String> = reader
        .records()
        .map(|r| r.expect("record")[0].to_string())
        .collect();
    assert_eq!(set_names.iter().filter(|s| *s == "alpha").count(), 5);
    assert_eq!(set_names.iter().filter(|s| *s == "beta").count(), 5);
}

/// `--also` names its set: without `--features`, or malformed, it is a usage error; the same set
/// and column twice, or a pattern that matches nothing in its file, fails naming the file, and
/// nothing is written.
#[test]
fn also_sets_that_cannot_be_judged_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = common::fixture("eval/set.jsonl");
    let other = dir.path().join("other.csv");
    write_columns(&other, &[("z", &|_, s| Some(s))]);
    let json = dir.path().join("t.json");
    let with = |extra: &[&str]| on_the_fixture(&json, extra);
    let spec = format!("{}={}:pyramid", other.display(), set.display());
    let (code, _) = evaluate_error(&with(&["--also", &spec]));
    assert_eq!(code, Some(2));
    for bad in ["other.csv", "other.csv=set.jsonl", "=set.jsonl:pyramid"] {
        let (code, e) = evaluate_error(&with(&["--features", "*", "--also", bad]));
        assert_eq!(code, Some(2), "{bad}: {e}");
        assert!(e.contains("FEATURES=SET:COLUMN"), "{bad}: {e}");
    }
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&set, &copy).expect("copy");
    let on_copy = format!("{}={}:pyramid", other.display(), copy.display());
    let (code, e) = evaluate_error(&with(&["--features", "z", "--also", &on_copy]));
    assert_eq!(code, Some(1));
    // The positional file has no column z: the error names it.
    assert!(
        e.contains("--features z") && e.contains("features.csv"),
        "{e}"
    );
    let (_, e) = evaluate_error(&with(&["--features", "rouge.*", "--also", &on_copy]));
    assert!(
        e.contains("--features rouge.*") && e.contains("other.csv"),
        "{e}"
    );
    let (_, e) = evaluate_error(&with(&[
        "--features",
        "*",
        "--also",
        &format!("{}={}:pyramid", other.display(), set.display()),
    ]));
    assert!(e.contains("given twice"), "{e}");
    assert!(!json.exists());
}

#[test]
fn a_features_file_gives_one_table_as_csv_or_json_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let (csv, jsonl) = (dir.path().join("f.csv"), dir.path().join("f.jsonl"));
    write_features(&set, "content,surface", &csv);
    write_features(&set, "content,surface", &jsonl);
    // Each line's fields in the CSV's column order: `topic`, `system`, then the classes' order
    // (they came sorted, `content.cosine_tfidf` first and `topic` among the features).
    let text = std::fs::read_to_string(&jsonl).expect("f.jsonl");
    let first = text.lines().next().expect("a line");
    let header: Vec<String> = std::fs::read_to_string(&csv)
        .expect("f.csv")
        .lines()
        .next()
        .expect("header")
        .split(',')
        .map(|name| format!("\"{name}\":"))
        .collect();
    let mut at = 0;
    for key in &header {
        let found = first[at..]
            .find(key.as_str())
            .unwrap_or_else(|| panic!("{key} after byte {at} of {first}"));
        at += found + key.len();
    }
    assert!(first.starts_with("{\"topic\":"), "{first}");
    // surface.summary_tokens and -surface.compression tie at the summary level; equal columns
    // are ranked in file order, which both files now give alike.
    let judge = |features: &Path, json: &str| {
        let (mut table, _) = evaluate_json(
            features,
            (&set, "relevance"),
            &["--features", "*", "--bootstrap", "50"],
            &dir.path().join(json),
        );
        let map = table.as_object_mut().expect("object");
        for field in ["features_file", "inputs"] {
            map.remove(field);
        }
        table
    };
    let from_csv = judge(&csv, "csv.json");
    let rows = from_csv["rows"].as_array().expect("rows");
    let position = |feature: &str| {
        rows.iter()
            .position(|r| r["feature"] == feature)
            .unwrap_or_else(|| panic!("no row {feature}"))
    };
    let (tokens, compression) = (
        position("surface.summary_tokens"),
        position("-surface.compression"),
    );
    let tau = |row: usize| rows[row]["statistics"]["summary"]["kendall"].as_f64();
    assert_eq!(tau(tokens), tau(compression));
    assert!(tokens < compression, "{rows:?}");
    assert_eq!(judge(&jsonl, "jsonl.json"), from_csv);
}

/// The table warns, as one column's report does, when the features file and the human scores
/// each hold rows the other lacks, naming the ids that differ only in case or spaces; in the
/// JSON report's `warnings` and on standard error. The fixture as it is gets no such warning.
#[test]
fn rows_each_file_lacks_are_warned_of_in_the_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("table.json");
    let (report, _) = evaluate_json(
        &common::fixture("eval/features.csv"),
        (&common::fixture("eval/set.jsonl"), "pyramid"),
        &["--features", "*", "--bootstrap", "0"],
        &json,
    );
    assert_eq!(report["warnings"], serde_json::json!([]));
    let text = std::fs::read_to_string(common::fixture("eval/features.csv")).expect("fixture");
    let edited = text.replacen("T1,B,", "t1,B ,", 1);
    assert_ne!(edited, text);
    let features = dir.path().join("features.csv");
    std::fs::write(&features, edited).expect("write");
    let out = common::aesop()
        .arg("evaluate")
        .arg(&features)
        .args(["--human", path(&common::fixture("eval/set.jsonl"))])
        .args(["--target", "pyramid", "--features", "*", "--bootstrap", "0"])
        .arg("--json")
        .arg(&json)
        .output()
        .expect("evaluate");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let report: Value = common::read_json(&json);
    let warnings = report["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = warnings[0].as_str().expect("text");
    assert!(
        warning.starts_with("1 rows of ")
            && warning.contains("features.csv have no human score and 1 of ")
            && warning.contains("the figures are over the 11 rows both hold")
            && warning.contains("e.g. (\"t1\", \"B \") against (\"T1\", \"B\")"),
        "{warning}"
    );
    assert!(stderr.contains(&format!("warning: {warning}")), "{stderr}");
}
