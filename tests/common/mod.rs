//! Shared test helpers, used as `mod common;` by the files in tests/: approximate equality,
//! fixture paths and the `aesop` binary, locating ../shared/data and skipping (or failing, in CI)
//! without it, and (in `hand_analysis`) analyses built by hand. Every test file is its own crate
//! and uses only some of these, hence `allow(dead_code)`.
#![allow(dead_code)]

pub mod hand_analysis;

use std::path::{Path, PathBuf};

// ---- approximate equality ----

/// `|a − b| < 1e-9` (false when either is NaN).
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// `|a − b| < 1e-12` (false when either is NaN), for values a few exact steps from the hand one.
pub fn close_1e12(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// `|a − b| < 1e-9`, or both NaN: the check behind `assert_close!`.
pub fn close_or_both_nan(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-9
}

/// Slices of the same length whose elements pairwise differ by less than `tolerance`.
pub fn all_close(a: &[f64], b: &[f64], tolerance: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < tolerance)
}

/// Asserts `|actual − expected| <= tolerance`.
pub fn assert_within(actual: f64, expected: f64, tolerance: f64) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "expected {expected}, got {actual}"
    );
}

/// Asserts `close_1e12(actual, expected)`, naming `what` in the message.
pub fn assert_close_1e12(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-12,
        "{what}: {actual} != {expected}"
    );
}

/// `assert_close!(actual, expected)`: asserts `close_or_both_nan`, naming the expression.
#[macro_export]
macro_rules! assert_close {
    ($actual:expr, $expected:expr) => {{
        let (a, e): (f64, f64) = ($actual, $expected);
        assert!(
            $crate::common::close_or_both_nan(a, e),
            "{} = {a}, expected {e}",
            stringify!($actual)
        );
    }};
}

// ---- files, the binary, small topics ----

/// A file or folder under tests/fixtures/.
pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative)
}

/// The names of the entries of `dir`, sorted: what a run left there (its outputs, and any
/// temporary file it failed to remove).
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The `aesop` binary of this build, as an `assert_cmd` command.
pub fn aesop() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("aesop").expect("binary")
}

/// Topic `t` with no documents and one summary per text, its systems named `0`, `1`, ….
pub fn topic_with_summaries(texts: &[&str]) -> aesop::corpus::Topic {
    let mut topic = aesop::corpus::Topic::new("t");
    for (i, t) in texts.iter().enumerate() {
        topic
            .summaries
            .push(aesop::corpus::Summary::new(i.to_string(), *t));
    }
    topic
}

/// `bytes` gzip-compressed (one member), as `gzip` would write them: a compressed input made by
/// another tool, for the verbs that read a `.gz` name decompressed.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut encoder, bytes).expect("compress");
    encoder.finish().expect("compress")
}

/// The bytes of a gzip file, decompressed; fails unless the file starts with gzip's magic
/// (what aesop writes for an output named `.gz`).
pub fn gunzip(path: &Path) -> Vec<u8> {
    gunzip_bytes(&std::fs::read(path).expect("read"))
}

/// Gzip-compressed bytes decompressed; fails unless they start with gzip's magic.
pub fn gunzip_bytes(bytes: &[u8]) -> Vec<u8> {
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip magic");
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(bytes), &mut text)
        .expect("gunzip");
    text
}

/// The standard output of a run that must succeed; its standard error in the failure message.
pub fn stdout_of_success(out: std::process::Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

// ---- training data built by hand ----

/// A training matrix with these columns and no rows yet, for a test to push rows into.
pub fn empty_dataset(names: &[&str]) -> aesop::learn::Dataset {
    aesop::learn::Dataset {
        names: names.iter().map(|n| n.to_string()).collect(),
        rows: vec![],
        targets: vec![],
        topics: vec![],
        systems: vec![],
        words: vec![],
        fold_topics: Vec::new(),
        fold_systems: Vec::new(),
    }
}

// ---- training a model through the CLI ----

/// `aesop train SET ARGS… -o MODEL`, run to its end: status, stdout and stderr, for the caller
/// to judge (a usage error, a refusal, a warning beside success).
pub fn run_train(set: &Path, args: &[&str], model: &Path) -> std::process::Output {
    aesop()
        .arg("train")
        .arg(set)
        .args(args)
        .arg("-o")
        .arg(model)
        .output()
        .expect("run aesop train")
}

/// [`run_train`] that must succeed; returns its stderr (the notes and warnings it printed).
pub fn train(set: &Path, args: &[&str], model: &Path) -> String {
    let out = run_train(set, args, model);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "aesop train {} {args:?} failed: {stderr}",
        set.display()
    );
    stderr
}

