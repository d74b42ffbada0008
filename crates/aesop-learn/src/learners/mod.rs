//! The learners behind one interface: [`fit`] a [`LearnerKind`] with [`Hyper`]-parameters on
//! standardized rows, get a [`Fitted`] model that predicts and serializes.
//!
//! Each learner is a module behind the small [`Learner`] trait (in the spirit of linfa's `Fit`
//! and `ParamGuard`): the grid inner cross-validation searches, the one check of user-given
//! hyper-parameters, and the fit. [`LearnerKind::learner`] is the registry. [`Fitted`] and
//! [`Hyper`] stay enums because they are the model file's format (bincode numbers variants).
//!
//! * [`ols`]: ordinary least squares; [`elastic_net`] (linfa). Both keep a plain linear model.
//! * [`svr`]: ε-SVR with RBF, polynomial or linear kernel (linfa-svm).
//! * [`rank_svm`]: a linear ranking SVM on within-topic pairs (our dual coordinate descent).
//! * [`forest`]: a random-forest regressor (smartcore).

pub mod elastic_net;
pub mod forest;
pub mod ols;
pub mod rank_svm;
pub mod svr;
pub mod trained;

pub use ols::least_squares;
pub use rank_svm::{
    rank_svm_dual_cd, rank_svm_dual_cd_from, tolerance_percent, within_group_pairs, DualCdSolution,
    LengthBand, Pair, RANK_SVM_MAX_EPOCHS, RANK_SVM_TOLERANCE,
};

pub use trained::{base_predictions, BaseModel, Trained};

use anyhow::{anyhow, bail, Result};
use linfa::traits::Predict;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};
use smartcore::linalg::basic::matrix::DenseMatrix;

/// Which learner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum LearnerKind {
    Ols,
    ElasticNet,
    SvrRbf,
    SvrPoly,
    SvrLinear,
    RankSvm,
    Forest,
}

impl LearnerKind {
    pub fn name(self) -> &'static str {
        match self {
            LearnerKind::Ols => "ols",
            LearnerKind::ElasticNet => "elastic-net",
            LearnerKind::SvrRbf => "svr-rbf",
            LearnerKind::SvrPoly => "svr-poly",
            LearnerKind::SvrLinear => "svr-linear",
            LearnerKind::RankSvm => "rank-svm",
            LearnerKind::Forest => "forest",
        }
    }

    pub const ALL: [LearnerKind; 7] = [
        LearnerKind::Ols,
        LearnerKind::ElasticNet,
        LearnerKind::SvrRbf,
        LearnerKind::SvrPoly,
        LearnerKind::SvrLinear,
        LearnerKind::RankSvm,
        LearnerKind::Forest,
    ];

    /// The small grid searched by inner cross-validation (see each learner's `grid` for its
    /// order: the ranking SVM's breaks near-ties towards smaller C, the regressors' start with
    /// the least shrinkage).
    pub fn grid(self) -> Vec<Hyper> {
        self.learner().grid()
    }

    /// Whether the learner has hyper-parameters to fix or choose (OLS has none).
    pub fn has_hyper_parameters(self) -> bool {
        !self.learner().flags().is_empty()
    }

    /// The learner of this kind: the registry of learners.
    pub fn learner(self) -> &'static dyn Learner {
        match self {
            LearnerKind::Ols => &ols::Ols,
            LearnerKind::ElasticNet => &elastic_net::ElasticNet,
            LearnerKind::SvrRbf => &svr::SVR_RBF,
            LearnerKind::SvrPoly => &svr::SVR_POLY,
            LearnerKind::SvrLinear => &svr::SVR_LINEAR,
            LearnerKind::RankSvm => &rank_svm::RankSvm,
            LearnerKind::Forest => &forest::Forest,
        }
    }
}

/// One learning algorithm.
pub trait Learner: Sync {
    /// The hyper-parameter flags that apply to it (`--c`, …), for [`fixed_hyper`].
    fn flags(&self) -> &'static [&'static str];
    /// The grid searched by inner cross-validation, in tie-breaking order.
    fn grid(&self) -> Vec<Hyper>;
    /// The hyper-parameters `given` fixes, with defaults for those not given; an out-of-range
    /// value is an error naming its flag. Only called with flags among [`Learner::flags`].
    fn check(&self, given: &HyperParams) -> Result<Hyper>;
    /// Fit on standardized rows.
    fn fit(&self, hyper: Hyper, data: &Training) -> Result<Fitted>;
}

