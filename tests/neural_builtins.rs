//! The built-ins with the neural LM class (`…-lm`, `faithfulness`) and `score --neural` /
//! `serve --neural`: which models are picked, the options stored in their files, and a plain
//! error when the LM file is absent. Scoring with the LM needs `aesop models fetch smollm2`:
//! those tests skip with a notice without it, unless AESOP_REQUIRE_MODELS=1 (set by .ci/run).

use crate::common;

use aesop::learn::builtin::{self, Family, BUILTINS};

const TOPIC: &str = r#"{"topic":"t1","documents":[{"id":"d","text":"The city council approved a new budget on Monday after a long debate. The plan raises spending on schools and parks by ten percent. Critics said the council ignored the rising cost of public transport."}],"references":[{"id":"r","text":"The council passed a budget that spends more on schools and parks."}],"summaries":[{"system":"a","text":"The council approved a budget that raises spending on schools and parks."},{"system":"b","text":"parks the budget council Monday ten a on."},{"system":"c","text":"The council cut spending on schools, and the mayor resigned."}]}"#;

#[test]
fn neural_family_picks_lm_variants_and_faithfulness() {
    for has_refs in [true, false] {
        for target in Family::Neural.targets() {
            let b = builtin::default_of(target, has_refs, Family::Neural).expect("built-in");
            assert_eq!(b.target, *target);
            if !has_refs {
                assert!(b.reference_free, "{} needs references", b.name);
            }
            // Where no neural variant beat the classic one under protocol 2 (pyramid, and
            // responsiveness without references) the classic model is used.
            let neural = matches!(*target, "readability" | "faithfulness")
                || (*target == "responsiveness" && has_refs);
            assert_eq!(b.neural, neural, "{}", b.name);
        }
        for target in Family::Classic.targets() {
            let b = builtin::default_of(target, has_refs, Family::Classic).expect("built-in");
            assert!(!b.neural, "classic default {} uses the LM", b.name);
        }
    }
    // Every neural built-in stores the options it was trained with, and they agree (one
    // `score --neural` run scores them together).
    let mut records = Vec::new();
    for b in BUILTINS.iter().filter(|b| b.neural) {
        let m = b.load().expect("loads");
        // SmolLM2 read as written (`neural`) or recased from the source (`neural_truecased`).
        let smollm2 = |c: &String| c == "neural" || c == "neural_truecased";
        assert!(m.classes.iter().any(smollm2), "{}", b.name);
        let r = m.neural.clone().expect("neural options recorded");
        assert_eq!(
            r.max_references, 0,
            "{}: reference-free LM features",
            b.name
        );
        assert!(
            !m.feature_names.iter().any(|f| f.contains(".ref_")),
            "{}",
            b.name
        );
        assert_eq!(
            r.prompt,
            aesop::features::neural::NeuralPrompt::Chat,
            "{}: the prompt chosen under protocol 2",
            b.name
        );
        records.push(r);
    }
    assert_eq!(records.len(), 4, "neural built-ins");
    assert!(records.windows(2).all(|w| w[0] == w[1]), "{records:?}");
    // No classic built-in needs the LM.
    for b in BUILTINS.iter().filter(|b| !b.neural) {
        let m = b.load().expect("loads");
        assert!(
            !m.classes
                .iter()
                .any(|c| aesop::features::neural::is_lm_class(c)),
            "{}",
            b.name
        );
    }
}

