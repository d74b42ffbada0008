//! The learning verbs (`train`, `score`, `cross-validate`) as library functions; src/main.rs
//! wires them to clap, and `ablate` builds on the same [`LearnArgs`].
//!
//! One file a verb, so a contributor changing one reads only its file:
//! - `args.rs`: what every learning verb shares: the sets and the column to learn
//!   ([`LearnArgs`], [`TransferArgs`]), fixed hyper-parameters ([`HyperArgs`]), stacked models
//!   ([`StackArgs`]), and the plan they resolve to (classes and columns), checked before any set
//!   is read.
//! - `train.rs`: `aesop train`, and `training_report.rs` for the `--report` it stores in the model.
//! - `cross_validate.rs`: `aesop cross-validate`, protocol 1 and protocol 2
//!   (`--leave-one-set-out`), its out-of-fold predictions and report.
//! - `score` streams through [`super::score_stream`]; [`score_command`] collects its lines.

mod args;
mod cross_validate;
mod train;
mod training_report;

pub use super::score_stream::ScoreArgs;
pub(crate) use args::LearnPlan;
pub use args::{HyperArgs, LearnArgs, StackArgs, TransferArgs};
pub use cross_validate::{cross_validate_command, CrossValidateArgs, CvReport, PerSetTau};
pub use train::{train_command, TrainArgs};

use super::cv::Protocol1;
use super::multiset;
use aesop_corpus::Topic;
use aesop_features::run::{extract_features, FeatureTable};
use aesop_features::{build_classes, FeatureOptions};
use anyhow::{bail, Context, Result};
use std::sync::atomic::AtomicBool;

/// Protocol 2 has no folds: each held-out set is the test set, so fold flags given beside
/// `--leave-one-set-out` would be ignored, and it needs two sets to hold one out (`cross-validate`
/// and `ablate`; a usage error in the binary, said before any set is read).
pub fn check_folds_apply(
    leave_one_set_out: bool,
    topic_folds: usize,
    system_folds: usize,
    learn: &LearnArgs,
) -> Result<()> {
    if leave_one_set_out && learn.set_specs().map_or(0, |specs| specs.len()) < 2 {
        bail!(multiset::NEEDS_TWO_SETS);
    }
    if leave_one_set_out
        && (topic_folds != DEFAULT_TOPIC_FOLDS || system_folds != DEFAULT_SYSTEM_FOLDS)
    {
        bail!("--topic-folds and --system-folds are protocol 1's; --leave-one-set-out holds out whole sets");
    }
    crate::cv::check_fold_counts(topic_folds, system_folds)
        .context("--topic-folds, --system-folds")?;
    Ok(())
}

/// Protocol 1's default folds (EVALUATION.md).
pub const DEFAULT_TOPIC_FOLDS: usize = 5;
pub const DEFAULT_SYSTEM_FOLDS: usize = 4;

/// Say so when the data has fewer topics or systems than the `topic_folds`×`system_folds`
/// asked for (the layout then has one fold per topic or system, and the report gives the folds
/// used); `cross-validate` and `ablate` both.
pub(crate) fn note_fewer_folds(topic_folds: usize, system_folds: usize, layout: &Protocol1) {
    if layout.topic_folds < topic_folds || layout.system_folds < system_folds {
        aesop_core::eprintln_quiet!(
            "note: {topic_folds}×{system_folds} folds asked for, {}×{} used: the data has no \
             more topics or systems",
            layout.topic_folds,
            layout.system_folds
        );
    }
}

/// The features of the set read from `path`, warning about text that is not English and options
/// that changed nothing there.
fn extract(
    path: &std::path::Path,
    topics: &[Topic],
    classes: &[String],
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<FeatureTable> {
    let built = build_classes(classes, options)?;
    // Before the long extraction, so the warning is seen while the run can still be stopped.
    multiset::warn_not_english(path, topics);
    let table = extract_features(topics, &built, aesop_core::progress::enabled(), cancel)?;
    multiset::warn_idle_options(path, &table);
    Ok(table)
}

/// Score a set (or plain-text files) with the named models, or with the default built-in
/// models chosen per topic, streaming (see [`super::score_stream`]). Returns the prediction
/// lines written, as (model name, score), in output order: for library callers and tests on
/// nothing per summary.
pub fn score_command(args: &ScoreArgs, cancel: &AtomicBool) -> Result<Vec<(String, f64)>> {
    let mut written = Vec::new();
    super::score_stream::score_streaming(args, cancel, |model, score| {
        written.push((model.to_string(), score))
    })?;
    Ok(written)
}
