//! A saved answer of `POST /v1/score` judged by `aesop evaluate`: the same report as the
//! predictions `aesop score` writes for the same topics, its features read by `--feature` and
//! `--features`, and answers that cannot be judged refused with the result at fault.

use super::scoring::run_cli_score;
use super::*;
use std::path::PathBuf;

/// The article's sentences, which the summaries below recombine.
const SENTENCES: [&str; 6] = [
    "The city council approved a new budget on Monday after a long debate.",
    "The plan raises spending on schools and parks by ten percent.",
    "Critics said the council ignored the rising cost of public transport.",
    "The mayor defended the plan and promised a review of transport fares.",
    "Teachers' unions welcomed the extra money for schools.",
    "Park volunteers said new funds would repair old playgrounds.",
];

/// Three topics with references and four systems each, whose human `pyramid` scores follow
/// neither length nor any one feature exactly.
fn judged_topics() -> Value {
    let topics: Vec<Value> = (0..3)
        .map(|t| {
            let summaries: Vec<Value> = (0..4)
                .map(|s| {
                    let text = (0..=s % 3)
                        .map(|k| SENTENCES[(t + s + 2 * k) % SENTENCES.len()])
                        .collect::<Vec<_>>()
                        .join(" ");
                    json!({"system": format!("sys{s}"), "text": text,
                           "scores": {"pyramid": ((s * 7 + t * 3) % 5) as f64 / 4.0}})
                })
                .collect();
            json!({
                "topic": format!("t{t}"),
                "documents": [{"id": "d1", "text": ARTICLE}],
                "references": [{"id": "A", "text": SENTENCES[t % 6].to_string() + " " + SENTENCES[(t + 1) % 6]}],
                "summaries": summaries
            })
        })
        .collect();
    Value::Array(topics)
}

fn answer_of(server: &ServerHandle, request: Value) -> Value {
    post(server.addr, "/v1/score", &request)
        .assert_status(200)
        .json()
}

fn write_pretty(path: &Path, answer: &Value) {
    std::fs::write(
        path,
        serde_json::to_string_pretty(answer).expect("answer as JSON"),
    )
    .expect("write answer");
}

/// `aesop evaluate` with `args`, its `--json` report less what names the inputs (`inputs`, the
/// metric's label).
fn report(args: &[&std::ffi::OsStr], dir: &Path) -> Value {
    let out = dir.join("report.json");
    common::aesop()
        .arg("evaluate")
        .args(args)
        .args(["--bootstrap", "200", "--seed", "3", "--json"])
        .arg(&out)
        .assert()
        .success();
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("report")).expect("JSON");
    let object = report.as_object_mut().expect("object");
    object.remove("inputs");
    object.remove("metric");
    report
}

fn os(text: &str) -> &std::ffi::OsStr {
    text.as_ref()
}

/// The built-ins learned from every summary of the SummEval sample: each result of those
/// topics lists them in `in_training`, as `aesop score` marks its lines, a summary they never
/// saw lists none, and `evaluate` of the saved answer warns that its figures are in-sample.
#[test]
fn an_answer_names_the_models_that_learned_from_a_summary() {
    let server = start(&local_args());
    let dir = tempfile::tempdir().expect("tempdir");
    let imported = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let text = std::fs::read_to_string(&imported).expect("sample");
    let mut topics: Vec<Value> = text
        .lines()
        .take(2)
        .map(|l| serde_json::from_str(l).expect("topic"))
        .collect();
    // A third topic the models never saw.
    topics.push(judged_topics()[0].clone());
    let topics = Value::Array(topics);
    let predictions = run_cli_score(&topics, &[], dir.path(), None);
    let answer = answer_of(&server, json!({"topics": topics}));
    // Per (topic, system): the models the CLI's lines mark.
    let mut marked: std::collections::BTreeMap<(String, String), Vec<String>> = Default::default();
    for line in std::fs::read_to_string(&predictions)
        .expect("predictions")
        .lines()
    {
        let p: Value = serde_json::from_str(line).expect("line");
        let models = marked
            .entry((p["topic"].to_string(), p["system"].to_string()))
            .or_default();
        if p["in_training"] == json!(true) {
            models.push(p["model"].as_str().expect("model").to_string());
        }
    }
    let results = answer["results"].as_array().expect("results");
    assert_eq!(results.len(), marked.len());
    let mut learned = 0;
    for result in results {
        let mut named: Vec<String> = result["in_training"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|m| m.as_str().expect("name").to_string())
                    .collect()
            })
            .unwrap_or_default();
        named.sort();
        let mut expected =
            marked[&(result["topic"].to_string(), result["system"].to_string())].clone();
        expected.sort();
        assert_eq!(named, expected, "{result}");
        // Absent, not empty, where no model learned from the summary.
        assert_eq!(result.get("in_training").is_some(), !named.is_empty());
        if result["topic"] == json!("t0") {
            assert!(named.is_empty(), "{result}");
        } else {
            assert_eq!(named, ["pyramid", "readability", "responsiveness"]);
            learned += 1;
        }
    }
    assert_eq!(learned, 32);
    let saved = dir.path().join("answer.json");
    // `evaluate` of `answer` saved: success, and its standard error.
    let judged = |answer: &Value| {
        write_pretty(&saved, answer);
        let out = common::aesop()
            .arg("evaluate")
            .arg(&saved)
            .arg("--human")
            .arg(&imported)
            .args(["--target", "relevance", "--predicted", "responsiveness"])
            .args(["--bootstrap", "0"])
            .output()
            .expect("evaluate");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stderr) = judged(&answer);
    assert!(ok, "{stderr}");
    assert!(
        // Judged here: the 32 summaries of the answer's that have human scores.
        stderr.contains("model responsiveness was trained on all 32 summaries judged here"),
        "{stderr}"
    );
    // A list that is no list of names is refused, naming the result.
    let mut bad = answer.clone();
    bad["results"][0]["in_training"] = json!("responsiveness");
    let (ok, stderr) = judged(&bad);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains(
            "results[0].in_training: expected a list of model names (those that learned from \
             the summary), found \"responsiveness\""
        ),
        "{stderr}"
    );
}