/// What a learner is fitted on.
pub struct Training<'a> {
    /// Standardized feature rows.
    pub rows: &'a [Vec<f64>],
    pub targets: &'a [f64],
    /// Each row's topic: the ranking SVM pairs rows within a topic only.
    pub groups: &'a [usize],
    pub seed: u64,
    /// Weights the ranking SVM's penalty is centred on (an anchor feature), or none.
    pub prior: Option<&'a [f64]>,
    /// The ranking SVM's pairs limited to summaries of matched length, or every pair.
    pub band: Option<LengthBand<'a>>,
}

/// The ranking SVM's options beyond C: the anchor's prior and the length band of its pairs.
/// Other learners take neither.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ranking<'a> {
    pub prior: Option<&'a [f64]>,
    pub band: Option<LengthBand<'a>>,
}

/// Hyper-parameters a user fixed (e.g. on the command line); unset ones take the learner's
/// defaults, and none at all means "choose by inner cross-validation".
#[derive(Debug, Clone, Default)]
pub struct HyperParams {
    pub c: Option<f64>,
    pub epsilon: Option<f64>,
    pub kernel_param: Option<f64>,
    pub penalty: Option<f64>,
    pub l1_ratio: Option<f64>,
    pub trees: Option<usize>,
    pub max_depth: Option<u16>,
    pub min_leaf: Option<usize>,
}

impl HyperParams {
    /// The flags of the fields that are set.
    pub fn given(&self) -> Vec<&'static str> {
        [
            ("--c", self.c.is_some()),
            ("--epsilon", self.epsilon.is_some()),
            ("--kernel-param", self.kernel_param.is_some()),
            ("--penalty", self.penalty.is_some()),
            ("--l1-ratio", self.l1_ratio.is_some()),
            ("--trees", self.trees.is_some()),
            ("--max-depth", self.max_depth.is_some()),
            ("--min-leaf", self.min_leaf.is_some()),
        ]
        .iter()
        .filter(|(_, set)| *set)
        .map(|(flag, _)| *flag)
        .collect()
    }
}

/// The fixed hyper-parameters for `kind`, or `None` to choose them by inner CV. A flag that
/// does not apply to the learner, or a value out of range, is an error. The one place
/// hyper-parameters are checked.
pub fn fixed_hyper(kind: LearnerKind, given: &HyperParams) -> Result<Option<Hyper>> {
    let learner = kind.learner();
    let flags = given.given();
    if let Some(flag) = flags.iter().find(|f| !learner.flags().contains(f)) {
        bail!("{flag} does not apply to the {} learner", kind.name());
    }
    if flags.is_empty() {
        return Ok(None);
    }
    learner.check(given).map(Some)
}

/// The CLI's value parser of the positive hyper-parameters (`--c`, `--epsilon`,
/// `--kernel-param`, `--penalty`): `--c 0`, `NaN` or `inf` are usage errors (exit 2) as
/// `--c abc` is, not failures found after the sets are read.
pub fn parse_positive(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("expected a positive number, got '{text}'")),
    }
}

/// `v` if it is a positive number, else an error naming `flag`.
fn positive(flag: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        bail!("{flag} must be a positive number, got '{v}'")
    }
}

/// Hyper-parameters of one learner.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Hyper {
    None,
    ElasticNet {
        penalty: f64,
        l1_ratio: f64,
    },
    /// `epsilon`: half-width of the insensitive tube (targets are standardized in `fit`, so
    /// it is in target standard deviations). `kernel`: RBF width factor or polynomial degree.
    Svr {
        c: f64,
        epsilon: f64,
        kernel: f64,
    },
    RankSvm {
        c: f64,
    },
    Forest {
        n_trees: usize,
        max_depth: Option<u16>,
        min_samples_leaf: usize,
    },
}

/// A plain linear model `w·x + b`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinearModel {
    pub weights: Vec<f64>,
    pub intercept: f64,
}

impl LinearModel {
    pub fn score(&self, row: &[f64]) -> f64 {
        self.intercept
            + row
                .iter()
                .zip(&self.weights)
                .map(|(x, w)| x * w)
                .sum::<f64>()
    }
}

/// A fitted learner. Regressors that were fitted on a standardized target map back with
/// `target_mean + target_std * f(x)`.
#[derive(Debug, Serialize, Deserialize)]
pub enum Fitted {
    Linear(LinearModel),
    Svr {
        model: Box<linfa_svm::Svm<f64, f64>>,
        /// Rows are multiplied by this before the kernel (1/√width for the polynomial kernel).
        input_scale: f64,
        target_mean: f64,
        target_std: f64,
    },
    Forest(Box<forest::ForestModel>),
    /// A stacked model's meta learner (`meta`, on standardized base predictions) with the base
    /// models that produce its inputs (see `stack`). Appended last: bincode numbers variants,
    /// so files without it decode as before.
    Stacked {
        bases: Vec<BaseModel>,
        meta: Box<Fitted>,
    },
}

