//! Resampling statistics: percentile-bootstrap confidence intervals (resampling systems, topics
//! or both, Deutsch, Dror & Roth 2021), the paired comparison of two metrics (Koehn 2004 paired
//! bootstrap over topics and a paired permutation test) and the discriminative-power table of
//! NIST AESOP (paired Wilcoxon tests between systems, under the metric and under the humans).
//!
//! Everything random draws from [`SeededRng`], so a seed fixes every number in a report. The
//! draws are made in order from one generator and only the statistics of each draw run in
//! parallel ([`for_each_draw`]), so the figures do not depend on the number of threads.

use super::levels::{level_statistics, Aligned, Cell, STATISTIC_NAMES};
use super::wilcoxon::wilcoxon_signed_rank;
use aesop_core::output::Interrupted;
use anyhow::{bail, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::AtomicBool;

use aesop_core::rng::SplitMix64 as SeededRng;

/// What a bootstrap sample redraws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Resample {
    Systems,
    Topics,
    Both,
}

impl std::str::FromStr for Resample {
    type Err = anyhow::Error;

    /// The names `--resample` takes (and the report writes): `systems`, `topics`, `both`.
    fn from_str(name: &str) -> anyhow::Result<Self> {
        match name {
            "systems" => Ok(Resample::Systems),
            "topics" => Ok(Resample::Topics),
            "both" => Ok(Resample::Both),
            other => anyhow::bail!("resample: {other:?} is none of systems, topics, both"),
        }
    }
}

/// A percentile interval and how many samples defined the statistic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub lower: f64,
    pub upper: f64,
    /// Samples where the statistic was defined (NaN samples are left out).
    pub samples: usize,
}

/// One statistic with its point estimate and interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub name: &'static str,
    pub value: f64,
    pub interval: Interval,
}

/// The most bootstrap samples a report draws. Percentile intervals settle to two decimals
/// within 10,000 samples (ten seconds on 2,400 summaries); a count past this is a typo, and
/// its draws were reserved up front: `--bootstrap 1000000000000` asked for 8 TB and ran until
/// killed (stop 93).
pub const MAX_SAMPLES: usize = 1_000_000;

/// `--bootstrap`'s range, checked where the flag is parsed (exit 2, before any input is read).
#[cfg(feature = "cli")]
pub fn samples_parser() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_SAMPLES as u64)
}

/// [`MAX_SAMPLES`] for callers that did not parse the flag (the library, the Python package).
pub fn check_samples(samples: usize) -> Result<()> {
    if samples > MAX_SAMPLES {
        anyhow::bail!(
            "--bootstrap: at most {MAX_SAMPLES} samples, got {samples} (intervals settle to two \
             decimals within 10,000)"
        );
    }
    Ok(())
}

/// Point estimates with percentile-bootstrap intervals for every statistic of
/// [`STATISTIC_NAMES`]. Stops with [`Interrupted`] once `cancel` is set (Ctrl-C): at 10,000
/// samples on a set of 2,400 summaries the draws take some ten seconds on two cores.
pub fn bootstrap_intervals(
    data: &Aligned,
    samples: usize,
    resample: Resample,
    seed: u64,
    confidence: f64,
    cancel: &AtomicBool,
) -> Result<Vec<Estimate>> {
    check_samples(samples)?;
    let point = level_statistics(data, &data.all_topics(), &data.all_systems()).values();
    let mut rng = SeededRng::new(seed);
    let mut draws: Vec<Vec<f64>> = vec![Vec::with_capacity(samples); STATISTIC_NAMES.len()];
    for_each_draw(
        samples,
        cancel,
        || draw(data, resample, &mut rng),
        || (),
        |(), (topics, systems)| level_statistics(data, topics, systems).values(),
        |values| {
            for (slot, v) in draws.iter_mut().zip(values) {
                if !v.is_nan() {
                    slot.push(v);
                }
            }
        },
    )?;
    Ok(STATISTIC_NAMES
        .iter()
        .zip(point)
        .zip(draws)
        .map(|((&name, value), mut values)| Estimate {
            name,
            value,
            interval: percentile_interval(&mut values, confidence),
        })
        .collect())
}

/// Draws made per round of [`for_each_draw`]: enough to keep every thread busy, few enough that
/// Ctrl-C is answered within a fraction of a second and the draws' indices take little memory
/// whatever `--bootstrap` asks for.
const DRAWS_PER_ROUND: usize = 512;

