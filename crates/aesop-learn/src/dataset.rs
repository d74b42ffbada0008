//! The training matrix: one row per summary that has the human target, the feature values in
//! the model's column order, and the topic and system of each row (for within-topic pairs,
//! topic/system folds and system-level evaluation).
//!
//! Missing feature values (a class that could not be computed for a summary) are kept as NaN
//! here and imputed by the [`Scaler`] with the *training* mean, which after standardization is
//! 0: a missing value then contributes nothing to a linear score and sits at the centre for
//! kernels and trees.

use aesop_corpus::Topic;
use aesop_features::run::FeatureTable;
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

/// Feature rows with their human target and identifiers.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// `class.feature` names, in column order.
    pub names: Vec<String>,
    /// Raw feature values; NaN marks a missing value.
    pub rows: Vec<Vec<f64>>,
    pub targets: Vec<f64>,
    pub topics: Vec<String>,
    pub systems: Vec<String>,
    /// Words of each row's summary (as `surface.summary_tokens` counts them), for the
    /// evaluation at matched length (`input.length_matched_accuracy`); empty, or `None` for a
    /// row, where the texts are not known (rows built by hand, stacked base predictions).
    pub words: Vec<Option<usize>>,
    /// The topic and system labels folds are dealt by, where they differ from `topics` and
    /// `systems`: one corpus given with several columns (`--set a.jsonl:coherence --set
    /// a.jsonl:fluency`) has a row per summary under each column, and those rows must share a
    /// fold, while ranking pairs stay within one column's topic. Empty: `topics` and `systems`.
    pub fold_topics: Vec<String>,
    pub fold_systems: Vec<String>,
}

