//! `train`, `score` and `cross-validate` as library functions (src/main.rs wires them).

use super::cv::{summary_level_tau, system_level_tau, Protocol1};
use super::learners::{self, Hyper, LearnerKind};
use super::model_file::{self, ModelFile, TrainingSet, TrainingSettings};
use super::multiset::{self, cross_validate_pooled, load_sets, train_calibrated, Recipe};
pub use super::score_stream::ScoreArgs;
use super::stack::{self, BaseSpec, StackData, StackPlan, StackSettings};
use super::transfer::{
    self, mean_absolute_error, Calibration, Normalization, PoolOptions, SetRecord, SetSpec,
    TransferInfo,
};
use super::Dataset;
use aesop_core::hash::content_hash;
use aesop_core::output::OutputFile;
use aesop_corpus::{jsonl, Topic};
use aesop_eval::{or_dash, or_dash_signed};
use aesop_features::run::{extract_features, FeatureTable};
use aesop_features::{build_classes, feature_plan, select_features, FeatureOptions};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// What to learn and from what: shared by `train`, `cross-validate` and `ablate`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LearnArgs {
    /// Judgment set (JSON Lines) with human scores (or give each set with --set).
    #[cfg_attr(feature = "cli", arg(required_unless_present = "sets"))]
    pub set: Option<PathBuf>,
    /// Score to learn (e.g. pyramid, responsiveness, relevance). With --set only: the name of
    /// the model's target (default: the sets' column when they all name the same one).
    #[cfg_attr(feature = "cli", arg(long))]
    pub target: Option<String>,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub transfer: TransferArgs,
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = LearnerKind::RankSvm))]
    pub learner: LearnerKind,
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ',', help = aesop_features::registry::classes_help()))]
    pub classes: Vec<String>,
    #[cfg_attr(feature = "cli", arg(long, help = aesop_features::registry::no_references_help()))]
    pub no_references: bool,
    /// Keep only these features of the classes: comma-separated names, or prefixes ending in
    /// `*` (e.g. `neural.src_mean,neural.pmi_*`). Each must match a feature. Default: all.
    #[cfg_attr(
        feature = "cli",
        arg(long = "features", value_delimiter = ',', value_name = "NAME")
    )]
    pub features: Vec<String>,
    /// Seed of the folds, the solvers and every resampling.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub hyper: HyperArgs,
    #[cfg_attr(feature = "cli", command(flatten))]
    pub stack: StackArgs,
    /// Use a built-in model's recipe (e.g. `responsiveness` or `builtin:readability-lm-noref`;
    /// `aesop models` lists them): its classes, feature columns, learner, C, reference use and
    /// feature-class options, read from the embedded model, on the sets given here. Flags that
    /// would change the recipe are refused beside it.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "BUILTIN",
            conflicts_with_all = [
                "classes", "features", "no_references", "learner", "c", "epsilon",
                "kernel_param", "penalty", "l1_ratio", "trees", "max_depth", "min_leaf",
                "normalize", "equal_set_weights", "bases",
            ]
        )
    )]
    pub recipe: Option<String>,
}

impl LearnArgs {
    /// Learn `target` from `set` with the defaults: rank-svm, all classes, seed 1, inner CV.
    pub fn new(set: impl Into<PathBuf>, target: &str) -> LearnArgs {
        LearnArgs {
            set: Some(set.into()),
            target: Some(target.to_string()),
            transfer: TransferArgs::default(),
            learner: LearnerKind::RankSvm,
            classes: Vec::new(),
            no_references: false,
            features: Vec::new(),
            seed: 1,
            hyper: HyperArgs::default(),
            stack: StackArgs::default(),
            recipe: None,
        }
    }
}

/// Several judgment sets and how they are pooled (issue 13; see `transfer`).
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TransferArgs {
    /// A judgment set and the column to learn from it; repeat for several sets. COLUMN is an
    /// original score name (relevance) or a mapped one (responsiveness, readability, pyramid).
    /// Ranking pairs stay within a topic of a set; regression targets are standardized per set.
    #[cfg_attr(feature = "cli", arg(long = "set", value_name = "PATH:COLUMN", value_parser = transfer::parse_set_spec))]
    pub sets: Vec<SetSpec>,
    /// Weigh every set equally whatever its number of summaries.
    #[cfg_attr(feature = "cli", arg(long))]
    pub equal_set_weights: bool,
    /// Normalize each feature within its topic before learning (stored in the model, applied
    /// when scoring). topic-z and topic-rank make a summary's score depend on the other
    /// summaries of its topic in the same batch.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Normalization::None))]
    pub normalize: Normalization,
}

impl LearnArgs {
    /// Every set to learn from: the positional set with --target, then each --set.
    /// Every judgment set this run reads (an output may be none of them).
    pub fn input_paths(&self) -> Vec<PathBuf> {
        self.set_specs()
            .map(|specs| specs.into_iter().map(|s| s.path).collect())
            .unwrap_or_else(|_| self.set.iter().cloned().collect())
    }

    pub fn set_specs(&self) -> Result<Vec<SetSpec>> {
        let mut specs = Vec::new();
        if let Some(set) = &self.set {
            let Some(target) = &self.target else {
                bail!(
                    "{}: give the score to learn with --target (or use --set PATH:COLUMN)",
                    set.display()
                );
            };
            specs.push(SetSpec::new(set, target));
        }
        specs.extend(self.transfer.sets.iter().cloned());
        if specs.is_empty() {
            bail!("no judgment set: give SET --target COLUMN or --set PATH:COLUMN");
        }
        Ok(specs)
    }

    /// The model's target: --target, else the column every set names.
    pub fn model_target(&self) -> Result<String> {
        if let Some(t) = &self.target {
            return Ok(t.clone());
        }
        let specs = self.set_specs()?;
        let first = &specs[0].column;
        if specs.iter().all(|s| &s.column == first) {
            Ok(first.clone())
        } else {
            bail!("the sets name different columns; name the model's target with --target (e.g. --target responsiveness)")
        }
    }

    /// The single set of commands that take one (stacked models).
    fn single_set(&self) -> Result<SetSpec> {
        let specs = self.set_specs()?;
        if specs.len() > 1 {
            bail!(
                "stacked models take one judgment set, not {} (give one --set or SET)",
                specs.len()
            );
        }
        if self.transfer.normalize != Normalization::None {
            bail!("stacked models take no --normalize");
        }
        specs.into_iter().next().context("no judgment set")
    }

