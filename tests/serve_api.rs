//! The HTTP service, started in-process on an ephemeral loopback port (and once as the `aesop
//! serve` process for signals). A small raw HTTP/1.1 client sends exactly the bytes each case
//! needs (invalid UTF-8, oversized bodies).

use crate::common;

use aesop::learn::builtin;
use aesop::learn::commands::{score_command, ScoreArgs};
use aesop::serve::{spawn, ServeArgs, ServerHandle, ROUTES};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request on a fresh connection (`Connection: close`), read to the end.
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
    {
        head.push_str("Content-Type: application/json\r\n");
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    // The server may answer (413) and close before reading all of a large body.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    if let Err(e) = stream.read_to_end(&mut raw) {
        assert!(!raw.is_empty(), "reading the reply: {e}");
    }
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16)
            .expect("chunk size");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
}

fn post(addr: SocketAddr, path: &str, body: &Value) -> Reply {
    http(addr, "POST", path, &[], body.to_string().as_bytes())
}

fn get(addr: SocketAddr, path: &str) -> Reply {
    http(addr, "GET", path, &[], b"")
}

fn local_args() -> ServeArgs {
    ServeArgs::new("127.0.0.1:0".parse().expect("address"))
}

fn start(args: &ServeArgs) -> ServerHandle {
    spawn(args).expect("server starts")
}

const ARTICLE: &str = "The city council approved a new budget on Monday after a long debate. The plan \
    raises spending on schools and parks by ten percent. Critics said the council ignored the rising \
    cost of public transport, which has grown faster than wages for three years. The mayor defended \
    the plan and promised a separate review of transport fares in the spring. Teachers' unions \
    welcomed the extra money for schools. Park volunteers said new funds would repair old \
    playgrounds across the city.";

/// Two topics: one with references, one without, two summaries each.
fn sample_topics() -> Value {
    json!([
        {
            "topic": "budget",
            "documents": [{"id": "d1", "text": ARTICLE}],
            "references": [
                {"id": "A", "text": "The council passed a budget raising school and park spending; critics cite transport costs."},
                {"id": "B", "text": "A new city budget adds money for schools and parks. Transport fares will be reviewed."}
            ],
            "summaries": [
                {"system": "s1", "text": "The council approved a budget that raises spending on schools and parks.", "scores": {"pyramid": 0.5}},
                {"system": "s2", "text": "Critics said transport costs were ignored. The mayor promised a review."}
            ]
        },
        {
            "topic": "budget-noref",
            "documents": [{"id": "d1", "text": ARTICLE}],
            "summaries": [
                {"system": "s1", "text": "The mayor defended the plan and promised a review of transport fares."},
                {"system": "s2", "text": "Schools and parks get ten percent more money."}
            ]
        }
    ])
}

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
        model: models.iter().map(|m| format!("builtin:{m}")).collect(),
        neural: false,
        documents: Vec::new(),
        summary: Vec::new(),
        reference: Vec::new(),
        output: Some(output.clone()),
        format: None,
    };
    score_command(&args, &AtomicBool::new(false)).expect("aesop score");
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

