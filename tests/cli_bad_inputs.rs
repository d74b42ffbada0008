//! Bad input files from issue 14 (item 10), end to end: a byte-order mark and a file of another
//! format given to the importers, repeated JSON keys, empty inputs to every verb that reads a
//! set, bare NaN in `evaluate`, empty plain-text files in `score`, and what the features note
//! says a topic lacks (docs/ROBUSTNESS.md).

use crate::common;
use aesop::corpus::import::import;
use std::path::{Path, PathBuf};

const BOM: &str = "\u{feff}";

/// One small valid source line (or, for realsumm, directory) per JSON importer.
fn sources(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let summeval = r#"{"doc_id": "d1", "src": "An article .", "ref_summ": "r0", "ref_summs": ["r0", "r1"], "sys_summs": {"M0": {"sys_summ": "A summary .", "scores": {"coherence": 1, "consistency": 2, "fluency": 3, "relevance": 4}}}}"#;
    let newsroom = r#"{"doc_id": "d1", "src": "An article .", "ref_summ": "r0", "sys_summs": {"M0": {"sys_summ": "A summary .", "scores": {"coherence": 1, "fluency": 3, "informativeness": 2, "relevance": 4}}}}"#;
    let summeval_op = r#"{"reviews": ["Good .", "Bad ."], "summaries": {"s1": {"summary": "Mixed .", "dimensions": {"Relevance": 3, "Coherence": 4, "Faithfulness": 5}}}}"#;
    let dialsummeval = r#"{"id": "1", "model_id": "B", "dialogue": "| A: hi | B: hello", "summary": "They greet .", "annotations": [{"relevance": 3, "coherence": 3, "consistency": 3}, {"relevance": 4, "coherence": 4, "consistency": 4}]}"#;
    let mut out = Vec::new();
    for (format, line) in [
        ("summeval", summeval),
        ("newsroom", newsroom),
        ("summeval-op", summeval_op),
        ("dialsummeval", dialsummeval),
    ] {
        let path = dir.join(format!("{format}.jsonl"));
        std::fs::write(&path, format!("{BOM}{line}\n")).expect("write");
        out.push((format, path));
    }
    let realsumm = dir.join("realsumm");
    std::fs::create_dir(&realsumm).expect("dir");
    let scores = r#"{"doc_id": 0, "ref_summ": "<t> r . </t>", "system_summaries": {"a.txt": {"system_summary": "<t> s . </t>", "scores": {"litepyramid_recall": 0.5}}}}"#;
    std::fs::write(
        realsumm.join("scores_abs.jsonl"),
        format!("{BOM}{scores}\n"),
    )
    .expect("abs");
    std::fs::write(
        realsumm.join("scores_ext.jsonl"),
        format!("{BOM}{}\n", scores.replace("a.txt", "b.txt")),
    )
    .expect("ext");
    std::fs::write(
        realsumm.join("src.txt"),
        format!("{BOM}<t> the article . </t>\n"),
    )
    .expect("src");
    out.push(("realsumm", realsumm));
    out
}

/// The standard error of a run that must fail with exit 1 (`what` names the run in messages).
fn failure_stderr(out: &std::process::Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    stderr
}

/// aesop run with `args` in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    common::aesop()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run")
}

/// The source of one format among [`sources`], written under `dir/format`.
fn source_of(dir: &std::path::Path, format: &str) -> std::path::PathBuf {
    let dir = dir.join(format);
    std::fs::create_dir_all(&dir).expect("source dir");
    sources(&dir)
        .into_iter()
        .find(|(f, _)| *f == format)
        .map(|(_, path)| path)
        .unwrap_or_else(|| panic!("no {format} source"))
}

/// The error (with its causes) of importing `path` as `format`, which must fail.
fn import_error(format: &str, path: &Path) -> String {
    match import(format, path) {
        Ok(_) => panic!("importing {} as {format} should fail", path.display()),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn every_importer_skips_a_leading_byte_order_mark() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (format, path) in sources(dir.path()) {
        let topics = import(format, &path).unwrap_or_else(|e| panic!("{format}: {e:#}"));
        assert_eq!(topics.len(), 1, "{format}");
        // The mark is not part of the first text read (realsumm: src.txt's first article).
        assert!(
            !topics[0].documents[0].text.starts_with(BOM),
            "{format}: {:?}",
            topics[0].documents[0].text
        );
    }
}

#[test]
fn an_importer_refuses_a_file_of_another_format_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sources = sources(dir.path());
    for (format, _) in &sources {
        for (other, path) in &sources {
            if format == other || path.is_dir() {
                continue;
            }
            let message = import_error(format, path);
            assert!(
                message.contains(&format!("{other}.jsonl")),
                "{format} on {other}: {message}"
            );
        }
    }
    // The shipped SummEval sample given to `import newsroom`: exit 1, the file, the line and the
    // missing field named, what the file looks like, and no output.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/summeval-sample.jsonl");
    let output = dir.path().join("out.jsonl");
    let out = common::aesop()
        .args(["import", "newsroom"])
        .arg(&sample)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("summeval-sample.jsonl:1: sys_summs.")
            && stderr.contains(".scores.informativeness: missing required field"),
        "{stderr}"
    );
    assert!(
        stderr.contains("looks like a summeval file, not a newsroom file"),
        "{stderr}"
    );
    assert!(!output.exists());
    // And the other way round.
    let newsroom = &sources[1].1;
    let message = import_error("summeval", newsroom);
    assert!(
        message
            .contains("newsroom.jsonl:1: sys_summs.M0.scores.consistency: missing required field"),
        "{message}"
    );
}

