//! `cross-validate --leave-one-set-out` and protocol 1's reports end to end: every held-out set,
//! fold flags checked, errors naming what had nothing to learn, `evaluate` on one held-out set's
//! lines.

use super::*;

/// `cross-validate --leave-one-set-out` end to end: one table row per held-out set, each
/// trained on the other sets only; without bootstrap samples the intervals, the paired test and
/// an undefined MAE print as `—`, never `NaN`; the JSON report carries the same sets.
#[test]
fn leave_one_set_out_reports_every_held_out_set_without_nan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths: Vec<_> = ["a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let path = dir.path().join(format!("{name}.jsonl"));
            write_set(&path, 4 + i, 1.0 + i as f64);
            path
        })
        .collect();
    let report = dir.path().join("loso.json");
    let mut cmd = common::aesop();
    cmd.arg("cross-validate");
    for p in &paths {
        cmd.arg("--set").arg(format!("{}:quality", p.display()));
    }
    let out = cmd
        .args(["--classes", "surface", "--c", "0.01", "--leave-one-set-out"])
        .args(["--bootstrap", "0", "-o"])
        .arg(dir.path().join("oof.jsonl"))
        .arg("--report")
        .arg(&report)
        .output()
        .expect("cross-validate");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("protocol 2 (leave one set out"), "{stdout}");
    assert!(!stdout.contains("NaN"), "{stdout}");
    assert!(stdout.contains("[—, —]"), "{stdout}");
    for name in ["a.jsonl:quality", "b.jsonl:quality", "c.jsonl:quality"] {
        assert_eq!(
            stdout
                .lines()
                .filter(|l| l.starts_with(&format!("| {name} |")))
                .count(),
            1,
            "{name}: {stdout}"
        );
    }
    let json: serde_json::Value = common::read_json(&report);
    let held = json["leave_one_set_out"].as_array().expect("held-out sets");
    assert_eq!(held.len(), 3);
    assert!(
        json.get("statistics").is_none(),
        "protocol 2 reports per held-out set"
    );
    // What reproduces the intervals (audit stop 53: the sample count was not recorded) and
    // which data they measured.
    assert_eq!(json["bootstrap"], 0, "{json}");
    let hashes = json["set_hashes"].as_array().expect("set_hashes");
    assert_eq!(hashes.len(), 3);
    assert!(hashes[0].as_str().is_some_and(|h| h.len() == 16), "{json}");
    assert!(json["written_by"]
        .as_str()
        .is_some_and(|w| w.starts_with("aesop ")));
    for h in held {
        let trained_on = h["trained_on"].as_array().expect("trained_on");
        assert_eq!(trained_on.len(), 2, "{h}");
        assert!(
            !trained_on.iter().any(|t| t
                .as_str()
                .expect("name")
                .starts_with(&format!("{}:", h["set"].as_str().expect("set")))),
            "{h}: trained on its own held-out set"
        );
        // Summary length orders every topic's summaries exactly as `quality` does.
        let tau = h["model"]["summary_kendall"]["value"]
            .as_f64()
            .expect("tau");
        assert!(tau > 0.9, "{h}");
    }
    // The report's own τ are the means over the held-out sets (audit stop 54: they were pooled
    // over every held-out row, so the system level compared three models' raw scales).
    for (field, statistic) in [
        ("summary_kendall_tau", "summary_kendall"),
        ("system_kendall_tau", "system_kendall"),
    ] {
        let mean = held
            .iter()
            .map(|h| h["model"][statistic]["value"].as_f64().expect("value"))
            .sum::<f64>()
            / held.len() as f64;
        let reported = json[field].as_f64().expect(field);
        assert!(
            (reported - mean).abs() < 1e-12,
            "{field}: {reported} vs {mean}"
        );
    }
    let mean_row = stdout
        .lines()
        .find(|l| l.starts_with("| mean over held-out sets |"))
        .unwrap_or_else(|| panic!("no mean row: {stdout}"));
    assert!(
        mean_row.contains(&format!(
            "| {:.3} |",
            json["summary_kendall_tau"].as_f64().expect("tau")
        )),
        "{mean_row}"
    );
}

