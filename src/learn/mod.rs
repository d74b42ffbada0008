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
pub mod learners;
pub mod model_file;
pub mod multiset;
pub mod score_stream;
pub mod scoring;
pub mod stack;
pub mod transfer;

pub use dataset::{Dataset, Scaler};
pub use learners::{fit, Fitted, Hyper, LearnerKind};
pub use model_file::ModelFile;

use anyhow::Result;

/// The seeded generator used for folds and inner cross-validation.
pub use crate::rng::SplitMix64 as Rng;

/// A scaler and a fitted learner, trained together on raw feature rows.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Trained {
    pub learner: LearnerKind,
    pub hyper: Hyper,
    pub scaler: Scaler,
    pub fitted: Fitted,
}

impl Trained {
    /// Predictions for raw (unstandardized, possibly missing) rows. A stacked model first turns
    /// them into its base models' predictions, which its scaler and meta learner then take.
    pub fn predict(&self, rows: &[Vec<f64>]) -> Result<Vec<f64>> {
        match &self.fitted {
            Fitted::Stacked { bases, .. } => {
                let inputs = stack::base_predictions(bases, rows)?;
                self.fitted.predict(&self.scaler.transform_clipped(&inputs))
            }
            fitted => fitted.predict(&self.scaler.transform_clipped(rows)),
        }
    }

    /// The base models when this is a stacked model.
    pub fn stack_bases(&self) -> Option<&[stack::BaseModel]> {
        match &self.fitted {
            Fitted::Stacked { bases, .. } => Some(bases),
            _ => None,
        }
    }
}

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
