//! Importers on the public data sets: counts from /work/shared/data/SOURCES.md and a few
//! score values read from the source files.
use crate::common;

use aesop::corpus::{import::import, jsonl, Topic};
use std::collections::BTreeSet;

fn summaries(topics: &[Topic]) -> usize {
    topics.iter().map(|t| t.summaries.len()).sum()
}

fn systems(topics: &[Topic]) -> BTreeSet<String> {
    topics
        .iter()
        .flat_map(|t| t.summaries.iter().map(|s| s.system.clone()))
        .collect()
}

fn score(topic: &Topic, system: &str, name: &str) -> f64 {
    let summary = topic
        .summaries
        .iter()
        .find(|s| s.system == system)
        .unwrap_or_else(|| panic!("no system {system} in {}", topic.topic));
    *summary
        .scores
        .get(name)
        .unwrap_or_else(|| panic!("no score {name} for {system}"))
}

/// Writing and reading back gives the same topics (and the reader accepts the importer's output).
fn assert_round_trip(topics: &[Topic]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("set.jsonl");
    let file = std::fs::File::create(&path).expect("create");
    jsonl::write_set(std::io::BufWriter::new(file), topics).expect("write");
    let again = jsonl::read_set(&path).expect("read back");
    assert_eq!(again.as_slice(), topics);
}

#[test]
fn summeval() {
    let Some(path) = common::data_or_skip("summeval", "summeval/summeval.jsonl") else {
        return;
    };
    let topics = import("summeval", &path).expect("import");
    assert_eq!(topics.len(), 100);
    assert_eq!(summaries(&topics), 1600);
    assert_eq!(systems(&topics).len(), 16);
    assert!(topics.iter().all(|t| t.references.len() == 11));
    let first = &topics[0];
    assert_eq!(
        first.topic,
        "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2"
    );
    assert_eq!(first.documents.len(), 1);
    assert_eq!(first.documents[0].id, first.topic);
    assert_eq!(first.references[0].id, "ref0");
    assert_eq!(first.references[10].id, "ref10");
    assert!(first.references[10]
        .text
        .starts_with("Paul Merson , the Sky Sports pundit"));
    assert!((score(first, "M11", "coherence") - 4.0 / 3.0).abs() < 1e-12);
    assert!((score(first, "M11", "relevance") - 5.0 / 3.0).abs() < 1e-12);
    assert_eq!(
        score(first, "M11", "responsiveness"),
        score(first, "M11", "relevance")
    );
    assert_eq!(
        score(first, "M11", "readability"),
        score(first, "M11", "coherence")
    );
    assert_eq!(
        score(first, "M11", "faithfulness"),
        score(first, "M11", "consistency")
    );
    assert_eq!(score(first, "M11", "fluency"), 3.0);
    assert_round_trip(&topics);
}

#[test]
fn realsumm() {
    let Some(path) = common::data_or_skip("realsumm", "realsumm") else {
        return;
    };
    let topics = import("realsumm", &path).expect("import");
    assert_eq!(topics.len(), 100);
    assert_eq!(summaries(&topics), 2400);
    let names = systems(&topics);
    assert_eq!(names.len(), 24);
    assert!(names.contains("bart_out"));
    assert!(topics.iter().all(|t| t.summaries.len() == 24));
    let first = &topics[0];
    assert_eq!(first.topic, "cnndm1017");
    assert_eq!(first.extra["realsumm_doc_id"], 0);
    assert!(first.documents[0]
        .text
        .starts_with("( cnn ) two cnn heroes"));
    assert!(!first.documents[0].text.contains("<t>"));
    // One sentence per line in the reference (3 <t> tags in the source).
    assert_eq!(first.references[0].text.lines().count(), 3);
    assert!(first.references[0]
        .text
        .starts_with("Anuradha Koirala and 425"));
    assert_eq!(score(first, "t5_out_11B", "litepyramid_recall"), 0.1);
    assert_eq!(score(first, "t5_out_11B", "pyramid"), 0.1);
    assert!(first.summaries[0]
        .scores
        .contains_key("auto_rouge_2_recall"));
    assert!(!first.summaries[0].scores.contains_key("rouge_2_recall"));
    let fourth = topics
        .iter()
        .find(|t| t.extra["realsumm_doc_id"] == 3)
        .expect("doc 3");
    assert!((score(fourth, "matchsumm_out", "pyramid") - 0.6923076923076923).abs() < 1e-15);
    assert_round_trip(&topics);
}

