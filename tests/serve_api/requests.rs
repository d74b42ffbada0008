//! Bad requests get 4xx JSON errors naming the field; health, model list and metrics routes; the
//! bearer token.

use super::*;

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
            "topic id a boolean",
            request_with(|r| r["topics"][0]["topic"] = json!(true)),
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
            "systems not a boolean",
            request_with(|r| r["systems"] = json!(1)),
            422,
            "wrong_type",
            Some("systems"),
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
    // Ids written as numbers (a table's numeric column turned into JSON) are read as their
    // text, as a judgment set's are, and answered as strings.
    let reply = http(
        addr,
        "POST",
        "/v1/score",
        &[],
        &request_with(|r| {
            r["topics"][0]["topic"] = json!(5);
            r["topics"][0]["summaries"][0]["system"] = json!(17);
            r["topics"][0]["documents"][0]["id"] = json!(1);
        }),
    );
    let scores = service_scores(&reply);
    assert!(
        scores
            .keys()
            .any(|(topic, system, _)| topic == "5" && system == "17"),
        "{scores:?}"
    );
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
    // A model name that does not decode to UTF-8 was answered by axum in plain text.
    let reply = get(addr, "/v1/models/%FF");
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (404, json!("unknown_model"))
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

/// A body sent gzip-compressed (`Content-Encoding: gzip`) scores as the same body sent as is; it
/// was read as JSON and refused as "invalid UTF-8 at byte 1". Its text is held to
/// `--max-body-bytes` once decompressed, a body that is not gzip is 400, and another coding 415
/// with `Accept-Encoding: gzip`.
#[test]
fn a_gzip_compressed_body_scores_as_the_plain_body() {
    let mut args = local_args();
    args.max_body_bytes = 20_000;
    let server = start(&args);
    let addr = server.addr;
    let body = json!({"topics": sample_topics()}).to_string().into_bytes();
    let plain = http(addr, "POST", "/v1/score", &[], &body);
    plain.assert_status(200);
    let gzipped = common::gzip(&body);
    for coding in ["gzip", "GZIP", "x-gzip", "identity, gzip"] {
        let reply = http(
            addr,
            "POST",
            "/v1/score",
            &[("Content-Encoding", coding)],
            &gzipped,
        );
        assert_eq!(
            reply.status,
            200,
            "{coding}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        assert_eq!(service_scores(&reply), service_scores(&plain), "{coding}");
    }
    let error = |headers: &[(&str, &str)], body: &[u8]| {
        let reply = http(addr, "POST", "/v1/score", headers, body);
        let code = reply.json()["error"]["code"].clone();
        (
            reply.status,
            code,
            reply.header("accept-encoding").map(str::to_string),
        )
    };
    assert_eq!(
        error(&[("Content-Encoding", "gzip")], &body),
        (400, json!("invalid_encoding"), None)
    );
    for coding in ["br", "deflate", "gzip, gzip"] {
        assert_eq!(
            error(&[("Content-Encoding", coding)], &gzipped),
            (415, json!("unsupported_encoding"), Some("gzip".to_string())),
            "{coding}"
        );
    }
    // 40,000 spaces compress to well under the 20,000-byte limit, and decompress past it.
    let expanding = common::gzip(&[b' '; 40_000]);
    assert!(expanding.len() < 1_000);
    assert_eq!(
        error(&[("Content-Encoding", "gzip")], &expanding),
        (413, json!("body_too_large"), None)
    );
}

/// An answer is gzip-compressed when the request accepts it (`Accept-Encoding: gzip`, as curl
/// `--compressed`, requests and browsers send) and it is 1 kB or more: the same JSON, a fraction
/// of the bytes. It went uncompressed whatever the client accepted.
#[test]
fn answers_are_gzip_compressed_for_clients_that_accept_it() {
    let server = start(&local_args());
    let addr = server.addr;
    let body = json!({"topics": sample_topics()}).to_string().into_bytes();
    let score = |accept: Option<&str>| {
        let headers: Vec<(&str, &str)> =
            accept.map(|a| ("Accept-Encoding", a)).into_iter().collect();
        let reply = http(addr, "POST", "/v1/score", &headers, &body);
        assert_eq!(reply.status, 200, "{accept:?}");
        assert!(
            reply
                .header("vary")
                .is_some_and(|v| v.to_ascii_lowercase().contains("accept-encoding")),
            "{accept:?}: {:?}",
            reply.headers
        );
        reply
    };
    let plain = score(None);
    assert_eq!(plain.header("content-encoding"), None);
    assert!(plain.body.len() >= 1024, "{}", plain.body.len());
    for accept in ["gzip", "br;q=1, gzip;q=0.5", "*"] {
        let reply = score(Some(accept));
        assert_eq!(reply.header("content-encoding"), Some("gzip"), "{accept}");
        assert!(
            reply.body.len() * 2 < plain.body.len(),
            "{accept}: {} of {}",
            reply.body.len(),
            plain.body.len()
        );
        assert_eq!(common::gunzip_bytes(&reply.body), plain.body, "{accept}");
    }
    for refused in ["identity", "gzip;q=0", "br", "*;q=0"] {
        let reply = score(Some(refused));
        assert_eq!(reply.header("content-encoding"), None, "{refused}");
        assert_eq!(reply.body, plain.body, "{refused}");
    }
    // A short answer goes as it is; the metrics' text (over 1 kB) compresses too.
    let gzip = [("Accept-Encoding", "gzip")];
    let health = http(addr, "GET", "/healthz", &gzip, b"");
    assert_eq!(health.header("content-encoding"), None);
    assert_eq!(health.json()["status"], "ok");
    let metrics = http(addr, "GET", "/metrics", &gzip, b"");
    assert_eq!(metrics.header("content-encoding"), Some("gzip"));
    let text = String::from_utf8(common::gunzip_bytes(&metrics.body)).expect("UTF-8");
    assert!(text.contains("aesop_summaries_scored_total"), "{text}");
}

/// A client's `X-Request-Id` (1-128 visible ASCII characters) is answered back, so a client can
/// find its request in the logs by its own id; any other value gets the service's own id.
#[test]
fn a_usable_client_request_id_is_answered_back() {
    let server = start(&local_args());
    let addr = server.addr;
    let answered = |id: &[u8]| {
        let mut stream = TcpStream::connect(addr).expect("connect");
        let mut head =
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: ".to_vec();
        head.extend_from_slice(id);
        head.extend_from_slice(b"\r\n\r\n");
        stream.write_all(&head).expect("write");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("read");
        let reply = parse_reply(&raw);
        assert_eq!(reply.status, 200);
        reply
            .header("x-request-id")
            .expect("x-request-id")
            .to_string()
    };
    let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
    assert_eq!(answered(uuid.as_bytes()), uuid);
    let longest = "a".repeat(128);
    assert_eq!(answered(longest.as_bytes()), longest);
    for unusable in [
        "a".repeat(129).into_bytes(),
        b"two words".to_vec(),
        "caf\u{e9}".as_bytes().to_vec(),
    ] {
        let id = answered(&unusable);
        assert!(id.parse::<u64>().is_ok(), "{id}");
    }
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
    reply.assert_status(200);
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

    // A token file saved with a byte-order mark (as Windows editors write) holds the same token:
    // the mark was kept as part of it, so no client's token matched.
    std::fs::write(&token_file, "\u{feff}s3cret-token-0123456\r\n").expect("token");
    assert_eq!(
        args.token().expect("token").as_deref(),
        Some("s3cret-token-0123456")
    );

    // Beyond loopback a token is mandatory.
    let open = ServeArgs::new("0.0.0.0:0".parse().expect("address"));
    let error = spawn(&open).err().expect("refused without a token");
    assert!(format!("{error:#}").contains("--token-file"), "{error:#}");
}

/// `--cors-origin`: a listed origin's preflight is answered before authentication (browsers send
/// it without the token) and every answer, a 401 too, names the origin; another origin gets no
/// CORS header, and without the flag the service sends none and refuses `OPTIONS` as before.
#[test]
fn listed_origins_may_call_the_service_from_a_browser() {
    let dir = tempfile::tempdir().expect("tempdir");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "0123456789abcdef0123\n").expect("token");
    let mut args = local_args();
    args.token_file = Some(token_file);
    args.cors_origins = vec![
        "http://localhost:3000/".to_string(),
        "HTTPS://Annotate.Example.org".to_string(),
    ];
    let server = start(&args);
    let addr = server.addr;
    let preflight = |origin: &str| {
        http(
            addr,
            "OPTIONS",
            "/v1/score",
            &[
                ("Origin", origin),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "authorization,content-type",
                ),
                ("Access-Control-Request-Private-Network", "true"),
            ],
            b"",
        )
    };
    let answer = preflight("http://localhost:3000");
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    let methods = answer
        .header("access-control-allow-methods")
        .expect("methods");
    assert!(
        methods.contains("POST") && methods.contains("GET"),
        "{methods}"
    );
    let allowed = answer
        .header("access-control-allow-headers")
        .expect("headers");
    assert!(
        allowed.contains("authorization") && allowed.contains("content-type"),
        "{allowed}"
    );
    assert_eq!(
        answer.header("access-control-allow-private-network"),
        Some("true")
    );
    // The origin as browsers send it matches the one written with capitals.
    let answer = preflight("https://annotate.example.org");
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://annotate.example.org")
    );
    // An origin not listed: no CORS header, so the browser keeps the page from the answer.
    let answer = preflight("https://elsewhere.example.com");
    assert_eq!(answer.header("access-control-allow-origin"), None);
    assert_eq!(answer.header("access-control-allow-private-network"), None);

    // A request without the token: 401, readable by the listed origin's page.
    let answer = http(
        addr,
        "GET",
        "/v1/models",
        &[("Origin", "http://localhost:3000")],
        b"",
    );
    assert_eq!(answer.status, 401);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    let exposed = answer
        .header("access-control-expose-headers")
        .expect("exposed");
    assert!(
        exposed.contains("x-request-id") && exposed.contains("retry-after"),
        "{exposed}"
    );
    // With the token: the predictions, and the origin named.
    let body = request_with(|_| {});
    let answer = http(
        addr,
        "POST",
        "/v1/score",
        &[
            ("Origin", "http://localhost:3000"),
            ("Authorization", "Bearer 0123456789abcdef0123"),
        ],
        &body,
    );
    answer.assert_status(200);
    assert!(answer.json()["results"]
        .as_array()
        .is_some_and(|p| !p.is_empty()));
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );

    // Without --cors-origin: no CORS header, and OPTIONS is a method the routes do not take.
    let plain = start(&local_args());
    let answer = http(
        plain.addr,
        "OPTIONS",
        "/v1/score",
        &[
            ("Origin", "http://localhost:3000"),
            ("Access-Control-Request-Method", "POST"),
        ],
        b"",
    );
    assert_eq!(answer.status, 405);
    assert_eq!(answer.header("access-control-allow-origin"), None);
    let answer = http(
        plain.addr,
        "GET",
        "/healthz",
        &[("Origin", "http://localhost:3000")],
        b"",
    );
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("access-control-allow-origin"), None);

    // Origins no browser sends are refused when the service starts.
    let mut bad = local_args();
    bad.cors_origins = vec!["https://annotate.example.org/tool".to_string()];
    let error = spawn(&bad).err().expect("refused").to_string();
    assert!(
        error.contains("--cors-origin 'https://annotate.example.org/tool'"),
        "{error}"
    );
}
