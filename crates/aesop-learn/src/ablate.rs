//! `aesop ablate`: what each feature class contributes to a learned model.
//!
//! Features are extracted once for every class of the full model; each ablated model then
//! selects its columns from that one matrix. For every class there are two models, "only"
//! that class and "without" it, each evaluated under protocol 1 with the same folds and seed
//! as the full model, so the differences come from the features alone. Every model gets
//! bootstrap intervals for summary- and system-level Kendall τ-b and, against the full model,
//! the Koehn paired bootstrap over topics and the paired permutation test (crates/aesop-eval/src).
//!
//! With several sets and `--leave-one-set-out` the same models are judged under protocol 2
//! instead: each set is scored by a model trained on the others (the code of `cross-validate
//! --leave-one-set-out`), and the table gives every model's held-out τ per set and their mean,
//! each set's against the full model's on the same rows. A class that helps in set but not on
//! new corpora shows here.
//!
//! An anchored ranker (`--anchor FEATURE`, or `--recipe` of an anchored built-in) keeps its
//! anchor in every model, since the anchor is the prior the ranker starts from: "only CLASS"
//! is that class and the anchor, "without CLASS" everything else and the anchor, and one more
//! model, "anchor alone", is the ranker on its anchor only. The table then says what each class
//! adds to the anchor, and whether the learned model beats the feature it started from. Under
//! protocol 1 that row is the feature sent through the fold models, whose rescalings break its
//! ties and can reverse close pairs of one topic (its τ is below the feature's own, which
//! `evaluate --feature` gives); under protocol 2 one model scores each held-out set.
//!
//! This file plans and runs the models; `ablate/render.rs` writes the table, CSV and chart.

mod render;

pub use render::{render_chart, render_csv, render_markdown, CSV_COLUMNS, CSV_COLUMNS_HELD_OUT};

use super::commands::{LearnArgs, LearnPlan};
use super::cv::{out_of_fold, Protocol1};
use super::dataset::column_indices;
use super::learners::{Hyper, LearnerKind};
use super::multiset::{
    aligned, held_out_predictions, load_sets, mean_over_sets, set_data, stat_of, Overlap, Recipe,
    Stat,
};
use super::transfer::{pool, Pooled, SetData};
use super::{train_anchored, Dataset, RankerOptions};
use aesop_core::output::OutputFile;
use aesop_eval::bootstrap::{
    bootstrap_intervals, compare_metrics, Estimate, PairedComparison, Resample,
};
use aesop_eval::levels::Aligned;
use aesop_features::FeatureOptions;
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// `aesop ablate SET --target T [--learner L] [--classes …] [--no-references] -o OUT.md`
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AblateArgs {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub learn: LearnArgs,
    /// Topic folds.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = super::commands::DEFAULT_TOPIC_FOLDS))]
    pub topic_folds: usize,
    /// System folds.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = super::commands::DEFAULT_SYSTEM_FOLDS))]
    pub system_folds: usize,
    /// Bootstrap (and permutation) samples; 0 gives point estimates only.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1000, value_parser = aesop_eval::bootstrap::samples_parser()))]
    pub bootstrap: usize,
    /// Two summaries of a topic are of matched length when their word counts differ by at most
    /// this share of the longer one: each model's accuracy at matched length is the input-level
    /// pairwise accuracy over those pairs (0 to 1; as `evaluate`).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = aesop_eval::levels::DEFAULT_LENGTH_TOLERANCE)
    )]
    pub length_tolerance: f64,
    /// Table to write: Markdown, or what --csv writes when the name ends in .csv (with tabs for
    /// .tsv), or --chart's SVG when it ends in .svg (through a trailing .gz). The Markdown goes to
    /// standard output too.
    #[cfg_attr(feature = "cli", arg(short, long))]
    pub output: PathBuf,
    /// Also write the table as CSV (tab-separated when the name ends in .tsv).
    #[cfg_attr(feature = "cli", arg(long))]
    pub csv: Option<PathBuf>,
    /// Also write a bar chart of summary-level τ (SVG).
    #[cfg_attr(feature = "cli", arg(long))]
    pub chart: Option<PathBuf>,
    /// Protocol 2 instead of protocol 1 (needs two or more --set): every set scored by models
    /// trained on the other sets, per set and on average; the fold options are refused.
    #[cfg_attr(feature = "cli", arg(long))]
    pub leave_one_set_out: bool,
}

