//! Cross-validation: protocol 1 of EVALUATION.md (topic folds × system folds) and the inner
//! topic-fold search that picks hyper-parameters.

use super::learners::{fit_ranking, Hyper, LearnerKind, LengthBand, Ranking};
use super::model_file::predict_held_out;
use super::{train, Dataset, Rng};
use aesop_eval::kendall_tau_b;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, HashMap};

/// Folds used by the inner hyper-parameter search (over training topics).
const INNER_FOLDS: usize = 3;

/// Assign each distinct label to one of `k` folds: labels sorted, shuffled with `seed`, dealt
/// round-robin (so fold sizes differ by at most one and do not depend on row order).
pub fn assign_folds(labels: &[String], k: usize, seed: u64) -> HashMap<String, usize> {
    let mut distinct: Vec<&String> = labels.iter().collect();
    distinct.sort();
    distinct.dedup();
    Rng::new(seed).shuffle(&mut distinct);
    distinct
        .into_iter()
        .enumerate()
        .map(|(i, l)| (l.clone(), i % k.max(1)))
        .collect()
}

/// The fold layout of protocol 1 for one data set.
#[derive(Debug, Clone)]
pub struct Protocol1 {
    pub topic_folds: usize,
    pub system_folds: usize,
    /// Topic fold and system fold of every row.
    pub row_topic_fold: Vec<usize>,
    pub row_system_fold: Vec<usize>,
}

/// Protocol 1 needs `kt` ≥ 2 topic folds (one to test, one to train on) and `ks` ≥ 1 system
/// fold. The CLI checks the flags with this before any set is read, so a bad count is a usage
/// error rather than a failure after the features are computed.
pub fn check_fold_counts(kt: usize, ks: usize) -> Result<()> {
    if kt < 2 || ks < 1 {
        bail!("protocol 1 needs at least 2 topic folds and 1 system fold (got {kt} and {ks})");
    }
    Ok(())
}

impl Protocol1 {
    /// Topics shuffled into `kt` folds and systems into `ks` folds, seeded (the system shuffle
    /// uses a derived seed so the two are not the same permutation). More folds than topics
    /// (systems) would leave folds empty: the layout has one per topic (system) then, and
    /// `topic_folds` / `system_folds` say how many it has.
    pub fn new(
        topics: &[String],
        systems: &[String],
        kt: usize,
        ks: usize,
        seed: u64,
    ) -> Result<Protocol1> {
        check_fold_counts(kt, ks)?;
        let distinct = |v: &[String]| v.iter().collect::<std::collections::HashSet<_>>().len();
        let (kt, ks) = (kt.min(distinct(topics)), ks.min(distinct(systems).max(1)));
        if kt < 2 {
            bail!("protocol 1 needs at least 2 topics with the score to learn (the data has {kt})");
        }
        let tf = assign_folds(topics, kt, seed);
        let sf = assign_folds(systems, ks, seed ^ 0x5157_454D);
        Ok(Protocol1 {
            topic_folds: kt,
            system_folds: ks,
            row_topic_fold: topics.iter().map(|t| tf[t]).collect(),
            row_system_fold: systems.iter().map(|s| sf[s]).collect(),
        })
    }

    /// Rows of cell (a, b): topic in fold a and system in fold b.
    pub fn test_rows(&self, a: usize, b: usize) -> Vec<usize> {
        (0..self.row_topic_fold.len())
            .filter(|&i| self.row_topic_fold[i] == a && self.row_system_fold[i] == b)
            .collect()
    }

    /// Rows that may train the model for cell (a, b): topic not in fold a AND system not in
    /// fold b (with one system fold, only the topic condition applies).
    pub fn train_rows(&self, a: usize, b: usize) -> Vec<usize> {
        (0..self.row_topic_fold.len())
            .filter(|&i| {
                self.row_topic_fold[i] != a
                    && (self.system_folds == 1 || self.row_system_fold[i] != b)
            })
            .collect()
    }
}

/// Out-of-fold predictions of protocol 1 for every row of `data`. Each cell's model is trained
/// from scratch (scaler, inner hyper-parameter search, fit) on its training rows only, and
/// predicts as a saved model would ([`predict_held_out`]).
pub fn cross_validate(
    data: &Dataset,
    learner: LearnerKind,
    hyper: Option<Hyper>,
    layout: &Protocol1,
    seed: u64,
) -> Result<Vec<f64>> {
    out_of_fold(layout, |train_idx, test_idx| {
        let training = data.subset(train_idx);
        let model = train(&training, learner, hyper, seed)?;
        let test_rows: Vec<Vec<f64>> = test_idx.iter().map(|&i| data.rows[i].clone()).collect();
        Ok(predict_held_out(&model, &training.rows, &test_rows)?.0)
    })
}

