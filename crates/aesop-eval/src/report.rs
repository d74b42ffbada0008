//! `aesop evaluate`: read a predictions file (or one column of a features file) and a judgment
//! set, align them on (topic, system), and report every level, coefficient and pairwise
//! accuracy with bootstrap intervals; optionally compare with a second metric, write the report
//! as JSON and draw the system means as an SVG scatter plot.
//!
//! This file builds the report (alignment, statistics, comparison): [`build_report`] from the
//! files, [`report_of`] from scores already read (the Python package's `aesop.evaluate` judges
//! rows held in memory with it). `report/read.rs` reads the inputs (`read/records.rs` the JSON
//! records of a file or of memory) and `report/render.rs` writes the text and the plot.

use super::bootstrap::{
    bootstrap_intervals, compare_metrics, discriminative_power, DiscriminativePower, Estimate,
    PairedComparison, Resample,
};
use super::levels::{evaluate, Aligned, LengthAlone, LevelStats, ScoreRow, SummaryCoverage};
use aesop_core::output::{Interrupted, OutputFile};
use anyhow::{bail, Result};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

mod across;
mod read;
mod render;
mod table;

pub use across::{
    across_sets, parse_features_on_set, render_across_text, set_names, AcrossRow, AcrossSets,
    FeaturesOnSet, HeldOutChoice,
};
pub use read::{
    feature_columns_of_records, human_scores, metric_of_records, prediction_models,
    prediction_models_of_records, read_human, read_metric, records_hold_predictions,
    table_prediction_models_of_records, word_count, HumanScore, Keywords, Origin,
    PredictedSummaries, PredictionModels, PREDICTION_TABLE_TEXT_COLUMNS,
};
use read::{holds_predictions, read_metric_for, ModelChoice, SetChoice};
pub use render::{render_text, scatter_svg};
pub use table::{
    build_feature_table, build_feature_tables, feature_tables_of_records, features_table_command,
    render_table_csv, render_table_text, tables_json, tables_text, FeatureRow, FeatureTable,
    FeatureTables, RecordSet,
};