#[test]
fn a_saved_answer_is_judged_as_the_predictions_aesop_score_writes() {
    let server = start(&local_args());
    let dir = tempfile::tempdir().expect("tempdir");
    let topics = judged_topics();
    let predictions = run_cli_score(&topics, &[], dir.path(), None);
    let set = dir.path().join("set.jsonl");
    let answer = answer_of(&server, json!({"topics": topics, "features": true}));
    // The models name what they predict.
    let targets: Vec<(&str, &str)> = answer["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| {
            (
                m["name"].as_str().expect("name"),
                m["target"].as_str().expect("target"),
            )
        })
        .collect();
    assert!(
        targets.contains(&("readability", "readability")),
        "{targets:?}"
    );
    let saved = dir.path().join("answer.json");
    write_pretty(&saved, &answer);

    for predicted in ["pyramid", "responsiveness", "readability"] {
        let of = |file: &PathBuf| {
            report(
                &[
                    file.as_os_str(),
                    os("--human"),
                    set.as_os_str(),
                    os("--target"),
                    os("pyramid"),
                    os("--predicted"),
                    os(predicted),
                ],
                dir.path(),
            )
        };
        let from_answer = of(&saved);
        assert_eq!(from_answer, of(&predictions), "{predicted}");
        assert!(
            from_answer["statistics"]["summary"]["kendall"].is_f64(),
            "{from_answer}"
        );
    }

    // An answer per line (a client that posts a batch at a time) reads as one answer.
    let all = topics.as_array().expect("topics");
    let lines: Vec<String> = [&all[..1], &all[1..]]
        .iter()
        .map(|part| answer_of(&server, json!({"topics": part, "features": true})).to_string())
        .collect();
    let by_line = dir.path().join("answers.jsonl");
    std::fs::write(&by_line, lines.join("\n") + "\n").expect("write answers");
    let judged = |file: &PathBuf, extra: &[&str]| {
        let mut args = vec![
            file.as_os_str(),
            os("--human"),
            set.as_os_str(),
            os("--target"),
            os("pyramid"),
        ];
        args.extend(extra.iter().map(|a| os(a)));
        report(&args, dir.path())
    };
    assert_eq!(judged(&by_line, &[]), judged(&saved, &[]));

    // Its features read as those `aesop features` writes.
    let features = dir.path().join("features.jsonl");
    common::aesop()
        .args(["features"])
        .arg(&set)
        .args(["--classes", "content", "-o"])
        .arg(&features)
        .assert()
        .success();
    for column in ["content.js", "-content.js"] {
        assert_eq!(
            judged(&saved, &["--feature", column]),
            judged(&features, &["--feature", column]),
            "{column}"
        );
    }
    let table = common::aesop()
        .arg("evaluate")
        .arg(&saved)
        .arg("--human")
        .arg(&set)
        .args([
            "--target",
            "pyramid",
            "--features",
            "content.js*",
            "--bootstrap",
            "0",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(table.status.success(), "{text}");
    assert!(text.contains("content.js"), "{text}");
}

/// `aesop evaluate FILE --human SET --target pyramid EXTRA`.
fn evaluate_answer(file: &Path, set: &Path, extra: &[&str]) -> std::process::Output {
    common::aesop()
        .arg("evaluate")
        .arg(file)
        .arg("--human")
        .arg(set)
        .args(["--target", "pyramid", "--bootstrap", "0"])
        .args(extra)
        .output()
        .expect("run")
}

/// The stderr of [`evaluate_answer`], which must fail.
fn refusal(file: &Path, set: &Path, extra: &[&str]) -> String {
    let out = evaluate_answer(file, set, extra);
    assert!(!out.status.success(), "{file:?} {extra:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// [`evaluate_answer`], which must succeed.
fn accepted(file: &Path, set: &Path, extra: &[&str]) {
    let out = evaluate_answer(file, set, extra);
    assert!(
        out.status.success(),
        "{file:?} {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn answers_that_cannot_be_judged_say_why() {
    let server = start(&local_args());
    let dir = tempfile::tempdir().expect("tempdir");
    let topics = judged_topics();
    let set = dir.path().join("set.jsonl");
    let lines: Vec<String> = topics
        .as_array()
        .expect("topics")
        .iter()
        .map(Value::to_string)
        .collect();
    std::fs::write(&set, lines.join("\n") + "\n").expect("write set");
    let path = dir.path().join("answer.json");
    let name = path.display().to_string();

    // Two models of one target: the flag that chooses, and then the choice read.
    let both = answer_of(
        &server,
        json!({"topics": topics, "models": ["pyramid", "pyramid-noref"]}),
    );
    write_pretty(&path, &both);
    let message = refusal(&path, &set, &[]);
    assert!(
        message.contains("models pyramid and pyramid-noref both predict 'pyramid'")
            && message.contains("--model NAME"),
        "{message}"
    );
    accepted(&path, &set, &["--model", "pyramid-noref"]);
    // No features asked for.
    let message = refusal(&path, &set, &["--feature", "content.js"]);
    assert!(
        message.contains(&name) && message.contains("\"features\": true"),
        "{message}"
    );
    let message = refusal(&path, &set, &["--features", "content.*"]);
    assert!(message.contains("\"features\": true"), "{message}");

    // An answer saved before the service named targets: several models need --model.
    let mut old = answer_of(&server, json!({"topics": topics}));
    for model in old["models"].as_array_mut().expect("models") {
        model.as_object_mut().expect("model").remove("target");
    }
    write_pretty(&path, &old);
    let message = refusal(&path, &set, &[]);
    assert!(
        message.contains("does not name what they predict") && message.contains("--model NAME"),
        "{message}"
    );
    accepted(&path, &set, &["--model", "pyramid"]);

    // A score that is no number names the result and the model.
    let mut bad = answer_of(&server, json!({"topics": topics}));
    bad["results"][1]["scores"]["pyramid"] = json!("high");
    write_pretty(&path, &bad);
    let message = refusal(&path, &set, &[]);
    assert!(
        message.contains(&format!(
            "{name}: results[1].scores.pyramid: expected a number"
        )),
        "{message}"
    );
    // A result without its topic.
    let mut bad = answer_of(&server, json!({"topics": topics}));
    bad["results"][2]
        .as_object_mut()
        .expect("result")
        .remove("topic");
    write_pretty(&path, &bad);
    let message = refusal(&path, &set, &[]);
    assert!(
        message.contains(&format!("{name}: results[2]: topic: missing")),
        "{message}"
    );

    // Cut short: the line and column of the JSON error, not "line 1".
    let text = serde_json::to_string_pretty(&both).expect("JSON");
    std::fs::write(&path, &text[..text.len() / 2]).expect("write");
    let message = refusal(&path, &set, &[]);
    assert!(
        message.contains("malformed JSON") && message.contains("read as one JSON document"),
        "{message}"
    );
    assert!(!message.contains(&format!("{name}:1:")), "{message}");
    // One object over several lines that is no answer.
    std::fs::write(
        &path,
        "{\n  \"topic\": \"t0\",\n  \"system\": \"a\", \"score\": 1\n}\n",
    )
    .expect("write");
    let message = refusal(&path, &set, &[]);
    assert!(message.contains("neither JSON Lines"), "{message}");
    // No results.
    std::fs::write(&path, "{\"results\": [], \"models\": []}\n").expect("write");
    let message = refusal(&path, &set, &[]);
    assert!(message.contains("holds no results"), "{message}");
    // A second line that is no answer.
    std::fs::write(
        &path,
        format!(
            "{}\n{{\"topic\": \"t0\"}}\n",
            json!({"results": both["results"], "models": both["models"]})
        ),
    )
    .expect("write");
    let message = refusal(&path, &set, &[]);
    assert!(
        message.contains(&format!("{name}:2: expected a saved answer")),
        "{message}"
    );
}
