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
    train_anchored(data, learner, hyper, seed, RankerOptions::default())
}

/// The ranking SVM's options a training run names (`--anchor`, `--pair-length-tolerance`);
/// the default is neither.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankerOptions<'a> {
    /// The feature the penalty is centred on ([`anchor_prior`]).
    pub anchor: Option<&'a str>,
    /// Learn only from pairs of summaries whose word counts are within this share of the
    /// longer one's ([`learners::LengthBand`]).
    pub pair_length_tolerance: Option<f64>,
}

/// [`train`], with the ranking SVM's options: the penalty centred on the feature
/// `ranker.anchor` when given ([`anchor_prior`]), so the model starts as that one feature and
/// C sets how far the other features may move it; and the pairs limited to summaries of
/// matched length when `ranker.pair_length_tolerance` is given. Inner cross-validation, when it
/// chooses C, fits with the same prior and pairs.
pub fn train_anchored(
    data: &Dataset,
    learner: LearnerKind,
    hyper: Option<Hyper>,
    seed: u64,
    ranker: RankerOptions,
) -> Result<Trained> {
    let data = data.in_canonical_order();
    let scaler = Scaler::fit_class_balanced(&data.rows, &data.names);
    let rows = scaler.transform(&data.rows);
    let groups = data.topic_groups();
    let fold_groups = data.fold_groups();
    let words = match ranker.pair_length_tolerance {
        Some(_) => summary_words(&data)?,
        None => Vec::new(),
    };
    let band = ranker
        .pair_length_tolerance
        .map(|tolerance| learners::LengthBand {
            words: &words,
            tolerance,
        });
    let prior = match ranker.anchor {
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
            &fold_groups,
            seed,
            learners::Ranking {
                prior: prior.as_deref(),
                band,
            },
        )?,
    };
    let fitted = learners::fit_ranking(
        learner,
        hyper,
        &rows,
        &data.targets,
        &groups,
        seed,
        learners::Ranking {
            prior: prior.as_deref(),
            band,
        },
    )?;
    Ok(Trained {
        learner,
        hyper,
        scaler,
        fitted,
    })
}

/// Words of every row's summary, for a length-matched ranking SVM: rows built without their
/// texts (by hand, or a stacked model's base predictions) have none, and cannot be paired so.
fn summary_words(data: &Dataset) -> Result<Vec<usize>> {
    (0..data.len())
        .map(|i| data.words_of(i))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| {
            anyhow::anyhow!(
                "--pair-length-tolerance needs each summary's word count, and these training rows were built without their texts"
            )
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
