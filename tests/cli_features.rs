//! `aesop features` end to end: columns, CSV and JSONL output, topics without references, a human
//! summary that is also a reference, and bad input (clear error, exit 1, no partial output).

use crate::common;

use std::path::Path;

const ARTICLE: &str =
    "The city council approved a new budget on Monday. The budget raises spending on \
schools and parks. Council members said the plan would be paid for by a small tax increase. \
Critics argued that the tax increase would hurt small businesses.";

fn topic_line(
    topic: &str,
    references: &[(&str, &str)],
    summaries: &[(&str, &str, bool)],
) -> String {
    let refs: Vec<_> = references
        .iter()
        .map(|(id, text)| serde_json::json!({"id": id, "text": text}))
        .collect();
    let sums: Vec<_> = summaries
        .iter()
        .map(|(system, text, human)| {
            serde_json::json!({"system": system, "text": text, "human": human, "scores": {"relevance": 3.0}})
        })
        .collect();
    serde_json::json!({"topic": topic, "documents": [{"id": "d1", "text": ARTICLE}],
                       "references": refs, "summaries": sums})
    .to_string()
}

/// Topic t1: two references, a human summary that is also reference `A`, a system, an empty summary.
/// Topic t2: no references.
fn write_set(dir: &Path) -> std::path::PathBuf {
    let lines = [
        topic_line(
            "t1",
            &[
                (
                    "A",
                    "The council approved a budget that raises school and park spending.",
                ),
                (
                    "B",
                    "A new budget with more money for schools passed; taxes rise slightly.",
                ),
            ],
            &[
                (
                    "A",
                    "The council approved a budget that raises school and park spending.",
                    true,
                ),
                (
                    "s1",
                    "The city council approved a new budget on Monday.",
                    false,
                ),
                ("s2", "", false),
            ],
        ),
        topic_line(
            "t2",
            &[],
            &[
                (
                    "s1",
                    "Critics said the tax increase would hurt businesses.",
                    false,
                ),
                ("s2", "The budget passed.", false),
            ],
        ),
    ];
    let path = dir.join("set.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write fixture");
    path
}

fn csv_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).expect("open csv");
    let header = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.expect("row").iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

#[test]
fn all_classes_csv() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = write_set(dir.path());
    let out = dir.path().join("features.csv");
    let assert = common::aesop()
        .arg("features")
        .arg(&set)
        .arg("-o")
        .arg(&out)
        .assert();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
    assert.success();

    let (header, rows) = csv_rows(&out);
    assert_eq!(&header[..2], ["topic", "system"]);
    for class in aesop::features::default_class_names() {
        assert!(
            header.iter().any(|h| h.starts_with(&format!("{class}."))),
            "no {class}.* column"
        );
    }
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r.len() == header.len()));

    let r1 = column(&header, "rouge.r1_recall");
    let input_vs = column(&header, "graph.input_vs");
    let length = column(&header, "surface.summary_tokens");
    // t1/s1 has ROUGE values; t2 has no references, so its ROUGE cells are empty but the
    // reference-free ones are filled.
    assert!(rows[1][r1].parse::<f64>().expect("t1/s1 r1") > 0.0);
    assert_eq!(rows[3][r1], "");
    assert!(!rows[3][input_vs].is_empty());
    // The human summary A equals reference A: scored against B only, so recall is below 1.
    let a_recall: f64 = rows[0][r1].parse().expect("t1/A r1");
    assert!(
        a_recall > 0.0 && a_recall < 1.0,
        "A scored against itself? r1 = {a_recall}"
    );
    // The empty summary is kept, with length 0.
    assert_eq!(rows[2][length].parse::<f64>().expect("length"), 0.0);
    assert!(
        stderr.contains("class rouge has no values for 2 summaries in 1 topic"),
        "{stderr}"
    );
    // `graph` keeps its reference-free `graph.input_*` values there; its empty reference-based
    // cells are said as well.
    let memog = column(&header, "graph.memog");
    assert_eq!(rows[3][memog], "");
    assert!(
        stderr.contains("class graph has no reference-based values for 2 summaries in 1 topic (e.g. t2): no references to compare with"),
        "{stderr}"
    );
}

#[test]
fn selected_classes_jsonl() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = write_set(dir.path());
    let out = dir.path().join("features.jsonl");
    common::aesop()
        .args(["features", "--classes", "content,rouge"])
        .arg(&set)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).expect("read output");
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(objects.len(), 5);
    let keys: Vec<&String> = objects[0].as_object().expect("object").keys().collect();
    assert!(keys.iter().all(|k| *k == "topic"
        || *k == "system"
        || k.starts_with("content.")
        || k.starts_with("rouge.")));
    assert!(objects[3]["rouge.r1_recall"].is_null());
    assert!(objects[3]["content.js"].as_f64().is_some());
}