/// Arguments of `aesop evaluate`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct EvaluateArgs {
    /// Predictions (JSON Lines: topic, system, target, score; a line's `raw`, the uncalibrated
    /// model output, is used instead of `score` when present), a saved answer of the service's
    /// POST /v1/score, or, with --feature, a features file (CSV or JSON Lines as written by
    /// `aesop features`).
    pub predictions: PathBuf,
    /// Judgment set with the human scores, or a table of them (CSV, TSV for a .tsv name, or JSON
    /// Lines of rows: a `topic`, a `system` and the target's column; without the texts, the
    /// accuracy at matched length is left out). A name ending in .gz is read decompressed.
    #[cfg_attr(feature = "cli", arg(long))]
    pub human: PathBuf,
    /// Human score to evaluate against (a key of the summaries' `scores`), e.g. relevance.
    #[cfg_attr(feature = "cli", arg(long))]
    pub target: String,
    /// Column of a features file to evaluate, e.g. rouge.r1_f; `-COLUMN` reads it negated
    /// (for a feature whose larger values mean worse summaries), as `cross-validate` names a
    /// best single feature, unless the file has a column of that name.
    #[cfg_attr(feature = "cli", arg(long, allow_hyphen_values = true))]
    pub feature: Option<String>,
    /// Judge many columns of a features file at once, each as --feature alone would, and rank
    /// them by summary-level Kendall tau: comma-separated names, or prefixes ending in `*`
    /// (`'*'`: every column). Each is read the way round that agrees with the annotators
    /// (`-COLUMN`: negated); columns that cover too few summaries or topics are listed apart.
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_delimiter = ',',
            value_name = "PATTERN",
            allow_hyphen_values = true,
            conflicts_with_all = ["feature", "model", "predicted", "set", "compare", "compare_feature", "compare_model", "plot", "alpha"]
        )
    )]
    pub features: Vec<String>,
    /// With --features: judge the same columns on another set too, FEATURES=SET:COLUMN (its
    /// features file, its judgment set and the score to judge against; repeat for more sets).
    /// After each set's table come the columns that cover every set, read one way round on all
    /// and ranked by their mean summary-level tau, and for each set the column the other sets
    /// choose (the best single feature under leave-one-set-out).
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "FEATURES=SET:COLUMN",
            requires = "features",
            value_parser = across::features_on_set_parser()
        )
    )]
    pub also: Vec<FeaturesOnSet>,
    /// Evaluate only the predictions of this model (their `model` field): needed when a file
    /// holds two models' predictions for the target on the same summaries, as `aesop score
    /// --model A --model B` writes.
    #[cfg_attr(feature = "cli", arg(long))]
    pub model: Option<String>,
    /// Target of the predictions to read (their `target` field) when it is not --target: e.g.
    /// `--target pyramid --predicted responsiveness` for a responsiveness model's
    /// leave-one-set-out predictions of REALSumm, judged against its pyramid column.
    #[cfg_attr(feature = "cli", arg(long, value_name = "TARGET"))]
    pub predicted: Option<String>,
    /// Read only the lines of this set (their `set` field, as `cross-validate` with several
    /// --set writes it) [default: when the lines name sets, the --human file's name].
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub set: Option<String>,
    /// Second predictions or features file: paired bootstrap, permutation test and the
    /// discriminative-power table of both.
    #[cfg_attr(feature = "cli", arg(long))]
    pub compare: Option<PathBuf>,
    /// Column of the --compare features file (default: the --feature column; a --compare
    /// predictions file needs none); `-COLUMN` reads it negated, as --feature.
    #[cfg_attr(feature = "cli", arg(long, allow_hyphen_values = true))]
    pub compare_feature: Option<String>,
    /// Model of the --compare predictions file (as --model; e.g. the other model of one
    /// `aesop score` output: `evaluate p.jsonl --model A --compare p.jsonl --compare-model B`).
    #[cfg_attr(feature = "cli", arg(long))]
    pub compare_model: Option<String>,
    /// Bootstrap (and permutation) samples; 0 gives point estimates only.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1000, value_parser = crate::bootstrap::samples_parser()))]
    pub bootstrap: usize,
    /// What the bootstrap redraws.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = Resample::Both))]
    pub resample: Resample,
    /// Seed of every random draw.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Significance level of the discriminative-power table.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0.05))]
    pub alpha: f64,
    /// Two summaries of a topic are of matched length when their word counts differ by at most
    /// this share of the longer one: `input.length_matched_accuracy` is the pairwise accuracy
    /// over those pairs, what the metric orders beyond length (0 to 1; 0: equal counts only).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value_t = crate::levels::DEFAULT_LENGTH_TOLERANCE)
    )]
    pub length_tolerance: f64,
    /// Write the full report as JSON.
    #[cfg_attr(feature = "cli", arg(long))]
    pub json: Option<PathBuf>,
    /// Write a scatter plot of system means (metric against human) as SVG.
    #[cfg_attr(feature = "cli", arg(long))]
    pub plot: Option<PathBuf>,
    /// With --features: write the table as CSV, every statistic with its interval bounds
    /// (tab-separated when the name ends in .tsv).
    #[cfg_attr(feature = "cli", arg(long, requires = "features"))]
    pub csv: Option<PathBuf>,
}

impl EvaluateArgs {
    /// The flags that set the statistics, not the files.
    pub fn statistics(&self) -> StatisticsOptions {
        StatisticsOptions {
            bootstrap: self.bootstrap,
            resample: self.resample,
            seed: self.seed,
            alpha: self.alpha,
            length_tolerance: self.length_tolerance,
        }
    }
}

/// How a report's statistics are computed: `aesop evaluate`'s flags that name no file, with
/// their defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatisticsOptions {
    /// Bootstrap (and permutation) samples; 0 gives point estimates only.
    pub bootstrap: usize,
    pub resample: Resample,
    pub seed: u64,
    /// Significance level of the discriminative-power table.
    pub alpha: f64,
    /// Matched length: word counts within this share of the longer summary.
    pub length_tolerance: f64,
}

impl Default for StatisticsOptions {
    fn default() -> Self {
        StatisticsOptions {
            bootstrap: 1000,
            resample: Resample::Both,
            seed: 1,
            alpha: 0.05,
            length_tolerance: crate::levels::DEFAULT_LENGTH_TOLERANCE,
        }
    }
}

impl StatisticsOptions {
    /// The one place their ranges are checked (`--bootstrap`, `--alpha`,
    /// `--length-tolerance`).
    pub fn check(&self) -> Result<()> {
        crate::bootstrap::check_samples(self.bootstrap)?;
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            bail!("--alpha must be between 0 and 1, got {}", self.alpha);
        }
        crate::levels::check_length_tolerance(self.length_tolerance)
    }
}

/// Scores of one metric read from a file.
#[derive(Debug, Clone)]
pub struct MetricScores {
    /// What was read, e.g. `features.csv [rouge.r1_f]`.
    pub label: String,
    /// (topic, system, score), file order.
    pub rows: Vec<(String, String, f64)>,
    /// The line of the file each of `rows` comes from (for messages).
    pub lines: Vec<usize>,
    /// Rows without a value (empty cell, null).
    pub missing: usize,
}

