//! Ordinary least squares: our own centred normal equations with a vanishing ridge, so collinear
//! or short data still fit (linfa's QR solver fails on exactly singular designs).

use super::{Fitted, Hyper, HyperParams, Learner, LinearModel, Training};
use anyhow::{anyhow, bail, Result};

/// The `ols` learner: no hyper-parameters.
pub struct Ols;

impl Learner for Ols {
    fn flags(&self) -> &'static [&'static str] {
        &[]
    }
    fn grid(&self) -> Vec<Hyper> {
        vec![Hyper::None]
    }
    fn check(&self, _given: &HyperParams) -> Result<Hyper> {
        Ok(Hyper::None)
    }
    fn fit(&self, _hyper: Hyper, data: &Training) -> Result<Fitted> {
        Ok(Fitted::Linear(least_squares(data.rows, data.targets)?))
    }
}

/// Ridge penalty of [`least_squares`], relative to the mean diagonal of the centred Gram matrix
/// XᵀX: small enough that well-conditioned fits equal plain OLS to about 1e-9 (relative), large
/// enough that a singular XᵀX becomes positive definite for the Cholesky factorization.
const OLS_RELATIVE_RIDGE: f64 = 1e-9;

/// Ordinary least squares with an intercept, robust to degenerate designs.
///
/// Columns and target are centred (the intercept is then ȳ − w·x̄), and the normal equations
/// (XᵀX + λI) w = Xᵀy are solved by Cholesky with the tiny ridge λ = `OLS_RELATIVE_RIDGE` ×
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
