//! Models that transfer to new data (issue 13): several judgment sets in one training,
//! within-topic feature normalization, calibration of raw scores to the target's scale, and the
//! pieces of protocol 2 (leave one set out) that `cross-validate --leave-one-set-out` runs.
//!
//! Why per set: a judgment set is one corpus, one annotation campaign and one scale. Ranking
//! pairs therefore never leave a topic (topic labels are made unique per set, so they cannot
//! cross sets either), and regression targets are standardized within each set before sets are
//! pooled, so a 1-5 Likert column and a 0-1 pyramid column weigh alike.

use super::dataset::Dataset;
use aesop_features::run::FeatureTable;
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// One judgment set and the column to learn from it: `PATH:COLUMN` on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct SetSpec {
    pub path: PathBuf,
    /// An original score name (`relevance`) or a mapped one (`responsiveness`).
    pub column: String,
}

impl SetSpec {
    pub fn new(path: impl Into<PathBuf>, column: &str) -> SetSpec {
        SetSpec {
            path: path.into(),
            column: column.to_string(),
        }
    }

    /// The file name, for reports and topic labels.
    pub fn name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

impl std::fmt::Display for SetSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.column)
    }
}

/// Parse `PATH:COLUMN` (split at the last `:`, so paths may hold colons, and any byte a file
/// name may hold).
pub fn parse_set_spec(text: impl AsRef<std::ffi::OsStr>) -> std::result::Result<SetSpec, String> {
    let text = text.as_ref();
    let (path, column) = aesop_corpus::jsonl::split_set_and_column(text).map_err(|problem| {
        format!(
            "'{}': {problem} (expected PATH:COLUMN, e.g. summeval.jsonl:relevance)",
            text.to_string_lossy()
        )
    })?;
    Ok(SetSpec::new(path, &column))
}

/// [`parse_set_spec`] as clap's parser of `--set`: it reads the argument as given, not as a
/// `String`, so a set whose path is not UTF-8 can be named.
#[cfg(feature = "cli")]
pub fn set_spec_parser() -> impl clap::builder::TypedValueParser<Value = SetSpec> {
    use clap::builder::TypedValueParser as _;
    clap::builder::OsStringValueParser::new().try_map(parse_set_spec)
}

/// How feature values are normalized within each topic before the model sees them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Normalization {
    /// Raw values (the behaviour of every model before this option).
    #[default]
    None,
    /// z-score among the topic's summaries (population sd; a constant column gives 0).
    TopicZ,
    /// Rank among the topic's summaries scaled to [0, 1] (ties share their mean rank; a topic
    /// with one summary gives 0.5).
    TopicRank,
}

impl Normalization {
    pub fn name(self) -> &'static str {
        match self {
            Normalization::None => "none",
            Normalization::TopicZ => "topic-z",
            Normalization::TopicRank => "topic-rank",
        }
    }

    /// True when a summary's normalized features depend on the other summaries of its topic in
    /// the same batch (issue 14: the built-ins must not).
    pub fn batch_dependent(self) -> bool {
        self != Normalization::None
    }
}

/// Normalize every column of `table` within each topic (records grouped by their `topic`).
/// Missing values stay missing and do not count.
pub fn normalize_table(table: &FeatureTable, how: Normalization) -> FeatureTable {
    let mut out = table.clone();
    if how == Normalization::None {
        return out;
    }
    let mut by_topic: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in table.records.iter().enumerate() {
        by_topic.entry(r.topic.as_str()).or_default().push(i);
    }
    for members in by_topic.values() {
        for c in 0..table.names.len() {
            let values: Vec<Option<f64>> = members
                .iter()
                .map(|&i| table.records[i].values[c].filter(|v| v.is_finite()))
                .collect();
            let normalized = normalize_column(&values, how);
            for (&i, v) in members.iter().zip(normalized) {
                out.records[i].values[c] = v;
            }
        }
    }
    out
}