/// Protocol 1's report carries every statistic of `aesop evaluate` on its own out-of-fold
/// file (Pearson, Spearman, the pairwise accuracies with the model's ties), equal to what
/// `evaluate` computes from that file, and its τ-b fields agree with them.
#[test]
fn protocol_one_report_has_evaluates_statistics_of_its_out_of_fold_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    write_set(&set, 10, 1.0);
    let (oof, report) = (dir.path().join("oof.jsonl"), dir.path().join("r.json"));
    let out = common::aesop()
        .arg("cross-validate")
        .arg(&set)
        .args([
            "--target",
            "quality",
            "--classes",
            "surface",
            "--c",
            "0.01",
            "-o",
        ])
        .arg(&oof)
        .arg("--report")
        .arg(&report)
        .output()
        .expect("cross-validate");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("summary-level Pearson r"), "{stdout}");
    assert!(stdout.contains("input-level pairwise accuracy"), "{stdout}");
    assert!(
        stdout.contains("input-level accuracy with ties"),
        "{stdout}"
    );
    let json: serde_json::Value = common::read_json(&report);
    let stats = &json["statistics"];
    let number = |v: &serde_json::Value| v.as_f64().expect("number");
    common::assert_within(
        number(&stats["summary"]["kendall"]),
        number(&json["summary_kendall_tau"]),
        1e-12,
    );
    common::assert_within(
        number(&stats["system"]["kendall"]),
        number(&json["system_kendall_tau"]),
        1e-12,
    );
    let input = &stats["input_pairwise"];
    let pairs = input["pairs"].as_u64().expect("pairs");
    assert!(pairs > 0 && input["correct"].as_u64().expect("correct") <= pairs);

    let evaluated = dir.path().join("e.json");
    let run = common::aesop()
        .arg("evaluate")
        .arg(&oof)
        .arg("--human")
        .arg(&set)
        .args(["--target", "quality", "--bootstrap", "0", "--json"])
        .arg(&evaluated)
        .output()
        .expect("evaluate");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let evaluated: serde_json::Value = common::read_json(&evaluated);
    let theirs = &evaluated["statistics"];
    for (level, statistic) in [
        ("summary", "pearson"),
        ("summary", "spearman"),
        ("summary", "kendall"),
        ("system", "pearson"),
        ("system_pairwise", "accuracy"),
        ("input_pairwise", "accuracy"),
        ("input_tie_calibrated", "accuracy"),
        ("input_tie_calibrated", "epsilon"),
    ] {
        common::assert_within(
            number(&stats[level][statistic]),
            number(&theirs[level][statistic]),
            1e-12,
        );
    }
    assert_eq!(
        input["metric_ties"],
        theirs["input_pairwise"]["metric_ties"]
    );
}