#[test]
fn realsumm_id_map_must_name_every_article_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let realsumm = source_of(dir.path(), "realsumm");
    let map = realsumm.join("doc_id_map.jsonl");
    let message_with_map = |lines: &str| {
        std::fs::write(&map, lines).expect("map");
        import_error("realsumm", &realsumm)
    };
    // A good map names the topic by its event id.
    std::fs::write(&map, "{\"doc_id\": 0, \"event_id\": \"cnndm7\"}\n").expect("map");
    let topics = import("realsumm", &realsumm).expect("a good map");
    assert_eq!(topics[0].topic, "cnndm7");
    let message = message_with_map(
        "{\"doc_id\": 0, \"event_id\": \"a\"}\n{\"doc_id\": 0, \"event_id\": \"b\"}\n",
    );
    assert!(
        message.contains("doc_id_map.jsonl:2: doc_id: 0 already mapped at line 1"),
        "{message}"
    );
    let message = message_with_map(
        "{\"doc_id\": 1, \"event_id\": \"a\"}\n{\"doc_id\": 0, \"event_id\": \"a\"}\n",
    );
    assert!(
        message.contains(
            "doc_id_map.jsonl:2: event_id: \"a\" already given to another doc_id at line 1"
        ),
        "{message}"
    );
    // A map that lacks an article's doc_id would mix event ids and doc_ids.
    let message = message_with_map("{\"doc_id\": 5, \"event_id\": \"a\"}\n");
    assert!(
        message.contains(
            "scores_abs.jsonl:1: doc_id: 0 is not in doc_id_map.jsonl, which maps 1 doc_ids"
        ),
        "{message}"
    );
}

/// Audit stop 52: an empty score file took every system of its kind out of REALSumm, and a
/// doc_id in one score file only gave a topic with fewer systems, both unsaid.
#[test]
fn realsumm_needs_both_score_files_and_says_when_topics_hold_fewer_systems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let realsumm = source_of(dir.path(), "realsumm");
    let abs = realsumm.join("scores_abs.jsonl");
    let kept = std::fs::read_to_string(&abs).expect("abs");
    std::fs::write(&abs, "").expect("empty abs");
    let message = import_error("realsumm", &realsumm);
    assert!(
        message.contains("scores_abs.jsonl: no records") && message.contains("both are needed"),
        "{message}"
    );
    // A second article (doc_id 1) scored only in scores_abs.jsonl: 1 system against 2.
    let second = kept
        .trim_start_matches(BOM)
        .replace("\"doc_id\": 0", "\"doc_id\": 1");
    std::fs::write(&abs, format!("{kept}{second}")).expect("abs");
    let src = realsumm.join("src.txt");
    let text = std::fs::read_to_string(&src).expect("src");
    std::fs::write(&src, format!("{text}<t> another article . </t>\n")).expect("src");
    let output = dir.path().join("out.jsonl");
    common::aesop()
        .args(["import", "realsumm"])
        .arg(&realsumm)
        .arg("-o")
        .arg(&output)
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "1 topic holds fewer systems than the 2 of the others (e.g. 1: 1)",
        ));
}

/// Audit stop 52: SummEval-OP took a summary without the dimensions mapped to targets (written
/// without its target) and a repeated line as a second product, unsaid; summeval and newsroom
/// already refused the former.
#[test]
fn summeval_op_needs_its_mapped_dimensions_and_one_line_per_product() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = source_of(dir.path(), "summeval-op");
    let line = std::fs::read_to_string(&path).expect("read");
    let line = line.trim_start_matches(BOM).trim_end().to_string();
    std::fs::write(&path, line.replace("\"Relevance\": 3, ", "")).expect("write");
    let message = import_error("summeval-op", &path);
    assert!(
        message.contains(":1: summaries.s1.dimensions.Relevance: missing required field (a summeval-op file scores Relevance, Coherence, Faithfulness"),
        "{message}"
    );
    std::fs::write(&path, format!("{line}\n{line}\n")).expect("write");
    let message = import_error("summeval-op", &path);
    assert!(
        message.contains(":2: reviews: the same reviews as line 1 (one product per line)"),
        "{message}"
    );
}

/// Audit stop 52: DialSummEval took a record without annotations (no scores) or an annotator
/// without a mapped dimension (the mean of fewer annotators), and REALSumm a summary without
/// `litepyramid_recall`, unsaid; the other importers refuse a missing mapped score.
#[test]
fn dialsummeval_and_realsumm_need_their_mapped_scores() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dialsummeval = source_of(dir.path(), "dialsummeval");
    let text = std::fs::read_to_string(&dialsummeval).expect("read");
    for (edited, expected) in [
        (
            text.replace("\"relevance\": 4, ", ""),
            ":1: annotations[1].relevance: missing required field (a dialsummeval file scores relevance, coherence, consistency",
        ),
        (
            text.replace(
                "[{\"relevance\": 3, \"coherence\": 3, \"consistency\": 3}, {\"relevance\": 4, \"coherence\": 4, \"consistency\": 4}]",
                "[]",
            ),
            ":1: annotations: no annotations",
        ),
    ] {
        assert_ne!(edited, text);
        std::fs::write(&dialsummeval, edited).expect("write");
        let message = import_error("dialsummeval", &dialsummeval);
        assert!(message.contains(expected), "{message}");
    }
    let realsumm = source_of(dir.path(), "realsumm");
    let abs = realsumm.join("scores_abs.jsonl");
    let text = std::fs::read_to_string(&abs).expect("read");
    std::fs::write(
        &abs,
        text.replace("\"litepyramid_recall\": 0.5", "\"rouge_1_recall\": 0.5"),
    )
    .expect("write");
    let message = import_error("realsumm", &realsumm);
    assert!(
        message.contains("scores_abs.jsonl:1: system_summaries.a.txt.scores.litepyramid_recall: missing required field"),
        "{message}"
    );
}