fn service_scores(reply: &Reply) -> BTreeMap<(String, String, String), f64> {
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let body = reply.json();
    let mut out = BTreeMap::new();
    for result in body["results"].as_array().expect("results") {
        for (model, score) in result["scores"].as_object().expect("scores") {
            out.insert(
                (
                    result["topic"].as_str().expect("topic").to_string(),
                    result["system"].as_str().expect("system").to_string(),
                    model.clone(),
                ),
                score.as_f64().expect("finite score"),
            );
        }
    }
    out
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

/// A valid single-topic request with one summary, with `edit` applied.
fn request_with(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut request = json!({"topics": [sample_topics()[1].clone()]});
    edit(&mut request);
    request.to_string().into_bytes()
}

#[test]
fn bad_inputs_get_4xx_json_errors_naming_the_field() {
    let mut args = local_args();
    args.max_body_bytes = 20_000;
    args.max_text_bytes = 5_000;
    let server = start(&args);
    let addr = server.addr;
    let mut invalid_utf8 =
        request_with(|r| r["topics"][0]["summaries"][1]["text"] = json!("caf\u{e9}"));
    let e_acute = invalid_utf8
        .windows(2)
        .position(|w| w == "\u{e9}".as_bytes())
        .expect("é in body");
    // A lone Latin-1 é (0xE9 followed by a quote) is not UTF-8.
    invalid_utf8.splice(e_acute..e_acute + 2, [0xE9u8]);
    // (what, body, status, code, field)
    type Case<'a> = (&'a str, Vec<u8>, u16, &'a str, Option<&'a str>);
    let cases: Vec<Case> = vec![
        (
            "malformed JSON",
            b"{\"topics\": [".to_vec(),
            400,
            "malformed_json",
            None,
        ),
        ("not an object", b"[1, 2]".to_vec(), 422, "wrong_type", None),
        (
            "invalid UTF-8",
            invalid_utf8,
            400,
            "invalid_utf8",
            Some("topics[0].summaries[1].text"),
        ),
        (
            "topics missing",
            b"{}".to_vec(),
            422,
            "missing_field",
            Some("topics"),
        ),
        (
            "topics wrong type",
            b"{\"topics\": {}}".to_vec(),
            422,
            "wrong_type",
            Some("topics"),
        ),
        (
            "no topics",
            b"{\"topics\": []}".to_vec(),
            422,
            "invalid_value",
            Some("topics"),
        ),
        (
            "topic id a number",
            request_with(|r| r["topics"][0]["topic"] = json!(5)),
            422,
            "wrong_type",
            Some("topics[0].topic"),
        ),
        (
            "summary text missing",
            request_with(|r| {
                r["topics"][0]["summaries"][1]
                    .as_object_mut()
                    .map(|s| s.remove("text"));
            }),
            422,
            "missing_field",
            Some("topics[0].summaries[1].text"),
        ),
        (
            "summary text a number",
            request_with(|r| r["topics"][0]["summaries"][0]["text"] = json!(1.5)),
            422,
            "wrong_type",
            Some("topics[0].summaries[0].text"),
        ),
        (
            "empty summary",
            request_with(|r| r["topics"][0]["summaries"][1]["text"] = json!("  ")),
            422,
            "empty_summary",
            Some("topics[0].summaries[1].text"),
        ),
        (
            "empty document",
            request_with(|r| {
                if let Some(documents) = r["topics"][0]["documents"].as_array_mut() {
                    documents.push(json!({"id": "d2", "text": ""}));
                }
            }),
            422,
            "empty_document",
            Some("topics[0].documents[1].text"),
        ),
        (
            "blank document",
            request_with(|r| r["topics"][0]["documents"][0]["text"] = json!("  \n ")),
            422,
            "empty_document",
            Some("topics[0].documents[0].text"),
        ),
        (
            "empty reference",
            request_with(|r| r["topics"][0]["references"] = json!([{"id": "A", "text": ""}])),
            422,
            "empty_reference",
            Some("topics[0].references[0].text"),
        ),
        (
            "no documents",
            request_with(|r| r["topics"][0]["documents"] = json!([])),
            422,
            "invalid_value",
            Some("topics[0].documents"),
        ),
        (
            "unknown model",
            request_with(|r| r["models"] = json!(["pyramid-noref", "nonesuch"])),
            422,
            "unknown_model",
            Some("models[1]"),
        ),
        (
            "models not strings",
            request_with(|r| r["models"] = json!([{"name": "pyramid"}])),
            422,
            "wrong_type",
            Some("models[0]"),
        ),
        (
            "reference model without references",
            request_with(|r| r["models"] = json!(["pyramid"])),
            422,
            "references_required",
            Some("topics[0].references"),
        ),
        (
            "features not a boolean",
            request_with(|r| r["features"] = json!("yes")),
            422,
            "wrong_type",
            Some("features"),
        ),
        (
            "misspelt field",
            request_with(|r| r["model"] = json!(["pyramid"])),
            422,
            "unknown_field",
            Some("model"),
        ),
        (
            "text over the limit",
            request_with(|r| r["topics"][0]["summaries"][0]["text"] = json!("word ".repeat(1_100))),
            413,
            "text_too_long",
            Some("topics[0].summaries[0].text"),
        ),
        (
            "body over the limit",
            request_with(|r| r["topics"][0]["documents"][0]["text"] = json!("word ".repeat(5_000))),
            413,
            "body_too_large",
            None,
        ),
    ];
    for (what, body, status, code, field) in cases {
        let reply = http(addr, "POST", "/v1/score", &[], &body);
        assert_eq!(
            reply.status,
            status,
            "{what}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        let error = &reply.json()["error"];
        assert_eq!(error["code"], code, "{what}: {error}");
        assert_eq!(error["field"].as_str(), field, "{what}: {error}");
        assert!(
            !error["message"].as_str().unwrap_or("").is_empty(),
            "{what}"
        );
        if code.starts_with("empty_") && code != "empty_summary" {
            // The message names the topic, as the field names the text.
            assert!(
                error["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("\"budget-noref\"")),
                "{what}: {error}"
            );
        }
        // The server keeps serving after every bad request.
        assert_eq!(get(addr, "/healthz").status, 200, "after {what}");
    }
    // Unknown routes and methods answer JSON errors too.
    let reply = get(addr, "/v2/score");
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (404, json!("not_found"))
    );
    let reply = get(addr, "/v1/score");
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (405, json!("method_not_allowed"))
    );
    // And a good request still scores.
    let reply = http(addr, "POST", "/v1/score", &[], &request_with(|_| {}));
    assert_eq!(reply.status, 200);
    let metrics = String::from_utf8_lossy(&get(addr, "/metrics").body).to_string();
    assert!(
        metrics.contains("aesop_http_errors_total{route=\"/v1/score\",code=\"empty_summary\"} 1"),
        "{metrics}"
    );
}

