//! Streaming `score` and `features`: the same output as the whole-set code, CSV predictions,
//! and no output at all when a line deep in the set is broken.

use crate::common;
use aesop::corpus::{jsonl, Document, Reference, Summary, Topic};
use aesop::features::run::{self, TableFormat};
use aesop::features::{build_classes, FeatureOptions};
use aesop::learn::commands::{score_command, ScoreArgs};
use aesop::learn::score_stream::ScoreFormat;
use std::sync::atomic::AtomicBool;

fn topic(id: usize, with_reference: bool) -> Topic {
    let mut t = Topic::new(format!("topic-{id}"));
    t.documents.push(Document::new(
        "d1",
        "The city council approved a new budget on Monday. The budget raises school funding \
         by ten percent. Critics said the plan cuts road repairs. The mayor will sign it next week.",
    ));
    if with_reference {
        t.references.push(Reference::new(
            "r1",
            "The council passed a budget that raises school funding and cuts road repairs.",
        ));
    }
    for (s, text) in [
        "The council approved a budget raising school funding by ten percent.",
        "Road repairs are cut. The mayor signs next week.",
        "A budget was approved on Monday by the city council.",
    ]
    .iter()
    .enumerate()
    {
        t.summaries
            .push(Summary::new(format!("sys{s}"), format!("{text} ({id})")));
    }
    t
}

fn write_set(path: &std::path::Path, topics: &[Topic]) {
    let file = std::fs::File::create(path).expect("create set");
    jsonl::write_set(std::io::BufWriter::new(file), topics).expect("write set");
}

fn args(set: &std::path::Path, out: &std::path::Path, format: Option<ScoreFormat>) -> ScoreArgs {
    ScoreArgs {
        set: Some(set.to_path_buf()),
        model: Vec::new(),
        neural: false,
        documents: Vec::new(),
        summary: Vec::new(),
        reference: Vec::new(),
        output: Some(out.to_path_buf()),
        format,
        systems: None,
    }
}

#[test]
fn streamed_features_equal_the_whole_set_table_in_both_formats() {
    // More topics than one window holds, so order across windows is exercised.
    let topics: Vec<Topic> = (0..70).map(|i| topic(i, i % 3 != 0)).collect();
    let classes = build_classes(
        &["surface".into(), "rouge".into()],
        &FeatureOptions::default(),
    )
    .expect("classes");
    let cancel = AtomicBool::new(false);
    let table = run::extract_features(&topics, &classes, false, &cancel).expect("extract");
    for format in [TableFormat::Csv, TableFormat::Jsonl] {
        let mut whole = Vec::new();
        run::write_table(&table, format, &mut whole).expect("write");
        let mut streamed = Vec::new();
        let report = run::stream_features(
            topics.iter().cloned().map(Ok),
            &classes,
            format,
            &mut streamed,
            false,
            &cancel,
            &mut |_| {},
        )
        .expect("stream");
        assert_eq!(
            String::from_utf8(streamed).expect("utf8"),
            String::from_utf8(whole).expect("utf8")
        );
        assert_eq!(report.stats.topics, 70);
        assert_eq!(report.stats.summaries, 210);
        assert_eq!(report.skipped, table.skipped);
        assert!(
            !report.skipped.is_empty(),
            "rouge has no references in some topics"
        );
    }
}

#[test]
fn csv_predictions_hold_the_jsonl_scores_one_row_per_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let topics: Vec<Topic> = (0..4).map(|i| topic(i, i % 2 == 0)).collect();
    write_set(&set, &topics);
    let jsonl_out = dir.path().join("pred.jsonl");
    let lines =
        score_command(&args(&set, &jsonl_out, None), &AtomicBool::new(false)).expect("score jsonl");
    let csv_out = dir.path().join("pred.csv");
    let csv_lines =
        score_command(&args(&set, &csv_out, None), &AtomicBool::new(false)).expect("score csv");
    assert_eq!(lines, csv_lines);

    let mut reader = csv::Reader::from_path(&csv_out).expect("csv");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    assert_eq!(
        header,
        [
            "topic",
            "system",
            "pyramid",
            "responsiveness",
            "readability",
            "models",
            "in_training"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 12);
    assert_eq!(
        &rows[3][5],
        "pyramid-noref responsiveness-noref readability-noref"
    );
    assert_eq!(&rows[0][5], "pyramid responsiveness readability");
    let json: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl_out)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    for (r, row) in rows.iter().enumerate() {
        for m in 0..3 {
            let line = &json[r * 3 + m];
            assert_eq!(line["topic"], row[0].to_string());
            assert_eq!(line["system"], row[1].to_string());
            let csv_score: f64 = row[2 + m].parse().expect("number");
            // The exact scores: serde_json's default float parsing may be off by one ulp.
            assert_eq!(csv_score.to_bits(), lines[r * 3 + m].1.to_bits());
            assert_eq!(line["model"], lines[r * 3 + m].0);
        }
        // No built-in learned from these invented summaries.
        assert_eq!(&row[6], "", "{row:?}");
    }
    // --format overrides the extension.
    let forced = dir.path().join("pred.txt");
    score_command(
        &args(&set, &forced, Some(ScoreFormat::Csv)),
        &AtomicBool::new(false),
    )
    .expect("forced csv");
    assert_eq!(
        std::fs::read(&forced).expect("forced"),
        std::fs::read(&csv_out).expect("csv")
    );
}

