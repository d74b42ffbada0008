//! `aesop import` end to end: writes a judgment set that `jsonl::read_set` accepts; errors exit 1.

use crate::common;
use std::path::Path;

/// `aesop import FORMAT INPUT -o OUTPUT`.
fn run_import(format: &str, input: &Path, output: &Path) -> assert_cmd::assert::Assert {
    common::aesop()
        .args(["import", format])
        .arg(input)
        .arg("-o")
        .arg(output)
        .assert()
}

#[test]
fn import_tac_fixture_writes_a_readable_set() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = dir.path().join("tac.jsonl");
    let fixture = common::fixture("tac2008");
    run_import("tac", &fixture, &output)
        .success()
        .stderr(predicates::str::contains("wrote 4 topics, 20 summaries"));
    let topics = aesop::corpus::jsonl::read_set(&output).expect("read");
    assert_eq!(topics.len(), 4);
}

#[test]
fn an_import_named_gz_is_written_compressed_and_reads_as_the_plain_set() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (plain, gzipped) = (
        dir.path().join("tac.jsonl"),
        dir.path().join("tac.jsonl.gz"),
    );
    run_import("tac", &common::fixture("tac2008"), &plain).success();
    run_import("tac", &common::fixture("tac2008"), &gzipped).success();
    assert_eq!(
        common::gunzip(&gzipped),
        std::fs::read(&plain).expect("read")
    );
    assert_eq!(
        aesop::corpus::jsonl::read_set(&gzipped).expect("gzipped set"),
        aesop::corpus::jsonl::read_set(&plain).expect("plain set")
    );
}

#[test]
fn import_error_names_the_file_and_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixture = common::fixture("bad/summeval_bad_score.jsonl");
    run_import("summeval", &fixture, &dir.path().join("out.jsonl"))
        .code(1)
        .stderr(predicates::str::contains(
            "summeval_bad_score.jsonl:2: sys_summs.M0.scores.relevance",
        ));
}

/// A source id the set reader refuses (an empty topic id) stops the import, named at its source
/// line: it wrote a set every other verb refused.
#[test]
fn an_import_never_writes_a_set_its_reader_refuses() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = dir.path().join("summeval.jsonl");
    let line = serde_json::json!({"doc_id": "", "src": "The council met.", "ref_summs": ["It met."],
        "sys_summs": {"M0": {"sys_summ": "The council met on Monday.",
                             "scores": {"relevance": 3.0, "coherence": 3.0, "fluency": 3.0, "consistency": 3.0}}}});
    std::fs::write(&source, format!("{line}\n")).expect("write");
    let output = dir.path().join("out.jsonl");
    run_import("summeval", &source, &output)
        .code(1)
        .stderr(predicates::str::contains(
            "summeval.jsonl:1: doc_id: must not be empty",
        ));
    assert!(!output.exists());
}

/// `-o` inside the directory an import reads is refused: it overwrote the source files.
#[test]
fn an_import_does_not_write_into_the_directory_it_reads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = dir.path().join("tac2008");
    copy_tree(&common::fixture("tac2008"), &tree);
    let victim = walk_files(&tree)
        .into_iter()
        .next()
        .expect("a file in the fixture");
    let before = std::fs::read(&victim).expect("read");
    for output in [victim.clone(), tree.join("new.jsonl")] {
        run_import("tac", &tree, &output)
            .code(1)
            .stderr(predicates::str::contains("inside the input directory"));
    }
    assert_eq!(std::fs::read(&victim).expect("read"), before);
    assert!(!tree.join("new.jsonl").exists());
}

fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir").filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk_files(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("dir").filter_map(Result::ok) {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// `import tac` on a DUC tree is refused (it wrote topics without documents or scores).
#[test]
fn import_tac_refuses_a_duc_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = dir.path().join("out.jsonl");
    run_import("tac", &common::fixture("duc2005"), &output)
        .code(1)
        .stderr(predicates::str::contains("use `aesop import duc`"));
    assert!(!output.exists());
}