    /// Flags that would change nothing in this run, refused rather than ignored (the CLI gives
    /// these as usage errors, exit 2): `--equal-set-weights` with one set or with `--stack`.
    pub fn check_no_op_flags(&self) -> Result<()> {
        // A recipe's set weighting is the built-in's own, not a flag given here.
        if self.transfer.equal_set_weights && self.recipe.is_none() {
            if !self.stack.bases.is_empty() {
                bail!("--equal-set-weights weighs several sets against each other; a stacked model (--stack) takes one set");
            }
            let sets = usize::from(self.set.is_some()) + self.transfer.sets.len();
            if sets < 2 {
                bail!("--equal-set-weights weighs several sets against each other; give two or more with --set PATH:COLUMN");
            }
        }
        Ok(())
    }

    pub(crate) fn recipe<'a>(&'a self, hyper: Option<Hyper>, target: &'a str) -> Recipe<'a> {
        Recipe {
            target,
            learner: self.learner,
            hyper,
            seed: self.seed,
            pool: PoolOptions {
                standardize_per_set: false,
                equal_set_weights: self.transfer.equal_set_weights,
            },
            anchor: self.hyper.anchor.as_deref(),
        }
    }
}

/// A stacked (CREMER-style) model: base models trained on their own targets, and `--learner`
/// (with the hyper-parameter flags) as the meta learner over their predictions.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct StackArgs {
    /// A base model of a stacked model; repeat for each. CLASSES: comma-separated or `all`;
    /// C: fixed C (empty: inner cross-validation); LEARNER: default rank-svm. `--target` and
    /// `--learner` are then the meta learner's, `--no-references` applies to every base, and
    /// `--classes` is refused. Example: --stack content=relevance:content,rouge:0.001
    /// --stack readability=coherence:all:0.0001 --learner svr-rbf
    #[cfg_attr(feature = "cli", arg(long = "stack", value_name = "NAME=TARGET[:CLASSES[:C[:LEARNER]]]",
          value_parser = stack::parse_stack_flag))]
    pub bases: Vec<BaseSpec>,
    /// Stacked model: topic folds of the inner split that gives the meta learner out-of-fold
    /// base predictions.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = stack::DEFAULT_INNER_TOPIC_FOLDS))]
    pub stack_topic_folds: usize,
    /// Stacked model: system folds of that inner split.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = stack::DEFAULT_INNER_SYSTEM_FOLDS))]
    pub stack_system_folds: usize,
}

impl Default for StackArgs {
    fn default() -> StackArgs {
        StackArgs {
            bases: Vec::new(),
            stack_topic_folds: stack::DEFAULT_INNER_TOPIC_FOLDS,
            stack_system_folds: stack::DEFAULT_INNER_SYSTEM_FOLDS,
        }
    }
}

/// Protocol 1's default folds (EVALUATION.md).
/// Protocol 2 has no folds: each held-out set is the test set, so fold flags given beside
/// `--leave-one-set-out` would be ignored (`cross-validate` and `ablate`; a usage error in the
/// binary, said before any set is read).
pub fn check_folds_apply(
    leave_one_set_out: bool,
    topic_folds: usize,
    system_folds: usize,
) -> Result<()> {
    if leave_one_set_out
        && (topic_folds != DEFAULT_TOPIC_FOLDS || system_folds != DEFAULT_SYSTEM_FOLDS)
    {
        bail!("--topic-folds and --system-folds are protocol 1's; --leave-one-set-out holds out whole sets");
    }
    Ok(())
}

pub const DEFAULT_TOPIC_FOLDS: usize = 5;
pub const DEFAULT_SYSTEM_FOLDS: usize = 4;

/// Say so when the data has fewer topics or systems than the `topic_folds`×`system_folds`
/// asked for (the layout then has one fold per topic or system, and the report gives the folds
/// used); `cross-validate` and `ablate` both.
pub(crate) fn note_fewer_folds(topic_folds: usize, system_folds: usize, layout: &Protocol1) {
    if layout.topic_folds < topic_folds || layout.system_folds < system_folds {
        aesop_core::eprintln_quiet!(
            "note: {topic_folds}×{system_folds} folds asked for, {}×{} used: the data has no \
             more topics or systems",
            layout.topic_folds,
            layout.system_folds
        );
    }
}

/// What a learning command computes: the classes, the model's columns, and for a stacked
/// model the bases resolved against those columns.
struct LearnPlan {
    classes: Vec<String>,
    names: Vec<String>,
    stack: Option<StackPlan>,
}

impl LearnArgs {
    /// The checks of [`LearnArgs::plan`] alone (classes, features, stack, anchor, options
    /// against the columns), before any set is read: the CLI makes a failure a usage error.
    pub fn check_plan(&self, options: &FeatureOptions) -> Result<()> {
        self.model_target()?;
        self.plan(options).map(|_| ())
    }

    fn plan(&self, options: &FeatureOptions) -> Result<LearnPlan> {
        self.check_no_op_flags()?;
        if self.hyper.anchor.is_some() && !self.stack.bases.is_empty() {
            bail!("--anchor cannot be combined with --stack");
        }
        if self.stack.bases.is_empty() {
            if self.stack.stack_topic_folds != stack::DEFAULT_INNER_TOPIC_FOLDS
                || self.stack.stack_system_folds != stack::DEFAULT_INNER_SYSTEM_FOLDS
            {
                bail!("--stack-topic-folds and --stack-system-folds set a stacked model's inner split: give --stack too");
            }
            let (classes, names) = feature_plan(&self.classes, self.no_references, options)?;
            let names = select_features(names, &self.features)?;
            // Only the classes that give a column are computed (and recorded in a model):
            // `--features rouge.r1_recall` made scoring compute, and warn about, every default
            // class.
            let classes: Vec<String> = classes
                .into_iter()
                .filter(|c| {
                    let prefix = format!("{c}.");
                    names.iter().any(|n| n.starts_with(&prefix))
                })
                .collect();
            self.check_options_apply(options, &classes, &names)?;
            if let Some(anchor) = &self.hyper.anchor {
                // Checked before any feature is computed; the fit checks the column's values.
                crate::anchor_column(self.learner, anchor, &names)?;
            }
            return Ok(LearnPlan {
                classes,
                names,
                stack: None,
            });
        }
        if !self.classes.is_empty() {
            bail!("--classes cannot be combined with --stack: each base model names its classes (NAME=TARGET:CLASSES)");
        }
        if !self.features.is_empty() {
            bail!("--features cannot be combined with --stack: each base model uses all features of its classes");
        }
        let plan = stack::plan(&self.stack.bases, self.no_references, options)?;
        self.check_options_apply(options, &plan.classes, &plan.feature_names)?;
        Ok(LearnPlan {
            classes: plan.classes.clone(),
            names: plan.feature_names.clone(),
            stack: Some(plan),
        })
    }