#[test]
fn unknown_class_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = write_set(dir.path());
    let out = dir.path().join("f.csv");
    common::aesop()
        .args(["features", "--classes", "rouge,sentiment"])
        .arg(&set)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid value 'sentiment' for '--classes <CLASSES>'",
        ))
        .stderr(predicates::str::contains("possible values: content, rouge"));
    assert!(!out.exists());
    // A near miss gets clap's suggestion; `train` checks its --classes the same way.
    common::aesop()
        .args(["train", "--target", "relevance", "--classes", "rogue", "-o"])
        .arg(dir.path().join("m.aesop"))
        .arg(&set)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("'rouge'"));
}

#[test]
fn malformed_set_names_file_and_line_and_leaves_no_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = write_set(dir.path());
    let mut text = std::fs::read_to_string(&set).expect("read");
    text.push_str("{\"topic\": \"t3\", \"summaries\": [{\"system\": \"s1\"}]}\n");
    std::fs::write(&set, text).expect("write");
    let out = dir.path().join("f.csv");
    common::aesop()
        .arg("features")
        .arg(&set)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("set.jsonl:3"))
        .stderr(predicates::str::contains("summaries[0].text"));
    assert!(!out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "only the set should remain: {leftovers:?}"
    );
}

#[test]
fn missing_set_and_bad_option_fail_cleanly() {
    common::aesop()
        .args(["features", "/nonexistent/set.jsonl"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("/nonexistent/set.jsonl"));
    common::aesop()
        .args(["features", "x.jsonl", "--tesla-alpha", "2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--tesla-alpha"));
    common::aesop().args(["features"]).assert().code(2);
}

/// A feature option that changes none of the computed classes is refused, naming the flag and
/// the class that reads it, by `features` and by the learning verbs (it was silently ignored);
/// beside a class that reads it, it is taken.
#[test]
fn an_option_for_a_class_not_computed_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = write_set(dir.path());
    let out = dir.path().join("f.csv");
    let refused = [
        vec!["features", "--classes", "content", "--rouge-mode", "b"],
        vec![
            "features",
            "--classes",
            "surface",
            "--neural-references",
            "0",
        ],
        vec![
            "train",
            "--target",
            "relevance",
            "--classes",
            "content,rouge",
            "--features",
            "content.js",
            "--rouge-no-stem",
        ],
        vec![
            "cross-validate",
            "--target",
            "relevance",
            "--classes",
            "content",
            "--graph-rank",
            "4",
        ],
        vec![
            "ablate",
            "--target",
            "relevance",
            "--classes",
            "content,surface",
            "--tesla-alpha",
            "0.5",
        ],
        // The LM classes declare only the options they read: neural_match matches every
        // reference with no article, neural_hidden reads no reference.
        vec![
            "features",
            "--classes",
            "neural_match",
            "--neural-references",
            "0",
        ],
        vec![
            "features",
            "--classes",
            "neural_match",
            "--neural-source-tokens",
            "5",
        ],
        vec![
            "features",
            "--classes",
            "neural_hidden",
            "--neural-references",
            "3",
        ],
    ];
    for args in refused {
        let flag = args
            .iter()
            .rev()
            .find(|a| a.starts_with("--"))
            .copied()
            .unwrap_or_default();
        common::aesop()
            .args(&args)
            .arg(&set)
            .arg("-o")
            .arg(&out)
            // A usage error (exit 2), found from the flags before the set is read.
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!("{flag} (")))
            .stderr(predicates::str::contains("none is computed here"));
        assert!(!out.exists(), "{args:?} wrote output");
    }
    common::aesop()
        .args([
            "features",
            "--classes",
            "content,rouge",
            "--rouge-mode",
            "b",
        ])
        .arg(&set)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert!(out.exists());
}