/// How the metric and the human rows matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AlignCounts {
    pub metric_rows: usize,
    pub human_rows: usize,
    pub matched: usize,
    pub metric_only: usize,
    pub human_only: usize,
    /// Rows of the metric file without a value (an empty cell, null or NaN): not evaluated.
    pub metric_missing: usize,
}

/// Everything `evaluate` reports.
#[derive(Debug, Clone, Serialize)]
pub struct EvaluationReport {
    pub metric: String,
    pub human: String,
    /// The files read, each with its content hash (FNV-1a 64 of its bytes, as model cards and
    /// `cross-validate` reports record sets): which data the figures were measured on,
    /// whatever the files are called. None for records evaluated in memory ([`report_of`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<InputFile>,
    pub target: String,
    pub counts: AlignCounts,
    pub topics: usize,
    pub systems: usize,
    pub bootstrap_samples: usize,
    pub resample: Resample,
    pub seed: u64,
    pub statistics: LevelStats,
    /// The topics the summary level averages over, and why the others have no coefficient.
    pub summary_coverage: SummaryCoverage,
    /// What summary length alone orders on these rows, on all pairs and at matched length
    /// (beside `input.length_matched_accuracy`).
    pub length_alone: LengthAlone,
    pub estimates: Vec<Estimate>,
    /// System means: (system, metric mean, human mean).
    pub system_means: Vec<(String, f64, f64)>,
    /// The system pairs behind the wrong share of `system.pairwise_accuracy`, largest human gap
    /// first.
    pub misordered_system_pairs: Vec<MisorderedPair>,
    pub discriminative_power: DiscriminativePower,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
    /// Why the figures may mislead: a built-in model evaluated on its own training set (found
    /// by the caller: `aesop_learn::in_sample`), a metric that ties whole topics
    /// ([`SummaryCoverage::warning`]); also printed on standard error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One file an evaluation read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputFile {
    /// `predictions`, `human` or `compare`.
    pub role: &'static str,
    /// As given on the command line.
    pub path: String,
    pub content_hash: String,
}

/// Two systems the metric orders against the annotators, or ties where they do not: the pairs
/// that system-level pairwise accuracy counts wrong. Where a metric loses at the system level,
/// these say which systems it misjudges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MisorderedPair {
    /// The system the annotators rate higher (by its mean over topics).
    pub higher: String,
    pub lower: String,
    /// Human mean of `higher` minus that of `lower` (> 0).
    pub human_gap: f64,
    /// Metric mean of `higher` minus that of `lower` (≤ 0: reversed, or 0: tied).
    pub metric_gap: f64,
}

/// The misordered pairs among `(system, metric mean, human mean)`, by the rules of
/// [`crate::levels::PairwiseAccuracy`] (pairs the annotators tie are left out, pairs the metric
/// ties count wrong), largest human gap first, then by name.
pub fn misordered_system_pairs(means: &[(String, f64, f64)]) -> Vec<MisorderedPair> {
    let mut pairs = Vec::new();
    for (i, a) in means.iter().enumerate() {
        for b in &means[i + 1..] {
            let (higher, lower) = match a.2.total_cmp(&b.2) {
                std::cmp::Ordering::Equal => continue,
                std::cmp::Ordering::Greater => (a, b),
                std::cmp::Ordering::Less => (b, a),
            };
            if higher.1.total_cmp(&lower.1).is_gt() {
                continue;
            }
            pairs.push(MisorderedPair {
                higher: higher.0.clone(),
                lower: lower.0.clone(),
                human_gap: higher.2 - lower.2,
                metric_gap: higher.1 - lower.1,
            });
        }
    }
    pairs.sort_by(|x, y| {
        y.human_gap
            .total_cmp(&x.human_gap)
            .then_with(|| (&x.higher, &x.lower).cmp(&(&y.higher, &y.lower)))
    });
    pairs
}

/// The paired comparison with a second metric.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub metric: String,
    /// How the second metric matched the human scores.
    pub counts: AlignCounts,
    /// Rows shared by both metrics and the human scores (what the comparison uses).
    pub shared_rows: usize,
    pub statistics: Vec<PairedComparison>,
    /// The topics each metric's summary level averages over on the shared rows (first, second):
    /// where they differ, the two summary-level means are over different topics.
    pub summary_coverage: [SummaryCoverage; 2],
    /// The first metric's discriminative power on the shared rows (the report's own table
    /// uses all of its rows).
    pub discriminative_power_a: DiscriminativePower,
    /// The second metric's, on the shared rows.
    pub discriminative_power: DiscriminativePower,
}