/// Which feature set a model uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    Full,
    Only,
    Without,
    /// The anchored ranker on its anchor feature alone.
    Anchor,
}

/// One statistic of a model compared with the full model's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VersusFull {
    /// model − full.
    pub difference: f64,
    /// Koehn paired bootstrap over topics: share of samples where the model beats the full one.
    pub bootstrap_wins: f64,
    /// Paired permutation test, two-sided.
    pub permutation_p: f64,
}

/// One row of the ablation table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AblationRow {
    /// "full", "only CLASS", "without CLASS" or "anchor alone".
    pub model: String,
    pub variant: Variant,
    /// The ablated class (none for the full model).
    pub class: Option<String>,
    pub features: usize,
    /// Protocol 1: over the pooled out-of-fold predictions. Protocol 2: the mean over the
    /// held-out sets where each is defined, without an interval (each set's is in `held_out`).
    pub summary_tau: Stat,
    pub system_tau: Stat,
    /// System-level Pearson r and pairwise accuracy, as `summary_tau` (EVALUATION.md asks for
    /// them beside the two τ; the CSV and JSON carry them, the Markdown table the two τ).
    pub system_pearson: Stat,
    pub system_pairwise_accuracy: Stat,
    /// Input-level pairwise accuracy over the pairs of matched length (`aesop evaluate`'s
    /// `input.length_matched_accuracy`): whether a class orders summaries beyond their length
    /// or only brings length in. As `summary_tau`; undefined where the rows carry no texts.
    pub length_matched_accuracy: Stat,
    /// Against the full model (none for the full model itself; protocol 1 only).
    pub summary_vs_full: Option<VersusFull>,
    pub system_vs_full: Option<VersusFull>,
    /// Protocol 2: one entry per held-out set, in the order of the sets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held_out: Vec<HeldOutCell>,
}

/// One model scored on one held-out set (protocol 2).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeldOutCell {
    /// `FILE:COLUMN` of the held-out set.
    pub set: String,
    pub summary_tau: Stat,
    pub system_tau: Stat,
    pub system_pearson: Stat,
    pub system_pairwise_accuracy: Stat,
    pub length_matched_accuracy: Stat,
    /// Summary-level τ against the full model's on the same set (none for the full model).
    pub summary_vs_full: Option<VersusFull>,
}

/// The whole ablation.
#[derive(Debug, Clone, Serialize)]
pub struct AblationReport {
    /// 1 (topic × system folds of the pooled sets) or 2 (leave one set out).
    pub protocol: u8,
    pub set: String,
    pub target: String,
    pub learner: String,
    pub hyper: Option<Hyper>,
    /// The ranking SVM's anchor feature, kept in every model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// The ranking SVM learned from pairs of matched length only (`--pair-length-tolerance`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair_length_tolerance: Option<f64>,
    pub reference_free: bool,
    pub classes: Vec<String>,
    pub topic_folds: usize,
    pub system_folds: usize,
    pub seed: u64,
    pub bootstrap: usize,
    /// What counted as matched length in each model's accuracy at matched length.
    pub length_tolerance: f64,
    pub rows: usize,
    pub topics: usize,
    pub systems: usize,
    /// Protocol 2: the held-out sets (`FILE:COLUMN`), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held_out_sets: Vec<String>,
    /// The rest of what reproduces the table: normalization, set weights, the recipe, and the
    /// feature-class options that differ from the defaults.
    pub normalize: String,
    pub equal_set_weights: bool,
    pub recipe: Option<String>,
    pub feature_options_changed: serde_json::Value,
    /// The content hash of each set of `set`, in order (FNV-1a 64 of the file's bytes, as
    /// `cross-validate` reports and model cards record them).
    pub set_hashes: Vec<String>,
    /// Full model first, then "only" and "without" for each class in order.
    pub models: Vec<AblationRow>,
}

