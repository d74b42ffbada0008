//! Limits on what one request may ask for, and on how much work the service takes on at once.

use std::time::Duration;

/// Every limit of the service (set by `aesop serve` flags; see docs/SERVICE.md).
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Largest request body, in bytes (413 `body_too_large` beyond it).
    pub max_body_bytes: usize,
    /// Most topics in one request (413 `batch_too_large`).
    pub max_topics: usize,
    /// Most summaries in one request, over all its topics (413 `batch_too_large`).
    pub max_summaries: usize,
    /// Longest document, reference or summary text, in bytes (413 `text_too_long`).
    pub max_text_bytes: usize,
    /// Time from receiving a request to answering it, queueing included (503 `timeout`).
    pub timeout: Duration,
    /// Scoring requests run at the same time (each on a blocking thread).
    pub workers: usize,
    /// Scoring requests that may wait for a worker; beyond `workers + queue` requests are
    /// turned away at once with 429 `overloaded`, so nothing queues without bound.
    pub queue: usize,
    /// Open connections at once; a connection beyond the cap is closed at once
    /// (crates/aesop-serve/src/connections.rs).
    pub max_connections: usize,
    /// Time a connection has to send a request's head (request line and headers), from its
    /// start or from the end of the previous response; then it is closed.
    pub header_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 4 << 20,
            max_topics: 32,
            max_summaries: 256,
            max_text_bytes: 200_000,
            timeout: Duration::from_secs(30),
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            queue: 32,
            max_connections: 256,
            header_timeout: Duration::from_secs(10),
        }
    }
}