/// For `samples` draws: make each with `make_draw`, in order (they share one random generator),
/// compute `statistics` of a round of draws in parallel (each thread with its own `scratch`),
/// and hand the results to `consume` in the order of the draws. So the figures are those of a
/// sequential loop, on any number of threads. Stops with [`Interrupted`] once `cancel` is set.
fn for_each_draw<D: Sync, S, V: Send>(
    samples: usize,
    cancel: &AtomicBool,
    mut make_draw: impl FnMut() -> D,
    scratch: impl Fn() -> S + Sync + Send,
    statistics: impl Fn(&mut S, &D) -> V + Sync + Send,
    mut consume: impl FnMut(V),
) -> Result<()> {
    let mut done = 0;
    while done < samples {
        Interrupted::check(cancel)?;
        let round = DRAWS_PER_ROUND.min(samples - done);
        let draws: Vec<D> = (0..round).map(|_| make_draw()).collect();
        let values: Vec<V> = draws
            .par_iter()
            .map_init(&scratch, |s, d| statistics(s, d))
            .collect();
        values.into_iter().for_each(&mut consume);
        done += round;
    }
    Ok(())
}

/// Indices of one bootstrap sample.
fn draw(data: &Aligned, resample: Resample, rng: &mut SeededRng) -> (Vec<usize>, Vec<usize>) {
    let with_replacement =
        |n: usize, rng: &mut SeededRng| (0..n).map(|_| rng.below(n)).collect::<Vec<_>>();
    let (nt, ns) = (data.topics.len(), data.systems.len());
    match resample {
        Resample::Systems => (data.all_topics(), with_replacement(ns, rng)),
        Resample::Topics => (with_replacement(nt, rng), data.all_systems()),
        Resample::Both => {
            let topics = with_replacement(nt, rng);
            (topics, with_replacement(ns, rng))
        }
    }
}

/// The central `confidence` interval of `values` by linear interpolation between order
/// statistics (numpy's default percentile). NaN bounds when there are no values.
pub fn percentile_interval(values: &mut [f64], confidence: f64) -> Interval {
    values.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    Interval {
        lower: quantile(values, tail),
        upper: quantile(values, 1.0 - tail),
        samples: values.len(),
    }
}

/// Quantile `q` of sorted values, linear interpolation.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let position = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let below = position.floor() as usize;
            let above = (below + 1).min(n - 1);
            let fraction = position - below as f64;
            sorted[below] + fraction * (sorted[above] - sorted[below])
        }
    }
}

/// One statistic compared between metric A and metric B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedComparison {
    pub name: &'static str,
    pub a: f64,
    pub b: f64,
    /// a − b on the full data.
    pub difference: f64,
    /// Koehn 2004: share of topic-bootstrap samples in which A is strictly better than B
    /// (among samples where both are defined).
    pub bootstrap_a_wins: f64,
    /// Paired permutation test, two-sided: share of permutations (plus the observed one) whose
    /// |a − b| is at least the observed |a − b|.
    pub permutation_p: f64,
}

