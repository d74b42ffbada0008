//! The HTTP service, started in-process on an ephemeral loopback port (and once as the `aesop
//! serve` process for signals). A small raw HTTP/1.1 client sends exactly the bytes each case
//! needs (invalid UTF-8, oversized bodies).
//!
//! This file holds that client and the helpers the tests share; the tests are grouped by what
//! they check: `scoring`, `requests`, `openapi`, `reload`, `load` and `process`.

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

mod answers;
mod load;
mod openapi;
mod process;
mod reload;
mod requests;
mod scoring;

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    /// Fail, showing the body, unless the status is `status`; the reply itself, for chaining.
    fn assert_status(&self, status: u16) -> &Reply {
        assert_eq!(
            self.status,
            status,
            "{}",
            String::from_utf8_lossy(&self.body)
        );
        self
    }

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

fn service_scores(reply: &Reply) -> BTreeMap<(String, String, String), f64> {
    reply.assert_status(200);
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

/// A valid single-topic request with one summary, with `edit` applied.
fn request_with(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut request = json!({"topics": [sample_topics()[1].clone()]});
    edit(&mut request);
    request.to_string().into_bytes()
}

fn save_builtin(name: &str, path: &Path) {
    builtin::find(name)
        .and_then(|b| b.load())
        .and_then(|m| m.save(path))
        .expect("model file");
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