/// A body Python's `json.dumps` wrote (a bare `NaN` score) is read as a set line is; a repeated
/// key is refused with its path in `field`.
#[test]
fn a_bare_nan_score_is_accepted_and_a_repeated_key_is_named() {
    let server = start(&local_args());
    let addr = server.addr;
    let clean = request_with(|_| {});
    let scored = http(addr, "POST", "/v1/score", &[], &clean);
    assert_eq!(scored.status, 200);
    let text = String::from_utf8(clean).expect("UTF-8");
    let with_nan = text.replacen(
        r#""system":"s1","#,
        r#""system":"s1","scores":{"pyramid":NaN,"x":-Infinity},"#,
        1,
    );
    assert_ne!(with_nan, text, "the edit applies");
    let reply = http(addr, "POST", "/v1/score", &[], with_nan.as_bytes());
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(service_scores(&reply), service_scores(&scored));
    // Still malformed where the quoting does not help; the position is in the body as sent.
    let broken = http(addr, "POST", "/v1/score", &[], br#"{"topics": [NaN,]}"#);
    assert_eq!(broken.status, 400);
    assert_eq!(broken.json()["error"]["code"], "malformed_json");
    assert!(
        broken.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("line 1 column 13")),
        "{}",
        broken.json()
    );
    let duplicate = text.replacen(r#""system":"s2","#, r#""system":"s2","system":"s3","#, 1);
    assert_ne!(duplicate, text, "the edit applies");
    for body in [
        duplicate.clone(),
        duplicate.replacen(r#""text""#, r#""scores":{"a":NaN},"text""#, 1),
    ] {
        let reply = http(addr, "POST", "/v1/score", &[], body.as_bytes());
        assert_eq!(reply.status, 400, "{body}");
        let error = &reply.json()["error"];
        assert_eq!(error["code"], "duplicate_key", "{error}");
        assert_eq!(error["field"], "topics[0].summaries[1].system", "{error}");
    }
}

#[test]
fn health_models_and_metrics() {
    let server = start(&local_args());
    let addr = server.addr;
    assert_eq!(get(addr, "/healthz").json(), json!({"status": "ok"}));
    assert_eq!(get(addr, "/readyz").json(), json!({"status": "ready"}));
    let models = get(addr, "/v1/models").json();
    let names: Vec<&str> = models["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    // Without --neural the service loads the classic built-ins (the neural ones need the LM).
    let builtins: Vec<&str> = builtin::BUILTINS
        .iter()
        .filter(|b| !b.neural)
        .map(|b| b.name)
        .collect();
    assert_eq!(names, builtins);
    assert_eq!(models["models"][1]["reference_free"], json!(true));
    assert_eq!(
        post(addr, "/v1/score", &json!({"topics": sample_topics()})).status,
        200
    );
    let reply = get(addr, "/metrics");
    assert!(reply
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/plain; version=0.0.4")));
    let text = String::from_utf8_lossy(&reply.body).to_string();
    for line in [
        "aesop_http_requests_total{route=\"/v1/score\",status=\"200\"} 1",
        "aesop_http_requests_total{route=\"/healthz\",status=\"200\"} 1",
        "aesop_http_request_duration_seconds_count{route=\"/v1/score\"} 1",
        "aesop_summaries_scored_total 4",
        "aesop_models_loaded 6",
        // The /metrics request itself is in flight while it renders.
        "aesop_http_requests_in_flight 1",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line}:\n{text}");
    }
}

/// Check `value` against an OpenAPI schema (the subset our document uses).
fn check_schema(value: &Value, schema: &Value, doc: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        return check_schema(value, &doc["components"]["schemas"][name], doc, at, errors);
    }
    if value.is_null() && schema["nullable"] == json!(true) {
        return;
    }
    let type_ok = match schema["type"].as_str() {
        None => true,
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("number") => value.is_number(),
        Some("integer") => value.is_u64() || value.is_i64(),
        Some("boolean") => value.is_boolean(),
        Some(other) => {
            errors.push(format!("{at}: unknown schema type {other}"));
            return;
        }
    };
    if !type_ok {
        errors.push(format!("{at}: expected {}, got {value}", schema["type"]));
        return;
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(value) {
            errors.push(format!("{at}: {value} not in the enum"));
        }
    }
    if let Some(object) = value.as_object() {
        for required in schema["required"].as_array().into_iter().flatten() {
            let key = required.as_str().unwrap_or("");
            if !object.contains_key(key) {
                errors.push(format!("{at}: required {key} missing"));
            }
        }
        for (key, item) in object {
            let child = format!("{at}.{key}");
            match schema["properties"].get(key) {
                Some(property) => check_schema(item, property, doc, &child, errors),
                None => match &schema["additionalProperties"] {
                    Value::Bool(false) => errors.push(format!("{child}: not in the schema")),
                    Value::Object(_) => {
                        check_schema(item, &schema["additionalProperties"], doc, &child, errors)
                    }
                    _ => {}
                },
            }
        }
    }
    if let Some(items) = value.as_array() {
        for (i, item) in items.iter().enumerate() {
            check_schema(item, &schema["items"], doc, &format!("{at}[{i}]"), errors);
        }
    }
}

fn response_schema<'a>(doc: &'a Value, method: &str, path: &str, status: u16) -> &'a Value {
    &doc["paths"][path][method.to_lowercase()]["responses"][status.to_string()]["content"]
        ["application/json"]["schema"]
}