/// Fold flags say what runs: more folds than topics use one per topic and the report says so
/// (it gave the number asked for); protocol 1's folds beside --leave-one-set-out, and a stacked
/// model's inner split without --stack, are refused (they were accepted and ignored).
#[test]
fn fold_flags_are_checked_and_reported_as_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let report = dir.path().join("report.json");
    let cv = || {
        let mut command = common::aesop();
        command
            .arg("cross-validate")
            .arg(&sample)
            .args([
                "--target",
                "relevance",
                "--classes",
                "surface",
                "--c",
                "0.01",
            ])
            .args(["--bootstrap", "0", "-o"])
            .arg(dir.path().join("oof.jsonl"))
            .arg("--report")
            .arg(&report);
        command
    };
    let out = cv()
        .args(["--topic-folds", "50"])
        .output()
        .expect("cross-validate");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("50×4 folds asked for, 10×4 used"));
    let json: serde_json::Value = common::read_json(&report);
    assert_eq!(
        (&json["topic_folds"], &json["system_folds"]),
        (&10.into(), &4.into())
    );
    // The report records what reproduces it: hyper-parameters, columns, options.
    assert_eq!(json["hyper"], "c 0.01");
    assert_eq!(
        json["feature_names"].as_array().map(Vec::len),
        json["features"].as_u64().map(|n| n as usize)
    );
    assert_eq!(json["feature_options_changed"], serde_json::json!({}));

    let set = format!("{}:relevance", sample.display());
    let out = common::aesop()
        .arg("cross-validate")
        .args([
            "--set",
            &set,
            "--set",
            &set.replace("relevance", "coherence"),
        ])
        .args([
            "--target",
            "relevance",
            "--leave-one-set-out",
            "--topic-folds",
            "3",
            "-o",
        ])
        .arg(dir.path().join("loso.jsonl"))
        .output()
        .expect("cross-validate");
    // A usage error (exit 2), as in `ablate`.
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--topic-folds and --system-folds are protocol 1's"));

    let out = cv()
        .args(["--stack-topic-folds", "2"])
        .output()
        .expect("cross-validate");
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --stack too"));
}

/// "Nothing to learn" errors say which training data had nothing: a protocol-1 cell (two
/// systems in two system folds leave one system to train on) or the sets left when one is held
/// out. They read as if the set itself had no pairs.
#[test]
fn nothing_to_learn_names_the_cell_or_the_held_out_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let two = dir.path().join("two.jsonl");
    write_set(&two, 4, 1.0);
    let mut set = jsonl::read_set(&two).expect("read");
    for t in &mut set {
        t.summaries.truncate(2);
    }
    jsonl::write_set(
        std::io::BufWriter::new(std::fs::File::create(&two).expect("create")),
        &set,
    )
    .expect("write");
    let flat = dir.path().join("flat.jsonl");
    for t in &mut set {
        for s in &mut t.summaries {
            s.scores.insert("quality".into(), 3.0);
        }
    }
    jsonl::write_set(
        std::io::BufWriter::new(std::fs::File::create(&flat).expect("create")),
        &set,
    )
    .expect("write");
    let a = dir.path().join("a.jsonl");
    write_set(&a, 4, 1.0);

    let out = common::aesop()
        .arg("cross-validate")
        .arg(&two)
        .args(["--target", "quality", "--classes", "surface", "-o"])
        .arg(dir.path().join("o.jsonl"))
        .output()
        .expect("cross-validate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("protocol-1 cell (topic fold 1, system fold 1), trained on")
            && stderr.contains("no topic has two summaries with different scores"),
        "{stderr}"
    );
    let out = common::aesop()
        .arg("cross-validate")
        .arg("--set")
        .arg(format!("{}:quality", a.display()))
        .arg("--set")
        .arg(format!("{}:quality", flat.display()))
        .args(["--classes", "surface", "--leave-one-set-out", "-o"])
        .arg(dir.path().join("l.jsonl"))
        .output()
        .expect("cross-validate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "training on every set but {}:quality (to score it held out)",
            a.display()
        )),
        "{stderr}"
    );
}

/// `ablate --leave-one-set-out` took fold flags and ignored them; a usage error now (exit 2),
/// before any set is read.
#[test]
fn ablate_refuses_fold_flags_under_leave_one_set_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    write_set(&a, 4, 1.0);
    write_set(&b, 4, 2.0);
    let out = common::aesop()
        .arg("ablate")
        .arg("--set")
        .arg(format!("{}:quality", a.display()))
        .arg("--set")
        .arg(format!("{}:quality", b.display()))
        .args(["--classes", "surface,content", "--leave-one-set-out"])
        .args(["--topic-folds", "3", "-o"])
        .arg(dir.path().join("ab.md"))
        .output()
        .expect("ablate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--topic-folds and --system-folds are protocol 1's"),
        "{stderr}"
    );
    assert!(!dir.path().join("ab.md").exists());
}

