//! A linear ranking SVM on within-topic pairs, solved in the dual by coordinate descent
//! (LIBLINEAR's L1-loss hinge, no intercept): linfa-svm would build an n×n kernel matrix.

use super::{positive, Fitted, Hyper, HyperParams, Learner, LinearModel, Training};
use crate::Rng;
use anyhow::{bail, Result};

/// The `rank-svm` learner.
pub struct RankSvm;

impl Learner for RankSvm {
    fn flags(&self) -> &'static [&'static str] {
        &["--c"]
    }
    /// Ordered from the strongest regularization (smallest C) up: the inner search breaks
    /// near-ties towards earlier grid points (`cv::one_standard_error_choice`).
    fn grid(&self) -> Vec<Hyper> {
        [0.0001, 0.001, 0.01, 0.1, 1.0]
            .map(|c| Hyper::RankSvm { c })
            .to_vec()
    }
    fn check(&self, given: &HyperParams) -> Result<Hyper> {
        Ok(Hyper::RankSvm {
            c: positive("--c", given.c.unwrap_or(1.0))?,
        })
    }
    fn fit(&self, hyper: Hyper, data: &Training) -> Result<Fitted> {
        let Hyper::RankSvm { c } = hyper else {
            bail!("hyper-parameters {hyper:?} do not fit learner rank-svm");
        };
        let mut pairs = within_group_pairs(data.targets, data.groups);
        if let Some(band) = &data.band {
            pairs.retain(|p| band.matches(p.better, p.worse));
            if pairs.is_empty() {
                bail!(
                    "ranking SVM: no topic has two summaries with different scores whose lengths are within {} of each other (--pair-length-tolerance)",
                    band.percent()
                );
            }
        }
        if pairs.is_empty() {
            bail!("ranking SVM: no topic has two summaries with different scores");
        }
        let solution = rank_svm_dual_cd_from(
            data.rows,
            &pairs,
            c,
            RANK_SVM_TOLERANCE,
            RANK_SVM_MAX_EPOCHS,
            data.seed,
            data.prior.unwrap_or(&[]),
        );
        if !solution.converged {
            warn_not_converged(c);
        }
        Ok(Fitted::Linear(LinearModel {
            weights: solution.weights,
            intercept: 0.0,
        }))
    }
}

/// Said once per run (inner cross-validation fits many models): at a large C the solver can
/// stop at its epoch cap far from the optimum, and the model then orders even its own training
/// pairs worse (in-sample pairwise accuracy .72 at C 100, .49 at C 1e8 on six SummEval
/// topics), as LIBLINEAR warns when it reaches its iteration cap.
fn warn_not_converged(c: f64) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        aesop_core::eprintln_quiet!(
            "warning: the ranking SVM stopped at its cap of {RANK_SVM_MAX_EPOCHS} passes before converging (C = {c:e}); its weights are not the optimum: a smaller --c converges"
        );
    }
}

/// One training pair for the ranking SVM: row `better` should score above row `worse`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub better: usize,
    pub worse: usize,
}

/// The pairs of a length-matched ranking SVM (`--pair-length-tolerance`): only summaries whose
/// word counts differ by at most `tolerance` times the longer one's are compared.
///
/// Why: on some judgment sets summary length orders most of the pairs the annotators order, on
/// others little, and many features move with length. Trained on every pair, the ranker learns
/// each of those features partly as a stand-in for length, with the weight length earned in its
/// training sets, and a new corpus where length matters more or less gets the wrong mixture.
/// Among pairs of about the same length the weights say what orders summaries beyond length
/// (docs/RESULTS.md, "Pairs of matched length").
#[derive(Debug, Clone, Copy)]
pub struct LengthBand<'a> {
    /// Words of each row's summary.
    pub words: &'a [usize],
    /// The largest difference in words, as a share of the longer summary's, in (0, 1).
    pub tolerance: f64,
}

impl LengthBand<'_> {
    /// Whether rows `a` and `b` are of matched length.
    pub fn matches(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.words[a] as f64, self.words[b] as f64);
        (x - y).abs() <= self.tolerance * x.max(y)
    }

    /// The tolerance as people write it (`20%`).
    pub fn percent(&self) -> String {
        tolerance_percent(self.tolerance)
    }
}

/// `0.2` as `20%`, `0.125` as `12.5%`.
pub fn tolerance_percent(tolerance: f64) -> String {
    format!("{}%", (tolerance * 1e4).round() / 100.0)
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

/// Stopping tolerance of the ranking SVM's dual solver in [`super::fit`]: LIBLINEAR's default for its
/// dual solvers (an absolute bound on the spread of projected gradients, which are O(1) here
/// since the hinge gradient is w·z − 1). Tighter values change w by well under 1% on the
/// benchmark (examples/bench_rank_svm.rs) but cost several times the epochs.
pub const RANK_SVM_TOLERANCE: f64 = 0.1;

/// Epoch cap of the ranking SVM's dual solver in [`super::fit`] (LIBLINEAR's default iteration cap).
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
    rank_svm_dual_cd_from(rows, pairs, c, tol, max_epochs, seed, &[])
}

/// [`rank_svm_dual_cd`] with the penalty centred on `prior` instead of on zero:
/// min ½‖w − w₀‖² + C Σ max(0, 1 − w·z_k). With v = w − w₀ this is the same dual with each
/// pair's margin target lowered by w₀·z_k, and its gradient w·z_k − 1 is computed as before
/// once w starts at w₀; so C sets how far the fit may move from the prior. A `prior` shorter
/// than the rows (empty: none) is read as zero-padded.
pub fn rank_svm_dual_cd_from(
    rows: &[Vec<f64>],
    pairs: &[Pair],
    c: f64,
    tol: f64,
    max_epochs: usize,
    seed: u64,
    prior: &[f64],
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
    for (wd, p) in w.iter_mut().zip(prior) {
        *wd = *p;
    }
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
