//! Counters and a latency histogram, written in the Prometheus text format (version 0.0.4).
//! Hand-written: a handful of series does not need a metrics crate.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

#[derive(Debug, Default, Clone)]
struct Histogram {
    /// Per bucket (not cumulative), plus one for +Inf.
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, seconds: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS.len() + 1];
        }
        let bucket = BUCKETS
            .iter()
            .position(|&le| seconds <= le)
            .unwrap_or(BUCKETS.len());
        self.counts[bucket] += 1;
        self.sum += seconds;
        self.count += 1;
    }
}

/// The service's metrics. Route labels are route templates (`/v1/score`), never raw paths, so
/// the number of series stays bounded.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    latency: Mutex<BTreeMap<String, Histogram>>,
    errors: Mutex<BTreeMap<(String, &'static str), u64>>,
    reloads: Mutex<BTreeMap<&'static str, u64>>,
    in_flight: AtomicI64,
    summaries_scored: AtomicU64,
}

/// Decrements the in-flight gauge when the request ends, however it ends.
pub struct InFlight<'a>(&'a Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    pub fn start_request(&self) -> InFlight<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self)
    }

    pub fn in_flight(&self) -> i64 {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// Count a finished request; `error` is the error code of a 4xx/5xx answer.
    pub fn record(&self, route: &str, status: u16, elapsed: Duration, error: Option<&'static str>) {
        if let Ok(mut requests) = self.requests.lock() {
            *requests.entry((route.to_string(), status)).or_default() += 1;
        }
        if let Ok(mut latency) = self.latency.lock() {
            latency
                .entry(route.to_string())
                .or_default()
                .observe(elapsed.as_secs_f64());
        }
        if let Some(code) = error {
            if let Ok(mut errors) = self.errors.lock() {
                *errors.entry((route.to_string(), code)).or_default() += 1;
            }
        }
    }

    pub fn add_summaries(&self, n: usize) {
        self.summaries_scored.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub fn record_reload(&self, ok: bool) {
        if let Ok(mut reloads) = self.reloads.lock() {
            *reloads.entry(if ok { "ok" } else { "failed" }).or_default() += 1;
        }
    }

    /// Everything in the Prometheus text exposition format.
    pub fn render(&self, models: usize) -> String {
        let mut out = String::new();
        out.push_str(
            "# HELP aesop_http_requests_total HTTP requests answered, by route and status.\n",
        );
        out.push_str("# TYPE aesop_http_requests_total counter\n");
        if let Ok(requests) = self.requests.lock() {
            for ((route, status), n) in requests.iter() {
                let _ = writeln!(
                    out,
                    "aesop_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
        }
        out.push_str("# HELP aesop_http_request_duration_seconds Time to answer a request.\n");
        out.push_str("# TYPE aesop_http_request_duration_seconds histogram\n");
        if let Ok(latency) = self.latency.lock() {
            for (route, h) in latency.iter() {
                let route = escape(route);
                let mut cumulative = 0;
                for (i, le) in BUCKETS.iter().enumerate() {
                    cumulative += h.counts.get(i).copied().unwrap_or(0);
                    let _ = writeln!(
                        out,
                        "aesop_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{le}\"}} {cumulative}"
                    );
                }
                let _ = writeln!(
                    out,
                    "aesop_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                    h.count
                );
                let _ = writeln!(
                    out,
                    "aesop_http_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                    h.sum
                );
                let _ = writeln!(
                    out,
                    "aesop_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                    h.count
                );
            }
        }
        out.push_str("# HELP aesop_http_errors_total Error answers, by route and error code.\n");
        out.push_str("# TYPE aesop_http_errors_total counter\n");
        if let Ok(errors) = self.errors.lock() {
            for ((route, code), n) in errors.iter() {
                let _ = writeln!(
                    out,
                    "aesop_http_errors_total{{route=\"{}\",code=\"{code}\"}} {n}",
                    escape(route)
                );
            }
        }
        out.push_str("# HELP aesop_http_requests_in_flight Requests being answered now.\n");
        out.push_str("# TYPE aesop_http_requests_in_flight gauge\n");
        let _ = writeln!(out, "aesop_http_requests_in_flight {}", self.in_flight());
        out.push_str("# HELP aesop_summaries_scored_total Summaries scored.\n");
        out.push_str("# TYPE aesop_summaries_scored_total counter\n");
        let _ = writeln!(
            out,
            "aesop_summaries_scored_total {}",
            self.summaries_scored.load(Ordering::Relaxed)
        );
        out.push_str("# HELP aesop_model_reloads_total Model reloads, by result.\n");
        out.push_str("# TYPE aesop_model_reloads_total counter\n");
        // Both series from the start (at 0): a rate or an alert on `failed` needs the series
        // before the first failure.
        if let Ok(reloads) = self.reloads.lock() {
            for result in ["failed", "ok"] {
                let n = reloads.get(result).copied().unwrap_or(0);
                let _ = writeln!(out, "aesop_model_reloads_total{{result=\"{result}\"}} {n}");
            }
        }
        out.push_str("# HELP aesop_models_loaded Models the service can score with.\n");
        out.push_str("# TYPE aesop_models_loaded gauge\n");
        let _ = writeln!(out, "aesop_models_loaded {models}");
        out
    }
}

/// Label values escape backslash, double quote and newline.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let metrics = Metrics::default();
        metrics.record("/v1/score", 200, Duration::from_millis(3), None);
        metrics.record("/v1/score", 200, Duration::from_millis(40), None);
        metrics.record(
            "/v1/score",
            422,
            Duration::from_secs(60),
            Some("unknown_model"),
        );
        let text = metrics.render(6);
        for line in [
            "aesop_http_requests_total{route=\"/v1/score\",status=\"200\"} 2",
            "aesop_http_requests_total{route=\"/v1/score\",status=\"422\"} 1",
            // 3 ms falls in le=0.005; 40 ms in le=0.05; 60 s only in +Inf.
            "aesop_http_request_duration_seconds_bucket{route=\"/v1/score\",le=\"0.0025\"} 0",
            "aesop_http_request_duration_seconds_bucket{route=\"/v1/score\",le=\"0.005\"} 1",
            "aesop_http_request_duration_seconds_bucket{route=\"/v1/score\",le=\"0.05\"} 2",
            "aesop_http_request_duration_seconds_bucket{route=\"/v1/score\",le=\"30\"} 2",
            "aesop_http_request_duration_seconds_bucket{route=\"/v1/score\",le=\"+Inf\"} 3",
            "aesop_http_request_duration_seconds_count{route=\"/v1/score\"} 3",
            "aesop_http_errors_total{route=\"/v1/score\",code=\"unknown_model\"} 1",
            "aesop_models_loaded 6",
            "aesop_model_reloads_total{result=\"ok\"} 0",
            "aesop_model_reloads_total{result=\"failed\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line}:\n{text}");
        }
    }

    #[test]
    fn in_flight_gauge_follows_guards() {
        let metrics = Metrics::default();
        let a = metrics.start_request();
        let b = metrics.start_request();
        assert_eq!(metrics.in_flight(), 2);
        drop(a);
        drop(b);
        assert_eq!(metrics.in_flight(), 0);
    }
}