#[test]
fn openapi_document_matches_the_service() {
    let mut args = local_args();
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("mine.aesop");
    builtin::find("readability-noref")
        .and_then(|b| b.load())
        .and_then(|m| m.save(&model))
        .expect("model file");
    args.models = vec![format!("mine={}", model.display()).parse().expect("spec")];
    let server = start(&args);
    let addr = server.addr;
    let doc = get(addr, "/openapi.json").json();
    assert_eq!(doc["openapi"].as_str().map(|v| &v[..2]), Some("3."));
    // A user model's card holds what the file says about itself (`aesop models FILE`).
    let models = get(addr, "/v1/models").json();
    let mine = models["models"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["name"] == "mine"))
        .expect("mine listed");
    assert_eq!(mine["builtin"], json!(false));
    assert_eq!(mine["anchor"], json!("cohmetrix.flesch_kincaid_grade"));
    assert!(mine["calibration"]["slope"].is_number(), "{mine}");
    assert!(mine["training_sets"]
        .as_array()
        .is_some_and(|s| s.len() == 4));
    assert!(mine["card"]
        .as_str()
        .is_some_and(|c| c.contains("Predicts `readability`")));
    // The version, and the commit when the binary was built from a git checkout.
    assert!(
        mine["written_by"]
            .as_str()
            .is_some_and(|w| w == env!("CARGO_PKG_VERSION")
                || w.starts_with(concat!(env!("CARGO_PKG_VERSION"), " (commit "))),
        "{mine}"
    );
    assert!(mine["features"].is_u64() && mine.get("weights").is_none());
    // Its whole card is `aesop models FILE --json`, with the service's facts.
    let mut detail = get(addr, "/v1/models/mine").json();
    let file: Value = serde_json::from_str(
        &aesop::learn::card::describe_file(&model, true).expect("aesop models FILE --json"),
    )
    .expect("card JSON");
    assert_eq!(detail["source"], file["file"]);
    assert!(
        detail["weights"].as_array().is_some_and(|w| !w.is_empty()),
        "{detail}"
    );
    for key in [
        "name",
        "version",
        "builtin",
        "source",
        "batch_dependent",
        "card",
    ] {
        detail.as_object_mut().map(|d| d.remove(key));
    }
    let mut file = file;
    file.as_object_mut().map(|f| f.remove("file"));
    assert_eq!(detail, file);
    let builtin_card = get(addr, "/v1/models/pyramid").json();
    assert_eq!(builtin_card["builtin"], json!(true));
    assert!(builtin_card["card"].is_string(), "{builtin_card}");
    let unknown = get(addr, "/v1/models/nope");
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["code"], "unknown_model");
    // The documented routes are exactly the router's.
    let mut documented: Vec<(String, String)> = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            documented.push((method.to_uppercase(), path.clone()));
        }
    }
    documented.sort();
    let mut routes: Vec<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    routes.sort();
    assert_eq!(documented, routes);
    // Every route answers (no 404/405), and JSON answers match their documented schema.
    let example =
        &doc["paths"]["/v1/score"]["post"]["requestBody"]["content"]["application/json"]["example"];
    for (method, path) in ROUTES {
        let body = if *path == "/v1/score" {
            example.to_string()
        } else {
            String::new()
        };
        let concrete = path.replace("{name}", "mine");
        let reply = http(addr, method, &concrete, &[], body.as_bytes());
        assert!(reply.status == 200, "{method} {path}: {}", reply.status);
        let schema = response_schema(&doc, method, path, reply.status);
        if !schema.is_null() {
            let mut errors = Vec::new();
            check_schema(&reply.json(), schema, &doc, "$", &mut errors);
            assert!(errors.is_empty(), "{method} {path}: {errors:?}");
        }
        assert!(
            doc["paths"][path][method.to_lowercase()]["responses"]
                .get(reply.status.to_string())
                .is_some(),
            "{method} {path}: status {} not documented",
            reply.status
        );
    }
    // A scoring answer with features, and error answers, match their schemas as well.
    for (request, status) in [
        (json!({"topics": sample_topics(), "features": true}), 200),
        (json!({"topics": sample_topics(), "models": ["nope"]}), 422),
        (json!({"topics": "nope"}), 422),
    ] {
        let reply = post(addr, "/v1/score", &request);
        assert_eq!(reply.status, status);
        let schema = response_schema(&doc, "POST", "/v1/score", status);
        let mut errors = Vec::new();
        check_schema(&reply.json(), schema, &doc, "$", &mut errors);
        assert!(errors.is_empty(), "{request}: {errors:?}");
    }
    // A repeated key (json! cannot write one) is an error the schema knows.
    let duplicate = http(
        addr,
        "POST",
        "/v1/score",
        &[],
        br#"{"topics": [], "topics": []}"#,
    );
    assert_eq!(duplicate.status, 400);
    let mut errors = Vec::new();
    check_schema(
        &duplicate.json(),
        response_schema(&doc, "POST", "/v1/score", 400),
        &doc,
        "$",
        &mut errors,
    );
    assert!(errors.is_empty(), "duplicate key: {errors:?}");
    // The error codes of docs/SERVICE.md's table are exactly the schema's.
    let service_md =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/SERVICE.md"))
            .expect("docs/SERVICE.md");
    let table = &service_md[service_md.find("## Errors").expect("Errors section")..];
    let table = &table[..table.find("\n## ").expect("next section")];
    let mut in_docs: Vec<String> = table
        .lines()
        .filter(|l| l.starts_with("| 4") || l.starts_with("| 5"))
        .filter_map(|l| l.split('|').nth(2))
        .flat_map(|codes| codes.split('`').skip(1).step_by(2).map(str::to_string))
        .collect();
    in_docs.sort();
    let mut in_schema: Vec<String> = doc["components"]["schemas"]["Error"]["properties"]["error"]
        ["properties"]["code"]["enum"]
        .as_array()
        .expect("code enum")
        .iter()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect();
    in_schema.sort();
    assert_eq!(
        in_docs, in_schema,
        "docs/SERVICE.md's error table vs Error.code"
    );
    // And the request schema accepts a real request (it is what clients generate code from).
    let mut errors = Vec::new();
    let request_schema =
        &doc["paths"]["/v1/score"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    check_schema(
        &json!({"topics": sample_topics(), "models": ["mine"]}),
        request_schema,
        &doc,
        "$",
        &mut errors,
    );
    assert!(errors.is_empty(), "{errors:?}");
}

fn save_builtin(name: &str, path: &Path) {
    builtin::find(name)
        .and_then(|b| b.load())
        .and_then(|m| m.save(path))
        .expect("model file");
}

