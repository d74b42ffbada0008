//! `aesop import lines`: line-aligned text files (a file per system, one summary per line, with
//! reference and document files aligned to them) become a judgment set, one topic per line.

use crate::common;
use std::path::Path;

/// `aesop import lines ARGS…` run in `dir`.
fn import_lines(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    common::aesop()
        .current_dir(dir)
        .args(["import", "lines"])
        .args(args)
        .assert()
}

/// The message of an import that fails with `code`, having written nothing.
fn import_error(dir: &Path, args: &[&str], code: i32) -> String {
    let out = import_lines(dir, &[args, &["-o", "refused.jsonl"]].concat())
        .code(code)
        .get_output()
        .clone();
    assert!(!dir.join("refused.jsonl").exists(), "{args:?} wrote a set");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Write `text` as the file `name` under `dir` (its directories made).
fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A temporary directory holding `files` (name, text).
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        write(dir.path(), name, text);
    }
    dir
}

fn read_set(path: &Path) -> Vec<aesop::corpus::Topic> {
    aesop::corpus::jsonl::read_set(path).expect("the import reads as a set")
}

/// `aesop features --classes rouge,rouge_score` on `set`: the CSV's text.
fn rouge_features(set: &Path) -> String {
    let features = set.with_extension("csv");
    common::aesop()
        .arg("features")
        .arg(set)
        .args(["--classes", "rouge,rouge_score", "-o"])
        .arg(&features)
        .assert()
        .success();
    std::fs::read_to_string(features).expect("read the features")
}

/// The sample's first three SummEval articles written as a seq2seq toolkit keeps them (a
/// documents file, a file per reference and per system, an ids file) import as the same topics
/// as `aesop import summeval` gives, and score the same.
#[test]
fn import_lines_gives_the_topics_of_import_summeval() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/summeval-sample.jsonl");
    let text = std::fs::read_to_string(sample).expect("read the sample");
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let articles: Vec<&str> = text.lines().take(3).collect();
    write(d, "summeval.jsonl", articles.join("\n") + "\n");
    let mut files: std::collections::BTreeMap<String, String> = Default::default();
    let mut systems = Vec::new();
    for line in &articles {
        let article: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let mut add = |file: String, text: &str| {
            let lines = files.entry(file).or_default();
            lines.push_str(text);
            lines.push('\n');
        };
        add(
            "ids.txt".into(),
            article["doc_id"].as_str().expect("doc_id"),
        );
        add("source.txt".into(), article["src"].as_str().expect("src"));
        let references = article["ref_summs"].as_array().expect("ref_summs");
        for (i, reference) in references.iter().enumerate() {
            add(
                format!("ref{i}.txt"),
                reference.as_str().expect("a reference"),
            );
        }
        for (system, summary) in article["sys_summs"].as_object().expect("sys_summs") {
            add(
                format!("{system}.txt"),
                summary["sys_summ"].as_str().expect("sys_summ"),
            );
            if !systems.contains(system) {
                systems.push(system.clone());
            }
        }
    }
    for (name, text) in &files {
        write(d, name, text);
    }
    let mut args: Vec<String> = systems.iter().map(|s| format!("{s}.txt")).collect();
    for i in 0..11 {
        args.extend(["--references".to_string(), format!("ref{i}.txt")]);
    }
    args.extend(
        [
            "--documents",
            "source.txt",
            "--ids",
            "ids.txt",
            "-o",
            "lines.jsonl",
        ]
        .map(String::from),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    import_lines(d, &args)
        .success()
        .stderr(predicates::str::contains("wrote 3 topics, 48 summaries"));
    common::aesop()
        .current_dir(d)
        .args([
            "import",
            "summeval",
            "summeval.jsonl",
            "-o",
            "summeval-set.jsonl",
        ])
        .assert()
        .success();
    let lines = read_set(&d.join("lines.jsonl"));
    let summeval = read_set(&d.join("summeval-set.jsonl"));
    assert_eq!(lines.len(), 3);
    for (got, expected) in lines.iter().zip(&summeval) {
        assert_eq!(got.topic, expected.topic);
        assert_eq!(got.references, expected.references);
        let texts = |t: &aesop::corpus::Topic| -> Vec<String> {
            t.documents.iter().map(|d| d.text.clone()).collect()
        };
        assert_eq!(texts(got), texts(expected));
        assert!(got.documents.iter().all(|d| d.id == "source"));
        let summaries = |t: &aesop::corpus::Topic| -> Vec<(String, String)> {
            t.summaries
                .iter()
                .map(|s| (s.system.clone(), s.text.clone()))
                .collect()
        };
        assert_eq!(summaries(got), summaries(expected));
        assert!(got.summaries.iter().all(|s| s.scores.is_empty()));
    }
    assert_eq!(
        rouge_features(&d.join("lines.jsonl")),
        rouge_features(&d.join("summeval-set.jsonl"))
    );
}

