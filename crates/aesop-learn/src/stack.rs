//! Stacked models in the style of CREMER (Lin, Liu, Ng & Kan 2012, §4–5): base models, each
//! trained on its own human score (e.g. a content model on `relevance` and a readability model on
//! `coherence`), and a meta learner (an RBF SVR in CREMER) trained on the model's target over the
//! base models' predictions, its inputs named `stack.NAME`.
//!
//! Training is honest: the meta learner is fit on *out-of-fold* base predictions over the
//! training rows (inner protocol-1 folds, topic × system, so no base model ever predicts a
//! summary whose topic or system it was trained on), and the base models are then refit on every
//! training row for prediction. Cross-validating a stacked model nests all of this inside each
//! outer cell.
//!
//! Each base model's output is standardized by the mean and standard deviation of its own
//! predictions on its training rows. The meta learner is trained on predictions of models fitted
//! on a fraction of the rows but applied to predictions of the refit on all of them, and a
//! ranking SVM's raw scores grow with the number of training pairs (with a small C, w is about
//! C times the sum of the pair differences); standardized, both are on the same scale.

pub use super::learners::{base_predictions, BaseModel};

use super::cv::{out_of_fold, Protocol1};
use super::learners::trained::transpose;
use super::learners::{self, Fitted, Hyper, LearnerKind};
use super::model_file::predict_held_out;
use super::transfer::Calibration;
use super::{train, Dataset, Trained};
use aesop_corpus::Topic;
use aesop_features::feature_plan_dropping;
use aesop_features::run::{FeatureTable, Interrupted};
use aesop_features::FeatureOptions;
use anyhow::{anyhow, bail, Context, Result};
use std::sync::atomic::AtomicBool;

/// Default inner folds (topic × system) for the out-of-fold base predictions.
pub const DEFAULT_INNER_TOPIC_FOLDS: usize = 3;
pub const DEFAULT_INNER_SYSTEM_FOLDS: usize = 2;

/// Prefix of the meta learner's input names: `stack.content`, `stack.readability`.
pub const META_PREFIX: &str = "stack.";

/// One base model as asked for on the command line:
/// `NAME=TARGET[:CLASSES[:C[:LEARNER]]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseSpec {
    pub name: String,
    /// The human score this base model learns.
    pub target: String,
    /// Feature classes; empty means every class.
    pub classes: Vec<String>,
    pub learner: LearnerKind,
    /// Fixed hyper-parameters, or `None` for inner cross-validation.
    pub hyper: Option<Hyper>,
}

impl BaseSpec {
    /// Parse `NAME=TARGET[:CLASSES[:C[:LEARNER]]]`: CLASSES comma-separated or `all` (also when
    /// empty), C the learner's C (empty: chosen by inner cross-validation), LEARNER one of the
    /// learners (default rank-svm). E.g. `content=relevance:content,rouge:0.001` or
    /// `readability=coherence:all::svr-linear`.
    pub fn parse(spec: &str) -> Result<BaseSpec> {
        let bad = |what: String| anyhow!("--stack '{spec}': {what}");
        let (name, rest) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=TARGET[:CLASSES[:C[:LEARNER]]]".into()))?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(bad(format!(
                "the name '{name}' must be non-empty letters, digits, '_' or '-'"
            )));
        }
        let parts: Vec<&str> = rest.split(':').map(str::trim).collect();
        if parts.len() > 4 {
            return Err(bad(format!(
                "too many ':' fields ({}); expected TARGET[:CLASSES[:C[:LEARNER]]]",
                parts.len()
            )));
        }
        let target = parts[0];
        if target.is_empty() {
            return Err(bad(format!("base '{name}' has no target after '='")));
        }
        let classes: Vec<String> = match parts.get(1).copied() {
            None | Some("") | Some("all") => Vec::new(),
            Some(list) => {
                let classes: Vec<String> = list.split(',').map(|c| c.trim().to_string()).collect();
                if classes.iter().any(String::is_empty) {
                    return Err(bad(format!("empty class name in '{list}'")));
                }
                classes
            }
        };
        let learner = match parts.get(3).copied() {
            None | Some("") => LearnerKind::RankSvm,
            Some(text) => LearnerKind::ALL
                .into_iter()
                .find(|k| k.name() == text)
                .ok_or_else(|| {
                    let known: Vec<&str> = LearnerKind::ALL.iter().map(|k| k.name()).collect();
                    bad(format!(
                        "unknown learner '{text}' (learners: {})",
                        known.join(", ")
                    ))
                })?,
        };
        let hyper = match parts.get(2).copied() {
            None | Some("") => None,
            Some(text) => {
                let c: f64 = text
                    .parse()
                    .map_err(|_| bad(format!("C must be a positive number, got '{text}'")))?;
                let given = learners::HyperParams {
                    c: Some(c),
                    ..Default::default()
                };
                // Checked where every hyper-parameter is; the spec's field is C, not --c.
                learners::fixed_hyper(learner, &given)
                    .map_err(|e| bad(e.to_string().replacen("--c", "C", 1)))?
            }
        };
        Ok(BaseSpec {
            name: name.to_string(),
            target: target.to_string(),
            classes,
            learner,
            hyper,
        })
    }
}

