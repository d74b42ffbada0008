//! Learners, model files and the train / score / cross-validate commands.
//!
//! [`dataset`] builds the training matrix and scaler, [`learners`] fits and predicts,
//! [`model_file`] saves and loads trained models, [`commands`] are the CLI verbs as library
//! functions, and [`cv`] holds the fold logic of protocol 1 (EVALUATION.md).

pub mod ablate;
pub mod commands;
pub mod cv;
pub mod dataset;
pub mod learners;
pub mod model_file;

pub use dataset::{Dataset, Scaler};
pub use learners::{fit, Fitted, Hyper, LearnerKind};
pub use model_file::ModelFile;

use anyhow::Result;

/// SplitMix64: a tiny seeded generator, so folds and solver orders are reproducible without
/// tying the model format to a random-number crate's stream.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0); the modulo bias is negligible for the sizes used here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// A scaler and a fitted learner, trained together on raw feature rows.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Trained {
    pub learner: LearnerKind,
    pub hyper: Hyper,
    pub scaler: Scaler,
    pub fitted: Fitted,
}

impl Trained {
    /// Predictions for raw (unstandardized, possibly missing) rows.
    pub fn predict(&self, rows: &[Vec<f64>]) -> Result<Vec<f64>> {
        self.fitted.predict(&self.scaler.transform(rows))
    }
}

/// Standardize `data` with its own statistics, choose hyper-parameters by inner
/// cross-validation over its topics (unless `hyper` is given), and fit.
pub fn train(
    data: &Dataset,
    learner: LearnerKind,
    hyper: Option<Hyper>,
    seed: u64,
) -> Result<Trained> {
    let scaler = Scaler::fit(&data.rows);
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
