//! Scores over HTTP equal `aesop score`'s, for the default, named and calibrated models, with the
//! CLI's warnings; models whose classes run under different options score apart.

use super::*;
use std::path::PathBuf;

/// `aesop score` on the same topics, as (topic, system, model) -> score.
fn cli_scores(
    topics: &Value,
    models: &[&str],
    dir: &Path,
) -> BTreeMap<(String, String, String), f64> {
    cli_predictions(topics, models, dir, "score")
}

/// `aesop score` on the same topics, as (topic, system, model) -> the prediction line's `field`
/// (`score`, or `raw` for a calibrated model).
fn cli_predictions(
    topics: &Value,
    models: &[&str],
    dir: &Path,
    field: &str,
) -> BTreeMap<(String, String, String), f64> {
    let output = run_cli_score(topics, models, dir, None);
    std::fs::read_to_string(&output)
        .expect("predictions")
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("prediction line");
            let key = |k: &str| v[k].as_str().expect(k).to_string();
            (
                (key("topic"), key("system"), key("model")),
                v[field].as_f64().expect(field),
            )
        })
        .collect()
}

/// Run `aesop score` on `topics` (written to DIR/set.jsonl) with the built-ins `models` (none:
/// the defaults), and `--systems` when given; the path of its predictions.
pub(super) fn run_cli_score(
    topics: &Value,
    models: &[&str],
    dir: &Path,
    systems: Option<PathBuf>,
) -> PathBuf {
    let set = dir.join("set.jsonl");
    let lines: Vec<String> = topics
        .as_array()
        .expect("topics")
        .iter()
        .map(|t| t.to_string())
        .collect();
    std::fs::write(&set, lines.join("\n") + "\n").expect("write set");
    let output = dir.join("pred.jsonl");
    let args = ScoreArgs {
        set: Some(set),
        model: models
            .iter()
            .map(|m| format!("builtin:{m}").into())
            .collect(),
        neural: false,
        documents: Vec::new(),
        summary: Vec::new(),
        reference: Vec::new(),
        output: Some(output.clone()),
        format: None,
        systems,
    };
    score_command(&args, &AtomicBool::new(false)).expect("aesop score");
    output
}