/// Run `aesop evaluate` (never interrupted: for library callers and tests).
pub fn evaluate_command(args: EvaluateArgs) -> Result<()> {
    evaluate_command_with_warnings(args, Vec::new(), &AtomicBool::new(false))
}

/// Run `aesop evaluate` with `warnings` about the inputs: each printed on standard error and
/// kept in the `--json` report. Once `cancel` is set (Ctrl-C) it stops within the bootstrap
/// and writes nothing: its outputs' temporary files exist from the start, and a process killed
/// by the signal left them behind.
pub fn evaluate_command_with_warnings(
    args: EvaluateArgs,
    warnings: Vec<String>,
    cancel: &AtomicBool,
) -> Result<()> {
    let mut inputs: Vec<&std::path::Path> = vec![&args.predictions, &args.human];
    inputs.extend(args.compare.as_deref());
    // Both outputs are created (and checked) before the evaluation runs, and committed together.
    let outputs = OutputFile::create_all(&named_outputs(&args), &inputs)?;
    let spinner = aesop_core::progress::spinner(&format!(
        "evaluating {} ({} bootstrap samples)",
        args.predictions.display(),
        args.bootstrap
    ));
    let report = build_report(&args, cancel);
    spinner.finish_and_clear();
    let mut report = report?;
    Interrupted::check(cancel)?;
    // The caller's warnings about the inputs first, then the report's own.
    report.warnings.splice(0..0, warnings);
    for warning in &report.warnings {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    let mut contents = Vec::new();
    if args.json.is_some() {
        contents.push(serde_json::to_string_pretty(&report)? + "\n");
    }
    if args.plot.is_some() {
        contents.push(scatter_svg(&report));
    }
    commit_then_print(outputs, &contents, &render_text(&report))
}

/// The files `evaluate` writes, each with its flag, in the order their contents are made
/// (`--plot` belongs to one column's report, `--csv` to `--features`: never both).
fn named_outputs(args: &EvaluateArgs) -> Vec<(&'static str, &Path)> {
    let mut named = Vec::new();
    named.extend(args.json.as_deref().map(|p| ("--json", p)));
    named.extend(args.plot.as_deref().map(|p| ("--plot", p)));
    named.extend(args.csv.as_deref().map(|p| ("--csv", p)));
    named
}

/// Write each of `contents` to its output, commit them all, then print `text`: after the files,
/// so a reader of standard output that stops early loses none of them.
fn commit_then_print(mut outputs: Vec<OutputFile>, contents: &[String], text: &str) -> Result<()> {
    for (output, content) in outputs.iter_mut().zip(contents) {
        output.write_all(content.as_bytes())?;
    }
    OutputFile::commit_all(outputs)?;
    aesop_core::output::print_stdout(text)
}

/// The checks of `evaluate`'s flags that clap's declarations cannot make, from the flags alone:
/// the CLI runs them before any file is read and gives a failure as a usage error (exit 2), as
/// the learning verbs do; both reports run them again for library callers.
pub fn check_usage(args: &EvaluateArgs) -> Result<()> {
    args.statistics().check()?;
    if !args.features.is_empty() {
        return Ok(());
    }
    // clap's `requires` yields to a conflict: `--feature X --csv F` reaches here.
    if args.csv.is_some() {
        bail!("--csv writes the table of --features: give --features PATTERNS (or --json for one column's report)");
    }
    if args.compare_feature.is_some() && args.compare.is_none() {
        bail!("--compare-feature names a column of the --compare file: give --compare FILE too");
    }
    if args.compare_model.is_some() && args.compare.is_none() {
        bail!("--compare-model names a model of the --compare file: give --compare FILE too");
    }
    Ok(())
}

/// Read, align and evaluate: the report `evaluate_command` prints. Stops with
/// [`Interrupted`] within its bootstraps once `cancel` is set.
pub fn build_report(args: &EvaluateArgs, cancel: &AtomicBool) -> Result<EvaluationReport> {
    check_usage(args)?;
    aesop_core::output::check_distinct_outputs(&named_outputs(args))?;
    // The report records every input's content hash: standard input is refused before any read.
    for input in [&args.predictions, &args.human]
        .into_iter()
        .chain(&args.compare)
    {
        aesop_core::hash::check_hashable(input)?;
    }
    let human = read_human(&args.human, &args.target)?;
    let predicted = args.predicted.as_deref().unwrap_or(&args.target);
    // Lines of several sets (a pooled cross-validation): the human file's own by default.
    let human_name = args
        .human
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let set = match &args.set {
        Some(set) => SetChoice::Named(set),
        None => human_name
            .as_deref()
            .map_or(SetChoice::All, SetChoice::HumanFile),
    };
    let mut metric = read_metric_for(
        &args.predictions,
        predicted,
        args.feature.as_deref(),
        ModelChoice {
            model: args.model.as_deref(),
            flag: "--model",
            feature_flag: "--feature",
            predicted_flag: "--predicted",
            set_flag: "--set",
            set,
        },
    )?;
    if predicted != args.target && args.feature.is_none() {
        metric.label = format!("{} [predicts {predicted}]", metric.label);
    }
    let human_label = args.human.display().to_string();
    let options = args.statistics();
    let mut report = report_of(
        &metric,
        &human,
        &human_label,
        &args.target,
        &options,
        cancel,
    )?;
    if let Some(path) = &args.compare {
        let column = compare_column(
            args.compare_feature.as_deref(),
            args.feature.as_deref(),
            holds_predictions(path),
        );
        let other = read_metric_for(
            path,
            predicted,
            column,
            ModelChoice {
                model: args.compare_model.as_deref(),
                flag: "--compare-model",
                feature_flag: "--compare-feature",
                predicted_flag: "--predicted",
                set_flag: "--set",
                set,
            },
        )?;
        add_comparison(
            &mut report,
            &metric,
            &other,
            &human,
            &human_label,
            &options,
            cancel,
        )?;
    }
    let mut inputs = vec![("predictions", &args.predictions), ("human", &args.human)];
    if let Some(path) = &args.compare {
        inputs.push(("compare", path));
    }
    report.inputs = input_files(&inputs)?;
    Ok(report)
}

/// The report of `metric` against the human scores `human` (named `human_label` in messages
/// and the report, judged on `target`): every level, coefficient and interval, without the
/// inputs' files or a comparison. [`build_report`] adds those to it for the files it reads; the
/// Python package's `aesop.evaluate` calls it on records held in memory, so both report the
/// same figures for the same scores.
pub fn report_of(
    metric: &MetricScores,
    human: &[HumanScore],
    human_label: &str,
    target: &str,
    options: &StatisticsOptions,
    cancel: &AtomicBool,
) -> Result<EvaluationReport> {
    options.check()?;
    let (rows, counts) = align(metric, human, human_label)?;
    let mut data = Aligned::new(&rows)?;
    data.length_tolerance = options.length_tolerance;
    let statistics = evaluate(&data);
    let estimates = bootstrap_intervals(
        &data,
        options.bootstrap,
        options.resample,
        options.seed,
        0.95,
        cancel,
    )?;
    let system_means: Vec<(String, f64, f64)> = data
        .systems
        .iter()
        .zip(data.system_means(&data.all_topics(), &data.all_systems()))
        .filter_map(|(name, m)| m.map(|(x, y)| (name.clone(), x, y)))
        .collect();
    let misordered_system_pairs = misordered_system_pairs(&system_means);
    let summary_coverage = SummaryCoverage::of(&data);
    let unmatched = (counts.metric_only > 0 && counts.human_only > 0)
        .then(|| Unmatched::of(metric, human).warning(&metric.label, human_label, counts.matched))
        .flatten();
    let warnings: Vec<String> = unmatched
        .into_iter()
        .chain(summary_coverage.warning())
        .collect();
    Ok(EvaluationReport {
        metric: metric.label.clone(),
        human: format!("{human_label} [{target}]"),
        inputs: Vec::new(),
        target: target.to_string(),
        counts,
        topics: data.topics.len(),
        systems: data.systems.len(),
        bootstrap_samples: options.bootstrap,
        resample: options.resample,
        seed: options.seed,
        statistics,
        summary_coverage,
        length_alone: LengthAlone::of(&data),
        estimates,
        system_means,
        misordered_system_pairs,
        discriminative_power: discriminative_power(&data, options.alpha),
        comparison: None,
        warnings,
    })
}

/// The column read of the compared metric's records: the one named for them, or else the
/// metric's own feature, which carries over to feature records but not to predictions:
/// `evaluate features.csv --feature rouge.r1_f --compare predictions.jsonl` compares the
/// feature with the model.
pub fn compare_column<'a>(
    compare_feature: Option<&'a str>,
    feature: Option<&'a str>,
    compared_are_predictions: bool,
) -> Option<&'a str> {
    match compare_feature {
        Some(column) => Some(column),
        None if compared_are_predictions => None,
        None => feature,
    }
}

