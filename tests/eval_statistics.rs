//! Meta-evaluation statistics against scipy, level aggregation on a hand-computed grid, and
//! bootstrap determinism.

use crate::common;

use aesop::eval::bootstrap::{
    bootstrap_intervals, compare_metrics, discriminative_power, Resample,
};
use aesop::eval::levels::{evaluate, Aligned, ScoreRow};
use aesop::eval::wilcoxon::{wilcoxon_signed_rank, WilcoxonMethod};
use aesop::eval::{kendall_tau_b, pearson, spearman};
use common::assert_within;
use std::sync::atomic::AtomicBool;

// Expected values from scipy 1.17.1:
//   from scipy import stats
//   x = [1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0, 9.0, 10.0]
//   y = [2.0, 1.0, 4.0, 4.0, 3.0, 7.0, 7.0, 6.0, 9.0, 8.0]
//   stats.pearsonr(x, y)[0]    # 0.8336367753089469
//   stats.spearmanr(x, y)[0]   # 0.8328532615141301
//   stats.kendalltau(x, y)[0]  # 0.6668557115213574 (tau-b, the default)
#[test]
fn correlations_match_scipy_with_ties() {
    let x = [1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0, 9.0, 10.0];
    let y = [2.0, 1.0, 4.0, 4.0, 3.0, 7.0, 7.0, 6.0, 9.0, 8.0];
    assert_within(pearson(&x, &y), 0.8336367753089469, 1e-12);
    assert_within(spearman(&x, &y), 0.8328532615141301, 1e-12);
    assert_within(kendall_tau_b(&x, &y), 0.6668557115213574, 1e-12);
}