#[test]
fn scores_match_aesop_score_with_default_and_named_models() {
    let server = start(&local_args());
    let dir = tempfile::tempdir().expect("tempdir");
    let topics = sample_topics();

    let reply = post(server.addr, "/v1/score", &json!({"topics": topics}));
    let served = service_scores(&reply);
    let expected = cli_scores(&topics, &[], dir.path());
    // Defaults per topic: reference-based for "budget", -noref for "budget-noref"; 3 each.
    assert_eq!(served.len(), 12);
    assert!(served.contains_key(&("budget".into(), "s1".into(), "pyramid".into())));
    assert!(served.contains_key(&(
        "budget-noref".into(),
        "s2".into(),
        "readability-noref".into()
    )));
    assert_eq!(served, expected, "service and `aesop score` differ");
    // Results come in request order; the models used are listed with versions.
    let body = reply.json();
    let order: Vec<(String, String)> = body["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["topic"].as_str().unwrap_or("").into(),
                r["system"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("budget", "s1"),
        ("budget", "s2"),
        ("budget-noref", "s1"),
        ("budget-noref", "s2"),
    ]
    .iter()
    .map(|(t, s)| (t.to_string(), s.to_string()))
    .collect();
    assert_eq!(order, want);
    let names: Vec<&str> = body["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    let pyramid = builtin::find("pyramid").expect("builtin");
    assert!(body["models"]
        .as_array()
        .expect("models")
        .iter()
        .any(|m| m["name"] == "pyramid" && m["version"] == pyramid.version()));

    let named = ["readability-noref", "pyramid-noref"];
    let reply = post(
        server.addr,
        "/v1/score",
        &json!({"topics": topics, "models": named, "features": true}),
    );
    assert_eq!(
        service_scores(&reply),
        cli_scores(&topics, &named, dir.path())
    );
    let first = &reply.json()["results"][0];
    let features = first["features"].as_object().expect("features asked for");
    assert!(
        features.keys().any(|k| k.starts_with("content.")),
        "{features:?}"
    );
    assert!(server.shutdown().is_ok());
}

#[test]
fn summeval_article_scores_match_aesop_score() {
    let Some(path) = common::data_or_skip(
        "summeval_article_scores_match_aesop_score",
        "summeval/summeval.jsonl",
    ) else {
        return;
    };
    let topics = common::load_summeval(&path);
    let mut topic = topics[0].clone();
    topic.summaries.truncate(3);
    let with_refs = serde_json::to_value(&topic).expect("topic");
    topic.references.clear();
    topic.topic.push_str("-noref");
    let without = serde_json::to_value(&topic).expect("topic");
    let topics = json!([with_refs, without]);
    let server = start(&local_args());
    let dir = tempfile::tempdir().expect("tempdir");
    let reply = post(server.addr, "/v1/score", &json!({"topics": topics}));
    assert_eq!(service_scores(&reply), cli_scores(&topics, &[], dir.path()));
}

/// `builtin` saved with `edit` applied, at `path`.
fn save_edited_builtin(
    name: &str,
    path: &Path,
    edit: impl FnOnce(&mut aesop::learn::model_file::ModelFile),
) {
    let mut model = builtin::find(name)
        .and_then(|b| b.load())
        .expect("built-in");
    edit(&mut model);
    model.save(path).expect("model file");
}

/// Audit stop 51: over HTTP a batch-dependent model, or a class without values for some
/// summaries, gave no word, where `aesop score` warns; the answer had no `raw`. Now the answer
/// carries the CLI's warnings in its words, `GET /v1/models` marks batch-dependent models, and
/// calibrated models give their raw output as `aesop score` does.
#[test]
fn the_answer_warns_as_aesop_score_does_and_gives_raw_values() {
    use aesop::learn::scoring::NamedModel;
    let dir = tempfile::tempdir().expect("tempdir");
    let peers = dir.path().join("peers.aesop");
    save_edited_builtin("pyramid-noref", &peers, |m| {
        m.transfer.normalization = aesop::learn::transfer::Normalization::TopicZ;
    });
    let mut args = local_args();
    args.models = vec![format!("peers={}", peers.display()).parse().expect("spec")];
    let server = start(&args);
    let addr = server.addr;
    let cards = get(addr, "/v1/models").json();
    let batch_dependent = |name: &str| {
        cards["models"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["name"] == name))
            .map(|m| m["batch_dependent"].clone())
    };
    assert_eq!(batch_dependent("peers"), Some(json!(true)));
    assert_eq!(batch_dependent("pyramid-noref"), Some(json!(false)));

    // The batch-dependence warning, exactly as `aesop score` words it.
    let expected = aesop::learn::score_stream::batch_warnings_of(
        &NamedModel::from_file(&peers, Some("peers")).expect("model"),
    );
    assert_eq!(expected.len(), 1);
    assert!(
        expected[0].contains("depends on the other summaries of its topic"),
        "{expected:?}"
    );
    let topic = sample_topics()[1].clone();
    let reply = post(
        addr,
        "/v1/score",
        &json!({"topics": [topic.clone()], "models": ["peers"]}),
    );
    assert_eq!(reply.status, 200);
    let both = reply.json();
    // The edited model keeps the built-in's ranges of raw features while it now reads
    // z-scores, so the warning about features outside the training ranges comes too (that
    // warning is checked below, with documents longer than any the model learned from).
    let warnings: Vec<Value> = both["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter(|w| {
            !w.as_str()
                .is_some_and(|w| w.contains("have features outside the range"))
        })
        .cloned()
        .collect();
    assert_eq!(json!(warnings), json!(expected));
    // As the warning says: alone, a summary scores differently.
    let mut alone = topic.clone();
    alone["summaries"]
        .as_array_mut()
        .expect("summaries")
        .truncate(1);
    let alone = post(
        addr,
        "/v1/score",
        &json!({"topics": [alone], "models": ["peers"]}),
    )
    .json();
    assert_ne!(
        alone["results"][0]["scores"]["peers"],
        both["results"][0]["scores"]["peers"]
    );

    // A class without values for a summary: `aesop score`'s warning too. A human summary is
    // never compared with its own reference, and this topic has no other one.
    let reference = "The council passed a budget raising school and park spending.";
    let human = json!({"topics": [{
        "topic": "t1",
        "documents": [{"id": "d1", "text": ARTICLE}],
        "references": [{"id": "A", "text": reference}],
        "summaries": [{"system": "A", "text": reference, "human": true},
                      {"system": "s2", "text": "Critics said transport costs were ignored."}]
    }], "models": ["pyramid"]});
    let reply = post(addr, "/v1/score", &human);
    reply.assert_status(200);
    let warnings = reply.json()["warnings"].clone();
    let warnings: Vec<&str> = warnings
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        warnings.iter().any(|w| w.starts_with("class ")
            && w.contains("no other reference for a human summary")
            && w.ends_with(aesop::learn::score_stream::SKIPPED_SCORES)),
        "{warnings:?}"
    );

    // Documents in French: `aesop score`'s warning that the text is not English, with scores.
    let french = json!({"topics": [{
        "topic": "fr1",
        "documents": [{"id": "d1", "text": "Le conseil municipal a adopté lundi un nouveau budget \
            qui augmente les dépenses pour les écoles et les parcs. Les critiques affirment que \
            les coûts des transports ont été ignorés par la majorité."}],
        "summaries": [{"system": "s1", "text": "The council passed a budget."}]
    }], "models": ["pyramid-noref"]});
    let reply = post(addr, "/v1/score", &french);
    assert_eq!(reply.status, 200);
    let answer = reply.json();
    assert!(
        answer["results"][0]["scores"]["pyramid-noref"].is_number(),
        "{answer}"
    );
    let warnings = answer["warnings"].as_array().expect("warnings");
    assert!(
        warnings.len() == 1
            && warnings[0].as_str().is_some_and(
                |w| w.starts_with("the documents of topic 'fr1' do not read as English")
            ),
        "{warnings:?}"
    );

    // Documents far longer than any the model learned from: `aesop score`'s warning that the
    // summary's features lie outside the model's training ranges.
    let article = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/article.txt"),
    )
    .expect("article");
    let long = json!({"topics": [{
        "topic": "long",
        "documents": [{"id": "d1", "text": article.repeat(120)},
                      {"id": "d2", "text": article.repeat(120)}],
        "summaries": (1..=5)
            .map(|i| json!({"system": format!("s{i}"), "text": format!("The council passed budget {i}.")}))
            .collect::<Vec<_>>()
    }], "models": ["pyramid-noref"]});
    let reply = post(addr, "/v1/score", &long);
    assert_eq!(reply.status, 200);
    let answer = reply.json();
    let warnings = answer["warnings"].as_array().expect("warnings");
    assert!(
        warnings.len() == 1
            && warnings[0].as_str().is_some_and(|w| w.starts_with(
                "model pyramid-noref: of the 5 scored summaries, many have features outside \
                 the range the model was trained on: "
            )),
        "{warnings:?}"
    );

    // No warnings: no `warnings` field.
    let reply = post(addr, "/v1/score", &json!({"topics": sample_topics()}));
    assert_eq!(reply.status, 200);
    assert!(reply.json().get("warnings").is_none());

    // `raw`: what `aesop score` writes as `raw` for a calibrated model.
    let topics = json!([sample_topics()[1].clone()]);
    let cli_raw = cli_predictions(&topics, &["readability-noref"], dir.path(), "raw");
    let reply = post(
        addr,
        "/v1/score",
        &json!({"topics": topics, "models": ["readability-noref"]}),
    );
    let answer = reply.json();
    let http_raw: BTreeMap<(String, String, String), f64> = answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let key = |k: &str| r[k].as_str().expect(k).to_string();
            (
                (key("topic"), key("system"), "readability-noref".to_string()),
                r["raw"]["readability-noref"].as_f64().expect("raw"),
            )
        })
        .collect();
    assert_eq!(http_raw, cli_raw);
    assert_ne!(
        answer["results"][0]["raw"]["readability-noref"],
        answer["results"][0]["scores"]["readability-noref"]
    );
}

