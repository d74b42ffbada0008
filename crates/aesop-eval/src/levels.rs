//! Correlation levels and pairwise accuracies of a metric against human scores.
//!
//! The rows are laid out as a topic × system grid ([`Aligned`]) so that the bootstrap can
//! evaluate a resampled list of topic and system indices (with repeats) without copying data.
//!
//! - Summary level: within each topic, correlate metric and human over that topic's systems;
//!   average over the topics where the coefficient is defined (at least two summaries and
//!   neither variable constant — the three coefficients are undefined in exactly these cases).
//! - System level: correlate per-system means over the topics where the system has a row.
//! - Global: every row pooled.
//! - System-level pairwise accuracy: for each pair of systems whose human means differ, does the
//!   metric order their means the same way? Pairs tied in the human means are left out (there is
//!   no order to reproduce); pairs the metric ties count as wrong (the metric failed to order
//!   them), as in Kocmi et al. 2021. Input-level: the same over pairs of summaries within each
//!   topic, pooled over topics.
//! - Input-level accuracy with ties, tie-calibrated (Deutsch, Foster & Freitag 2023, "Ties
//!   Matter"): over every pair of summaries within a topic, human ties included, a pair is right
//!   when the metric orders it as the humans do or ties it where they tie; the metric ties a
//!   pair when its values differ by at most ε, and ε is the value that makes the most pairs
//!   right. τ-b rewards a metric that ties where the annotators tie and the other two accuracies
//!   cannot credit a tie at all; this one scores coarse and continuous metrics alike.

use super::correlation::{is_constant, kendall_tau_b, pearson, spearman};
use anyhow::{bail, Result};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// One summary's metric score and human score.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRow {
    pub topic: String,
    pub system: String,
    pub metric: f64,
    pub human: f64,
    /// Words of the summary, where known (the statistics at matched length need it).
    pub words: Option<usize>,
}

/// Metric and human score of one (topic, system) cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub metric: f64,
    pub human: f64,
    /// Words of the summary, where known.
    pub words: Option<usize>,
}

/// Two summaries are of matched length when their word counts differ by at most this share of
/// the longer one (`evaluate --length-tolerance`).
pub const DEFAULT_LENGTH_TOLERANCE: f64 = 0.1;

/// `--length-tolerance` (of `evaluate`, `cross-validate` and `ablate`) must be a share: 0 keeps
/// pairs of equal word counts only, 1 every pair.
pub fn check_length_tolerance(tolerance: f64) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&tolerance) {
        anyhow::bail!(
            "--length-tolerance must be between 0 and 1 (a share of the longer summary's words), got {tolerance}"
        );
    }
    Ok(())
}

/// Rows as a topic × system grid; `cells[t][s]` is `None` where that system has no summary.
#[derive(Debug, Clone)]
pub struct Aligned {
    pub topics: Vec<String>,
    pub systems: Vec<String>,
    pub cells: Vec<Vec<Option<Cell>>>,
    /// What counts as matched length ([`DEFAULT_LENGTH_TOLERANCE`] unless set).
    pub length_tolerance: f64,
}

impl Aligned {
    /// Lay out rows with topics and systems in sorted order of their ids, whatever the order of
    /// the rows: the bootstrap resamples these indices, so numbering them by first appearance
    /// made a set with its lines re-sorted give other intervals under the same seed. A repeated
    /// (topic, system) is an error: the levels would silently weigh that summary twice.
    pub fn new(rows: &[ScoreRow]) -> Result<Aligned> {
        for row in rows {
            if !row.metric.is_finite() || !row.human.is_finite() {
                bail!(
                    "topic {:?}, system {:?}: scores must be finite (metric {}, human {})",
                    row.topic,
                    row.system,
                    row.metric,
                    row.human
                );
            }
        }
        let sorted_ids = |id: fn(&ScoreRow) -> &str| -> Vec<String> {
            let ids: std::collections::BTreeSet<&str> = rows.iter().map(id).collect();
            ids.into_iter().map(str::to_string).collect()
        };
        let topics = sorted_ids(|row| &row.topic);
        let systems = sorted_ids(|row| &row.system);
        let index = |ids: &[String]| -> HashMap<String, usize> {
            ids.iter()
                .enumerate()
                .map(|(i, id)| (id.clone(), i))
                .collect()
        };
        let (topic_index, system_index) = (index(&topics), index(&systems));
        let mut cells = vec![vec![None; systems.len()]; topics.len()];
        for row in rows {
            let (t, s) = (
                topic_index[row.topic.as_str()],
                system_index[row.system.as_str()],
            );
            if cells[t][s].is_some() {
                bail!(
                    "topic {:?}, system {:?} appears twice",
                    row.topic,
                    row.system
                );
            }
            cells[t][s] = Some(Cell {
                metric: row.metric,
                human: row.human,
                words: row.words,
            });
        }
        Ok(Aligned {
            topics,
            systems,
            cells,
            length_tolerance: DEFAULT_LENGTH_TOLERANCE,
        })
    }

    /// Number of (topic, system) cells with a row.
    pub fn row_count(&self) -> usize {
        self.cells.iter().flatten().filter(|c| c.is_some()).count()
    }

    pub fn all_topics(&self) -> Vec<usize> {
        (0..self.topics.len()).collect()
    }

    pub fn all_systems(&self) -> Vec<usize> {
        (0..self.systems.len()).collect()
    }