/// Add to `report` (of `metric`, by [`report_of`]) its comparison with `other` on the rows both
/// score: the paired bootstrap, the permutation test and both discriminative-power tables.
pub fn add_comparison(
    report: &mut EvaluationReport,
    metric: &MetricScores,
    other: &MetricScores,
    human: &[HumanScore],
    human_label: &str,
    options: &StatisticsOptions,
    cancel: &AtomicBool,
) -> Result<()> {
    let comparison = compare(metric, other, human, human_label, options, cancel)?;
    // The comparison is made on the rows both metrics score; when that is fewer than the
    // tables above cover, its figures for A differ from theirs, which reads as an error.
    if comparison.shared_rows < report.counts.matched {
        report.warnings.push(format!(
            "the comparison uses the {} rows both metrics score, of the {} above: its figures \
             for A are computed on those rows only",
            comparison.shared_rows, report.counts.matched
        ));
    }
    report.comparison = Some(comparison);
    Ok(())
}

/// Each (role, path) read, with its content hash.
fn input_files(inputs: &[(&'static str, &PathBuf)]) -> Result<Vec<InputFile>> {
    inputs
        .iter()
        .map(|&(role, path)| {
            Ok(InputFile {
                role,
                path: path.display().to_string(),
                content_hash: aesop_core::hash::content_hash(path)?,
            })
        })
        .collect()
}

/// Compare two metrics on the rows all three sources share.
fn compare(
    a: &MetricScores,
    b: &MetricScores,
    human: &[HumanScore],
    human_label: &str,
    options: &StatisticsOptions,
    cancel: &AtomicBool,
) -> Result<Comparison> {
    let b_keys: HashMap<(Cow<str>, Cow<str>), f64> = b
        .rows
        .iter()
        .map(|(t, s, v)| (join_key(t, s), *v))
        .collect();
    let (rows_a, _) = align(a, human, human_label)?;
    let (_, counts_b) = align(b, human, human_label)?;
    let shared: Vec<&ScoreRow> = rows_a
        .iter()
        .filter(|r| b_keys.contains_key(&join_key(&r.topic, &r.system)))
        .collect();
    if shared.is_empty() {
        bail!(
            "{} and {} share no (topic, system) row with a human score",
            a.label,
            b.label
        );
    }
    let rows_b_shared: Vec<ScoreRow> = shared
        .iter()
        .map(|r| ScoreRow {
            metric: b_keys[&join_key(&r.topic, &r.system)],
            ..(*r).clone()
        })
        .collect();
    let rows_a_shared: Vec<ScoreRow> = shared.into_iter().cloned().collect();
    let mut data_a = Aligned::new(&rows_a_shared)?;
    let mut data_b = Aligned::new(&rows_b_shared)?;
    data_a.length_tolerance = options.length_tolerance;
    data_b.length_tolerance = options.length_tolerance;
    Ok(Comparison {
        metric: b.label.clone(),
        counts: counts_b,
        shared_rows: rows_a_shared.len(),
        statistics: compare_metrics(&data_a, &data_b, options.bootstrap, options.seed, cancel)?,
        summary_coverage: [SummaryCoverage::of(&data_a), SummaryCoverage::of(&data_b)],
        discriminative_power_a: discriminative_power(&data_a, options.alpha),
        discriminative_power: discriminative_power(&data_b, options.alpha),
    })
}

/// The key two files' rows are joined on: (topic, system), each composed (NFC), so an id written
/// in decomposed form in one file (`cafe\u{301}`) meets the composed one in the other (`café`).
fn join_key<'a>(topic: &'a str, system: &'a str) -> (Cow<'a, str>, Cow<'a, str>) {
    (
        aesop_corpus::composed(topic),
        aesop_corpus::composed(system),
    )
}

/// Join metric and human rows on (topic, system), compared in NFC ([`join_key`]). A (topic,
/// system) repeated in the metric file is an error.
pub fn align(
    metric: &MetricScores,
    human: &[HumanScore],
    human_label: &str,
) -> Result<(Vec<ScoreRow>, AlignCounts)> {
    let mut by_key: HashMap<(Cow<str>, Cow<str>), (f64, usize)> = HashMap::new();
    for (row, (topic, system, value)) in metric.rows.iter().enumerate() {
        let line = metric.lines.get(row).copied().unwrap_or(0);
        if let Some((_, first_line)) = by_key.insert(join_key(topic, system), (*value, line)) {
            bail!(
                "{}: topic {topic:?}, system {system:?} appears twice (lines {first_line} and {line})",
                metric.label
            );
        }
    }
    let rows: Vec<ScoreRow> = human
        .iter()
        .filter_map(|h| {
            by_key
                .get(&join_key(&h.topic, &h.system))
                .map(|&(m, _)| ScoreRow {
                    topic: h.topic.clone(),
                    system: h.system.clone(),
                    metric: m,
                    human: h.score,
                    words: h.words,
                })
        })
        .collect();
    if rows.is_empty() {
        let example = |r: Option<&(String, String, f64)>| {
            r.map(|(t, s, _)| format!("({t:?}, {s:?})"))
                .unwrap_or_else(|| "none".into())
        };
        let unmatched = Unmatched::of(metric, human);
        bail!(
            "{} and {} share no (topic, system) row (first in each: {} and {}){}",
            metric.label,
            human_label,
            example(metric.rows.first()),
            human
                .first()
                .map(|h| format!("({:?}, {:?})", h.topic, h.system))
                .unwrap_or_else(|| "none".into()),
            unmatched
                .near_miss_note(&metric.label, human_label)
                .map(|note| format!("; {note}"))
                .unwrap_or_default()
        );
    }
    let counts = AlignCounts {
        metric_rows: metric.rows.len(),
        human_rows: human.len(),
        matched: rows.len(),
        metric_only: metric.rows.len() - rows.len(),
        human_only: human.len() - rows.len(),
        metric_missing: metric.missing,
    };
    Ok((rows, counts))
}

/// The rows of a metric and of the human scores that match none of the other's, and the
/// near misses among them: ids that differ only as a spreadsheet or a hand edit changes them.
struct Unmatched<'a> {
    metric: Vec<RowId<'a>>,
    human: Vec<RowId<'a>>,
    /// (metric's, human's) pairs equal under [`loose_id`].
    near_misses: Vec<(RowId<'a>, RowId<'a>)>,
}

