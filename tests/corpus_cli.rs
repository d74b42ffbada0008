//! `aesop import` end to end: writes a judgment set that `jsonl::read_set` accepts; errors exit 1.

use assert_cmd::Command;
use std::path::Path;

#[test]
fn import_tac_fixture_writes_a_readable_set() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = dir.path().join("tac.jsonl");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tac2008");
    Command::cargo_bin("aesop")
        .expect("binary")
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
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad/summeval_bad_score.jsonl");
    Command::cargo_bin("aesop")
        .expect("binary")
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