    /// Feature options that change none of the computed `classes`, or none of the `columns` a
    /// model learns from, are refused ([`aesop_features::check_options_apply`]). A recipe's
    /// options are the built-in's own, recorded for every class, and the recipe already refuses
    /// option flags beside it.
    pub fn check_options_apply(
        &self,
        options: &FeatureOptions,
        classes: &[String],
        columns: &[String],
    ) -> Result<()> {
        if self.recipe.is_some() {
            return Ok(());
        }
        aesop_features::check_options_apply(options, classes, Some(columns))
    }

    fn stack_settings(&self, meta_hyper: Option<Hyper>) -> StackSettings {
        StackSettings {
            meta_learner: self.learner,
            meta_hyper,
            inner_topic_folds: self.stack.stack_topic_folds,
            inner_system_folds: self.stack.stack_system_folds,
            seed: self.seed,
        }
    }
}

/// Hyper-parameters fixed on the command line. Unset, they are chosen by inner cross-validation
/// over the training topics (the grids are in learners.rs).
#[derive(Debug, Clone, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct HyperArgs {
    /// C of rank-svm and the SVRs.
    #[cfg_attr(feature = "cli", arg(long, value_parser = learners::parse_positive))]
    pub c: Option<f64>,
    /// SVR: half-width of the ε-tube in target standard deviations (default 0.1; needs --c).
    #[cfg_attr(feature = "cli", arg(long, value_parser = learners::parse_positive))]
    pub epsilon: Option<f64>,
    /// SVR: RBF width factor (default 0.5) or polynomial degree (default 2); needs --c.
    #[cfg_attr(feature = "cli", arg(long, value_parser = learners::parse_positive))]
    pub kernel_param: Option<f64>,
    /// Elastic net: penalty (fixes the hyper-parameters; --l1-ratio defaults to 0.5).
    #[cfg_attr(feature = "cli", arg(long, value_parser = learners::parse_positive))]
    pub penalty: Option<f64>,
    /// Elastic net: share of the L1 penalty, in [0, 1] (needs --penalty).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_parser = aesop_features::named_options::unit_interval)
    )]
    pub l1_ratio: Option<f64>,
    /// Random forest: number of trees (default 100).
    #[cfg_attr(feature = "cli", arg(long))]
    pub trees: Option<usize>,
    /// Random forest: maximum depth (default unlimited).
    #[cfg_attr(feature = "cli", arg(long))]
    pub max_depth: Option<u16>,
    /// Random forest: minimum samples per leaf (default 5).
    #[cfg_attr(feature = "cli", arg(long))]
    pub min_leaf: Option<usize>,
    /// rank-svm: centre the penalty on this one feature (e.g. neural.src_slor), so the model
    /// starts as that feature, signed as it orders the training pairs, and C sets how far the
    /// other features may move it (docs/RESULTS.md, "Anchored rankers").
    #[cfg_attr(feature = "cli", arg(long, value_name = "FEATURE"))]
    pub anchor: Option<String>,
}

impl HyperArgs {
    /// The fixed hyper-parameters for `learner`, or `None` to choose them by inner CV
    /// (checked by [`learners::fixed_hyper`]).
    pub fn fixed(&self, learner: LearnerKind) -> Result<Option<Hyper>> {
        learners::fixed_hyper(learner, &self.params())
    }

    /// The same values as the learners' [`learners::HyperParams`].
    pub fn params(&self) -> learners::HyperParams {
        learners::HyperParams {
            c: self.c,
            epsilon: self.epsilon,
            kernel_param: self.kernel_param,
            penalty: self.penalty,
            l1_ratio: self.l1_ratio,
            trees: self.trees,
            max_depth: self.max_depth,
            min_leaf: self.min_leaf,
        }
    }
}

/// `aesop train SET --target T [--learner L] [--classes …] [--no-references] -o MODEL`
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TrainArgs {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub learn: LearnArgs,
    /// Model file to write.
    #[cfg_attr(feature = "cli", arg(short, long))]
    pub output: PathBuf,
    /// A report of this model's recipe to store in the model file: `cross-validate --report`
    /// (its `calibrated_mae` is the card's held-out error) or `evaluate --json`. A target,
    /// learner, feature list or sets other than the model's are refused.
    #[cfg_attr(feature = "cli", arg(long))]
    pub report: Option<PathBuf>,
}

/// `aesop cross-validate SET --target T …` (protocol 1 of EVALUATION.md)
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CrossValidateArgs {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub learn: LearnArgs,
    /// Topic folds (protocol 1; at most one per topic).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = DEFAULT_TOPIC_FOLDS))]
    pub topic_folds: usize,
    /// System folds (protocol 1; at most one per system).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = DEFAULT_SYSTEM_FOLDS))]
    pub system_folds: usize,
    /// Out-of-fold predictions to write (JSON Lines).
    #[cfg_attr(feature = "cli", arg(short, long))]
    pub output: PathBuf,
    /// Also write the report as JSON here.
    #[cfg_attr(feature = "cli", arg(long))]
    pub report: Option<PathBuf>,
    /// Protocol 2: for each --set, train on all the others and score it; report each held-out
    /// set next to the best single feature of the same classes on it, with a paired test.
    #[cfg_attr(feature = "cli", arg(long))]
    pub leave_one_set_out: bool,
    /// Bootstrap (and permutation) samples of the --leave-one-set-out statistics.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1000))]
    pub bootstrap: usize,
}

/// Summary- and system-level τ of one set of a pooled protocol-1 run.
#[derive(Debug, Clone, Serialize)]
pub struct PerSetTau {
    pub set: String,
    pub summary_kendall_tau: f64,
    pub system_kendall_tau: f64,
}