/// The settings of one ablation run over an extracted data set.
#[derive(Debug, Clone)]
pub struct AblationSettings {
    pub learner: LearnerKind,
    pub hyper: Option<Hyper>,
    /// The ranking SVM's anchor feature (`--anchor`), kept in every model.
    pub anchor: Option<String>,
    /// The ranking SVM's pairs of matched length (`--pair-length-tolerance`).
    pub pair_length_tolerance: Option<f64>,
    pub topic_folds: usize,
    pub system_folds: usize,
    pub seed: u64,
    pub bootstrap: usize,
    /// What counts as matched length (`--length-tolerance`).
    pub length_tolerance: f64,
}

impl AblationSettings {
    /// `evaluate`'s estimates with intervals of one model's scores, at these samples and seed.
    fn intervals(&self, scores: &Aligned, cancel: &AtomicBool) -> Result<Vec<Estimate>> {
        bootstrap_intervals(
            scores,
            self.bootstrap,
            Resample::Both,
            self.seed,
            0.95,
            cancel,
        )
    }

    /// The paired tests of one model's scores against the full model's, on the same rows.
    fn against_full(
        &self,
        scores: &Aligned,
        full: &Aligned,
        cancel: &AtomicBool,
    ) -> Result<Vec<PairedComparison>> {
        compare_metrics(scores, full, self.bootstrap, self.seed, cancel)
    }
}

/// What the flags alone decide about an ablation.
pub struct AblationPlan {
    pub hyper: Option<Hyper>,
    pub specs: Vec<crate::transfer::SetSpec>,
    pub target: String,
    pub classes: Vec<String>,
    /// The model's columns.
    pub names: Vec<String>,
}

/// Check the flags and plan the ablation, before any set is read (the CLI makes a failure a
/// usage error).
pub fn plan(args: &AblateArgs, options: &FeatureOptions) -> Result<AblationPlan> {
    let learn = &args.learn;
    check_usage(args)?;
    let specs = learn.set_specs()?;
    // The plan `train` and `cross-validate` make from the same flags (check_usage refused
    // --stack), so the ablated classes are those the full model has: with --features, only
    // the classes that keep a column.
    let LearnPlan {
        hyper,
        target,
        classes,
        names,
        stack: _,
    } = learn.plan(options)?;
    if classes.len() < 2 {
        bail!(
            "ablation needs at least two feature classes (got {})",
            classes.join(", ")
        );
    }
    Ok(AblationPlan {
        hyper,
        specs,
        target,
        classes,
        names,
    })
}