/// The loop of protocol 1: for every non-empty cell (a, b), `predict_cell(train, test)` gets
/// the cell's training and test row indices and returns one prediction per test row; the result
/// holds every row's prediction from the cell where it was tested.
pub fn out_of_fold(
    layout: &Protocol1,
    mut predict_cell: impl FnMut(&[usize], &[usize]) -> Result<Vec<f64>>,
) -> Result<Vec<f64>> {
    let mut predictions = vec![f64::NAN; layout.row_topic_fold.len()];
    for a in 0..layout.topic_folds {
        for b in 0..layout.system_folds {
            let test = layout.test_rows(a, b);
            if test.is_empty() {
                continue;
            }
            let train_idx = layout.train_rows(a, b);
            if train_idx.is_empty() {
                bail!(
                    "cell ({a}, {b}) has no training rows: too few topics or systems for the folds"
                );
            }
            // A learner's "nothing to learn" names the data; here it is this cell's training
            // rows, not the set (2 systems in 2 system folds leave one system to train on).
            let cell = predict_cell(&train_idx, &test).with_context(|| {
                format!(
                    "protocol-1 cell (topic fold {}, system fold {}), trained on {} of {} rows",
                    a + 1,
                    b + 1,
                    train_idx.len(),
                    layout.row_topic_fold.len()
                )
            })?;
            if cell.len() != test.len() {
                bail!(
                    "cell ({a}, {b}): {} predictions for {} test rows",
                    cell.len(),
                    test.len()
                );
            }
            for (i, p) in test.into_iter().zip(cell) {
                predictions[i] = p;
            }
        }
    }
    Ok(predictions)
}

/// Summary- and system-level τ of flat rows, as every report computes them.
pub use aesop_eval::levels::{summary_level_tau, system_level_tau};

/// How one grid point scored in the inner search: the within-topic Kendall τ-b of its
/// out-of-fold predictions for each inner test topic where τ is defined.
#[derive(Debug, Clone, PartialEq)]
pub struct InnerScore {
    pub hyper: Hyper,
    /// (topic group id, τ), sorted by topic.
    pub topic_taus: Vec<(usize, f64)>,
}

impl InnerScore {
    /// Mean τ over topics (the summary-level τ we report); −∞ when no topic was scored.
    pub fn mean_tau(&self) -> f64 {
        if self.topic_taus.is_empty() {
            f64::NEG_INFINITY
        } else {
            self.topic_taus.iter().map(|(_, t)| t).sum::<f64>() / self.topic_taus.len() as f64
        }
    }
}

/// The inner fold of each row: its fold group dealt to one of `INNER_FOLDS` folds. Rows of one
/// summary under several columns of a corpus, or the repeats of a row that equal set weights
/// make, share a fold group ([`crate::Dataset::fold_groups`]), so none of them is scored by a
/// model that learned from another.
pub fn inner_folds(fold_groups: &[usize], seed: u64) -> Vec<usize> {
    let labels: Vec<String> = fold_groups.iter().map(|g| g.to_string()).collect();
    let folds = assign_folds(&labels, INNER_FOLDS, seed.wrapping_add(1));
    labels.iter().map(|g| folds[g]).collect()
}