/// The report of a protocol-1 run.
#[derive(Debug, Clone, Serialize)]
pub struct CvReport {
    pub set: String,
    pub target: String,
    pub learner: String,
    /// Base models of a stacked model (`NAME=TARGET:CLASSES:C:LEARNER`); `learner` is then the
    /// meta learner. Empty for a plain model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<String>,
    pub classes: Vec<String>,
    pub reference_free: bool,
    pub features: usize,
    /// The model's columns, and what else a run needs to be reproduced: the hyper-parameters
    /// (fixed, or chosen by inner cross-validation), the anchor, the recipe, and the
    /// feature-class options that differ from the defaults (as `aesop models FILE` shows them).
    pub feature_names: Vec<String>,
    pub hyper: String,
    pub anchor: Option<String>,
    pub recipe: Option<String>,
    pub feature_options_changed: serde_json::Value,
    pub topic_folds: usize,
    pub system_folds: usize,
    pub seed: u64,
    pub rows: usize,
    pub topics: usize,
    pub systems: usize,
    /// Kendall τ-b within topics, averaged over topics. Protocol 2: the mean over the held-out
    /// sets of each set's value (each set weighs the same, as in `ablate`'s `Mean` row).
    pub summary_kendall_tau: f64,
    /// Kendall τ-b of system means. Protocol 2: the mean over the held-out sets.
    pub system_kendall_tau: f64,
    /// Every statistic of `aesop evaluate` on the pooled raw out-of-fold predictions (point
    /// estimates): Pearson and Spearman beside τ-b, system-level Pearson, and the pairwise
    /// accuracies, which count a tie of the model's scores as wrong where τ-b counts it as
    /// neither. Protocol 1 only; none when the rows cannot be laid out as one grid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statistics: Option<aesop_eval::levels::LevelStats>,
    /// Every set with its column (`PATH:COLUMN`).
    pub sets: Vec<String>,
    /// The content hash of each of `sets` (FNV-1a of the file's bytes, as model cards record
    /// it): `train --report` refused a report of other data only when its file name differed.
    pub set_hashes: Vec<String>,
    /// Bootstrap samples behind protocol 2's intervals and paired tests (`--bootstrap`); none
    /// for protocol 1, which reports point estimates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<usize>,
    /// The aesop that wrote the report (`aesop 0.1.0 (commit 0123456789ab)`).
    pub written_by: String,
    /// Within-topic feature normalization (`none`, `topic-z`, `topic-rank`).
    pub normalize: String,
    pub equal_set_weights: bool,
    /// Mean absolute error of the calibrated out-of-fold predictions (target's own scale).
    pub calibrated_mae: f64,
    /// Wall-clock seconds of the cross-validation (features excluded).
    pub seconds: f64,
    /// Per set, when several sets are pooled (protocol 1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_set: Vec<PerSetTau>,
    /// Protocol 2: one entry per held-out set.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub leave_one_set_out: Vec<multiset::HeldOut>,
}