#[test]
fn a_repeated_article_id_names_both_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (format, path) in sources(dir.path()) {
        if !matches!(format, "summeval" | "newsroom") {
            continue;
        }
        let line = std::fs::read_to_string(&path).expect("read");
        let line = line.trim_start_matches(BOM).trim_end();
        std::fs::write(&path, format!("{line}\n\n{line}\n")).expect("write");
        let message = import_error(format, &path);
        assert!(
            message.contains(&format!(
                "{format}.jsonl:3: doc_id: \"d1\" already given at line 1"
            )),
            "{format}: {message}"
        );
    }
}

#[test]
fn repeated_json_keys_are_refused_with_file_line_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let good = r#"{"topic": "t1", "documents": [{"id": "d", "text": "A text ."}], "summaries": [{"system": "a", "text": "A summary ."}]}"#;
    let bad = r#"{"topic": "t2", "documents": [{"id": "d", "text": "A text ."}], "summaries": [{"system": "a", "text": "A summary .", "scores": {"relevance": 1, "relevance": 5}}]}"#;
    std::fs::write(&set, format!("{good}\n{bad}\n")).expect("write");
    let output = dir.path().join("f.csv");
    let out = common::aesop()
        .arg("features")
        .arg(&set)
        .args(["--classes", "surface", "-o"])
        .arg(&output)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("set.jsonl:2: summaries[0].scores.relevance: duplicate key \"relevance\""),
        "{stderr}"
    );
    assert!(!output.exists());
    // An imported line too.
    let source = dir.path().join("se.jsonl");
    std::fs::write(
        &source,
        r#"{"doc_id": "d1", "src": "one", "src": "two", "ref_summ": "r", "sys_summs": {}}"#,
    )
    .expect("write");
    let message = import_error("summeval", &source);
    assert!(
        message.contains("se.jsonl:1: src: duplicate key \"src\""),
        "{message}"
    );
}

#[test]
fn an_empty_input_is_refused_by_every_verb_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let predictions = dir.path().join("pred.jsonl");
    std::fs::write(
        &predictions,
        "{\"topic\": \"t\", \"system\": \"s\", \"score\": 1}\n",
    )
    .expect("write");
    for (name, content) in [("zero.jsonl", ""), ("blank.jsonl", "\n  \n\r\n")] {
        let set = dir.path().join(name);
        std::fs::write(&set, content).expect("write");
        let output = dir.path().join("out");
        let runs: Vec<Vec<&str>> = vec![
            vec!["features", "--classes", "surface"],
            vec!["score", "--model", "builtin:readability-noref"],
            vec!["train", "--target", "relevance", "--classes", "surface"],
            vec![
                "cross-validate",
                "--target",
                "relevance",
                "--classes",
                "surface",
            ],
        ];
        for args in runs {
            let out = common::aesop()
                .args(&args)
                .arg(&set)
                .arg("-o")
                .arg(&output)
                .output()
                .expect("run");
            let stderr = failure_stderr(&out, &format!("{args:?} {name}"));
            assert!(
                stderr.contains(&format!("{name}: no topics")),
                "{args:?} {name}: {stderr}"
            );
            assert!(
                !output.exists(),
                "{args:?} {name} wrote {}",
                output.display()
            );
        }
        let out = common::aesop()
            .arg("evaluate")
            .arg(&predictions)
            .arg("--human")
            .arg(&set)
            .args(["--target", "relevance"])
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "evaluate {name}: {stderr}");
        assert!(stderr.contains(&format!("{name}: no topics")), "{stderr}");
    }
}

#[test]
fn evaluate_reads_a_bare_nan_as_missing_like_the_set_reader() {
    use aesop::eval::report::{read_human, read_metric, HumanScore};
    let dir = tempfile::tempdir().expect("tempdir");
    let predictions = dir.path().join("pred.jsonl");
    std::fs::write(
        &predictions,
        "{\"topic\": \"t\", \"system\": \"a\", \"score\": NaN}\n\
         {\"topic\": \"t\", \"system\": \"b\", \"score\": \"NaN\"}\n\
         {\"topic\": \"t\", \"system\": \"c\", \"score\": 0.5}\n",
    )
    .expect("write");
    let metric = read_metric(&predictions, "relevance", None).expect("bare NaN is missing");
    assert_eq!(metric.rows.len(), 1);
    assert_eq!(metric.missing, 2);
    // The same NaN in a human score: also missing.
    let set = dir.path().join("set.jsonl");
    std::fs::write(
        &set,
        r#"{"topic": "t", "summaries": [{"system": "a", "text": "x", "scores": {"relevance": NaN}}, {"system": "c", "text": "y", "scores": {"relevance": 2}}]}"#,
    )
    .expect("write");
    let human = read_human(&set, "relevance").expect("read");
    assert_eq!(
        human,
        vec![HumanScore {
            topic: "t".into(),
            system: "c".into(),
            score: 2.0,
            words: Some(1)
        }]
    );
    // An infinite prediction is an error naming file, line and field, as in a set.
    std::fs::write(
        &predictions,
        "{\"topic\": \"t\", \"system\": \"a\", \"score\": 1}\n{\"topic\": \"t\", \"system\": \"b\", \"score\": -Infinity}\n",
    )
    .expect("write");
    let message = format!(
        "{:#}",
        read_metric(&predictions, "relevance", None).expect_err("inf")
    );
    assert!(
        message.contains("pred.jsonl:2: score: infinite"),
        "{message}"
    );
}

