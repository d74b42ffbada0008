//! The learners behind one interface: [`fit`] a [`LearnerKind`] with [`Hyper`]-parameters on
//! standardized rows, get a [`Fitted`] model that predicts and serializes.
//!
//! * OLS and elastic net (linfa): the fitted weights and intercept are kept as a plain linear
//!   model, so reload and prediction need no linfa state.
//! * ε-SVR with RBF, polynomial or linear kernel (linfa-svm, solver tolerance 1e-3; never with
//!   shrinking, which CRATES.md found broken).
//! * A linear ranking SVM on within-topic pairs, solved in the dual by coordinate descent
//!   (LIBLINEAR's L1-loss hinge, no intercept): linfa-svm would build an n×n kernel matrix.
//! * A random-forest regressor (smartcore 0.7, through its own dense matrix).

use super::Rng;
use anyhow::{anyhow, bail, Result};
use linfa::traits::{Fit, Predict};
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};
use smartcore::ensemble::random_forest_regressor::{
    RandomForestRegressor, RandomForestRegressorParameters,
};
use smartcore::linalg::basic::matrix::DenseMatrix;

/// Which learner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
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

    /// The small grid searched by inner cross-validation.
    pub fn grid(self) -> Vec<Hyper> {
        match self {
            LearnerKind::Ols => vec![Hyper::None],
            LearnerKind::ElasticNet => [0.001, 0.01, 0.1]
                .iter()
                .flat_map(|&penalty| {
                    [0.1, 0.5, 0.9].map(|l1_ratio| Hyper::ElasticNet { penalty, l1_ratio })
                })
                .collect(),
            // kernel parameter: RBF width ε in exp(-‖a-b‖²/ε) (multiples of the feature count
            // are set in `fit`), polynomial degree, unused for linear.
            LearnerKind::SvrRbf => [0.1, 1.0, 10.0]
                .iter()
                .flat_map(|&c| {
                    [0.5, 2.0].map(|kernel| Hyper::Svr {
                        c,
                        epsilon: 0.1,
                        kernel,
                    })
                })
                .collect(),
            LearnerKind::SvrPoly => [0.1, 1.0]
                .iter()
                .flat_map(|&c| {
                    [2.0, 3.0].map(|kernel| Hyper::Svr {
                        c,
                        epsilon: 0.1,
                        kernel,
                    })
                })
                .collect(),
            LearnerKind::SvrLinear => [0.01, 0.1, 1.0]
                .map(|c| Hyper::Svr {
                    c,
                    epsilon: 0.1,
                    kernel: 0.0,
                })
                .to_vec(),
            LearnerKind::RankSvm => [0.001, 0.01, 0.1, 1.0]
                .map(|c| Hyper::RankSvm { c })
                .to_vec(),
            LearnerKind::Forest => [Some(6u16), None]
                .iter()
                .flat_map(|&max_depth| {
                    [5usize, 15].map(|min_samples_leaf| Hyper::Forest {
                        n_trees: 100,
                        max_depth,
                        min_samples_leaf,
                    })
                })
                .collect(),
        }
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

type Forest = RandomForestRegressor<f64, f64, DenseMatrix<f64>, Vec<f64>>;

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
    Forest(Box<Forest>),
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
    if rows.is_empty() {
        bail!("no training rows");
    }
    match (kind, hyper) {
        (LearnerKind::Ols, _) => {
            let ds = linfa::Dataset::new(to_array(rows)?, Array1::from(targets.to_vec()));
            let model = linfa_linear::LinearRegression::new()
                .fit(&ds)
                .map_err(|e| anyhow!("OLS fit: {e}"))?;
            Ok(Fitted::Linear(LinearModel {
                weights: model.params().to_vec(),
                intercept: model.intercept(),
            }))
        }
        (LearnerKind::ElasticNet, Hyper::ElasticNet { penalty, l1_ratio }) => {
            let ds = linfa::Dataset::new(to_array(rows)?, Array1::from(targets.to_vec()));
            let model = linfa_elasticnet::ElasticNet::params()
                .penalty(penalty)
                .l1_ratio(l1_ratio)
                .fit(&ds)
                .map_err(|e| anyhow!("elastic net fit: {e}"))?;
            Ok(Fitted::Linear(LinearModel {
                weights: model.hyperplane().to_vec(),
                intercept: model.intercept(),
            }))
        }
        (
            LearnerKind::SvrRbf | LearnerKind::SvrPoly | LearnerKind::SvrLinear,
            Hyper::Svr { c, epsilon, kernel },
        ) => {
            // Standardize the target so C and the tube width mean the same on every scale.
            let n = targets.len() as f64;
            let mean = targets.iter().sum::<f64>() / n;
            let sd = (targets.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / n).sqrt();
            let sd = if sd > 1e-12 { sd } else { 1.0 };
            let y: Array1<f64> = targets.iter().map(|t| (t - mean) / sd).collect();
            let width = rows[0].len().max(1) as f64;
            // (x·y + 1)^d on tens of standardized features reaches 10^5 and the solver crawls;
            // scaling rows by 1/√width is libsvm's default γ = 1/width.
            let input_scale = if kind == LearnerKind::SvrPoly {
                1.0 / width.sqrt()
            } else {
                1.0
            };
            let ds = linfa::Dataset::new(to_array(rows)? * input_scale, y);
            let params = linfa_svm::Svm::<f64, f64>::params()
                .c_svr(c, Some(epsilon))
                .eps(1e-3);
            let params = match kind {
                LearnerKind::SvrRbf => params.gaussian_kernel(kernel * width),
                LearnerKind::SvrPoly => params.polynomial_kernel(1.0, kernel),
                _ => params.linear_kernel(),
            };
            let model = params.fit(&ds).map_err(|e| anyhow!("SVR fit: {e}"))?;
            Ok(Fitted::Svr {
                model: Box::new(model),
                input_scale,
                target_mean: mean,
                target_std: sd,
            })
        }
        (LearnerKind::RankSvm, Hyper::RankSvm { c }) => {
            let pairs = within_group_pairs(targets, groups);
            if pairs.is_empty() {
                bail!("ranking SVM: no topic has two summaries with different scores");
            }
            let (weights, _) = rank_svm_dual_cd(rows, &pairs, c, 1e-3, 1000, seed);
            Ok(Fitted::Linear(LinearModel {
                weights,
                intercept: 0.0,
            }))
        }
        (
            LearnerKind::Forest,
            Hyper::Forest {
                n_trees,
                max_depth,
                min_samples_leaf,
            },
        ) => {
            let x = DenseMatrix::from_2d_vec(&rows.to_vec())
                .map_err(|e| anyhow!("forest input: {e}"))?;
            let mut params = RandomForestRegressorParameters::default()
                .with_n_trees(n_trees)
                .with_min_samples_leaf(min_samples_leaf)
                .with_seed(seed);
            if let Some(depth) = max_depth {
                params = params.with_max_depth(depth);
            }
            let forest = Forest::fit(&x, &targets.to_vec(), params)
                .map_err(|e| anyhow!("forest fit: {e}"))?;
            Ok(Fitted::Forest(Box::new(forest)))
        }
        (kind, hyper) => bail!(
            "hyper-parameters {hyper:?} do not fit learner {}",
            kind.name()
        ),
    }
}

