//! `aesop import` end to end: writes a judgment set that `jsonl::read_set` accepts; errors exit 1.

use crate::common;

#[test]
fn import_tac_fixture_writes_a_readable_set() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = dir.path().join("tac.jsonl");
    let fixture = common::fixture("tac2008");
    common::aesop()
        .args(["import", "tac"])
        .arg(&fixture)
        .arg("-o")
        .arg(&output)
        .assert()
        .success()
        .stderr(predicates::str::contains("wrote 4 topics, 20 summaries"));
    let topics = aesop::corpus::jsonl::read_set(&output).expect("read");
    assert_eq!(topics.len(), 4);
}

#[test]
fn import_error_names_the_file_and_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixture = common::fixture("bad/summeval_bad_score.jsonl");
    common::aesop()
        .args(["import", "summeval"])
        .arg(&fixture)
        .arg("-o")
        .arg(dir.path().join("out.jsonl"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "summeval_bad_score.jsonl:2: sys_summs.M0.scores.relevance",
        ));
}

/// A source id the set reader refuses (an empty topic id) stops the import: it wrote a set every
/// other verb refused.
#[test]
fn an_import_never_writes_a_set_its_reader_refuses() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = dir.path().join("summeval.jsonl");
    let line = serde_json::json!({"doc_id": "", "src": "The council met.", "ref_summs": ["It met."],
        "sys_summs": {"M0": {"sys_summ": "The council met on Monday.",
                             "scores": {"relevance": 3.0, "coherence": 3.0, "fluency": 3.0, "consistency": 3.0}}}});
    std::fs::write(&source, format!("{line}\n")).expect("write");
    let output = dir.path().join("out.jsonl");
    common::aesop()
        .args(["import", "summeval"])
        .arg(&source)
        .arg("-o")
        .arg(&output)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("topic 1 (id \"\")"))
        .stderr(predicates::str::contains("topic: must not be empty"));
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
        common::aesop()
            .args(["import", "tac"])
            .arg(&tree)
            .arg("-o")
            .arg(&output)
            .assert()
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
    common::aesop()
        .args(["import", "tac"])
        .arg(common::fixture("duc2005"))
        .arg("-o")
        .arg(&output)
        .assert()
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
    common::aesop()
        .args(["import", "tac"])
        .arg(&tree)
        .arg("-o")
        .arg(&output)
        .assert()
        .success();
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
