//! `aesop cross-validate`: protocol 1 (topic × system folds) or, with `--leave-one-set-out`,
//! protocol 2 (EVALUATION.md); writes the out-of-fold predictions and the report together.

use super::args::{LearnArgs, LearnPlan};
use super::{check_folds_apply, extract, note_fewer_folds};
use crate::cv::{summary_level_tau, system_level_tau, Protocol1};
use crate::learners::Hyper;
use crate::multiset::{self, cross_validate_pooled, load_sets};
use crate::range_tally;
use crate::stack::{self, StackData};
use crate::transfer::{self, mean_absolute_error};
use crate::Dataset;
use aesop_core::hash::content_hash;
use aesop_core::output::OutputFile;
use aesop_corpus::jsonl;
use aesop_eval::{epsilon_or_dash, or_dash, or_dash_signed};
use aesop_features::FeatureOptions;
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// `aesop cross-validate SET --target T …` (protocol 1 of EVALUATION.md)
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CrossValidateArgs {
    #[cfg_attr(feature = "cli", command(flatten))]
    pub learn: LearnArgs,
    /// Topic folds (protocol 1; at most one per topic).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = super::DEFAULT_TOPIC_FOLDS))]
    pub topic_folds: usize,
    /// System folds (protocol 1; at most one per system).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = super::DEFAULT_SYSTEM_FOLDS))]
    pub system_folds: usize,
    /// Out-of-fold predictions to write: JSON Lines, or CSV when the name ends in .csv (or
    /// .csv.gz; columns set (with several sets), topic, system, target, score, raw; `aesop
    /// evaluate FILE.csv --feature raw` judges it as `evaluate` judges the JSON lines, by `raw`,
    /// since each fold calibrates `score` its own way).
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
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1000, value_parser = aesop_eval::bootstrap::samples_parser()))]
    pub bootstrap: usize,
    /// Two summaries of a topic are of matched length when their word counts differ by at most
    /// this share of the longer one: the accuracy at matched length is the input-level pairwise
    /// accuracy over those pairs, what the model orders beyond length (0 to 1; as `evaluate`).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = aesop_eval::levels::DEFAULT_LENGTH_TOLERANCE)
    )]
    pub length_tolerance: f64,
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
    /// The ranking SVM's pairs of matched length (`--pair-length-tolerance`), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair_length_tolerance: Option<f64>,
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
    /// What counted as matched length in the accuracy at matched length (`--length-tolerance`).
    pub length_tolerance: f64,
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
    aesop_eval::levels::check_length_tolerance(args.length_tolerance)?;
    let LearnPlan {
        hyper,
        target,
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
        report.statistics = protocol1_statistics(data, &predictions, args.length_tolerance);
        report.sets = vec![spec.to_string()];
        report.set_hashes = vec![content_hash(&spec.path)?];
        (report.topic_folds, report.system_folds) = (layout.topic_folds, layout.system_folds);
        report.calibrated_mae = mean_absolute_error(&calibrated, &data.targets);
        return finish_cv_report(outputs, report);
    }

    check_folds_apply(
        args.leave_one_set_out,
        args.topic_folds,
        args.system_folds,
        learn,
    )?;
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
    // Original labels of every pooled row, in pooling order. A file given with several columns
    // names its set with the column (`a.jsonl:fluency`), so that its lines stay apart.
    let several = loaded.len() > 1;
    let set_names: Vec<String> = loaded
        .iter()
        .map(|l| {
            let shared = loaded
                .iter()
                .any(|o| o.record.name == l.record.name && o.record.column != l.record.column);
            if shared {
                format!("{}:{}", l.record.name, l.record.column)
            } else {
                l.record.name.clone()
            }
        })
        .collect();
    let rows: Vec<(Option<&str>, &str, &str)> = loaded
        .iter()
        .zip(&set_names)
        .flat_map(|(l, name)| {
            let set = several.then_some(name.as_str());
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
    // What protocol 1 and protocol 2 both do with their out-of-fold predictions: write them,
    // and start the report on them.
    let begin_report =
        |out: &mut OutputFile, raw: &[f64], calibrated: &[f64]| -> Result<CvReport> {
            write_out_of_fold(out, cancel, &rows, &target, raw, calibrated)?;
            let mut report = cv_report(
                args,
                &target,
                &classes,
                &names,
                &pooled.data,
                raw,
                hyper,
                options,
            );
            report.sets = specs.iter().map(|s| s.to_string()).collect();
            report.set_hashes = loaded
                .iter()
                .map(|l| l.record.content_hash.clone())
                .collect();
            Ok(report)
        };

    if args.leave_one_set_out {
        let started = std::time::Instant::now();
        let settings = multiset::LosoSettings {
            recipe,
            bootstrap: args.bootstrap,
            length_tolerance: args.length_tolerance,
        };
        let (held_out, predictions) = multiset::leave_one_set_out(&loaded, &settings, cancel)?;
        let raw: Vec<f64> = predictions.iter().flatten().map(|p| p.0).collect();
        let calibrated: Vec<f64> = predictions.iter().flatten().map(|p| p.1).collect();
        let mut report = begin_report(&mut outputs.predictions, &raw, &calibrated)?;
        report.topic_folds = 0;
        report.system_folds = 0;
        // Pooled over the held-out sets, system means of three models' raw outputs on three
        // scales would be compared with each other; the mean over held-out sets is what
        // `ablate --leave-one-set-out` and the model cards report.
        report.summary_kendall_tau =
            multiset::mean_over_sets(held_out.iter().map(|h| h.model.summary_kendall.value)).value;
        report.system_kendall_tau =
            multiset::mean_over_sets(held_out.iter().map(|h| h.model.system_kendall.value)).value;
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
        pooled.data.fold_topic_labels(),
        pooled.data.fold_system_labels(),
        args.topic_folds,
        args.system_folds,
        learn.seed,
    )?;
    note_fewer_folds(args.topic_folds, args.system_folds, &layout);
    let (raw, calibrated) = cross_validate_pooled(&pooled, &recipe, &layout, cancel)?;
    let mut report = begin_report(&mut outputs.predictions, &raw, &calibrated)?;
    (report.topic_folds, report.system_folds) = (layout.topic_folds, layout.system_folds);
    report.statistics = protocol1_statistics(&pooled.data, &raw, args.length_tolerance);
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
/// One JSON line per summary, or, when `out` is named `.csv` (`.tsv`), one CSV row (with tabs)
/// with the same fields (JSON Lines under a `.csv` name was read back by `evaluate` as a CSV and
/// refused).
fn write_out_of_fold(
    out: &mut OutputFile,
    cancel: &AtomicBool,
    rows: &[(Option<&str>, &str, &str)],
    target: &str,
    raw: &[f64],
    calibrated: &[f64],
) -> Result<()> {
    aesop_features::run::Interrupted::check(cancel)?;
    let lines =
        rows.iter()
            .zip(raw)
            .zip(calibrated)
            .map(|((&(set, topic, system), &raw), &score)| OutOfFoldLine {
                set,
                topic,
                system,
                target,
                score,
                raw,
            });
    if matches!(
        aesop_core::input::format_extension(out.path()).as_deref(),
        Some("csv" | "tsv")
    ) {
        let delimiter = aesop_core::output::field_delimiter(out.path());
        let with_set = rows.first().is_some_and(|r| r.0.is_some());
        let mut writer = csv::WriterBuilder::new()
            .delimiter(delimiter)
            .from_writer(&mut *out);
        let header = ["set", "topic", "system", "target", "score", "raw"];
        writer.write_record(&header[usize::from(!with_set)..])?;
        for line in lines {
            let (score, raw) = (line.score.to_string(), line.raw.to_string());
            let fields = [
                line.set.unwrap_or(""),
                line.topic,
                line.system,
                target,
                &score,
                &raw,
            ];
            writer.write_record(&fields[usize::from(!with_set)..])?;
        }
        writer.flush()?;
        return Ok(());
    }
    for line in lines {
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
    length_tolerance: f64,
) -> Option<aesop_eval::levels::LevelStats> {
    multiset::aligned(data, predictions, length_tolerance)
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
            Some(hyper) => crate::card::hyper_text(&hyper),
            None if !learn.learner.has_hyper_parameters() => "none".into(),
            None => "chosen by inner cross-validation".into(),
        },
        anchor: learn.hyper.anchor.clone(),
        pair_length_tolerance: learn.hyper.pair_length_tolerance,
        recipe: learn.recipe.clone(),
        feature_options_changed: crate::card::changed_options(&options.into()),
        topic_folds: args.topic_folds,
        system_folds: args.system_folds,
        seed: learn.seed,
        rows: data.len(),
        topics: distinct(data.fold_topic_labels()),
        systems: distinct(data.fold_system_labels()),
        summary_kendall_tau: summary_level_tau(predictions, &data.targets, &data.topics),
        system_kendall_tau: system_level_tau(predictions, &data.targets, &data.systems),
        statistics: None,
        sets: Vec::new(),
        set_hashes: Vec::new(),
        bootstrap: None,
        length_tolerance: args.length_tolerance,
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
        "protocol 1 ({}×{} folds, seed {}): {}{} on {} ({} rows, {} topic{}, {} system{}, {}{}{})\n  \
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
        crate::feature_count(report.features),
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
        let tied = &stats.input_tie_calibrated;
        let matched = &stats.input_length_matched;
        text += &format!(
            "\n  summary-level Pearson r {}, Spearman ρ {}\n  system-level Pearson r {}, pairwise accuracy {} ({} of {} pairs the humans order; {} tied by the model, counted wrong)\n  \
             input-level pairwise accuracy {} ({} of {} pairs the humans order; {} tied by the model, counted wrong)\n  \
             input-level accuracy with ties {} (tie-calibrated, ε {}; {} of {} pairs tied by the humans)\n  \
             input-level accuracy at matched length {} ({} of {} pairs within {}% in words; {} tied by the model, counted wrong)",
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
            or_dash(tied.accuracy, 3),
            epsilon_or_dash(tied.epsilon),
            tied.human_ties,
            tied.pairs,
            or_dash(matched.accuracy, 3),
            matched.correct,
            matched.pairs,
            stats.length_tolerance * 100.0,
            matched.metric_ties,
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
        "protocol 2 (leave one set out, seed {}): {} on {} ({}{}, normalize {}{}), {:.1} s; matched length: word counts within {}%\n\
         | held-out set | rows | summary τ | system τ | system Pearson r | system pairwise acc. | matched-length acc. | best single feature (hindsight) | its summary τ | its matched-length acc. | Δ summary τ | bootstrap wins | permutation p | calibrated MAE | length alone: all / matched | feature chosen on the other sets | its summary τ | Δ summary τ | permutation p |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        report.seed,
        report.learner,
        report.target,
        crate::feature_count(report.features),
        if report.reference_free { ", reference-free" } else { "" },
        report.normalize,
        if report.equal_set_weights { ", equal set weights" } else { "" },
        report.seconds,
        report.length_tolerance * 100.0
    );
    for h in held_out {
        out.push_str(&format!(
            "| {}:{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} | {} | {} | {} |\n",
            h.set,
            h.column,
            h.rows,
            h.model.summary_kendall,
            h.model.system_kendall,
            h.model.system_pearson,
            h.model.system_pairwise_accuracy,
            h.model.input_length_matched_accuracy,
            h.best_feature,
            h.best_feature_stats.summary_kendall,
            h.best_feature_stats.input_length_matched_accuracy,
            or_dash_signed(h.summary_difference, 3),
            or_dash(h.bootstrap_model_wins, 3),
            or_dash(h.permutation_p, 3),
            or_dash(h.calibrated_mae, 3),
            or_dash(h.length_alone.all.accuracy, 3),
            or_dash(h.length_alone.matched.accuracy, 3),
            h.chosen_without_the_set.feature,
            h.chosen_without_the_set.stats.summary_kendall,
            or_dash_signed(h.chosen_without_the_set.summary_difference, 3),
            or_dash(h.chosen_without_the_set.permutation_p, 3),
        ));
    }
    let mean_of = |tau: fn(&multiset::HeldOut) -> f64| {
        or_dash(multiset::mean_over_sets(held_out.iter().map(tau)).value, 3)
    };
    out.push_str(&format!(
        "| mean over held-out sets | | {} | {} | | | | | {} | | | | | | | | {} | | |\n",
        or_dash(report.summary_kendall_tau, 3),
        or_dash(report.system_kendall_tau, 3),
        mean_of(|h| h.best_feature_stats.summary_kendall.value),
        mean_of(|h| h.chosen_without_the_set.stats.summary_kendall.value),
    ));
    out.push_str(
        "\nbest single feature (hindsight): chosen, and its sign, on the held-out set itself; \
         feature chosen on the other sets: the one they rank first by mean summary τ, read their \
         way round, among the features that cover every set (what a user can choose for a new \
         corpus)\n",
    );
    out.push_str(&render_outside_ranges(held_out));
    out
}

/// Per held-out set, the model's features outside their range over the training sets (those
/// `aesop score` would name in its warning, with the same thresholds).
fn render_outside_ranges(held_out: &[multiset::HeldOut]) -> String {
    let mut out = format!(
        "features outside their range over the training sets (clamped into it, as `aesop score` \
         does; named where at least {:.0}% of the held-out summaries, and at least {} of them, lie outside):\n",
        100.0 * range_tally::WARN_SHARE,
        range_tally::WARN_SUMMARIES
    );
    for h in held_out {
        let named = if h.outside_training_range.is_empty() {
            "none".to_string()
        } else {
            range_tally::named_list(&h.outside_training_range, 5)
        };
        out.push_str(&format!("- {}:{}: {named}\n", h.set, h.column));
    }
    out
}
