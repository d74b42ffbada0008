//! Under load and time limits: 429 with Retry-After, 503 past the time limit, admission slots held
//! until scoring ends, `Expect: 100-continue`, fast health checks, graceful shutdown, clients that
//! leave.

use super::*;

/// A request heavy enough to keep a worker busy for a while: many summaries of one article.
fn heavy_request(summaries: usize) -> Value {
    let article = ARTICLE.repeat(8);
    let summaries: Vec<Value> = (0..summaries)
        .map(|i| json!({"system": format!("s{i}"), "text": format!("{} {i}", &ARTICLE[..200])}))
        .collect();
    json!({"topics": [{"topic": "heavy", "documents": [{"id": "d", "text": article}], "summaries": summaries}]})
}

/// A request scored for seconds (3.8-4.1 s on two cores by `aesop score` of the same topic): one
/// topic of long summaries, so scoring that is cancelled runs on to its end (it stops only
/// between topics).
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
    reply.assert_status(429);
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
    reply.assert_status(503);
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
    // Long enough for the 1.8 MB body to be read and parsed while the other tests load the
    // machine, so that the time runs out while the topic is scored: a request that times out
    // before its scoring begins frees its slot at once.
    args.timeout_ms = 1_000;
    let server = start(&args);
    let addr = server.addr;
    let light = request_with(|_| {});
    let timed_out = post(addr, "/v1/score", &slow_request());
    timed_out.assert_status(503);
    assert_eq!(timed_out.json()["error"]["code"], "timeout");
    // The slow topic is still being scored (seconds): no room for another request.
    let refused = http(addr, "POST", "/v1/score", &[], &light);
    refused.assert_status(429);
    assert_eq!(refused.json()["error"]["code"], "overloaded");
    // Once that scoring ends the slot is free again.
    let started = Instant::now();
    loop {
        let reply = http(addr, "POST", "/v1/score", &[], &light);
        if reply.status == 200 {
            break;
        }
        reply.assert_status(429);
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
    reply.assert_status(200);
    assert_eq!(reply.json()["results"].as_array().map(Vec::len), Some(256));
    server.shutdown().expect("clean stop");
    assert!(
        TcpStream::connect(addr).is_err(),
        "still accepting after shutdown"
    );
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