/// A bare NaN where a text or id belongs (pandas' missing cell, written by `json.dumps`) is a
/// missing value, not the text "NaN" (audit stop 54: such a summary was scored as the word
/// "NaN"); a NaN list is an absent one, so a topic without references reads as one.
#[test]
fn a_bare_nan_text_is_missing_not_the_word_nan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let line = |summary_text: &str| {
        format!(
            r#"{{"topic": "t1", "documents": [{{"id": "d", "text": "The cat sat on the mat all day long."}}], "references": NaN, "summaries": [{{"system": "s1", "text": {summary_text}, "scores": {{"relevance": NaN}}}}, {{"system": "s2", "text": "A cat sat."}}]}}"#
        )
    };
    std::fs::write(&set, line("NaN") + "\n").expect("write");
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .output()
        .expect("score");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("set.jsonl:1: summaries[0].text: missing (null, or a bare NaN"),
        "{stderr}"
    );
    // A real text "NaN" is a text, and the NaN references an absent list: the reference-free
    // defaults score the topic.
    std::fs::write(&set, line(r#""NaN""#) + "\n").expect("write");
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .output()
        .expect("score");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(r#""model":"pyramid-noref""#), "{stdout}");
}

#[test]
fn empty_plain_text_documents_and_references_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    };
    let article = write(
        "article.txt",
        "The council approved a new budget on Monday.",
    );
    let summary = write("summary.txt", "The council approved a budget.");
    let empty = write("empty.txt", "");
    let blank = write("blank.txt", " \n\t\n");
    for (flag, file, what) in [
        ("--documents", &empty, "document"),
        ("--documents", &blank, "document"),
        ("--reference", &blank, "reference"),
    ] {
        let mut command = common::aesop();
        command.args(["score", "--model", "builtin:readability-noref"]);
        if flag == "--documents" {
            command.arg("--documents").arg(file);
        } else {
            command
                .arg("--documents")
                .arg(&article)
                .arg("--reference")
                .arg(file);
        }
        let out = command
            .arg("--summary")
            .arg(&summary)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{flag} {file:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{}: empty {what} file", file.display())),
            "{stderr}"
        );
    }
    // An empty summary is still scored null with a warning, which names its file.
    let out = common::aesop()
        .args([
            "score",
            "--model",
            "builtin:readability-noref",
            "--documents",
        ])
        .arg(&article)
        .arg("--summary")
        .arg(&empty)
        .arg(&summary)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 summary not scored") && stderr.contains(&empty.display().to_string()),
        "{stderr}"
    );
}

/// In a set file a blank document or reference text is refused as an empty document file is,
/// naming the file, line and field, and nothing is written: it would have changed every score
/// of its topic (content features imputed, ROUGE 0), unsaid.
#[test]
fn blank_documents_and_references_in_a_set_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let line = |topic: &str, document: &str, reference: &str| {
        format!(
            r#"{{"topic": "{topic}", "documents": [{{"id": "d", "text": "{document}"}}], "references": [{{"id": "A", "text": "{reference}"}}], "summaries": [{{"system": "s", "text": "The council approved a budget on Monday."}}]}}"#
        )
    };
    let good = line(
        "t1",
        "The council approved a new budget.",
        "The council approved a budget.",
    );
    for (bad, field) in [
        (
            line("t2", " \\n ", "The council approved a budget."),
            "documents[0].text: empty document text",
        ),
        (
            line("t2", "The council approved a new budget.", ""),
            "references[0].text: empty reference text",
        ),
    ] {
        let set = dir.path().join("set.jsonl");
        std::fs::write(&set, format!("{good}\n{bad}\n")).expect("write");
        let output = dir.path().join("scores.jsonl");
        let out = common::aesop()
            .arg("score")
            .arg(&set)
            .arg("-o")
            .arg(&output)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!("set.jsonl:2: {field}")),
            "{stderr}"
        );
        assert!(!output.exists(), "{field}: output written");
    }
}

#[test]
fn the_features_note_says_what_a_topic_lacks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    // t1 has documents and references; t2 has a reference but no documents.
    let t1 = r#"{"topic": "t1", "documents": [{"id": "d", "text": "The council approved a new budget on Monday. Critics objected."}], "references": [{"id": "A", "text": "The council approved a budget."}], "summaries": [{"system": "s", "text": "The council approved a budget on Monday."}]}"#;
    let t2 = r#"{"topic": "t2", "references": [{"id": "A", "text": "The council approved a budget."}], "summaries": [{"system": "s", "text": "The council approved a budget on Monday."}]}"#;
    std::fs::write(&set, format!("{t1}\n{t2}\n")).expect("write");
    let out = common::aesop()
        .arg("features")
        .arg(&set)
        .args(["--classes", "content", "-o"])
        .arg(dir.path().join("f.csv"))
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "class content has no values for 1 summary in 1 topic (e.g. t2): no input documents"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("no references"), "{stderr}");
}