/// Two models that compute a class they share under different options (two ROUGE settings):
/// the service scores them in separate passes, as two `aesop score` runs would, and with
/// `features` gives that class's features once per model (`rouge.r1_recall@MODEL`). Before, it
/// gave one value per name, the last pass's.
#[test]
fn models_computing_a_class_differently_score_apart_with_features_per_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    let best = dir.path().join("best.aesop");
    save_edited_builtin("pyramid", &best, |m| {
        m.feature_options.rouge.best_reference = true;
    });
    let mut args = local_args();
    args.models = vec![format!("best={}", best.display()).parse().expect("spec")];
    let server = start(&args);
    let topics = json!([sample_topics()[0].clone()]);
    let score = |models: &[&str]| {
        let request = json!({"topics": topics, "models": models, "features": true});
        let reply = post(server.addr, "/v1/score", &request);
        (service_scores(&reply), reply.json())
    };
    let (together, body) = score(&["pyramid", "best"]);
    let (pyramid, pyramid_body) = score(&["pyramid"]);
    let (alone, best_body) = score(&["best"]);
    let mut apart = pyramid.clone();
    apart.extend(alone);
    assert_eq!(together, apart);
    for (r, result) in body["results"]
        .as_array()
        .expect("results")
        .iter()
        .enumerate()
    {
        let features = result["features"].as_object().expect("features");
        assert!(!features.contains_key("rouge.r1_recall"), "{features:?}");
        for (model, alone) in [("pyramid", &pyramid_body), ("best", &best_body)] {
            let own = alone["results"][r]["features"]
                .as_object()
                .expect("features");
            assert_eq!(
                features[&format!("rouge.r1_recall@{model}")],
                own["rouge.r1_recall"]
            );
            // Classes computed alike are given once, under their own names.
            assert_eq!(features["content.js"], own["content.js"]);
        }
    }
    // The best reference and the average over two differ somewhere.
    let differs = body["results"]
        .as_array()
        .expect("results")
        .iter()
        .any(|result| {
            let f = &result["features"];
            f.as_object()
                .expect("features")
                .iter()
                .any(|(name, value)| {
                    name.ends_with("@pyramid") && f[name.replace("@pyramid", "@best")] != *value
                })
        });
    assert!(differs, "{body}");
    assert!(server.shutdown().is_ok());
}

