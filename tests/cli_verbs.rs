//! Issue 14, verbs end to end: Ctrl-C in `cross-validate` (protocols 1 and 2) and `ablate` (exit
//! 130, no output),
//! one `--progress` for every long verb, `--classes` naming a class that `--no-references` would
//! drop, `evaluate` of a built-in on its own training set, and `score` with a model whose scores
//! depend on the batch (docs/ROBUSTNESS.md); a set read from standard input (`score -`,
//! `features -`) and refused by the verbs that record their inputs' content hashes.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The shipped SummEval sample (10 topics, 16 systems) imported into `dir` as `name`.
pub(crate) fn imported_sample(dir: &Path, name: &str) -> PathBuf {
    let set = dir.join(name);
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/summeval-sample.jsonl");
    common::aesop()
        .args(["import", "summeval"])
        .arg(&sample)
        .arg("-o")
        .arg(&set)
        .assert()
        .success();
    set
}

/// Topics `range` of the set at `set` (its non-blank lines, in order), written to `dir/name`.
fn topics_of(set: &Path, range: std::ops::Range<usize>, dir: &Path, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(set).expect("set");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let path = dir.join(name);
    std::fs::write(&path, lines[range].join("\n") + "\n").expect("write");
    path
}

/// The human scores `column` of the set at `set` as a table (`topic,system,COLUMN`, no texts),
/// written to `path`.
fn human_table(set: &Path, column: &str, path: &Path) -> PathBuf {
    let mut csv = format!("topic,system,{column}\n");
    let text = std::fs::read_to_string(set).expect("set");
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let topic: serde_json::Value = serde_json::from_str(line).expect("topic");
        for s in topic["summaries"].as_array().expect("summaries") {
            csv.push_str(&format!(
                "{},{},{}\n",
                topic["topic"].as_str().expect("id"),
                s["system"].as_str().expect("system"),
                s["scores"][column]
            ));
        }
    }
    std::fs::write(path, csv).expect("write");
    path.to_path_buf()
}

/// `copies` copies of every topic of `set` (topic ids made unique), written to `dir/big.jsonl`.
fn repeated(set: &Path, dir: &Path, copies: usize) -> PathBuf {
    let text = std::fs::read_to_string(set).expect("set");
    let mut out = String::new();
    for k in 0..copies {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut topic: serde_json::Value = serde_json::from_str(line).expect("topic");
            let id = topic["topic"].as_str().expect("id").to_string();
            topic["topic"] = serde_json::Value::String(format!("{id}-{k}"));
            out.push_str(&topic.to_string());
            out.push('\n');
        }
    }
    let big = dir.join("big.jsonl");
    std::fs::write(&big, out).expect("write");
    big
}

/// Runs aesop with `args`, sends SIGINT once a standard-error line contains `marker`, and
/// returns (exit code, standard error); `None` when the run ended before the signal could be
/// sent (too little work: the caller retries with more).
pub(crate) fn interrupted_run(args: &[String], marker: &str) -> Option<(Option<i32>, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_aesop"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aesop");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let mut signalled = false;
    loop {
        match rx.recv_timeout(Duration::from_secs(600)) {
            Ok(line) => {
                let hit = line.contains(marker);
                seen.push(line);
                if hit {
                    // Still running? Then signal it; if it has just ended, there is no test.
                    if child.try_wait().expect("try_wait").is_some() {
                        break;
                    }
                    let status = Command::new("kill")
                        .args(["-INT", &child.id().to_string()])
                        .status()
                        .expect("kill");
                    signalled = status.success();
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!("no '{marker}' on standard error in 600 s: {seen:?}");
            }
        }
    }
    let status = child.wait().expect("wait");
    reader.join().expect("reader");
    seen.extend(rx.try_iter());
    let stderr = seen.join("\n");
    if !signalled {
        assert!(
            status.success(),
            "{args:?} failed before it could be signalled:\n{stderr}"
        );
        return None;
    }
    if status.success() {
        // The signal came as it was writing its output: too late to count.
        return None;
    }
    Some((status.code(), stderr))
}