/// An option must change a feature the model learns from, not merely a class it computes:
/// `--features content.js --topic-word-cutoff 5` trained a model that carried the cutoff, and
/// that could then not score beside the built-ins (which use the default cutoff).
#[test]
fn an_option_that_changes_none_of_the_selected_features_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = write_set(dir.path());
    let model = dir.path().join("m.aesop");
    let refused = [
        vec![
            "train",
            "--features",
            "content.js",
            "--topic-word-cutoff",
            "5",
        ],
        vec!["train", "--features", "content.js_smoothed", "--simetrix"],
        vec![
            "cross-validate",
            "--features",
            "tesla.exact,content.js",
            "--tesla-stem-similarity",
            "0",
        ],
        vec![
            "ablate",
            "--features",
            "content.js,surface.*",
            "--topic-word-log-base",
            "10",
        ],
    ];
    for args in refused {
        let flag = args.last().copied().unwrap_or_default();
        let flag = if flag.starts_with("--") {
            flag
        } else {
            args[args.len() - 2]
        };
        common::aesop()
            .args(&args)
            .args(["--target", "relevance"])
            .arg(&set)
            .arg("-o")
            .arg(&model)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!("{flag} (")))
            .stderr(predicates::str::contains(
                "none of them is among the features used here",
            ));
        assert!(!model.exists(), "{args:?} wrote a model");
    }
}

/// `--consensus-include-human` on a set where no summary is human changes nothing: said, as a
/// note of `features` and a warning of the learning verbs, rather than silently ignored.
#[test]
fn an_option_that_changes_nothing_on_the_data_is_said() {
    use predicates::prelude::PredicateBooleanExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let with_human = write_set(dir.path());
    let systems_only = dir.path().join("systems.jsonl");
    let text = std::fs::read_to_string(&with_human).expect("read fixture");
    std::fs::write(
        &systems_only,
        text.replace("\"human\":true", "\"human\":false"),
    )
    .expect("write fixture");
    let note = "--consensus-include-human (consensus_include_human) changed nothing: no summary is marked `human: true`";
    let out = dir.path().join("f.csv");
    let features = |set: &Path| {
        common::aesop()
            .args([
                "features",
                "--classes",
                "consensus",
                "--consensus-include-human",
            ])
            .arg(set)
            .arg("-o")
            .arg(&out)
            .assert()
            .success()
    };
    features(&systems_only).stderr(predicates::str::contains(note));
    features(&with_human).stderr(predicates::str::contains(note).not());
    // The learning verbs warn naming the set (training on this tiny set then fails or not;
    // the warning comes before).
    let output = common::run_train(
        &systems_only,
        &[
            "--target",
            "relevance",
            "--classes",
            "consensus,surface",
            "--consensus-include-human",
        ],
        &dir.path().join("m.aesop"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("warning: {}: {note}", systems_only.display())),
        "{stderr}"
    );
}

/// `--neural-source-tokens 0` left the LM no article (source features equal to the
/// unconditional ones, reference features without their reference): a usage error naming the
/// flag, before any model is loaded.
#[test]
fn a_source_budget_of_zero_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = write_set(dir.path());
    common::aesop()
        .args([
            "features",
            "--classes",
            "neural",
            "--neural-source-tokens",
            "0",
        ])
        .arg(&set)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--neural-source-tokens"));
}

/// Ctrl-C stops a long run between topics: exit 130, and no output file (not even a partial one).
#[cfg(unix)]
#[test]
fn interrupt_leaves_no_output() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("big.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&set).expect("create"));
    let article = ARTICLE.repeat(20);
    // Far more work than the one second we wait before interrupting.
    for i in 0..20_000 {
        let summaries: Vec<_> = (0..8)
            .map(|s| serde_json::json!({"system": format!("s{s}"), "text": &ARTICLE[s * 10..s * 10 + 120]}))
            .collect();
        let line = serde_json::json!({"topic": format!("t{i}"), "documents": [{"id": "d", "text": &article}],
                                      "references": [{"id": "A", "text": ARTICLE}], "summaries": summaries});
        writeln!(file, "{line}").expect("write");
    }
    file.flush().expect("flush");
    drop(file);

    let out = dir.path().join("features.csv");
    // SIGTERM stops a run as Ctrl-C does (it was killed, leaving its temporary file).
    for signal in ["-INT", "-TERM"] {
        let output = interrupted_features(&set, Some(&out), signal);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{signal}: {stderr}");
        // The interruption, not the context it passed through ("writing features.csv").
        assert!(
            stderr
                .trim_end()
                .ends_with("interrupted; no output written"),
            "{stderr}"
        );
        assert!(!out.exists());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "temporary output left behind: {names:?}");
    }
    // To standard output, rows already written cannot be taken back: the message says so.
    let output = interrupted_features(&set, None, "-INT");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("so far is incomplete"), "{stderr}");
    assert!(!stderr.contains("no output written"), "{stderr}");
}

/// `aesop features SET [-o OUT]`, sent `signal` after 1.5 s.
#[cfg(unix)]
fn interrupted_features(set: &Path, out: Option<&Path>, signal: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("aesop");
    let mut command = std::process::Command::new(bin);
    command.arg("features").arg(set);
    if let Some(out) = out {
        command.arg("-o").arg(out);
    }
    let child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    child.wait_with_output().expect("wait")
}

