//! The `neural_match` class: BERTScore-style matching of a summary's token states to the
//! references' (docs/NEURAL.md, "Token matching"). A summary equal to its one reference scores 1
//! on every feature; a paraphrase scores above an unrelated sentence; a summary without tokens
//! or a topic without references gets empty cells; cached rows are keyed by the references; a bad
//! `AESOP_NEURAL_MATCH_BLOCK` is a clear error. Needs `aesop models fetch smollm2` (skips with a
//! notice without it, unless AESOP_REQUIRE_MODELS=1).

use crate::common;

const REFERENCE: &str = "The city council approved a budget that spends more on schools and parks.";

fn topic(id: &str, reference: Option<&str>) -> String {
    let references = match reference {
        Some(r) => format!(r#","references":[{{"id":"r1","text":"{r}"}}]"#),
        None => String::new(),
    };
    format!(
        r#"{{"topic":"{id}","documents":[{{"id":"d","text":"The city council approved a new budget on Monday after a long debate. The plan raises spending on schools and parks by ten percent."}}]{references},"summaries":[{{"system":"same","text":"{REFERENCE}"}},{{"system":"paraphrase","text":"Councillors passed a spending plan giving more money to schools and parks."}},{{"system":"unrelated","text":"Heavy snow closed the mountain roads for a week."}},{{"system":"empty","text":""}}]}}"#
    )
}

/// `aesop features --classes neural_match` on `lines`, with `env` set; (status, CSV, stderr).
fn run(dir: &std::path::Path, lines: &[String], env: &[(&str, &str)]) -> (bool, String, String) {
    let set = dir.join("set.jsonl");
    std::fs::write(&set, lines.join("\n") + "\n").expect("write");
    let mut cmd = common::aesop();
    cmd.env_remove("AESOP_NEURAL_CACHE")
        .env_remove("AESOP_NEURAL_MATCH_BLOCK");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .args(["features", set.to_str().expect("utf-8")])
        .args(["--classes", "neural_match"])
        .output()
        .expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// {(topic, system): [precision, recall, f1]} of a features CSV; None for empty cells.
fn values(csv: &str) -> std::collections::HashMap<(String, String), Vec<Option<f64>>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    assert_eq!(
        header,
        [
            "topic",
            "system",
            "neural_match.precision",
            "neural_match.recall",
            "neural_match.f1"
        ]
    );
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (
                (cells[0].to_string(), cells[1].to_string()),
                cells[2..]
                    .iter()
                    .map(|c| (!c.is_empty()).then(|| c.parse::<f64>().expect("number")))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn matching_scores_copies_paraphrases_and_unrelated_text_in_order() {
    if !common::neural_model_or_skip(
        "matching_scores_copies_paraphrases_and_unrelated_text_in_order",
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (ok, csv, err) = run(
        dir.path(),
        &[topic("t1", Some(REFERENCE)), topic("t2", None)],
        &[],
    );
    assert!(ok, "{err}");
    let v = values(&csv);
    let get = |t: &str, s: &str| v[&(t.to_string(), s.to_string())].clone();
    for x in get("t1", "same") {
        let x = x.expect("a value");
        assert!((x - 1.0).abs() < 1e-4, "the reference itself scores {x}");
    }
    let (para, unrelated) = (get("t1", "paraphrase"), get("t1", "unrelated"));
    for k in 0..3 {
        let (p, u) = (para[k].expect("value"), unrelated[k].expect("value"));
        assert!(
            p > u && p < 1.0 && u > -1.0,
            "feature {k}: paraphrase {p}, unrelated {u}"
        );
    }
    assert_eq!(
        get("t1", "empty"),
        [None, None, None],
        "no tokens, no values"
    );
    for s in ["same", "paraphrase", "unrelated", "empty"] {
        assert_eq!(get("t2", s), [None, None, None], "no references, no values");
    }
}

#[test]
fn cached_rows_are_keyed_by_the_references() {
    if !common::neural_model_or_skip("cached_rows_are_keyed_by_the_references") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let env = [("AESOP_NEURAL_CACHE", cache.to_str().expect("utf-8"))];
    let first = [topic("t1", Some(REFERENCE))];
    let (ok, cold, err) = run(dir.path(), &first, &env);
    assert!(ok, "{err}");
    assert!(std::fs::read_dir(&cache).expect("cache dir").count() > 0);
    let (ok, warm, err) = run(dir.path(), &first, &env);
    assert!(ok, "{err}");
    assert_eq!(cold, warm, "cached rows differ from computed ones");
    // Another reference, same summaries and source: the rows must be computed again.
    let other = [topic("t1", Some("Snow closed the roads in the mountains."))];
    let (ok, changed, err) = run(dir.path(), &other, &env);
    assert!(ok, "{err}");
    let (ok, fresh, err) = run(dir.path(), &other, &[]);
    assert!(ok, "{err}");
    assert_eq!(
        changed, fresh,
        "a changed reference was served stale cached rows"
    );
    assert_ne!(changed, cold);
}

#[test]
fn a_bad_block_is_an_error_naming_the_variable() {
    if !common::neural_model_or_skip("a_bad_block_is_an_error_naming_the_variable") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for bad in ["30", "x", "-1"] {
        let (ok, csv, err) = run(
            dir.path(),
            &[topic("t1", Some(REFERENCE))],
            &[("AESOP_NEURAL_MATCH_BLOCK", bad)],
        );
        assert!(!ok, "{bad} was accepted");
        assert!(csv.is_empty(), "{bad}: output written");
        assert!(
            err.contains("AESOP_NEURAL_MATCH_BLOCK") && err.contains("below 30"),
            "{bad}: {err}"
        );
    }
}