impl Dataset {
    /// Rows of `table` (extracted from `topics`, in set order) that have the score `target`,
    /// restricted to the columns `names` (in that order). Fails when a column is absent or
    /// when no summary carries the target.
    pub fn from_table(
        table: &FeatureTable,
        topics: &[Topic],
        target: &str,
        names: &[String],
    ) -> Result<Dataset> {
        let columns = column_indices(&table.names, names)?;
        let mut data = Dataset {
            names: names.to_vec(),
            rows: Vec::new(),
            targets: Vec::new(),
            topics: Vec::new(),
            systems: Vec::new(),
            words: Vec::new(),
            fold_topics: Vec::new(),
            fold_systems: Vec::new(),
        };
        let summaries = topics.iter().flat_map(|t| {
            t.summaries.iter().map(move |s| {
                let score = s.scores.get(target);
                (t.topic.as_str(), s.system.as_str(), score, s.text.as_str())
            })
        });
        let mut count = 0usize;
        for (record, (topic, system, score, text)) in table.records.iter().zip(summaries) {
            count += 1;
            if record.topic != topic || record.system != system {
                bail!("feature table and judgment set are out of order at {topic}/{system}");
            }
            let Some(&y) = score else { continue };
            if !y.is_finite() {
                continue;
            }
            data.rows.push(
                columns
                    .iter()
                    .map(|&c| {
                        record.values[c]
                            .filter(|v| v.is_finite())
                            .unwrap_or(f64::NAN)
                    })
                    .collect(),
            );
            data.targets.push(y);
            data.topics.push(record.topic.clone());
            data.systems.push(record.system.clone());
            data.words.push(Some(aesop_eval::report::word_count(text)));
        }
        if count != table.records.len() {
            bail!(
                "feature table has {} rows but the set has {count} summaries",
                table.records.len()
            );
        }
        if data.rows.is_empty() {
            let known: std::collections::BTreeSet<&String> = topics
                .iter()
                .flat_map(|t| t.summaries.iter().flat_map(|s| s.scores.keys()))
                .collect();
            let known: Vec<&str> = known.into_iter().map(String::as_str).collect();
            bail!(
                "no summary has a score named '{target}'; scores in this set: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            );
        }
        check_target_spread(&data, target)?;
        Ok(data)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows at `indices`, as a new data set.
    pub fn subset(&self, indices: &[usize]) -> Dataset {
        Dataset {
            names: self.names.clone(),
            rows: indices.iter().map(|&i| self.rows[i].clone()).collect(),
            targets: indices.iter().map(|&i| self.targets[i]).collect(),
            topics: indices.iter().map(|&i| self.topics[i].clone()).collect(),
            systems: indices.iter().map(|&i| self.systems[i].clone()).collect(),
            words: indices.iter().map(|&i| self.words_of(i)).collect(),
            fold_topics: pick_labels(&self.fold_topics, indices),
            fold_systems: pick_labels(&self.fold_systems, indices),
        }
    }

    /// The topic label each row's folds are dealt by (see `fold_topics`).
    pub fn fold_topic_labels(&self) -> &[String] {
        if self.fold_topics.is_empty() {
            &self.topics
        } else {
            &self.fold_topics
        }
    }

    /// The system label each row's folds are dealt by (see `fold_systems`).
    pub fn fold_system_labels(&self) -> &[String] {
        if self.fold_systems.is_empty() {
            &self.systems
        } else {
            &self.fold_systems
        }
    }

    /// A dense id per row of the topic label its folds are dealt by, numbered as
    /// [`Dataset::topic_groups`] numbers topics (the same ids where the labels are the topics).
    pub fn fold_groups(&self) -> Vec<usize> {
        group_ids(self.fold_topic_labels())
    }

    /// Words of row `i`'s summary, where known.
    pub fn words_of(&self, i: usize) -> Option<usize> {
        self.words.get(i).copied().flatten()
    }

    /// The rows sorted by (topic, system), borrowed when they already are. Every model is
    /// fitted on this order, so what it learns does not depend on the order of the set's lines:
    /// a forest took its rows in file order and a re-sorted set gave another model (scores
    /// 0.5 apart), and the scaler's means, the SVR solvers and inner cross-validation's choice
    /// of C moved with it.
    pub fn in_canonical_order(&self) -> std::borrow::Cow<'_, Dataset> {
        let key = |i: usize| (self.topics[i].as_str(), self.systems[i].as_str());
        if (1..self.len()).all(|i| key(i - 1) <= key(i)) {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by(|&a, &b| key(a).cmp(&key(b)));
        std::borrow::Cow::Owned(self.subset(&order))
    }

    /// A dense topic index per row (sorted order of the topic ids), for within-topic pairs and folds.
    pub fn topic_groups(&self) -> Vec<usize> {
        group_ids(&self.topics)
    }
}

/// `labels` at `indices`; none where there are none.
fn pick_labels(labels: &[String], indices: &[usize]) -> Vec<String> {
    if labels.is_empty() {
        Vec::new()
    } else {
        indices.iter().map(|&i| labels[i].clone()).collect()
    }
}

/// Dense ids of `labels` in the sorted order of the distinct labels, so the same labels get
/// the same ids whatever the order of the rows (inner cross-validation deals its folds from
/// these ids; numbered by first appearance, pooling the same sets in another order chose
/// another C).
pub fn group_ids(labels: &[String]) -> Vec<usize> {
    let distinct: std::collections::BTreeSet<&str> = labels.iter().map(String::as_str).collect();
    let id: std::collections::HashMap<&str, usize> = distinct
        .into_iter()
        .enumerate()
        .map(|(i, l)| (l, i))
        .collect();
    labels.iter().map(|l| id[l.as_str()]).collect()
}

/// Targets so large that their mean or spread overflows (1e308 on a Likert column) cannot be
/// learned from: standardizing or calibrating them gives infinities, and the model written
/// scored every summary `null` (OLS) or 1e305 on a 1-5 scale (ranking SVM). Refused, naming
/// the largest value's summary.
fn check_target_spread(data: &Dataset, target: &str) -> Result<()> {
    let n = data.targets.len() as f64;
    let mean = data.targets.iter().sum::<f64>() / n;
    let spread = data.targets.iter().map(|y| (y - mean).powi(2)).sum::<f64>();
    if mean.is_finite() && spread.is_finite() {
        return Ok(());
    }
    let (at, largest) = data
        .targets
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .map_or((0, f64::NAN), |(i, &y)| (i, y));
    bail!(
        "score '{target}' cannot be learned from: its values are too large to standardize (e.g. {largest:e} for {}/{})",
        data.topics[at],
        data.systems[at]
    )
}

/// Positions of `wanted` in `available`; the error lists every missing name.
pub fn column_indices(available: &[String], wanted: &[String]) -> Result<Vec<usize>> {
    let mut missing = Vec::new();
    let indices: Vec<usize> = wanted
        .iter()
        .filter_map(|name| {
            let found = available.iter().position(|a| a == name);
            if found.is_none() {
                missing.push(name.as_str());
            }
            found
        })
        .collect();
    if !missing.is_empty() {
        bail!(
            "the features do not match the model: {} missing ({})",
            missing.len(),
            missing.join(", ")
        );
    }
    Ok(indices)
}

/// The largest magnitude a scaled feature value may have at prediction time: 6 training standard
/// deviations for a one-column class (less, in units of σ, for wider classes, whose columns are
/// divided by √k). Beyond this a model would extrapolate.
pub const PREDICTION_CLIP: f64 = 6.0;

/// Per-column centre and divisor of the training rows (missing values ignored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scaler {
    pub means: Vec<f64>,
    /// Population standard deviations (a constant column gets 1 so it maps to 0), each
    /// multiplied by √k for a column of a k-column feature class when fitted with
    /// [`Scaler::fit_class_balanced`].
    pub stds: Vec<f64>,
}

impl Scaler {
    pub fn fit(rows: &[Vec<f64>]) -> Scaler {
        let width = rows.first().map_or(0, Vec::len);
        let mut means = vec![0.0; width];
        let mut stds = vec![1.0; width];
        for c in 0..width {
            let present: Vec<f64> = rows
                .iter()
                .map(|r| r[c])
                .filter(|v| v.is_finite())
                .collect();
            if present.is_empty() {
                continue;
            }
            let n = present.len() as f64;
            let mean = present.iter().sum::<f64>() / n;
            let var = present.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
            means[c] = mean;
            stds[c] = if var > 1e-24 { var.sqrt() } else { 1.0 };
        }
        Scaler { means, stds }
    }