/// The base specs in canonical `NAME=TARGET:CLASSES:C:LEARNER` form (for reports).
impl std::fmt::Display for BaseSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let classes = if self.classes.is_empty() {
            "all".to_string()
        } else {
            self.classes.join(",")
        };
        let c = match self.hyper {
            Some(Hyper::RankSvm { c }) | Some(Hyper::Svr { c, .. }) => c.to_string(),
            _ => String::new(),
        };
        write!(
            f,
            "{}={}:{classes}:{c}:{}",
            self.name,
            self.target,
            self.learner.name()
        )
    }
}

/// clap value parser for `--stack`.
pub fn parse_stack_flag(text: &str) -> std::result::Result<BaseSpec, String> {
    BaseSpec::parse(text).map_err(|e| e.to_string())
}

/// A base spec resolved against the feature classes: what to compute and which columns it reads.
#[derive(Debug, Clone)]
pub struct PlannedBase {
    pub spec: BaseSpec,
    /// Classes actually used (reference-needing ones dropped with --no-references).
    pub classes: Vec<String>,
    /// The base model's feature columns, in order.
    pub feature_names: Vec<String>,
    /// Positions of `feature_names` in the stacked model's columns.
    pub columns: Vec<usize>,
}

/// Everything a stacked model computes: the union of the bases' classes and columns, and each
/// base resolved against them.
#[derive(Debug, Clone)]
pub struct StackPlan {
    pub classes: Vec<String>,
    pub feature_names: Vec<String>,
    pub bases: Vec<PlannedBase>,
}

/// Resolve `specs` (at least one, names distinct) into a [`StackPlan`].
pub fn plan(
    specs: &[BaseSpec],
    reference_free: bool,
    options: &FeatureOptions,
) -> Result<StackPlan> {
    if specs.is_empty() {
        bail!("a stacked model needs at least one --stack base model");
    }
    for (i, s) in specs.iter().enumerate() {
        if specs[..i].iter().any(|t| t.name == s.name) {
            bail!("--stack: two base models are named '{}'", s.name);
        }
    }
    let mut classes: Vec<String> = Vec::new();
    let mut feature_names: Vec<String> = Vec::new();
    let mut bases = Vec::new();
    for spec in specs {
        let (base_classes, names) = feature_plan_dropping(&spec.classes, reference_free, options)
            .with_context(|| format!("--stack base '{}'", spec.name))?;
        for c in &base_classes {
            if !classes.contains(c) {
                classes.push(c.clone());
            }
        }
        let mut columns = Vec::with_capacity(names.len());
        for n in &names {
            match feature_names.iter().position(|f| f == n) {
                Some(at) => columns.push(at),
                None => {
                    columns.push(feature_names.len());
                    feature_names.push(n.clone());
                }
            }
        }
        bases.push(PlannedBase {
            spec: spec.clone(),
            classes: base_classes,
            feature_names: names,
            columns,
        });
    }
    Ok(StackPlan {
        classes,
        feature_names,
        bases,
    })
}

/// The training rows of a stacked model: the meta target's rows over every base's columns, and
/// each base's own target on the same rows.
#[derive(Debug, Clone)]
pub struct StackData {
    /// Rows with the meta target, columns = [`StackPlan::feature_names`].
    pub data: Dataset,
    /// `base_targets[b][r]`: base b's target for row r, NaN when the summary lacks that score
    /// (such rows get base predictions but do not train base b).
    pub base_targets: Vec<Vec<f64>>,
}