/// One topic's values of one column, normalized (see [`Normalization`]).
pub fn normalize_column(values: &[Option<f64>], how: Normalization) -> Vec<Option<f64>> {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let n = present.len();
    match how {
        Normalization::None => values.to_vec(),
        Normalization::TopicZ => {
            if n == 0 {
                return values.to_vec();
            }
            let mean = present.iter().sum::<f64>() / n as f64;
            let var = present.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
            let sd = var.sqrt();
            values
                .iter()
                .map(|v| v.map(|x| if sd > 1e-12 { (x - mean) / sd } else { 0.0 }))
                .collect()
        }
        Normalization::TopicRank => {
            if n == 0 {
                return values.to_vec();
            }
            let ranks = aesop_eval::correlation::average_ranks(&present);
            let mut next = ranks.into_iter();
            values
                .iter()
                .map(|v| {
                    v.map(|_| {
                        let r = next.next().unwrap_or(1.0);
                        if n > 1 {
                            (r - 1.0) / (n - 1) as f64
                        } else {
                            0.5
                        }
                    })
                })
                .collect()
        }
    }
}

/// A monotone map from a model's raw output to its target's scale: `intercept + slope * raw`,
/// clamped to the range of the training targets.
///
/// Fitted by least squares on the training rows' (raw, target) pairs pooled over topics, on the
/// uncentred raw score. A ranking SVM's raw score is only defined up to a topic-level shift, so
/// centring raw scores within each topic (plus the training mean) would calibrate better; but
/// then one summary's score would depend on the other summaries scored with it, which issue 14
/// rules out for the defaults. The pooled fit keeps every score a function of its own summary;
/// its error is reported as the held-out MAE in the model cards.
///
/// The pooled fit can come out flat: when the raw score's level differs between the training
/// corpora in a way their ratings do not follow (a ranker anchored on the Flesch-Kincaid grade,
/// whose level is a corpus's style), least squares puts the slope at or below zero, and every
/// summary would get the same score. [`Calibration::fit_within_topics`] then takes the slope
/// from the within-topic deviations, which is what a ranker learned to order.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub slope: f64,
    pub intercept: f64,
    pub min: f64,
    pub max: f64,
}

impl Calibration {
    /// Least squares of `targets` on `raw`, the slope kept non-negative (a negative in-sample
    /// slope means the model is useless on its own training data; it then predicts the mean).
    /// None when there is nothing finite to fit.
    pub fn fit(raw: &[f64], targets: &[f64]) -> Option<Calibration> {
        let pairs: Vec<(f64, f64)> = raw
            .iter()
            .zip(targets)
            .filter(|(r, t)| r.is_finite() && t.is_finite())
            .map(|(&r, &t)| (r, t))
            .collect();
        if pairs.is_empty() {
            return None;
        }
        let Moments { mx, my, sxx, sxy } = Moments::of(&pairs);
        let slope = if sxx > 1e-24 {
            (sxy / sxx).max(0.0)
        } else {
            0.0
        };
        let min = pairs.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let max = pairs.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        Some(Calibration {
            slope,
            intercept: my - slope * mx,
            min,
            max,
        })
    }

    /// [`Calibration::fit`], except that a flat pooled slope is replaced by the least-squares
    /// slope of the targets' within-topic deviations on the raw scores' (each row minus its
    /// topic's mean; `topics[i]` is row i's topic), kept non-negative. The line still passes
    /// through the pooled means, so a summary's score stays a function of its own raw score.
    pub fn fit_within_topics(
        raw: &[f64],
        targets: &[f64],
        topics: &[String],
    ) -> Option<Calibration> {
        let pooled = Calibration::fit(raw, targets)?;
        if pooled.slope > 0.0 {
            return Some(pooled);
        }
        // Ordered by topic, so the sums (and the model file) are the same on every run.
        let mut by_topic: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for ((&r, &t), topic) in raw.iter().zip(targets).zip(topics) {
            if r.is_finite() && t.is_finite() {
                by_topic.entry(topic.as_str()).or_default().push((r, t));
            }
        }
        let (mut sxx, mut sxy) = (0.0, 0.0);
        for pairs in by_topic.values() {
            let within = Moments::of(pairs);
            sxx += within.sxx;
            sxy += within.sxy;
        }
        if sxx <= 1e-24 || sxy <= 0.0 {
            return Some(pooled);
        }
        let slope = sxy / sxx;
        // Through the pooled means, as the pooled line.
        let all: Vec<(f64, f64)> = by_topic.into_values().flatten().collect();
        let Moments { mx, my, .. } = Moments::of(&all);
        Some(Calibration {
            slope,
            intercept: my - slope * mx,
            ..pooled
        })
    }

    pub fn apply(&self, raw: f64) -> f64 {
        if !raw.is_finite() {
            return raw;
        }
        (self.intercept + self.slope * raw).clamp(self.min, self.max)
    }
}

