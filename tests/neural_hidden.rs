//! `AESOP_NEURAL_HIDDEN`: pooled hidden states of the `neural` class, for probing what the LM's
//! states know beyond its log-probs (docs/NEURAL.md, "Hidden states"). Tapping blocks leaves
//! every feature unchanged; each summary's line holds (blocks + 1) x width numbers, none for a
//! summary without tokens; the same block gives the same vector whatever else is tapped; a bad
//! block index is a clear error before any work. Needs `aesop models fetch smollm2` (skips with
//! a notice without it, unless AESOP_REQUIRE_MODELS=1).

use crate::common;

const TOPIC: &str = r#"{"topic":"t1","documents":[{"id":"d","text":"The city council approved a new budget on Monday after a long debate. The plan raises spending on schools and parks by ten percent."}],"summaries":[{"system":"a","text":"The council approved a budget that raises spending on schools."},{"system":"b","text":"parks the budget council Monday ten a on."},{"system":"empty","text":""},{"system":"one","text":"The"}]}"#;

/// `aesop features --classes neural` on the topic, with `env` set; (status, stdout CSV, stderr).
fn run(dir: &std::path::Path, env: &[(&str, &str)]) -> (bool, String, String) {
    let (code, out, err) = common::reference_free_lm_features(dir, TOPIC, env);
    (code == Some(0), out, err)
}

/// (system, layers, hidden) of each line of a hidden-state log.
fn lines(log: &std::path::Path) -> Vec<(String, Vec<u64>, Vec<f64>)> {
    std::fs::read_to_string(log)
        .expect("log")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json line");
            let nums = |f: &str| -> Vec<f64> {
                v[f].as_array()
                    .expect(f)
                    .iter()
                    .map(|x| x.as_f64().expect("number"))
                    .collect()
            };
            (
                v["system"].as_str().expect("system").to_string(),
                nums("layers").iter().map(|&x| x as u64).collect(),
                nums("hidden"),
            )
        })
        .collect()
}