    /// Standardize, then divide each column by √k, k the number of columns of its feature
    /// class (the part of `names[c]` before the first `.`) that have a value on at least one
    /// training row. Every class then has the same total variance, so an L2 penalty (ranking
    /// SVM, SVR, elastic net) or an RBF distance weighs classes equally instead of by their
    /// number of columns: without this the 163 entity-grid and 243 discourse transitions
    /// outweighed the 16 Coh-Metrix indices, and the models fitted the systems they were
    /// trained on (EVALUATION.md protocol 1 holds systems out). A column missing on every row
    /// (the LM classes' `ref_*` under `--neural-references 0`) maps to 0 and carries nothing, so
    /// it does not count: it would only shrink the rest of its class.
    pub fn fit_class_balanced(rows: &[Vec<f64>], names: &[String]) -> Scaler {
        let mut scaler = Scaler::fit(rows);
        let class_of = |name: &str| name.split('.').next().unwrap_or("").to_string();
        let mut class_sizes: std::collections::HashMap<String, usize> = Default::default();
        for (c, name) in names.iter().enumerate() {
            if rows.iter().any(|r| r[c].is_finite()) {
                *class_sizes.entry(class_of(name)).or_default() += 1;
            }
        }
        for (std, name) in scaler.stds.iter_mut().zip(names) {
            let k = class_sizes.get(&class_of(name)).copied().unwrap_or(1);
            *std *= (k as f64).sqrt();
        }
        scaler
    }

    /// Standardize one row; a missing value becomes 0 (the training mean).
    pub fn transform_row(&self, row: &[f64]) -> Vec<f64> {
        row.iter()
            .zip(self.means.iter().zip(&self.stds))
            .map(|(&v, (m, s))| if v.is_finite() { (v - m) / s } else { 0.0 })
            .collect()
    }

    pub fn transform(&self, rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
        rows.iter().map(|r| self.transform_row(r)).collect()
    }

    /// [`Scaler::transform_row`] with every value clipped to ±[`PREDICTION_CLIP`] (in scaled
    /// units), used when predicting: a feature far outside anything seen in training (a
    /// one-million-character summary's length) then cannot move a linear model's prediction
    /// without bound. Training rows are not clipped. The bound needs nothing stored in the
    /// model file, so every existing model file gets it.
    pub fn transform_row_clipped(&self, row: &[f64]) -> Vec<f64> {
        let mut out = self.transform_row(row);
        for v in &mut out {
            *v = v.clamp(-PREDICTION_CLIP, PREDICTION_CLIP);
        }
        out
    }

