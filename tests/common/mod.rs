//! Shared test helpers: locating ../shared/data and skipping (or failing, in CI) without it.
#![allow(dead_code)]

use std::path::PathBuf;

/// The data directory if it exists. Without it, prints a notice and returns `None` so the test
/// can return early; with `AESOP_REQUIRE_DATA=1` a missing directory fails the test instead.
pub fn data_or_skip(test: &str, relative: &str) -> Option<PathBuf> {
    let path = aesop::data_dir().join(relative);
    if path.exists() {
        return Some(path);
    }
    if std::env::var("AESOP_REQUIRE_DATA").is_ok_and(|v| v == "1") {
        panic!(
            "{test}: AESOP_REQUIRE_DATA=1 but {} does not exist (set AESOP_DATA)",
            path.display()
        );
    }
    eprintln!(
        "SKIPPED {test}: {} not found (set AESOP_DATA to the shared data directory)",
        path.display()
    );
    None
}

/// SummEval through the `summeval` importer (100 topics, 16 summaries and 11 references each).
pub fn load_summeval(path: &std::path::Path) -> Vec<aesop::corpus::Topic> {
    aesop::corpus::import::import("summeval", path)
        .unwrap_or_else(|e| panic!("importing {}: {e:#}", path.display()))
}

/// Spearman's ρ with average ranks for ties.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < order.len() {
            let mut j = i;
            while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
                j += 1;
            }
            for &k in &order[i..=j] {
                r[k] = (i + j) as f64 / 2.0 + 1.0;
            }
            i = j + 1;
        }
        r
    }
    let (rx, ry) = (ranks(x), ranks(y));
    let n = x.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}