/// Audit stop 52: a blank source or reference in a JSON source stopped the import with the
/// written set's field (`documents[0].text`). Now the importers leave blank documents and
/// references out, as the NIST importers do, and say where the first one was; a blank id is
/// an error at its source line and field.
#[test]
fn blank_texts_are_left_out_and_blank_ids_refused_at_their_source_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let edit = |path: &Path, from: &str, to: &str| {
        let text = std::fs::read_to_string(path).expect("read");
        assert!(text.contains(from), "{from} in {}", path.display());
        std::fs::write(path, text.replacen(from, to, 1)).expect("write");
    };
    // A blank source: the topic is imported without documents.
    for (format, source) in [
        ("summeval", "\"src\": \"An article .\""),
        ("newsroom", "\"src\": \"An article .\""),
        ("dialsummeval", "\"dialogue\": \"| A: hi | B: hello\""),
    ] {
        let path = source_of(&dir.path().join("source"), format);
        let key = source.split(':').next().expect("key");
        edit(&path, source, &format!("{key}: \" \""));
        let topics = import(format, &path).unwrap_or_else(|e| panic!("{format}: {e:#}"));
        assert!(topics[0].documents.is_empty(), "{format}");
        assert_eq!(topics[0].summaries.len(), 1, "{format}");
    }
    let summeval_op = source_of(&dir.path().join("source"), "summeval-op");
    edit(&summeval_op, "\"Good .\"", "\"\"");
    let topics = import("summeval-op", &summeval_op).expect("summeval-op");
    let ids: Vec<&str> = topics[0].documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["rev2"]);
    let realsumm = source_of(&dir.path().join("source"), "realsumm");
    std::fs::write(realsumm.join("src.txt"), "\n").expect("blank article");
    edit(
        &realsumm.join("scores_abs.jsonl"),
        "<t> r . </t>",
        "<t> </t>",
    );
    let topics = import("realsumm", &realsumm).expect("realsumm");
    assert!(topics[0].documents.is_empty() && topics[0].references.is_empty());
    // A blank reference: left out, the others keep their ids.
    let summeval = source_of(&dir.path().join("reference"), "summeval");
    edit(&summeval, "\"ref_summs\": [\"r0\"", "\"ref_summs\": [\"\"");
    let topics = import("summeval", &summeval).expect("summeval");
    let ids: Vec<&str> = topics[0].references.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["ref1"]);
    // A blank gold summary stays a human summary, but is no reference.
    let dialsummeval = source_of(&dir.path().join("reference"), "dialsummeval");
    edit(&dialsummeval, "\"model_id\": \"B\"", "\"model_id\": \"A\"");
    edit(&dialsummeval, "\"They greet .\"", "\"\"");
    let topics = import("dialsummeval", &dialsummeval).expect("dialsummeval");
    assert!(topics[0].references.is_empty());
    assert!(topics[0].summaries[0].human);
    // The CLI says where the first blank text was.
    common::aesop()
        .args(["import", "summeval"])
        .arg(&summeval)
        .arg("-o")
        .arg(dir.path().join("out.jsonl"))
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "summeval.jsonl:1: ref_summs[0]: blank text left out",
        ));
    // Blank ids: errors at the source's line and field, and no set.
    for (format, from, to, expected) in [
        (
            "summeval",
            "\"doc_id\": \"d1\"",
            "\"doc_id\": \"\"",
            ":1: doc_id: must not be empty",
        ),
        (
            "newsroom",
            "\"M0\"",
            "\" \"",
            ":1: sys_summs. : a system named by a blank key",
        ),
        (
            "dialsummeval",
            "\"model_id\": \"B\"",
            "\"model_id\": \"\"",
            ":1: model_id: must not be empty",
        ),
        (
            "summeval-op",
            "\"s1\"",
            "\"\"",
            ":1: summaries.: a system named by a blank key",
        ),
    ] {
        let path = source_of(&dir.path().join("id"), format);
        edit(&path, from, to);
        let message = import_error(format, &path);
        assert!(message.contains(expected), "{format}: {message}");
    }
}

/// Text that is not English gets a warning from every verb that reads it (once per part of a
/// topic: documents, references, summaries), and the work is still done; English text, the
/// shipped sample included, gets none (docs/ROBUSTNESS.md, "Stop 78 audit").
#[test]
fn text_that_is_not_english_is_warned_about_by_every_verb_that_reads_it() {
    const FRENCH: &str = "Le conseil municipal a adopté lundi un nouveau budget qui augmente les \
        dépenses pour les écoles et les parcs. Les critiques affirment que les coûts des \
        transports ont été ignorés par la majorité, et l'opposition promet des amendements.";
    const ENGLISH: &str = "The city council approved a new budget on Monday that raises \
        spending on schools and parks. Critics said that transport costs were ignored by the \
        majority, and the opposition promised amendments.";
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name);
    // Two French topics whose summaries are English, and one English topic.
    let topic = |id: &str, document: &str| {
        serde_json::json!({
            "topic": id,
            "documents": [{"id": "d1", "text": document}],
            "summaries": [
                {"system": "a", "text": ENGLISH, "scores": {"relevance": 4}},
                {"system": "b", "text": &ENGLISH[..120], "scores": {"relevance": 2}},
                {"system": "c", "text": &ENGLISH[40..], "scores": {"relevance": 3}},
            ],
        })
        .to_string()
    };
    let set = path("set.jsonl");
    std::fs::write(
        &set,
        [
            topic("fr1", FRENCH),
            topic("fr2", FRENCH),
            topic("en", ENGLISH),
        ]
        .join("\n")
            + "\n",
    )
    .expect("set");
    let documents_warning = "the documents of 2 topics do not read as English (e.g. topic 'fr1': ";
    let run = |args: &[&str]| {
        let out = common::aesop()
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {stderr}");
        stderr
    };
    for args in [
        &["score", "set.jsonl", "-o", "scores.jsonl"][..],
        &[
            "features",
            "set.jsonl",
            "--classes",
            "content",
            "-o",
            "features.csv",
        ],
        &[
            "train",
            "set.jsonl",
            "--target",
            "relevance",
            "--classes",
            "content",
            "-o",
            "m.aesop",
        ],
    ] {
        let stderr = run(args);
        assert!(stderr.contains(documents_warning), "{args:?}: {stderr}");
        // The summaries are English, so only the documents are named.
        assert_eq!(
            stderr.matches("do not read as English").count(),
            1,
            "{args:?}: {stderr}"
        );
    }
    // The work was done: every summary scored, every feature row written.
    let scores = std::fs::read_to_string(path("scores.jsonl")).expect("scores");
    assert_eq!(scores.lines().count(), 9 * 3, "{scores}");
    assert!(!scores.contains("null"), "{scores}");
    assert_eq!(
        std::fs::read_to_string(path("features.csv"))
            .expect("features")
            .lines()
            .count(),
        1 + 9
    );
    // Plain text names its files; French summaries are named too.
    let score_plain = |article: &str, summary: &str| {
        std::fs::write(path("article.txt"), article).expect("article");
        std::fs::write(path("summary.txt"), summary).expect("summary");
        run(&[
            "score",
            "--documents",
            "article.txt",
            "--summary",
            "summary.txt",
            "-o",
            "plain.jsonl",
        ])
    };
    let stderr = score_plain(FRENCH, &FRENCH[..160]);
    assert!(
        stderr.contains("the documents of article.txt do not read as English (")
            && stderr.contains("the summaries of summary.txt do not read as English ("),
        "{stderr}"
    );
    // English text: no such warning.
    let stderr = score_plain(ENGLISH, &ENGLISH[..120]);
    assert!(!stderr.contains("English"), "{stderr}");
}

