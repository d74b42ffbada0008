//! `aesop evaluate`: read a predictions file (or one column of a features file) and a judgment
//! set, align them on (topic, system), and report every level, coefficient and pairwise
//! accuracy with bootstrap intervals; optionally compare with a second metric, write the report
//! as JSON and draw the system means as an SVG scatter plot.

use super::bootstrap::{
    bootstrap_intervals, compare_metrics, discriminative_power, DiscriminativePower, Estimate,
    PairedComparison, Resample,
};
use super::levels::{evaluate, Aligned, LevelStats, ScoreRow};
use super::svg::{escape as xml_escape, Svg};
use aesop_core::output::OutputFile;
use aesop_corpus::jsonl;
use anyhow::{bail, Context, Result};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};

/// Arguments of `aesop evaluate`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct EvaluateArgs {
    /// Predictions (JSON Lines: topic, system, target, score; a line's `raw`, the uncalibrated
    /// model output, is used instead of `score` when present) or, with --feature, a features
    /// file (CSV or JSON Lines as written by `aesop features`).
    pub predictions: PathBuf,
    /// Judgment set with the human scores.
    #[cfg_attr(feature = "cli", arg(long))]
    pub human: PathBuf,
    /// Human score to evaluate against (a key of the summaries' `scores`), e.g. relevance.
    #[cfg_attr(feature = "cli", arg(long))]
    pub target: String,
    /// Column of a features file to evaluate, e.g. rouge.r1_f.
    #[cfg_attr(feature = "cli", arg(long))]
    pub feature: Option<String>,
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
    /// predictions file needs none).
    #[cfg_attr(feature = "cli", arg(long))]
    pub compare_feature: Option<String>,
    /// Model of the --compare predictions file (as --model; e.g. the other model of one
    /// `aesop score` output: `evaluate p.jsonl --model A --compare p.jsonl --compare-model B`).
    #[cfg_attr(feature = "cli", arg(long))]
    pub compare_model: Option<String>,
    /// Bootstrap (and permutation) samples; 0 gives point estimates only.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1000))]
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
    /// Write the full report as JSON.
    #[cfg_attr(feature = "cli", arg(long))]
    pub json: Option<PathBuf>,
    /// Write a scatter plot of system means (metric against human) as SVG.
    #[cfg_attr(feature = "cli", arg(long))]
    pub plot: Option<PathBuf>,
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
    /// whatever the files are called.
    pub inputs: Vec<InputFile>,
    pub target: String,
    pub counts: AlignCounts,
    pub topics: usize,
    pub systems: usize,
    pub bootstrap_samples: usize,
    pub resample: Resample,
    pub seed: u64,
    pub statistics: LevelStats,
    pub estimates: Vec<Estimate>,
    /// System means: (system, metric mean, human mean).
    pub system_means: Vec<(String, f64, f64)>,
    /// The system pairs behind the wrong share of `system.pairwise_accuracy`, largest human gap
    /// first.
    pub misordered_system_pairs: Vec<MisorderedPair>,
    pub discriminative_power: DiscriminativePower,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
    /// Why the figures may mislead, e.g. a built-in model evaluated on its own training set
    /// (found by the caller: `aesop_learn::in_sample`); also printed on standard error.
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
    /// The first metric's discriminative power on the shared rows (the report's own table
    /// uses all of its rows).
    pub discriminative_power_a: DiscriminativePower,
    /// The second metric's, on the shared rows.
    pub discriminative_power: DiscriminativePower,
}

/// Run `aesop evaluate`.
pub fn evaluate_command(args: EvaluateArgs) -> Result<()> {
    evaluate_command_with_warnings(args, Vec::new())
}