    /// Per-system (metric mean, human mean) over the given topics, for each listed system;
    /// `None` for a system with no row in those topics. Means that differ only by rounding
    /// noise are made equal ([`merge_near_ties`]): two systems whose human scores average to
    /// 22/5 came out as 4.4 and 4.3999999999999995, a pair the humans tie counted as ordered,
    /// and which way round depended on the order of addition.
    pub fn system_means(&self, topics: &[usize], systems: &[usize]) -> Vec<Option<(f64, f64)>> {
        let means = systems
            .iter()
            .map(|&s| {
                let (mut sum_m, mut sum_h, mut n) = (0.0, 0.0, 0usize);
                for &t in topics {
                    if let Some(c) = self.cells[t][s] {
                        sum_m += c.metric;
                        sum_h += c.human;
                        n += 1;
                    }
                }
                (n > 0).then(|| (sum_m / n as f64, sum_h / n as f64))
            })
            .collect::<Vec<_>>();
        let (mut metric, mut human): (Vec<f64>, Vec<f64>) = means.iter().flatten().copied().unzip();
        merge_near_ties(&mut metric);
        merge_near_ties(&mut human);
        let mut merged = metric.into_iter().zip(human);
        means
            .into_iter()
            .map(|m| m.and_then(|_| merged.next()))
            .collect()
    }
}

/// Which topics the summary level averages over, and why the others add no coefficient. A
/// metric that gives every summary of a topic one value ranks nothing there; the topic is left
/// out of the mean rather than counted as a failure, so a metric that abstains on the topics it
/// would get wrong can average above one that ranks every topic (a connective feature defined in
/// 3 of DialSummEval's 100 topics reached τ .40). The report says so whenever it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SummaryCoverage {
    /// Topics with at least two summaries whose human scores are not all equal: the topics a
    /// metric could be judged on.
    pub ranked_by_humans: usize,
    /// Of those, the topics where the metric gives every summary the same value.
    pub metric_constant: usize,
    /// Topics with at least two summaries that the annotators all score alike (no coefficient
    /// whatever the metric does).
    pub human_constant: usize,
}

impl SummaryCoverage {
    pub fn of(data: &Aligned) -> SummaryCoverage {
        let mut coverage = SummaryCoverage {
            ranked_by_humans: 0,
            metric_constant: 0,
            human_constant: 0,
        };
        for row in &data.cells {
            let (metric, human): (Vec<f64>, Vec<f64>) =
                row.iter().flatten().map(|c| (c.metric, c.human)).unzip();
            if human.len() < 2 {
                continue;
            }
            if is_constant(&human) {
                coverage.human_constant += 1;
                continue;
            }
            coverage.ranked_by_humans += 1;
            if is_constant(&metric) {
                coverage.metric_constant += 1;
            }
        }
        coverage
    }

    /// Topics the summary-level mean is over.
    pub fn ranked_by_metric(&self) -> usize {
        self.ranked_by_humans - self.metric_constant
    }

    /// A warning when the metric ranks no summary in at least 5 % of the topics the annotators
    /// rank (the share below which `cross-validate`'s best single feature still takes a
    /// feature), `None` otherwise.
    pub fn warning(&self) -> Option<String> {
        if self.metric_constant == 0 || 20 * self.metric_constant < self.ranked_by_humans {
            return None;
        }
        Some(format!(
            "the metric gives every summary the same value in {} of the {} topics the annotators \
             rank ({:.0}%): the summary-level figures are means over the other {} topics only, \
             which favours a metric that abstains; input-level pairwise accuracy counts its ties \
             as wrong",
            self.metric_constant,
            self.ranked_by_humans,
            100.0 * self.metric_constant as f64 / self.ranked_by_humans as f64,
            self.ranked_by_metric()
        ))
    }
}

/// The share of a set's summaries a metric must give a value for, and of the topics whose
/// summaries the humans rank that it must rank, to count as a metric for that set (as
/// `cross-validate`'s best single feature, or a ranked row of `evaluate --features`). Left out
/// of the statistics, a missing value cannot count against a feature, nor can a topic where the
/// feature ties every summary, so in hindsight a feature that ranks a few summaries wins: an
/// entity-grid transition that only Newsroom's few multi-sentence summaries have reached τ 1.000
/// there, and a connective feature defined in 3 of DialSummEval's 100 topics .400. A feature
/// that cannot rank the summaries of one topic in twenty is not a metric for that set.
pub const METRIC_MIN_COVERAGE: f64 = 0.95;

/// Whether a metric with a value for `present` of the set's `rows` summaries, ranking the
/// summaries of `ranked_topics` of the `ranked_by_humans` topics the humans rank, covers the
/// set by [`METRIC_MIN_COVERAGE`].
pub fn covers_the_set(
    present: usize,
    rows: usize,
    ranked_topics: usize,
    ranked_by_humans: usize,
) -> bool {
    ranked_topics > 0
        && present as f64 >= METRIC_MIN_COVERAGE * rows as f64
        && ranked_topics as f64 >= METRIC_MIN_COVERAGE * ranked_by_humans as f64
}

