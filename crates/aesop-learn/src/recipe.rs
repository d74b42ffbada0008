//! `--recipe NAME`: train, cross-validate or ablate with a built-in model's recipe on one's own
//! judgment sets.
//!
//! A built-in's recipe (classes, exact feature columns, learner and hyper-parameters,
//! reference-free or not, normalization, feature-class options) was chosen by leave-one-set-out
//! results on the visible sets (docs/RESULTS.md). A user with prior years' judgments of their
//! own should be able to retrain exactly that recipe on them, or judge it on them under
//! protocol 1 or 2, without copying a dozen flags from a model card. The recipe is read from
//! the embedded model file itself, so it can never drift from what the built-in was trained
//! with. Flags that would change the recipe are refused beside it rather than silently
//! overridden.

use crate::builtin;
use crate::commands::{HyperArgs, LearnArgs};
use crate::learners::{Fitted, Hyper};
use crate::model_file::{FeatureOptionsRecord, NeuralRecord};
use crate::transfer::Normalization;
use aesop_features::FeatureOptions;
use anyhow::{bail, Result};

impl HyperArgs {
    /// The flags that fix `hyper` (its learner's grid point), as a user would give them.
    pub fn from_hyper(hyper: Hyper) -> HyperArgs {
        let mut args = HyperArgs::default();
        match hyper {
            Hyper::None => {}
            Hyper::ElasticNet { penalty, l1_ratio } => {
                args.penalty = Some(penalty);
                args.l1_ratio = Some(l1_ratio);
            }
            Hyper::Svr { c, epsilon, kernel } => {
                args.c = Some(c);
                args.epsilon = Some(epsilon);
                args.kernel_param = Some(kernel);
            }
            Hyper::RankSvm { c } => args.c = Some(c),
            Hyper::Forest {
                n_trees,
                max_depth,
                min_samples_leaf,
            } => {
                args.trees = Some(n_trees);
                args.max_depth = max_depth;
                args.min_leaf = Some(min_samples_leaf);
            }
        }
        args
    }
}

/// If `learn.recipe` names a built-in, replace the recipe part of `learn` and `options` with
/// that built-in's (its classes, feature columns, learner, hyper-parameters, reference use,
/// normalization, set weighting and feature-class options), leaving the sets, target and seed
/// as given; without --target, sets that name different columns learn the built-in's target.
/// Without `--recipe`, nothing changes. Flags or feature options that would change the recipe
/// are an error naming them (the CLI refuses most of them before this; the check here serves
/// library callers too). `--learner` cannot be told from its default here: the CLI refuses it.
pub fn apply_recipe(learn: &mut LearnArgs, options: &mut FeatureOptions) -> Result<()> {
    let Some(given) = learn.recipe.clone() else {
        return Ok(());
    };
    // `builtin:NAME` is how `score --model` names a built-in: the same spelling is accepted here.
    let name = given.strip_prefix("builtin:").unwrap_or(&given).to_string();
    learn.recipe = Some(name.clone());
    let builtin = builtin::find(&name)?;
    let mut conflicts: Vec<&str> = Vec::new();
    if !learn.classes.is_empty() {
        conflicts.push("--classes");
    }
    if !learn.features.is_empty() {
        conflicts.push("--features");
    }
    if learn.no_references {
        conflicts.push("--no-references");
    }
    if learn.transfer.normalize != Normalization::None {
        conflicts.push("--normalize");
    }
    if learn.transfer.equal_set_weights {
        conflicts.push("--equal-set-weights");
    }
    if !learn.stack.bases.is_empty() {
        conflicts.push("--stack");
    }
    conflicts.extend(learn.hyper.params().given());
    if learn.hyper.anchor.is_some() {
        conflicts.push("--anchor");
    }
    if learn.hyper.pair_length_tolerance.is_some() {
        conflicts.push("--pair-length-tolerance");
    }
    if !conflicts.is_empty() {
        bail!(
            "--recipe {name} fixes the classes, features, learner and hyper-parameters of the built-in model; drop {}",
            conflicts.join(", ")
        );
    }
    let defaults = FeatureOptions::default();
    if FeatureOptionsRecord::from(&*options) != FeatureOptionsRecord::from(&defaults)
        || NeuralRecord::from(&options.neural) != NeuralRecord::from(&defaults.neural)
    {
        bail!(
            "--recipe {name} fixes the feature-class options the built-in model was trained with; drop the feature option flags (--rouge-…, --neural-…, --graph-…, --tesla-…, --simetrix, --topic-word-…, --consensus-include-human)"
        );
    }
    let model = builtin.load()?;
    if matches!(model.model.fitted, Fitted::Stacked { .. }) {
        bail!("built-in model {name} is a stacked model; --recipe takes single-learner models");
    }
    // Sets that name different columns (`summeval.jsonl:relevance`, `realsumm.jsonl:pyramid`)
    // learn the built-in's own target unless --target names another.
    if learn.target.is_none() {
        if let Ok(specs) = learn.set_specs() {
            if specs.iter().any(|s| s.column != specs[0].column) {
                learn.target = Some(model.target.clone());
            }
        }
    }
    learn.learner = model.model.learner;
    learn.hyper = HyperArgs::from_hyper(model.model.hyper);
    learn.hyper.anchor = model.anchor.clone();
    learn.hyper.pair_length_tolerance = model.pair_length_tolerance;
    learn.classes = model.classes.clone();
    learn.features = model.feature_names.clone();
    learn.no_references = model.reference_free;
    learn.transfer.normalize = model.transfer.normalization;
    learn.transfer.equal_set_weights = model.settings.equal_set_weights;
    let mut recorded: FeatureOptions = (&model.feature_options).into();
    if let Some(neural) = &model.neural {
        recorded.neural = neural.into();
    }
    *options = recorded;
    Ok(())
}
