//! Paired Wilcoxon signed-rank test, two-sided, as scipy.stats.wilcoxon with its defaults
//! (`zero_method="wilcox"`: zero differences are dropped; no continuity correction).
//!
//! The p-value follows scipy's `method="auto"` rule (scipy 1.15 and later), where n counts
//! every difference, zeros included:
//! - n ≤ [`EXACT_MAX_N`], no zero and no tied |d|: exact (the null distribution of W+
//!   enumerated by dynamic programming);
//! - n ≤ [`PERMUTATION_MAX_N`] with a zero or a tie: a permutation test over all 2^n sign
//!   flips of the differences, the ranks (average ranks for ties) held fixed, which is exact
//!   too (scipy's `PermutationMethod`, deterministic below 2^13 outcomes);
//! - otherwise the normal approximation, with the variance reduced for tied ranks
//!   (Σ (t³ − t) / 48 over tie groups).

use super::correlation::average_ranks;
use serde::Serialize;

/// Largest number of differences for which the exact distribution is used (no zeros, no ties).
pub const EXACT_MAX_N: usize = 50;
/// Largest number of differences for which a sample with zeros or ties gets the permutation test.
pub const PERMUTATION_MAX_N: usize = 13;

/// How the p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WilcoxonMethod {
    Exact,
    Permutation,
    Normal,
}

/// Result of a two-sided Wilcoxon signed-rank test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Wilcoxon {
    /// Sum of the ranks of the positive differences.
    pub rank_sum_positive: f64,
    /// Sum of the ranks of the negative differences.
    pub rank_sum_negative: f64,
    /// min(W+, W−), the statistic scipy reports for the two-sided test.
    pub statistic: f64,
    pub p_value: f64,
    /// Non-zero differences used.
    pub n: usize,
    pub method: WilcoxonMethod,
}

impl Wilcoxon {
    /// +1 when the first sample tends to be larger, −1 when smaller, 0 when W+ = W−.
    pub fn direction(&self) -> i8 {
        match self.rank_sum_positive.total_cmp(&self.rank_sum_negative) {
            std::cmp::Ordering::Greater => 1,
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
        }
    }
}

/// Test the paired differences `d` (x − y). `None` when no difference is non-zero (or any is
/// not finite): there is nothing to test.
pub fn wilcoxon_signed_rank(differences: &[f64]) -> Option<Wilcoxon> {
    if differences.iter().any(|d| !d.is_finite()) {
        return None;
    }
    let nonzero: Vec<f64> = differences.iter().copied().filter(|&d| d != 0.0).collect();
    let n = nonzero.len();
    if n == 0 {
        return None;
    }
    let magnitudes: Vec<f64> = nonzero.iter().map(|d| d.abs()).collect();
    let ranks = average_ranks(&magnitudes);
    let (mut r_plus, mut r_minus) = (0.0, 0.0);
    for (d, r) in nonzero.iter().zip(&ranks) {
        if *d > 0.0 {
            r_plus += r;
        } else {
            r_minus += r;
        }
    }
    let statistic = f64::min(r_plus, r_minus);
    let tie_term = tie_correction(&magnitudes);
    let total = differences.len();
    let zeros_or_ties = n < total || tie_term != 0.0;
    let (p_value, method) = if total <= EXACT_MAX_N && !zeros_or_ties {
        (exact_p_value(n, r_plus), WilcoxonMethod::Exact)
    } else if total <= PERMUTATION_MAX_N {
        (
            permutation_p_value(&ranks, r_plus),
            WilcoxonMethod::Permutation,
        )
    } else {
        let nf = n as f64;
        let mean = nf * (nf + 1.0) / 4.0;
        let variance = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
        let p = if variance <= 0.0 {
            1.0
        } else {
            let z = (statistic - mean) / variance.sqrt();
            (2.0 * normal_cdf(-z.abs())).min(1.0)
        };
        (p, WilcoxonMethod::Normal)
    };
    Some(Wilcoxon {
        rank_sum_positive: r_plus,
        rank_sum_negative: r_minus,
        statistic,
        p_value,
        n,
        method,
    })
}