/// A row's (topic, system), as written.
type RowId<'a> = (&'a str, &'a str);

impl<'a> Unmatched<'a> {
    fn of(metric: &'a MetricScores, human: &'a [HumanScore]) -> Self {
        let human_keys: HashSet<_> = human
            .iter()
            .map(|h| join_key(&h.topic, &h.system))
            .collect();
        let metric_keys: HashSet<_> = metric
            .rows
            .iter()
            .map(|(topic, system, _)| join_key(topic, system))
            .collect();
        let metric_only: Vec<RowId> = metric
            .rows
            .iter()
            .filter(|(topic, system, _)| !human_keys.contains(&join_key(topic, system)))
            .map(|(topic, system, _)| (topic.as_str(), system.as_str()))
            .collect();
        let human_only: Vec<RowId> = human
            .iter()
            .filter(|h| !metric_keys.contains(&join_key(&h.topic, &h.system)))
            .map(|h| (h.topic.as_str(), h.system.as_str()))
            .collect();
        let loose_human: HashMap<(String, String), RowId> = human_only
            .iter()
            .map(|&(topic, system)| ((loose_id(topic), loose_id(system)), (topic, system)))
            .collect();
        let near_misses = metric_only
            .iter()
            .filter_map(|&(topic, system)| {
                loose_human
                    .get(&(loose_id(topic), loose_id(system)))
                    .map(|&theirs| ((topic, system), theirs))
            })
            .collect();
        Unmatched {
            metric: metric_only,
            human: human_only,
            near_misses,
        }
    }