// ---- shared data ----

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
    notice_skipped(&format!(
        "SKIPPED {test}: {} not found (set AESOP_DATA to the shared data directory)",
        path.display()
    ));
    None
}

/// Print a skip notice where the person running `cargo test` sees it. The test harness
/// captures `eprintln!` and shows it only for failing tests, so a passing run that skipped its
/// data-dependent parts said nothing; a write to the process's standard error is not captured.
pub fn notice_skipped(notice: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{notice}");
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
        idle_options: Default::default(),
    }
}

/// `aesop train` through the library (default feature options, never cancelled): the model
/// file written to `output`, or the error.
pub fn train_in_process(
    learn: aesop::learn::commands::LearnArgs,
    output: &Path,
) -> anyhow::Result<aesop::learn::model_file::ModelFile> {
    use aesop::learn::commands::{train_command, TrainArgs};
    let args = TrainArgs {
        learn,
        output: output.to_path_buf(),
        report: None,
    };
    train_command(
        &args,
        &aesop::features::FeatureOptions::default(),
        &std::sync::atomic::AtomicBool::new(false),
    )
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
        model: vec![model.as_os_str().to_os_string()],
        neural: false,
        documents: Vec::new(),
        summary: Vec::new(),
        reference: Vec::new(),
        output: Some(output.to_path_buf()),
        format: None,
        systems: None,
    };
    score_command(&args, &std::sync::atomic::AtomicBool::new(false)).expect("score")
}

/// `aesop features` of the one-topic set `topic` (a judgment-set line, written into `dir`) with
/// `--classes neural --neural-references 0` and `env` set (the LM variables of the caller's
/// environment removed first); (exit code, stdout CSV, stderr).
pub fn reference_free_lm_features<V: AsRef<std::ffi::OsStr>>(
    dir: &std::path::Path,
    topic: &str,
    env: &[(&str, V)],
) -> (Option<i32>, String, String) {
    let set = dir.join("set.jsonl");
    std::fs::write(&set, format!("{topic}\n")).expect("write set");
    let mut cmd = aesop();
    for var in [
        "AESOP_NEURAL_CACHE",
        "AESOP_NEURAL_TOKENS",
        "AESOP_NEURAL_HIDDEN",
        "AESOP_NEURAL_HIDDEN_LAYERS",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .arg("features")
        .arg(&set)
        .args(["--classes", "neural", "--neural-references", "0"])
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Whether the SmolLM2 model (the `neural` class) is installed. Without it a test leaves out
/// its neural part with a printed notice, unless AESOP_REQUIRE_MODELS=1 (set by .ci/run after
/// `aesop models fetch smollm2`), which makes the absence a failure.
pub fn neural_model_or_skip(test: &str) -> bool {
    lm_model_or_skip(test, &aesop::neural::model::SMOLLM2)
}

/// [`neural_model_or_skip`] for any downloadable model (e.g. Gemma 3 for the `gemma3` class).
pub fn lm_model_or_skip(test: &str, spec: &aesop::neural::model::ModelSpec) -> bool {
    use aesop::neural::model;
    if model::is_present(spec) {
        return true;
    }
    if std::env::var("AESOP_REQUIRE_MODELS").is_ok_and(|v| v == "1") {
        panic!(
            "{test}: AESOP_REQUIRE_MODELS=1 but the {} model is absent",
            spec.name
        );
    }
    notice_skipped(&format!(
        "SKIPPED {test} (its neural part): model absent ({})",
        model::fetch_command(spec)
    ));
    false
}

/// The JSON file at `path` (a report, a card's `--json`, a fixture), parsed; panics naming the
/// file.
pub fn read_json<T: serde::de::DeserializeOwned>(path: impl AsRef<std::path::Path>) -> T {
    let path = path.as_ref();
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}
