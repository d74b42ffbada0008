//! Learners, model files and the train / score / cross-validate commands.
//!
//! [`dataset`] builds the training matrix and scaler, [`learners`] fits and predicts,
//! [`model_file`] saves and loads trained models, [`commands`] are the CLI verbs as library
//! functions, [`cv`] holds the fold logic of protocol 1 (EVALUATION.md), and [`stack`] the
//! CREMER-style stacked models (base models per human score, a meta learner over them).

pub mod ablate;
pub mod builtin;
pub mod card;
pub mod commands;
pub mod cv;
pub mod dataset;
pub mod degenerate;
pub mod in_sample;
pub mod learners;
pub mod model_file;
pub mod multiset;
pub mod range_tally;
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
    train_anchored(data, learner, hyper, seed, None)
}

/// [`train`], with the ranking SVM's penalty centred on the feature `anchor` when given
/// ([`anchor_prior`]): the model starts as that one feature and C sets how far the other
/// features may move it. Inner cross-validation, when it chooses C, fits with the same prior.
pub fn train_anchored(
    data: &Dataset,
    learner: LearnerKind,
    hyper: Option<Hyper>,
    seed: u64,
    anchor: Option<&str>,
) -> Result<Trained> {
    let data = data.in_canonical_order();
    let scaler = Scaler::fit_class_balanced(&data.rows, &data.names);
    let rows = scaler.transform(&data.rows);
    let groups = data.topic_groups();
    let prior = match anchor {
        Some(name) => Some(anchor_prior(
            learner,
            name,
            &data.names,
            &rows,
            &data.targets,
            &groups,
        )?),
        None => None,
    };
    let hyper = match hyper {
        Some(h) => h,
        None => cv::select_hyper(
            learner,
            &rows,
            &data.targets,
            &groups,
            seed,
            prior.as_deref(),
        )?,
    };
    let fitted = learners::fit_with_prior(
        learner,
        hyper,
        &rows,
        &data.targets,
        &groups,
        seed,
        prior.as_deref(),
    )?;
    Ok(Trained {
        learner,
        hyper,
        scaler,
        fitted,
    })
}

/// The column of the anchor `name` among `names`, or an error naming it: an anchor needs the
/// rank-svm learner and one of the model's features. The one check of an anchor's name, run by
/// the CLI before any feature is computed and again by [`anchor_prior`] for library callers.
pub fn anchor_column(learner: LearnerKind, name: &str, names: &[String]) -> Result<usize> {
    if learner != LearnerKind::RankSvm {
        anyhow::bail!(
            "--anchor {name}: an anchor needs the rank-svm learner, not {}",
            learner.name()
        );
    }
    names.iter().position(|n| n == name).ok_or_else(|| {
        // Examples from the chosen classes themselves (a fixed `content.js` was named for a
        // model without the content class).
        let examples: Vec<&str> = names.iter().take(2).map(String::as_str).collect();
        anyhow::anyhow!(
            "--anchor {name}: not among the model's {} features (no such feature in the chosen \
             classes; name one of theirs, e.g. {}; --features must keep it)",
            names.len(),
            examples.join(" or ")
        )
    })
}

/// The weights of an anchored ranking SVM's prior: the feature `name` alone, at one standard
/// deviation of its (standardized, class-balanced) training column per unit of score, signed
/// as it orders the training pairs (within a topic, better minus worse, summed). An anchor
/// that is unknown, constant, or orders no pair is an error naming it.
pub fn anchor_prior(
    learner: LearnerKind,
    name: &str,
    names: &[String],
    rows: &[Vec<f64>],
    targets: &[f64],
    groups: &[usize],
) -> Result<Vec<f64>> {
    let j = anchor_column(learner, name, names)?;
    let column: Vec<f64> = rows.iter().map(|r| r[j]).collect();
    let n = column.len() as f64;
    let mean = column.iter().sum::<f64>() / n;
    let sd = (column.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    let agreement: f64 = learners::within_group_pairs(targets, groups)
        .iter()
        .map(|p| rows[p.better][j] - rows[p.worse][j])
        .sum();
    if sd.is_nan() || sd <= 1e-12 || agreement == 0.0 || !agreement.is_finite() {
        anyhow::bail!("--anchor {name}: the feature is constant or orders no training pair");
    }
    let mut prior = vec![0.0; names.len()];
    prior[j] = agreement.signum() / sd;
    Ok(prior)
}

/// `1 feature`, `12 features`: the count every message of the learning verbs prints.
pub(crate) fn feature_count(n: usize) -> String {
    aesop_core::counted(n, "feature", "features")
}