/// The single column that judgments on some sets pick: among the columns that cover every set
/// (`taus[set][column]`: the column's summary-level τ as it reads, `None` where it does not
/// cover that set), the one whose mean τ over the sets `judged_on` is largest in absolute
/// value (the first column among equals), read negated where that mean is below zero. Returns
/// (column, negated, the mean read that way round). Judged on the set it is then scored on, it
/// is the best single feature in hindsight; judged on every other set, the one protocol 2
/// (leave one set out) chooses.
pub fn best_single_column(
    taus: &[Vec<Option<f64>>],
    judged_on: &[usize],
) -> Option<(usize, bool, f64)> {
    if judged_on.is_empty() {
        return None;
    }
    let columns = taus.iter().map(Vec::len).min().unwrap_or(0);
    let mut best: Option<(usize, bool, f64)> = None;
    for c in 0..columns {
        if taus.iter().any(|set| set[c].is_none()) {
            continue;
        }
        let mean = judged_on
            .iter()
            .map(|&s| taus[s][c].unwrap_or(f64::NAN))
            .sum::<f64>()
            / judged_on.len() as f64;
        if best.is_none_or(|(_, _, b)| mean.abs() > b) {
            best = Some((c, mean < 0.0, mean.abs()));
        }
    }
    best
}

/// Values within 1e-12 (relative) of their neighbour in sorted order take the smallest value of
/// their group: rounding noise of a sum (1e-16 relative) no longer orders means that are equal,
/// and every other value is left exactly as it was (so Pearson's r does not move).
pub fn merge_near_ties(values: &mut [f64]) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    for k in 1..order.len() {
        let (previous, current) = (values[order[k - 1]], values[order[k]]);
        if (current - previous).abs() <= 1e-12 * previous.abs().max(current.abs()) {
            values[order[k]] = previous;
        }
    }
}

/// Pearson r, Spearman ρ and Kendall τ-b of one level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Correlations {
    pub pearson: f64,
    pub spearman: f64,
    pub kendall: f64,
}

impl Correlations {
    fn of(x: &[f64], y: &[f64]) -> Correlations {
        Correlations {
            pearson: pearson(x, y),
            spearman: spearman(x, y),
            kendall: kendall_tau_b(x, y),
        }
    }

    const NAN: Correlations = Correlations {
        pearson: f64::NAN,
        spearman: f64::NAN,
        kendall: f64::NAN,
    };
}

/// Share of pairs the metric orders as the humans do, with what was counted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairwiseAccuracy {
    /// `correct / pairs`; NaN when no pair has distinct human scores.
    pub accuracy: f64,
    /// Pairs with distinct human scores (the denominator).
    pub pairs: usize,
    pub correct: usize,
    /// Pairs left out because the human scores tie.
    pub human_ties: usize,
    /// Counted pairs the metric ties (counted as wrong).
    pub metric_ties: usize,
}

impl PairwiseAccuracy {
    fn new() -> PairwiseAccuracy {
        PairwiseAccuracy {
            accuracy: f64::NAN,
            pairs: 0,
            correct: 0,
            human_ties: 0,
            metric_ties: 0,
        }
    }

    fn add(&mut self, metric_a: f64, human_a: f64, metric_b: f64, human_b: f64) {
        let human = human_a.total_cmp(&human_b);
        if human.is_eq() {
            self.human_ties += 1;
            return;
        }
        self.pairs += 1;
        let metric = metric_a.total_cmp(&metric_b);
        if metric.is_eq() {
            self.metric_ties += 1;
        } else if metric == human {
            self.correct += 1;
        }
    }

    fn finish(mut self) -> PairwiseAccuracy {
        if self.pairs > 0 {
            self.accuracy = self.correct as f64 / self.pairs as f64;
        }
        self
    }
}

/// Input-level accuracy with ties and tie calibration (acc_eq with ε*, Deutsch et al. 2023).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TieCalibratedAccuracy {
    /// Share of pairs right at `epsilon`; NaN when there is no pair.
    pub accuracy: f64,
    /// The metric's tie threshold: two summaries whose metric values differ by at most this
    /// count as tied. The smallest of the thresholds that give `accuracy`.
    pub epsilon: f64,
    /// Pairs of summaries within a topic, human ties included (pairs of a system with its own
    /// bootstrap copy are left out).
    pub pairs: usize,
    /// Of those, the pairs the annotators tie.
    pub human_ties: usize,
}

/// Collects the within-topic pairs of [`TieCalibratedAccuracy`]. Only two kinds of pair change
/// with the threshold: a pair the annotators tie is right once the metric ties it (gap ≤ ε), a
/// pair the metric orders as they do is right until then (gap > ε); the others are wrong at
/// every ε and are only counted.
#[derive(Debug, Default)]
struct TieCalibration {
    /// One key a pair of those two kinds: `gap.to_bits() << 1 | human_tie`. A non-negative
    /// float's bits order as its value and leave the top bit free, so one integer sort orders
    /// the gaps (the statistic is recomputed in every bootstrap sample: this sort is its cost).
    keys: Vec<u64>,
    pairs: usize,
    human_ties: usize,
    agreeing: usize,
}

impl TieCalibration {
    /// A pair by its metric and human differences.
    fn add(&mut self, metric_difference: f64, human_difference: f64) {
        self.pairs += 1;
        let human_tie = human_difference == 0.0;
        if human_tie {
            self.human_ties += 1;
        } else if metric_difference * human_difference > 0.0 {
            self.agreeing += 1;
        } else {
            return;
        }
        self.keys
            .push((metric_difference.abs().to_bits() << 1) | u64::from(human_tie));
    }