/// Out-of-fold within-topic τ of every grid point of `learner` over `INNER_FOLDS` topic folds
/// of the (already standardized) training rows. A grid point whose fit fails on a fold (e.g. no
/// pairs in a tiny fold) just has no τ for that fold's topics. `groups` are the topics that
/// pairs and τ stay within, `fold_groups` what the folds are dealt by ([`inner_folds`]).
pub fn inner_scores(
    learner: LearnerKind,
    rows: &[Vec<f64>],
    targets: &[f64],
    groups: &[usize],
    fold_groups: &[usize],
    seed: u64,
    ranking: Ranking,
) -> Vec<InnerScore> {
    let row_fold = inner_folds(fold_groups, seed);
    let pick = |idx: &[usize]| -> Vec<Vec<f64>> { idx.iter().map(|&i| rows[i].clone()).collect() };
    learner
        .grid()
        .into_iter()
        .map(|hyper| {
            let mut topic_taus = Vec::new();
            for fold in 0..INNER_FOLDS {
                let (train_idx, test_idx): (Vec<usize>, Vec<usize>) =
                    (0..rows.len()).partition(|&i| row_fold[i] != fold);
                if train_idx.is_empty() || test_idx.is_empty() {
                    continue;
                }
                let ys: Vec<f64> = train_idx.iter().map(|&i| targets[i]).collect();
                let gs: Vec<usize> = train_idx.iter().map(|&i| groups[i]).collect();
                let words: Vec<usize> = match ranking.band {
                    Some(band) => train_idx.iter().map(|&i| band.words[i]).collect(),
                    None => Vec::new(),
                };
                let fold_ranking = Ranking {
                    prior: ranking.prior,
                    band: ranking.band.map(|band| LengthBand {
                        words: &words,
                        tolerance: band.tolerance,
                    }),
                };
                let Ok(model) = fit_ranking(
                    learner,
                    hyper,
                    &pick(&train_idx),
                    &ys,
                    &gs,
                    seed,
                    fold_ranking,
                ) else {
                    continue;
                };
                let Ok(pred) = model.predict(&pick(&test_idx)) else {
                    continue;
                };
                let yt: Vec<f64> = test_idx.iter().map(|&i| targets[i]).collect();
                let gt: Vec<usize> = test_idx.iter().map(|&i| groups[i]).collect();
                topic_taus.extend(per_topic_tau(&pred, &yt, &gt));
            }
            topic_taus.sort_by_key(|&(g, _)| g);
            InnerScore { hyper, topic_taus }
        })
        .collect()
}

/// Kendall τ-b between prediction and target within each group where it is defined.
fn per_topic_tau(predictions: &[f64], targets: &[f64], groups: &[usize]) -> Vec<(usize, f64)> {
    let mut by_group: BTreeMap<usize, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for ((p, t), g) in predictions.iter().zip(targets).zip(groups) {
        let entry = by_group.entry(*g).or_default();
        entry.0.push(*p);
        entry.1.push(*t);
    }
    by_group
        .into_iter()
        .map(|(g, (p, t))| (g, kendall_tau_b(&p, &t)))
        .filter(|(_, tau)| tau.is_finite())
        .collect()
}

/// The grid point with the best mean τ (ties keep the earlier one); None if none scored.
fn best_scored(scores: &[InnerScore]) -> Option<&InnerScore> {
    let mut best: Option<&InnerScore> = None;
    for s in scores {
        if !s.topic_taus.is_empty() && best.is_none_or(|b| s.mean_tau() > b.mean_tau()) {
            best = Some(s);
        }
    }
    best
}

/// The one-standard-error rule on paired topics: take the grid point with the best mean τ;
/// then return the first grid point (grids are ordered from strongest to weakest
/// regularization, see [`LearnerKind::grid`]) whose mean shortfall against the best, over the
/// topics both scored, is at most the standard error of that shortfall. Pairing by topic
/// removes the large topic-to-topic spread of τ that is common to all grid points, so only
/// differences the inner folds cannot tell from noise are broken towards the simpler model.
/// None when no grid point scored any topic.
pub fn one_standard_error_choice(scores: &[InnerScore]) -> Option<Hyper> {
    let best = best_scored(scores)?;
    let best_tau: BTreeMap<usize, f64> = best.topic_taus.iter().copied().collect();
    for s in scores {
        if std::ptr::eq(s, best) {
            return Some(s.hyper);
        }
        let shortfall: Vec<f64> = s
            .topic_taus
            .iter()
            .filter_map(|(g, tau)| best_tau.get(g).map(|b| b - tau))
            .collect();
        // Too few shared topics to estimate a standard error: keep looking.
        if shortfall.len() < 2 {
            continue;
        }
        let n = shortfall.len() as f64;
        let mean = shortfall.iter().sum::<f64>() / n;
        let var = shortfall.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
        if mean <= (var / n).sqrt() {
            return Some(s.hyper);
        }
    }
    Some(best.hyper)
}