/// Models with different LM options (source budgets): scored in separate passes, each as it
/// scores alone. Audit stop 51 made this a 422 `incompatible_models` naming them (it had been a
/// 500); since stop 52 the service scores them apart, as it does models of different ROUGE
/// settings.
#[test]
fn models_with_different_neural_options_score_apart() {
    if !common::neural_model_or_skip("models_with_different_neural_options_score_apart") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (long, short) = (
        dir.path().join("long.aesop"),
        dir.path().join("short.aesop"),
    );
    let mut args = local_args();
    for (path, tokens) in [(&long, 200), (&short, 100)] {
        save_edited_builtin("readability-lm-noref", path, |m| {
            if let Some(neural) = m.neural.as_mut() {
                neural.max_scored_tokens = tokens;
            }
        });
    }
    args.models = vec![
        format!("long={}", long.display()).parse().expect("spec"),
        format!("short={}", short.display()).parse().expect("spec"),
    ];
    let server = start(&args);
    let score = |models: &[&str]| {
        let request =
            json!({"topics": [sample_topics()[1].clone()], "models": models, "features": true});
        let reply = post(server.addr, "/v1/score", &request);
        (service_scores(&reply), reply.json())
    };
    let (together, body) = score(&["long", "short"]);
    let mut apart = score(&["long"]).0;
    apart.extend(score(&["short"]).0);
    assert_eq!(together, apart);
    let features = body["results"][0]["features"]
        .as_object()
        .expect("features");
    assert!(
        features.contains_key("neural.src_slor@long"),
        "{features:?}"
    );
    assert!(
        features.contains_key("neural.src_slor@short"),
        "{features:?}"
    );
    assert!(!features.contains_key("neural.src_slor"), "{features:?}");
    assert!(server.shutdown().is_ok());
}

/// `aesop score --systems S.jsonl` on the same topics: its rows, as JSON values.
fn cli_system_means(topics: &Value, models: &[&str], dir: &Path) -> Vec<Value> {
    let systems = dir.join("systems.jsonl");
    run_cli_score(topics, models, dir, Some(systems.clone()));
    std::fs::read_to_string(&systems)
        .expect("system means")
        .lines()
        .map(|line| serde_json::from_str(line).expect("system line"))
        .collect()
}

#[test]
fn system_means_match_aesop_score_systems() {
    let server = start(&local_args());
    let dir = tempfile::tempdir().expect("tempdir");
    // A third system in one topic only: the means cover different topics, which `score` warns of.
    let mut topics = sample_topics();
    topics[0]["summaries"]
        .as_array_mut()
        .expect("summaries")
        .push(json!({"system": "s3", "text": "The budget raises school spending."}));
    for models in [&[][..], &["readability-noref", "pyramid-noref"][..]] {
        let mut request = json!({"topics": topics, "systems": true});
        if !models.is_empty() {
            request["models"] = json!(models);
        }
        let reply = post(server.addr, "/v1/score", &request);
        reply.assert_status(200);
        let body = reply.json();
        let served = body["systems"].as_array().expect("systems").clone();
        assert_eq!(
            served,
            cli_system_means(&topics, models, dir.path()),
            "{models:?}"
        );
        // Defaults: one row per target and system, the variants that scored it named; named
        // models: one per model and system.
        let columns = if models.is_empty() { 3 } else { 2 };
        assert_eq!(served.len(), columns * 3, "{served:?}");
        let s1 = served
            .iter()
            .find(|row| {
                row["system"] == "s1" && row["model"] == json!(models.first().unwrap_or(&"pyramid"))
            })
            .expect("s1's row");
        assert_eq!(s1["topics"], 2);
        if models.is_empty() {
            assert_eq!(s1["models"], "pyramid pyramid-noref", "{s1}");
        }
        let warnings = body["warnings"].as_array().expect("warnings");
        assert!(
            warnings
                .iter()
                .any(|w| w.as_str().is_some_and(|w| w.contains("s3"))),
            "{warnings:?}"
        );
    }
    // Without the flag the answer has no `systems`.
    let reply = post(server.addr, "/v1/score", &json!({"topics": topics}));
    assert!(reply.json().get("systems").is_none());
}
