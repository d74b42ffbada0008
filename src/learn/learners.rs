//! The learners behind one interface: [`fit`] a [`LearnerKind`] with [`Hyper`]-parameters on
//! standardized rows, get a [`Fitted`] model that predicts and serializes.
//!
//! * OLS (our own centred normal equations with a vanishing ridge, so collinear or short data
//!   still fit) and elastic net (linfa): the fitted weights and intercept are kept as a plain linear
//!   model, so reload and prediction need no linfa state.
//! * ε-SVR with RBF, polynomial or linear kernel (linfa-svm, solver tolerance 1e-3; never with
//!   shrinking, which CRATES.md found broken).
//! * A linear ranking SVM on within-topic pairs, solved in the dual by coordinate descent
//!   (LIBLINEAR's L1-loss hinge, no intercept): linfa-svm would build an n×n kernel matrix.
//! * A random-forest regressor (smartcore 0.7, through its own dense matrix).

use super::stack::BaseModel;
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

    /// The small grid searched by inner cross-validation. The ranking SVM's is ordered from the
    /// strongest regularization (smallest C) up, because its inner search breaks near-ties
    /// towards earlier grid points (`cv::one_standard_error_choice`). The regressors take the
    /// best inner τ, exact ties going to the earlier grid point, so their grids start with the
    /// least shrinkage (τ cannot see shrinkage, but predicted scores are on the target's scale).
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
            LearnerKind::RankSvm => [0.0001, 0.001, 0.01, 0.1, 1.0]
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
    if rows.is_empty() {
        bail!("no training rows");
    }
    match (kind, hyper) {
        (LearnerKind::Ols, _) => Ok(Fitted::Linear(least_squares(rows, targets)?)),
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
            let solution = rank_svm_dual_cd(
                rows,
                &pairs,
                c,
                RANK_SVM_TOLERANCE,
                RANK_SVM_MAX_EPOCHS,
                seed,
            );
            Ok(Fitted::Linear(LinearModel {
                weights: solution.weights,
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

/// Ridge penalty of [`least_squares`], relative to the mean diagonal of the centred Gram matrix
/// XᵀX: small enough that well-conditioned fits equal plain OLS to about 1e-9 (relative), large
/// enough that a singular XᵀX becomes positive definite for the Cholesky factorization.
const OLS_RELATIVE_RIDGE: f64 = 1e-9;

/// Ordinary least squares with an intercept, robust to degenerate designs.
///
/// Columns and target are centred (the intercept is then ȳ − w·x̄), and the normal equations
/// (XᵀX + λI) w = Xᵀy are solved by Cholesky with the tiny ridge λ = [`OLS_RELATIVE_RIDGE`] ×
/// mean diagonal of XᵀX. With a full-rank design that is OLS; where XᵀX is singular — duplicated
/// or collinear columns, a constant column (all zero after standardization), fewer rows than
/// features — it is the limit of ridge regression as λ → 0, i.e. the minimum-norm least-squares
/// solution: duplicated columns share their weight equally and a constant column gets weight 0.
/// (linfa's QR solver instead fails with "Matrix is non-invertible" on exactly singular designs
/// and returns huge weights on nearly singular ones.)
pub fn least_squares(rows: &[Vec<f64>], targets: &[f64]) -> Result<LinearModel> {
    if rows.is_empty() || rows.len() != targets.len() {
        bail!(
            "least squares: {} rows but {} targets",
            rows.len(),
            targets.len()
        );
    }
    let width = rows[0].len();
    if rows.iter().any(|r| r.len() != width) {
        bail!("least squares: rows of different lengths");
    }
    if rows.iter().flatten().chain(targets).any(|v| !v.is_finite()) {
        bail!("least squares: non-finite feature or target value");
    }
    let n = rows.len() as f64;
    let mut means = vec![0.0; width];
    for row in rows {
        for (m, v) in means.iter_mut().zip(row) {
            *m += v / n;
        }
    }
    let y_mean = targets.iter().sum::<f64>() / n;
    // Gram matrix and right-hand side of the centred problem (upper triangle, then mirrored).
    let mut gram = vec![0.0; width * width];
    let mut rhs = vec![0.0; width];
    let mut centred = vec![0.0; width];
    for (row, y) in rows.iter().zip(targets) {
        for (c, (v, m)) in centred.iter_mut().zip(row.iter().zip(&means)) {
            *c = v - m;
        }
        let yc = y - y_mean;
        for a in 0..width {
            rhs[a] += centred[a] * yc;
            for b in a..width {
                gram[a * width + b] += centred[a] * centred[b];
            }
        }
    }
    for a in 0..width {
        for b in 0..a {
            gram[a * width + b] = gram[b * width + a];
        }
    }
    let trace: f64 = (0..width).map(|a| gram[a * width + a]).sum();
    let mut weights = vec![0.0; width];
    // trace 0: every column is constant, so the best linear fit is the mean.
    if width > 0 && trace > 0.0 {
        let ridge = OLS_RELATIVE_RIDGE * trace / width as f64;
        for a in 0..width {
            gram[a * width + a] += ridge;
        }
        weights = cholesky_solve(gram, rhs, width)
            .ok_or_else(|| anyhow!("least squares: the normal equations could not be solved"))?;
    }
    let intercept = y_mean - weights.iter().zip(&means).map(|(w, m)| w * m).sum::<f64>();
    Ok(LinearModel { weights, intercept })
}

/// Solve A x = b for a symmetric positive-definite `a` (row-major, n × n) by Cholesky
/// factorization in place; None if a pivot is not positive (A not positive definite).
fn cholesky_solve(mut a: Vec<f64>, mut b: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    // Lower factor L (A = L Lᵀ) overwrites the lower triangle of `a`.
    for j in 0..n {
        let pivot = a[j * n + j] - (0..j).map(|k| a[j * n + k].powi(2)).sum::<f64>();
        if !(pivot.is_finite() && pivot > 0.0) {
            return None;
        }
        let diag = pivot.sqrt();
        a[j * n + j] = diag;
        for i in j + 1..n {
            let dot: f64 = (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum();
            a[i * n + j] = (a[i * n + j] - dot) / diag;
        }
    }
    // L z = b, then Lᵀ x = z.
    for i in 0..n {
        let dot: f64 = (0..i).map(|k| a[i * n + k] * b[k]).sum();
        b[i] = (b[i] - dot) / a[i * n + i];
    }
    for i in (0..n).rev() {
        let dot: f64 = (i + 1..n).map(|k| a[k * n + i] * b[k]).sum();
        b[i] = (b[i] - dot) / a[i * n + i];
    }
    Some(b)
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

/// Stopping tolerance of the ranking SVM's dual solver in [`fit`]: LIBLINEAR's default for its
/// dual solvers (an absolute bound on the spread of projected gradients, which are O(1) here
/// since the hinge gradient is w·z − 1). Tighter values change w by well under 1% on the
/// benchmark (examples/bench_rank_svm.rs) but cost several times the epochs.
pub const RANK_SVM_TOLERANCE: f64 = 0.1;

/// Epoch cap of the ranking SVM's dual solver in [`fit`] (LIBLINEAR's default iteration cap).
pub const RANK_SVM_MAX_EPOCHS: usize = 1000;

/// The result of [`rank_svm_dual_cd`].
#[derive(Debug, Clone, PartialEq)]
pub struct DualCdSolution {
    /// w = Σ α_k z_k.
    pub weights: Vec<f64>,
    /// One dual variable per pair, in [0, C].
    pub alpha: Vec<f64>,
    /// Passes made (over the active set, or over all pairs after the active set converged).
    pub epochs: usize,
    /// Whether the projected-gradient rule was met on all pairs before the epoch cap.
    pub converged: bool,
}

/// Linear SVM with L1-loss hinge and no bias on the difference vectors z_k = x_better − x_worse
/// (all labels +1): min ½‖w‖² + C Σ max(0, 1 − w·z_k), by dual coordinate descent as in
/// LIBLINEAR (Hsieh et al. 2008, Algorithm 3 with shrinking):
///
/// * dual: min ½ αᵀQα − Σα over α_k ∈ [0, C], Q_kl = z_k·z_l; w = Σ α_k z_k is kept up to date,
///   so one coordinate step costs two dot products of the row width;
/// * z_k is never stored: it is read as the difference of two rows of a contiguous copy of
///   `rows` (a few MB for thousands of rows, where 100k dense pair vectors would not stay in cache);
/// * each epoch visits the active pairs in a fresh seeded random order;
/// * shrinking: a pair at α = 0 whose gradient exceeds the previous epoch's largest projected
///   gradient (or at α = C below the smallest) is dropped from the active set;
/// * stop when max − min of the projected gradients over an epoch is ≤ `tol`; if pairs were
///   shrunk, all are re-activated and checked once more before stopping.
///
/// A pair whose two rows are identical (z = 0) cannot be separated, carries no signal and keeps
/// α = 0. Rows shorter than the first are read as zero-padded.
pub fn rank_svm_dual_cd(
    rows: &[Vec<f64>],
    pairs: &[Pair],
    c: f64,
    tol: f64,
    max_epochs: usize,
    seed: u64,
) -> DualCdSolution {
    let width = rows.first().map_or(0, Vec::len);
    let mut flat = vec![0.0; rows.len() * width];
    for (chunk, row) in flat.chunks_exact_mut(width.max(1)).zip(rows) {
        let n = row.len().min(width);
        chunk[..n].copy_from_slice(&row[..n]);
    }
    let row = |i: usize| &flat[i * width..(i + 1) * width];
    let q_diag: Vec<f64> = pairs
        .iter()
        .map(|p| {
            row(p.better)
                .iter()
                .zip(row(p.worse))
                .map(|(a, b)| (a - b) * (a - b))
                .sum()
        })
        .collect();
    let mut alpha = vec![0.0; pairs.len()];
    let mut w = vec![0.0; width];
    // Pairs still visited; active[..active_size] is the current active set.
    let mut active: Vec<usize> = (0..pairs.len()).filter(|&k| q_diag[k] > 0.0).collect();
    let all_active = active.len();
    let mut active_size = all_active;
    let mut rng = Rng::new(seed);
    // Shrinking thresholds from the previous epoch (LIBLINEAR's PGmax_old / PGmin_old).
    let (mut pg_max_old, mut pg_min_old) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut epochs = 0;
    let mut converged = false;
    while epochs < max_epochs {
        epochs += 1;
        rng.shuffle(&mut active[..active_size]);
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        let mut s = 0;
        while s < active_size {
            let k = active[s];
            let (better, worse) = (row(pairs[k].better), row(pairs[k].worse));
            let margin: f64 = w
                .iter()
                .zip(better.iter().zip(worse))
                .map(|(wd, (b, v))| wd * (b - v))
                .sum();
            let g = margin - 1.0;
            let a = alpha[k];
            let pg = if a <= 0.0 {
                if g > pg_max_old {
                    // Confidently at its bound: drop it until the final check.
                    active_size -= 1;
                    active.swap(s, active_size);
                    continue;
                }
                g.min(0.0)
            } else if a >= c {
                if g < pg_min_old {
                    active_size -= 1;
                    active.swap(s, active_size);
                    continue;
                }
                g.max(0.0)
            } else {
                g
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg.abs() > 1e-12 {
                let updated = (a - g / q_diag[k]).clamp(0.0, c);
                let step = updated - a;
                alpha[k] = updated;
                for (wd, (b, v)) in w.iter_mut().zip(better.iter().zip(worse)) {
                    *wd += step * (b - v);
                }
            }
            s += 1;
        }
        if pg_max - pg_min <= tol {
            if active_size == all_active {
                converged = true;
                break;
            }
            // Converged on the active set: re-check every pair with shrinking off for a pass.
            active_size = all_active;
            pg_max_old = f64::INFINITY;
            pg_min_old = f64::NEG_INFINITY;
            continue;
        }
        pg_max_old = if pg_max <= 0.0 { f64::INFINITY } else { pg_max };
        pg_min_old = if pg_min >= 0.0 {
            f64::NEG_INFINITY
        } else {
            pg_min
        };
    }
    DualCdSolution {
        weights: w,
        alpha,
        epochs,
        converged,
    }
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