/// A NIST tree with a blank model summary and a `<DOC>` without text imports: the blank model
/// stays a (degenerate) summary but is no reference, and the textless document is left out, since
/// a judgment set may not hold a blank document or reference (the set reader refuses them).
#[test]
fn import_tac_leaves_out_blank_documents_and_references() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = dir.path().join("tac2008");
    copy_tree(&common::fixture("tac2008"), &tree);
    std::fs::write(
        tree.join("UpdateSumm08_eval/ROUGE/models/D0802-A.M.100.B.C"),
        " \n",
    )
    .expect("blank model");
    let docs = tree.join("UpdateSumm08_test_docs_files/D0801A/D0801A-A/APW_ENG_20050120.0001");
    let mut text = std::fs::read_to_string(&docs).expect("document");
    text.push_str("\n<DOC id=\"APW_ENG_20050120.0099\" type=\"story\">\n<HEADLINE>No text</HEADLINE>\n</DOC>\n");
    std::fs::write(&docs, text).expect("textless document");
    let output = dir.path().join("out.jsonl");
    run_import("tac", &tree, &output).success();
    let topics = aesop::corpus::jsonl::read_set(&output).expect("the import reads back");
    let topic = |id: &str| {
        topics
            .iter()
            .find(|t| t.topic == id)
            .unwrap_or_else(|| panic!("no topic {id}"))
    };
    let ids = |items: Vec<&String>| items.into_iter().cloned().collect::<Vec<_>>();
    let cafe = topic("D0802-A");
    assert_eq!(ids(cafe.references.iter().map(|r| &r.id).collect()), ["D"]);
    let blank = cafe
        .summaries
        .iter()
        .find(|s| s.system == "C")
        .expect("the blank model is still a summary");
    assert!(blank.human && blank.text.is_empty());
    assert_eq!(
        ids(topic("D0801-A").documents.iter().map(|d| &d.id).collect()),
        ["AFP_ENG_20050119.0019", "APW_ENG_20050120.0001"]
    );
}

/// Audit stop 52: what a NIST tree lacks was left out silently. A score line with a column
/// fewer (a cut-off last line) was read with the other year's layout; score rows matching no
/// summary file, and documents the topics file lists but no file holds, were dropped without a
/// word.
#[test]
fn import_tac_says_what_it_leaves_out() {
    use predicates::prelude::PredicateBooleanExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let import = |tree: &Path| run_import("tac", tree, &dir.path().join("out.jsonl"));
    // A row laid out as another year's (here a column more than the file's first; a 2009 file
    // with its last line cut off has one fewer): an error naming file and line.
    let cut = dir.path().join("cut");
    copy_tree(&common::fixture("tac2008"), &cut);
    let peer = cut.join("UpdateSumm08_eval/manual/manual.peer");
    let text = std::fs::read_to_string(&peer).expect("manual.peer");
    let text = text.replacen(
        "D0801-A 1 0.11 1 1 0 0.09 2 1",
        "D0801-A 1 0.11 1 1 0 0.09 2 1 7",
        1,
    );
    std::fs::write(&peer, text).expect("cut line");
    import(&cut).code(1).stderr(predicates::str::contains(
        "manual.peer:2: expected 9 columns like line 1 of this file, found 10",
    ));
    // No summary takes a score (the score files name topics otherwise): a warning.
    let renamed = dir.path().join("renamed");
    copy_tree(&common::fixture("tac2008"), &renamed);
    for name in ["manual.peer", "manual.model"] {
        let path = renamed.join("UpdateSumm08_eval/manual").join(name);
        let text = std::fs::read_to_string(&path).expect("manual file");
        std::fs::write(&path, text.replace("D080", "X080")).expect("renamed topics");
    }
    import(&renamed).success().stderr(
        predicates::str::contains("warning: ")
            .and(predicates::str::contains("no summary got a score")),
    );
    // A listed document no file holds: a warning naming it.
    let lost = dir.path().join("lost");
    copy_tree(&common::fixture("tac2008"), &lost);
    std::fs::remove_file(
        lost.join("UpdateSumm08_test_docs_files/D0801A/D0801A-A/AFP_ENG_20050119.0019"),
    )
    .expect("remove a document");
    import(&lost).success().stderr(predicates::str::contains(
        "1 document the topics file lists is in no file of the tree, in 1 topic (e.g. D0801-A: AFP_ENG_20050119.0019); that topic is imported without it",
    ));
}