/// Run the ablation, write the Markdown table (and CSV / SVG when asked) and return the report.
pub fn ablate_command(
    args: &AblateArgs,
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<AblationReport> {
    let learn = &args.learn;
    let AblationPlan {
        hyper,
        specs,
        target,
        classes,
        names,
    } = plan(args, options)?;
    // Every output is created (and checked) before any set is read, and all are committed
    // together: a run writes the table, CSV and chart, or none of them.
    let inputs = learn.input_paths();
    let inputs: Vec<&std::path::Path> = inputs.iter().map(std::path::PathBuf::as_path).collect();
    let mut named = vec![("-o", args.output.as_path())];
    named.extend(args.csv.as_deref().map(|p| ("--csv", p)));
    named.extend(args.chart.as_deref().map(|p| ("--chart", p)));
    let mut outputs = OutputFile::create_all(&named, &inputs)?;
    // Several sets are pooled as for `train` (topics unique per set, targets standardized per
    // set, `--equal-set-weights` applied when each model is fitted).
    let loaded = load_sets(
        &specs,
        &classes,
        &names,
        options,
        learn.transfer.normalize,
        Overlap::Refuse,
        cancel,
    )?;
    let sets = set_data(&loaded);
    let settings = AblationSettings {
        learner: learn.learner,
        hyper,
        anchor: learn.hyper.anchor.clone(),
        pair_length_tolerance: learn.hyper.pair_length_tolerance,
        topic_folds: args.topic_folds,
        system_folds: args.system_folds,
        seed: learn.seed,
        bootstrap: args.bootstrap,
        length_tolerance: args.length_tolerance,
    };
    let mut report = if args.leave_one_set_out {
        ablate_held_out_sets(
            &sets,
            &classes,
            &learn.recipe(hyper, &target),
            &settings,
            cancel,
        )?
    } else {
        // Pooled as `cross-validate` pools them, so `--equal-set-weights` weighs the sets here too.
        let all: Vec<usize> = (0..sets.len()).collect();
        let pooled = pool(&sets, &all, learn.recipe(hyper, &target).pool)?;
        ablate_pooled(&pooled, &classes, &settings, cancel)?
    };
    report.set = specs
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    report.target = target;
    report.reference_free = learn.no_references;
    report.normalize = learn.transfer.normalize.name().to_string();
    report.equal_set_weights = learn.transfer.equal_set_weights;
    report.recipe = learn.recipe.clone();
    report.feature_options_changed = crate::card::changed_options(&options.into());
    report.set_hashes = loaded
        .iter()
        .map(|l| l.record.content_hash.clone())
        .collect();
    // Interrupted during the last model: still nothing is written.
    aesop_core::output::Interrupted::check(cancel)?;

    let markdown = render_markdown(&report);
    // `-o` in the format its name says: Markdown under a `.csv` name was what `--csv` users got.
    let mut contents = vec![
        match aesop_core::input::format_extension(&args.output).as_deref() {
            Some("csv" | "tsv") => {
                render_csv(&report, aesop_core::output::field_delimiter(&args.output))?
            }
            Some("svg") => render_chart(&report),
            _ => markdown.clone(),
        },
    ];
    if let Some(csv) = &args.csv {
        contents.push(render_csv(
            &report,
            aesop_core::output::field_delimiter(csv),
        )?);
    }
    if args.chart.is_some() {
        contents.push(render_chart(&report));
    }
    for (output, content) in outputs.iter_mut().zip(&contents) {
        output.write_all(content.as_bytes())?;
    }
    OutputFile::commit_all(outputs)?;
    aesop_core::output::print_stdout(&markdown)?;
    Ok(report)
}

/// Flags `ablate` refuses before any work (the CLI gives these as usage errors, exit 2): the
/// stacked-model flags `LearnArgs` shares with `train` (hidden from `ablate --help`), and flags
/// that would change nothing.
pub fn check_usage(args: &AblateArgs) -> Result<()> {
    let stack = &args.learn.stack;
    if !stack.bases.is_empty()
        || stack.stack_topic_folds != super::stack::DEFAULT_INNER_TOPIC_FOLDS
        || stack.stack_system_folds != super::stack::DEFAULT_INNER_SYSTEM_FOLDS
    {
        bail!("ablate does not take --stack or --stack-*-folds: it ablates the feature classes of one model");
    }
    super::commands::check_folds_apply(
        args.leave_one_set_out,
        args.topic_folds,
        args.system_folds,
        &args.learn,
    )?;
    aesop_eval::levels::check_length_tolerance(args.length_tolerance)?;
    args.learn.check_no_op_flags()
}

/// Columns of `data` whose names belong to `class` (`class.feature`).
fn class_columns(names: &[String], class: &str) -> Vec<String> {
    let prefix = format!("{class}.");
    names
        .iter()
        .filter(|n| n.starts_with(&prefix))
        .cloned()
        .collect()
}

/// `data` restricted to the columns `keep` (in that order).
fn select_columns(data: &Dataset, keep: &[String]) -> Result<Dataset> {
    let columns = column_indices(&data.names, keep)?;
    Ok(Dataset {
        names: keep.to_vec(),
        rows: data
            .rows
            .iter()
            .map(|row| columns.iter().map(|&c| row[c]).collect())
            .collect(),
        targets: data.targets.clone(),
        topics: data.topics.clone(),
        systems: data.systems.clone(),
        words: data.words.clone(),
        fold_topics: data.fold_topics.clone(),
        fold_systems: data.fold_systems.clone(),
    })
}

/// One model of the ablation: its name, variant, ablated class and feature columns.
struct Plan {
    model: String,
    variant: Variant,
    class: Option<String>,
    columns: Vec<String>,
}

/// The full model, then (with an anchor) the anchor alone, then "only" and "without" each
/// class, over the columns `names`. Every model keeps the `anchor` column, in its place
/// among `names`.
fn ablation_plans(names: &[String], classes: &[String], anchor: Option<&str>) -> Result<Vec<Plan>> {
    let is_anchor = |n: &String| anchor == Some(n.as_str());
    let mut plans = vec![Plan {
        model: "full".into(),
        variant: Variant::Full,
        class: None,
        columns: names.to_vec(),
    }];
    if anchor.is_some() {
        plans.push(Plan {
            model: "anchor alone".into(),
            variant: Variant::Anchor,
            class: None,
            columns: names.iter().filter(|n| is_anchor(n)).cloned().collect(),
        });
    }
    for class in classes {
        let in_class = class_columns(names, class);
        if in_class.is_empty() {
            bail!("class {class} has no columns in the data set");
        }
        let only: Vec<String> = names
            .iter()
            .filter(|n| in_class.contains(n) || is_anchor(n))
            .cloned()
            .collect();
        let without: Vec<String> = names
            .iter()
            .filter(|n| !in_class.contains(n) || is_anchor(n))
            .cloned()
            .collect();
        if without.is_empty() {
            bail!("without {class} no features are left; ablation needs at least two classes");
        }
        plans.push(Plan {
            model: format!("only {class}"),
            variant: Variant::Only,
            class: Some(class.clone()),
            columns: only,
        });
        plans.push(Plan {
            model: format!("without {class}"),
            variant: Variant::Without,
            class: Some(class.clone()),
            columns: without,
        });
    }
    Ok(plans)
}

fn versus_full(comparison: &[PairedComparison], name: &str) -> Option<VersusFull> {
    comparison
        .iter()
        .find(|c| c.name == name)
        .map(|c| VersusFull {
            difference: c.difference,
            bootstrap_wins: c.bootstrap_a_wins,
            permutation_p: c.permutation_p,
        })
}

/// The ablation under protocol 1 over already extracted, pooled sets whose columns cover
/// `classes`; each cell's model is fitted on [`Pooled::for_training`] of its training rows, as
/// `cross-validate` fits it (equal set weights included).
pub fn ablate_pooled(
    pooled: &Pooled,
    classes: &[String],
    settings: &AblationSettings,
    cancel: &AtomicBool,
) -> Result<AblationReport> {
    let data = &pooled.data;
    let layout = Protocol1::new(
        data.fold_topic_labels(),
        data.fold_system_labels(),
        settings.topic_folds,
        settings.system_folds,
        settings.seed,
    )?;
    super::commands::note_fewer_folds(settings.topic_folds, settings.system_folds, &layout);
    let plans = ablation_plans(&data.names, classes, settings.anchor.as_deref())?;
    let mut full: Option<Aligned> = None;
    let mut models = Vec::with_capacity(plans.len());
    for Plan {
        model,
        variant,
        class,
        columns,
    } in plans
    {
        // Ctrl-C: exit 130 with no output, as every other verb (aesop_core::output).
        aesop_core::output::Interrupted::check(cancel)?;
        aesop_core::eprintln_quiet!("ablate: {model} ({})", crate::feature_count(columns.len()));
        let subset = pooled.with_data(select_columns(data, &columns)?);
        let predictions = out_of_fold(&layout, |train_idx, test_idx| {
            let fitted = train_anchored(
                &subset.subset(train_idx).for_training(),
                settings.learner,
                settings.hyper,
                settings.seed,
                RankerOptions {
                    anchor: settings.anchor.as_deref(),
                    pair_length_tolerance: settings.pair_length_tolerance,
                },
            )?;
            let test: Vec<Vec<f64>> = test_idx
                .iter()
                .map(|&i| subset.data.rows[i].clone())
                .collect();
            fitted.predict(&test)
        })
        .with_context(|| format!("cross-validating {model}"))?;
        let scores = aligned(data, &predictions, settings.length_tolerance)?;
        let estimates = settings.intervals(&scores, cancel)?;
        let (summary_vs_full, system_vs_full) = match &full {
            None => (None, None),
            Some(reference) => {
                let comparison = settings.against_full(&scores, reference, cancel)?;
                (
                    versus_full(&comparison, "summary.kendall"),
                    versus_full(&comparison, "system.kendall"),
                )
            }
        };
        models.push(AblationRow {
            model,
            variant,
            class,
            features: columns.len(),
            summary_tau: stat_of(&estimates, "summary.kendall"),
            system_tau: stat_of(&estimates, "system.kendall"),
            system_pearson: stat_of(&estimates, "system.pearson"),
            system_pairwise_accuracy: stat_of(&estimates, "system.pairwise_accuracy"),
            length_matched_accuracy: stat_of(&estimates, "input.length_matched_accuracy"),
            summary_vs_full,
            system_vs_full,
            held_out: Vec::new(),
        });
        if full.is_none() {
            full = Some(scores);
        }
    }

    Ok(AblationReport {
        protocol: 1,
        // The folds used: fewer than asked for when the data has fewer topics or systems.
        topic_folds: layout.topic_folds,
        system_folds: layout.system_folds,
        rows: data.len(),
        topics: distinct(data.fold_topic_labels()),
        systems: distinct(data.fold_system_labels()),
        ..AblationReport::new(settings, classes, models)
    })
}

/// Distinct (corpus, label) pairs over `sets`, the labels read by `labels`.
fn distinct_in_corpora(sets: &[SetData], labels: impl Fn(&Dataset) -> &Vec<String>) -> usize {
    sets.iter()
        .flat_map(|s| {
            labels(&s.data)
                .iter()
                .map(move |l| (s.corpus.as_str(), l.as_str()))
        })
        .collect::<std::collections::BTreeSet<_>>()
        .len()
}

/// How many different labels `labels` holds.
fn distinct(labels: &[String]) -> usize {
    labels
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
}

impl AblationReport {
    /// A report of `models` with the settings' learner, seed and bootstrap; the protocol's own
    /// fields (folds, sizes, held-out sets) and the command's (sets, target, references) are left
    /// empty for the caller.
    fn new(settings: &AblationSettings, classes: &[String], models: Vec<AblationRow>) -> Self {
        AblationReport {
            protocol: 1,
            set: String::new(),
            target: String::new(),
            learner: settings.learner.name().to_string(),
            hyper: settings.hyper,
            anchor: settings.anchor.clone(),
            pair_length_tolerance: settings.pair_length_tolerance,
            reference_free: false,
            classes: classes.to_vec(),
            topic_folds: 0,
            system_folds: 0,
            seed: settings.seed,
            bootstrap: settings.bootstrap,
            length_tolerance: settings.length_tolerance,
            rows: 0,
            topics: 0,
            systems: 0,
            held_out_sets: Vec::new(),
            normalize: String::new(),
            equal_set_weights: false,
            recipe: None,
            feature_options_changed: serde_json::Value::Null,
            set_hashes: Vec::new(),
            models,
        }
    }
}

/// The ablation under protocol 2: for every model, each of `sets` scored by that model trained
/// on the other sets with `recipe` (as `cross-validate --leave-one-set-out` does), compared
/// with the full model on the same rows.
pub fn ablate_held_out_sets(
    sets: &[SetData],
    classes: &[String],
    recipe: &Recipe,
    settings: &AblationSettings,
    cancel: &AtomicBool,
) -> Result<AblationReport> {
    let names = sets
        .first()
        .map(|s| s.data.names.clone())
        .unwrap_or_default();
    let labels: Vec<String> = sets
        .iter()
        .map(|s| format!("{}:{}", s.spec.name(), s.spec.column))
        .collect();
    let plans = ablation_plans(&names, classes, recipe.anchor)?;
    let mut full: Vec<Aligned> = Vec::new();
    let mut models = Vec::with_capacity(plans.len());
    for plan in plans {
        let mut cells = Vec::with_capacity(sets.len());
        let subsets = sets
            .iter()
            .map(|s| {
                Ok(SetData {
                    spec: s.spec.clone(),
                    data: select_columns(&s.data, &plan.columns)?,
                    corpus: s.corpus.clone(),
                })
            })
            .collect::<Result<Vec<SetData>>>()?;
        for (h, label) in labels.iter().enumerate() {
            aesop_core::output::Interrupted::check(cancel)?;
            aesop_core::eprintln_quiet!(
                "ablate: {} ({}), {label} held out",
                plan.model,
                crate::feature_count(plan.columns.len())
            );
            let raw = held_out_predictions(&subsets, h, recipe)
                .with_context(|| format!("{} with {label} held out", plan.model))?
                .raw;
            let scores = aligned(&subsets[h].data, &raw, settings.length_tolerance)?;
            let estimates = settings.intervals(&scores, cancel)?;
            let summary_vs_full = match full.get(h) {
                Some(reference) if plan.variant != Variant::Full => {
                    let comparison = settings.against_full(&scores, reference, cancel)?;
                    versus_full(&comparison, "summary.kendall")
                }
                _ => None,
            };
            cells.push(HeldOutCell {
                set: label.clone(),
                summary_tau: stat_of(&estimates, "summary.kendall"),
                system_tau: stat_of(&estimates, "system.kendall"),
                system_pearson: stat_of(&estimates, "system.pearson"),
                system_pairwise_accuracy: stat_of(&estimates, "system.pairwise_accuracy"),
                length_matched_accuracy: stat_of(&estimates, "input.length_matched_accuracy"),
                summary_vs_full,
            });
            if plan.variant == Variant::Full {
                full.push(scores);
            }
        }
        let mean =
            |pick: fn(&HeldOutCell) -> Stat| mean_over_sets(cells.iter().map(|c| pick(c).value));
        models.push(AblationRow {
            summary_tau: mean(|c| c.summary_tau),
            system_tau: mean(|c| c.system_tau),
            system_pearson: mean(|c| c.system_pearson),
            system_pairwise_accuracy: mean(|c| c.system_pairwise_accuracy),
            length_matched_accuracy: mean(|c| c.length_matched_accuracy),
            model: plan.model,
            variant: plan.variant,
            class: plan.class,
            features: plan.columns.len(),
            summary_vs_full: None,
            system_vs_full: None,
            held_out: cells,
        });
    }
    Ok(AblationReport {
        protocol: 2,
        rows: sets.iter().map(|s| s.data.len()).sum(),
        // A corpus given with several columns counts its topics and systems once.
        topics: distinct_in_corpora(sets, |d| &d.topics),
        systems: distinct_in_corpora(sets, |d| &d.systems),
        held_out_sets: labels,
        // The anchor the models were trained with is the recipe's.
        anchor: recipe.anchor.map(str::to_string),
        pair_length_tolerance: recipe.pair_length_tolerance,
        ..AblationReport::new(settings, classes, models)
    })
}