/// Pick hyper-parameters for `learner` by inner cross-validation over topic folds of the
/// (already standardized) training rows: each grid point is scored by the within-topic Kendall
/// τ of its out-of-fold predictions (the summary-level τ we report).
///
/// For the ranking SVM, near-ties go to the more regularized grid point by
/// [`one_standard_error_choice`]: its score has no scale, and on SummEval smaller C ranked
/// better under protocol 1 than the inner folds' best mean suggested. The regressors take the
/// best mean τ: τ ignores how strongly their predictions are shrunk towards the mean, so the
/// rule would pick heavy shrinkage that costs nothing in τ but miscalibrates predicted scores.
/// Seeded through `seed`.
pub fn select_hyper(
    learner: LearnerKind,
    rows: &[Vec<f64>],
    targets: &[f64],
    groups: &[usize],
    fold_groups: &[usize],
    seed: u64,
    ranking: Ranking,
) -> Result<Hyper> {
    let grid = learner.grid();
    match grid.as_slice() {
        [] => bail!("no hyper-parameters for {}", learner.name()),
        [only] => return Ok(*only),
        _ => {}
    }
    let scores = inner_scores(learner, rows, targets, groups, fold_groups, seed, ranking);
    // Nothing scored (e.g. too few topics for inner folds): the most regularized grid point.
    let choice = if learner == LearnerKind::RankSvm {
        one_standard_error_choice(&scores)
    } else {
        best_scored(&scores).map(|s| s.hyper)
    };
    Ok(choice.unwrap_or(grid[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn summary_level_averages_defined_topics_only() {
        // A: perfect order (τ = 1); B: reversed (τ = −1); C: human scores tied (undefined, skipped).
        let topics = labels(&["A", "A", "A", "B", "B", "B", "C", "C"]);
        let pred = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0];
        let human = [1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 5.0, 5.0];
        assert_eq!(summary_level_tau(&pred, &human, &topics), 0.0);
        // only A and C: mean of {1}
        assert_eq!(
            summary_level_tau(&pred[..3], &human[..3], &topics[..3]),
            1.0
        );
    }

    fn scored(c: f64, taus: &[f64]) -> InnerScore {
        InnerScore {
            hyper: Hyper::RankSvm { c },
            topic_taus: taus.iter().copied().enumerate().collect(),
        }
    }

    #[test]
    fn one_standard_error_rule_prefers_regularization_only_within_noise() {
        let best = scored(1.0, &[0.5, 0.6, 0.7, 0.8]); // mean .65
        let worse = scored(2.0, &[0.6, 0.5, 0.7, 0.7]); // mean .625, after the best in grid order
                                                        // Shortfall 0.1 on every topic: standard error 0, so the simpler point is really worse.
        let consistently_worse = scored(0.1, &[0.4, 0.5, 0.6, 0.7]);
        let choice = one_standard_error_choice(&[consistently_worse, best.clone(), worse.clone()]);
        assert_eq!(choice, Some(Hyper::RankSvm { c: 1.0 }));
        // Shortfalls −.2, .2, −.1, .3: mean .05, sample variance .17/3, SE √(.17/12) ≈ .119 ≥ .05.
        let noisy = scored(0.1, &[0.7, 0.4, 0.8, 0.5]);
        let choice = one_standard_error_choice(&[noisy, best.clone(), worse.clone()]);
        assert_eq!(choice, Some(Hyper::RankSvm { c: 0.1 }));
        // A simpler point sharing a single topic with the best cannot be judged: skipped.
        let one_topic = InnerScore {
            hyper: Hyper::RankSvm { c: 0.1 },
            topic_taus: vec![(0, 0.5)],
        };
        let choice = one_standard_error_choice(&[one_topic, best.clone(), worse]);
        assert_eq!(choice, Some(Hyper::RankSvm { c: 1.0 }));
        // The best first in grid order is chosen; nothing scored gives None.
        assert_eq!(
            one_standard_error_choice(&[best, scored(2.0, &[])]),
            Some(Hyper::RankSvm { c: 1.0 })
        );
        assert_eq!(one_standard_error_choice(&[scored(2.0, &[])]), None);
    }

    #[test]
    fn system_level_uses_system_means() {
        // means: s1 pred 1.5 human 2; s2 pred 3 human 1; s3 pred 4 human 3.
        // pairs (s1,s2) D, (s1,s3) C, (s2,s3) C → τ = (2 − 1) / 3.
        let systems = labels(&["s1", "s1", "s2", "s3"]);
        let tau = system_level_tau(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 1.0, 3.0], &systems);
        assert!((tau - 1.0 / 3.0).abs() < 1e-12, "{tau}");
    }
}