/// Means and centred sums of squares and products of (x, y) pairs (at least one).
struct Moments {
    mx: f64,
    my: f64,
    sxx: f64,
    sxy: f64,
}

impl Moments {
    fn of(pairs: &[(f64, f64)]) -> Moments {
        let n = pairs.len() as f64;
        let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
        let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
        Moments {
            mx,
            my,
            sxx: pairs.iter().map(|p| (p.0 - mx).powi(2)).sum(),
            sxy: pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum(),
        }
    }
}

/// Mean absolute error of `predictions` against `targets` (finite pairs only).
pub fn mean_absolute_error(predictions: &[f64], targets: &[f64]) -> f64 {
    let errors: Vec<f64> = predictions
        .iter()
        .zip(targets)
        .filter(|(p, t)| p.is_finite() && t.is_finite())
        .map(|(p, t)| (p - t).abs())
        .collect();
    if errors.is_empty() {
        f64::NAN
    } else {
        errors.iter().sum::<f64>() / errors.len() as f64
    }
}

/// Where a model's training rows came from, per set (stored in the model file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetRecord {
    pub name: String,
    pub column: String,
    /// FNV-1a 64 of the set's bytes, hex.
    pub content_hash: String,
    pub rows: usize,
}

/// What a model learned beyond its scaler and learner: appended to the model file after the
/// version-2 payload (format version 3), so older files load with the defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TransferInfo {
    pub normalization: Normalization,
    pub calibration: Option<Calibration>,
    /// Every training set with its column (one entry per `--set`).
    pub sets: Vec<SetRecord>,
    /// Mean absolute error of the calibrated scores on held-out data, when measured.
    pub held_out_mae: Option<f64>,
}

impl TransferInfo {
    pub fn is_default(&self) -> bool {
        *self == TransferInfo::default()
    }
}

/// One set's rows, ready to pool: `data` keeps the set's own topic and system names.
#[derive(Debug, Clone)]
pub struct SetData {
    pub spec: SetSpec,
    pub data: Dataset,
    /// What the set's summaries are, apart from the column judged: sets of one corpus (the same
    /// file, or one of identical content, given with another column) hold the same summaries,
    /// so they share folds under protocol 1 and are held out together under protocol 2.
    pub corpus: String,
}

impl SetData {
    /// Whether `self` and `other` hold the same summaries (see `corpus`).
    pub fn same_corpus(&self, other: &SetData) -> bool {
        self.corpus == other.corpus
    }
}

/// Options for pooling sets.
#[derive(Debug, Clone, Copy, Default)]
pub struct PoolOptions {
    /// Standardize the target within each set (always on when there is more than one set).
    pub standardize_per_set: bool,
    /// Weigh every set equally whatever its size (see [`Pooled::for_training`]).
    pub equal_set_weights: bool,
}

/// Several sets as one training matrix, with each row's set and original target.
#[derive(Debug, Clone)]
pub struct Pooled {
    /// Topic and system labels are `SET/label` when more than one set is pooled.
    pub data: Dataset,
    pub set_of_row: Vec<usize>,
    /// The target on its own scale (before per-set standardization).
    pub original_targets: Vec<f64>,
    /// Train with every set weighing the same (see [`Pooled::for_training`]).
    pub equal_set_weights: bool,
    /// The column of every set given to [`pool`] (indexed like `set_of_row`).
    pub columns: Vec<String>,
}

impl Pooled {
    /// The rows a model is fitted on: these rows, or with equal set weights the rows of each
    /// set repeated about (largest set's rows / its rows) times, each repeat as new topics (so
    /// pairs stay within one copy of a topic). Repeating is done at training time, after any
    /// fold split, so a repeat of a test topic can never train its own fold; the repeats keep
    /// their original's fold labels, so the inner folds that choose C keep them together too.
    pub fn for_training(&self) -> Dataset {
        if !self.equal_set_weights {
            return self.data.clone();
        }
        let mut counts: HashMap<usize, usize> = HashMap::new();
        for &s in &self.set_of_row {
            *counts.entry(s).or_default() += 1;
        }
        let largest = counts.values().copied().max().unwrap_or(1);
        let mut out = self.data.subset(&[]);
        for i in 0..self.data.len() {
            let n = counts[&self.set_of_row[i]];
            let copies = ((largest as f64 / n as f64).round() as usize).max(1);
            for copy in 0..copies {
                out.rows.push(self.data.rows[i].clone());
                out.targets.push(self.data.targets[i]);
                out.topics.push(if copy == 0 {
                    self.data.topics[i].clone()
                } else {
                    format!("{}#{copy}", self.data.topics[i])
                });
                out.systems.push(self.data.systems[i].clone());
                out.words.push(self.data.words_of(i));
                out.fold_topics
                    .push(self.data.fold_topic_labels()[i].clone());
                out.fold_systems
                    .push(self.data.fold_system_labels()[i].clone());
            }
        }
        out
    }

