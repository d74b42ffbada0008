//! Learners, model files and the train / score / cross-validate commands.
//!
//! [`dataset`] builds the training matrix and scaler, [`learners`] fits and predicts,
//! [`model_file`] saves and loads trained models, [`commands`] are the CLI verbs as library
//! functions, [`cv`] holds the fold logic of protocol 1 (EVALUATION.md), and [`stack`] the
//! CREMER-style stacked models (base models per human score, a meta learner over them).

pub mod ablate;
pub mod builtin;
pub mod commands;
pub mod cv;
pub mod dataset;
pub mod degenerate;
pub mod in_sample;
pub mod learners;
pub mod model_file;
pub mod multiset;
pub mod recipe;
pub mod score_stream;
pub mod scoring;
pub mod stack;
pub mod transfer;

pub use dataset::{Dataset, Scaler};
pub use learners::{fit, Fitted, Hyper, LearnerKind, Trained};
pub use model_file::ModelFile;

use anyhow::Result;

/// The seeded generator used for folds and inner cross-validation.
pub use aesop_core::rng::SplitMix64 as Rng;

/// Standardize `data` with its own statistics, weighing feature classes equally
/// ([`Scaler::fit_class_balanced`]), choose hyper-parameters by inner cross-validation over
/// its topics (unless `hyper` is given), and fit.
pub fn train(
    data: &Dataset,
    learner: LearnerKind,
    hyper: Option<Hyper>,
    seed: u64,
) -> Result<Trained> {
    let scaler = Scaler::fit_class_balanced(&data.rows, &data.names);
    let rows = scaler.transform(&data.rows);
    let groups = data.topic_groups();
    let hyper = match hyper {
        Some(h) => h,
        None => cv::select_hyper(learner, &rows, &data.targets, &groups, seed)?,
    };
    let fitted = fit(learner, hyper, &rows, &data.targets, &groups, seed)?;
    Ok(Trained {
        learner,
        hyper,
        scaler,
        fitted,
    })
}