/// One training pair for the ranking SVM: row `better` should score above row `worse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub better: usize,
    pub worse: usize,
}

/// Every pair of rows in the same group with different targets, oriented better → worse
/// (so the label sign(y_i − y_j) is folded into the difference vector).
pub fn within_group_pairs(targets: &[f64], groups: &[usize]) -> Vec<Pair> {
    let mut by_group: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, &g) in groups.iter().enumerate() {
        by_group.entry(g).or_default().push(i);
    }
    let mut pairs = Vec::new();
    for members in by_group.values() {
        for (a, &i) in members.iter().enumerate() {
            for &j in &members[a + 1..] {
                if targets[i] > targets[j] {
                    pairs.push(Pair {
                        better: i,
                        worse: j,
                    });
                } else if targets[j] > targets[i] {
                    pairs.push(Pair {
                        better: j,
                        worse: i,
                    });
                }
            }
        }
    }
    pairs
}

/// Linear SVM with L1-loss hinge and no bias on the difference vectors z_k = x_better − x_worse
/// (all labels +1): min ½‖w‖² + C Σ max(0, 1 − w·z_k), by dual coordinate descent
/// (Hsieh et al. 2008): α_k ∈ [0, C], w = Σ α_k z_k, one coordinate at a time in a seeded random
/// order, stopping when the spread of projected gradients falls below `tol`.
/// Returns (w, α).
pub fn rank_svm_dual_cd(
    rows: &[Vec<f64>],
    pairs: &[Pair],
    c: f64,
    tol: f64,
    max_epochs: usize,
    seed: u64,
) -> (Vec<f64>, Vec<f64>) {
    let width = rows.first().map_or(0, Vec::len);
    let diff = |p: &Pair, d: usize| rows[p.better][d] - rows[p.worse][d];
    let q_diag: Vec<f64> = pairs
        .iter()
        .map(|p| (0..width).map(|d| diff(p, d).powi(2)).sum())
        .collect();
    let mut alpha = vec![0.0; pairs.len()];
    let mut w = vec![0.0; width];
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    let mut rng = Rng::new(seed);
    for _ in 0..max_epochs {
        rng.shuffle(&mut order);
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        for &k in &order {
            if q_diag[k] <= 0.0 {
                continue; // identical rows: the pair cannot be separated and carries no signal
            }
            let p = &pairs[k];
            let margin: f64 = (0..width).map(|d| w[d] * diff(p, d)).sum();
            let g = margin - 1.0;
            let pg = if alpha[k] <= 0.0 {
                g.min(0.0)
            } else if alpha[k] >= c {
                g.max(0.0)
            } else {
                g
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg.abs() > 1e-12 {
                let old = alpha[k];
                alpha[k] = (old - g / q_diag[k]).clamp(0.0, c);
                let step = alpha[k] - old;
                for (d, wd) in w.iter_mut().enumerate() {
                    *wd += step * diff(p, d);
                }
            }
        }
        if pg_max - pg_min < tol {
            break;
        }
    }
    (w, alpha)
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
}
