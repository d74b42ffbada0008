//! `score` on a topic of many summaries: it is scored in parts (memory flat in the topic's
//! size), and because the built-ins look at each summary alone the parts change nothing.

use crate::common;

use aesop::corpus::{jsonl, Document, Summary, Topic};

const SENTENCES: &[&str] = &[
    "The city council approved a new budget on Monday.",
    "The budget raises school funding by ten percent.",
    "Critics said the plan cuts road repairs.",
    "The mayor will sign it next week.",
    "Teachers welcomed the extra money for schools.",
];

fn topic(first: usize, count: usize) -> Topic {
    let mut t = Topic::new("big");
    t.documents.push(Document::new("d1", SENTENCES.join(" ")));
    for i in first..first + count {
        // Each summary its own pick and order of sentences, numbered so no two are equal.
        let text = format!(
            "{} {} Item {i}.",
            SENTENCES[i % SENTENCES.len()],
            SENTENCES[(i / SENTENCES.len() + 1 + i) % SENTENCES.len()]
        );
        t.summaries.push(Summary::new(format!("s{i}"), text));
    }
    t
}

fn write_set(path: &std::path::Path, topic: &Topic) {
    let file = std::fs::File::create(path).expect("create set");
    jsonl::write_set(std::io::BufWriter::new(file), std::slice::from_ref(topic))
        .expect("write set");
}

fn predictions(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("read predictions")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn a_large_topic_scores_as_its_summaries_score_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    // More than two parts' worth of summaries (a part is 512).
    let (whole, tail) = (
        dir.path().join("whole.jsonl"),
        dir.path().join("tail.jsonl"),
    );
    write_set(&whole, &topic(0, 1100));
    write_set(&tail, &topic(1080, 20));
    let models = [
        "--model",
        "builtin:pyramid-noref",
        "--model",
        "builtin:readability-noref",
    ];
    let (whole_out, tail_out) = (dir.path().join("whole.out"), dir.path().join("tail.out"));
    let run = common::aesop()
        .arg("score")
        .arg(&whole)
        .args(models)
        .arg("-o")
        .arg(&whole_out)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(
        stderr.contains("2200 predictions for 1100 summaries (1 topic,"),
        "one topic reported, not its parts: {stderr}"
    );
    common::aesop()
        .arg("score")
        .arg(&tail)
        .args(models)
        .arg("-o")
        .arg(&tail_out)
        .assert()
        .success();
    let whole = predictions(&whole_out);
    let tail = predictions(&tail_out);
    assert_eq!(whole.len(), 2200);
    // Output order is the input order across the parts.
    for (i, pair) in whole.chunks(2).enumerate() {
        assert_eq!(pair[0]["system"], format!("s{i}"));
        assert_eq!(pair[0]["topic"], "big");
    }
    // The last 20 summaries, scored in a topic of their own, get the same scores.
    assert_eq!(&whole[whole.len() - tail.len()..], &tail[..]);
}