impl Fitted {
    /// Predictions for standardized rows.
    pub fn predict(&self, rows: &[Vec<f64>]) -> Result<Vec<f64>> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        match self {
            Fitted::Linear(m) => Ok(rows.iter().map(|r| m.score(r)).collect()),
            Fitted::Svr {
                model,
                input_scale,
                target_mean,
                target_std,
            } => {
                let x = to_array(rows)? * *input_scale;
                let y: Array1<f64> = model.predict(&x);
                Ok(y.iter().map(|v| target_mean + target_std * v).collect())
            }
            Fitted::Forest(forest) => {
                let x = DenseMatrix::from_2d_vec(&rows.to_vec())
                    .map_err(|e| anyhow!("forest input: {e}"))?;
                forest
                    .predict(&x)
                    .map_err(|e| anyhow!("forest prediction: {e}"))
            }
            // `rows` are the meta learner's standardized inputs (`Trained::predict` computes
            // them from the bases).
            Fitted::Stacked { meta, .. } => meta.predict(rows),
        }
    }
}

fn to_array(rows: &[Vec<f64>]) -> Result<Array2<f64>> {
    let width = rows.first().map_or(0, Vec::len);
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    Array2::from_shape_vec((rows.len(), width), flat).map_err(|e| anyhow!("ragged rows: {e}"))
}

/// Fit `kind` with `hyper` on standardized `rows`; `groups` gives each row's topic (used by the
/// ranking SVM to form within-topic pairs).
pub fn fit(
    kind: LearnerKind,
    hyper: Hyper,
    rows: &[Vec<f64>],
    targets: &[f64],
    groups: &[usize],
    seed: u64,
) -> Result<Fitted> {
    fit_ranking(kind, hyper, rows, targets, groups, seed, Ranking::default())
}

/// [`fit`] with the ranking SVM's options: its penalty centred on `ranking.prior`
/// ([`rank_svm::rank_svm_dual_cd_from`]) and its pairs within `ranking.band`.
pub fn fit_ranking(
    kind: LearnerKind,
    hyper: Hyper,
    rows: &[Vec<f64>],
    targets: &[f64],
    groups: &[usize],
    seed: u64,
    ranking: Ranking,
) -> Result<Fitted> {
    if rows.is_empty() {
        bail!("no training rows");
    }
    if kind != LearnerKind::RankSvm {
        if ranking.prior.is_some() {
            bail!(
                "an anchor feature needs the rank-svm learner, not {}",
                kind.name()
            );
        }
        if ranking.band.is_some() {
            bail!(
                "--pair-length-tolerance needs the rank-svm learner, not {}",
                kind.name()
            );
        }
    }
    let data = Training {
        rows,
        targets,
        groups,
        seed,
        prior: ranking.prior,
        band: ranking.band,
    };
    kind.learner().fit(hyper, &data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_skip_ties_and_cross_topic() {
        let pairs = within_group_pairs(&[1.0, 2.0, 2.0, 5.0], &[0, 0, 0, 1]);
        assert_eq!(
            pairs,
            vec![
                Pair {
                    better: 1,
                    worse: 0
                },
                Pair {
                    better: 2,
                    worse: 0
                }
            ]
        );
    }

    #[test]
    fn a_kernel_parameter_fits_its_kernel() {
        let with = |c: f64, k: f64| HyperParams {
            c: Some(c),
            kernel_param: Some(k),
            ..HyperParams::default()
        };
        let poly = fixed_hyper(LearnerKind::SvrPoly, &with(1.0, 3.0)).expect("degree 3");
        assert!(matches!(poly, Some(Hyper::Svr { kernel, .. }) if kernel == 3.0));
        for bad in [2.5, 0.0] {
            let e = fixed_hyper(LearnerKind::SvrPoly, &with(1.0, bad)).expect_err("not a degree");
            assert!(e.to_string().contains("the degree"), "{e}");
        }
        let e = fixed_hyper(LearnerKind::SvrLinear, &with(1.0, 1.0)).expect_err("linear");
        assert!(e.to_string().contains("does not apply"), "{e}");
        assert!(fixed_hyper(LearnerKind::SvrRbf, &with(1.0, 0.25)).is_ok());
    }
}