#[test]
fn hidden_log_leaves_features_unchanged_and_pools_each_tapped_block() {
    if !common::neural_model_or_skip(
        "hidden_log_leaves_features_unchanged_and_pools_each_tapped_block",
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (ok, plain, err) = run(dir.path(), &[]);
    assert!(ok, "{err}");
    let default_log = dir.path().join("default.jsonl");
    let path = default_log.to_str().expect("utf-8");
    let (ok, tapped, err) = run(dir.path(), &[("AESOP_NEURAL_HIDDEN", path)]);
    assert!(ok, "{err}");
    assert_eq!(plain, tapped, "tapping blocks changed the features");

    let default = lines(&default_log);
    let systems: Vec<&str> = default.iter().map(|l| l.0.as_str()).collect();
    assert_eq!(systems, ["a", "b", "empty", "one"]);
    const WIDTH: usize = 576;
    for (system, layers, hidden) in &default {
        // SmolLM2 has 30 blocks: the default taps are the middle and three quarters.
        assert_eq!(layers, &[15, 22], "{system}");
        match system.as_str() {
            // No tokens, or one token (nothing before its last token to pool): no vector.
            "empty" | "one" => assert!(hidden.is_empty(), "{system}: {}", hidden.len()),
            _ => {
                assert_eq!(hidden.len(), 3 * WIDTH, "{system}");
                assert!(hidden.iter().all(|x| x.is_finite()), "{system}");
            }
        }
    }
    // The two summaries' pooled states differ, block by block.
    for block in 0..3 {
        let r = block * WIDTH..(block + 1) * WIDTH;
        assert_ne!(default[0].2[r.clone()], default[1].2[r], "block {block}");
    }

    // Another pick of blocks: block 22 and the final state are the same vectors.
    let other_log = dir.path().join("other.jsonl");
    let path = other_log.to_str().expect("utf-8");
    let (ok, _, err) = run(
        dir.path(),
        &[
            ("AESOP_NEURAL_HIDDEN", path),
            ("AESOP_NEURAL_HIDDEN_LAYERS", "22, 3"),
        ],
    );
    assert!(ok, "{err}");
    let other = lines(&other_log);
    for (d, o) in default.iter().zip(&other).take(2) {
        assert_eq!(o.1, [22, 3]);
        assert_eq!(o.2.len(), 3 * WIDTH);
        assert_eq!(o.2[..WIDTH], d.2[WIDTH..2 * WIDTH], "block 22 of {}", d.0);
        assert_eq!(o.2[2 * WIDTH..], d.2[2 * WIDTH..], "final state of {}", d.0);
        assert_ne!(
            o.2[WIDTH..2 * WIDTH],
            d.2[..WIDTH],
            "block 3 equals block 15"
        );
    }
}

#[test]
fn a_bad_block_or_log_path_is_an_error_naming_the_variable() {
    if !common::neural_model_or_skip("a_bad_block_or_log_path_is_an_error_naming_the_variable") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("h.jsonl");
    let path = log.to_str().expect("utf-8");
    for bad in ["30", "x", "15,,22"] {
        let (ok, out, err) = run(
            dir.path(),
            &[
                ("AESOP_NEURAL_HIDDEN", path),
                ("AESOP_NEURAL_HIDDEN_LAYERS", bad),
            ],
        );
        assert!(!ok, "{bad}: accepted");
        assert!(out.is_empty(), "{bad}: wrote features");
        assert!(
            err.contains("AESOP_NEURAL_HIDDEN_LAYERS") && err.contains("below 30"),
            "{bad}: {err}"
        );
    }
    // A log that cannot be opened: an error naming the variable and the path, no features.
    let missing = dir.path().join("no-such-dir").join("h.jsonl");
    let missing = missing.to_str().expect("utf-8");
    let (ok, out, err) = run(dir.path(), &[("AESOP_NEURAL_HIDDEN", missing)]);
    assert!(!ok && out.is_empty(), "accepted {missing}");
    assert!(
        err.contains("AESOP_NEURAL_HIDDEN: cannot open") && err.contains("no-such-dir"),
        "{err}"
    );
}

#[test]
fn neural_hidden_class_is_the_middle_block_of_the_hidden_log() {
    if !common::neural_model_or_skip("neural_hidden_class_is_the_middle_block_of_the_hidden_log") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("h.jsonl");
    let path = log.to_str().expect("utf-8");
    let (ok, _, err) = run(dir.path(), &[("AESOP_NEURAL_HIDDEN", path)]);
    assert!(ok, "{err}");
    let logged = lines(&log);

    let set = dir.path().join("set.jsonl");
    let out = common::aesop()
        .env_remove("AESOP_NEURAL_CACHE")
        .env_remove("AESOP_NEURAL_HIDDEN")
        .args(["features", set.to_str().expect("utf-8")])
        .args(["--classes", "neural_hidden"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut rows = table.lines();
    let head: Vec<&str> = rows.next().expect("header").split(',').collect();
    assert_eq!(head.len(), 2 + 576);
    assert_eq!(head[2], "neural_hidden.h000");
    assert_eq!(head[577], "neural_hidden.h575");
    for (row, (system, layers, hidden)) in rows.zip(&logged) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[1], system);
        assert_eq!(layers[0], 15, "the log's first block is the middle one");
        if hidden.is_empty() {
            // No position to average: every value missing.
            assert!(cells[2..].iter().all(|c| c.is_empty()), "{system}: {row}");
            continue;
        }
        for (i, cell) in cells[2..].iter().enumerate() {
            let value: f64 = cell.parse().expect("number");
            assert!(
                (value - hidden[i]).abs() <= 1e-6 * hidden[i].abs().max(1.0),
                "{system} h{i:03}: {value} vs {}",
                hidden[i]
            );
        }
    }
}

#[test]
fn a_model_trained_on_neural_hidden_scores_summaries() {
    if !common::neural_model_or_skip("a_model_trained_on_neural_hidden_scores_summaries") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("scored.jsonl");
    // Two topics, human scores falling from fluent to scrambled.
    let topic = |id: &str| {
        format!(
            r#"{{"topic":"{id}","documents":[{{"id":"d","text":"The city council approved a new budget on Monday after a long debate. The plan raises spending on schools and parks by ten percent."}}],"summaries":[{{"system":"a","text":"The council approved a budget that raises spending on schools.","scores":{{"fluency":5}}}},{{"system":"b","text":"The council approved the budget on Monday.","scores":{{"fluency":4}}}},{{"system":"c","text":"council the budget approved schools raises.","scores":{{"fluency":2}}}},{{"system":"d","text":"parks the budget council Monday ten a on.","scores":{{"fluency":1}}}}]}}"#
        )
    };
    std::fs::write(&set, format!("{}\n{}\n", topic("t1"), topic("t2"))).expect("write");
    let model = dir.path().join("m.aesop");
    let train = common::aesop()
        .env_remove("AESOP_NEURAL_CACHE")
        .args(["train", set.to_str().expect("utf-8")])
        .args(["--target", "fluency", "--classes", "neural_hidden"])
        .args(["--no-references", "--neural-source-tokens", "64", "-o"])
        .arg(&model)
        .output()
        .expect("runs");
    assert!(
        train.status.success(),
        "{}",
        String::from_utf8_lossy(&train.stderr)
    );
    let scored = dir.path().join("out.jsonl");
    let score = common::aesop()
        .env_remove("AESOP_NEURAL_CACHE")
        .args(["score", set.to_str().expect("utf-8"), "--model"])
        .arg(&model)
        .arg("-o")
        .arg(&scored)
        .output()
        .expect("runs");
    assert!(
        score.status.success(),
        "{}",
        String::from_utf8_lossy(&score.stderr)
    );
    let scores: Vec<(String, f64)> = std::fs::read_to_string(&scored)
        .expect("scores")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            (
                v["system"].as_str().expect("system").to_string(),
                v["score"].as_f64().expect("score"),
            )
        })
        .collect();
    assert_eq!(scores.len(), 8);
    // The model learned on these very summaries: it ranks the fluent one above the scrambled.
    let of = |s: &str| scores.iter().find(|(n, _)| n == s).expect(s).1;
    assert!(of("a") > of("d"), "{scores:?}");
}