/// Two metrics on the same rows: `a` and `b` must have the same topics, systems and present
/// cells, with the same human scores (build both from the rows all three sources share).
/// Stops with [`Interrupted`] once `cancel` is set, as [`bootstrap_intervals`] does.
pub fn compare_metrics(
    a: &Aligned,
    b: &Aligned,
    samples: usize,
    seed: u64,
    cancel: &AtomicBool,
) -> Result<Vec<PairedComparison>> {
    check_samples(samples)?;
    check_same_rows(a, b)?;
    let all_topics = a.all_topics();
    let all_systems = a.all_systems();
    let point_a = level_statistics(a, &all_topics, &all_systems).values();
    let point_b = level_statistics(b, &all_topics, &all_systems).values();

    // Koehn: redraw topics, evaluate both metrics on the same draw.
    let mut rng = SeededRng::new(seed);
    let mut wins = [0usize; STATISTIC_NAMES.len()];
    let mut defined = [0usize; STATISTIC_NAMES.len()];
    for_each_draw(
        samples,
        cancel,
        || -> Vec<usize> {
            (0..all_topics.len())
                .map(|_| rng.below(all_topics.len()))
                .collect()
        },
        || (),
        |(), topics| {
            (
                level_statistics(a, topics, &all_systems).values(),
                level_statistics(b, topics, &all_systems).values(),
            )
        },
        |(va, vb)| {
            for k in 0..STATISTIC_NAMES.len() {
                if !va[k].is_nan() && !vb[k].is_nan() {
                    defined[k] += 1;
                    if va[k] > vb[k] {
                        wins[k] += 1;
                    }
                }
            }
        },
    )?;

    // Permutation: for each topic, swap the two metrics' scores with probability 1/2. The
    // scores are z-normalized first (over all rows) so that swapping compares like with like
    // for the scale-dependent statistics (Pearson, means); rank statistics are unaffected.
    let (za, zb) = (standardized(a), standardized(b));
    let observed: Vec<f64> = point_a.iter().zip(&point_b).map(|(x, y)| x - y).collect();
    let mut rng = SeededRng::new(seed ^ 0x5045_524D_5554_4521);
    let mut at_least = [0usize; STATISTIC_NAMES.len()];
    for_each_draw(
        samples,
        cancel,
        || -> Vec<bool> { (0..all_topics.len()).map(|_| rng.coin()).collect() },
        || (za.clone(), zb.clone()),
        |(permuted_a, permuted_b), swaps| {
            for (t, &swap) in swaps.iter().enumerate() {
                let (src_a, src_b) = if swap { (&zb, &za) } else { (&za, &zb) };
                permuted_a.cells[t].clone_from(&src_a.cells[t]);
                permuted_b.cells[t].clone_from(&src_b.cells[t]);
            }
            (
                level_statistics(permuted_a, &all_topics, &all_systems).values(),
                level_statistics(permuted_b, &all_topics, &all_systems).values(),
            )
        },
        |(va, vb)| {
            for k in 0..STATISTIC_NAMES.len() {
                let d = va[k] - vb[k];
                // Tiny tolerance: the identity permutation must count as "at least as extreme".
                if !d.is_nan() && d.abs() >= observed[k].abs() - 1e-12 {
                    at_least[k] += 1;
                }
            }
        },
    )?;

    Ok((0..STATISTIC_NAMES.len())
        .map(|k| PairedComparison {
            name: STATISTIC_NAMES[k],
            a: point_a[k],
            b: point_b[k],
            difference: observed[k],
            bootstrap_a_wins: if defined[k] > 0 {
                wins[k] as f64 / defined[k] as f64
            } else {
                f64::NAN
            },
            permutation_p: if observed[k].is_nan() || samples == 0 {
                f64::NAN
            } else {
                (at_least[k] + 1) as f64 / (samples + 1) as f64
            },
        })
        .collect())
}

fn check_same_rows(a: &Aligned, b: &Aligned) -> Result<()> {
    if a.topics != b.topics || a.systems != b.systems {
        bail!("the two metrics must be evaluated on the same topics and systems");
    }
    for (ra, rb) in a.cells.iter().zip(&b.cells) {
        for (ca, cb) in ra.iter().zip(rb) {
            match (ca, cb) {
                (None, None) => {}
                (Some(x), Some(y)) if x.human == y.human => {}
                _ => bail!("the two metrics must be evaluated on the same rows"),
            }
        }
    }
    Ok(())
}

/// Metric scores as z-scores over all rows (unchanged when the metric is constant).
fn standardized(data: &Aligned) -> Aligned {
    let values: Vec<f64> = data
        .cells
        .iter()
        .flatten()
        .flatten()
        .map(|c| c.metric)
        .collect();
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    let mut out = data.clone();
    if sd > 0.0 {
        for cell in out.cells.iter_mut().flatten().flatten() {
            cell.metric = (cell.metric - mean) / sd;
        }
    }
    out
}

/// The discriminative-power table: for each pair of systems, is the difference significant
/// under the metric and under the humans (paired Wilcoxon over the topics both systems have)?
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscriminativePower {
    pub alpha: f64,
    /// System pairs tested (pairs with no shared topic are not counted).
    pub pairs: usize,
    /// Both significant, same direction.
    pub both_significant_same_direction: usize,
    /// Neither significant.
    pub neither_significant: usize,
    /// The metric finds a significant difference the humans do not.
    pub metric_only: usize,
    /// The humans find a significant difference the metric does not.
    pub human_only: usize,
    /// Both significant, opposite directions (the worst disagreement).
    pub both_significant_opposite_direction: usize,
    /// both_significant_same_direction + neither_significant.
    pub agreements: usize,
    /// metric_only + human_only + both_significant_opposite_direction.
    pub disagreements: usize,
}

