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