#[test]
fn a_broken_line_after_many_topics_leaves_no_output_and_no_temporary_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let topics: Vec<Topic> = (0..40).map(|i| topic(i, true)).collect();
    write_set(&set, &topics);
    let mut text = std::fs::read_to_string(&set).expect("read");
    text.push_str("{\"topic\": \"broken\", \"summaries\": 5}\n");
    std::fs::write(&set, text).expect("write");
    let out = dir.path().join("pred.jsonl");
    let err = score_command(&args(&set, &out, None), &AtomicBool::new(false))
        .expect_err("line 41 is invalid");
    let message = format!("{err:#}");
    assert!(message.contains("set.jsonl:41"), "{message}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("set.jsonl")]);
}

#[test]
fn a_class_without_values_is_named_on_score_with_what_the_topics_lack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    // Topic 1 has no input documents: `content` (JS divergence to the input, …) has nothing to
    // compare with, and `builtin:responsiveness` scored its summaries from rouge alone, unsaid.
    let mut no_documents = topic(1, true);
    no_documents.documents.clear();
    write_set(&set, &[topic(0, true), no_documents]);
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .args(["--model", "builtin:responsiveness", "-o"])
        .arg(dir.path().join("scores.jsonl"))
        .output()
        .expect("score");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "warning: class content has no values for 3 summaries in 1 topic (e.g. topic-1): no input documents; the models using it scored those summaries as if its features were at their training average"
        ),
        "{stderr}"
    );
    // Classes with values everywhere are not named.
    assert!(!stderr.contains("class rouge"), "{stderr}");
    let scored = std::fs::read_to_string(dir.path().join("scores.jsonl")).expect("scores");
    assert_eq!(scored.lines().count(), 6);
}

#[test]
fn graph_without_references_is_named_only_for_models_that_read_its_reference_features() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    // A human summary whose only reference is itself: `rouge` and `tesla` give it no values,
    // and `graph` only its reference-free `graph.input_*` ones.
    let mut own_only = topic(0, true);
    own_only.references.truncate(1);
    let mut human = own_only.summaries[0].clone();
    human.system = own_only.references[0].id.clone();
    human.text = own_only.references[0].text.clone();
    human.human = true;
    own_only.summaries.push(human);
    write_set(&set, &[own_only]);
    let score = |model: &str| {
        let out = common::aesop()
            .arg("score")
            .arg(&set)
            .args(["--model", model, "-o"])
            .arg(dir.path().join(format!("{model}.jsonl").replace(':', "-")))
            .output()
            .expect("score");
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    let stderr = score("builtin:pyramid");
    for class in ["rouge", "tesla"] {
        assert!(
            stderr.contains(&format!(
                "warning: class {class} has no values for 1 summary"
            )),
            "{stderr}"
        );
    }
    assert!(
        stderr.contains("warning: class graph has no reference-based values for 1 summary in 1 topic (e.g. topic-0): no other reference for a human summary"),
        "{stderr}"
    );
    // The reference-free model reads `graph.input_*` alone: nothing of it is missing.
    let stderr = score("builtin:pyramid-noref");
    assert!(!stderr.contains("class graph"), "{stderr}");
}