impl StackData {
    /// Rows of `table` (extracted from `topics`) that carry `target`, with the bases' targets.
    pub fn from_table(
        table: &FeatureTable,
        topics: &[Topic],
        target: &str,
        plan: &StackPlan,
    ) -> Result<StackData> {
        let data = Dataset::from_table(table, topics, target, &plan.feature_names)?;
        // Dataset::from_table keeps exactly the summaries with a finite `target`, in set order.
        let kept: Vec<&aesop_corpus::Summary> = topics
            .iter()
            .flat_map(|t| &t.summaries)
            .filter(|s| s.scores.get(target).is_some_and(|y| y.is_finite()))
            .collect();
        let mut base_targets = Vec::new();
        for base in &plan.bases {
            let ys: Vec<f64> = kept
                .iter()
                .map(|s| {
                    s.scores
                        .get(&base.spec.target)
                        .copied()
                        .filter(|y| y.is_finite())
                        .unwrap_or(f64::NAN)
                })
                .collect();
            if ys.iter().all(|y| y.is_nan()) {
                bail!(
                    "--stack base '{}': no summary with the target '{target}' has a score named '{}'",
                    base.spec.name,
                    base.spec.target
                );
            }
            base_targets.push(ys);
        }
        Ok(StackData { data, base_targets })
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn subset(&self, indices: &[usize]) -> StackData {
        StackData {
            data: self.data.subset(indices),
            base_targets: self
                .base_targets
                .iter()
                .map(|ys| indices.iter().map(|&i| ys[i]).collect())
                .collect(),
        }
    }
}

/// How to train a stacked model (besides the bases).
#[derive(Debug, Clone)]
pub struct StackSettings {
    pub meta_learner: LearnerKind,
    /// Fixed meta hyper-parameters, or `None` for inner cross-validation.
    pub meta_hyper: Option<Hyper>,
    pub inner_topic_folds: usize,
    pub inner_system_folds: usize,
    pub seed: u64,
}

/// Fit base `base` on rows `indices` of `data` (those carrying its target).
pub fn fit_base(
    base: &PlannedBase,
    data: &StackData,
    base_index: usize,
    indices: &[usize],
    seed: u64,
) -> Result<BaseModel> {
    let ys = &data.base_targets[base_index];
    let rows: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|&i| ys[i].is_finite())
        .collect();
    if rows.is_empty() {
        bail!(
            "base model '{}': no training row has the score '{}'",
            base.spec.name,
            base.spec.target
        );
    }
    let own = Dataset {
        names: base.feature_names.clone(),
        rows: rows
            .iter()
            .map(|&i| base.columns.iter().map(|&c| data.data.rows[i][c]).collect())
            .collect(),
        targets: rows.iter().map(|&i| ys[i]).collect(),
        topics: rows.iter().map(|&i| data.data.topics[i].clone()).collect(),
        systems: rows.iter().map(|&i| data.data.systems[i].clone()).collect(),
        words: rows.iter().map(|&i| data.data.words_of(i)).collect(),
        fold_topics: Vec::new(),
        fold_systems: Vec::new(),
    };
    let model = train(&own, base.spec.learner, base.spec.hyper, seed)
        .with_context(|| format!("base model '{}'", base.spec.name))?;
    let fitted = model.predict(&own.rows)?;
    let n = fitted.len() as f64;
    let mean = fitted.iter().sum::<f64>() / n;
    let sd = (fitted.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / n).sqrt();
    Ok(BaseModel {
        name: base.spec.name.clone(),
        target: base.spec.target.clone(),
        classes: base.classes.clone(),
        feature_names: base.feature_names.clone(),
        columns: base.columns.clone(),
        model,
        output_mean: mean,
        // A constant base (e.g. all weights 0) maps to 0 instead of dividing by 0.
        output_std: if sd > 1e-12 { sd } else { 1.0 },
    })
}

/// What the inner fold layout's error says it is about.
const INNER_FOLDS: &str =
    "inner folds of the stacked model (--stack-topic-folds, --stack-system-folds)";

/// The inner split's fold counts, checked from the flags alone (before any set is read).
pub fn check_inner_folds(topic_folds: usize, system_folds: usize) -> Result<()> {
    crate::cv::check_fold_counts(topic_folds, system_folds).context(INNER_FOLDS)
}

/// The inner fold layout over `data`'s rows used for the out-of-fold base predictions (its seed
/// is derived from `settings.seed`, so it differs from an outer layout with the same seed).
pub fn inner_layout(data: &StackData, settings: &StackSettings) -> Result<Protocol1> {
    Protocol1::new(
        &data.data.topics,
        &data.data.systems,
        settings.inner_topic_folds,
        settings.inner_system_folds,
        settings.seed.wrapping_add(0x5354_4143),
    )
    .context(INNER_FOLDS)
}