/// Σ (t³ − t) over groups of equal values.
fn tie_correction(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut total = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[i] {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        total += t * t * t - t;
        i = j + 1;
    }
    total
}

/// Two-sided exact p-value of W+ = `r_plus` with ranks 1..n (no ties): 2·min(P(W ≤ w), P(W ≥ w)).
fn exact_p_value(n: usize, r_plus: f64) -> f64 {
    let max = n * (n + 1) / 2;
    // counts[w] = number of sign assignments with W+ = w; f64 holds 2^50 exactly.
    let mut counts = vec![0.0f64; max + 1];
    counts[0] = 1.0;
    for rank in 1..=n {
        for w in (rank..=max).rev() {
            counts[w] += counts[w - rank];
        }
    }
    let total = 2f64.powi(n as i32);
    // Without ties r_plus is an integer.
    let w = r_plus.round() as usize;
    let lower: f64 = counts[..=w.min(max)].iter().sum::<f64>() / total;
    let upper: f64 = counts[w.min(max)..].iter().sum::<f64>() / total;
    (2.0 * lower.min(upper)).min(1.0)
}

/// Two-sided p-value of W+ = `r_plus` over every sign flip of the differences whose ranks are
/// `ranks` (average ranks, so multiples of ½): 2·min(P(W ≤ w), P(W ≥ w)). Zero differences are
/// not among `ranks`; flipping them changes nothing, so they do not change the proportions.
fn permutation_p_value(ranks: &[f64], r_plus: f64) -> f64 {
    // Doubled ranks are whole numbers, so W+ is counted exactly.
    let doubled: Vec<usize> = ranks.iter().map(|r| (2.0 * r).round() as usize).collect();
    let max: usize = doubled.iter().sum();
    let mut counts = vec![0.0f64; max + 1];
    counts[0] = 1.0;
    for &rank in &doubled {
        for w in (rank..=max).rev() {
            counts[w] += counts[w - rank];
        }
    }
    let total = 2f64.powi(ranks.len() as i32);
    let w = ((2.0 * r_plus).round() as usize).min(max);
    let lower: f64 = counts[..=w].iter().sum::<f64>() / total;
    let upper: f64 = counts[w..].iter().sum::<f64>() / total;
    (2.0 * lower.min(upper)).min(1.0)
}

/// Standard normal CDF.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function: Taylor series of erf for |x| < 3, Lentz's continued fraction
/// for erfc beyond (both accurate to about 1e-14 in those ranges).
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 3.0 {
        // erf(x) = 2/√π Σ (−1)^k x^(2k+1) / (k! (2k+1))
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        // At x < 3 the terms fall below 1e-17 of the sum well before k = 100.
        for k in 1..100 {
            let k = k as f64;
            term *= -x2 / k;
            let add = term / (2.0 * k + 1.0);
            sum += add;
            if add.abs() <= 1e-17 * sum.abs() {
                break;
            }
        }
        return 1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum;
    }
    if x > 27.0 {
        return 0.0;
    }
    // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..500 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / std::f64::consts::PI.sqrt() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_known_values() {
        // Values from the definition (scipy.special.erfc).
        assert!((erfc(0.0) - 1.0).abs() < 1e-15);
        assert!((erfc(0.5) - 0.4795001221869535).abs() < 1e-14);
        assert!((erfc(1.0) - 0.15729920705028513).abs() < 1e-14);
        assert!((erfc(3.5) - 7.430983723414127e-07).abs() < 1e-19);
        assert!((erfc(-1.0) - 1.8427007929497148).abs() < 1e-14);
        assert!((normal_cdf(1.959963984540054) - 0.975).abs() < 1e-12);
    }

    #[test]
    fn exact_small_case_by_hand() {
        // n = 3, all positive: W+ = 6, P(W+ >= 6) = 1/8, two-sided p = 0.25.
        let w = wilcoxon_signed_rank(&[1.0, 2.0, 3.0]).expect("test");
        assert_eq!(w.method, WilcoxonMethod::Exact);
        assert!((w.p_value - 0.25).abs() < 1e-15);
        assert_eq!(w.direction(), 1);
        assert!(wilcoxon_signed_rank(&[0.0, 0.0]).is_none());
    }
}