/// Runs `verb` (with `extra` arguments, `--progress` and `-o output`) on ever larger copies of the sample until the
/// signal lands during the run; then exit 130, the interruption message and no output (nor any
/// temporary file) in the directory.
fn assert_interrupt_leaves_nothing(verb: &str, output: &str, marker: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().expect("dir");
    let sample = imported_sample(dir.path(), "sample.jsonl");
    for copies in [4, 16, 64] {
        let big = repeated(&sample, dir.path(), copies);
        let output = dir.path().join(output);
        let mut args: Vec<String> = vec![verb.into(), big.display().to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend([
            "--progress".into(),
            "-o".into(),
            output.display().to_string(),
        ]);
        let Some((code, stderr)) = interrupted_run(&args, marker) else {
            let _ = std::fs::remove_file(&output);
            continue;
        };
        assert_eq!(
            code,
            Some(130),
            "{verb}: exit code after SIGINT; stderr:\n{stderr}"
        );
        assert!(stderr.contains("interrupted"), "{verb}: {stderr}");
        assert!(!stderr.contains("cancelled"), "{verb}: {stderr}");
        assert!(
            !output.exists(),
            "{verb} wrote {} after SIGINT",
            output.display()
        );
        let left = common::file_names(dir.path());
        assert_eq!(
            left,
            ["big.jsonl", "sample.jsonl"],
            "{verb} left files behind"
        );
        return;
    }
    panic!(
        "{verb} finished before SIGINT reached it even on 64 copies of the sample (640 topics); \
         the test needs a longer run"
    );
}

#[test]
fn sigint_in_train_cross_validate_and_ablate_exits_130_without_output() {
    // train: signalled while features are extracted; no model file is written.
    assert_interrupt_leaves_nothing(
        "train",
        "model.aesop",
        "features [",
        &["--target", "relevance", "--classes", "surface,content"],
    );
    // cross-validate: signalled while features are extracted (the progress bar's lines).
    assert_interrupt_leaves_nothing(
        "cross-validate",
        "oof.jsonl",
        "features [",
        &["--target", "relevance", "--classes", "surface,content"],
    );
    // ablate: signalled once the models are being cross-validated (it used to exit 1,
    // "cancelled", there).
    assert_interrupt_leaves_nothing(
        "ablate",
        "ablation.md",
        "ablate: full",
        &[
            "--target",
            "relevance",
            "--classes",
            "surface,content,graph",
            "--c",
            "0.01",
        ],
    );
}

/// Ctrl-C while protocol 2 works through its held-out sets (after the features, in the
/// bootstrap where its time goes): exit 130, "interrupted", and neither the out-of-fold file nor
/// the report. It used to say "stopping" and then run every held-out set to the end (44 s for
/// the `responsiveness` recipe on four sets at 1,000 samples).
#[test]
fn sigint_during_leave_one_set_out_exits_130_without_output() {
    let dir = tempfile::tempdir().expect("dir");
    let sample = imported_sample(dir.path(), "sample.jsonl");
    // Two sets: the sample's first five topics and its other five.
    let a = topics_of(&sample, 0..5, dir.path(), "a.jsonl");
    let b = topics_of(&sample, 5..10, dir.path(), "b.jsonl");
    let (out, report) = (dir.path().join("oof.jsonl"), dir.path().join("report.json"));
    for samples in ["5000", "50000", "200000"] {
        let args: Vec<String> = [
            "cross-validate",
            "--set",
            &format!("{}:relevance", a.display()),
            "--set",
            &format!("{}:relevance", b.display()),
            "--target",
            "relevance",
            "--classes",
            "surface,content",
            "--leave-one-set-out",
            "--bootstrap",
            samples,
            "--progress",
            "-o",
            &out.display().to_string(),
            "--report",
            &report.display().to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let Some((code, stderr)) = interrupted_run(&args, "leave one set out [") else {
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(&report);
            continue;
        };
        assert_eq!(code, Some(130), "exit code after SIGINT; stderr:\n{stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        // Stopped within the held-out sets, not after the last one.
        assert!(!stderr.contains("2/2 held-out sets"), "{stderr}");
        assert!(!out.exists() && !report.exists(), "output after SIGINT");
        let left = common::file_names(dir.path());
        assert_eq!(
            left,
            ["a.jsonl", "b.jsonl", "sample.jsonl"],
            "files left behind"
        );
        return;
    }
    panic!(
        "cross-validate --leave-one-set-out finished before SIGINT reached it at 200,000 samples"
    );
}

#[test]
fn every_long_verb_takes_the_same_progress_flag() {
    let verbs = [
        "import",
        "analyze",
        "features",
        "train",
        "score",
        "cross-validate",
        "ablate",
        "evaluate",
    ];
    let mut helps = Vec::new();
    for verb in verbs {
        let out = common::aesop()
            .args([verb, "--help"])
            .output()
            .expect("help");
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        // The flag's help, whitespace collapsed (clap wraps and aligns it per verb).
        let words: Vec<&str> = help.split_whitespace().collect();
        let line = match words.iter().position(|w| *w == "--progress") {
            Some(at) => words[at..]
                .iter()
                .take_while(|w| !w.starts_with("-h"))
                .copied()
                .collect::<Vec<_>>()
                .join(" "),
            None => String::new(),
        };
        assert!(
            line.contains("even when it is not a terminal"),
            "{verb} --help: {help}"
        );
        helps.push(line);
    }
    assert!(helps.windows(2).all(|w| w[0] == w[1]), "{helps:?}");

    // Off a terminal (standard error is a pipe here) --progress draws plain lines; without it
    // nothing.
    let dir = tempfile::tempdir().expect("dir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    for (flag, drawn) in [(true, true), (false, false)] {
        let mut cmd = common::aesop();
        cmd.arg("features").arg(&set).args(["--classes", "surface"]);
        if flag {
            cmd.arg("--progress");
        }
        let out = cmd
            .arg("-o")
            .arg(dir.path().join("f.csv"))
            .output()
            .expect("run");
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.contains("features: "),
            drawn,
            "--progress {flag}: {stderr}"
        );
        if drawn {
            // One line per topic as its work finishes (rate-limited after a first burst, which
            // the sample's 10 topics stay within), with the summaries done so far.
            let last = stderr
                .lines()
                .rfind(|l| l.starts_with("features: "))
                .unwrap_or_default();
            assert!(
                last.starts_with("features: 10 topics (") && last.contains(", 160 summaries ("),
                "{stderr}"
            );
        }
    }
}

#[test]
fn a_named_class_that_needs_references_is_refused_under_no_references() {
    let dir = tempfile::tempdir().expect("dir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    for verb in ["train", "cross-validate", "ablate"] {
        let output = dir.path().join("out");
        let out = common::aesop()
            .arg(verb)
            .arg(&set)
            .args([
                "--target",
                "relevance",
                "--classes",
                "content,rouge,consensus",
                "--no-references",
                "-o",
            ])
            .arg(&output)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{verb}: a usage error: {stderr}"
        );
        assert!(
            stderr.contains(
                "rouge needs references; drop it from --classes or leave out --no-references"
            ),
            "{verb}: {stderr}"
        );
        assert!(!output.exists());
    }
    // Without --classes, --no-references quietly uses the reference-free classes.
    let model = dir.path().join("m.aesop");
    common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "content,surface",
            "--no-references",
            "--c",
            "0.01",
        ],
        &model,
    );
}