#[test]
fn score_neural_without_the_model_names_the_fetch_command() {
    let home = tempfile::tempdir().expect("tempdir");
    let set = home.path().join("set.jsonl");
    std::fs::write(&set, format!("{TOPIC}\n")).expect("write");
    let out = common::aesop()
        .env("AESOP_HOME", home.path())
        .args(["score", set.to_str().expect("utf-8"), "--neural"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("aesop models fetch smollm2"), "{err}");
    // It names the models that need the LM, not a classic one that happens to come first.
    assert!(
        err.contains("builtin:readability-lm") && err.contains("neural LM class"),
        "{err}"
    );
    assert!(!err.contains("builtin:pyramid"), "{err}");
    // The classic default needs no download.
    let out = common::aesop()
        .env("AESOP_HOME", home.path())
        .args(["score", set.to_str().expect("utf-8")])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --neural picks the defaults: naming a model as well is refused.
    let out = common::aesop()
        .args([
            "score",
            set.to_str().expect("utf-8"),
            "--neural",
            "--model",
            "builtin:pyramid",
        ])
        .output()
        .expect("runs");
    assert!(!out.status.success());
}

#[test]
fn score_neural_predicts_four_targets_and_ranks_a_scrambled_summary_last() {
    if !common::neural_model_or_skip(
        "score_neural_predicts_four_targets_and_ranks_a_scrambled_summary_last",
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    // The same topic without references: the `-noref` variants.
    let noref: serde_json::Value = {
        let mut v: serde_json::Value = serde_json::from_str(TOPIC).expect("json");
        v["topic"] = "t2".into();
        v.as_object_mut().expect("object").remove("references");
        v
    };
    std::fs::write(&set, format!("{TOPIC}\n{noref}\n")).expect("write");
    let out = dir.path().join("scores.jsonl");
    let run = common::aesop()
        .args([
            "score",
            set.to_str().expect("utf-8"),
            "--neural",
            "-o",
            out.to_str().expect("utf-8"),
        ])
        .output()
        .expect("runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    // 2 topics x 3 summaries x 4 targets.
    assert_eq!(lines.len(), 24);
    let model_of = |topic: &str, target: &str| -> String {
        lines
            .iter()
            .find(|l| l["topic"] == topic && l["target"] == target)
            .and_then(|l| l["model"].as_str())
            .expect("prediction")
            .to_string()
    };
    assert_eq!(model_of("t1", "readability"), "readability-lm");
    assert_eq!(model_of("t2", "readability"), "readability-lm-noref");
    assert_eq!(model_of("t1", "faithfulness"), "faithfulness");
    assert_eq!(model_of("t2", "faithfulness"), "faithfulness");
    assert_eq!(model_of("t1", "responsiveness"), "responsiveness-lm");
    assert_eq!(model_of("t2", "responsiveness"), "responsiveness-noref");
    let score = |topic: &str, system: &str, target: &str| -> f64 {
        lines
            .iter()
            .find(|l| l["topic"] == topic && l["system"] == system && l["target"] == target)
            .and_then(|l| l["score"].as_f64())
            .expect("score")
    };
    for topic in ["t1", "t2"] {
        // A scrambled word salad reads worse than either fluent summary.
        let b = score(topic, "b", "readability");
        assert!(b < score(topic, "a", "readability"), "{topic}");
        assert!(b < score(topic, "c", "readability"), "{topic}");
    }
}

/// POST `body` to `path` and return the reply's status and body (Connection: close).
fn post(addr: std::net::SocketAddr, path: &str, body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(300)))
        .expect("timeout");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(body.as_bytes()).expect("write");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read");
    let status = raw
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let body = raw
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    (status, body)
}

#[test]
fn serve_neural_scores_with_the_lm_built_ins() {
    if !common::neural_model_or_skip("serve_neural_scores_with_the_lm_built_ins") {
        return;
    }
    let mut args = aesop::serve::ServeArgs::new("127.0.0.1:0".parse().expect("address"));
    args.neural = true;
    let server = aesop::serve::spawn(&args).expect("server starts");
    let topic: serde_json::Value = serde_json::from_str(TOPIC).expect("json");
    let request = serde_json::json!({"topics": [topic]}).to_string();
    let (status, body) = post(server.addr, "/v1/score", &request);
    assert_eq!(status, 200, "{body}");
    for name in ["readability-lm", "faithfulness", "responsiveness-lm"] {
        assert!(
            body.contains(&format!("\"{name}\"")),
            "{name} missing: {body}"
        );
    }
    server.shutdown().expect("shutdown");
}