/// No English text of the public sets is taken for another language: each document, reference
/// and summary alone, and each topic's parts pooled (the figures in
/// `aesop_features::language`'s documentation).
#[test]
fn no_text_of_the_public_sets_is_taken_for_another_language() {
    use aesop::corpus::{Summary, Topic};
    use aesop::features::language::non_english_parts;
    let mut sets = vec![(
        "summeval-sample",
        import(
            "summeval",
            &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/data/summeval-sample.jsonl"),
        )
        .expect("the shipped sample"),
    )];
    for (format, relative) in [
        ("summeval", "summeval/summeval.jsonl"),
        ("newsroom", "newsroom/newsroom.jsonl"),
        ("dialsummeval", "dialsummeval/human_judgment.jsonl"),
        ("summeval-op", "summeval-op/summeval-op.jsonl"),
        ("realsumm", "realsumm"),
    ] {
        let Some(path) = common::data_or_skip(
            "no_text_of_the_public_sets_is_taken_for_another_language",
            relative,
        ) else {
            continue;
        };
        sets.push((format, import(format, &path).expect("import")));
    }
    for (name, topics) in &sets {
        let mut texts = 0;
        for topic in topics {
            let parts = non_english_parts(topic);
            assert!(parts.is_empty(), "{name}, topic {}: {parts:?}", topic.topic);
            let alone = topic
                .documents
                .iter()
                .map(|d| &d.text)
                .chain(topic.references.iter().map(|r| &r.text))
                .chain(topic.summaries.iter().map(|s| &s.text));
            for text in alone {
                let mut one = Topic::new("one");
                one.summaries.push(Summary::new("s", text.clone()));
                let parts = non_english_parts(&one);
                assert!(parts.is_empty(), "{name}: {parts:?} for {text:?}");
                texts += 1;
            }
        }
        assert!(texts > 0, "{name}");
    }
}

/// A pipe (a FIFO, bash's `<(…)`) as the input of a verb that records its inputs' content hashes
/// is refused before any read, as `-` is: `train <(cat set.jsonl)` recorded the hash of nothing
/// (`cbf29ce484222325`, FNV-1a of no bytes) and the set's name as `63`. `score` still reads a set
/// from a pipe.
#[test]
fn a_pipe_is_refused_where_the_input_is_hashed_and_read_where_it_is_streamed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("set.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let fifo_name = fifo.display().to_string();
    let learn = |verb: &'static str, output: &'static str| {
        let mut args = vec![verb, fifo_name.as_str()];
        args.extend([
            "--target",
            "relevance",
            "--classes",
            "surface",
            "-o",
            output,
        ]);
        args
    };
    for args in [
        learn("train", "m.aesop"),
        learn("cross-validate", "cv.jsonl"),
        vec![
            "evaluate",
            "cv.jsonl",
            "--human",
            &fifo_name,
            "--target",
            "relevance",
        ],
    ] {
        let out = common::aesop()
            .args(&args)
            .current_dir(dir.path())
            .output()
            .expect("run");
        let stderr = failure_stderr(&out, &format!("{args:?}"));
        assert!(
            stderr.contains(&format!("{fifo_name}: a pipe or device, not a file")),
            "{args:?}: {stderr}"
        );
    }
    assert!(!dir.path().join("m.aesop").exists());
    // `score` streams the set from the pipe.
    let set = std::fs::read(common::fixture("eval/set.jsonl")).expect("set");
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, set).expect("write the pipe"))
    };
    let out = common::aesop()
        .args(["score", &fifo_name, "--model", "builtin:readability-noref"])
        .output()
        .expect("run");
    writer.join().expect("writer");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.stdout.is_empty());
}