#[test]
fn reload_with_a_corrupt_model_keeps_the_old_one_and_drops_no_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("mine.aesop");
    save_builtin("pyramid-noref", &model);
    let mut args = local_args();
    args.models = vec![format!("mine={}", model.display()).parse().expect("spec")];
    let server = start(&args);
    let addr = server.addr;
    let request =
        json!({"topics": [sample_topics()[1].clone()], "models": ["mine", "pyramid-noref"]});
    let before = service_scores(&post(addr, "/v1/score", &request));
    // A user model under its own name scores exactly as the built-in it was saved from.
    for ((topic, system, model), score) in &before {
        if model == "mine" {
            assert_eq!(
                Some(score),
                before.get(&(topic.clone(), system.clone(), "pyramid-noref".to_string()))
            );
        }
    }
    let version = |addr| -> String {
        get(addr, "/v1/models").json()["models"]
            .as_array()
            .expect("models")
            .iter()
            .find(|m| m["name"] == "mine")
            .map(|m| m["version"].as_str().unwrap_or("").to_string())
            .expect("mine listed")
    };
    let old_version = version(addr);

    // Clients keep scoring while the model file is corrupted and reloaded, then fixed.
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let client = {
        let stop = std::sync::Arc::clone(&stop);
        let request = request.clone();
        std::thread::spawn(move || {
            let mut statuses = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                statuses.push(post(addr, "/v1/score", &request).status);
            }
            statuses
        })
    };
    std::fs::write(&model, b"AESOP-MODEL but not really").expect("corrupt");
    let reply = post(addr, "/v1/models/reload", &json!({}));
    assert_eq!(reply.status, 500);
    let error = &reply.json()["error"];
    assert_eq!(error["code"], "reload_failed");
    assert!(
        error["message"].as_str().unwrap_or("").contains("mine"),
        "{error}"
    );
    assert_eq!(version(addr), old_version);
    assert_eq!(service_scores(&post(addr, "/v1/score", &request)), before);

    std::fs::remove_file(&model).expect("remove");
    assert_eq!(post(addr, "/v1/models/reload", &json!({})).status, 500);
    assert_eq!(service_scores(&post(addr, "/v1/score", &request)), before);

    // A good file replaces the model: new version, new predictions.
    save_builtin("readability-noref", &model);
    let reply = post(addr, "/v1/models/reload", &json!({}));
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_ne!(version(addr), old_version);
    let after = service_scores(&post(
        addr,
        "/v1/score",
        &json!({"topics": [sample_topics()[1].clone()], "models": ["mine", "readability-noref"]}),
    ));
    for ((topic, system, model), score) in &after {
        if model == "mine" {
            assert_eq!(
                Some(score),
                after.get(&(
                    topic.clone(),
                    system.clone(),
                    "readability-noref".to_string()
                ))
            );
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let statuses = client.join().expect("client");
    assert!(!statuses.is_empty());
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    let metrics = String::from_utf8_lossy(&get(addr, "/metrics").body).to_string();
    assert!(
        metrics.contains("aesop_model_reloads_total{result=\"failed\"} 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains("aesop_model_reloads_total{result=\"ok\"} 1"),
        "{metrics}"
    );
}

#[test]
fn a_bad_model_file_or_a_taken_name_fails_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("bad.aesop");
    std::fs::write(&model, b"junk").expect("write");
    let mut args = local_args();
    args.models = vec![format!("bad={}", model.display()).parse().expect("spec")];
    let error = spawn(&args).err().expect("a corrupt model fails the start");
    assert!(format!("{error:#}").contains("bad"), "{error:#}");
    save_builtin("pyramid-noref", &model);
    args.models = vec![format!("pyramid={}", model.display())
        .parse()
        .expect("spec")];
    let error = spawn(&args).err().expect("a built-in's name is taken");
    assert!(format!("{error:#}").contains("built-in"), "{error:#}");
    // Ignoring case (audit stop 51: `Pyramid` was served beside `pyramid`).
    args.models = vec![format!("Pyramid={}", model.display())
        .parse()
        .expect("spec")];
    let error = spawn(&args).err().expect("a built-in's name is taken");
    assert!(format!("{error:#}").contains("built-in"), "{error:#}");
    // An empty file is said to be empty (it was "wrong magic bytes"), naming it.
    std::fs::write(&model, b"").expect("empty");
    args.models = vec![format!("mine={}", model.display()).parse().expect("spec")];
    let error = format!("{:#}", spawn(&args).err().expect("an empty model fails"));
    assert!(
        error.contains(&format!("{}: the model file is empty", model.display())),
        "{error}"
    );
}

/// A request heavy enough to keep a worker busy for a while: many summaries of one article.
fn heavy_request(summaries: usize) -> Value {
    let article = ARTICLE.repeat(8);
    let summaries: Vec<Value> = (0..summaries)
        .map(|i| json!({"system": format!("s{i}"), "text": format!("{} {i}", &ARTICLE[..200])}))
        .collect();
    json!({"topics": [{"topic": "heavy", "documents": [{"id": "d", "text": article}], "summaries": summaries}]})
}

/// A request scored for several seconds (about 9 on two cores): one topic of long summaries,
/// so scoring that is cancelled runs on to its end (it stops only between topics).
fn slow_request() -> Value {
    let summaries: Vec<Value> = (0..192)
        .map(|i| json!({"system": format!("s{i}"), "text": format!("{} {i}", ARTICLE.repeat(20))}))
        .collect();
    json!({"topics": [{"topic": "slow", "documents": [{"id": "d", "text": ARTICLE.repeat(8)}], "summaries": summaries}]})
}

#[test]
fn overload_is_turned_away_with_429_and_retry_after() {
    let mut args = local_args();
    args.workers = Some(1);
    args.queue = 0;
    let server = start(&args);
    let addr = server.addr;
    // A client that has sent its headers but only half its body holds the one admission slot
    // (workers + queue = 1): admission comes before reading the body, which bounds memory.
    let body = request_with(|_| {});
    // In-flight requests as /metrics reports them (the metrics request may count itself, so
    // compare with the value seen while nothing else runs).
    let in_flight = || -> i64 {
        let reply = http(addr, "GET", "/metrics", &[], b"");
        String::from_utf8_lossy(&reply.body)
            .lines()
            .find_map(|l| l.strip_prefix("aesop_http_requests_in_flight "))
            .and_then(|v| v.trim().parse().ok())
            .expect("in-flight gauge")
    };
    let idle = in_flight();
    let mut slow = TcpStream::connect(addr).expect("connect");
    slow.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let head = format!(
        "POST /v1/score HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    slow.write_all(head.as_bytes()).expect("head");
    slow.write_all(&body[..body.len() / 2])
        .expect("half the body");
    // Wait until the slow request holds the slot, so the requests below cannot take it first.
    let waiting = Instant::now();
    while in_flight() <= idle && waiting.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(10));
    }
    // Another scoring request is refused at once, not queued.
    let started = Instant::now();
    let reply = loop {
        let reply = http(addr, "POST", "/v1/score", &[], &body);
        if reply.status == 429 || started.elapsed() > Duration::from_secs(30) {
            break reply;
        }
        // The slow request may not have reached the handler yet.
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(
        reply.status,
        429,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.header("retry-after"), Some("1"));
    assert_eq!(reply.json()["error"]["code"], "overloaded");
    // Probes are not scoring requests: they answer.
    assert_eq!(get(addr, "/healthz").status, 200);
    // The slow client finishes and is scored; then the slot is free again.
    slow.write_all(&body[body.len() / 2..])
        .expect("rest of the body");
    let mut raw = Vec::new();
    slow.read_to_end(&mut raw).expect("reply");
    assert_eq!(parse_reply(&raw).status, 200);
    assert_eq!(http(addr, "POST", "/v1/score", &[], &body).status, 200);
    let metrics = String::from_utf8_lossy(&get(addr, "/metrics").body).to_string();
    assert!(
        metrics
            .lines()
            .any(|l| l
                .starts_with("aesop_http_errors_total{route=\"/v1/score\",code=\"overloaded\"}")),
        "{metrics}"
    );
}

#[test]
fn a_request_over_the_time_limit_gets_503_and_the_server_recovers() {
    let mut args = local_args();
    args.timeout_ms = 5;
    let server = start(&args);
    let reply = post(server.addr, "/v1/score", &heavy_request(256));
    assert_eq!(
        reply.status,
        503,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.json()["error"]["code"], "timeout");
    assert_eq!(reply.header("retry-after"), Some("1"));
    assert_eq!(get(server.addr, "/healthz").status, 200);
}

/// A request that times out while its one topic is still being scored keeps its admission slot
/// until that scoring ends (it stops only between topics): with `--workers 1 --queue 0` the next
/// request is refused at once, not admitted to wait for the busy worker and time out.
#[test]
fn a_timed_out_request_keeps_its_slot_until_its_scoring_ends() {
    let mut args = local_args();
    args.workers = Some(1);
    args.queue = 0;
    args.timeout_ms = 300;
    let server = start(&args);
    let addr = server.addr;
    let light = request_with(|_| {});
    let timed_out = post(addr, "/v1/score", &slow_request());
    assert_eq!(
        timed_out.status,
        503,
        "{}",
        String::from_utf8_lossy(&timed_out.body)
    );
    assert_eq!(timed_out.json()["error"]["code"], "timeout");
    // The slow topic is still being scored (seconds): no room for another request.
    let refused = http(addr, "POST", "/v1/score", &[], &light);
    assert_eq!(
        refused.status,
        429,
        "{}",
        String::from_utf8_lossy(&refused.body)
    );
    assert_eq!(refused.json()["error"]["code"], "overloaded");
    // Once that scoring ends the slot is free again.
    let started = Instant::now();
    loop {
        let reply = http(addr, "POST", "/v1/score", &[], &light);
        if reply.status == 200 {
            break;
        }
        assert_eq!(
            reply.status,
            429,
            "{}",
            String::from_utf8_lossy(&reply.body)
        );
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the slot was never freed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `Expect: 100-continue`: the interim `100 Continue` does not restart the header timeout, so a
/// request scored for longer than that timeout still gets its answer (here the 503 of
/// `--timeout-ms`, which comes well after the header timeout); it was an empty reply.
#[test]
fn expect_continue_is_answered_after_the_header_timeout() {
    let mut args = local_args();
    args.header_timeout_secs = 1;
    args.timeout_ms = 3_000;
    let server = start(&args);
    let addr = server.addr;
    let body = slow_request().to_string();
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    let head = format!(
        "POST /v1/score HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("head");
    let continued = b"HTTP/1.1 100 Continue\r\n\r\n";
    let mut interim = vec![0u8; continued.len()];
    stream.read_exact(&mut interim).expect("100 Continue");
    assert_eq!(interim, continued);
    stream.write_all(body.as_bytes()).expect("body");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    assert!(!raw.is_empty(), "no answer: the connection was closed");
    let reply = parse_reply(&raw);
    if reply.status != 200 {
        assert_eq!(
            (reply.status, &reply.json()["error"]["code"]),
            (503, &json!("timeout")),
            "{}",
            String::from_utf8_lossy(&reply.body)
        );
    }
    // A keep-alive connection still gets the header timeout after a 100 Continue exchange.
    let mut idle = TcpStream::connect(addr).expect("connect");
    idle.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let small = request_with(|_| {});
    let head = format!(
        "POST /v1/score HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        small.len()
    );
    idle.write_all(head.as_bytes()).expect("head");
    let mut interim = vec![0u8; continued.len()];
    idle.read_exact(&mut interim).expect("100 Continue");
    idle.write_all(&small).expect("body");
    let mut raw = Vec::new();
    let _ = idle.read_to_end(&mut raw);
    assert!(
        raw.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
}

#[test]
fn health_checks_stay_fast_while_scoring_saturates_the_workers() {
    let server = start(&local_args());
    let addr = server.addr;
    let clients: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(move || post(addr, "/v1/score", &heavy_request(128)).status))
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let mut slowest = Duration::ZERO;
    for _ in 0..10 {
        let started = Instant::now();
        assert_eq!(get(addr, "/healthz").status, 200);
        slowest = slowest.max(started.elapsed());
    }
    for client in clients {
        assert_eq!(client.join().expect("client"), 200);
    }
    // Scoring runs on blocking threads; the executor answers probes without waiting for it.
    // (Generous bound: the test machine may be shared.)
    assert!(
        slowest < Duration::from_millis(500),
        "slowest /healthz took {slowest:?}"
    );
}

#[test]
fn a_token_is_required_when_configured() {
    let dir = tempfile::tempdir().expect("tempdir");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "s3cret-token-0123456\n").expect("token");
    let mut args = local_args();
    args.token_file = Some(token_file.clone());
    let server = start(&args);
    let addr = server.addr;
    let body = request_with(|_| {});
    let reply = http(addr, "POST", "/v1/score", &[], &body);
    assert_eq!(reply.status, 401);
    assert_eq!(reply.json()["error"]["code"], "unauthorized");
    assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    let wrong = http(
        addr,
        "POST",
        "/v1/score",
        &[("Authorization", "Bearer s3cret-tokem")],
        &body,
    );
    assert_eq!(wrong.status, 401);
    let right = http(
        addr,
        "POST",
        "/v1/score",
        &[("Authorization", "Bearer s3cret-token-0123456")],
        &body,
    );
    assert_eq!(right.status, 200);
    assert_eq!(http(addr, "GET", "/v1/models", &[], b"").status, 401);
    // Probes stay open.
    assert_eq!(get(addr, "/healthz").status, 200);
    assert_eq!(get(addr, "/readyz").status, 200);

    // Beyond loopback a token is mandatory.
    let open = ServeArgs::new("0.0.0.0:0".parse().expect("address"));
    let error = spawn(&open).err().expect("refused without a token");
    assert!(format!("{error:#}").contains("--token-file"), "{error:#}");
}

#[test]
fn graceful_shutdown_finishes_requests_in_flight() {
    let server = start(&local_args());
    let addr = server.addr;
    let in_flight = std::thread::spawn(move || post(addr, "/v1/score", &heavy_request(256)));
    // Wait until the scoring request is being answered, then shut down.
    let started = Instant::now();
    loop {
        let metrics = String::from_utf8_lossy(&get(addr, "/metrics").body).to_string();
        if metrics
            .lines()
            .any(|l| l == "aesop_http_requests_in_flight 2")
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "request never started"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    server.begin_shutdown();
    let reply = in_flight.join().expect("client");
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.json()["results"].as_array().map(Vec::len), Some(256));
    server.shutdown().expect("clean stop");
    assert!(
        TcpStream::connect(addr).is_err(),
        "still accepting after shutdown"
    );
}

/// The `aesop serve` process: bound address on stderr, SIGHUP reload with a corrupt model keeps
/// the old one, SIGTERM stops it cleanly.
#[cfg(unix)]
#[test]
fn serve_process_reloads_on_sighup_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("mine.aesop");
    save_builtin("pyramid-noref", &model);
    let mut serve =
        ServeProcess::start(&["--model".to_string(), format!("mine={}", model.display())]);
    let next_log = |what: &str| serve.next_log(&[what]);
    let listening = next_log("listening on");
    let addr: SocketAddr = listening["addr"]
        .as_str()
        .expect("addr")
        .parse()
        .expect("address");
    // While the models load, a reload answers as every route does then: 503 not_ready (it was
    // 500 reload_failed, "the previous models keep serving" when there were none). Loading may
    // also have finished by now; then it reloads.
    let early = post(addr, "/v1/models/reload", &json!({}));
    if early.status != 200 {
        assert_eq!(
            (early.status, &early.json()["error"]["code"]),
            (503, &json!("not_ready")),
            "{}",
            String::from_utf8_lossy(&early.body)
        );
        assert_eq!(early.header("retry-after"), Some("1"));
    }
    next_log("ready");
    let request = json!({"topics": [sample_topics()[1].clone()], "models": ["mine"]});
    let before = service_scores(&post(addr, "/v1/score", &request));

    std::fs::write(&model, b"corrupt").expect("corrupt");
    serve.signal("-HUP");
    next_log("reload failed (SIGHUP)");
    assert_eq!(service_scores(&post(addr, "/v1/score", &request)), before);
    serve.signal("-TERM");
    next_log("shutting down");
    let status = serve.wait();
    assert!(status.success(), "{status:?}");
}

/// The metrics text, polled until it has `line` (each wait is bounded; a failure says what
/// never came).
fn wait_for_metric(addr: SocketAddr, line: &str) {
    let started = Instant::now();
    loop {
        let metrics = String::from_utf8_lossy(&get(addr, "/metrics").body).to_string();
        if metrics.lines().any(|l| l == line) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "never in the metrics: {line}\n{metrics}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn model_version(addr: SocketAddr, name: &str) -> String {
    get(addr, "/v1/models").json()["models"]
        .as_array()
        .expect("models")
        .iter()
        .find(|m| m["name"] == name)
        .and_then(|m| m["version"].as_str())
        .unwrap_or_else(|| panic!("{name} not listed"))
        .to_string()
}

/// Replace `path` by a FIFO: reading it blocks until a writer comes, as a hung mount would.
#[cfg(unix)]
fn make_fifo(path: &Path) {
    std::fs::remove_file(path).expect("remove the model file");
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// The write end of the FIFO at `path`, once a reader has opened it (opening it blocks until
/// then, so it is done on a thread; the wait is bounded).
#[cfg(unix)]
fn fifo_writer_once_read(path: &Path) -> std::fs::File {
    let (tx, rx) = std::sync::mpsc::channel();
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::OpenOptions::new().write(true).open(path));
    });
    rx.recv_timeout(Duration::from_secs(120))
        .expect("nobody opened the FIFO to read it")
        .expect("open the FIFO to write")
}

/// Audit stop 51: a reload's outcome was lost when its HTTP client gave up (the handler, and
/// the reload with it, was dropped with the connection), and the request left no log line or
/// metric. Now the reload runs on to its end on its own task and is applied and counted, and the
/// request is counted as 499 `client_closed`.
#[cfg(unix)]
#[test]
fn a_reload_whose_client_leaves_is_applied_and_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("mine.aesop");
    save_builtin("pyramid-noref", &model);
    let replacement = dir.path().join("new.aesop");
    save_builtin("readability-noref", &replacement);
    let mut args = local_args();
    args.models = vec![format!("mine={}", model.display()).parse().expect("spec")];
    let server = start(&args);
    let addr = server.addr;
    // Both reload series exist from the start, at 0.
    wait_for_metric(addr, "aesop_model_reloads_total{result=\"ok\"} 0");
    wait_for_metric(addr, "aesop_model_reloads_total{result=\"failed\"} 0");
    let old_version = model_version(addr, "mine");
    make_fifo(&model);
    let mut client = TcpStream::connect(addr).expect("connect");
    client
        .write_all(
            format!("POST /v1/models/reload HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n")
                .as_bytes(),
        )
        .expect("send the reload");
    // The reload is reading the FIFO now; its client gives up.
    let mut writer = fifo_writer_once_read(&model);
    drop(client);
    wait_for_metric(
        addr,
        "aesop_http_requests_total{route=\"/v1/models/reload\",status=\"499\"} 1",
    );
    wait_for_metric(
        addr,
        "aesop_http_errors_total{route=\"/v1/models/reload\",code=\"client_closed\"} 1",
    );
    // The reload goes on with what the file now holds, and is applied and counted.
    writer
        .write_all(&std::fs::read(&replacement).expect("model bytes"))
        .expect("write the FIFO");
    drop(writer);
    wait_for_metric(addr, "aesop_model_reloads_total{result=\"ok\"} 1");
    assert_ne!(model_version(addr, "mine"), old_version);
    let reply = post(
        addr,
        "/v1/score",
        &json!({"topics": [sample_topics()[1].clone()], "models": ["mine", "readability-noref"]}),
    );
    let scores = service_scores(&reply);
    for ((topic, system, model), score) in &scores {
        if model == "mine" {
            let builtin = (
                topic.clone(),
                system.clone(),
                "readability-noref".to_string(),
            );
            assert_eq!(Some(score), scores.get(&builtin));
        }
    }
    // A reload of an empty file fails, saying so.
    std::fs::remove_file(&model).expect("remove the FIFO");
    std::fs::write(&model, b"").expect("empty file");
    let reply = post(addr, "/v1/models/reload", &json!({}));
    assert_eq!(reply.status, 500);
    let message = reply.json()["error"]["message"].to_string();
    assert!(message.contains("the model file is empty"), "{message}");
}