    /// The best accuracy over every threshold: 0 and each gap that occurs (between two
    /// consecutive gaps nothing changes). One sort, then one sweep.
    fn finish(mut self) -> TieCalibratedAccuracy {
        if self.pairs == 0 {
            return TieCalibratedAccuracy {
                accuracy: f64::NAN,
                epsilon: f64::NAN,
                pairs: 0,
                human_ties: 0,
            };
        }
        self.keys.sort_unstable();
        // Below every gap (ε = 0 when no gap is 0): no metric tie, every agreeing pair right.
        let mut right = self.agreeing;
        let (mut best, mut best_epsilon) = (right, 0.0);
        let mut k = 0;
        while k < self.keys.len() {
            let gap = self.keys[k] >> 1;
            while k < self.keys.len() && self.keys[k] >> 1 == gap {
                if self.keys[k] & 1 == 1 {
                    right += 1;
                } else {
                    right -= 1;
                }
                k += 1;
            }
            if right > best {
                (best, best_epsilon) = (right, f64::from_bits(gap));
            }
        }
        TieCalibratedAccuracy {
            accuracy: best as f64 / self.pairs as f64,
            epsilon: best_epsilon,
            pairs: self.pairs,
            human_ties: self.human_ties,
        }
    }
}

/// Every statistic of one evaluation, with the counts behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelStats {
    pub summary: Correlations,
    pub system: Correlations,
    pub global: Correlations,
    pub system_pairwise: PairwiseAccuracy,
    pub input_pairwise: PairwiseAccuracy,
    /// Input-level accuracy with ties, tie-calibrated.
    pub input_tie_calibrated: TieCalibratedAccuracy,
    /// Input-level pairwise accuracy over the pairs of matched length: what a metric orders
    /// beyond length, where length orders many pairs on its own (DialSummEval, SummEval-OP).
    /// No pair where the rows carry no lengths.
    pub input_length_matched: PairwiseAccuracy,
    /// The tolerance behind the matched pairs.
    pub length_tolerance: f64,
    /// Topics whose summary-level coefficients are defined (and averaged).
    pub summary_topics: usize,
    /// Systems with at least one row (the system-level n).
    pub systems: usize,
    /// Rows pooled at the global level.
    pub rows: usize,
}

/// Names of the scalar statistics, in the order of [`LevelStats::values`].
pub const STATISTIC_NAMES: [&str; 13] = [
    "summary.pearson",
    "summary.spearman",
    "summary.kendall",
    "system.pearson",
    "system.spearman",
    "system.kendall",
    "global.pearson",
    "global.spearman",
    "global.kendall",
    "system.pairwise_accuracy",
    "input.pairwise_accuracy",
    "input.tie_calibrated_accuracy",
    "input.length_matched_accuracy",
];

impl LevelStats {
    /// The scalar statistics, in the order of [`STATISTIC_NAMES`].
    pub fn values(&self) -> [f64; 13] {
        let c = |x: &Correlations| [x.pearson, x.spearman, x.kendall];
        let [a, b, cc] = c(&self.summary);
        let [d, e, f] = c(&self.system);
        let [g, h, i] = c(&self.global);
        [
            a,
            b,
            cc,
            d,
            e,
            f,
            g,
            h,
            i,
            self.system_pairwise.accuracy,
            self.input_pairwise.accuracy,
            self.input_tie_calibrated.accuracy,
            self.input_length_matched.accuracy,
        ]
    }
}

/// Whether summaries of `a` and `b` words are of matched length: within `tolerance` of the
/// longer. False where a count is unknown (NaN), so the pair loop of [`level_statistics`] needs
/// no branch on it.
fn matched_length(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.max(b)
}

/// Summary length (more words higher) judged as a metric by the input-level pairwise accuracy,
/// on every pair with lengths and on the pairs of matched length: how much length alone orders
/// on a set. Point estimates only (not a statistic of the bootstrap: it judges the set, not the
/// metric).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LengthAlone {
    pub all: PairwiseAccuracy,
    pub matched: PairwiseAccuracy,
    /// Whether any summary's length is known: not where the human scores came from a table
    /// without the summaries' texts.
    pub lengths_known: bool,
}

impl LengthAlone {
    pub fn of(data: &Aligned) -> LengthAlone {
        let (mut all, mut matched) = (PairwiseAccuracy::new(), PairwiseAccuracy::new());
        for row in &data.cells {
            let cells: Vec<(usize, f64)> = row
                .iter()
                .flatten()
                .filter_map(|c| c.words.map(|w| (w, c.human)))
                .collect();
            for (i, &(a, human_a)) in cells.iter().enumerate() {
                for &(b, human_b) in &cells[i + 1..] {
                    let (a, b) = (a as f64, b as f64);
                    all.add(a, human_a, b, human_b);
                    if matched_length(a, b, data.length_tolerance) {
                        matched.add(a, human_a, b, human_b);
                    }
                }
            }
        }
        let lengths_known = data
            .cells
            .iter()
            .flatten()
            .flatten()
            .any(|c| c.words.is_some());
        LengthAlone {
            all: all.finish(),
            matched: matched.finish(),
            lengths_known,
        }
    }
}

/// All statistics over every topic and system.
pub fn evaluate(data: &Aligned) -> LevelStats {
    level_statistics(data, &data.all_topics(), &data.all_systems())
}