/// Run `aesop evaluate` with `warnings` about the inputs: each printed on standard error and
/// kept in the `--json` report.
pub fn evaluate_command_with_warnings(args: EvaluateArgs, warnings: Vec<String>) -> Result<()> {
    let mut inputs: Vec<&std::path::Path> = vec![&args.predictions, &args.human];
    inputs.extend(args.compare.as_deref());
    // Both outputs are created (and checked) before the evaluation runs, and committed together.
    let mut outputs = OutputFile::create_all(&named_outputs(&args), &inputs)?;
    let spinner = aesop_core::progress::spinner(&format!(
        "evaluating {} ({} bootstrap samples)",
        args.predictions.display(),
        args.bootstrap
    ));
    let report = build_report(&args);
    spinner.finish_and_clear();
    let mut report = report?;
    for warning in &warnings {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    report.warnings = warnings;
    let mut contents = Vec::new();
    if args.json.is_some() {
        contents.push(serde_json::to_string_pretty(&report)? + "\n");
    }
    if args.plot.is_some() {
        contents.push(scatter_svg(&report));
    }
    for (output, content) in outputs.iter_mut().zip(&contents) {
        output.write_all(content.as_bytes())?;
    }
    OutputFile::commit_all(outputs)?;
    // After the files: a reader of standard output that stops early loses none of them.
    aesop_core::output::print_stdout(&render_text(&report))
}

/// The files `evaluate` writes, each with its flag.
fn named_outputs(args: &EvaluateArgs) -> Vec<(&'static str, &Path)> {
    let mut named = Vec::new();
    named.extend(args.json.as_deref().map(|p| ("--json", p)));
    named.extend(args.plot.as_deref().map(|p| ("--plot", p)));
    named
}

/// Read, align and evaluate: the report `evaluate_command` prints.
pub fn build_report(args: &EvaluateArgs) -> Result<EvaluationReport> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        bail!("--alpha must be between 0 and 1, got {}", args.alpha);
    }
    if args.compare_feature.is_some() && args.compare.is_none() {
        bail!("--compare-feature names a column of the --compare file: give --compare FILE too");
    }
    if args.compare_model.is_some() && args.compare.is_none() {
        bail!("--compare-model names a model of the --compare file: give --compare FILE too");
    }
    aesop_core::output::check_distinct_outputs(&named_outputs(args))?;
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
            set,
        },
    )?;
    if predicted != args.target && args.feature.is_none() {
        metric.label = format!("{} [predicts {predicted}]", metric.label);
    }
    let (rows, counts) = align(&metric, &human, &args.human)?;
    let data = Aligned::new(&rows)?;
    let statistics = evaluate(&data);
    let estimates = bootstrap_intervals(&data, args.bootstrap, args.resample, args.seed, 0.95);
    let system_means: Vec<(String, f64, f64)> = data
        .systems
        .iter()
        .zip(data.system_means(&data.all_topics(), &data.all_systems()))
        .filter_map(|(name, m)| m.map(|(x, y)| (name.clone(), x, y)))
        .collect();
    let misordered_system_pairs = misordered_system_pairs(&system_means);
    let comparison = match &args.compare {
        None => None,
        Some(path) => {
            // --feature carries over to a second features file, not to a predictions file:
            // `evaluate features.csv --feature rouge.r1_f --compare predictions.jsonl` compares
            // the feature with the model.
            let column = match args.compare_feature.as_deref() {
                Some(column) => Some(column),
                None if holds_predictions(path) => None,
                None => args.feature.as_deref(),
            };
            let other = read_metric_for(
                path,
                predicted,
                column,
                ModelChoice {
                    model: args.compare_model.as_deref(),
                    flag: "--compare-model",
                    feature_flag: "--compare-feature",
                    set,
                },
            )?;
            Some(compare(&metric, &other, &human, args)?)
        }
    };
    let mut inputs = vec![("predictions", &args.predictions), ("human", &args.human)];
    if let Some(path) = &args.compare {
        inputs.push(("compare", path));
    }
    let inputs = inputs
        .into_iter()
        .map(|(role, path)| {
            Ok(InputFile {
                role,
                path: path.display().to_string(),
                content_hash: aesop_core::hash::content_hash(path)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(EvaluationReport {
        metric: metric.label.clone(),
        human: format!("{} [{}]", args.human.display(), args.target),
        inputs,
        target: args.target.clone(),
        counts,
        topics: data.topics.len(),
        systems: data.systems.len(),
        bootstrap_samples: args.bootstrap,
        resample: args.resample,
        seed: args.seed,
        statistics,
        estimates,
        system_means,
        misordered_system_pairs,
        discriminative_power: discriminative_power(&data, args.alpha),
        comparison,
        warnings: Vec::new(),
    })
}

/// Compare two metrics on the rows all three sources share.
fn compare(
    a: &MetricScores,
    b: &MetricScores,
    human: &[(String, String, f64)],
    args: &EvaluateArgs,
) -> Result<Comparison> {
    let b_keys: HashMap<(&str, &str), f64> = b
        .rows
        .iter()
        .map(|(t, s, v)| ((t.as_str(), s.as_str()), *v))
        .collect();
    let (rows_a, _) = align(a, human, &args.human)?;
    let (_, counts_b) = align(b, human, &args.human)?;
    let shared: Vec<&ScoreRow> = rows_a
        .iter()
        .filter(|r| b_keys.contains_key(&(r.topic.as_str(), r.system.as_str())))
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
            metric: b_keys[&(r.topic.as_str(), r.system.as_str())],
            ..(*r).clone()
        })
        .collect();
    let rows_a_shared: Vec<ScoreRow> = shared.into_iter().cloned().collect();
    let data_a = Aligned::new(&rows_a_shared)?;
    let data_b = Aligned::new(&rows_b_shared)?;
    Ok(Comparison {
        metric: b.label.clone(),
        counts: counts_b,
        shared_rows: rows_a_shared.len(),
        statistics: compare_metrics(&data_a, &data_b, args.bootstrap, args.seed)?,
        discriminative_power_a: discriminative_power(&data_a, args.alpha),
        discriminative_power: discriminative_power(&data_b, args.alpha),
    })
}

/// Human scores `target` of every summary of the set that has one.
pub fn read_human(path: &Path, target: &str) -> Result<Vec<(String, String, f64)>> {
    let topics = jsonl::read_set(path)?;
    let mut rows = Vec::new();
    let mut names = BTreeSet::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for topic in &topics {
        for summary in &topic.summaries {
            names.extend(summary.scores.keys().cloned());
            if let Some(&score) = summary.scores.get(target) {
                let key = (topic.topic.clone(), summary.system.clone());
                if !seen.insert(key) {
                    bail!(
                        "{}: topic {:?}: system {:?} has two summaries scored '{target}'; \
                         evaluation needs one score per (topic, system)",
                        path.display(),
                        topic.topic,
                        summary.system
                    );
                }
                rows.push((topic.topic.clone(), summary.system.clone(), score));
            }
        }
    }
    if rows.is_empty() {
        let known: Vec<String> = names.into_iter().collect();
        bail!(
            "{}: no summary has a score '{target}' (scores in this set: {})",
            path.display(),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
    }
    Ok(rows)
}

/// Read a predictions file, or the column `feature` of a features file (CSV when the name ends
/// in `.csv`, JSON Lines otherwise).
pub fn read_metric(path: &Path, target: &str, feature: Option<&str>) -> Result<MetricScores> {
    read_metric_for(
        path,
        target,
        feature,
        ModelChoice {
            model: None,
            flag: "--model",
            feature_flag: "--feature",
            set: SetChoice::All,
        },
    )
}

/// Which model's predictions to read from a predictions file, and the flags that choose the
/// model and a features file's column (named in messages: `--model` or `--compare-model`).
#[derive(Clone, Copy)]
struct ModelChoice<'a> {
    model: Option<&'a str>,
    flag: &'static str,
    feature_flag: &'static str,
    set: SetChoice<'a>,
}

/// Which lines of a predictions file whose lines name their set (`set`) to read.
#[derive(Clone, Copy)]
enum SetChoice<'a> {
    /// Every line.
    All,
    /// `--set NAME`.
    Named(&'a str),
    /// The lines of the set named as the --human file is, when the lines name sets.
    HumanFile(&'a str),
}

/// [`read_metric`] with the flags of the file it reads.
fn read_metric_for(
    path: &Path,
    target: &str,
    feature: Option<&str>,
    choice: ModelChoice,
) -> Result<MetricScores> {
    let flag = choice.feature_flag;
    if feature.is_some() && choice.model.is_some() {
        bail!(
            "{} chooses among predictions, and {} is read as a features file ({flag}): give one of them",
            choice.flag,
            path.display()
        );
    }
    let scores = match (is_csv(path), feature) {
        (true, Some(column)) => read_features_csv(path, column)?,
        (true, None) => bail!(
            "{}: a features CSV needs {flag} COLUMN (e.g. {flag} rouge.r1_f)",
            path.display()
        ),
        (false, Some(column)) => read_features_jsonl(path, column)?,
        (false, None) => read_predictions(path, target, choice)?,
    };
    // Every value missing is not "no shared row" (what align would say): say what it is.
    if scores.rows.is_empty() && scores.missing > 0 {
        bail!(
            "{}: all {} values are missing (null, NaN or empty); there is nothing to evaluate",
            scores.label,
            scores.missing
        );
    }
    Ok(scores)
}

fn read_features_csv(path: &Path, column: &str) -> Result<MetricScores> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let headers = reader
        .headers()
        .with_context(|| format!("{}:1: cannot read the header", path.display()))?
        .clone();
    let find = |name: &str| headers.iter().position(|h| h == name);
    // A column given twice would be read from its first place without a word.
    for name in ["topic", "system", column] {
        let places: Vec<usize> = (0..headers.len())
            .filter(|&i| &headers[i] == name)
            .collect();
        if places.len() > 1 {
            bail!(
                "{}:1: column '{name}' appears {} times (columns {}); keep one",
                path.display(),
                places.len(),
                places
                    .iter()
                    .map(|i| (i + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let (Some(topic_col), Some(system_col)) = (find("topic"), find("system")) else {
        bail!(
            "{}:1: the header needs 'topic' and 'system' columns",
            path.display()
        );
    };
    let Some(value_col) = find(column) else {
        bail!(
            "{}:1: no column '{column}' (columns: {})",
            path.display(),
            column_list(headers.iter())
        );
    };
    let mut scores = MetricScores {
        label: format!("{} [{column}]", path.display()),
        rows: Vec::new(),
        lines: Vec::new(),
        missing: 0,
    };
    for record in reader.records() {
        let record = record.with_context(|| format!("{}: invalid CSV", path.display()))?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        let field = |i: usize| record.get(i).unwrap_or("");
        let cell = field(value_col).trim();
        if cell.is_empty() {
            scores.missing += 1;
            continue;
        }
        let value: f64 = cell.parse().map_err(|_| {
            anyhow::anyhow!(
                "{}:{line}: {column}: expected a number, found {cell:?}",
                path.display()
            )
        })?;
        if value.is_infinite() {
            bail!(
                "{}:{line}: {column}: infinite value (leave the cell empty or write NaN for a missing one)",
                path.display()
            );
        }
        if value.is_nan() {
            scores.missing += 1;
            continue;
        }
        scores.rows.push((
            field(topic_col).to_string(),
            field(system_col).to_string(),
            value,
        ));
        scores.lines.push(line as usize);
    }
    Ok(scores)
}

/// Each non-blank line of a JSON Lines file as an object, with its line number.
/// Whether `path` names a CSV file (by its extension).
fn is_csv(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
}

/// Whether `path` is a JSON Lines predictions file: its first record has a `score`, which
/// `aesop features` never writes. False for a CSV or a file that cannot be read (the reader
/// then says why).
fn holds_predictions(path: &Path) -> bool {
    if is_csv(path) {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let first = BufReader::new(file)
        .lines()
        .map_while(std::result::Result::ok)
        .find(|l| !l.trim().is_empty());
    first.is_some_and(|line| {
        matches!(jsonl::parse_json(line.trim_start_matches('\u{feff}')),
                     Ok(Value::Object(map)) if map.contains_key("score"))
    })
}

fn json_objects(path: &Path) -> Result<Vec<(usize, serde_json::Map<String, Value>)>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line_number = i + 1;
        let line =
            line.with_context(|| format!("{}:{line_number}: cannot read", path.display()))?;
        let line = match line.strip_prefix('\u{feff}') {
            Some(rest) if line_number == 1 => rest.to_string(),
            _ => line,
        };
        if line.trim().is_empty() {
            continue;
        }
        // Parsed as judgment-set lines are: a bare NaN is a missing value, a repeated key an error.
        match jsonl::parse_json(&line) {
            Ok(Value::Object(map)) => out.push((line_number, map)),
            Ok(_) => bail!("{}:{line_number}: expected a JSON object", path.display()),
            Err(message) => bail!("{}:{line_number}: {message}", path.display()),
        }
    }
    if out.is_empty() {
        bail!(
            "{}: no records (the file is empty or holds only blank lines)",
            path.display()
        );
    }
    Ok(out)
}

fn string_field(
    path: &Path,
    line: usize,
    object: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<String> {
    match object.get(name) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(_) => bail!("{}:{line}: {name}: expected a string", path.display()),
        None => bail!("{}:{line}: {name}: missing", path.display()),
    }
}

/// A number, or `None` for a missing value: null or NaN (bare, as Python writes it, or `"NaN"`),
/// as in a judgment set (docs/JUDGMENT_SETS.md); an infinite value is an error.
fn number_field(
    path: &Path,
    line: usize,
    object: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<Option<f64>> {
    match object.get(name) {
        Some(Value::Number(n)) => Ok(n.as_f64().filter(|v| v.is_finite())),
        Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("nan") => Ok(None),
        Some(Value::String(s))
            if matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "infinity" | "-infinity" | "inf" | "-inf"
            ) =>
        {
            bail!(
                "{}:{line}: {name}: infinite value (use null or NaN for a missing one)",
                path.display()
            )
        }
        Some(other) => bail!(
            "{}:{line}: {name}: expected a number, found {other}",
            path.display()
        ),
        None => bail!("{}:{line}: {name}: missing", path.display()),
    }
}

fn read_features_jsonl(path: &Path, column: &str) -> Result<MetricScores> {
    let objects = json_objects(path)?;
    if let Some((line, first)) = objects.first() {
        if !first.contains_key(column) {
            bail!(
                "{}:{line}: no field '{column}' (fields: {})",
                path.display(),
                column_list(first.keys().map(String::as_str))
            );
        }
    }
    let mut scores = MetricScores {
        label: format!("{} [{column}]", path.display()),
        rows: Vec::new(),
        lines: Vec::new(),
        missing: 0,
    };
    for (line, object) in &objects {
        let topic = string_field(path, *line, object, "topic")?;
        let system = string_field(path, *line, object, "system")?;
        match number_field(path, *line, object, column)? {
            Some(v) => {
                scores.rows.push((topic, system, v));
                scores.lines.push(*line);
            }
            None => scores.missing += 1,
        }
    }
    Ok(scores)
}

/// Predictions JSON Lines; lines whose `target` names another target are skipped (a file may
/// hold several targets), lines without `target` are taken. With `choice.model`, only that
/// model's lines are read. One summary predicted by two models (`aesop score --model A --model
/// B` on one target) is an error naming both lines and the flag that chooses one.
fn read_predictions(path: &Path, target: &str, choice: ModelChoice) -> Result<MetricScores> {
    let objects = json_objects(path)?;
    let mut scores = MetricScores {
        label: match choice.model {
            Some(model) => format!("{} [model {model}]", path.display()),
            None => path.display().to_string(),
        },
        rows: Vec::new(),
        lines: Vec::new(),
        missing: 0,
    };
    let mut other_targets = BTreeSet::new();
    let mut models_of_target = BTreeSet::new();
    let mut sets = BTreeSet::new();
    // The lines taken (topic, system, raw, score, line) and the models they name.
    let mut read = Vec::new();
    let mut read_models = BTreeSet::new();
    let wanted_set = match choice.set {
        SetChoice::All => None,
        SetChoice::Named(set) | SetChoice::HumanFile(set) => Some(set),
    };
    // (topic, system) -> (line, model) of its prediction, to name both lines of a repeat.
    let mut first: HashMap<(String, String), (usize, Option<String>)> = HashMap::new();
    for (line, object) in &objects {
        if let Some(set) = object.get("set") {
            let Value::String(set) = set else {
                bail!("{}:{line}: set: expected a string", path.display());
            };
            sets.insert(set.clone());
            if wanted_set.is_some_and(|wanted| wanted != set) {
                continue;
            }
        }
        if let Some(t) = object.get("target") {
            let Value::String(t) = t else {
                bail!("{}:{line}: target: expected a string", path.display());
            };
            if t != target {
                other_targets.insert(t.clone());
                continue;
            }
        }
        let model = match object.get("model") {
            None | Some(Value::Null) => None,
            Some(_) => Some(string_field(path, *line, object, "model")?),
        };
        if let Some(model) = &model {
            models_of_target.insert(model.clone());
        }
        if choice.model.is_some() && model.as_deref() != choice.model {
            continue;
        }
        if !object.contains_key("score") {
            bail!(
                "{}:{line}: score: missing (a features file needs {} COLUMN)",
                path.display(),
                choice.feature_flag
            );
        }
        let topic = string_field(path, *line, object, "topic")?;
        let system = string_field(path, *line, object, "system")?;
        if let Some((first_line, first_model)) =
            first.insert((topic.clone(), system.clone()), (*line, model.clone()))
        {
            let models = match (&first_model, &model) {
                (Some(a), Some(b)) if a != b => format!(
                    ": models {a} and {b} both predict '{target}'; choose one with {} NAME",
                    choice.flag
                ),
                _ => String::new(),
            };
            bail!(
                "{}:{line}: topic {topic:?}, system {system:?} already has a prediction at line {first_line}{models}",
                path.display()
            );
        }
        let raw = match object.get("raw") {
            Some(raw) if !raw.is_null() => Some(number_field(path, *line, object, "raw")?),
            _ => None,
        };
        let score = number_field(path, *line, object, "score")?;
        if let Some(model) = model {
            read_models.insert(model);
        }
        read.push((topic, system, raw, score, *line));
    }
    // The model's own output when the lines have it: a calibrated `score` is a clamped linear
    // map of `raw`, and cross-validate's out-of-fold lines carry one map per fold, which would
    // mix the folds' scales within a topic's ranking. Lines of several models (`aesop score`'s
    // defaults: `pyramid` where a topic has references, `pyramid-noref` where not) have raw
    // outputs on several scales and share only the target's scale: `score` then.
    let use_raw = read_models.len() <= 1;
    if !use_raw {
        scores.label = format!(
            "{} [`score`, not `raw`: lines of the models {}]",
            scores.label,
            read_models.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    for (topic, system, raw, score, line) in read {
        match if use_raw { raw.unwrap_or(score) } else { score } {
            Some(v) => {
                scores.rows.push((topic, system, v));
                scores.lines.push(line);
            }
            None => scores.missing += 1,
        }
    }
    if let Some(model) = choice.model {
        if first.is_empty() {
            bail!(
                "{}: no prediction of '{target}' by model '{model}' ({})",
                path.display(),
                if models_of_target.is_empty() && !other_targets.is_empty() {
                    // The lines name models, but of other targets (audit stop 53: this said
                    // "its lines name no model").
                    format!(
                        "no line predicts '{target}'; targets in the file: {}",
                        other_targets.iter().cloned().collect::<Vec<_>>().join(", ")
                    )
                } else if models_of_target.is_empty() {
                    format!("its lines of '{target}' name no model")
                } else {
                    format!(
                        "models in the file: {}",
                        models_of_target.into_iter().collect::<Vec<_>>().join(", ")
                    )
                }
            );
        }
    }
    match choice.set {
        SetChoice::Named(set) if sets.is_empty() => bail!(
            "{}: --set {set}: its lines name no set (only `cross-validate` with several --set \
             writes `set`)",
            path.display()
        ),
        SetChoice::Named(set) | SetChoice::HumanFile(set)
            if !sets.is_empty() && !sets.contains(set) =>
        {
            bail!(
                "{}: no line of set '{set}'{} (sets in the file: {}); choose one with --set NAME \
                 and give that set's file as --human",
                path.display(),
                if matches!(choice.set, SetChoice::HumanFile(_)) {
                    ", the --human file's name"
                } else {
                    ""
                },
                sets.into_iter().collect::<Vec<_>>().join(", ")
            )
        }
        _ => {}
    }
    if !sets.is_empty() {
        if let Some(set) = wanted_set {
            scores.label = format!("{} [set {set}]", scores.label);
        }
    }
    if first.is_empty() && !other_targets.is_empty() {
        bail!(
            "{}: no prediction for target '{target}' (targets in the file: {}; --predicted \
             TARGET reads another target's lines)",
            path.display(),
            other_targets.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(scores)
}

fn column_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    if names.len() > 20 {
        format!("{}, … ({} in all)", names[..20].join(", "), names.len())
    } else {
        names.join(", ")
    }
}

/// Join metric and human rows on (topic, system). A (topic, system) repeated in the metric file
/// is an error.
pub fn align(
    metric: &MetricScores,
    human: &[(String, String, f64)],
    human_path: &Path,
) -> Result<(Vec<ScoreRow>, AlignCounts)> {
    let mut by_key: HashMap<(&str, &str), (f64, usize)> = HashMap::new();
    for (row, (topic, system, value)) in metric.rows.iter().enumerate() {
        let line = metric.lines.get(row).copied().unwrap_or(0);
        if let Some((_, first_line)) = by_key.insert((topic, system), (*value, line)) {
            bail!(
                "{}: topic {topic:?}, system {system:?} appears twice (lines {first_line} and {line})",
                metric.label
            );
        }
    }
    let rows: Vec<ScoreRow> = human
        .iter()
        .filter_map(|(topic, system, h)| {
            by_key
                .get(&(topic.as_str(), system.as_str()))
                .map(|&(m, _)| ScoreRow {
                    topic: topic.clone(),
                    system: system.clone(),
                    metric: m,
                    human: *h,
                })
        })
        .collect();
    if rows.is_empty() {
        let example = |r: Option<&(String, String, f64)>| {
            r.map(|(t, s, _)| format!("({t:?}, {s:?})"))
                .unwrap_or_else(|| "none".into())
        };
        bail!(
            "{} and {} share no (topic, system) row (first in each: {} and {})",
            metric.label,
            human_path.display(),
            example(metric.rows.first()),
            example(human.first())
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

fn fmt3(x: f64) -> String {
    if x.is_nan() {
        "   —  ".to_string()
    } else {
        format!("{x:6.3}")
    }
}

fn with_interval(e: &Estimate) -> String {
    format!(
        "{} [{}, {}]",
        fmt3(e.value),
        fmt3(e.interval.lower).trim(),
        fmt3(e.interval.upper).trim()
    )
}

/// The human-readable report.
pub fn render_text(report: &EvaluationReport) -> String {
    let mut out = String::new();
    let c = &report.counts;
    let _ = writeln!(out, "metric: {}", report.metric);
    let _ = writeln!(out, "human:  {}", report.human);
    let _ = writeln!(
        out,
        "rows: {} matched ({} metric, {} human; {} metric-only, {} human-only); {} topics, {} systems",
        c.matched, c.metric_rows, c.human_rows, c.metric_only, c.human_only, report.topics, report.systems
    );
    if c.metric_missing > 0 {
        let _ = writeln!(
            out,
            "      {} metric rows have no value (empty, null or NaN) and are not evaluated",
            c.metric_missing
        );
    }
    let _ = writeln!(
        out,
        "95% percentile-bootstrap intervals: {} samples resampling {}, seed {}",
        report.bootstrap_samples,
        match report.resample {
            Resample::Systems => "systems",
            Resample::Topics => "topics",
            Resample::Both => "topics and systems",
        },
        report.seed
    );
    let _ = writeln!(out);
    let by_name = |name: &str| report.estimates.iter().find(|e| e.name == name);
    let s = &report.statistics;
    let _ = writeln!(
        out,
        "{:<9} {:>5}  {:<24} {:<24} {:<24}",
        "level", "n", "Pearson r", "Spearman rho", "Kendall tau-b"
    );
    for (level, n) in [
        ("summary", s.summary_topics),
        ("system", s.systems),
        ("global", s.rows),
    ] {
        let cell = |coef: &str| {
            by_name(&format!("{level}.{coef}"))
                .map(with_interval)
                .unwrap_or_default()
        };
        let _ = writeln!(
            out,
            "{:<9} {:>5}  {:<24} {:<24} {:<24}",
            level,
            n,
            cell("pearson"),
            cell("spearman"),
            cell("kendall")
        );
    }
    let _ = writeln!(out);
    for (label, name, p) in [
        (
            "system-level pairwise accuracy",
            "system.pairwise_accuracy",
            &s.system_pairwise,
        ),
        (
            "input-level pairwise accuracy ",
            "input.pairwise_accuracy",
            &s.input_pairwise,
        ),
    ] {
        let _ = writeln!(
            out,
            "{label}: {}  ({} of {} pairs; {} human ties left out, {} metric ties counted wrong)",
            by_name(name).map(with_interval).unwrap_or_default(),
            p.correct,
            p.pairs,
            p.human_ties,
            p.metric_ties
        );
    }
    render_misordered(&mut out, &report.misordered_system_pairs);
    let _ = writeln!(out);
    render_discriminative(&mut out, "metric", &report.discriminative_power);
    if let Some(cmp) = &report.comparison {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "comparison: A = {}, B = {} ({} shared rows)",
            report.metric, cmp.metric, cmp.shared_rows
        );
        let _ = writeln!(
            out,
            "{:<26} {:>7} {:>7} {:>8} {:>14} {:>14}",
            "statistic", "A", "B", "A - B", "P(A > B) boot", "perm. p"
        );
        for row in &cmp.statistics {
            let _ = writeln!(
                out,
                "{:<26} {:>7} {:>7} {:>8} {:>14} {:>14}",
                row.name,
                fmt3(row.a).trim(),
                fmt3(row.b).trim(),
                fmt3(row.difference).trim(),
                fmt3(row.bootstrap_a_wins).trim(),
                fmt3(row.permutation_p).trim()
            );
        }
        let _ = writeln!(out);
        render_discriminative(&mut out, "A, shared rows", &cmp.discriminative_power_a);
        let _ = writeln!(out);
        render_discriminative(&mut out, "B, shared rows", &cmp.discriminative_power);
    }
    out
}

/// How many misordered system pairs are listed in the text report (all are in `--json`).
const MISORDERED_SHOWN: usize = 10;

fn render_misordered(out: &mut String, pairs: &[MisorderedPair]) {
    if pairs.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "system pairs ordered wrongly ({}), largest human gap first:",
        pairs.len()
    );
    let _ = writeln!(
        out,
        "  {:<30} {:>10} {:>10}",
        "higher > lower (by the humans)", "human gap", "metric gap"
    );
    for p in pairs.iter().take(MISORDERED_SHOWN) {
        let _ = writeln!(
            out,
            "  {:<30} {:>+10.3} {:>+10.3}",
            format!("{} > {}", p.higher, p.lower),
            p.human_gap,
            p.metric_gap
        );
    }
    if pairs.len() > MISORDERED_SHOWN {
        let _ = writeln!(
            out,
            "  and {} more (all in the --json report)",
            pairs.len() - MISORDERED_SHOWN
        );
    }
}

fn render_discriminative(out: &mut String, who: &str, d: &DiscriminativePower) {
    let _ = writeln!(
        out,
        "discriminative power ({who}; paired Wilcoxon over topics, alpha {}): {} system pairs",
        d.alpha, d.pairs
    );
    let _ = writeln!(
        out,
        "  agree: {} (both significant, same direction {}; neither significant {})",
        d.agreements, d.both_significant_same_direction, d.neither_significant
    );
    let _ = writeln!(
        out,
        "  disagree: {} (metric only {}; human only {}; opposite directions {})",
        d.disagreements, d.metric_only, d.human_only, d.both_significant_opposite_direction
    );
}

/// Scatter plot of system means (x: metric, y: human), one labelled dot per system.
pub fn scatter_svg(report: &EvaluationReport) -> String {
    let (width, height) = (640.0, 480.0);
    let (left, right, top, bottom) = (70.0, 30.0, 50.0, 60.0);
    let points = &report.system_means;
    let range = |values: Vec<f64>| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // A constant axis still needs a span; pad 5% on each side.
        let span = if hi > lo { hi - lo } else { lo.abs().max(1.0) };
        (lo - 0.05 * span, hi + 0.05 * span)
    };
    let (x0, x1) = range(points.iter().map(|p| p.1).collect());
    let (y0, y1) = range(points.iter().map(|p| p.2).collect());
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (width - left - right);
    let py = |y: f64| height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom);
    let mut svg = Svg::new(width, height);
    let tau = report.statistics.system.kendall;
    // The label holds the whole path; its file name (and column) is enough on a plot.
    let metric = report
        .metric
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(&report.metric);
    svg.title(
        width,
        &format!(
            "System means: {metric} vs human {} (system-level Kendall tau-b {})",
            report.target,
            fmt3(tau).trim()
        ),
    );
    // Axes with five ticks each.
    let (ax0, ax1, ay0, ay1) = (left, width - right, height - bottom, top);
    svg.push(format_args!(
        r#"<path d="M{ax0},{ay1} L{ax0},{ay0} L{ax1},{ay0}" fill="none" stroke="black"/>"#
    ));
    for i in 0..=4 {
        let f = i as f64 / 4.0;
        let xv = x0 + f * (x1 - x0);
        let yv = y0 + f * (y1 - y0);
        let (tx, ty) = (px(xv), py(yv));
        svg.push(format_args!(
            r#"<line x1="{tx:.1}" y1="{ay0}" x2="{tx:.1}" y2="{:.1}" stroke="black"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            ay0 + 5.0,
            ay0 + 18.0,
            tick_label(xv, x1 - x0)
        ));
        svg.push(format_args!(
            r#"<line x1="{:.1}" y1="{ty:.1}" x2="{ax0}" y2="{ty:.1}" stroke="black"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            ax0 - 5.0,
            ax0 - 8.0,
            ty + 4.0,
            tick_label(yv, y1 - y0)
        ));
    }
    svg.push(format_args!(
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12">{} (mean over topics)</text>"#,
        (ax0 + ax1) / 2.0,
        height - 15.0,
        xml_escape(metric)
    ));
    svg.push(format_args!(
        r#"<text x="18" y="{:.1}" text-anchor="middle" font-size="12" transform="rotate(-90 18 {:.1})">human {} (mean over topics)</text>"#,
        (ay0 + ay1) / 2.0,
        (ay0 + ay1) / 2.0,
        xml_escape(&report.target)
    ));
    for (system, x, y) in points {
        let (cx, cy) = (px(*x), py(*y));
        svg.push(format_args!(
            r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="4" fill="steelblue"><title>{}: {x:.4}, {y:.4}</title></circle><text x="{:.1}" y="{:.1}" font-size="9" fill="dimgray">{}</text>"#,
            xml_escape(system),
            cx + 6.0,
            cy - 4.0,
            xml_escape(system)
        ));
    }
    svg.finish()
}

/// A tick label with enough decimals for the axis span.
fn tick_label(value: f64, span: f64) -> String {
    let decimals = if span <= 0.0 {
        2
    } else {
        (2.0 - span.log10().floor()).clamp(0.0, 6.0) as usize
    };
    format!("{value:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

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