    pub fn transform_clipped(&self, rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
        rows.iter().map(|r| self.transform_row_clipped(r)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Audit stop 53: a forest took its rows in file order, so a re-sorted set gave another
    /// model (scores 0.5 apart on a 1-5 scale); every learner now fits the rows in (topic,
    /// system) order, and the same rows in any order give the same model.
    #[test]
    fn every_learner_learns_the_same_from_the_same_rows_in_another_order() {
        let mut data = Dataset {
            names: vec!["c.a".into(), "c.b".into(), "d.c".into()],
            rows: Vec::new(),
            targets: Vec::new(),
            topics: Vec::new(),
            systems: Vec::new(),
            words: Vec::new(),
            fold_topics: Vec::new(),
            fold_systems: Vec::new(),
        };
        let mut rng = aesop_core::rng::SplitMix64::new(3);
        for t in 0..8 {
            for s in 0..6 {
                let row: Vec<f64> = (0..3).map(|_| rng.next_f64()).collect();
                data.targets
                    .push(1.0 + 4.0 * (0.6 * row[0] + 0.3 * row[1]) + 0.2 * rng.next_f64());
                data.rows.push(row);
                data.topics.push(format!("t{t}"));
                data.systems.push(format!("s{s}"));
            }
        }
        let mut order: Vec<usize> = (0..data.len()).rev().collect();
        order.swap(3, 17);
        let reordered = data.subset(&order);
        assert!(matches!(
            data.in_canonical_order(),
            std::borrow::Cow::Borrowed(_)
        ));
        for learner in [
            crate::LearnerKind::Forest,
            crate::LearnerKind::SvrPoly,
            crate::LearnerKind::SvrRbf,
            crate::LearnerKind::RankSvm,
        ] {
            let predict = |d: &Dataset| {
                crate::train(d, learner, None, 1)
                    .and_then(|m| m.predict(&data.rows))
                    .expect("trains and predicts")
            };
            assert_eq!(predict(&data), predict(&reordered), "{}", learner.name());
        }
    }

    #[test]
    fn scaler_imputes_missing_with_training_mean() {
        let rows = vec![vec![1.0, 5.0], vec![3.0, f64::NAN], vec![5.0, 5.0]];
        let s = Scaler::fit(&rows);
        assert_eq!(s.means, vec![3.0, 5.0]);
        // population sd of 1,3,5 = sqrt(8/3); constant column → 1
        assert!((s.stds[0] - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.stds[1], 1.0);
        assert_eq!(s.transform_row(&[3.0, f64::NAN]), vec![0.0, 0.0]);
    }

    #[test]
    fn class_balanced_scaler_divides_by_root_class_size() {
        // Three columns of class `a`, one of class `b`; every column has sd 1 (values -1, 1).
        let rows = vec![vec![-1.0, -1.0, -1.0, -1.0], vec![1.0, 1.0, 1.0, 1.0]];
        let names: Vec<String> = ["a.x", "a.y", "a.z", "b.x"].map(String::from).to_vec();
        let s = Scaler::fit_class_balanced(&rows, &names);
        let root3 = 3f64.sqrt();
        assert_eq!(s.means, vec![0.0; 4]);
        assert!(s.stds[..3].iter().all(|&v| (v - root3).abs() < 1e-12));
        assert_eq!(s.stds[3], 1.0);
        // Each class now carries total variance 1: 3 x (1/√3)² for `a`, 1 for `b`.
        let row = s.transform_row(&[1.0, 1.0, 1.0, 1.0]);
        let class_a: f64 = row[..3].iter().map(|v| v * v).sum();
        assert!((class_a - 1.0).abs() < 1e-12 && (row[3] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn class_balance_ignores_columns_missing_on_every_row() {
        // Class `a` has two columns with values and one missing everywhere (an LM's `ref_*`
        // without references); it counts as a two-column class.
        let nan = f64::NAN;
        let rows = vec![vec![-1.0, -1.0, nan, -1.0], vec![1.0, 1.0, nan, 1.0]];
        let names: Vec<String> = ["a.x", "a.y", "a.ref", "b.x"].map(String::from).to_vec();
        let s = Scaler::fit_class_balanced(&rows, &names);
        let root2 = 2f64.sqrt();
        assert!((s.stds[0] - root2).abs() < 1e-12 && (s.stds[1] - root2).abs() < 1e-12);
        assert_eq!(s.stds[3], 1.0);
        // The same two columns without the empty one scale identically.
        let without: Vec<Vec<f64>> = rows.iter().map(|r| vec![r[0], r[1], r[3]]).collect();
        let names2: Vec<String> = ["a.x", "a.y", "b.x"].map(String::from).to_vec();
        let s2 = Scaler::fit_class_balanced(&without, &names2);
        assert_eq!(
            [s.stds[0], s.stds[1], s.stds[3]],
            [s2.stds[0], s2.stds[1], s2.stds[2]]
        );
        // The empty column still maps to 0 (the imputed training mean).
        assert_eq!(s.transform_row(&[1.0, 1.0, nan, 1.0])[2], 0.0);
        // A column present on one row only still counts.
        let rows3 = vec![vec![-1.0, -1.0, 3.0, -1.0], vec![1.0, 1.0, nan, 1.0]];
        let s3 = Scaler::fit_class_balanced(&rows3, &names);
        assert!((s3.stds[0] - 3f64.sqrt()).abs() < 1e-12);
    }
}