#[test]
fn evaluate_warns_when_a_builtin_is_judged_on_its_training_set() {
    let dir = tempfile::tempdir().expect("dir");
    // As the README imports it: the sample is named like the built-ins' SummEval set.
    let set = imported_sample(dir.path(), "summeval.jsonl");
    let score = |set: &Path, out: &str| {
        let predictions = dir.path().join(out);
        common::aesop()
            .arg("score")
            .arg(set)
            .args(["--model", "builtin:responsiveness", "-o"])
            .arg(&predictions)
            .assert()
            .success();
        predictions
    };
    let predictions = score(&set, "predictions.jsonl");
    // A copy under another name holds the same summaries: in-sample all the same.
    let other = dir.path().join("mine.jsonl");
    std::fs::copy(&set, &other).expect("copy");
    // Summaries the model never saw: every text (or those of the first five topics) changed.
    let rewritten = |name: &str, topics_changed: usize| {
        let text = std::fs::read_to_string(&set).expect("set");
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            let mut topic: serde_json::Value = serde_json::from_str(line).expect("topic");
            if i < topics_changed {
                for summary in topic["summaries"].as_array_mut().expect("summaries") {
                    let text = summary["text"].as_str().expect("text").to_string();
                    summary["text"] = serde_json::json!(format!("{text} It was said."));
                }
            }
            out.push_str(&topic.to_string());
            out.push('\n');
        }
        let path = dir.path().join(name);
        std::fs::write(&path, out).expect("write");
        path
    };
    let new = rewritten("new.jsonl", 10);
    let half = rewritten("half.jsonl", 5);
    let (new_predictions, half_predictions) =
        (score(&new, "new-p.jsonl"), score(&half, "half-p.jsonl"));
    // Human scores as a table (no texts): matched on the file name only.
    let table = |name: &str| human_table(&set, "responsiveness", &dir.path().join(name));
    let (named_table, other_table) = (table("summeval.csv"), table("scores.csv"));
    // `score` marks every line: the built-in learned from all 160 summaries.
    let lines = std::fs::read_to_string(&predictions).expect("predictions");
    assert_eq!(lines.matches(r#""in_training":true"#).count(), 160);
    // Predictions written before the marks (or by hand) are matched on the texts and names alone.
    let unmarked = dir.path().join("unmarked.jsonl");
    std::fs::write(&unmarked, lines.replace(r#","in_training":true"#, "")).expect("write");
    // The same predictions as a saved answer of the service, which names its models too.
    let answer = dir.path().join("answer.json");
    let results: Vec<serde_json::Value> = std::fs::read_to_string(&predictions)
        .expect("predictions")
        .lines()
        .map(|line| {
            let p: serde_json::Value = serde_json::from_str(line).expect("line");
            serde_json::json!({"topic": p["topic"], "system": p["system"],
                               "scores": {"responsiveness": p["score"]}})
        })
        .collect();
    let saved = serde_json::json!({"results": results, "models": [
        {"name": "responsiveness", "version": "v", "target": "responsiveness"}]});
    std::fs::write(&answer, serde_json::to_string_pretty(&saved).expect("JSON")).expect("write");
    let all = "model responsiveness was trained on all 160 summaries judged here (the same topic \
               ids and texts are in its training set summeval.jsonl): these figures are \
               in-sample and overstate agreement";
    let partly = "model responsiveness was trained on 80 of the 160 summaries judged here (the \
                  same topic ids and texts are in its training set summeval.jsonl): these \
                  figures are partly in-sample";
    let by_name = "model responsiveness was trained on set summeval.jsonl; these topics look like \
                   summeval.jsonl (matched on the file name summeval.csv";
    // Human scores without texts, of summaries the lines mark: counted from the marks.
    let marked = "model responsiveness was trained on all 160 summaries judged here (its \
                  predictions of them are marked \"in_training\"";
    for (file, human, target, warned) in [
        (&predictions, &set, "responsiveness", Some(all)),
        (&predictions, &other, "responsiveness", Some(all)),
        // Judged against another column (`--predicted`), the model is still the one trained.
        (&predictions, &set, "relevance", Some(all)),
        (&answer, &set, "responsiveness", Some(all)),
        (&answer, &other, "responsiveness", Some(all)),
        (&new_predictions, &new, "responsiveness", None),
        (&half_predictions, &half, "responsiveness", Some(partly)),
        (&unmarked, &set, "responsiveness", Some(all)),
        (&predictions, &named_table, "responsiveness", Some(marked)),
        (&predictions, &other_table, "responsiveness", Some(marked)),
        (&unmarked, &named_table, "responsiveness", Some(by_name)),
        (&unmarked, &other_table, "responsiveness", None),
    ] {
        let json = dir.path().join("report.json");
        let out = common::aesop()
            .arg("evaluate")
            .arg(file)
            .arg("--human")
            .arg(human)
            .args(["--target", target, "--predicted", "responsiveness"])
            .args(["--bootstrap", "0", "--json"])
            .arg(&json)
            .output()
            .expect("evaluate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", human.display());
        let report: serde_json::Value = common::read_json(&json);
        let case = format!("{} on {}: {stderr}", file.display(), human.display());
        assert_eq!(stderr.contains("in-sample"), warned.is_some(), "{case}");
        match (report.get("warnings"), warned) {
            (Some(w), Some(message)) => {
                assert!(stderr.contains(message), "{case}");
                assert!(w[0].as_str().expect("string").contains(message), "{w}");
            }
            (None, None) => {}
            (w, _) => panic!("{case}: warnings in the --json report: {w:?}"),
        }
    }
    // Compared with itself, the model is named once.
    let out = common::aesop()
        .arg("evaluate")
        .arg(&predictions)
        .arg("--human")
        .arg(&set)
        .args([
            "--target",
            "responsiveness",
            "--bootstrap",
            "0",
            "--compare",
        ])
        .arg(&answer)
        .output()
        .expect("evaluate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches(all).count(), 1, "{stderr}");
}

/// A model file trained here records the summaries it learned from: `score` marks its
/// predictions of them (`"in_training": true`) and says how many there were, and `evaluate`
/// warns from the marks, whatever the files are called and in whatever form the human scores
/// come (a built-in is matched on its own record as well: above).
#[test]
fn evaluate_warns_when_a_trained_model_is_judged_on_summaries_it_learned_from() {
    let dir = tempfile::tempdir().expect("dir");
    let set = imported_sample(dir.path(), "all.jsonl");
    // Trained on the first four topics only.
    let trained = topics_of(&set, 0..4, dir.path(), "train.jsonl");
    let unseen = topics_of(&set, 4..10, dir.path(), "unseen.jsonl");
    let text = std::fs::read_to_string(&set).expect("set");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let model = dir.path().join("mine.aesop");
    common::train(
        &trained,
        &["--target", "relevance", "--classes", "surface,content"],
        &model,
    );
    let score = |set: &Path, out: &str| {
        let predictions = dir.path().join(out);
        let run = common::aesop()
            .arg("score")
            .arg(set)
            .arg("--model")
            .arg(&model)
            .arg("-o")
            .arg(&predictions)
            .output()
            .expect("score");
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(run.status.success(), "{stderr}");
        (predictions, stderr)
    };
    let (all_predictions, all_stderr) = score(&set, "all-p.jsonl");
    let (unseen_predictions, unseen_stderr) = score(&unseen, "unseen-p.jsonl");
    let (all_csv, csv_stderr) = score(&set, "all-p.csv");
    let note = "note: model mine learned from 64 of the 160 summaries scored here (the same \
                topic ids and texts are in its training data), so their predictions are marked \
                \"in_training\"";
    assert!(all_stderr.contains(note), "{all_stderr}");
    assert!(csv_stderr.contains(note), "{csv_stderr}");
    assert!(!unseen_stderr.contains("in_training"), "{unseen_stderr}");
    // Exactly the lines of the training topics are marked.
    let trained_topics: Vec<String> = lines[0..4]
        .iter()
        .map(|l| {
            let topic: serde_json::Value = serde_json::from_str(l).expect("topic");
            topic["topic"].as_str().expect("id").to_string()
        })
        .collect();
    for line in std::fs::read_to_string(&all_predictions)
        .expect("predictions")
        .lines()
    {
        let p: serde_json::Value = serde_json::from_str(line).expect("line");
        let in_training = trained_topics.iter().any(|t| p["topic"] == *t.as_str());
        assert_eq!(p.get("in_training").is_some(), in_training, "{line}");
    }
    let unseen_lines = std::fs::read_to_string(&unseen_predictions).expect("predictions");
    assert!(!unseen_lines.contains("in_training"), "{unseen_lines}");
    // The CSV marks them in its last column, naming the columns learned from.
    let mut reader = csv::Reader::from_path(&all_csv).expect("csv");
    assert_eq!(
        reader.headers().expect("header").iter().collect::<Vec<_>>(),
        ["topic", "system", "mine", "in_training"]
    );
    for row in reader.records() {
        let row = row.expect("row");
        let in_training = trained_topics.iter().any(|t| t == &row[0]);
        assert_eq!(&row[3], if in_training { "mine" } else { "" }, "{row:?}");
    }
    // Human scores as a table, named unlike any training set.
    let table = human_table(&set, "relevance", &dir.path().join("scores.csv"));
    let partly = "model mine was trained on 64 of the 160 summaries judged here (its predictions \
                  of them are marked \"in_training\": the same topic ids and texts are in its \
                  training data): these figures are partly in-sample and overstate agreement; \
                  judge it on summaries it did not learn from (`aesop cross-validate -o`";
    let only = "model mine was trained on all 64 summaries judged here";
    // A mark that is no boolean (edited by hand) is an error naming the line, not unmarked.
    let bad = dir.path().join("bad.jsonl");
    let lines_text = std::fs::read_to_string(&all_predictions).expect("predictions");
    std::fs::write(
        &bad,
        lines_text.replace(r#""in_training":true"#, r#""in_training":"yes""#),
    )
    .expect("write");
    let out = common::aesop()
        .arg("evaluate")
        .arg(&bad)
        .arg("--human")
        .arg(&set)
        .args(["--target", "relevance", "--bootstrap", "0"])
        .output()
        .expect("evaluate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(r#"bad.jsonl:1: in_training: expected true or false (whether the model learned from the summary), found "yes""#),
        "{stderr}"
    );
    // A column of the CSV read as a feature is judged from its marks as the lines are, one
    // column or many.
    for (flag, column, message) in [
        ("--feature", "mine", partly),
        (
            "--features",
            "*",
            "warning: column mine: model mine learned from 64 of the summaries judged here (the \
             table's in_training column lists them): its figures are in-sample",
        ),
    ] {
        let out = common::aesop()
            .arg("evaluate")
            .arg(&all_csv)
            .args([flag, column, "--human"])
            .arg(&set)
            .args(["--target", "relevance", "--bootstrap", "0"])
            .output()
            .expect("evaluate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{flag}: {stderr}");
        assert!(stderr.contains(message), "{flag}: {stderr}");
    }
    for (predictions, human, warned) in [
        (&all_predictions, &set, Some(partly)),
        (&all_predictions, &table, Some(partly)),
        (&all_predictions, &trained, Some(only)),
        (&all_predictions, &unseen, None),
        (&unseen_predictions, &set, None),
    ] {
        let json = dir.path().join("report.json");
        let out = common::aesop()
            .arg("evaluate")
            .arg(predictions)
            .arg("--human")
            .arg(human)
            .args(["--target", "relevance", "--bootstrap", "0", "--json"])
            .arg(&json)
            .output()
            .expect("evaluate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let case = format!("{} on {}: {stderr}", predictions.display(), human.display());
        assert!(out.status.success(), "{case}");
        let report: serde_json::Value = common::read_json(&json);
        assert_eq!(stderr.contains("in-sample"), warned.is_some(), "{case}");
        if let Some(message) = warned {
            assert!(stderr.contains(message), "{case}");
            let first = report["warnings"][0].as_str().expect("a warning");
            assert!(first.contains(message), "{case}: {first}");
        }
    }
}

#[test]
fn score_warns_once_about_a_model_using_a_batch_dependent_class() {
    let dir = tempfile::tempdir().expect("dir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let model = dir.path().join("peers.aesop");
    common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "surface,consensus",
            "--c",
            "0.01",
        ],
        &model,
    );
    let warning = "model peers uses consensus: a summary's score depends on the other summaries of its topic in this batch";
    for (spec, expected) in [
        (model.display().to_string(), 1),
        ("builtin:responsiveness".to_string(), 0),
    ] {
        let out = common::aesop()
            .arg("score")
            .arg(&set)
            .args(["--model", &spec, "-o"])
            .arg(dir.path().join("p.jsonl"))
            .output()
            .expect("score");
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches(warning).count(),
            expected,
            "{spec}: {stderr}"
        );
        if expected == 0 {
            assert!(!stderr.contains("batch"), "{spec}: {stderr}");
        }
    }
}

/// `score` says when many summaries have features outside a model's training ranges (clamped
/// into them): never for the data a model was trained on, always for a topic whose document
/// is far longer than any it learned from, and not for one summary alone.
#[test]
fn score_warns_when_summaries_leave_the_training_ranges_and_not_in_sample() {
    let dir = tempfile::tempdir().expect("dir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let model = dir.path().join("own.aesop");
    common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "content,surface",
            "--c",
            "0.01",
        ],
        &model,
    );
    let score = |args: &[&str]| {
        let out = common::aesop()
            .arg("score")
            .args(args)
            .arg("-o")
            .arg(dir.path().join("p.jsonl"))
            .output()
            .expect("score");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let outside = "have features outside the range the model was trained on";
    // In sample: every feature lies within its range by construction; the built-ins learned
    // from the full SummEval, of which the sample is a part.
    let own = model.display().to_string();
    for spec in [own.as_str(), "builtin:pyramid", "builtin:readability"] {
        let stderr = score(&[set.to_str().expect("utf-8"), "--model", spec]);
        assert!(!stderr.contains(outside), "{spec}: {stderr}");
    }
    // A document 600 times the shipped article (750 kB): each summary's compression is above
    // every range (60 times stays within the built-ins').
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let article = std::fs::read_to_string(examples.join("article.txt")).expect("article");
    let summaries: Vec<serde_json::Value> = article
        .split(". ")
        .take(5)
        .enumerate()
        .map(|(i, s)| serde_json::json!({"system": format!("s{i}"), "text": s}))
        .collect();
    assert_eq!(summaries.len(), 5);
    let topic = serde_json::json!({
        "topic": "long",
        "documents": [{"id": "d", "text": article.repeat(600)}],
        "summaries": summaries,
    });
    let long = dir.path().join("long.jsonl");
    std::fs::write(&long, format!("{topic}\n")).expect("write");
    let long = long.to_str().expect("utf-8");
    let stderr = score(&[long, "--model", own.as_str()]);
    let expected = "model own: of the 5 scored summaries, many have features outside the range \
                    the model was trained on: ";
    assert_eq!(stderr.matches(expected).count(), 1, "{stderr}");
    assert!(
        stderr.contains("surface.compression above it for 5 (100%)"),
        "{stderr}"
    );
    // The defaults: one warning per model that scored.
    let stderr = score(&[long]);
    for model in ["pyramid-noref", "responsiveness-noref", "readability-noref"] {
        let line = format!("model {model}: of the 5 scored summaries");
        assert_eq!(stderr.matches(&line).count(), 1, "{model}: {stderr}");
    }
    // One summary alone is too few to say the data differs.
    let document = dir.path().join("long.txt");
    std::fs::write(&document, article.repeat(600)).expect("write");
    let stderr = score(&[
        "--documents",
        document.to_str().expect("utf-8"),
        "--summary",
        examples.join("mine.txt").to_str().expect("utf-8"),
    ]);
    assert!(!stderr.contains(outside), "{stderr}");
}

#[test]
fn score_without_input_or_documents_is_a_usage_error_naming_what_is_missing() {
    // No arguments: the usage names both ways in (a set, or plain-text summaries).
    let out = common::aesop().arg("score").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("<SET|--summary <SUMMARY>...>"), "{stderr}");
    // `--summary` without `--documents`: refused, as the HTTP service refuses zero documents.
    let summary = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/mine.txt");
    let out = common::aesop()
        .arg("score")
        .arg("--summary")
        .arg(&summary)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--documents <DOCUMENTS>"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing scored");
}

#[test]
fn the_readme_installs_with_the_lock_file() {
    // Without --locked, `cargo install` re-resolves dependencies and may build versions the
    // project was never tested with. Every mention counts, also inline ones (the `cuda` build
    // in README.md and docs/NEURAL.md lacked it).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs") {
        let path = entry.expect("entry").path();
        // ROBUSTNESS.md quotes the unlocked command as the case it fixed.
        if path.extension().is_some_and(|e| e == "md") && !path.ends_with("ROBUSTNESS.md") {
            files.push(path);
        }
    }
    let mut installs = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).expect("doc");
        for (i, line) in text.lines().enumerate() {
            for (at, _) in line.match_indices("cargo install") {
                installs += 1;
                let rest = &line[at..];
                let command = rest.split('`').next().unwrap_or(rest);
                assert!(
                    command.contains("--locked"),
                    "{}:{}: {line}",
                    file.display(),
                    i + 1
                );
            }
        }
    }
    assert!(installs > 0, "the README says how to install");
}