/// `evaluate` reads protocol 2's predictions file as written: the lines of the --human file's
/// set (the file holds every held-out set), and with `--predicted` the lines of a model whose
/// target is not the held-out set's column (audit stop 54: a responsiveness model's lines for
/// REALSumm could not be judged against its pyramid column).
#[test]
fn evaluate_reads_the_held_out_lines_of_one_set_of_a_leave_one_set_out_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = common::aesop();
    cmd.arg("cross-validate");
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let path = dir.path().join(format!("{name}.jsonl"));
        write_set(&path, 4 + i, 1.0 + i as f64);
        cmd.arg("--set").arg(format!("{}:quality", path.display()));
    }
    let oof = dir.path().join("oof.jsonl");
    let report = dir.path().join("loso.json");
    cmd.args(["--target", "responsiveness", "--classes", "surface"])
        .args([
            "--c",
            "0.01",
            "--leave-one-set-out",
            "--bootstrap",
            "0",
            "-o",
        ])
        .arg(&oof)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let json: serde_json::Value = common::read_json(&report);
    let held_b = json["leave_one_set_out"]
        .as_array()
        .expect("held-out sets")
        .iter()
        .find(|h| h["set"] == "b.jsonl")
        .expect("b held out")
        .clone();

    let evaluate = |extra: &[&str]| {
        let out = common::aesop()
            .arg("evaluate")
            .arg(&oof)
            .arg("--human")
            .arg(dir.path().join("b.jsonl"))
            .args(["--target", "quality", "--bootstrap", "0"])
            .args(extra)
            .output()
            .expect("evaluate");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, _, stderr) = evaluate(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("no prediction for target 'quality' (targets in the file: responsiveness; --predicted TARGET"),
        "{stderr}"
    );
    let (code, stdout, stderr) = evaluate(&["--predicted", "responsiveness"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("[set b.jsonl] [predicts responsiveness]"),
        "{stdout}"
    );
    // b's 5 topics of 5 summaries only, not the 35 rows of the three sets.
    assert!(
        stdout.contains("rows: 25 matched (25 metric, 25 human;"),
        "{stdout}"
    );
    let tau = format!(
        "{:.3}",
        held_b["model"]["summary_kendall"]["value"]
            .as_f64()
            .expect("tau")
    );
    let summary_line = stdout
        .lines()
        .find(|l| l.starts_with("summary"))
        .expect("summary row");
    assert!(summary_line.contains(&tau), "{summary_line} vs {tau}");

    let (code, _, stderr) = evaluate(&["--predicted", "responsiveness", "--set", "d.jsonl"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("no line of set 'd.jsonl' (sets in the file: a.jsonl, b.jsonl, c.jsonl); choose one with --set NAME"),
        "{stderr}"
    );
}

/// A set whose topics hold summaries of near-equal length (word counts 8, 8, 9, 16, 17, 24)
/// that the humans do not order by length.
fn write_set_with_matched_lengths(path: &Path, topics: usize) {
    let words = "the council approved the new budget for schools and roads after a long debate \
                 on taxes while residents asked for more parks and playgrounds near the river";
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let lengths = [8, 8, 9, 16, 17, 24];
    let quality = [2.0, 4.0, 3.0, 5.0, 1.0, 6.0];
    let mut set = Vec::new();
    for t in 0..topics {
        let mut topic = Topic::new(format!("{stem}-t{t}"));
        topic.documents.push(Document::new(
            "d",
            format!("{words}. {words} in topic {t}."),
        ));
        topic.references.push(Reference::new("r", words));
        for (s, (&n, &q)) in lengths.iter().zip(&quality).enumerate() {
            let text: Vec<&str> = words.split(' ').skip(t % 3).take(n).collect();
            let mut summary = Summary::new(format!("sys{s}"), text.join(" "));
            // Topics differ a little, so that no two topics rank the systems alike.
            let q = if t % 2 == 1 && s < 2 { 6.0 - q } else { q };
            summary.scores.insert("quality".into(), q);
            topic.summaries.push(summary);
        }
        set.push(topic);
    }
    let file = std::fs::File::create(path).expect("create set");
    jsonl::write_set(std::io::BufWriter::new(file), &set).expect("write set");
}

/// Protocol 2 and protocol 1 judge their predictions at matched length as `aesop evaluate`
/// does from the same lines and texts (`input.length_matched_accuracy`, the pairs within 10% in
/// words, and what length alone orders): the counts come from the sets' own summaries.
#[test]
fn held_out_sets_are_judged_at_matched_length_as_evaluate_judges_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = common::aesop();
    cmd.arg("cross-validate");
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let path = dir.path().join(format!("{name}.jsonl"));
        write_set_with_matched_lengths(&path, 4 + i);
        cmd.arg("--set").arg(format!("{}:quality", path.display()));
    }
    let (oof, report) = (dir.path().join("oof.jsonl"), dir.path().join("loso.json"));
    let out = cmd
        .args(["--classes", "surface,content", "--c", "0.01"])
        .args(["--leave-one-set-out", "--bootstrap", "0", "-o"])
        .arg(&oof)
        .arg("--report")
        .arg(&report)
        .output()
        .expect("cross-validate");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("| matched-length acc. |"), "{stdout}");
    let json: serde_json::Value = common::read_json(&report);
    let evaluated = |set: &str, file: &Path, extra: &[&str]| -> serde_json::Value {
        let path = dir.path().join(format!("{set}.eval.json"));
        common::aesop()
            .arg("evaluate")
            .arg(file)
            .arg("--human")
            .arg(dir.path().join(format!("{set}.jsonl")))
            .args(["--target", "quality", "--bootstrap", "0", "--json"])
            .arg(&path)
            .args(extra)
            .assert()
            .success();
        common::read_json(&path)
    };
    let number = |v: &serde_json::Value| v.as_f64().expect("number");
    for name in ["a", "b", "c"] {
        let held = json["leave_one_set_out"]
            .as_array()
            .expect("held-out sets")
            .iter()
            .find(|h| h["set"] == format!("{name}.jsonl"))
            .expect("held out")
            .clone();
        let theirs = evaluated(name, &oof, &[]);
        let matched = &theirs["statistics"]["input_length_matched"];
        // (8, 8) and (16, 17) in every topic; (8, 9) and (9, 8) are 11% apart.
        let topics = 4 + ["a", "b", "c"].iter().position(|n| *n == name).unwrap_or(0);
        assert_eq!(
            matched["pairs"].as_u64(),
            Some(2 * topics as u64),
            "{theirs}"
        );
        let accuracy = number(&held["model"]["input_length_matched_accuracy"]["value"]);
        common::assert_within(accuracy, number(&matched["accuracy"]), 1e-12);
        for part in ["all", "matched"] {
            common::assert_within(
                number(&held["length_alone"][part]["accuracy"]),
                number(&theirs["length_alone"][part]["accuracy"]),
                1e-12,
            );
        }
        // Length alone ties (8, 8), which counts as wrong, and prefers the 17-word summary the
        // humans put last: it orders no matched pair.
        assert_eq!(
            number(&held["length_alone"]["matched"]["accuracy"]),
            0.0,
            "{held}"
        );
    }

    // Protocol 1 on one set: the report's statistics, from the same texts.
    let report1 = dir.path().join("p1.json");
    let oof1 = dir.path().join("oof1.jsonl");
    common::aesop()
        .arg("cross-validate")
        .arg(dir.path().join("c.jsonl"))
        .args(["--target", "quality", "--classes", "surface,content"])
        .args([
            "--c",
            "0.01",
            "--topic-folds",
            "2",
            "--system-folds",
            "2",
            "-o",
        ])
        .arg(&oof1)
        .arg("--report")
        .arg(&report1)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "input-level accuracy at matched length",
        ));
    let ours: serde_json::Value = common::read_json(&report1);
    let theirs = evaluated("c", &oof1, &[]);
    let (a, b) = (
        &ours["statistics"]["input_length_matched"],
        &theirs["statistics"]["input_length_matched"],
    );
    assert_eq!(a["pairs"], b["pairs"]);
    assert_eq!(a["pairs"].as_u64(), Some(12));
    common::assert_within(number(&a["accuracy"]), number(&b["accuracy"]), 1e-12);

    // --length-tolerance as `evaluate`'s: at 0 only equal counts, the (8, 8) pair of each topic.
    let strict = dir.path().join("strict.json");
    let out = common::aesop()
        .arg("cross-validate")
        .args([
            "--set",
            &format!("{}:quality", dir.path().join("a.jsonl").display()),
        ])
        .args([
            "--set",
            &format!("{}:quality", dir.path().join("b.jsonl").display()),
        ])
        .args([
            "--classes",
            "surface,content",
            "--c",
            "0.01",
            "--length-tolerance",
            "0",
        ])
        .args(["--leave-one-set-out", "--bootstrap", "0", "-o"])
        .arg(dir.path().join("strict.jsonl"))
        .arg("--report")
        .arg(&strict)
        .output()
        .expect("cross-validate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("matched length: word counts within 0%"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let strict: serde_json::Value = common::read_json(&strict);
    assert_eq!(strict["length_tolerance"], 0.0);
    let held_a = &strict["leave_one_set_out"][0];
    assert_eq!(held_a["set"], "a.jsonl");
    let theirs = evaluated(
        "a",
        &dir.path().join("strict.jsonl"),
        &["--length-tolerance", "0"],
    );
    assert_eq!(theirs["statistics"]["input_length_matched"]["pairs"], 4);
    common::assert_within(
        number(&held_a["model"]["input_length_matched_accuracy"]["value"]),
        number(&theirs["statistics"]["input_length_matched"]["accuracy"]),
        1e-12,
    );
    // Out of range: a usage error naming the flag, for both verbs.
    for verb in ["cross-validate", "ablate"] {
        let out = common::aesop()
            .arg(verb)
            .arg(dir.path().join("c.jsonl"))
            .args(["--target", "quality", "--classes", "surface,content"])
            .args(["--length-tolerance", "1.5", "-o"])
            .arg(dir.path().join("never.out"))
            .output()
            .expect(verb);
        assert_eq!(out.status.code(), Some(2), "{verb}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--length-tolerance must be between 0 and 1") && stderr.contains("1.5"),
            "{verb}: {stderr}"
        );
        assert!(!dir.path().join("never.out").exists());
    }
}