/// A scoring request whose client leaves mid-body is logged and counted (as 499
/// `client_closed`), not as a 413 or not at all.
#[test]
fn a_scoring_request_whose_client_leaves_is_counted_as_499() {
    let server = start(&local_args());
    let addr = server.addr;
    let mut client = TcpStream::connect(addr).expect("connect");
    client
        .write_all(
            format!(
                "POST /v1/score HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 1000\r\n\r\n{{\"topics\": ["
            )
            .as_bytes(),
        )
        .expect("send a part");
    client
        .shutdown(std::net::Shutdown::Write)
        .expect("half-close");
    wait_for_metric(
        addr,
        "aesop_http_requests_total{route=\"/v1/score\",status=\"499\"} 1",
    );
    wait_for_metric(
        addr,
        "aesop_http_errors_total{route=\"/v1/score\",code=\"client_closed\"} 1",
    );
    let metrics = String::from_utf8_lossy(&get(addr, "/metrics").body).to_string();
    assert!(!metrics.contains("body_too_large"), "{metrics}");
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
    assert_eq!(both["warnings"], json!(expected));
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
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
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

/// Audit stop 51: `--model` names equal to a built-in's but for case, or to each other, were
/// found only after "listening" was logged (exit 1); now a usage error before binding.
#[test]
fn taken_model_names_are_a_usage_error_before_listening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("m.aesop");
    save_builtin("pyramid-noref", &model);
    let m = model.display();
    for (specs, expected) in [
        (
            vec![format!("Pyramid={m}")],
            "taken by the built-in model 'pyramid'",
        ),
        (vec![format!("a={m}"), format!("A={m}")], "already given to"),
    ] {
        let mut command = common::aesop();
        command.args(["serve", "--addr", "127.0.0.1:0"]);
        for spec in &specs {
            command.args(["--model", spec]);
        }
        let out = command.output().expect("aesop serve");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{specs:?}: {stderr}");
        assert!(stderr.contains(expected), "{specs:?}: {stderr}");
        assert!(!stderr.contains("listening"), "{specs:?}: {stderr}");
    }
}