/// The features of the set read from `path`, warning about options that changed nothing there.
fn extract(
    path: &std::path::Path,
    topics: &[Topic],
    classes: &[String],
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<FeatureTable> {
    let built = build_classes(classes, options)?;
    let table = extract_features(topics, &built, aesop_core::progress::enabled(), cancel)?;
    multiset::warn_idle_options(path, &table);
    Ok(table)
}

/// Train and save a model.
pub fn train_command(
    args: &TrainArgs,
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<ModelFile> {
    let learn = &args.learn;
    let hyper = learn.hyper.fixed(learn.learner)?;
    let target = learn.model_target()?;
    let LearnPlan {
        classes,
        names,
        stack,
    } = learn.plan(options)?;
    // The report, and the held-out error of the calibrated scores when it measured one.
    let (report, held_out_mae) = match &args.report {
        Some(path) => {
            let (text, mae) = read_training_report(path, learn, &target, &names, options)?;
            (Some(text), mae)
        }
        None => (None, None),
    };
    // Every model stores the training range of each column (format 5) and a calibration to its
    // target's scale, stacked ones included.
    let (model, training, transfer, feature_ranges) = match &stack {
        None => {
            let specs = learn.set_specs()?;
            let loaded = load_sets(
                &specs,
                &classes,
                &names,
                options,
                learn.transfer.normalize,
                multiset::Overlap::Warn,
                cancel,
            )?;
            let sets = multiset::set_data(&loaded);
            let all: Vec<usize> = (0..sets.len()).collect();
            let recipe = learn.recipe(hyper, &target);
            let pooled = transfer::pool(&sets, &all, recipe.pool)?;
            let (model, calibration) = train_calibrated(&pooled, &recipe)?;
            let first = &loaded[0];
            let training = TrainingSet {
                name: first.record.name.clone(),
                content_hash: first.record.content_hash.clone(),
                topics: loaded.iter().map(|l| l.topics).sum(),
                summaries: loaded.iter().map(|l| l.summaries).sum(),
                rows: pooled.data.len(),
            };
            let transfer = TransferInfo {
                normalization: learn.transfer.normalize,
                calibration: Some(calibration),
                sets: loaded.iter().map(|l| l.record.clone()).collect(),
                held_out_mae,
            };
            let ranges = model_file::feature_ranges(&pooled.data.rows, names.len());
            (model, training, transfer, Some(ranges))
        }
        Some(plan) => {
            let spec = learn.single_set()?;
            let hash = content_hash(&spec.path)?;
            let topics = jsonl::read_set(&spec.path)?;
            let table = extract(&spec.path, &topics, &classes, options, cancel)?;
            let data = StackData::from_table(&table, &topics, &spec.column, plan)
                .with_context(|| format!("{}", spec.path.display()))?;
            multiset::check_stack_features_present(&spec.path, &topics, &data, plan, options)?;
            let settings = learn.stack_settings(hyper);
            let model = stack::train_stacked(&plan.bases, &data, &settings, cancel)?;
            let training = TrainingSet {
                name: spec.name(),
                content_hash: hash,
                topics: topics.len(),
                summaries: table.records.len(),
                rows: data.len(),
            };
            let raw = model.predict(&data.data.rows)?;
            let calibration =
                Calibration::fit_within_topics(&raw, &data.data.targets, &data.data.topics)
                    .context("no finite prediction on the training rows to calibrate with")?;
            let transfer = TransferInfo {
                normalization: Normalization::None,
                calibration: Some(calibration),
                sets: vec![SetRecord {
                    name: training.name.clone(),
                    column: spec.column.clone(),
                    content_hash: training.content_hash.clone(),
                    rows: training.rows,
                }],
                held_out_mae,
            };
            let ranges = model_file::feature_ranges(&data.data.rows, names.len());
            (model, training, transfer, Some(ranges))
        }
    };
    let rows = training.rows;
    let classes_use_neural = classes
        .iter()
        .any(|c| aesop_features::neural::is_lm_class(c));
    // Reference-free when asked, or when every column is (`--classes content,surface` without
    // --no-references trained a model that refused topics without references).
    let reference_free =
        learn.no_references || aesop_features::all_reference_free(&classes, &names, options);
    let file = ModelFile {
        target,
        classes,
        feature_names: names,
        feature_options: options.into(),
        reference_free,
        model,
        training,
        report,
        transfer,
        neural: classes_use_neural.then(|| (&options.neural).into()),
        feature_ranges,
        anchor: learn.hyper.anchor.clone(),
        settings: TrainingSettings {
            seed: learn.seed,
            equal_set_weights: learn.transfer.equal_set_weights,
            // The defaults unless stacked: `plan` refuses the inner-split flags without --stack.
            stack_folds: model_file::InnerFolds {
                topic_folds: learn.stack.stack_topic_folds,
                system_folds: learn.stack.stack_system_folds,
            },
        },
    };
    // A flat calibration gives every summary one score: the model learned nothing usable (a
    // constant feature, a forest whose leaves hold every row).
    if file.transfer.calibration.is_some_and(|c| c.slope == 0.0) {
        aesop_core::eprintln_quiet!(
            "warning: {}: the model gives every summary the same score ({}); its features or \
             hyper-parameters leave nothing to rank by",
            args.output.display(),
            file.transfer.calibration.map_or(f64::NAN, |c| c.apply(0.0))
        );
    }
    // The report is an input too: `--report r.json -o r.json` replaced it with the model.
    let mut inputs = learn.input_paths();
    inputs.extend(args.report.clone());
    let inputs: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
    file.save_checked(&args.output, &inputs)?;
    for base in file.model.stack_bases().unwrap_or_default() {
        aesop_core::eprintln_quiet!(
            "base model {}: {} on {} ({} features, {:?})",
            base.name,
            base.model.learner.name(),
            base.target,
            base.feature_names.len(),
            base.model.hyper
        );
    }
    let anchor = learn
        .hyper
        .anchor
        .as_ref()
        .map(|a| format!(", anchored on {a}"))
        .unwrap_or_default();
    aesop_core::eprintln_quiet!(
        "trained {}{} on {rows} rows ({} features, {:?}{anchor}); wrote {}",
        learn.learner.name(),
        if stack.is_some() { " (stacked)" } else { "" },
        file.feature_names.len(),
        file.model.hyper,
        args.output.display()
    );
    Ok(file)
}

/// Read `train --report FILE`: a JSON object as `cross-validate --report` (or `evaluate
/// --json`) writes, about the model being trained. The model card shows its `calibrated_mae`,
/// so any JSON was stored before (a negative error printed as the held-out error, a report of
/// another target or feature set kept silently). Refused, naming the field: a `calibrated_mae`
/// that is not a finite number ≥ 0 (or null), and a `target`, `learner`, `feature_names`,
/// `sets` or `feature_options_changed` other than the model's; a report that records none of
/// the last four (`evaluate --json`) is stored with a warning that it could not be checked.
/// Returns the text and the error.
fn read_training_report(
    path: &std::path::Path,
    learn: &LearnArgs,
    target: &str,
    names: &[String],
    options: &FeatureOptions,
) -> Result<(String, Option<f64>)> {
    use serde_json::Value;
    let shown = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("reading report {shown}"))?;
    let value: Value = serde_json::from_str(&text).with_context(|| format!("{shown}: not JSON"))?;
    let Some(report) = value.as_object() else {
        bail!(
            "{shown}: not a report: a JSON object as `cross-validate --report` writes is expected, \
             this is {}",
            match value {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                Value::Null => "null",
                Value::Object(_) => "an object",
            }
        );
    };
    let mae = match report.get("calibrated_mae") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(mae) if mae.is_finite() && mae >= 0.0 => Some(mae),
            _ => bail!(
                "{shown}: calibrated_mae: {v} is not a mean absolute error (a number ≥ 0, or null)"
            ),
        },
    };
    match report.get("target") {
        None => bail!(
            "{shown}: target: missing; a report of `cross-validate --report` (or `evaluate \
             --json`) names the score it measured"
        ),
        Some(Value::String(t)) if t == target => {}
        Some(other) => bail!(
            "{shown}: target: the report measured {other}, this model learns \"{target}\"; give \
             the report of this model's own cross-validation"
        ),
    }
    let mut unrecorded = Vec::new();
    match report.get("learner") {
        None => unrecorded.push("learner"),
        Some(Value::String(l)) if l == learn.learner.name() => {}
        Some(other) => bail!(
            "{shown}: learner: the report measured {other}, this model is trained with \"{}\"",
            learn.learner.name()
        ),
    }
    match report.get("feature_names") {
        None => unrecorded.push("feature_names"),
        Some(v) => {
            let recorded: Option<Vec<&str>> = v
                .as_array()
                .and_then(|list| list.iter().map(Value::as_str).collect());
            let Some(recorded) = recorded else {
                bail!("{shown}: feature_names: not a list of feature names");
            };
            if recorded != names {
                let first_difference = recorded
                    .iter()
                    .zip(names)
                    .position(|(r, n)| r != n)
                    .unwrap_or(recorded.len().min(names.len()));
                bail!(
                    "{shown}: feature_names: the report measured {} features, this model has {}; \
                     they differ first at column {} ({} in the report, {} here)",
                    recorded.len(),
                    names.len(),
                    first_difference + 1,
                    recorded.get(first_difference).unwrap_or(&"none"),
                    names.get(first_difference).map_or("none", String::as_str)
                );
            }
        }
    }
    match report.get("sets") {
        None => unrecorded.push("sets"),
        Some(v) => {
            // Compared by file name and column: the report may name the files by another path.
            let key = |spec: &SetSpec| format!("{}:{}", spec.name(), spec.column);
            let recorded: Option<Vec<String>> = v.as_array().and_then(|list| {
                list.iter()
                    .map(|s| {
                        s.as_str()
                            .and_then(|s| transfer::parse_set_spec(s).ok())
                            .map(|spec| key(&spec))
                    })
                    .collect()
            });
            let Some(mut recorded) = recorded else {
                bail!("{shown}: sets: not a list of PATH:COLUMN");
            };
            let mut training: Vec<String> = learn.set_specs()?.iter().map(key).collect();
            recorded.sort();
            training.sort();
            if recorded != training {
                bail!(
                    "{shown}: sets: the report measured {}, this model is trained on {}",
                    recorded.join(" "),
                    training.join(" ")
                );
            }
        }
    }
    // The same file name may hold other data (a set re-imported, or another set's copy): the
    // hashes tell.
    match report.get("set_hashes") {
        None => unrecorded.push("set_hashes"),
        Some(v) => {
            let recorded_sets = report.get("sets").and_then(Value::as_array);
            let recorded: Option<Vec<(String, &str)>> = v.as_array().and_then(|hashes| {
                let sets = recorded_sets.filter(|sets| sets.len() == hashes.len())?;
                sets.iter()
                    .zip(hashes)
                    .map(|(set, hash)| {
                        let spec = transfer::parse_set_spec(set.as_str()?).ok()?;
                        Some((spec.name(), hash.as_str()?))
                    })
                    .collect()
            });
            let Some(recorded) = recorded else {
                bail!("{shown}: set_hashes: not one content hash per entry of `sets`");
            };
            for spec in learn.set_specs()? {
                let here = content_hash(&spec.path)?;
                if let Some((name, hash)) = recorded
                    .iter()
                    .find(|(name, hash)| *name == spec.name() && *hash != here)
                {
                    bail!(
                        "{shown}: set_hashes: the report measured {name} with content hash {hash}, \
                         the {} trained on here has {here}: the same name, other data; give the \
                         report of this model's own cross-validation",
                        spec.path.display()
                    );
                }
            }
        }
    }
    // The options that change features (`--rouge-mode b`, `--topic-word-cutoff 5`), as the
    // report and the model card record them: the same features under other options are other
    // features.
    match report.get("feature_options_changed") {
        None => unrecorded.push("feature_options_changed"),
        Some(recorded) => {
            let here = crate::card::changed_options(&options.into());
            if *recorded != here {
                let describe = |changed: &Value| match changed.as_object() {
                    Some(map) if map.is_empty() => "the default feature options".to_string(),
                    Some(map) => map
                        .iter()
                        .map(|(name, change)| format!("{name} = {}", change["value"]))
                        .collect::<Vec<_>>()
                        .join(", "),
                    None => changed.to_string(),
                };
                bail!(
                    "{shown}: feature_options_changed: the report measured features computed with \
                     {}, this model's are computed with {}",
                    describe(recorded),
                    describe(&here)
                );
            }
        }
    }
    if !unrecorded.is_empty() {
        aesop_core::eprintln_quiet!(
            "warning: {shown}: the report records no {}; stored without checking that it \
             measured this model",
            unrecorded.join(", ")
        );
    }
    Ok((text, mae))
}