/// Audit stop 52: a DUC table with a header line fewer lost its first data row to the fixed
/// header skip, and a linguistic-quality mean came out of the other questions, unsaid.
#[test]
fn import_duc_refuses_a_table_whose_header_holds_a_data_row() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = dir.path().join("duc2005");
    copy_tree(&common::fixture("duc2005"), &tree);
    let table = tree.join("results/responsiveness/responsiveness.table");
    let text = std::fs::read_to_string(&table).expect("table");
    let short: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 1)
        .map(|(_, l)| l)
        .collect();
    std::fs::write(&table, short.join("\n") + "\n").expect("header line removed");
    run_import("duc", &tree, &dir.path().join("out.jsonl"))
        .code(1)
        .stderr(predicates::str::contains(
            "responsiveness.table:6: this line reads as a data row, but DUC's responsiveness.table has 6 header lines",
        ));
}

/// Audit stop 52: an unknown format was exit 1 with a guess about the file ("this looks like a
/// summeval file, not a bogus file"), and `SummEval` was unknown. Now clap checks the format
/// (exit 2, the formats listed) and takes any case.
#[test]
fn the_import_format_is_a_usage_error_when_unknown_and_takes_any_case() {
    let dir = tempfile::tempdir().expect("temp dir");
    run_import(
        "bogus",
        &common::fixture("tac2008"),
        &dir.path().join("out.jsonl"),
    )
    .code(2)
    .stderr(predicates::str::contains(
        "invalid value 'bogus' for '<FORMAT>'",
    ))
    .stderr(predicates::str::contains(
        "possible values: summeval, realsumm",
    ));
    run_import(
        "TAC",
        &common::fixture("tac2008"),
        &dir.path().join("out.jsonl"),
    )
    .success();
}

/// Audit stop 52: a summary file with a field fewer was skipped unsaid, an editor's backup
/// (`…A.1~`) became a system "1~", and a topics file cut short left queries out unsaid.
#[test]
fn import_tac_says_which_summary_files_and_statements_it_leaves_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tree = dir.path().join("tac2008");
    copy_tree(&common::fixture("tac2008"), &tree);
    let peers = tree.join("UpdateSumm08_eval/ROUGE/peers");
    let summary = std::fs::read(peers.join("D0801-A.M.100.A.1")).expect("a peer");
    std::fs::write(peers.join("D0801-A.M.100.A.1~"), &summary).expect("backup");
    std::fs::write(peers.join("D0801-A.M.100.A"), &summary).expect("misnamed");
    let topics_file = tree.join("UpdateSumm08_test_topics.xml.txt");
    let text = std::fs::read_to_string(&topics_file).expect("topics");
    let cut = text.find("<topic id = \"D0802").expect("a second topic");
    std::fs::write(&topics_file, &text[..cut]).expect("cut short");
    let output = dir.path().join("out.jsonl");
    run_import("tac", &tree, &output)
        .success()
        .stderr(predicates::str::contains(
            "warning: 1 file in ROUGE/peers or ROUGE/models is not named as NIST summaries",
        ))
        .stderr(predicates::str::contains("D0801-A.M.100.A)"))
        .stderr(predicates::str::contains(
            "note: 1 editor backup or hidden file in ROUGE/peers or ROUGE/models was not read",
        ))
        .stderr(predicates::str::contains(
            "2 of 4 topics have no statement in the topics file (e.g. D0802-A) and are imported without their query",
        ))
        .stderr(predicates::str::contains("wrote 4 topics, 20 summaries"));
    let topics = aesop::corpus::jsonl::read_set(&output).expect("read");
    for topic in &topics {
        assert!(topic.summaries.iter().all(|s| !s.system.contains('~')));
        assert_eq!(topic.query.is_some(), topic.topic.starts_with("D0801"));
    }
}