// Expected values from scipy 1.17.1 (defaults: zero_method="wilcox", correction=False):
//   d = [0.5, -1.0, 2.0, 2.0, 0.0, 3.5, -0.5, 1.0, 4.0, 2.0, 0.0, -3.0, 1.5, 2.5]
//   stats.wilcoxon(d)  # statistic 15.0, pvalue 0.05915027616010312 (normal approximation:
//                      # zeros and tied |d| present)
//   e = [1.3, -0.4, 2.2, 3.1, 0.7, -1.9, 2.8, 1.1, 0.2, 4.5, -0.9, 3.6]
//   stats.wilcoxon(e)  # statistic 13.0, pvalue 0.04248046875 (exact)
//   stats.wilcoxon(e + [0.0])  # same: with a zero and n <= 13, a permutation test over all
//                              # 2^13 sign flips, which gives the exact p of the other 12
//   t = [0.5, -1.0, 2.0, 2.0, 3.5, -0.5, 1.0, 4.0, 2.0, -3.0]
//   stats.wilcoxon(t)  # statistic 13.0, pvalue 0.15234375 (permutation: tied |d|, n = 10)
//   w = [0.5, -1.0, 2.0, 0.0, 3.5, 1.5, 4.0, 2.5, -3.0]
//   stats.wilcoxon(w)  # statistic 8.0, pvalue 0.1953125 (permutation: a zero, n = 9)
//   v = e + [0.0, 5.1, -2.4, 1.7]
//   stats.wilcoxon(v)  # statistic 24.0, pvalue 0.04088813291185591 (normal: a zero, n = 16;
//                      # not the exact 0.041259765625 of the 15 non-zero differences)
//   big = numpy.round(numpy.random.default_rng(0).normal(0.3, 1, 60), 6)
//   stats.wilcoxon(big)  # statistic 517.0, pvalue 0.003390514676035299 (normal, n > 50)
#[test]
fn wilcoxon_matches_scipy() {
    let d = [
        0.5, -1.0, 2.0, 2.0, 0.0, 3.5, -0.5, 1.0, 4.0, 2.0, 0.0, -3.0, 1.5, 2.5,
    ];
    let w = wilcoxon_signed_rank(&d).expect("non-zero differences");
    assert_eq!(w.method, WilcoxonMethod::Normal);
    assert_eq!(w.n, 12);
    assert_within(w.statistic, 15.0, 0.0);
    assert_within(w.p_value, 0.05915027616010312, 1e-12);

    let e = [
        1.3, -0.4, 2.2, 3.1, 0.7, -1.9, 2.8, 1.1, 0.2, 4.5, -0.9, 3.6,
    ];
    let w = wilcoxon_signed_rank(&e).expect("non-zero differences");
    assert_eq!(w.method, WilcoxonMethod::Exact);
    assert_within(w.statistic, 13.0, 0.0);
    assert_within(w.p_value, 0.04248046875, 1e-14);
    assert_eq!(w.direction(), 1);
    let mut with_zero = e.to_vec();
    with_zero.push(0.0);
    let z = wilcoxon_signed_rank(&with_zero).expect("non-zero differences");
    assert_eq!((z.method, z.n), (WilcoxonMethod::Permutation, 12));
    assert_within(z.p_value, 0.04248046875, 1e-14);

    let t = [0.5, -1.0, 2.0, 2.0, 3.5, -0.5, 1.0, 4.0, 2.0, -3.0];
    let w = wilcoxon_signed_rank(&t).expect("non-zero differences");
    assert_eq!(w.method, WilcoxonMethod::Permutation);
    assert_within(w.statistic, 13.0, 0.0);
    assert_within(w.p_value, 0.15234375, 1e-14);
    let w = wilcoxon_signed_rank(&[0.5, -1.0, 2.0, 0.0, 3.5, 1.5, 4.0, 2.5, -3.0])
        .expect("non-zero differences");
    assert_eq!((w.method, w.n), (WilcoxonMethod::Permutation, 8));
    assert_within(w.statistic, 8.0, 0.0);
    assert_within(w.p_value, 0.1953125, 1e-14);
    let mut v = e.to_vec();
    v.extend([0.0, 5.1, -2.4, 1.7]);
    let w = wilcoxon_signed_rank(&v).expect("non-zero differences");
    assert_eq!((w.method, w.n), (WilcoxonMethod::Normal, 15));
    assert_within(w.statistic, 24.0, 0.0);
    assert_within(w.p_value, 0.04088813291185591, 1e-12);

    let big = [
        0.42573, 0.167895, 0.940423, 0.4049, -0.235669, 0.661595, 1.604, 1.247081, -0.403735,
        -0.965421, -0.323274, 0.341326, -2.025031, 0.081208, -0.945911, -0.432267, -0.244259,
        -0.0163, 0.711631, 1.342513, 0.171465, 1.666463, -0.365195, 0.65151, 1.20347, 0.394012,
        -0.443499, -0.621725, -0.157726, 0.520195, -0.709618, 0.090824, 0.140775, 0.840846,
        0.514659, 0.655373, -0.353829, 0.170386, 1.083975, 1.793431, -0.959066, 1.813924, 1.645875,
        1.081311, 0.564456, -0.013923, 1.758021, 2.260258, 2.101635, 1.615104, 0.65738, -0.908319,
        0.295546, 0.956475, -0.988361, 0.695122, 0.729864, 0.996043, -0.884118, -0.361703,
    ];
    let w = wilcoxon_signed_rank(&big).expect("non-zero differences");
    assert_eq!(w.method, WilcoxonMethod::Normal);
    assert_within(w.statistic, 517.0, 0.0);
    assert_within(w.p_value, 0.003390514676035299, 1e-12);
}

fn grid(metric: &[[f64; 4]; 3], human: &[[f64; 4]; 3]) -> Aligned {
    let mut rows = Vec::new();
    for t in 0..3 {
        for (s, name) in ["A", "B", "C", "D"].iter().enumerate() {
            rows.push(ScoreRow {
                topic: format!("T{}", t + 1),
                system: name.to_string(),
                metric: metric[t][s],
                human: human[t][s],
                words: None,
            });
        }
    }
    Aligned::new(&rows).expect("grid")
}

/// Metric 1, 2, 3, 4 for systems A–D in every topic; humans agree in T1, reverse in T2 and
/// swap B and C in T3.
fn example() -> Aligned {
    let metric = [[1.0, 2.0, 3.0, 4.0]; 3];
    let human = [
        [1.0, 2.0, 3.0, 4.0],
        [4.0, 3.0, 2.0, 1.0],
        [1.0, 3.0, 2.0, 4.0],
    ];
    grid(&metric, &human)
}