/// Build the table. A side with no non-zero difference (identical scores on every shared topic)
/// counts as not significant.
pub fn discriminative_power(data: &Aligned, alpha: f64) -> DiscriminativePower {
    let mut table = DiscriminativePower {
        alpha,
        pairs: 0,
        both_significant_same_direction: 0,
        neither_significant: 0,
        metric_only: 0,
        human_only: 0,
        both_significant_opposite_direction: 0,
        agreements: 0,
        disagreements: 0,
    };
    let ns = data.systems.len();
    for i in 0..ns {
        for j in i + 1..ns {
            let shared: Vec<(Cell, Cell)> = data
                .cells
                .iter()
                .filter_map(|row| Some((row[i]?, row[j]?)))
                .collect();
            if shared.is_empty() {
                continue;
            }
            table.pairs += 1;
            let metric_d: Vec<f64> = shared.iter().map(|(x, y)| x.metric - y.metric).collect();
            let human_d: Vec<f64> = shared.iter().map(|(x, y)| x.human - y.human).collect();
            let significant_direction = |d: &[f64]| {
                wilcoxon_signed_rank(d)
                    .filter(|w| w.p_value < alpha)
                    .map(|w| w.direction())
            };
            match (
                significant_direction(&metric_d),
                significant_direction(&human_d),
            ) {
                (Some(m), Some(h)) if m == h => table.both_significant_same_direction += 1,
                (Some(_), Some(_)) => table.both_significant_opposite_direction += 1,
                (Some(_), None) => table.metric_only += 1,
                (None, Some(_)) => table.human_only += 1,
                (None, None) => table.neither_significant += 1,
            }
        }
    }
    table.agreements = table.both_significant_same_direction + table.neither_significant;
    table.disagreements =
        table.metric_only + table.human_only + table.both_significant_opposite_direction;
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_interpolates_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], [2.5, 97.5]) = [1.075, 3.925]
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        let i = percentile_interval(&mut v, 0.95);
        assert!((i.lower - 1.075).abs() < 1e-12 && (i.upper - 3.925).abs() < 1e-12);
    }

    /// The draws are made in order and only their statistics run in parallel, so one thread and
    /// several give the same figures, over more than two rounds of draws with a partial last one.
    #[test]
    fn the_figures_do_not_depend_on_the_number_of_threads() {
        use crate::levels::ScoreRow;
        let mut rng = SeededRng::new(3);
        let mut rows = Vec::new();
        for t in 0..12 {
            for s in 0..7 {
                let human = (rng.below(50) as f64) / 10.0;
                rows.push(ScoreRow {
                    topic: format!("t{t}"),
                    system: format!("s{s}"),
                    metric: human + (rng.below(30) as f64) / 10.0,
                    human,
                    words: Some(20 + rng.below(5)),
                });
            }
        }
        let a = Aligned::new(&rows).expect("rows");
        for row in &mut rows {
            row.metric = -row.metric + (rng.below(40) as f64) / 10.0;
        }
        let b = Aligned::new(&rows).expect("rows");
        let never = AtomicBool::new(false);
        let figures = || {
            let intervals: Vec<Vec<Estimate>> =
                [Resample::Systems, Resample::Topics, Resample::Both]
                    .into_iter()
                    .map(|r| bootstrap_intervals(&a, 1100, r, 5, 0.95, &never).expect("intervals"))
                    .collect();
            (
                intervals,
                compare_metrics(&a, &b, 1100, 5, &never).expect("comparison"),
            )
        };
        let on = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool")
                .install(figures)
        };
        let one = on(1);
        assert_eq!(one, on(3));
        assert!(one
            .1
            .iter()
            .any(|c| c.permutation_p < 1.0 && c.bootstrap_a_wins > 0.0));
    }

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let mut a = SeededRng::new(7);
        let mut b = SeededRng::new(7);
        for _ in 0..1000 {
            let x = a.below(13);
            assert_eq!(x, b.below(13));
            assert!(x < 13);
        }
    }
}
