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

/// Spearman's ρ (the library's, so tests and meta-evaluation agree).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    aesop::eval::spearman(x, y)
}