#[test]
fn levels_on_hand_computed_grid() {
    let s = evaluate(&example());
    // Summary level: per topic r = ρ = 1, −1, 0.8 and τ = 1, −1, 4/6 (T3: 5 concordant, 1
    // discordant pair). Averages: 0.8 / 3 and (2/3) / 3 = 2/9.
    assert_within(s.summary.pearson, 0.8 / 3.0, 1e-12);
    assert_within(s.summary.spearman, 0.8 / 3.0, 1e-12);
    assert_within(s.summary.kendall, 2.0 / 9.0, 1e-12);
    assert_eq!(s.summary_topics, 3);
    // System means: metric 1, 2, 3, 4; human 2, 8/3, 7/3, 3. Centered human −1/2, 1/6, −1/6,
    // 1/2: Sxy = 4/3, Sxx = 5, Syy = 5/9, r = (4/3)/(5/3) = 0.8. Human ranks 1, 3, 2, 4: ρ = 0.8,
    // τ = (5 − 1)/6.
    assert_within(s.system.pearson, 0.8, 1e-12);
    assert_within(s.system.spearman, 0.8, 1e-12);
    assert_within(s.system.kendall, 2.0 / 3.0, 1e-12);
    assert_eq!(s.systems, 4);
    // Global (12 rows): Sxy = 5 − 5 + 4 = 4, Sxx = Syy = 15, r = 4/15. Every value occurs 3
    // times in each variable, so ranks are linear in the values and ρ = r. τ-b: S = 4 within
    // topics + 0 (T1×T2) + 10 (T1×T3) − 2 (T2×T3) = 12; n0 = 66, 12 ties in each variable:
    // τ-b = 12 / 54 = 2/9.
    assert_within(s.global.pearson, 4.0 / 15.0, 1e-12);
    assert_within(s.global.spearman, 4.0 / 15.0, 1e-12);
    assert_within(s.global.kendall, 2.0 / 9.0, 1e-12);
    assert_eq!(s.rows, 12);
    // System pairs: only (B, C) is misordered (metric B < C, human 8/3 > 7/3): 5/6.
    assert_eq!((s.system_pairwise.correct, s.system_pairwise.pairs), (5, 6));
    assert_within(s.system_pairwise.accuracy, 5.0 / 6.0, 1e-15);
    // Input level: 6 + 0 + 5 of 18 pairs.
    assert_eq!((s.input_pairwise.correct, s.input_pairwise.pairs), (11, 18));
    assert_eq!(s.input_pairwise.human_ties, 0);
}

#[test]
fn undefined_topics_are_left_out_of_the_summary_average() {
    // T3's human scores are constant: its coefficients are undefined, the average is over T1, T2.
    let metric = [[1.0, 2.0, 3.0, 4.0]; 3];
    let human = [
        [1.0, 2.0, 3.0, 4.0],
        [1.0, 3.0, 2.0, 4.0],
        [2.0, 2.0, 2.0, 2.0],
    ];
    let s = evaluate(&grid(&metric, &human));
    assert_eq!(s.summary_topics, 2);
    assert_within(s.summary.kendall, (1.0 + 2.0 / 3.0) / 2.0, 1e-12);
    // T3's 6 pairs are all human ties.
    assert_eq!(s.input_pairwise.human_ties, 6);
    assert_eq!(s.input_pairwise.pairs, 12);
}

/// A larger grid with noise so that bootstrap intervals have width.
fn noisy(topics: usize, systems: usize, seed: u64) -> Aligned {
    let mut rng = aesop::rng::SplitMix64::new(seed);
    let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut rows = Vec::new();
    for t in 0..topics {
        for s in 0..systems {
            let quality = s as f64 / systems as f64;
            let human = quality + 2.0 * uniform();
            rows.push(ScoreRow {
                topic: format!("t{t}"),
                system: format!("s{s}"),
                metric: human + 2.0 * uniform(),
                human,
                // 20-23 words: about half the pairs are of matched length (within 10 %), so
                // every statistic has a value and an interval.
                words: Some(20 + (t + s) % 4),
            });
        }
    }
    Aligned::new(&rows).expect("grid")
}

