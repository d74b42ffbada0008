//! The OpenAPI document describes the service as it answers: every route, status and schema.

use super::*;

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
        (
            json!({"topics": sample_topics(), "features": true, "systems": true}),
            200,
        ),
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