    /// The rows at `idx`.
    /// The same rows, sets and options over `data`, another selection of these rows' feature
    /// columns (ablation selects each model's columns this way).
    pub fn with_data(&self, data: Dataset) -> Pooled {
        debug_assert_eq!(data.len(), self.data.len(), "the same rows");
        Pooled {
            data,
            set_of_row: self.set_of_row.clone(),
            original_targets: self.original_targets.clone(),
            equal_set_weights: self.equal_set_weights,
            columns: self.columns.clone(),
        }
    }

    pub fn subset(&self, idx: &[usize]) -> Pooled {
        Pooled {
            data: self.data.subset(idx),
            set_of_row: idx.iter().map(|&i| self.set_of_row[i]).collect(),
            original_targets: idx.iter().map(|&i| self.original_targets[i]).collect(),
            equal_set_weights: self.equal_set_weights,
            columns: self.columns.clone(),
        }
    }

    /// Rows whose set's column is `target` (the ones a calibration to `target`'s scale can
    /// learn from); every row when no set names it.
    pub fn rows_on_scale_of(&self, target: &str) -> Vec<usize> {
        let on_scale: Vec<usize> = (0..self.data.len())
            .filter(|&i| self.columns[self.set_of_row[i]] == target)
            .collect();
        if on_scale.is_empty() {
            (0..self.data.len()).collect()
        } else {
            on_scale
        }
    }
}

/// Pool `sets` (those with index in `keep`) into one data set. All sets must have the same
/// columns. With one set and no options the result equals that set's data.
pub fn pool(sets: &[SetData], keep: &[usize], options: PoolOptions) -> Result<Pooled> {
    let Some(&first) = keep.first() else {
        bail!("no judgment set to train on");
    };
    let names = sets[first].data.names.clone();
    let several = keep.len() > 1;
    let standardize = options.standardize_per_set || several;
    let mut out = Pooled {
        data: Dataset {
            names: names.clone(),
            rows: Vec::new(),
            targets: Vec::new(),
            topics: Vec::new(),
            systems: Vec::new(),
            words: Vec::new(),
            fold_topics: Vec::new(),
            fold_systems: Vec::new(),
        },
        set_of_row: Vec::new(),
        original_targets: Vec::new(),
        equal_set_weights: false,
        columns: sets.iter().map(|s| s.spec.column.clone()).collect(),
    };
    // Topics are labelled by their set's file name and column, not its position on the command
    // line: folds are dealt by label (and topics numbered in label order, `group_ids`), so
    // `--set a --set b` and `--set b --set a` chose different C by inner cross-validation and
    // gave different held-out figures.
    let label_of = |s: usize| {
        let spec = &sets[s].spec;
        let short = format!("{}:{}", spec.name(), spec.column);
        let clash = keep.iter().any(|&o| {
            o != s && sets[o].spec.name() == spec.name() && sets[o].spec.column == spec.column
        });
        if clash {
            // Two files of one name (a/x.jsonl, b/x.jsonl): the path tells them apart.
            format!("{}:{}", spec.path.display(), spec.column)
        } else {
            short
        }
    };
    // A corpus given with several columns deals its folds once: its rows under every column
    // get the fold labels of the column whose label sorts first (so the order of the --set
    // flags does not matter), while their topic labels, which ranking pairs stay within, keep
    // the column apart. With no such corpus the fold labels are the topic labels themselves.
    let corpus_label = |s: usize| {
        keep.iter()
            .filter(|&&o| sets[o].same_corpus(&sets[s]))
            .map(|&o| label_of(o))
            .min()
            .unwrap_or_else(|| label_of(s))
    };
    let grouped = keep.iter().any(|&s| {
        keep.iter()
            .any(|&o| o != s && sets[o].same_corpus(&sets[s]))
    });
    for &s in keep {
        let set = &sets[s];
        let label = label_of(s);
        if set.data.names != names {
            bail!(
                "{}: its feature columns differ from {}'s",
                set.spec.path.display(),
                sets[first].spec.path.display()
            );
        }
        let scaled = if standardize {
            standardize_targets(&set.data.targets)
        } else {
            set.data.targets.clone()
        };
        let tag = |l: &str| {
            if several {
                format!("{label}/{l}")
            } else {
                l.to_string()
            }
        };
        let d = &set.data;
        out.data.rows.extend(d.rows.iter().cloned());
        out.data.targets.extend(scaled);
        out.data.topics.extend(d.topics.iter().map(|t| tag(t)));
        out.data.systems.extend(d.systems.iter().map(|t| tag(t)));
        out.data.words.extend((0..d.len()).map(|i| d.words_of(i)));
        if grouped {
            let corpus = corpus_label(s);
            let fold = |l: &str| format!("{corpus}/{l}");
            out.data
                .fold_topics
                .extend(d.topics.iter().map(|t| fold(t)));
            out.data
                .fold_systems
                .extend(d.systems.iter().map(|t| fold(t)));
        }
        out.set_of_row.extend(std::iter::repeat_n(s, d.len()));
        out.original_targets.extend(d.targets.iter().copied());
    }
    out.equal_set_weights = options.equal_set_weights && several;
    Ok(out)
}

