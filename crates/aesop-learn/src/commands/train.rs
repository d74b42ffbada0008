//! `aesop train`: fit a model on one or more judgment sets (or a stacked model on one), calibrate
//! it to its target's scale, and save it with what it was trained on.

use super::args::{LearnArgs, LearnPlan};
use super::extract;
use super::training_report::read_training_report;
use crate::model_file::{self, ModelFile, TrainingSet, TrainingSettings};
use crate::multiset::{self, load_sets, train_calibrated};
use crate::stack::{self, StackData};
use crate::transfer::{self, Calibration, Normalization, SetRecord, TransferInfo};
use aesop_core::hash::content_hash;
use aesop_corpus::jsonl;
use aesop_features::FeatureOptions;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

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

/// Train and save a model.
pub fn train_command(
    args: &TrainArgs,
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<ModelFile> {
    let learn = &args.learn;
    let LearnPlan {
        hyper,
        target,
        classes,
        names,
        stack,
    } = learn.plan(options)?;
    // The destination is checked, and its temporary file opened, before any set is read: a
    // missing directory or a refused name (`-o m.pkl`) is said at once, not after the training.
    // The report is an input too: `--report r.json -o r.json` replaced it with the model.
    let mut inputs = learn.input_paths();
    inputs.extend(args.report.clone());
    let inputs: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
    let mut output = aesop_core::output::OutputFile::create(&args.output, &inputs)
        .context("writing the model")?;
    // After the checks of the destination itself, so `--report r.json -o r.json` is told that
    // the output is its input, the graver mistake.
    refuse_text_name(&args.output)?;
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
    let (model, training, transfer, feature_ranges, identities) = match &stack {
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
            let identities = loaded.iter().map(|l| l.identities.clone()).collect();
            (model, training, transfer, Some(ranges), identities)
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
            let identities = vec![multiset::training_identities(&topics, &spec.column)];
            (model, training, transfer, Some(ranges), identities)
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
        pair_length_tolerance: learn.hyper.pair_length_tolerance,
        training_identities: Some(identities),
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
    // Ctrl-C during the fit: nothing is written and the run exits 130, as `cross-validate`
    // and `ablate` do (the fit itself is not cut short).
    aesop_features::run::Interrupted::check(cancel)?;
    let bytes = file.to_bytes()?;
    output
        .write_all(&bytes)
        .map_err(anyhow::Error::from)
        .and_then(|()| output.commit())
        .context("writing the model")?;
    for base in file.model.stack_bases().unwrap_or_default() {
        aesop_core::eprintln_quiet!(
            "base model {}: {} on {} ({}{})",
            base.name,
            base.model.learner.name(),
            base.target,
            crate::feature_count(base.feature_names.len()),
            hyper_suffix(&base.model.hyper)
        );
    }
    let anchor = learn
        .hyper
        .anchor
        .as_ref()
        .map(|a| format!(", anchored on {a}"))
        .unwrap_or_default();
    let pairs = learn
        .hyper
        .pair_length_tolerance
        .map(|t| {
            format!(
                ", pairs within {} in length",
                crate::learners::tolerance_percent(t)
            )
        })
        .unwrap_or_default();
    aesop_core::eprintln_quiet!(
        "trained {}{} on {rows} rows ({}{}{anchor}{pairs}); wrote {}",
        learn.learner.name(),
        if stack.is_some() { " (stacked)" } else { "" },
        crate::feature_count(file.feature_names.len()),
        hyper_suffix(&file.model.hyper),
        args.output.display()
    );
    Ok(file)
}

/// `, c 1e-4` as `train` prints a model's hyper-parameters (the card's words), or nothing for
/// a learner without any.
fn hyper_suffix(hyper: &crate::learners::Hyper) -> String {
    match crate::card::hyper_text(hyper) {
        text if text.is_empty() => text,
        text => format!(", {text}"),
    }
}

/// Refuse a model named as one of aesop's text files (`-o m.jsonl`): every verb that reads such a
/// name reads text, so the binary model would later be taken for predictions, features or a set
/// (and refused as not UTF-8) wherever it is not given to `--model`.
fn refuse_text_name(path: &std::path::Path) -> Result<()> {
    let text = match aesop_core::input::format_extension(path).as_deref() {
        Some("jsonl") => "JSON Lines (a judgment set, predictions or features)",
        Some("json") => "a JSON report",
        Some("csv" | "tsv") => "a table",
        Some("svg") => "a chart",
        _ => return Ok(()),
    };
    anyhow::bail!(
        "{}: the name says {text}, but a model file is binary: name it .aesop (as `aesop score \
         --model` and `aesop models` expect)",
        path.display()
    )
}