/// An `aesop serve` process whose JSON log lines are read on a thread.
#[cfg(unix)]
struct ServeProcess {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<Value>,
}

#[cfg(unix)]
impl ServeProcess {
    fn start(args: &[String]) -> ServeProcess {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("aesop"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("aesop serve");
        let stderr = child.stderr.take().expect("stderr");
        let (lines_tx, lines) = std::sync::mpsc::channel::<Value>();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let value: Value = serde_json::from_str(&line).unwrap_or(json!({"unparsed": line}));
                if lines_tx.send(value).is_err() {
                    break;
                }
            }
        });
        ServeProcess { child, lines }
    }

    /// The next log line whose message starts with one of `prefixes`.
    fn next_log(&self, prefixes: &[&str]) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no log line starting with one of {prefixes:?}"));
            let message = line["message"].as_str().unwrap_or("");
            if prefixes.iter().any(|p| message.starts_with(p)) {
                return line;
            }
        }
    }

    fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// The exit status; a process still running after a generous bound is killed and fails
    /// the test (it would otherwise hang it).
    fn wait(&mut self) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if started.elapsed() > Duration::from_secs(120) {
                let _ = self.child.kill();
                panic!("aesop serve did not exit");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[cfg(unix)]
impl Drop for ServeProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Audit stop 51: a SIGHUP reload that hung (a model path that became a FIFO) kept SIGTERM from
/// being seen, and a hung HTTP reload kept the process from exiting after "stopped". Now
/// reloads run on their own tasks, a reload request waits no longer than the shutdown, and the
/// process exits without the stuck blocking thread.
#[cfg(unix)]
#[test]
fn sigterm_stops_the_service_while_a_reload_hangs_on_a_fifo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = dir.path().join("m.aesop");
    save_builtin("pyramid-noref", &model);
    let mut serve = ServeProcess::start(&["--model".into(), format!("m={}", model.display())]);
    let listening = serve.next_log(&["listening on"]);
    let addr: SocketAddr = listening["addr"]
        .as_str()
        .expect("addr")
        .parse()
        .expect("address");
    serve.next_log(&["ready"]);
    make_fifo(&model);
    serve.signal("-HUP");
    serve.next_log(&["reloading models (SIGHUP)"]);
    // An HTTP reload waits behind the stuck one.
    let reload = std::thread::spawn(move || post(addr, "/v1/models/reload", &json!({})));
    serve.next_log(&["reloading models (POST /v1/models/reload)"]);
    serve.signal("-TERM");
    serve.next_log(&["shutting down"]);
    let status = serve.wait();
    assert!(status.success(), "{status:?}");
    // The reload request got an answer (503, the shutdown) or lost its connection at exit.
    if let Ok(reply) = reload.join() {
        assert_eq!(
            reply.status,
            503,
            "{}",
            String::from_utf8_lossy(&reply.body)
        );
    }
}

/// Audit stop 51: the signal handlers were installed after "listening" was logged, so a SIGHUP
/// or SIGTERM sent as soon as the line appeared killed the process (exit 129 or 143). Now they
/// are installed first; a SIGHUP while the models load is ignored with a warning.
#[cfg(unix)]
#[test]
fn signals_sent_as_soon_as_listening_is_logged_are_handled() {
    let mut serve = ServeProcess::start(&[]);
    serve.next_log(&["listening on"]);
    serve.signal("-HUP");
    let hup = serve.next_log(&["SIGHUP ignored", "reloading models (SIGHUP)"]);
    if hup["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("SIGHUP ignored"))
    {
        assert_eq!(hup["level"], "WARN", "{hup}");
        assert!(hup["message"]
            .as_str()
            .is_some_and(|m| m.contains("still loading")));
    }
    serve.signal("-TERM");
    let status = serve.wait();
    assert!(status.success(), "{status:?}");

    let mut serve = ServeProcess::start(&[]);
    serve.next_log(&["listening on"]);
    serve.signal("-TERM");
    let status = serve.wait();
    assert!(status.success(), "{status:?}");
}