/// `aesop import table FILE` with these column flags; its exit, standard error and the set.
fn import_table(
    table: &Path,
    flags: &[&str],
) -> (Option<i32>, String, Option<Vec<aesop::corpus::Topic>>) {
    let set = table.with_extension("jsonl");
    let out = common::aesop()
        .args(["import", "table"])
        .arg(table)
        .arg("-o")
        .arg(&set)
        .args(flags)
        .output()
        .expect("import");
    let topics = out
        .status
        .success()
        .then(|| aesop::corpus::jsonl::read_set(&set).expect("a set"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        topics,
    )
}

/// A table with one row per summary, as a spreadsheet saves it where the decimal mark is a
/// comma (a byte-order mark, fields split at semicolons, CR LF, `2,5`), becomes the topics its
/// rows describe: topics in the order they first appear, each column of documents and
/// references one text named by its column (an empty cell: none), every other column a score
/// (an empty cell missing), numeric-looking ids kept as written.
#[test]
fn import_table_gathers_rows_into_topics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("summaries.csv");
    std::fs::write(
        &table,
        "\u{feff}id;model;decoded;article;extra doc;ref;relevance;coherence\r\n\
         007;A;The council passed it.;The council passed the budget.;;The budget passed.;2,5;3\r\n\
         t2;A;Rain fell.;Rain flooded the town.;Roads closed.;;4;\r\n\
         007;B;\"It passed; schools gain.\";The council passed the budget.;;The budget passed.;1;2,25\r\n",
    )
    .expect("write");
    let flags = [
        "--topic-column",
        "id",
        "--system-column",
        "model",
        "--summary-column",
        "decoded",
        "--document-column",
        "article",
        "--document-column",
        "extra doc",
        "--reference-column",
        "ref",
    ];
    let (code, stderr, topics) = import_table(&table, &flags);
    assert_eq!(code, Some(0), "{stderr}");
    let topics = topics.expect("topics");
    assert_eq!(
        topics.iter().map(|t| t.topic.as_str()).collect::<Vec<_>>(),
        ["007", "t2"]
    );
    let first = &topics[0];
    assert_eq!(
        first
            .documents
            .iter()
            .map(|d| (d.id.as_str(), d.text.as_str()))
            .collect::<Vec<_>>(),
        [("article", "The council passed the budget.")]
    );
    assert_eq!(first.references[0].id, "ref");
    assert_eq!(first.summaries[1].text, "It passed; schools gain.");
    assert_eq!(first.summaries[0].scores["relevance"], 2.5);
    assert_eq!(first.summaries[1].scores["coherence"], 2.25);
    assert_eq!(topics[1].documents.len(), 2);
    assert!(topics[1].references.is_empty());
    assert!(!topics[1].summaries[0].scores.contains_key("coherence"));
    // Chosen score columns only.
    let mut chosen = flags.to_vec();
    chosen.extend(["--score-column", "relevance"]);
    let (_, stderr, topics) = import_table(&table, &chosen);
    let topics = topics.unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        topics[0].summaries[0].scores.keys().collect::<Vec<_>>(),
        ["relevance"]
    );
}

