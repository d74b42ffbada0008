//! Connection-level limits of `aesop serve` (crates/aesop-serve/src/connections.rs): a client that sends its
//! headers slowly is disconnected, connections beyond the cap are closed at once, and the service
//! keeps answering others; `--addr` takes a host name; a limit of 0 is refused.

use aesop::serve::{spawn, ServeArgs};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

fn args(max_connections: usize, header_timeout_secs: u64) -> ServeArgs {
    let mut args = ServeArgs::new("127.0.0.1:0".parse().expect("address"));
    args.max_connections = max_connections;
    args.header_timeout_secs = header_timeout_secs;
    args
}

/// Whether the server has closed `stream` (EOF or reset), waiting at most `wait`.
fn closed_by_server(stream: &mut TcpStream, wait: Duration) -> bool {
    stream.set_read_timeout(Some(wait)).expect("timeout");
    let mut buf = [0u8; 256];
    match stream.read(&mut buf) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

fn healthz(addr: std::net::SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

#[test]
fn a_slow_header_client_is_disconnected() {
    let server = spawn(&args(64, 1)).expect("server");
    let addr = server.addr;
    let mut slow = TcpStream::connect(addr).expect("connect");
    slow.write_all(b"POST /v1/score HTTP/1.1\r\n").unwrap();
    // One header line every 300 ms would take 60 s for 200 lines; the server must cut it off.
    let mut disconnected = false;
    for i in 0..200 {
        std::thread::sleep(Duration::from_millis(300));
        if slow
            .write_all(format!("X-Slow-{i}: 1\r\n").as_bytes())
            .is_err()
            || closed_by_server(&mut slow, Duration::from_millis(1))
        {
            disconnected = true;
            break;
        }
    }
    assert!(disconnected, "a slow-header client stayed connected");
    // Others are still served.
    assert!(healthz(addr).starts_with("HTTP/1.1 200"));
    server.shutdown().expect("shutdown");
}

#[test]
fn connections_beyond_the_cap_are_closed_and_others_still_served() {
    let server = spawn(&args(3, 60)).expect("server");
    let addr = server.addr;
    let held: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut extra = TcpStream::connect(addr).expect("the kernel still accepts");
    let _ = extra.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(
        closed_by_server(&mut extra, Duration::from_secs(20)),
        "a connection beyond the cap was served"
    );
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    assert!(healthz(addr).starts_with("HTTP/1.1 200"));
    server.shutdown().expect("shutdown");
}

#[derive(clap::Parser)]
struct Wrapper {
    #[command(flatten)]
    serve: ServeArgs,
}

#[test]
fn addr_takes_a_host_name() {
    use clap::Parser;
    let parsed = Wrapper::try_parse_from(["aesop", "--addr", "localhost:8080"]).expect("localhost");
    assert_eq!(parsed.serve.addr.port(), 8080);
    assert!(parsed.serve.addr.ip().is_loopback());
    let err = Wrapper::try_parse_from(["aesop", "--addr", "no-such-host.invalid:80"])
        .err()
        .expect("an unknown host is refused");
    assert!(err.to_string().contains("no-such-host.invalid:80"), "{err}");
}

/// A size limit or connection cap of 0 would refuse every request, so each is a usage error
/// naming the flag, before anything listens.
#[test]
fn a_limit_of_zero_is_refused_at_start() {
    for flag in [
        "--max-body-bytes",
        "--max-topics",
        "--max-summaries",
        "--max-text-bytes",
        "--max-connections",
    ] {
        let (code, stderr) = serve_with(flag, "0");
        assert_eq!(code, Some(2), "{flag} 0: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains("0 is not in 1.."),
            "{flag} 0: {stderr}"
        );
    }
}

/// `--max-connections` and `--queue` each size a semaphore: a number beyond tokio's limit
/// panicked after "listening" was logged. Now it is a usage error naming the flag (exit 2).
#[test]
fn a_limit_beyond_its_maximum_is_refused_at_start() {
    for (flag, value) in [
        ("--max-connections", "2305843009213693952"),
        ("--max-connections", "1000001"),
        ("--queue", "2305843009213693952"),
    ] {
        let (code, stderr) = serve_with(flag, value);
        assert_eq!(code, Some(2), "{flag} {value}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains("1000000") && !stderr.contains("listening"),
            "{flag} {value}: {stderr}"
        );
    }
}

/// `aesop serve --addr 127.0.0.1:0 FLAG VALUE` run to its end (a refused start): exit code and
/// standard error.
fn serve_with(flag: &str, value: &str) -> (Option<i32>, String) {
    let out = crate::common::aesop()
        .args(["serve", "--addr", "127.0.0.1:0", flag, value])
        .timeout(Duration::from_secs(60))
        .output()
        .expect("aesop serve");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