#[test]
fn bootstrap_is_deterministic_and_contains_the_estimate() {
    let data = noisy(20, 8, 3);
    let never = AtomicBool::new(false);
    for resample in [Resample::Systems, Resample::Topics, Resample::Both] {
        let a =
            bootstrap_intervals(&data, 300, resample, 11, 0.95, &never).expect("never cancelled");
        let b =
            bootstrap_intervals(&data, 300, resample, 11, 0.95, &never).expect("never cancelled");
        assert_eq!(a, b, "same seed, same intervals");
        let c =
            bootstrap_intervals(&data, 300, resample, 12, 0.95, &never).expect("never cancelled");
        assert_ne!(a, c, "another seed draws other samples");
        for e in &a {
            assert!(
                e.interval.lower <= e.value && e.value <= e.interval.upper,
                "{resample:?} {}: {} not in [{}, {}]",
                e.name,
                e.value,
                e.interval.lower,
                e.interval.upper
            );
            assert!(e.interval.lower < e.interval.upper, "{}", e.name);
        }
    }
}

/// Ctrl-C (the flag set) stops both bootstraps with `Interrupted`, which the verbs turn into
/// exit 130 and no output; without samples there is nothing to stop.
#[test]
fn a_set_cancel_flag_stops_the_bootstraps() {
    let data = noisy(10, 6, 2);
    let cancelled = AtomicBool::new(true);
    let err = bootstrap_intervals(&data, 100, Resample::Both, 1, 0.95, &cancelled)
        .expect_err("cancelled");
    assert!(err.is::<aesop::output::Interrupted>(), "{err:#}");
    let err = compare_metrics(&data, &data, 100, 1, &cancelled).expect_err("cancelled");
    assert!(err.is::<aesop::output::Interrupted>(), "{err:#}");
    let points = bootstrap_intervals(&data, 0, Resample::Both, 1, 0.95, &cancelled)
        .expect("no samples to stop");
    assert!(points.iter().any(|e| e.value.is_finite()));
}

#[test]
fn paired_comparison_prefers_the_better_metric() {
    // Metric A tracks the humans closely; B is A plus heavy noise.
    let a = noisy(30, 8, 5);
    let mut rng = aesop::rng::SplitMix64::new(99);
    let mut b = a.clone();
    for cell in b.cells.iter_mut().flatten().flatten() {
        cell.metric += 3.0 * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
    }
    let never = AtomicBool::new(false);
    let results = compare_metrics(&a, &b, 500, 7, &never).expect("same rows");
    let summary_tau = results
        .iter()
        .find(|r| r.name == "summary.kendall")
        .expect("statistic");
    assert!(summary_tau.difference > 0.0);
    assert!(summary_tau.bootstrap_a_wins > 0.95, "{summary_tau:?}");
    assert!(summary_tau.permutation_p < 0.05, "{summary_tau:?}");
    // Identical metrics: never strictly better, and every permutation is as extreme.
    let same = compare_metrics(&a, &a, 200, 7, &never).expect("same rows");
    for r in &same {
        assert_eq!(r.bootstrap_a_wins, 0.0, "{}", r.name);
        assert_eq!(r.permutation_p, 1.0, "{}", r.name);
    }
}

#[test]
fn discriminative_power_counts_pairs() {
    // A metric equal to the human score agrees on every pair.
    let mut data = noisy(25, 6, 8);
    for cell in data.cells.iter_mut().flatten().flatten() {
        cell.metric = cell.human;
    }
    let d = discriminative_power(&data, 0.05);
    assert_eq!(d.pairs, 15);
    assert_eq!(d.agreements, 15);
    assert_eq!(d.disagreements, 0);
    // Reversing the metric turns every significant agreement into an opposite direction.
    let significant = d.both_significant_same_direction;
    assert!(significant > 0);
    for cell in data.cells.iter_mut().flatten().flatten() {
        cell.metric = -cell.human;
    }
    let r = discriminative_power(&data, 0.05);
    assert_eq!(r.both_significant_opposite_direction, significant);
    assert_eq!(r.neither_significant, d.neither_significant);
}