/// `--systems FILE`: each system's mean of every feature, ranked, as `score --systems` writes
/// predictions' (ROUGE-1.5.5's per-system averages): the means are those of the features file,
/// the interval holds the mean, the counts say over how many topics; a system without a summary
/// in some topic is warned of; both outputs or neither.
#[test]
fn features_systems_gives_each_systems_means() {
    let dir = tempfile::tempdir().expect("temp dir");
    let set = dir.path().join("set.jsonl");
    let reference = [(
        "A",
        "The council approved a budget that raises school spending.",
    )];
    let topic = |id: &str, systems: &[(&'static str, &'static str)]| {
        let summaries: Vec<(&str, &str, bool)> =
            systems.iter().map(|&(s, t)| (s, t, false)).collect();
        topic_line(id, &reference, &summaries)
    };
    let lines = [
        topic(
            "t1",
            &[
                (
                    "good",
                    "The council approved a budget raising school spending.",
                ),
                ("poor", "Critics argued about taxes."),
            ],
        ),
        topic(
            "t2",
            &[
                ("good", "The council approved the budget for schools."),
                ("poor", "A tax increase."),
            ],
        ),
        // `poor` wrote nothing for t3: its means are over fewer topics.
        topic("t3", &[("good", "The budget raises spending on schools.")]),
    ];
    std::fs::write(&set, lines.join("\n") + "\n").expect("write");
    let (features, systems) = (dir.path().join("f.csv"), dir.path().join("s.csv"));
    // `aesop features SET --classes rouge -o OUTPUT --systems SYSTEMS`.
    let run = |output: &Path, systems: &Path| {
        common::aesop()
            .arg("features")
            .arg(&set)
            .args(["--classes", "rouge", "-o"])
            .arg(output)
            .arg("--systems")
            .arg(systems)
            .assert()
    };
    let out = run(&features, &systems).success().get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the systems' feature means of rouge.r1_recall are over different topics")
            && stderr.contains("'poor' on 2")
            && stderr.contains("aesop features --systems FILE"),
        "{stderr}"
    );
    let (f_header, f_rows) = csv_rows(&features);
    let (header, rows) = csv_rows(&systems);
    assert_eq!(
        header,
        ["feature", "rank", "system", "mean", "low", "high", "topics", "scored"]
    );
    // One row per feature and system, features in the file's order, best system first.
    assert_eq!(rows.len(), 12 * 2);
    assert_eq!(rows[0][0], f_header[2]);
    let r1 = column(&f_header, "rouge.r1_recall");
    for system in ["good", "poor"] {
        let values: Vec<f64> = f_rows
            .iter()
            .filter(|r| r[1] == system)
            .map(|r| r[r1].parse().expect("a number"))
            .collect();
        let row = rows
            .iter()
            .find(|r| r[0] == "rouge.r1_recall" && r[2] == system)
            .expect("a row of the system");
        let mean: f64 = row[3].parse().expect("a mean");
        common::assert_within(
            mean,
            values.iter().sum::<f64>() / values.len() as f64,
            1e-12,
        );
        let (low, high): (f64, f64) = (row[4].parse().expect("low"), row[5].parse().expect("high"));
        assert!(low <= mean && mean <= high, "{row:?}");
        assert_eq!(row[7], values.len().to_string());
        assert_eq!(row[6], values.len().to_string());
    }
    let good = rows
        .iter()
        .position(|r| r[0] == "rouge.r1_recall" && r[2] == "good");
    let poor = rows
        .iter()
        .position(|r| r[0] == "rouge.r1_recall" && r[2] == "poor");
    assert!(good < poor, "the better system ranks first");

    // JSON Lines for another name, `feature` first; `-` with the features on standard output
    // is a usage error; one file named twice writes neither.
    let jsonl = dir.path().join("s.jsonl");
    run(&features, &jsonl).success();
    let first = std::fs::read_to_string(&jsonl).expect("read");
    assert!(
        first.starts_with("{\"feature\":\"rouge.r1_recall\",\"rank\":1,\"system\":\"good\","),
        "{first}"
    );
    common::aesop()
        .arg("features")
        .arg(&set)
        .args(["--classes", "rouge", "--systems", "-"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "would both go to standard output",
        ));
    let twice = dir.path().join("twice.csv");
    run(&twice, &twice)
        .code(1)
        .stderr(predicates::str::contains("name the same file"));
    assert!(!twice.exists());
}