/// z-scores of `targets` (population sd; a constant set maps to 0).
pub fn standardize_targets(targets: &[f64]) -> Vec<f64> {
    let n = targets.len().max(1) as f64;
    let mean = targets.iter().sum::<f64>() / n;
    let sd = (targets.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / n).sqrt();
    targets
        .iter()
        .map(|t| if sd > 1e-12 { (t - mean) / sd } else { 0.0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_specs_split_at_the_last_colon() {
        assert_eq!(
            parse_set_spec("a/b:c.jsonl:relevance"),
            Ok(SetSpec::new("a/b:c.jsonl", "relevance"))
        );
        assert!(parse_set_spec("summeval.jsonl").is_err());
        assert!(parse_set_spec("summeval.jsonl:").is_err());
        assert!(parse_set_spec(":relevance").is_err());
    }

    #[test]
    fn calibration_is_monotone_and_clamped() {
        let c = Calibration::fit(&[0.0, 1.0, 2.0], &[1.0, 3.0, 5.0]).expect("fit");
        assert!((c.slope - 2.0).abs() < 1e-12 && (c.intercept - 1.0).abs() < 1e-12);
        assert_eq!(c.apply(10.0), 5.0);
        assert_eq!(c.apply(-10.0), 1.0);
        let reversed = Calibration::fit(&[0.0, 1.0, 2.0], &[5.0, 3.0, 1.0]).expect("fit");
        assert_eq!(reversed.slope, 0.0);
        assert_eq!(reversed.apply(7.0), 3.0);
    }

    #[test]
    fn a_flat_pooled_calibration_takes_the_within_topic_slope() {
        // Two topics whose raw levels run against their ratings (topic b sits 10 higher in raw
        // and 2 lower in rating), while within each topic one unit of raw is half a point.
        let raw = [0.0, 2.0, 10.0, 12.0];
        let targets = [3.0, 4.0, 1.0, 2.0];
        let topics: Vec<String> = ["a", "a", "b", "b"].map(String::from).to_vec();
        assert_eq!(Calibration::fit(&raw, &targets).expect("fit").slope, 0.0);
        let c = Calibration::fit_within_topics(&raw, &targets, &topics).expect("fit");
        // Slope 0.5 through the pooled means (raw 6, rating 2.5); range [1, 4].
        assert!((c.slope - 0.5).abs() < 1e-12, "{c:?}");
        assert!((c.apply(6.0) - 2.5).abs() < 1e-12, "{c:?}");
        assert_eq!((c.min, c.max), (1.0, 4.0));
        assert!(c.apply(5.0) < c.apply(7.0));
        // A positive pooled slope is kept as it is.
        let rising = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(
            Calibration::fit_within_topics(&rising, &rising, &topics),
            Calibration::fit(&rising, &rising)
        );
        // No within-topic signal either: the flat map stays.
        let flat =
            Calibration::fit_within_topics(&raw, &[3.0, 3.0, 1.0, 1.0], &topics).expect("fit");
        assert_eq!(flat.slope, 0.0);
    }
}