#[test]
fn import_lines_splits_sentences_at_a_separator() {
    let dir = dir_with(&[
        (
            "presumm.txt",
            "The cat sat. <q>It slept.<q> \nA dog ran.<q>\n",
        ),
        (
            "gold.txt",
            "A cat sat down. <q> The cat slept.\nThe dog ran off.\n",
        ),
    ]);
    let d = dir.path();
    import_lines(
        d,
        &[
            "presumm.txt",
            "--references",
            "gold.txt",
            "--sentence-separator",
            "<q>",
            "-o",
            "set.jsonl",
        ],
    )
    .success();
    let topics = read_set(&d.join("set.jsonl"));
    let ids: Vec<&str> = topics.iter().map(|t| t.topic.as_str()).collect();
    assert_eq!(ids, ["1", "2"]);
    assert_eq!(topics[0].summaries[0].text, "The cat sat.\nIt slept.");
    assert_eq!(
        topics[0].references[0].text,
        "A cat sat down.\nThe cat slept."
    );
    assert_eq!(topics[1].summaries[0].text, "A dog ran.");
    // Without the separator a line is kept as it is.
    import_lines(
        d,
        &[
            "presumm.txt",
            "--references",
            "gold.txt",
            "-o",
            "plain.jsonl",
        ],
    )
    .success();
    let topics = read_set(&d.join("plain.jsonl"));
    assert_eq!(topics[0].summaries[0].text, "The cat sat. <q>It slept.<q> ");
    // An empty separator is a usage error.
    let message = import_error(
        d,
        &[
            "presumm.txt",
            "--references",
            "gold.txt",
            "--sentence-separator",
            "",
        ],
        2,
    );
    assert!(message.contains("--sentence-separator"), "{message}");
}

/// Hugging Face writes every run as generated_predictions.txt: NAME=PATH names them, and two
/// systems of one name are an error that says so.
#[test]
fn import_lines_names_systems_as_name_equals_path() {
    let dir = dir_with(&[
        ("run1/generated_predictions.txt", "run1 says.\n"),
        ("run2/generated_predictions.txt", "run2 says.\n"),
        ("test.target", "The gold.\n"),
    ]);
    let d = dir.path();
    let message = import_error(
        d,
        &[
            "run1/generated_predictions.txt",
            "run2/generated_predictions.txt",
            "--references",
            "test.target",
        ],
        1,
    );
    assert!(
        message.contains("two systems named \"generated_predictions\"")
            && message.contains("NAME=PATH"),
        "{message}"
    );
    import_lines(
        d,
        &[
            "bart=run1/generated_predictions.txt",
            "pegasus=run2/generated_predictions.txt",
            "--references",
            "gold=test.target",
            "-o",
            "set.jsonl",
        ],
    )
    .success();
    let topics = read_set(&d.join("set.jsonl"));
    let systems: Vec<(&str, &str)> = topics[0]
        .summaries
        .iter()
        .map(|s| (s.system.as_str(), s.text.as_str()))
        .collect();
    assert_eq!(systems, [("bart", "run1 says."), ("pegasus", "run2 says.")]);
    assert_eq!(topics[0].references[0].id, "gold");
    // A NAME=PATH whose file is missing names the file.
    let message = import_error(
        d,
        &[
            "x=run3/generated_predictions.txt",
            "--references",
            "test.target",
        ],
        1,
    );
    assert!(
        message.contains("run3/generated_predictions.txt: no such file"),
        "{message}"
    );
}

/// Windows line ends and a final line break: the same records as Unix lines; an empty summary is
/// kept, with a note.
#[test]
fn import_lines_reads_crlf_and_a_final_line_break() {
    let dir = dir_with(&[
        (
            "sys.txt",
            "\u{feff}First summary.\r\n\r\nThird summary.\r\n",
        ),
        (
            "refs.txt",
            "First reference.\nSecond reference.\nThird reference.",
        ),
        ("docs.txt", "Doc one.\r\nDoc two.\r\nDoc three.\r\n"),
    ]);
    let d = dir.path();
    import_lines(
        d,
        &[
            "sys.txt",
            "--references",
            "refs.txt",
            "--documents",
            "docs.txt",
            "-o",
            "set.jsonl",
        ],
    )
    .success()
    .stderr(predicates::str::contains(
        "note: 1 empty summary (the first at sys.txt:2), kept: they score as empty texts",
    ))
    .stderr(predicates::str::contains("wrote 3 topics, 3 summaries"));
    let topics = read_set(&d.join("set.jsonl"));
    let texts: Vec<&str> = topics
        .iter()
        .map(|t| t.summaries[0].text.as_str())
        .collect();
    assert_eq!(texts, ["First summary.", "", "Third summary."]);
    assert_eq!(topics[2].documents[0].text, "Doc three.");
    assert_eq!(topics[2].references[0].text, "Third reference.");
}