/// Out-of-fold predictions of every base for every row of `data` under `layout`
/// (`[row][base]`): each row's value comes from a base model fit only on rows sharing neither its
/// topic nor (with more than one system fold) its system.
pub fn out_of_fold_base_predictions(
    bases: &[PlannedBase],
    data: &StackData,
    layout: &Protocol1,
    seed: u64,
    cancel: &AtomicBool,
) -> Result<Vec<Vec<f64>>> {
    let columns = bases
        .iter()
        .enumerate()
        .map(|(b, base)| {
            out_of_fold(layout, |train_idx, test_idx| {
                Interrupted::check(cancel)?;
                let model = fit_base(base, data, b, train_idx, seed)?;
                let rows: Vec<Vec<f64>> = test_idx
                    .iter()
                    .map(|&i| data.data.rows[i].clone())
                    .collect();
                model.predict(&rows)
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(transpose(&columns, data.len()))
}

/// Train a stacked model on `data`: out-of-fold base predictions over inner folds, the meta
/// learner on them, then every base refit on all rows. The result's `learner`, `hyper` and
/// `scaler` are the meta learner's; its `fitted` is [`Fitted::Stacked`].
pub fn train_stacked(
    bases: &[PlannedBase],
    data: &StackData,
    settings: &StackSettings,
    cancel: &AtomicBool,
) -> Result<Trained> {
    let layout = inner_layout(data, settings)?;
    let meta_rows = out_of_fold_base_predictions(bases, data, &layout, settings.seed, cancel)?;
    let meta_data = Dataset {
        names: bases
            .iter()
            .map(|b| format!("{META_PREFIX}{}", b.spec.name))
            .collect(),
        rows: meta_rows,
        targets: data.data.targets.clone(),
        topics: data.data.topics.clone(),
        systems: data.data.systems.clone(),
        words: data.data.words.clone(),
        fold_topics: Vec::new(),
        fold_systems: Vec::new(),
    };
    let meta = train(
        &meta_data,
        settings.meta_learner,
        settings.meta_hyper,
        settings.seed,
    )
    .context("meta learner of the stacked model")?;
    let all: Vec<usize> = (0..data.len()).collect();
    let refit = bases
        .iter()
        .enumerate()
        .map(|(b, base)| fit_base(base, data, b, &all, settings.seed))
        .collect::<Result<Vec<_>>>()?;
    Ok(Trained {
        learner: meta.learner,
        hyper: meta.hyper,
        scaler: meta.scaler,
        fitted: Fitted::Stacked {
            bases: refit,
            meta: Box::new(meta.fitted),
        },
    })
}

/// Protocol 1 for a stacked model: in each outer cell the whole of [`train_stacked`] (inner
/// folds, meta learner, refit) runs on the cell's training rows only. Prints a line per cell.
pub fn cross_validate_stacked(
    bases: &[PlannedBase],
    data: &StackData,
    settings: &StackSettings,
    layout: &Protocol1,
    cancel: &AtomicBool,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let cells = layout.topic_folds * layout.system_folds;
    let mut done = 0;
    let started = std::time::Instant::now();
    let mut calibrated = vec![f64::NAN; data.len()];
    let raw = out_of_fold(layout, |train_idx, test_idx| {
        Interrupted::check(cancel)?;
        let train = data.subset(train_idx);
        let model = train_stacked(bases, &train, settings, cancel)?;
        // Mapped to the target's scale as `train` maps a stacked model: fitted on the cell's
        // training rows.
        let calibration = Calibration::fit_within_topics(
            &model.predict(&train.data.rows)?,
            &train.data.targets,
            &train.data.topics,
        )
        .context("no finite prediction on the training rows to calibrate with")?;
        let rows: Vec<Vec<f64>> = test_idx
            .iter()
            .map(|&i| data.data.rows[i].clone())
            .collect();
        let (predictions, _) = predict_held_out(&model, &train.data.rows, &rows)?;
        for (&i, &p) in test_idx.iter().zip(&predictions) {
            calibrated[i] = calibration.apply(p);
        }
        done += 1;
        aesop_core::eprintln_quiet!(
            "stacked cross-validation: cell {done}/{cells} ({} training rows, meta {:?}), {:.1} s",
            train_idx.len(),
            model.hyper,
            started.elapsed().as_secs_f64()
        );
        Ok(predictions)
    })?;
    Ok((raw, calibrated))
}
