//! Correlation coefficients: Pearson r, Spearman ρ (Pearson on average ranks) and Kendall τ-b
//! (ties in either variable handled, as scipy.stats.kendalltau's default). Each returns NaN when
//! undefined (fewer than two points, or a constant variable) — callers decide how to average.

/// Pearson's r.
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len(), "pearson: vectors of different lengths");
    let n = x.len();
    // A constant column is tested by its values, not by its variance: the mean of n equal
    // values that binary cannot hold exactly (4.333…, 0.1) carries rounding noise, so the
    // sum of squares came out at 1e-30 instead of 0 and a meaningless r was returned.
    if n < 2 || is_constant(x) || is_constant(y) {
        return f64::NAN;
    }
    let mean_x = x.iter().sum::<f64>() / n as f64;
    let mean_y = y.iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        let (dx, dy) = (a - mean_x, b - mean_y);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return f64::NAN;
    }
    sxy / (sxx * syy).sqrt()
}

/// All values equal (exactly: the test every coefficient here uses for "undefined").
pub(crate) fn is_constant(values: &[f64]) -> bool {
    values.windows(2).all(|w| w[0] == w[1])
}

/// Ranks 1..n with ties given their average rank.
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's ρ: Pearson's r of the average ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len(), "spearman: vectors of different lengths");
    pearson(&average_ranks(x), &average_ranks(y))
}

/// Kendall's τ-b = (C − D) / sqrt((n0 − n1)(n0 − n2)), where n1 and n2 count the pairs tied in
/// x and in y. O(n log n) (Knight 1966) so that the global level over thousands of summaries
/// stays cheap inside a bootstrap; vectors holding NaN take the O(n²) path, which skips the
/// pairs involving a NaN.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(
        x.len(),
        y.len(),
        "kendall_tau_b: vectors of different lengths"
    );
    if x.iter().chain(y).any(|v| v.is_nan()) {
        return kendall_tau_b_pairwise(x, y);
    }
    let n = x.len();
    let pairs = (n * n.saturating_sub(1) / 2) as i64;
    // Order by x, then y; then count the inversions of y (the discordant pairs).
    let cmp = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| cmp(x[i], x[j]).then(cmp(y[i], y[j])));
    let tied_pairs = |equal: &dyn Fn(usize, usize) -> bool| {
        let (mut total, mut run) = (0i64, 1i64);
        for k in 1..n {
            if equal(order[k - 1], order[k]) {
                run += 1;
            } else {
                total += run * (run - 1) / 2;
                run = 1;
            }
        }
        total + run * (run - 1) / 2
    };
    let tied_x = tied_pairs(&|i, j| x[i] == x[j]);
    let tied_xy = tied_pairs(&|i, j| x[i] == x[j] && y[i] == y[j]);
    let mut ys: Vec<f64> = order.iter().map(|&i| y[i]).collect();
    let discordant = count_inversions(&mut ys);
    // ys is now sorted: runs of equal values are the ties in y.
    let mut tied_y = 0i64;
    let mut run = 1i64;
    for k in 1..n {
        if ys[k - 1] == ys[k] {
            run += 1;
        } else {
            tied_y += run * (run - 1) / 2;
            run = 1;
        }
    }
    tied_y += run * (run - 1) / 2;
    let denominator = (((pairs - tied_x) * (pairs - tied_y)) as f64).sqrt();
    if n < 2 || denominator == 0.0 {
        return f64::NAN;
    }
    // C − D = (n0 − n1 − n2 + n3) − 2D: every pair untied in both is concordant or discordant.
    let concordant_minus_discordant = pairs - tied_x - tied_y + tied_xy - 2 * discordant;
    concordant_minus_discordant as f64 / denominator
}

/// Sort `values` ascending (merge sort) and return the number of pairs i < j with
/// values[i] > values[j] (strictly: equal values are not inversions).
fn count_inversions(values: &mut [f64]) -> i64 {
    let n = values.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut inversions =
        count_inversions(&mut values[..mid]) + count_inversions(&mut values[mid..]);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if values[j] < values[i] {
            // values[j] is smaller than every remaining left value.
            inversions += (mid - i) as i64;
            merged.push(values[j]);
            j += 1;
        } else {
            merged.push(values[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&values[i..mid]);
    merged.extend_from_slice(&values[j..n]);
    values.copy_from_slice(&merged);
    inversions
}

/// τ-b by examining every pair (the definition; used when NaN is present).
fn kendall_tau_b_pairwise(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = (x[i] - x[j]).partial_cmp(&0.0);
            let dy = (y[i] - y[j]).partial_cmp(&0.0);
            let (Some(dx), Some(dy)) = (dx, dy) else {
                continue;
            };
            use std::cmp::Ordering::Equal;
            match (dx == Equal, dy == Equal) {
                (true, true) => {
                    tied_x += 1;
                    tied_y += 1;
                }
                (true, false) => tied_x += 1,
                (false, true) => tied_y += 1,
                (false, false) if dx == dy => concordant += 1,
                (false, false) => discordant += 1,
            }
        }
    }
    let pairs = (n * n.saturating_sub(1) / 2) as i64;
    let denominator = (((pairs - tied_x) * (pairs - tied_y)) as f64).sqrt();
    if denominator == 0.0 {
        return f64::NAN;
    }
    (concordant - discordant) as f64 / denominator
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tau_b_with_ties_by_hand() {
        // x = (1, 2, 2, 3), y = (1, 3, 2, 2). Pairs: (0,1) C, (0,2) C, (0,3) C, (1,2) tie x,
        // (1,3) D, (2,3) tie y. C = 3, D = 1, n0 = 6, n1 = 1, n2 = 1: τ-b = 2 / sqrt(5·5) = 0.4.
        let t = kendall_tau_b(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 2.0]);
        assert!((t - 0.4).abs() < 1e-12, "{t}");
    }

    #[test]
    fn fast_tau_b_matches_the_pairwise_definition() {
        // Small integer values force many ties in x, in y and in both.
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 7) as f64
        };
        for n in [0, 1, 2, 3, 10, 57, 200] {
            let x: Vec<f64> = (0..n).map(|_| next()).collect();
            let y: Vec<f64> = (0..n).map(|_| next()).collect();
            let (fast, slow) = (kendall_tau_b(&x, &y), kendall_tau_b_pairwise(&x, &y));
            assert!(
                (fast.is_nan() && slow.is_nan()) || (fast - slow).abs() < 1e-12,
                "n {n}: {fast} vs {slow}"
            );
        }
        assert!(kendall_tau_b(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_nan());
    }

    #[test]
    fn spearman_and_pearson_by_hand() {
        // Ranks x = (1, 2, 3, 4), y = (1, 3, 2, 4): ρ = 1 − 6·2/(4·15) = 0.8.
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 30.0, 20.0, 40.0]) - 0.8).abs() < 1e-12);
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
    }
}