/// All statistics over the listed topics and systems. Repeats are allowed (bootstrap samples):
/// a repeated topic counts again in every average, a repeated system is one more column.
pub fn level_statistics(data: &Aligned, topics: &[usize], systems: &[usize]) -> LevelStats {
    let mut summary_sum = [0.0; 3];
    let mut summary_topics = 0usize;
    let mut input_pairwise = PairwiseAccuracy::new();
    let mut tie_calibration = TieCalibration::default();
    let mut length_matched = PairwiseAccuracy::new();
    let (mut global_m, mut global_h) = (Vec::new(), Vec::new());
    let (mut topic_m, mut topic_h, mut topic_s) = (Vec::new(), Vec::new(), Vec::new());
    let mut topic_words = Vec::new();
    for &t in topics {
        topic_m.clear();
        topic_h.clear();
        topic_s.clear();
        topic_words.clear();
        for &s in systems {
            if let Some(c) = data.cells[t][s] {
                topic_m.push(c.metric);
                topic_h.push(c.human);
                topic_s.push(s);
                // NaN where unknown: such a pair is never matched ([`matched_length`]).
                topic_words.push(c.words.map_or(f64::NAN, |w| w as f64));
            }
        }
        for i in 0..topic_m.len() {
            for j in i + 1..topic_m.len() {
                input_pairwise.add(topic_m[i], topic_h[i], topic_m[j], topic_h[j]);
                if matched_length(topic_words[i], topic_words[j], data.length_tolerance) {
                    length_matched.add(topic_m[i], topic_h[i], topic_m[j], topic_h[j]);
                }
                // A system drawn twice by the bootstrap is tied with itself on both sides: a
                // pair that would count as a right tie.
                if topic_s[i] != topic_s[j] {
                    tie_calibration.add(topic_m[i] - topic_m[j], topic_h[i] - topic_h[j]);
                }
            }
        }
        global_m.extend_from_slice(&topic_m);
        global_h.extend_from_slice(&topic_h);
        let c = Correlations::of(&topic_m, &topic_h);
        // The three coefficients are undefined together (n < 2 or a constant vector, tested by
        // its values in each); a topic counts only where all three are defined, so the three
        // means are over the same topics.
        if ![c.pearson, c.spearman, c.kendall]
            .iter()
            .any(|v| v.is_nan())
        {
            summary_sum[0] += c.pearson;
            summary_sum[1] += c.spearman;
            summary_sum[2] += c.kendall;
            summary_topics += 1;
        }
    }
    let summary = if summary_topics > 0 {
        let n = summary_topics as f64;
        Correlations {
            pearson: summary_sum[0] / n,
            spearman: summary_sum[1] / n,
            kendall: summary_sum[2] / n,
        }
    } else {
        Correlations::NAN
    };

    let means: Vec<(f64, f64)> = data
        .system_means(topics, systems)
        .into_iter()
        .flatten()
        .collect();
    let (system_m, system_h): (Vec<f64>, Vec<f64>) = means.iter().copied().unzip();
    let mut system_pairwise = PairwiseAccuracy::new();
    for i in 0..means.len() {
        for j in i + 1..means.len() {
            system_pairwise.add(means[i].0, means[i].1, means[j].0, means[j].1);
        }
    }

    LevelStats {
        summary,
        system: Correlations::of(&system_m, &system_h),
        global: Correlations::of(&global_m, &global_h),
        system_pairwise: system_pairwise.finish(),
        input_pairwise: input_pairwise.finish(),
        input_tie_calibrated: tie_calibration.finish(),
        input_length_matched: length_matched.finish(),
        length_tolerance: data.length_tolerance,
        summary_topics,
        systems: means.len(),
        rows: global_m.len(),
    }
}

/// Summary-level Kendall τ-b of flat rows (one per summary, `topics` naming each row's topic):
/// within each topic, averaged over topics where it is defined (a topic whose human scores are
/// all tied has none); NaN when none is. Cross-validation reports use it on out-of-fold
/// predictions; [`level_statistics`] computes the same on the topic × system grid.
pub fn summary_level_tau(metric: &[f64], human: &[f64], topics: &[String]) -> f64 {
    let taus: Vec<f64> = per_topic_tau(metric, human, topics)
        .into_iter()
        .filter(|t| t.is_finite())
        .collect();
    if taus.is_empty() {
        f64::NAN
    } else {
        taus.iter().sum::<f64>() / taus.len() as f64
    }
}

/// Kendall τ-b within each topic of flat rows, in topic-name order: NaN for a topic where the
/// metric or the human scores are all tied (or that has one row).
pub fn per_topic_tau(metric: &[f64], human: &[f64], topics: &[String]) -> Vec<f64> {
    let mut by_topic: BTreeMap<&str, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for ((p, t), topic) in metric.iter().zip(human).zip(topics) {
        let entry = by_topic.entry(topic).or_default();
        entry.0.push(*p);
        entry.1.push(*t);
    }
    by_topic
        .values()
        .map(|(p, t)| kendall_tau_b(p, t))
        .collect()
}