/// The shipped SummEval sample, flattened to one row per summary (its article and all its
/// references repeated on every row, as datasets keep it) and imported back, scores exactly as
/// the set it came from.
#[test]
fn a_flattened_set_imported_back_scores_as_the_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let topics = aesop::corpus::jsonl::read_set(&set).expect("sample");
    let references = topics.iter().map(|t| t.references.len()).max().unwrap_or(0);
    let table = dir.path().join("flat.tsv");
    let mut writer = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .from_path(&table)
        .expect("table");
    let mut header = vec![
        "topic".to_string(),
        "system".into(),
        "summary".into(),
        "document".into(),
    ];
    header.extend((1..=references).map(|i| format!("ref{i}")));
    header.push("relevance".into());
    writer.write_record(&header).expect("header");
    for topic in &topics {
        for summary in &topic.summaries {
            let mut row = vec![
                topic.topic.clone(),
                summary.system.clone(),
                summary.text.clone(),
                topic.documents[0].text.clone(),
            ];
            row.extend((0..references).map(|i| {
                topic
                    .references
                    .get(i)
                    .map_or(String::new(), |r| r.text.clone())
            }));
            row.push(summary.scores["relevance"].to_string());
            writer.write_record(&row).expect("row");
        }
    }
    writer.flush().expect("flush");
    drop(writer);
    let mut flags = Vec::new();
    for i in 1..=references {
        flags.push("--reference-column".to_string());
        flags.push(format!("ref{i}"));
    }
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (code, stderr, rebuilt) = import_table(&table, &flags);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(rebuilt.expect("topics").len(), topics.len());
    let score = |set: &Path| {
        let out = common::aesop()
            .arg("score")
            .arg(set)
            .output()
            .expect("score");
        common::stdout_of_success(out)
    };
    assert_eq!(score(&table.with_extension("jsonl")), score(&set));
}

/// What a table can get wrong is named by line and column; the column flags belong to the
/// `table` format (a usage error with another).
#[test]
fn import_table_names_the_line_at_fault() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = dir.path().join("t.csv");
    let error = |text: &str, flags: &[&str]| {
        std::fs::write(&table, text).expect("write");
        let (code, stderr, _) = import_table(&table, flags);
        assert_eq!(code, Some(1), "{stderr}");
        stderr
    };
    let header = "topic,system,summary,document,q\n";
    let message = error(
        &format!("{header}t,a,S.,Doc one.,1\nt,b,S.,Doc two.,2\n"),
        &[],
    );
    assert!(
        message.contains("t.csv:3: the documents differ from line 2's, of the same topic \"t\""),
        "{message}"
    );
    let message = error(&format!("{header}t,a,S.,Doc.,1\nt,a,T.,Doc.,2\n"), &[]);
    assert!(
        message.contains("t.csv:3: topic \"t\", system \"a\" again (first at line 2)"),
        "{message}"
    );
    let message = error(&format!("{header}t,a,S.,Doc.,high\n"), &[]);
    assert!(
        message.contains("t.csv:2: q: expected a number, found \"high\" (every column not named")
            && message.contains("--score-column"),
        "{message}"
    );
    let message = error(
        &format!("{header}t,a,S.,Doc.,1\n"),
        &["--summary-column", "text"],
    );
    assert!(
        message.contains(
            "t.csv:1: no column 'text' (split at commas, the columns are: topic, system, \
             summary, document, q); name the column that holds it with --summary-column"
        ),
        "{message}"
    );
    let message = error(&format!("{header}t,a,S.,,1\n"), &[]);
    assert!(
        message.contains("t.csv:2: document: empty (a topic needs its input documents)"),
        "{message}"
    );
    // A row of another field count (here a quote left open) is named by its line.
    let message = error(&format!("{header}t,a,\"S.,Doc.,1\n"), &[]);
    assert!(
        message.contains(
            "t.csv:2: 3 fields where the header has 5 (split at commas): a quote left open, or \
             the delimiter inside an unquoted text (quote that text)"
        ),
        "{message}"
    );
    // A column flag with another format: exit 2 before anything is read.
    let out = common::aesop()
        .args([
            "import",
            "summeval",
            "missing.jsonl",
            "-o",
            "x.jsonl",
            "--score-column",
            "q",
        ])
        .output()
        .expect("import");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--score-column names a column of `aesop import table`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