#[test]
fn newsroom() {
    let Some(path) = common::data_or_skip("newsroom", "newsroom/newsroom.jsonl") else {
        return;
    };
    let topics = import("newsroom", &path).expect("import");
    assert_eq!(topics.len(), 60);
    assert_eq!(summaries(&topics), 420);
    assert_eq!(systems(&topics).len(), 7);
    assert!(topics.iter().all(|t| t.references.len() == 1));
    let first = &topics[0];
    assert_eq!(first.topic, "2140");
    assert!((score(first, "textrank", "informativeness") - 10.0 / 3.0).abs() < 1e-12);
    assert_eq!(
        score(first, "textrank", "responsiveness"),
        score(first, "textrank", "informativeness")
    );
    assert_eq!(score(first, "textrank", "readability"), 4.0);
    assert_round_trip(&topics);
}

#[test]
fn summeval_op() {
    let Some(path) = common::data_or_skip("summeval_op", "summeval-op/summeval-op.jsonl") else {
        return;
    };
    let topics = import("summeval-op", &path).expect("import");
    assert_eq!(topics.len(), 32);
    assert_eq!(summaries(&topics), 416);
    assert_eq!(systems(&topics).len(), 13);
    assert!(topics
        .iter()
        .all(|t| t.documents.len() == 8 && t.references.is_empty()));
    let first = &topics[0];
    assert_eq!(first.topic, "op01");
    let ids: Vec<&str> = first.documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        ids,
        ["rev1", "rev2", "rev3", "rev4", "rev5", "rev6", "rev7", "rev8"]
    );
    let human: Vec<&str> = first
        .summaries
        .iter()
        .filter(|s| s.human)
        .map(|s| s.system.as_str())
        .collect();
    assert_eq!(human, ["human-summaries"]);
    assert_eq!(score(first, "human-summaries", "Fluency"), 4.33);
    assert_eq!(score(first, "gpt-4", "Relevance"), 4.33);
    assert_eq!(score(first, "gpt-4", "responsiveness"), 4.33);
    assert_eq!(score(first, "gpt-4", "readability"), 5.0);
    assert_eq!(
        score(first, "gpt-4", "faithfulness"),
        score(first, "gpt-4", "Faithfulness")
    );
    assert_eq!(score(first, "gpt-4", "Aspect Coverage"), 5.0);
    assert_round_trip(&topics);
}

#[test]
fn dialsummeval() {
    let Some(path) = common::data_or_skip("dialsummeval", "dialsummeval/human_judgment.jsonl")
    else {
        return;
    };
    let topics = import("dialsummeval", &path).expect("import");
    assert_eq!(topics.len(), 100);
    assert_eq!(summaries(&topics), 1400);
    assert_eq!(systems(&topics).len(), 14);
    let first = &topics[0];
    assert_eq!(first.topic, "13611791");
    assert_eq!(first.documents[0].text.lines().count(), 8);
    assert!(first.documents[0]
        .text
        .starts_with("Elena: Happy birthday my dear!\nDorothea:"));
    // The gold summary (A) is a human system and the reference.
    assert_eq!(first.references.len(), 1);
    assert_eq!(first.references[0].id, "A");
    let gold = first.summaries.iter().find(|s| s.system == "A").expect("A");
    assert!(gold.human);
    assert_eq!(gold.text, first.references[0].text);
    assert_eq!(first.summaries.iter().filter(|s| s.human).count(), 1);
    // Means of the three annotators: A relevance (4+3+5)/3, coherence (4+5+5)/3; B coherence 3.
    assert_eq!(score(first, "A", "relevance"), 4.0);
    assert!((score(first, "A", "coherence") - 14.0 / 3.0).abs() < 1e-12);
    assert!((score(first, "B", "relevance") - 11.0 / 3.0).abs() < 1e-12);
    assert_eq!(score(first, "B", "readability"), 3.0);
    assert_eq!(
        score(first, "B", "responsiveness"),
        score(first, "B", "relevance")
    );
    assert_round_trip(&topics);
}
