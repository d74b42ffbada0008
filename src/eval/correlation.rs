//! Correlation coefficients: Pearson r, Spearman ρ (Pearson on average ranks) and Kendall τ-b
//! (ties in either variable handled, as scipy.stats.kendalltau's default). Each returns NaN when
//! undefined (fewer than two points, or a constant variable) — callers decide how to average.

/// Pearson's r.
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(x.len(), y.len(), "pearson: vectors of different lengths");
    let n = x.len();
    if n < 2 {
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
/// x and in y. O(n²), which is ample for the per-topic and per-system vectors it is used on.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> f64 {
    assert_eq!(
        x.len(),
        y.len(),
        "kendall_tau_b: vectors of different lengths"
    );
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
    fn spearman_and_pearson_by_hand() {
        // Ranks x = (1, 2, 3, 4), y = (1, 3, 2, 4): ρ = 1 − 6·2/(4·15) = 0.8.
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 30.0, 20.0, 40.0]) - 0.8).abs() < 1e-12);
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
        assert!(pearson(&[1.0, 1.0], &[1.0, 2.0]).is_nan());
    }
}