#[test]
fn systems_file_ranks_each_systems_mean_with_its_interval_and_coverage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let mut topics: Vec<Topic> = (0..6).map(|i| topic(i, i % 3 != 0)).collect();
    // sys2 wrote nothing for topic 1; sys0's summary of topic 2 is empty (scored null).
    topics[1].summaries.retain(|s| s.system != "sys2");
    topics[2].summaries[0].text = String::new();
    write_set(&set, &topics);
    let predictions = dir.path().join("p.jsonl");
    let systems_csv = dir.path().join("systems.csv");
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("-o")
        .arg(&predictions)
        .arg("--systems")
        .arg(&systems_csv)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("mean predictions of pyramid are over different topics: 2 of 3 systems have scores on fewer topics than the most covered (6): 'sys0' on 5, 'sys2' on 5"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "wrote the means of 3 systems to {}",
            systems_csv.display()
        )),
        "{stderr}"
    );
    // One warning: the three columns' coverage is the same.
    assert_eq!(
        stderr.matches("over different topics").count(),
        1,
        "{stderr}"
    );

    // Each mean is the mean of the system's scored predictions.
    let mut by_system: std::collections::BTreeMap<(String, String), Vec<f64>> = Default::default();
    for line in std::fs::read_to_string(&predictions).expect("read").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        if let Some(score) = v["score"].as_f64() {
            by_system
                .entry((
                    v["target"].as_str().expect("target").to_string(),
                    v["system"].as_str().expect("system").to_string(),
                ))
                .or_default()
                .push(score);
        }
    }
    let mut reader = csv::Reader::from_path(&systems_csv).expect("csv");
    assert_eq!(
        reader.headers().expect("header").iter().collect::<Vec<_>>(),
        ["model", "rank", "system", "mean", "low", "high", "topics", "scored", "models"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 9);
    let number = |s: &str| s.parse::<f64>().expect("number");
    for (c, target) in ["pyramid", "responsiveness", "readability"]
        .iter()
        .enumerate()
    {
        let column = &rows[c * 3..c * 3 + 3];
        let mut last = f64::INFINITY;
        for (i, row) in column.iter().enumerate() {
            assert_eq!(&row[0], *target);
            assert_eq!(&row[1], (i + 1).to_string(), "ranks in order of the means");
            let scores = &by_system[&(target.to_string(), row[2].to_string())];
            let mean = scores.iter().sum::<f64>() / scores.len() as f64;
            let (m, low, high) = (number(&row[3]), number(&row[4]), number(&row[5]));
            assert!(common::close_1e12(m, mean), "{m} {mean}");
            assert!(m <= last);
            last = m;
            assert!(low <= m && m <= high && low < high, "{low} {m} {high}");
            let (topics, scored) = match &row[2] {
                "sys0" => ("6", 5),
                "sys2" => ("5", 5),
                _ => ("6", 6),
            };
            assert_eq!((&row[6], number(&row[7]) as usize), (topics, scored));
            assert_eq!(scores.len(), scored);
            assert_eq!(&row[8], format!("{target} {target}-noref"));
        }
    }

    // The library's (and Python's) system means from the predictions in another order: the
    // same rows, to the bit, and the same warning.
    let groups = aesop::learn::score_stream::ModelGroups::load(&[] as &[&str]).expect("built-ins");
    let cancel = AtomicBool::new(false);
    let (mut in_process, _, _) = groups.predict(&topics, &cancel).expect("predict");
    in_process.reverse();
    let (means, warnings) = groups.system_means(&in_process, &cancel).expect("means");
    assert_eq!(means.len(), rows.len());
    for (mean, row) in means.iter().zip(&rows) {
        assert_eq!(
            (mean.model.as_str(), mean.rank, mean.system.as_str()),
            (&row[0], Some(number(&row[1]) as usize), &row[2])
        );
        for (value, cell) in [
            (mean.mean, &row[3]),
            (mean.low, &row[4]),
            (mean.high, &row[5]),
        ] {
            assert_eq!(value.map(f64::to_bits), Some(number(cell).to_bits()));
        }
        assert_eq!(
            (mean.topics, mean.scored),
            (number(&row[6]) as usize, number(&row[7]) as usize)
        );
        assert_eq!(mean.models.as_deref(), Some(&row[8]));
    }
    assert_eq!(warnings.len(), 1);
    assert!(stderr.contains(&warnings[0]), "{stderr}\n{warnings:?}");

    // JSON Lines for another name, and on standard output with `-`: the same rows.
    let systems_jsonl = dir.path().join("systems.jsonl");
    for (flag, file) in [("--systems", Some(&systems_jsonl)), ("--systems", None)] {
        let out = common::aesop()
            .arg("score")
            .arg(&set)
            .arg("-o")
            .arg(&predictions)
            .arg(flag)
            .arg(file.map_or_else(|| "-".into(), |f| f.as_os_str().to_owned()))
            .output()
            .expect("run");
        assert!(out.status.success());
        let text = match file {
            Some(f) => std::fs::read_to_string(f).expect("read"),
            None => String::from_utf8(out.stdout).expect("utf8"),
        };
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines.len(), 9);
        for (line, row) in lines.iter().zip(&rows) {
            assert_eq!(line["system"], row[2].to_string());
            assert_eq!(
                line["mean"].as_f64().expect("mean").to_bits(),
                number(&row[3]).to_bits()
            );
            assert_eq!(
                line["low"].as_f64().expect("low").to_bits(),
                number(&row[4]).to_bits()
            );
            assert_eq!(line["scored"], number(&row[7]) as u64);
        }
    }

    // Both on standard output: a usage error before anything is read; one file named twice:
    // refused, nothing written.
    let out = common::aesop()
        .args(["score", "missing.jsonl", "--systems", "-"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("would both go to standard output"));
    let same = dir.path().join("same.csv");
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("-o")
        .arg(&same)
        .arg("--systems")
        .arg(&same)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o and --systems name the same file"));
    assert!(!same.exists());
}