/// Protocol 2 scores each held-out set as the model `train` saves would score it: the held-out
/// set's summaries, longer than any the other sets hold, have their features clamped into the
/// training sets' ranges (model format 5) before the model sees them. Until 2026-12-02
/// `cross-validate` predicted from the unclamped features, so its held-out figures were not
/// those of the saved model. The report names the held-out set's features outside the
/// training ranges, as `aesop score` names them for the saved model.
#[test]
fn held_out_predictions_are_those_of_the_saved_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    write_set(&a, 5, 1.0);
    write_set(&b, 4, 2.0);
    // Summaries of 20-63 words, where the training sets' run from 3 to 13.
    let long = dir.path().join("long.jsonl");
    write_set_with(&long, 4, |s, t| (20 + 10 * s + t, (s + t % 2) as f64));

    let learn = [
        "--classes",
        "surface",
        "--c",
        "0.01",
        "--learner",
        "rank-svm",
    ];
    let oof = dir.path().join("oof.jsonl");
    let report = dir.path().join("report.json");
    let mut cmd = common::aesop();
    cmd.arg("cross-validate");
    for p in [&a, &b, &long] {
        cmd.arg("--set").arg(format!("{}:quality", p.display()));
    }
    let table = cmd
        .args(learn)
        .args(["--leave-one-set-out", "--bootstrap", "0", "-o"])
        .arg(&oof)
        .arg("--report")
        .arg(&report)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).expect("UTF-8 table");
    let model = dir.path().join("m.aesop");
    common::aesop()
        .arg("train")
        .arg("--set")
        .arg(format!("{}:quality", a.display()))
        .arg("--set")
        .arg(format!("{}:quality", b.display()))
        .args(learn)
        .arg("-o")
        .arg(&model)
        .assert()
        .success();
    let scored = dir.path().join("scored.jsonl");
    let warnings = common::aesop()
        .arg("score")
        .arg(&long)
        .arg("--model")
        .arg(&model)
        .arg("-o")
        .arg(&scored)
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    let warnings = String::from_utf8(warnings).expect("UTF-8 stderr");

    // The held-out set's features outside the training range: in the report and the table,
    // the features `aesop score` names in its warning about the saved model, with the same counts.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    let held = report["leave_one_set_out"]
        .as_array()
        .expect("held-out sets")
        .iter()
        .find(|h| h["set"] == "long.jsonl")
        .expect("long.jsonl held out");
    let outside = held["outside_training_range"].as_array().expect("a list");
    assert!(!outside.is_empty(), "{held}");
    let named: Vec<String> = outside
        .iter()
        .map(|o| {
            let (below, above) = (
                o["below"].as_u64().expect("n"),
                o["above"].as_u64().expect("n"),
            );
            let side = match (below > 0, above > 0) {
                (true, false) => "below",
                (false, true) => "above",
                _ => "below and above",
            };
            let share = o["share"].as_f64().expect("share");
            assert!((share - (below + above) as f64 / 20.0).abs() < 1e-12, "{o}");
            format!(
                "{} {side} it for {} ({:.0}%)",
                o["feature"].as_str().expect("name"),
                below + above,
                100.0 * share
            )
        })
        .collect();
    assert!(
        warnings.contains("of the 20 scored summaries") && warnings.contains(&named[0]),
        "the report names {named:?}; aesop score warned: {warnings}"
    );
    for n in named.iter().take(3) {
        assert!(warnings.contains(n.as_str()), "{n} not in: {warnings}");
    }
    if named.len() > 3 {
        assert!(
            warnings.contains(&format!("{} more", named.len() - 3)),
            "{warnings}"
        );
    }
    let line = table
        .lines()
        .find(|l| l.starts_with("- long.jsonl:quality: "))
        .unwrap_or_else(|| panic!("no line for long.jsonl in: {table}"));
    assert!(line.contains(&named[0]), "{line}");

    let raw_of = |path: &Path, set: Option<&str>| -> Vec<(String, String, f64)> {
        let mut rows: Vec<(String, String, f64)> = std::fs::read_to_string(path)
            .expect("predictions")
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("line"))
            .filter(|v| set.is_none_or(|s| v["set"] == s))
            .map(|v| {
                let text = |k: &str| v[k].as_str().expect("string").to_string();
                (
                    text("topic"),
                    text("system"),
                    v["raw"].as_f64().expect("raw"),
                )
            })
            .collect();
        rows.sort_by(|x, y| (&x.0, &x.1).cmp(&(&y.0, &y.1)));
        rows
    };
    let held_out = raw_of(&oof, Some("long.jsonl"));
    let saved = raw_of(&scored, None);
    assert_eq!(held_out.len(), 20);
    assert_eq!(held_out.len(), saved.len());
    for (h, s) in held_out.iter().zip(&saved) {
        assert_eq!((&h.0, &h.1), (&s.0, &s.1));
        assert!(
            (h.2 - s.2).abs() <= 1e-9 * (1.0 + s.2.abs()),
            "{} {}: held out {} but the saved model scores {}",
            h.0,
            h.1,
            h.2,
            s.2
        );
    }
}