/// System-level Kendall τ-b of flat rows: between each system's mean metric score and mean
/// human score (near ties merged, as in [`Aligned::system_means`]).
pub fn system_level_tau(metric: &[f64], human: &[f64], systems: &[String]) -> f64 {
    let mut by_system: BTreeMap<&str, (f64, f64, usize)> = BTreeMap::new();
    for ((p, t), s) in metric.iter().zip(human).zip(systems) {
        let e = by_system.entry(s).or_default();
        e.0 += p;
        e.1 += t;
        e.2 += 1;
    }
    let (mut p, mut t): (Vec<f64>, Vec<f64>) = by_system
        .values()
        .map(|(p, t, n)| (p / *n as f64, t / *n as f64))
        .unzip();
    merge_near_ties(&mut p);
    merge_near_ties(&mut t);
    kendall_tau_b(&p, &t)
}

#[cfg(test)]
mod best_single_column_tests {
    use super::best_single_column;

    /// Judged on some sets: the largest mean τ there in absolute value, read negated where that
    /// mean is below zero; a column that does not cover some set is never picked.
    #[test]
    fn the_column_is_picked_and_oriented_by_the_sets_it_is_judged_on() {
        let taus = vec![
            vec![Some(0.5), Some(-0.8), None],
            vec![Some(0.4), Some(-0.2), Some(0.9)],
            vec![Some(-0.1), Some(0.6), Some(0.9)],
        ];
        let pick = |judged_on: &[usize]| {
            let (column, negated, mean) = best_single_column(&taus, judged_on).expect("a pick");
            (column, negated, (mean * 1000.0).round() / 1000.0)
        };
        // Without set 0: a (.4 − .1) / 2 = .15, b (−.2 + .6) / 2 = .2; c lacks set 0.
        assert_eq!(pick(&[1, 2]), (1, false, 0.2));
        // Without set 1: a (.5 − .1) / 2 = .2, b (−.8 + .6) / 2 = −.1.
        assert_eq!(pick(&[0, 2]), (0, false, 0.2));
        // Without set 2: a .45, b −.5: b read negated.
        assert_eq!(pick(&[0, 1]), (1, true, 0.5));
        // On set 0 alone (hindsight): b, negated.
        assert_eq!(pick(&[0]), (1, true, 0.8));
        // Equal means: the first column.
        assert_eq!(
            best_single_column(&[vec![Some(0.3), Some(-0.3)]], &[0]),
            Some((0, false, 0.3))
        );
        let sparse = vec![vec![Some(0.5), None], vec![None, Some(0.5)]];
        assert_eq!(best_single_column(&sparse, &[1]), None);
        assert_eq!(best_single_column(&taus, &[]), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(topic: &str, system: &str, metric: f64, human: f64) -> ScoreRow {
        ScoreRow {
            words: None,
            topic: topic.into(),
            system: system.into(),
            metric,
            human,
        }
    }

    /// Audit stop 53: topics and systems were numbered by first appearance, so the same rows
    /// in another order gave other bootstrap intervals under the same seed.
    #[test]
    fn the_layout_and_the_bootstrap_do_not_depend_on_the_order_of_the_rows() {
        let mut rows = Vec::new();
        for t in 0..6 {
            for (s, system) in ["m2", "m10", "a", "z"].iter().enumerate() {
                let human = ((t * 7 + s * 3) % 5) as f64;
                rows.push(ScoreRow {
                    words: Some(10 + (t + s) % 2),
                    ..row(&format!("t{t}"), system, human + 0.1 * s as f64, human)
                });
            }
        }
        let mut reordered = rows.clone();
        reordered.reverse();
        reordered.swap(0, 7);
        let (a, b) = (
            Aligned::new(&rows).expect("rows"),
            Aligned::new(&reordered).expect("rows"),
        );
        assert_eq!(a.systems, ["a", "m10", "m2", "z"]);
        assert_eq!((&a.topics, &a.systems), (&b.topics, &b.systems));
        let intervals = |data: &Aligned| {
            crate::bootstrap::bootstrap_intervals(
                data,
                200,
                crate::bootstrap::Resample::Both,
                7,
                0.95,
                &std::sync::atomic::AtomicBool::new(false),
            )
            .expect("never cancelled")
        };
        assert_eq!(intervals(&a), intervals(&b));
    }

    #[test]
    fn duplicate_and_non_finite_rows_are_errors() {
        let dup = [row("t", "a", 1.0, 1.0), row("t", "a", 2.0, 2.0)];
        assert!(Aligned::new(&dup).is_err());
        assert!(Aligned::new(&[row("t", "a", f64::NAN, 1.0)]).is_err());
    }

    #[test]
    fn summary_coverage_counts_why_topics_have_no_coefficient() {
        let data = Aligned::new(&[
            // Ranked by both.
            row("T1", "A", 1.0, 1.0),
            row("T1", "B", 2.0, 2.0),
            // The metric ties; the humans do not.
            row("T2", "A", 3.0, 1.0),
            row("T2", "B", 3.0, 2.0),
            // The humans tie (whatever the metric does).
            row("T3", "A", 1.0, 4.0),
            row("T3", "B", 2.0, 4.0),
            // One summary: no pair at all.
            row("T4", "A", 1.0, 1.0),
        ])
        .expect("grid");
        let coverage = SummaryCoverage::of(&data);
        assert_eq!(
            coverage,
            SummaryCoverage {
                ranked_by_humans: 2,
                metric_constant: 1,
                human_constant: 1,
            }
        );
        assert_eq!(coverage.ranked_by_metric(), evaluate(&data).summary_topics);
        assert!(coverage
            .warning()
            .is_some_and(|w| w.contains("in 1 of the 2 topics")));
    }

    #[test]
    fn tie_calibrated_accuracy_by_hand() {
        // Humans 1, 1, 2, 3; metric 0, .1, .5, .4. Pairs: AB human tie (gap .1); AC, AD, BC, BD
        // agree (gaps .5, .4, .4, .3); CD reversed (gap ≈ .1). At ε 0: the 4 agreeing pairs.
        // At ε .1: AB becomes a right tie (CD a wrong one): 5 of 6. At ε .3 BD is lost.
        let data = Aligned::new(&[
            row("T1", "A", 0.0, 1.0),
            row("T1", "B", 0.1, 1.0),
            row("T1", "C", 0.5, 2.0),
            row("T1", "D", 0.4, 3.0),
        ])
        .expect("grid");
        let tied = evaluate(&data).input_tie_calibrated;
        assert_eq!(tied.pairs, 6);
        assert_eq!(tied.human_ties, 1);
        assert!((tied.accuracy - 5.0 / 6.0).abs() < 1e-12, "{tied:?}");
        assert_eq!(tied.epsilon, 0.1);
        // A constant metric ties every pair: right exactly where the humans tie.
        let constant = Aligned::new(&[
            row("T1", "A", 7.0, 1.0),
            row("T1", "B", 7.0, 1.0),
            row("T1", "C", 7.0, 2.0),
        ])
        .expect("grid");
        let tied = evaluate(&constant).input_tie_calibrated;
        assert!((tied.accuracy - 1.0 / 3.0).abs() < 1e-12, "{tied:?}");
        assert_eq!(tied.epsilon, 0.0);
    }

    /// The sweep against the definition: every candidate ε (0 and each gap), every pair
    /// classified afresh, on seeded grids with many ties on both sides.
    #[test]
    fn tie_calibrated_accuracy_matches_the_definition() {
        let mut rng = aesop_core::rng::SplitMix64::new(7);
        for _ in 0..50 {
            let mut rows = Vec::new();
            for t in 0..4 {
                for s in 0..6 {
                    let metric = (rng.next_u64() % 5) as f64 * 0.25;
                    let human = (rng.next_u64() % 3) as f64;
                    rows.push(row(&format!("T{t}"), &format!("S{s}"), metric, human));
                }
            }
            let data = Aligned::new(&rows).expect("grid");
            let mut pairs = Vec::new();
            for topic in &data.cells {
                let cells: Vec<Cell> = topic.iter().flatten().copied().collect();
                for i in 0..cells.len() {
                    for j in i + 1..cells.len() {
                        pairs.push((cells[i], cells[j]));
                    }
                }
            }
            let accuracy_at = |epsilon: f64| {
                let right = pairs
                    .iter()
                    .filter(|(a, b)| {
                        let metric_tie = (a.metric - b.metric).abs() <= epsilon;
                        if a.human == b.human {
                            metric_tie
                        } else {
                            !metric_tie && (a.metric - b.metric) * (a.human - b.human) > 0.0
                        }
                    })
                    .count();
                right as f64 / pairs.len() as f64
            };
            let best = std::iter::once(0.0)
                .chain(pairs.iter().map(|(a, b)| (a.metric - b.metric).abs()))
                .map(accuracy_at)
                .fold(f64::NEG_INFINITY, f64::max);
            let tied = evaluate(&data).input_tie_calibrated;
            assert!(
                (tied.accuracy - best).abs() < 1e-12,
                "{tied:?} against {best}"
            );
            assert!((accuracy_at(tied.epsilon) - best).abs() < 1e-12);
        }
    }

    #[test]
    fn a_system_drawn_twice_is_not_a_right_tie_with_itself() {
        let data =
            Aligned::new(&[row("T1", "A", 1.0, 1.0), row("T1", "B", 2.0, 2.0)]).expect("grid");
        // Systems [A, A, B]: pairs AB twice; the A-A copy pair is left out.
        let tied = level_statistics(&data, &[0], &[0, 0, 1]).input_tie_calibrated;
        assert_eq!(tied.pairs, 2);
        assert_eq!(tied.human_ties, 0);
        assert_eq!(tied.accuracy, 1.0);
    }

    #[test]
    fn the_coverage_warning_starts_at_one_topic_in_twenty() {
        let coverage = |metric_constant, ranked_by_humans| SummaryCoverage {
            ranked_by_humans,
            metric_constant,
            human_constant: 0,
        };
        assert!(coverage(1, 20).warning().is_some());
        assert!(coverage(1, 21).warning().is_none());
        assert!(coverage(0, 20).warning().is_none());
    }

    #[test]
    fn a_constant_topic_is_left_out_even_when_its_mean_is_not_exact() {
        // 0.1 is not exact in binary: the mean of three copies differs from each by ~1e-17.
        let tenth = 0.1;
        assert_ne!(
            (tenth + tenth + tenth) / 3.0,
            tenth,
            "the case needs rounding noise"
        );
        let mut rows = vec![
            row("t1", "a", 0.1, 1.0),
            row("t1", "b", 0.2, 2.0),
            row("t1", "c", 0.3, 4.0),
        ];
        for (s, m) in [("a", 0.3), ("b", 0.1), ("c", 0.2)] {
            rows.push(row("t2", s, m, tenth));
        }
        let stats = evaluate(&Aligned::new(&rows).expect("rows"));
        // Only t1 counts: its three coefficients are all 1.
        assert_eq!(stats.summary_topics, 1);
        assert!((stats.summary.pearson - 0.9819805060619657).abs() < 1e-12);
        assert_eq!((stats.summary.spearman, stats.summary.kendall), (1.0, 1.0));
    }

    #[test]
    fn system_means_equal_up_to_rounding_noise_are_a_tie() {
        // Both systems' human scores average to 22/5; summed in floating point, b's mean is
        // 4.3999999999999995.
        let a = [2.0, 5.0, 5.0, 5.0, 5.0];
        let b = [8.0 / 3.0, 5.0, 5.0, 5.0, 13.0 / 3.0];
        let naive = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert_ne!(naive(&a), naive(&b), "the case needs rounding noise");
        let mut rows = Vec::new();
        for (k, (ha, hb)) in a.iter().zip(&b).enumerate() {
            let topic = format!("t{k}");
            rows.push(row(&topic, "a", 1.0, *ha));
            rows.push(row(&topic, "b", 2.0, *hb));
            rows.push(row(&topic, "c", 3.0, 5.0));
        }
        let stats = evaluate(&Aligned::new(&rows).expect("rows"));
        let p = stats.system_pairwise;
        // (a, b) is a human tie; (a, c) and (b, c) are ordered and right.
        assert_eq!((p.pairs, p.correct, p.human_ties), (2, 2, 1));
        let metric: Vec<f64> = rows.iter().map(|r| r.metric).collect();
        let human: Vec<f64> = rows.iter().map(|r| r.human).collect();
        let systems: Vec<String> = rows.iter().map(|r| r.system.clone()).collect();
        // τ-b with one tie in the humans only: (2 − 0) / √(3 · 2).
        let tau = system_level_tau(&metric, &human, &systems);
        assert!((tau - 2.0 / 6f64.sqrt()).abs() < 1e-12, "{tau}");
    }

    #[test]
    fn pairwise_tie_rules() {
        // Human ties are excluded; metric ties count as wrong.
        let rows = [
            row("t", "a", 1.0, 1.0),
            row("t", "b", 1.0, 2.0), // metric tie with a, human differs: counted, wrong
            row("t", "c", 3.0, 2.0), // human tie with b: excluded
        ];
        let stats = evaluate(&Aligned::new(&rows).expect("rows"));
        let p = stats.input_pairwise;
        // Pairs: (a,b) metric tie -> wrong; (a,c) correct; (b,c) human tie -> excluded.
        assert_eq!(
            (p.pairs, p.correct, p.human_ties, p.metric_ties),
            (2, 1, 1, 1)
        );
        assert_eq!(p.accuracy, 0.5);
    }

    #[test]
    fn length_matched_accuracy_by_hand() {
        let with_words = |system: &str, metric: f64, human: f64, words: usize| ScoreRow {
            words: Some(words),
            ..row("t", system, metric, human)
        };
        // a and b have 10 words, c 20, d 11; the metric orders against the humans between a
        // and b, and with them everywhere else.
        let rows = [
            with_words("a", 3.0, 1.0, 10),
            with_words("b", 2.0, 2.0, 10),
            with_words("c", 5.0, 3.0, 20),
            with_words("d", 4.0, 2.5, 11),
        ];
        let mut data = Aligned::new(&rows).expect("rows");
        // At 10 %: (a, b) (equal) and (a, d), (b, d) (1 of 11 words, 9 %) are matched; the
        // metric gets (a, b) wrong and the two with d right.
        let stats = evaluate(&data);
        let m = stats.input_length_matched;
        assert_eq!((m.pairs, m.correct, m.metric_ties), (3, 2, 0));
        assert_eq!(m.accuracy, 2.0 / 3.0);
        assert_eq!(stats.values()[12], 2.0 / 3.0);
        // Length alone: (a, b) tied (wrong), the other five pairs put the longer summary
        // higher, as the humans do.
        let alone = LengthAlone::of(&data);
        let l = alone.all;
        assert_eq!((l.pairs, l.correct, l.metric_ties), (6, 5, 1));
        let lm = alone.matched;
        assert_eq!((lm.pairs, lm.correct, lm.metric_ties), (3, 2, 1));
        // At 0 only equal counts match: (a, b), wrong.
        data.length_tolerance = 0.0;
        let m = evaluate(&data).input_length_matched;
        assert_eq!((m.pairs, m.correct), (1, 0));
        // At 1 every pair matches: the input-level pairwise accuracy.
        data.length_tolerance = 1.0;
        let stats = evaluate(&data);
        assert_eq!(stats.input_length_matched, stats.input_pairwise);
    }

    #[test]
    fn rows_without_lengths_have_no_length_matched_pairs() {
        let rows = [row("t", "a", 1.0, 1.0), row("t", "b", 2.0, 2.0)];
        let stats = evaluate(&Aligned::new(&rows).expect("rows"));
        assert_eq!(stats.input_length_matched.pairs, 0);
        assert!(stats.input_length_matched.accuracy.is_nan());
        assert_eq!(
            LengthAlone::of(&Aligned::new(&rows).expect("rows"))
                .all
                .pairs,
            0
        );
        assert_eq!(stats.input_pairwise.pairs, 1);
    }
}