    /// What to say of the near misses, if any.
    fn near_miss_note(&self, metric_label: &str, human_label: &str) -> Option<String> {
        let &((topic, system), (their_topic, their_system)) = self.near_misses.first()?;
        Some(format!(
            "{} row{} of {metric_label} differ{} from a row of {human_label} only in letter \
             case, spaces or leading zeros (as a spreadsheet or a hand edit changes ids), e.g. \
             ({topic:?}, {system:?}) against ({their_topic:?}, {their_system:?}): ids are \
             matched exactly as written, so correct them in one file",
            self.near_misses.len(),
            if self.near_misses.len() == 1 { "" } else { "s" },
            if self.near_misses.len() == 1 { "s" } else { "" },
        ))
    }

    /// A warning when each side holds rows the other lacks: the figures are over the rows
    /// both hold, which a mistyped id (or two files of different runs) makes fewer than meant.
    /// One side's extra rows alone (predictions of more summaries than were judged, or of
    /// fewer) are how subsets are judged, and get none.
    fn warning(&self, metric_label: &str, human_label: &str, matched: usize) -> Option<String> {
        let (&(topic, system), &(their_topic, their_system)) =
            (self.metric.first()?, self.human.first()?);
        let mut warning = format!(
            "{} rows of {metric_label} have no human score and {} of {human_label} no metric \
             score (e.g. ({topic:?}, {system:?}) and ({their_topic:?}, {their_system:?})): the \
             figures are over the {matched} rows both hold",
            self.metric.len(),
            self.human.len(),
        );
        if let Some(note) = self.near_miss_note(metric_label, human_label) {
            warning.push_str("; ");
            warning.push_str(&note);
        }
        Some(warning)
    }
}