#[test]
fn import_lines_names_what_is_wrong() {
    let dir = dir_with(&[
        ("a.txt", "One.\nTwo.\nThree.\n"),
        ("b.txt", "One.\nTwo.\n"),
        ("refs.txt", "Ref one.\nRef two.\nRef three.\n"),
        ("ids4.txt", "x\ny\nz\nw\n"),
    ]);
    let d = dir.path();
    // Misaligned counts: the first file, and each that differs, with their counts.
    let message = import_error(
        d,
        &[
            "a.txt",
            "b.txt",
            "--references",
            "refs.txt",
            "--ids",
            "ids4.txt",
        ],
        1,
    );
    assert!(
        message.contains("files must be aligned line by line")
            && message.contains("a.txt has 3 lines, but b.txt has 2 lines, ids4.txt has 4 lines"),
        "{message}"
    );
    // An empty reference line, at its file and line.
    write(d, "gap.txt", "Ref one.\n  \nRef three.\n");
    let message = import_error(d, &["a.txt", "--references", "gap.txt"], 1);
    assert!(message.contains("gap.txt:2: empty reference"), "{message}");
    let message = import_error(d, &["a.txt", "--documents", "gap.txt"], 1);
    assert!(message.contains("gap.txt:2: empty document"), "{message}");
    // A repeated topic id, both lines named.
    write(d, "ids.txt", "t1\nt2\nt1\n");
    let message = import_error(
        d,
        &["a.txt", "--references", "refs.txt", "--ids", "ids.txt"],
        1,
    );
    assert!(
        message.contains("ids.txt:3: topic id \"t1\" again (first at line 1)"),
        "{message}"
    );
    // Bytes that are not UTF-8, at the file and line.
    write(d, "latin.txt", b"One.\nCaf\xe9.\nThree.\n");
    let message = import_error(d, &["latin.txt", "--references", "refs.txt"], 1);
    assert!(message.contains("latin.txt:2: invalid UTF-8"), "{message}");
    // Neither references nor documents: a usage error.
    let message = import_error(d, &["a.txt"], 2);
    assert!(
        message.contains("need --references FILE or --documents FILE"),
        "{message}"
    );
    // Two references of one name.
    write(d, "other/refs.txt", "R.\nR.\nR.\n");
    let message = import_error(
        d,
        &[
            "a.txt",
            "--references",
            "refs.txt",
            "--references",
            "other/refs.txt",
        ],
        1,
    );
    assert!(
        message.contains("two references named \"refs\""),
        "{message}"
    );
    // The output never replaces an input, and the file is kept.
    let before = std::fs::read(d.join("refs.txt")).expect("read");
    import_lines(d, &["a.txt", "--references", "refs.txt", "-o", "refs.txt"])
        .code(1)
        .stderr(predicates::str::contains("refusing to overwrite it"));
    assert_eq!(std::fs::read(d.join("refs.txt")).expect("read"), before);
    // Also a system given as NAME=PATH.
    let before = std::fs::read(d.join("a.txt")).expect("read");
    import_lines(d, &["sys=a.txt", "--references", "refs.txt", "-o", "a.txt"])
        .code(1)
        .stderr(predicates::str::contains("refusing to overwrite it"));
    assert_eq!(std::fs::read(d.join("a.txt")).expect("read"), before);
}

/// The lines flags with another format, and the other formats' flags with `lines`, are usage
/// errors.
#[test]
fn lines_flags_are_usage_errors_with_another_format() {
    let dir = dir_with(&[("a.txt", "One.\n")]);
    let d = dir.path();
    let usage = |args: &[&str], expected: &str| {
        let out = common::aesop()
            .current_dir(d)
            .args(args)
            .args(["-o", "set.jsonl"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let message = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(message.contains(expected), "{args:?}: {message}");
        assert!(!d.join("set.jsonl").exists());
    };
    usage(
        &["import", "summeval", "a.txt", "--references", "a.txt"],
        "--references describes line-aligned files",
    );
    usage(
        &["import", "table", "a.txt", "--sentence-separator", "<q>"],
        "--sentence-separator describes line-aligned files",
    );
    usage(
        &[
            "import",
            "lines",
            "a.txt",
            "--references",
            "a.txt",
            "--summary-column",
            "x",
        ],
        "--summary-column names a column of `aesop import table`",
    );
    usage(
        &[
            "import",
            "lines",
            "a.txt",
            "--references",
            "a.txt",
            "--model-dir",
            "refs",
        ],
        "--model-dir describes summaries laid out for pyrouge",
    );
}
