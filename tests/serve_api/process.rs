//! The `aesop serve` process: signals (SIGHUP reload, SIGTERM stop), also while a reload hangs or
//! right after "listening".

use super::*;

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
    // A client's own X-Request-Id is answered back and logged beside the service's id.
    let traced = http(
        addr,
        "GET",
        "/healthz",
        &[("X-Request-Id", "trace-abc-123")],
        b"",
    );
    assert_eq!(traced.header("x-request-id"), Some("trace-abc-123"));
    let logged = loop {
        let line = next_log("request");
        if line["route"] == "/healthz" {
            break line;
        }
    };
    assert_eq!(logged["client_request_id"], "trace-abc-123", "{logged}");
    assert!(logged["request_id"].is_u64(), "{logged}");
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

/// An `aesop serve` process whose JSON log lines are read on a thread.
#[cfg(unix)]
struct ServeProcess {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<Value>,
}

#[cfg(unix)]
impl ServeProcess {
    /// `aesop serve --addr 127.0.0.1:0 ARGS…`, its log (standard error) piped to us.
    fn spawn(args: &[String]) -> std::process::Child {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("aesop"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("aesop serve")
    }

    fn start(args: &[String]) -> ServeProcess {
        let mut child = ServeProcess::spawn(args);
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
        reply.assert_status(503);
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

/// Audit stop 75: with its standard error closed (the log reader gone: `aesop serve 2>&1 | head
/// -1`), every log line failed to write, and tracing-subscriber reported that with `eprintln!` on
/// the same closed stream, which panics in the task that logged. A failed first load then never
/// stopped the service (its task panicked before the stop: the process ran on); the shutdown's
/// own lines made the exit a panic (101); a request that logs lost its answer. Now lines that
/// cannot be written are dropped: the service answers, stops on SIGTERM with exit 0, and a
/// failed load exits 1.
#[cfg(unix)]
#[test]
fn a_closed_log_stream_neither_stops_nor_hangs_the_service() {
    /// The process, killed when the test fails before it exits.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    /// `aesop serve ARGS…` with its log read up to "listening on", then the log pipe closed.
    fn serve_then_close_the_log(args: &[String]) -> (Killed, SocketAddr) {
        let mut child = ServeProcess::spawn(args);
        let mut log = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        log.read_line(&mut line).expect("first log line");
        let listening: Value = serde_json::from_str(&line).expect("a JSON log line");
        let addr = listening["addr"]
            .as_str()
            .expect("addr")
            .parse()
            .expect("address");
        drop(log);
        (Killed(child), addr)
    }
    /// The exit status, or `None` when the process still runs after `bound` (then killed).
    fn exit_within(Killed(child): &mut Killed, bound: Duration) -> Option<i32> {
        let started = Instant::now();
        while started.elapsed() < bound {
            if let Some(status) = child.try_wait().expect("wait") {
                return Some(status.code().unwrap_or(-1));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    let (mut child, addr) = serve_then_close_the_log(&[]);
    // Ready, and scoring (whose request is logged), though no line reaches a reader.
    let request = json!({"topics": [sample_topics()[1].clone()], "models": ["readability-noref"]});
    let started = Instant::now();
    let reply = loop {
        let reply = post(addr, "/v1/score", &request);
        if reply.status != 503 || started.elapsed() > Duration::from_secs(60) {
            break reply;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    reply.assert_status(200);
    assert_eq!(service_scores(&reply).len(), 2);
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    assert_eq!(exit_within(&mut child, Duration::from_secs(60)), Some(0));

    let dir = tempfile::tempdir().expect("tempdir");
    let missing = format!("m={}", dir.path().join("missing.aesop").display());
    let (mut child, _) = serve_then_close_the_log(&["--model".into(), missing]);
    assert_eq!(exit_within(&mut child, Duration::from_secs(60)), Some(1));
}
