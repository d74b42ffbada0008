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

/// A feature table holding `data`'s rows under the column names `names`, with the value in
/// column `i % missing_every` of row `i` left out, so that scoring exercises imputation.
pub fn table_with_gaps(
    data: &aesop::learn::Dataset,
    names: Vec<String>,
    missing_every: usize,
) -> aesop::features::run::FeatureTable {
    use aesop::features::run::{FeatureRecord, FeatureTable};
    FeatureTable {
        names,
        records: data
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| FeatureRecord {
                topic: data.topics[i].clone(),
                system: data.systems[i].clone(),
                values: r
                    .iter()
                    .enumerate()
                    .map(|(c, &v)| (i % missing_every != c).then_some(v))
                    .collect(),
            })
            .collect(),
        skipped: vec![],
    }
}

/// `aesop score SET --model MODEL -o OUTPUT` through the library; the (model, score) lines.
pub fn score_set(
    set: &std::path::Path,
    model: &std::path::Path,
    output: &std::path::Path,
) -> Vec<(String, f64)> {
    use aesop::learn::commands::{score_command, ScoreArgs};
    let args = ScoreArgs {
        set: Some(set.to_path_buf()),
        model: vec![model.display().to_string()],
        neural: false,
        documents: Vec::new(),
        summary: Vec::new(),
        reference: Vec::new(),
        output: Some(output.to_path_buf()),
        format: None,
    };
    score_command(&args, &std::sync::atomic::AtomicBool::new(false)).expect("score")
}

/// Whether the SmolLM2 model (the `neural` class) is installed. Without it a test leaves out
/// its neural part with a printed notice, unless AESOP_REQUIRE_MODELS=1 (set by .ci/run after
/// `aesop models fetch smollm2`), which makes the absence a failure.
pub fn neural_model_or_skip(test: &str) -> bool {
    use aesop::neural::model::{self, SMOLLM2};
    if model::is_present(&SMOLLM2) {
        return true;
    }
    if std::env::var("AESOP_REQUIRE_MODELS").is_ok_and(|v| v == "1") {
        panic!("{test}: AESOP_REQUIRE_MODELS=1 but the SmolLM2 model is absent");
    }
    eprintln!("SKIPPED {test} (its neural part): model absent (aesop models fetch smollm2)");
    false
}
