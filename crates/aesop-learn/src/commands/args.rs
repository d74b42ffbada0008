//! What every learning verb shares: the sets and the column to learn, fixed hyper-parameters,
//! stacked models, and the plan they resolve to, checked before any set is read.

use crate::learners::{self, Hyper, LearnerKind};
use crate::multiset::Recipe;
use crate::stack::{self, BaseSpec, StackPlan, StackSettings};
use crate::transfer::{Normalization, PoolOptions, SetSpec};
use aesop_features::{feature_plan, select_features, FeatureOptions};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// What to learn and from what: shared by `train`, `cross-validate` and `ablate`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LearnArgs {
    /// Judgment set (JSON Lines; a name ending in .gz is read decompressed) with human scores
    /// (or give each set with --set).
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
    // The names are checked as clap parses them (a usage error, exit 2) and offered by the
    // shell completion scripts; `classes_help` lists them, so clap's own list is hidden.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_delimiter = ',',
            help = aesop_features::registry::classes_help(),
            value_parser = clap::builder::PossibleValuesParser::new(aesop_features::registry::class_names()),
            hide_possible_values = true
        )
    )]
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
    /// feature-class options, read from the embedded model, on the sets given here (sets that
    /// name different columns learn its target unless --target names one). Flags that would
    /// change the recipe are refused beside it.
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
    /// One file may be given with several columns (a.jsonl:coherence, a.jsonl:fluency): one
    /// corpus, whose summaries share their folds under cross-validation and are held out
    /// together under --leave-one-set-out.
    #[cfg_attr(feature = "cli", arg(long = "set", value_name = "PATH:COLUMN", allow_hyphen_values = true, value_parser = crate::transfer::set_spec_parser()))]
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
    pub(super) fn single_set(&self) -> Result<SetSpec> {
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
            pair_length_tolerance: self.hyper.pair_length_tolerance,
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

/// What the flags alone decide for a learning command: the fixed hyper-parameters (none: inner
/// cross-validation chooses them), the model's target, the classes, the model's columns, and
/// for a stacked model the bases resolved against those columns.
pub(crate) struct LearnPlan {
    pub(crate) hyper: Option<Hyper>,
    pub(crate) target: String,
    pub(crate) classes: Vec<String>,
    pub(crate) names: Vec<String>,
    pub(crate) stack: Option<StackPlan>,
}

impl LearnArgs {
    /// The checks of [`LearnArgs::plan`] alone (hyper-parameters, target, classes, features,
    /// stack, anchor, options against the columns), before any set is read: the CLI makes a
    /// failure a usage error.
    pub fn check_plan(&self, options: &FeatureOptions) -> Result<()> {
        self.plan(options).map(|_| ())
    }

    pub(crate) fn plan(&self, options: &FeatureOptions) -> Result<LearnPlan> {
        let hyper = self.hyper.fixed(self.learner)?;
        let target = self.model_target()?;
        self.check_no_op_flags()?;
        if self.hyper.anchor.is_some() && !self.stack.bases.is_empty() {
            bail!("--anchor cannot be combined with --stack");
        }
        if let Some(tolerance) = self.hyper.pair_length_tolerance {
            if !valid_pair_length_tolerance(tolerance) {
                bail!("--pair-length-tolerance {tolerance}: give a share above 0 and below 1 (0.2: word counts within 20% of the longer summary's)");
            }
            if !self.stack.bases.is_empty() {
                bail!("--pair-length-tolerance cannot be combined with --stack");
            }
            if self.learner != LearnerKind::RankSvm {
                bail!(
                    "--pair-length-tolerance chooses the ranking SVM's pairs: it needs --learner rank-svm, not {}",
                    self.learner.name()
                );
            }
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
                hyper,
                target,
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
        stack::check_inner_folds(self.stack.stack_topic_folds, self.stack.stack_system_folds)?;
        let plan = stack::plan(&self.stack.bases, self.no_references, options)?;
        self.check_options_apply(options, &plan.classes, &plan.feature_names)?;
        Ok(LearnPlan {
            hyper,
            target,
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

    pub(super) fn stack_settings(&self, meta_hyper: Option<Hyper>) -> StackSettings {
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
    /// rank-svm: learn only from pairs of summaries whose word counts differ by at most this
    /// share of the longer one's (0.2: within 20%), so the other features' weights say what
    /// orders summaries beyond length, which matters more on some corpora than on others
    /// (docs/RESULTS.md, "Pairs of matched length"). Default: every pair.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "SHARE", value_parser = crate::commands::args::pair_length_tolerance)
    )]
    pub pair_length_tolerance: Option<f64>,
}

/// `--pair-length-tolerance`: a share above 0 and below 1 (at 1 every pair is of matched length).
#[cfg(feature = "cli")]
pub fn pair_length_tolerance(text: &str) -> std::result::Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if valid_pair_length_tolerance(v) => Ok(v),
        _ => Err(format!(
            "'{text}' is not a share above 0 and below 1 (0.2: word counts within 20% of the longer summary's)"
        )),
    }
}

fn valid_pair_length_tolerance(v: f64) -> bool {
    v > 0.0 && v < 1.0
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