/// Score a set (or plain-text files) with the named models, or with the default built-in
/// models chosen per topic, streaming (see [`super::score_stream`]). Returns the prediction
/// lines written, as (model name, score), in output order: for library callers and tests on
/// small sets; `aesop score` itself calls [`super::score_stream::score_streaming`], which keeps
/// nothing per summary.
pub fn score_command(args: &ScoreArgs, cancel: &AtomicBool) -> Result<Vec<(String, f64)>> {
    let mut written = Vec::new();
    super::score_stream::score_streaming(args, cancel, |model, score| {
        written.push((model.to_string(), score))
    })?;
    Ok(written)
}

/// One out-of-fold prediction line: the calibrated score and the model's raw output.
#[derive(Debug, Serialize)]
struct OutOfFoldLine<'a> {
    /// The judgment set's file name, when several sets are pooled.
    #[serde(skip_serializing_if = "Option::is_none")]
    set: Option<&'a str>,
    topic: &'a str,
    system: &'a str,
    target: &'a str,
    score: f64,
    raw: f64,
}

/// Protocol 1 (or with --leave-one-set-out protocol 2): out-of-fold predictions and the
/// summary- and system-level τ.
pub fn cross_validate_command(
    args: &CrossValidateArgs,
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<CvReport> {
    let learn = &args.learn;
    let hyper = learn.hyper.fixed(learn.learner)?;
    let target = learn.model_target()?;
    let LearnPlan {
        classes,
        names,
        stack,
    } = learn.plan(options)?;
    if stack.is_some() && args.leave_one_set_out {
        bail!("--leave-one-set-out does not take --stack");
    }
    let mut outputs = CvOutputs::create(args)?;
    if let Some(plan) = &stack {
        let spec = learn.single_set()?;
        let topics = jsonl::read_set(&spec.path)?;
        let table = extract(&spec.path, &topics, &classes, options, cancel)?;
        let sd = StackData::from_table(&table, &topics, &spec.column, plan)
            .with_context(|| format!("{}", spec.path.display()))?;
        multiset::check_stack_features_present(&spec.path, &topics, &sd, plan, options)?;
        let layout = Protocol1::new(
            &sd.data.topics,
            &sd.data.systems,
            args.topic_folds,
            args.system_folds,
            learn.seed,
        )?;
        let settings = learn.stack_settings(hyper);
        note_fewer_folds(args.topic_folds, args.system_folds, &layout);
        let (predictions, calibrated) =
            stack::cross_validate_stacked(&plan.bases, &sd, &settings, &layout, cancel)?;
        let data = &sd.data;
        let rows: Vec<(Option<&str>, &str, &str)> = data
            .topics
            .iter()
            .zip(&data.systems)
            .map(|(t, s)| (None, t.as_str(), s.as_str()))
            .collect();
        write_out_of_fold(
            &mut outputs.predictions,
            cancel,
            &rows,
            &spec.column,
            &predictions,
            &calibrated,
        )?;
        let mut report = cv_report(
            args,
            &target,
            &classes,
            &names,
            data,
            &predictions,
            hyper,
            options,
        );
        report.statistics = protocol1_statistics(data, &predictions);
        report.sets = vec![spec.to_string()];
        report.set_hashes = vec![content_hash(&spec.path)?];
        (report.topic_folds, report.system_folds) = (layout.topic_folds, layout.system_folds);
        report.calibrated_mae = mean_absolute_error(&calibrated, &data.targets);
        return finish_cv_report(outputs, report);
    }

    check_folds_apply(args.leave_one_set_out, args.topic_folds, args.system_folds)?;
    let specs = learn.set_specs()?;
    let loaded = load_sets(
        &specs,
        &classes,
        &names,
        options,
        learn.transfer.normalize,
        multiset::Overlap::Refuse,
        cancel,
    )?;
    let recipe = learn.recipe(hyper, &target);
    // Original labels of every pooled row, in pooling order.
    let several = loaded.len() > 1;
    let rows: Vec<(Option<&str>, &str, &str)> = loaded
        .iter()
        .flat_map(|l| {
            let set = several.then_some(l.record.name.as_str());
            l.set
                .data
                .topics
                .iter()
                .zip(&l.set.data.systems)
                .map(move |(t, s)| (set, t.as_str(), s.as_str()))
        })
        .collect();
    let sets = multiset::set_data(&loaded);
    let all: Vec<usize> = (0..sets.len()).collect();
    let pooled = transfer::pool(&sets, &all, recipe.pool)?;

    if args.leave_one_set_out {
        let started = std::time::Instant::now();
        let settings = multiset::LosoSettings {
            recipe,
            bootstrap: args.bootstrap,
        };
        let (held_out, predictions) = multiset::leave_one_set_out(&loaded, &settings)?;
        let raw: Vec<f64> = predictions.iter().flatten().map(|p| p.0).collect();
        let calibrated: Vec<f64> = predictions.iter().flatten().map(|p| p.1).collect();
        write_out_of_fold(
            &mut outputs.predictions,
            cancel,
            &rows,
            &target,
            &raw,
            &calibrated,
        )?;
        let mut report = cv_report(
            args,
            &target,
            &classes,
            &names,
            &pooled.data,
            &raw,
            hyper,
            options,
        );
        report.topic_folds = 0;
        report.system_folds = 0;
        // Pooled over the held-out sets, system means of three models' raw outputs on three
        // scales would be compared with each other; the mean over held-out sets is what
        // `ablate --leave-one-set-out` and the model cards report.
        report.summary_kendall_tau =
            multiset::mean_over_sets(held_out.iter().map(|h| h.model.summary_kendall.value)).value;
        report.system_kendall_tau =
            multiset::mean_over_sets(held_out.iter().map(|h| h.model.system_kendall.value)).value;
        report.sets = specs.iter().map(|s| s.to_string()).collect();
        report.set_hashes = loaded
            .iter()
            .map(|l| l.record.content_hash.clone())
            .collect();
        report.bootstrap = Some(args.bootstrap);
        // Over the held-out sets whose error is defined (on the target's scale, with that
        // scale taught by another set), weighted by rows.
        let (sum, n) = held_out
            .iter()
            .filter(|h| h.calibrated_mae.is_finite())
            .fold((0.0, 0usize), |(s, n), h| {
                (s + h.calibrated_mae * h.rows as f64, n + h.rows)
            });
        report.calibrated_mae = if n > 0 { sum / n as f64 } else { f64::NAN };
        report.seconds = started.elapsed().as_secs_f64();
        let table = render_loso(&report, &held_out);
        report.leave_one_set_out = held_out;
        outputs.commit(&report)?;
        aesop_core::output::print_stdout(&table)?;
        return Ok(report);
    }

    let started = std::time::Instant::now();
    let layout = Protocol1::new(
        &pooled.data.topics,
        &pooled.data.systems,
        args.topic_folds,
        args.system_folds,
        learn.seed,
    )?;
    note_fewer_folds(args.topic_folds, args.system_folds, &layout);
    let (raw, calibrated) = cross_validate_pooled(&pooled, &recipe, &layout, cancel)?;
    write_out_of_fold(
        &mut outputs.predictions,
        cancel,
        &rows,
        &target,
        &raw,
        &calibrated,
    )?;
    let mut report = cv_report(
        args,
        &target,
        &classes,
        &names,
        &pooled.data,
        &raw,
        hyper,
        options,
    );
    (report.topic_folds, report.system_folds) = (layout.topic_folds, layout.system_folds);
    report.statistics = protocol1_statistics(&pooled.data, &raw);
    report.sets = specs.iter().map(|s| s.to_string()).collect();
    report.set_hashes = loaded
        .iter()
        .map(|l| l.record.content_hash.clone())
        .collect();
    report.calibrated_mae = mae_on_scale(&pooled, &target, &calibrated);
    report.seconds = started.elapsed().as_secs_f64();
    if several {
        report.per_set = multiset::per_set_taus(&pooled, &raw, loaded.len())
            .into_iter()
            .zip(&specs)
            .map(|((summary, system), spec)| PerSetTau {
                set: spec.to_string(),
                summary_kendall_tau: summary,
                system_kendall_tau: system,
            })
            .collect();
    }
    finish_cv_report(outputs, report)
}

/// MAE of calibrated predictions on the rows whose set's column is the model's target.
fn mae_on_scale(pooled: &transfer::Pooled, target: &str, calibrated: &[f64]) -> f64 {
    let idx = pooled.rows_on_scale_of(target);
    let pick = |v: &[f64]| idx.iter().map(|&i| v[i]).collect::<Vec<f64>>();
    mean_absolute_error(&pick(calibrated), &pick(&pooled.original_targets))
}

/// The files `cross-validate` writes (`-o`, `--report`), created before any set is read: a
/// destination that cannot take its output, or two flags naming one file, fail the run before
/// anything is written, and both are committed together at the end (all or none).
struct CvOutputs {
    predictions: OutputFile,
    report: Option<OutputFile>,
}

impl CvOutputs {
    fn create(args: &CrossValidateArgs) -> Result<CvOutputs> {
        let inputs = args.learn.input_paths();
        let inputs: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
        let mut named = vec![("-o", args.output.as_path())];
        named.extend(args.report.as_deref().map(|r| ("--report", r)));
        let mut files = OutputFile::create_all(&named, &inputs)?.into_iter();
        Ok(CvOutputs {
            predictions: files.next().context("the predictions' output")?,
            report: files.next(),
        })
    }

    /// Write `report` as JSON to `--report` (if given) and commit every output.
    fn commit(self, report: &CvReport) -> Result<()> {
        let mut files = vec![self.predictions];
        if let Some(mut file) = self.report {
            serde_json::to_writer_pretty(&mut file, report)?;
            files.push(file);
        }
        OutputFile::commit_all(files)
    }
}

/// Write the out-of-fold predictions into `out` (committed with the report); after Ctrl-C
/// during the folds nothing is written (exit 130, run::Interrupted), never a full-looking file.
fn write_out_of_fold(
    out: &mut OutputFile,
    cancel: &AtomicBool,
    rows: &[(Option<&str>, &str, &str)],
    target: &str,
    raw: &[f64],
    calibrated: &[f64],
) -> Result<()> {
    if cancel.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(aesop_features::run::Interrupted.into());
    }
    for ((&(set, topic, system), &raw), &score) in rows.iter().zip(raw).zip(calibrated) {
        let line = OutOfFoldLine {
            set,
            topic,
            system,
            target,
            score,
            raw,
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `aesop evaluate`'s statistics of protocol 1's pooled out-of-fold predictions (protocol 2
/// reports each held-out set with intervals instead); none when the rows do not form one grid.
fn protocol1_statistics(
    data: &Dataset,
    predictions: &[f64],
) -> Option<aesop_eval::levels::LevelStats> {
    multiset::aligned(data, predictions)
        .ok()
        .map(|grid| aesop_eval::levels::evaluate(&grid))
}

#[allow(clippy::too_many_arguments)]
fn cv_report(
    args: &CrossValidateArgs,
    target: &str,
    classes: &[String],
    names: &[String],
    data: &Dataset,
    predictions: &[f64],
    hyper: Option<Hyper>,
    options: &FeatureOptions,
) -> CvReport {
    let learn = &args.learn;
    let distinct = |v: &[String]| v.iter().collect::<std::collections::BTreeSet<_>>().len();
    CvReport {
        set: learn
            .set_specs()
            .ok()
            .and_then(|s| s.first().map(|s| s.path.display().to_string()))
            .unwrap_or_default(),
        target: target.to_string(),
        learner: learn.learner.name().to_string(),
        stack: learn.stack.bases.iter().map(|b| b.to_string()).collect(),
        classes: classes.to_vec(),
        reference_free: learn.no_references,
        features: names.len(),
        feature_names: names.to_vec(),
        hyper: match hyper {
            Some(hyper) => format!("{hyper:?}"),
            None => "chosen by inner cross-validation".into(),
        },
        anchor: learn.hyper.anchor.clone(),
        recipe: learn.recipe.clone(),
        feature_options_changed: crate::card::changed_options(&options.into()),
        topic_folds: args.topic_folds,
        system_folds: args.system_folds,
        seed: learn.seed,
        rows: data.len(),
        topics: distinct(&data.topics),
        systems: distinct(&data.systems),
        summary_kendall_tau: summary_level_tau(predictions, &data.targets, &data.topics),
        system_kendall_tau: system_level_tau(predictions, &data.targets, &data.systems),
        statistics: None,
        sets: Vec::new(),
        set_hashes: Vec::new(),
        bootstrap: None,
        written_by: format!("aesop {}", aesop_core::version::version()),
        normalize: learn.transfer.normalize.name().to_string(),
        equal_set_weights: learn.transfer.equal_set_weights,
        calibrated_mae: f64::NAN,
        seconds: 0.0,
        per_set: Vec::new(),
        leave_one_set_out: Vec::new(),
    }
}

fn finish_cv_report(outputs: CvOutputs, report: CvReport) -> Result<CvReport> {
    let mut text = format!(
        "protocol 1 ({}×{} folds, seed {}): {}{} on {} ({} rows, {} topic{}, {} system{}, {} features{}{})\n  \
         summary-level Kendall τ-b {}\n  system-level Kendall τ-b  {}\n  calibrated MAE {}",
        report.topic_folds,
        report.system_folds,
        report.seed,
        report.learner,
        if report.stack.is_empty() {
            String::new()
        } else {
            format!(" over [{}]", report.stack.join(" "))
        },
        report.target,
        report.rows,
        report.topics,
        if report.topics == 1 { "" } else { "s" },
        report.systems,
        if report.systems == 1 { "" } else { "s" },
        report.features,
        if report.reference_free { ", reference-free" } else { "" },
        if report.normalize == "none" {
            String::new()
        } else {
            format!(", normalized {}", report.normalize)
        },
        or_dash(report.summary_kendall_tau, 3),
        or_dash(report.system_kendall_tau, 3),
        or_dash(report.calibrated_mae, 3)
    );
    if let Some(stats) = &report.statistics {
        let input = &stats.input_pairwise;
        text += &format!(
            "\n  summary-level Pearson r {}, Spearman ρ {}\n  system-level Pearson r {}, pairwise accuracy {} ({} of {} pairs the humans order; {} tied by the model, counted wrong)\n  \
             input-level pairwise accuracy {} ({} of {} pairs the humans order; {} tied by the model, counted wrong)",
            or_dash(stats.summary.pearson, 3),
            or_dash(stats.summary.spearman, 3),
            or_dash(stats.system.pearson, 3),
            or_dash(stats.system_pairwise.accuracy, 3),
            stats.system_pairwise.correct,
            stats.system_pairwise.pairs,
            stats.system_pairwise.metric_ties,
            or_dash(input.accuracy, 3),
            input.correct,
            input.pairs,
            input.metric_ties,
        );
    }
    for p in &report.per_set {
        text += &format!(
            "\n  {}: summary τ {}, system τ {}",
            p.set,
            or_dash(p.summary_kendall_tau, 3),
            or_dash(p.system_kendall_tau, 3)
        );
    }
    outputs.commit(&report)?;
    text.push('\n');
    aesop_core::output::print_stdout(&text)?;
    Ok(report)
}

/// The protocol-2 table printed by `cross-validate --leave-one-set-out`.
fn render_loso(report: &CvReport, held_out: &[multiset::HeldOut]) -> String {
    let mut out = format!(
        "protocol 2 (leave one set out, seed {}): {} on {} ({} features{}, normalize {}{}), {:.1} s\n\
         | held-out set | rows | summary τ | system τ | system Pearson r | system pairwise acc. | best single feature (hindsight) | its summary τ | Δ summary τ | bootstrap wins | permutation p | calibrated MAE |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
        report.seed,
        report.learner,
        report.target,
        report.features,
        if report.reference_free { ", reference-free" } else { "" },
        report.normalize,
        if report.equal_set_weights { ", equal set weights" } else { "" },
        report.seconds
    );
    for h in held_out {
        out.push_str(&format!(
            "| {}:{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            h.set,
            h.column,
            h.rows,
            h.model.summary_kendall,
            h.model.system_kendall,
            h.model.system_pearson,
            h.model.system_pairwise_accuracy,
            h.best_feature,
            h.best_feature_stats.summary_kendall,
            or_dash_signed(h.summary_difference, 3),
            or_dash(h.bootstrap_model_wins, 3),
            or_dash(h.permutation_p, 3),
            or_dash(h.calibrated_mae, 3)
        ));
    }
    out.push_str(&format!(
        "| mean over held-out sets | | {} | {} | | | | | | | | |\n",
        or_dash(report.summary_kendall_tau, 3),
        or_dash(report.system_kendall_tau, 3),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_flags_fix_the_learners_parameters_or_are_refused() {
        let none = HyperArgs::default();
        assert_eq!(none.fixed(LearnerKind::RankSvm).expect("ok"), None);
        let c = HyperArgs {
            c: Some(0.01),
            ..HyperArgs::default()
        };
        assert_eq!(
            c.fixed(LearnerKind::RankSvm).expect("ok"),
            Some(Hyper::RankSvm { c: 0.01 })
        );
        assert_eq!(
            c.fixed(LearnerKind::SvrRbf).expect("ok"),
            Some(Hyper::Svr {
                c: 0.01,
                epsilon: 0.1,
                kernel: 0.5
            })
        );
        let e = c.fixed(LearnerKind::Forest).expect_err("--c on a forest");
        assert!(
            e.to_string().contains("--c does not apply to the forest"),
            "{e}"
        );
        let negative = HyperArgs {
            c: Some(-1.0),
            ..HyperArgs::default()
        };
        assert!(negative.fixed(LearnerKind::RankSvm).is_err());
        let en = HyperArgs {
            l1_ratio: Some(0.2),
            ..HyperArgs::default()
        };
        assert!(
            en.fixed(LearnerKind::ElasticNet).is_err(),
            "needs --penalty"
        );
        let en = HyperArgs {
            penalty: Some(0.1),
            ..HyperArgs::default()
        };
        assert_eq!(
            en.fixed(LearnerKind::ElasticNet).expect("ok"),
            Some(Hyper::ElasticNet {
                penalty: 0.1,
                l1_ratio: 0.5
            })
        );
        let forest = HyperArgs {
            max_depth: Some(4),
            ..HyperArgs::default()
        };
        assert_eq!(
            forest.fixed(LearnerKind::Forest).expect("ok"),
            Some(Hyper::Forest {
                n_trees: 100,
                max_depth: Some(4),
                min_samples_leaf: 5
            })
        );
    }
}