#[test]
fn score_and_features_read_a_set_from_standard_input_as_from_its_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sample = imported_sample(dir.path(), "sample.jsonl");
    // Two topics of the sample keep it quick.
    let text: String = std::fs::read_to_string(&sample)
        .expect("set")
        .lines()
        .take(2)
        .map(|line| format!("{line}\n"))
        .collect();
    let set = dir.path().join("two.jsonl");
    std::fs::write(&set, &text).expect("write");
    for verb in [
        &["score"][..],
        &["features", "--classes", "content,surface"],
    ] {
        let from_file = common::aesop().args(verb).arg(&set).output().expect("run");
        assert!(
            from_file.status.success(),
            "{}",
            String::from_utf8_lossy(&from_file.stderr)
        );
        assert!(!from_file.stdout.is_empty(), "{verb:?} wrote nothing");
        let from_stdin = common::aesop()
            .args(verb)
            .arg("-")
            .write_stdin(text.clone())
            .output()
            .expect("run");
        assert!(
            from_stdin.status.success(),
            "{}",
            String::from_utf8_lossy(&from_stdin.stderr)
        );
        assert_eq!(from_stdin.stdout, from_file.stdout, "{verb:?}");
    }
    // A bad line read from standard input is named by its line there.
    let out = common::aesop()
        .args(["score", "-"])
        .write_stdin(format!("{text}not json\n"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("standard input:3: malformed JSON"),
        "{stderr}"
    );

    // The verbs that record each input's content hash refuse it before any work, writing nothing.
    let output = dir.path().join("out.jsonl");
    // train writes a model, which is named .aesop (a text file's name is refused).
    let model = dir.path().join("out.aesop");
    let (out_path, model_path, set_path) = (
        output.to_str().expect("utf-8"),
        model.to_str().expect("utf-8"),
        set.to_str().expect("utf-8"),
    );
    let refused: [Vec<&str>; 5] = [
        vec![
            "cross-validate",
            "-",
            "--target",
            "relevance",
            "--classes",
            "content",
            "-o",
            out_path,
        ],
        vec![
            "train",
            "--set=-:relevance",
            "--classes",
            "content",
            "-o",
            model_path,
        ],
        // `-:COLUMN` as its own word: clap took it for short flags (`unexpected argument '-:'`).
        vec![
            "ablate",
            "--set",
            "-:relevance",
            "--classes",
            "content,surface",
            "-o",
            out_path,
        ],
        // The human scores or the predictions from a pipe.
        vec![
            "evaluate",
            set_path,
            "--human",
            "-",
            "--target",
            "relevance",
            "--json",
            out_path,
        ],
        vec![
            "evaluate",
            "-",
            "--human",
            set_path,
            "--target",
            "relevance",
            "--json",
            out_path,
        ],
    ];
    for args in refused {
        let mut command = common::aesop();
        command.args(&args);
        let out = command.write_stdin(text.clone()).output().expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("-: this command records each input's content hash"),
            "{stderr}"
        );
        assert!(!output.exists(), "{args:?} wrote {}", output.display());
        assert!(!model.exists(), "{args:?} wrote {}", model.display());
    }
}