/// `RAYON_NUM_THREADS` is checked before any work: rayon ignored a value that is not a number and
/// tried to start any count asked for (100,000: the process aborted with "fatal runtime error:
/// failed to initiate panic"). 0 or empty is one thread per core, as rayon reads it.
#[test]
fn a_bad_worker_thread_count_is_an_error_naming_the_variable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    std::fs::write(
        &set,
        std::fs::read(common::fixture("eval/set.jsonl")).expect("set"),
    )
    .expect("write");
    let score = |threads: &str| {
        common::aesop()
            .env("RAYON_NUM_THREADS", threads)
            .args(["score", "--model", "builtin:readability-noref"])
            .arg(&set)
            .output()
            .expect("run")
    };
    for (value, expected) in [
        (
            "abc",
            "RAYON_NUM_THREADS is 'abc': expected a whole number of worker threads",
        ),
        (
            "-1",
            "RAYON_NUM_THREADS is '-1': expected a whole number of worker threads",
        ),
        (
            "100000",
            "RAYON_NUM_THREADS is 100000: at most 1024 worker threads",
        ),
    ] {
        let out = score(value);
        let stderr = failure_stderr(&out, value);
        assert!(stderr.contains(expected), "{value}: {stderr}");
        assert!(out.stdout.is_empty(), "{value}");
    }
    for value in ["", "0", "1", "3"] {
        let out = score(value);
        assert!(
            out.status.success(),
            "{value:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A file name need not be UTF-8 (Linux allows any byte but `/` and NUL), and every flag that
/// takes a path reads it as given. The flags that split their argument (`--model NAME=PATH`,
/// `--set PATH:COLUMN`, `--also FEATURES=SET:COLUMN`) and `models NAME` read it as a `String`,
/// so clap refused such a path with "invalid UTF-8 was detected in one or more arguments" before
/// aesop saw it, while the positional paths of the same verbs read it.
#[cfg(unix)]
#[test]
fn paths_that_are_not_utf8_are_read_by_every_flag_that_takes_one() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let named = |prefix: &str, suffix: &str| {
        let mut bytes = prefix.as_bytes().to_vec();
        bytes.push(0xff);
        bytes.extend_from_slice(suffix.as_bytes());
        OsString::from_vec(bytes)
    };
    let sample = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let set = named("set", ".jsonl");
    std::fs::copy(&sample, dir.path().join(&set)).expect("copy the set");
    let model = named("m", ".aesop");
    let with = |prefix: &str, path: &OsString, suffix: &str| {
        let mut text = OsString::from(prefix);
        text.push(path);
        text.push(suffix);
        text
    };
    let run = |args: Vec<OsString>| {
        common::stdout_of_success(
            common::aesop()
                .args(&args)
                .current_dir(dir.path())
                .output()
                .expect("run"),
        )
    };
    let args = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
    let mut train = args(&["train", "--classes", "surface", "-o"]);
    train.push(model.clone());
    train.push("--set".into());
    train.push(with("", &set, ":relevance"));
    run(train);
    let card = run(vec!["models".into(), model.clone()]);
    assert!(
        String::from_utf8_lossy(&card).contains("Predicts `relevance`"),
        "{}",
        String::from_utf8_lossy(&card)
    );
    let out = common::aesop()
        .args(["models".into(), named("nope", ".aesop")])
        .current_dir(dir.path())
        .output()
        .expect("run");
    let stderr = failure_stderr(&out, "models of a missing file");
    assert!(
        stderr.contains("reading a model file: nope\u{fffd}.aesop: cannot open: "),
        "{stderr}"
    );
    // Named by its stem (read lossily into the output), or by NAME=PATH.
    let mut score = args(&["score", "sample.jsonl", "--format", "csv", "--model"]);
    score.push(model.clone());
    score.push("--model".into());
    score.push(with("mine=", &model, ""));
    let predictions = String::from_utf8(run(score)).expect("UTF-8 predictions");
    assert!(
        predictions.starts_with("topic,system,m\u{fffd},mine,in_training\n"),
        "{predictions}"
    );
    // A name is UTF-8: a name that is not is refused, naming the flag's rule.
    let mut bad_name = args(&["score", "sample.jsonl", "--model"]);
    bad_name.push(with(
        "",
        &named("n", ""),
        &format!("={}", model.to_string_lossy()),
    ));
    let out = common::aesop()
        .args(&bad_name)
        .current_dir(dir.path())
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not UTF-8"), "{stderr}");
    // `evaluate --features --also` judges the features on the set named with such a path.
    run(args(&[
        "features",
        "sample.jsonl",
        "--classes",
        "surface",
        "-o",
        "f.csv",
    ]));
    let mut also = args(&[
        "evaluate",
        "f.csv",
        "--features",
        "surface.*",
        "--human",
        "sample.jsonl",
        "--target",
        "relevance",
        "--bootstrap",
        "0",
        "--also",
    ]);
    also.push(with("f.csv=", &set, ":relevance"));
    let report = String::from_utf8_lossy(&run(also)).into_owned();
    assert!(report.contains("set\u{fffd}"), "{report}");
}

/// Plain text (`score --documents/--summary/--reference`, `analyze`, `analyze --conllu`, the
/// importers' text files) is read through one function: a byte that is not UTF-8 is named by
/// file, line and byte within the line, as the judgment-set reader names it (the readers said
/// `not UTF-8 (invalid byte at offset 7)`, `invalid UTF-8 at byte 8`, `not valid UTF-8 (byte 7 of
/// the file)`), and a leading byte-order mark is skipped (`score` read it into the document).
/// `analyze` still reads such bytes as U+FFFD, but says so.
#[test]
fn plain_text_is_utf8_named_by_line_and_byte_and_a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes);
    let document = "The cafe in Zurich opened on Monday. It serves coffee and cake to visitors.\n";
    write("d.txt", document.as_bytes()).expect("write");
    write("bom.txt", format!("\u{feff}{document}").as_bytes()).expect("write");
    write(
        "latin1.txt",
        b"The cafe opened.\nThe caf\xe9 in Z\xfcrich.\n",
    )
    .expect("write");
    write("s.txt", b"The cafe opened on Monday.\n").expect("write");
    let run = |args: &[&str]| run_in(dir.path(), args);
    let scores = |document: &str| {
        let out = run(&["score", "--documents", document, "--summary", "s.txt"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    assert_eq!(scores("d.txt"), scores("bom.txt"));
    let expected =
        "latin1.txt:2: invalid UTF-8 at byte 8 of the line (aesop reads UTF-8; re-encode";
    for args in [
        &["score", "--documents", "latin1.txt", "--summary", "s.txt"][..],
        &["score", "--documents", "d.txt", "--summary", "latin1.txt"],
    ] {
        let stderr = failure_stderr(&run(args), &format!("{args:?}"));
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let out = run(&["analyze", "latin1.txt"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: latin1.txt:2: invalid UTF-8 at byte 8 of the line; such bytes are read as U+FFFD"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("caf\u{fffd}"));
    write("latin1.conllu", b"1\tcaf\xe9\t_\t_\t_\t_\t_\t_\t_\t_\n\n").expect("write");
    let stderr = failure_stderr(&run(&["analyze", "--conllu", "latin1.conllu"]), "conllu");
    assert!(
        stderr.contains("latin1.conllu:1: invalid UTF-8 at byte 6 of the line"),
        "{stderr}"
    );
}

/// A file saved as UTF-16 (Windows Notepad's "Unicode", Excel's "Unicode Text"), with or
/// without its byte-order mark, a PDF or a word processor's ZIP is named for what it is by every
/// reader of text: plain-text inputs, judgment sets, predictions and features files. UTF-16
/// without its mark is valid UTF-8 (a NUL beside each ASCII character), so `score --summary`
/// scored it as text of NULs, and `evaluate` reported `key must be a string`.
#[test]
fn files_in_utf16_or_not_text_are_named_for_what_they_are() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes);
    let utf16 = |text: &str, big: bool, mark: bool| -> Vec<u8> {
        let units = mark
            .then_some(0xfeff_u16)
            .into_iter()
            .chain(text.encode_utf16());
        units
            .flat_map(|u| {
                if big {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect()
    };
    let document = "The council approved the budget on Monday. Spending on schools rises.\n";
    let summary = "The council approved the budget.\n";
    write("d.txt", document.as_bytes()).expect("write");
    write("s.txt", summary.as_bytes()).expect("write");
    write("s16.txt", &utf16(summary, false, true)).expect("write");
    write("s16be.txt", &utf16(summary, true, false)).expect("write");
    write("s16le.txt", &utf16(summary, false, false)).expect("write");
    write("s.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n").expect("write");
    write("s.docx", b"PK\x03\x04\x14\x00\x06\x00\x08\x00").expect("write");
    write("nul.txt", b"The council\x00 approved it.\n").expect("write");
    let run = |args: &[&str]| run_in(dir.path(), args);
    let mark = "it is UTF-16 (as Windows Notepad saves \"Unicode\"); aesop reads UTF-8: re-encode \
        the file, e.g. with `iconv -f UTF-16 -t UTF-8`";
    for (file, expected) in [
        (
            "s16.txt",
            format!("s16.txt:1: invalid UTF-8 at byte 1 of the line ({mark})"),
        ),
        (
            "s16be.txt",
            "s16be.txt:1: a NUL byte at byte 1 of the line (it looks like UTF-16 big-endian \
             without a byte-order mark; aesop reads UTF-8: re-encode the file, e.g. with `iconv \
             -f UTF-16BE -t UTF-8`)"
                .into(),
        ),
        (
            "s16le.txt",
            "s16le.txt:1: a NUL byte at byte 2 of the line (it looks like UTF-16 little-endian"
                .into(),
        ),
        (
            "s.pdf",
            "(it is a PDF, not text: give its text (e.g. from `pdftotext FILE`))".into(),
        ),
        (
            "s.docx",
            "(it is a ZIP archive (as .docx, .xlsx and .odt files are)".into(),
        ),
        (
            "nul.txt",
            "nul.txt:1: a NUL byte at byte 12 of the line (text holds no NUL byte".into(),
        ),
    ] {
        let stderr = failure_stderr(
            &run(&["score", "--documents", "d.txt", "--summary", file]),
            file,
        );
        assert!(stderr.contains(&expected), "{file}: {stderr}");
    }

    // A judgment set, and the predictions and features written from one, saved as UTF-16.
    let set = serde_json::json!({
        "topic": "t1",
        "documents": [{"id": "d", "text": document}],
        "summaries": [
            {"system": "a", "text": summary, "scores": {"readability": 4}},
            {"system": "b", "text": "Spending rises.", "scores": {"readability": 3}},
        ],
    })
    .to_string()
        + "\n";
    write("set.jsonl", set.as_bytes()).expect("write");
    write("set16.jsonl", &utf16(&set, false, true)).expect("write");
    write("set16le.jsonl", &utf16(&set, false, false)).expect("write");
    let stderr = failure_stderr(&run(&["score", "set16.jsonl"]), "set16");
    assert!(
        stderr.contains(&format!(
            "set16.jsonl:1: invalid UTF-8 at byte 1 of the line ({mark})"
        )),
        "{stderr}"
    );
    let stderr = failure_stderr(&run(&["score", "set16le.jsonl"]), "set16le");
    assert!(
        stderr.contains(
            "set16le.jsonl:1: malformed JSON at column 2: key must be a string (it \
            looks like UTF-16 little-endian without a byte-order mark"
        ),
        "{stderr}"
    );
    for (verb, output) in [
        ("score", "p.jsonl"),
        ("score", "p.csv"),
        ("features", "f.csv"),
    ] {
        let mut args = vec![verb, "set.jsonl", "-o", output];
        if verb == "features" {
            args.extend(["--classes", "surface"]);
        }
        let out = run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(dir.path().join(output)).expect("read");
        let saved = format!("16{output}");
        write(&saved, &utf16(&text, false, true)).expect("write");
        for feature in [None, Some("readability"), Some("surface.summary_words")] {
            let mut args = vec!["evaluate", &saved, "--human", "set.jsonl"];
            args.extend(["--target", "readability", "--bootstrap", "0"]);
            if let Some(feature) = feature {
                args.extend(["--feature", feature]);
            }
            let stderr = failure_stderr(&run(&args), &format!("{args:?}"));
            assert!(
                stderr.contains(&format!("{saved}: not UTF-8 text: {mark}")),
                "{args:?}: {stderr}"
            );
        }
    }
}

/// A gzip-compressed set on standard input, or under a name without `.gz`, is read decompressed
/// (it was refused as "invalid UTF-8 at byte 2 of the line" with advice to re-encode it).
#[test]
fn a_gzip_compressed_set_is_read_whatever_its_name_or_from_a_pipe() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = std::fs::read(common::fixture("eval/set.jsonl")).expect("set");
    let misnamed = dir.path().join("set.jsonl");
    std::fs::write(&misnamed, common::gzip(&set)).expect("write");
    let score = |args: &[&str], stdin: Vec<u8>| {
        common::stdout_of_success(
            common::aesop()
                .args(["score", "--model", "builtin:readability-noref"])
                .args(args)
                .write_stdin(stdin)
                .current_dir(dir.path())
                .output()
                .expect("run"),
        )
    };
    let expected = score(
        &[&common::fixture("eval/set.jsonl").display().to_string()],
        Vec::new(),
    );
    assert!(!expected.is_empty());
    assert_eq!(score(&["set.jsonl"], Vec::new()), expected);
    assert_eq!(score(&["-"], common::gzip(&set)), expected);
}