/// An id as a near miss is told: trimmed, lower case, inner spaces as one, and an id of digits
/// without its leading zeros (a spreadsheet reads `007` as the number 7).
fn loose_id(id: &str) -> String {
    let words: Vec<String> = id.split_whitespace().map(str::to_lowercase).collect();
    let id = words.join(" ");
    if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
        let kept = id.trim_start_matches('0');
        return if kept.is_empty() { "0" } else { kept }.to_string();
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric_of(rows: &[(&str, &str)]) -> MetricScores {
        MetricScores {
            label: "p.csv [m]".to_string(),
            rows: rows
                .iter()
                .map(|&(t, s)| (t.to_string(), s.to_string(), 1.0))
                .collect(),
            lines: Vec::new(),
            missing: 0,
        }
    }

    fn human_of(rows: &[(&str, &str)]) -> Vec<HumanScore> {
        rows.iter()
            .map(|&(topic, system)| HumanScore {
                topic: topic.to_string(),
                system: system.to_string(),
                score: 1.0,
                words: None,
            })
            .collect()
    }

    #[test]
    fn rows_each_side_lacks_are_warned_of_and_near_misses_named() {
        // One side's extra rows alone: no warning.
        let metric = metric_of(&[("t1", "A"), ("t1", "B"), ("t2", "A")]);
        let human = human_of(&[("t1", "A"), ("t1", "B")]);
        assert_eq!(
            Unmatched::of(&metric, &human).warning("p.csv [m]", "h.csv", 2),
            None
        );
        // Both sides: warned, with a near miss where an id differs only by case, spaces or
        // leading zeros.
        let metric = metric_of(&[("t1", "A"), ("007", "Sys  B "), ("t3", "C")]);
        let human = human_of(&[("t1", "A"), ("7", "sys b"), ("t4", "C")]);
        let unmatched = Unmatched::of(&metric, &human);
        assert_eq!(
            unmatched.near_misses,
            vec![(("007", "Sys  B "), ("7", "sys b"))]
        );
        let warning = unmatched
            .warning("p.csv [m]", "h.csv", 1)
            .expect("a warning");
        assert_eq!(
            warning,
            "2 rows of p.csv [m] have no human score and 2 of h.csv no metric score (e.g. \
             (\"007\", \"Sys  B \") and (\"7\", \"sys b\")): the figures are over the 1 rows \
             both hold; 1 row of p.csv [m] differs from a row of h.csv only in letter case, \
             spaces or leading zeros (as a spreadsheet or a hand edit changes ids), e.g. \
             (\"007\", \"Sys  B \") against (\"7\", \"sys b\"): ids are matched exactly as \
             written, so correct them in one file"
        );
        assert_eq!(loose_id("000"), "0");
        assert_eq!(loose_id("0a"), "0a");
        assert_eq!(loose_id(" M\u{a0}1 "), "m 1");
    }

    fn means(rows: &[(&str, f64, f64)]) -> Vec<(String, f64, f64)> {
        rows.iter()
            .map(|&(s, m, h)| (s.to_string(), m, h))
            .collect()
    }

    #[test]
    fn misordered_pairs_follow_the_pairwise_accuracy_rules() {
        // Humans: A 5 > C 4.5 > B 4 = E 4 > D 1. Metric: A 3, B 2, C 1, D 1, E 0.
        // Of the 9 pairs the humans order (B = E is a tie, left out), three are wrong: C > B
        // (the metric reverses it), C > D (the metric ties it) and E > D (reversed); C > E and
        // the rest are ordered as the humans order them.
        let m = means(&[
            ("A", 3.0, 5.0),
            ("B", 2.0, 4.0),
            ("C", 1.0, 4.5),
            ("D", 1.0, 1.0),
            ("E", 0.0, 4.0),
        ]);
        let got: Vec<(String, String, f64, f64)> = misordered_system_pairs(&m)
            .into_iter()
            .map(|p| (p.higher, p.lower, p.human_gap, p.metric_gap))
            .collect();
        let want: Vec<(String, String, f64, f64)> = [
            ("C", "D", 3.5, 0.0),
            ("E", "D", 3.0, -1.0),
            ("C", "B", 0.5, -1.0),
        ]
        .iter()
        .map(|&(a, b, h, x)| (a.to_string(), b.to_string(), h, x))
        .collect();
        assert_eq!(got, want);
    }
}
