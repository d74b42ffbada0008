//! `aesop evaluate --features`: many columns of a features file judged against the human scores
//! at once, each by the statistics `evaluate --feature` gives it alone (the same alignment,
//! levels and bootstrap, so a row equals that column's own report), ranked by summary-level
//! Kendall τ. A researcher's first question about a set ("which of these 500 features agree
//! with the annotators?") was a loop over `evaluate` or a script of its own.
//!
//! Each column is read the way round that agrees with the annotators at the summary level, as
//! `cross-validate` names its best single feature (`-content.js`: JS divergence negated), so
//! every figure reads "higher is better" and the first ranked row is that feature. The sign is
//! chosen in hindsight, on the data being judged. Columns that give a value for too few
//! summaries, or rank too few topics ([`crate::levels::METRIC_MIN_COVERAGE`]), are listed apart,
//! unranked: a feature defined in three topics can reach τ 1.000 there.

use super::across::{across_sets, render_across_text, set_names, AcrossSets, FeaturesOnSet};
use super::read::{feature_columns, holds_prediction_lines, read_feature_columns};
use super::render::bootstrap_line;
use super::{
    align, commit_then_print, input_files, named_outputs, AlignCounts, EvaluateArgs, HumanScore,
    InputFile, StatisticsOptions,
};
use crate::bootstrap::{bootstrap_intervals, Estimate, Resample};
use crate::levels::{
    covers_the_set, evaluate, Aligned, LevelStats, ScoreRow, SummaryCoverage, METRIC_MIN_COVERAGE,
    STATISTIC_NAMES,
};
use aesop_core::output::OutputFile;
use anyhow::{bail, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Everything `evaluate --features` reports.
#[derive(Debug, Clone, Serialize)]
pub struct FeatureTable {
    /// The set's name in the tables across sets (the judgment set's file name without
    /// `.jsonl`; see [`super::across::set_names`]).
    pub set: String,
    pub features_file: String,
    pub human: String,
    /// The files read, with their content hashes (as `evaluate`'s report).
    pub inputs: Vec<InputFile>,
    pub target: String,
    /// The `--features` patterns, as given.
    pub patterns: Vec<String>,
    pub bootstrap_samples: usize,
    pub resample: Resample,
    pub seed: u64,
    /// Summaries with a human score for the target.
    pub human_rows: usize,
    /// Topics whose summaries the annotators do not all score alike.
    pub topics_ranked_by_humans: usize,
    /// The share of both a column must cover to be ranked.
    pub min_coverage: f64,
    /// Ranked columns first (best summary-level τ first, file order among equals), then the
    /// columns that do not cover the set.
    pub rows: Vec<FeatureRow>,
    /// The chosen columns in file order (`rows` are ranked).
    #[serde(skip)]
    pub(super) columns: Vec<String>,
    /// About the inputs, as a single metric's report has them: rows of the features file and
    /// of the human scores that match none of the other's (ids a spreadsheet changed).
    pub warnings: Vec<String>,
}

/// `evaluate --features` on several sets (`--also`): each set's table, then the columns across
/// them.
#[derive(Debug, Clone, Serialize)]
pub struct FeatureTables {
    pub sets: Vec<FeatureTable>,
    pub across: AcrossSets,
}

/// One column's evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct FeatureRow {
    /// 1 for the best; `None` for a column that does not cover the set.
    pub rank: Option<usize>,
    /// As `evaluate --feature` reads it: the column, or `-COLUMN` where it is negated.
    pub feature: String,
    pub column: String,
    pub negated: bool,
    pub covers_the_set: bool,
    pub counts: AlignCounts,
    pub summary_coverage: SummaryCoverage,
    pub statistics: LevelStats,
    pub estimates: Vec<Estimate>,
}

/// The columns of `available` that `patterns` choose, in file order: a pattern is a column name
/// or a prefix ending in `*` (`*` alone: every column). A pattern that matches nothing is an
/// error naming `source` (the file, or the list in memory).
pub fn chosen_columns(
    source: &str,
    available: &[String],
    patterns: &[String],
) -> Result<Vec<String>> {
    let matches = aesop_core::patterns::matches;
    for pattern in patterns {
        if available.iter().any(|name| matches(pattern, name)) {
            continue;
        }
        let negated = pattern
            .strip_prefix('-')
            .filter(|base| available.iter().any(|name| matches(base, name)));
        if let Some(base) = negated {
            bail!(
                "--features {pattern}: give {base}: with --features every column is read the way \
                 round that agrees with the annotators, and named -COLUMN where that is negated"
            );
        }
        bail!(
            "--features {pattern}: no column of {source} matches (a name, or a prefix ending in \
             *; columns: {})",
            super::read::column_list(available.iter().map(String::as_str))
        );
    }
    Ok(available
        .iter()
        .filter(|name| patterns.iter().any(|p| matches(p, name)))
        .cloned()
        .collect())
}

/// Run `aesop evaluate --features`: stops between columns once `cancel` is set, writing
/// nothing. With `--also`, every set's table and the table across them.
pub fn features_table_command(args: &EvaluateArgs, cancel: &AtomicBool) -> Result<()> {
    let named = named_outputs(args);
    aesop_core::output::check_distinct_outputs(&named)?;
    let sets = sets_of(args);
    let inputs: Vec<&Path> = sets
        .iter()
        .flat_map(|s| [s.features.as_path(), s.human.as_path()])
        .collect();
    let outputs = OutputFile::create_all(&named, &inputs)?;
    let (tables, across) = build_feature_tables(args, cancel)?;
    for warning in tables.iter().flat_map(|table| &table.warnings) {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    let mut contents = Vec::new();
    if args.json.is_some() {
        contents.push(tables_json(&tables, across.as_ref())? + "\n");
    }
    if let Some(csv) = &args.csv {
        contents.push(render_table_csv(
            &tables,
            aesop_core::output::field_delimiter(csv),
        )?);
    }
    commit_then_print(outputs, &contents, &tables_text(&tables, across.as_ref()))
}

/// The report of `--features --json`: the one set's table, or with other sets every table and
/// the columns across them ([`FeatureTables`]).
pub fn tables_json(tables: &[FeatureTable], across: Option<&AcrossSets>) -> Result<String> {
    Ok(match (across, tables) {
        (Some(across), _) => serde_json::to_string_pretty(&FeatureTables {
            sets: tables.to_vec(),
            across: across.clone(),
        })?,
        (None, [table]) => serde_json::to_string_pretty(table)?,
        (None, _) => bail!("several tables without the view across them"),
    })
}

/// The printed tables: each set's, then the columns across them.
pub fn tables_text(tables: &[FeatureTable], across: Option<&AcrossSets>) -> String {
    let mut text = tables
        .iter()
        .map(render_table_text)
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(across) = across {
        text.push('\n');
        text.push_str(&render_across_text(across));
    }
    text
}

/// The sets `--features` judges: the positional features file on --human's --target, then
/// each `--also`.
fn sets_of(args: &EvaluateArgs) -> Vec<FeaturesOnSet> {
    std::iter::once(FeaturesOnSet {
        features: args.predictions.clone(),
        human: args.human.clone(),
        target: args.target.clone(),
    })
    .chain(args.also.iter().cloned())
    .collect()
}

/// Every set's table (the positional set's first) and, with `--also`, the columns across them.
pub fn build_feature_tables(
    args: &EvaluateArgs,
    cancel: &AtomicBool,
) -> Result<(Vec<FeatureTable>, Option<AcrossSets>)> {
    super::check_usage(args)?;
    let sets = sets_of(args);
    let names = set_names(&sets)?;
    // Every file is checked, and every pattern matched, before the first set is evaluated.
    for set in &sets {
        check_set(set, &args.features)?;
    }
    let mut tables = Vec::new();
    for (set, name) in sets.iter().zip(&names) {
        tables.push(build_set_table(set, name, args, cancel)?);
    }
    let across = if tables.len() > 1 {
        let corpora = sets
            .iter()
            .map(|set| aesop_core::hash::content_hash(&set.human))
            .collect::<Result<Vec<String>>>()?;
        Some(across_sets(&tables, &names, &corpora))
    } else {
        None
    };
    Ok((tables, across))
}

/// Read the chosen columns and the human scores of the positional set, and evaluate every
/// column.
pub fn build_feature_table(args: &EvaluateArgs, cancel: &AtomicBool) -> Result<FeatureTable> {
    super::check_usage(args)?;
    let set = &sets_of(args)[0];
    check_set(set, &args.features)?;
    build_set_table(set, &set_names(std::slice::from_ref(set))?[0], args, cancel)
}

/// What can be refused before any evaluation: a file that cannot be hashed, a predictions file,
/// a pattern that matches no column.
fn check_set(set: &FeaturesOnSet, patterns: &[String]) -> Result<()> {
    for input in [&set.features, &set.human] {
        aesop_core::hash::check_hashable(input)?;
    }
    if holds_prediction_lines(&set.features) {
        bail!(
            "{}: a predictions file (its lines have `score`); --features reads the columns of a \
             features file (`aesop features`): evaluate predictions without it",
            set.features.display()
        );
    }
    chosen_columns(
        &set.features.display().to_string(),
        &feature_columns(&set.features)?,
        patterns,
    )?;
    Ok(())
}

/// One set's table.
fn build_set_table(
    set: &FeaturesOnSet,
    name: &str,
    args: &EvaluateArgs,
    cancel: &AtomicBool,
) -> Result<FeatureTable> {
    let human = super::read_human(&set.human, &set.target)?;
    let features_file = set.features.display().to_string();
    let available = feature_columns(&set.features)?;
    let columns = chosen_columns(&features_file, &available, &args.features)?;
    let column_refs: Vec<&str> = columns.iter().map(String::as_str).collect();
    let scores = read_feature_columns(&set.features, &column_refs)?;
    let inputs = input_files(&[("predictions", &set.features), ("human", &set.human)])?;
    let judged = Judged {
        set: name,
        features: features_file,
        human_file: set.human.display().to_string(),
        inputs,
        target: &set.target,
        patterns: &args.features,
        progress: Progress::Bar,
    };
    let mut table = table_of(judged, columns, scores, &human, &args.statistics(), cancel)?;
    let warnings = in_training_warnings(&table.columns, &human, |column| {
        super::read::table_prediction_models(&set.features, column)
    });
    table.warnings.extend(warnings);
    Ok(table)
}

/// For columns of `aesop score`'s table of predictions (`models_of` a column's models, `None`
/// for a table of features): each model whose predictions judged here its `in_training`
/// column marks as of summaries the model learned from (in-sample figures, as `evaluate` warns
/// for the same predictions kept as JSON Lines).
fn in_training_warnings(
    columns: &[String],
    human: &[HumanScore],
    models_of: impl Fn(&str) -> Option<super::PredictionModels>,
) -> Vec<String> {
    let judged: std::collections::HashSet<(&str, &str)> = human
        .iter()
        .filter(|h| h.score.is_finite())
        .map(|h| (h.topic.as_str(), h.system.as_str()))
        .collect();
    let mut warnings = Vec::new();
    for column in columns {
        let Some(models) = models_of(column) else {
            continue;
        };
        for (model, summaries) in models {
            let marked = summaries
                .in_training
                .iter()
                .filter(|(topic, system)| judged.contains(&(topic.as_str(), system.as_str())))
                .count();
            if marked > 0 {
                warnings.push(format!(
                    "column {column}: model {model} learned from {marked} of the summaries judged \
                     here (the table's in_training column lists them): its figures are in-sample \
                     and overstate agreement"
                ));
            }
        }
    }
    warnings
}

/// One set judged from memory by [`feature_tables_of_records`]: its feature records and the
/// human scores of its topics, each list named in messages, and the corpus it belongs to (sets
/// of one corpus, the same topics under two columns, are held out together).
pub struct RecordSet<'a> {
    /// The set's name in the tables.
    pub name: &'a str,
    /// The feature records' name in messages (`features`, `also[newsroom]`).
    pub records_name: &'a str,
    pub records: &'a [String],
    pub human: &'a [HumanScore],
    /// The topics' name in messages and in the table's `human`.
    pub human_name: &'a str,
    pub target: &'a str,
    /// Equal for sets of the same topics (a content hash of them).
    pub corpus: String,
}

/// `evaluate --features … --also …` of records held in memory (the Python package's
/// `aesop.evaluate(…, features=…)`): each set's table and, with more than one set, the columns
/// across them, as [`build_feature_tables`] makes them of files. A set given twice with the same
/// column is refused, as `--also` refuses it. `progress` counts the columns judged, of every
/// set (its total is set once all sets' columns are chosen).
pub fn feature_tables_of_records(
    sets: &[RecordSet],
    patterns: &[String],
    options: &StatisticsOptions,
    cancel: &AtomicBool,
    progress: Option<&aesop_core::progress::Counter>,
) -> Result<(Vec<FeatureTable>, Option<AcrossSets>)> {
    options.check()?;
    for (i, set) in sets.iter().enumerate() {
        if let Some(earlier) = sets[..i]
            .iter()
            .find(|e| e.corpus == set.corpus && e.target == set.target)
        {
            bail!(
                "{} and {} are the same topics with the same column {}: each set counts once \
                 across sets",
                earlier.human_name,
                set.human_name,
                set.target
            );
        }
        if let Some(earlier) = sets[..i].iter().find(|e| e.name == set.name) {
            bail!("two sets are named {}: name each set once", earlier.name);
        }
    }
    // Every set's columns first, so that the columns to judge are counted before any is.
    let read = sets
        .iter()
        .map(|set| {
            super::read::feature_columns_of_records(set.records_name, set.records, |available| {
                chosen_columns(set.records_name, available, patterns)
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(progress) = progress {
        let total = read.iter().map(|(columns, _)| columns.len()).sum();
        progress.total.store(total, Ordering::Relaxed);
    }
    let tables = sets
        .iter()
        .zip(read)
        .map(|(set, (columns, scores))| {
            let judged = Judged {
                set: set.name,
                features: set.records_name.to_string(),
                human_file: set.human_name.to_string(),
                inputs: Vec::new(),
                target: set.target,
                patterns,
                // The package draws progress its own way (`progress=`), never on standard error.
                progress: progress.map_or(Progress::Off, Progress::Count),
            };
            let mut table = table_of(judged, columns, scores, set.human, options, cancel)?;
            let warnings = in_training_warnings(&table.columns, set.human, |column| {
                super::read::table_prediction_models_of_records(set.records, column)
            });
            table.warnings.extend(warnings);
            Ok(table)
        })
        .collect::<Result<Vec<_>>>()?;
    let across = (tables.len() > 1).then(|| {
        let names: Vec<String> = sets.iter().map(|s| s.name.to_string()).collect();
        let corpora: Vec<String> = sets.iter().map(|s| s.corpus.clone()).collect();
        across_sets(&tables, &names, &corpora)
    });
    Ok((tables, across))
}

/// What a table names: the set, the features and the human scores judged, as its report says
/// them.
struct Judged<'a> {
    set: &'a str,
    features: String,
    /// The judgment set's file (or list), as alignment errors name it.
    human_file: String,
    inputs: Vec<InputFile>,
    target: &'a str,
    patterns: &'a [String],
    progress: Progress<'a>,
}

/// How a table shows the columns it has judged.
enum Progress<'a> {
    /// A bar where `aesop_core::progress` draws (the CLI).
    Bar,
    /// Counted for a caller that draws its own (the Python package).
    Count(&'a aesop_core::progress::Counter),
    Off,
}

/// Every column of `scores` (named `columns`) judged against `human`, ranked.
fn table_of(
    judged: Judged,
    columns: Vec<String>,
    scores: Vec<super::MetricScores>,
    human: &[HumanScore],
    options: &StatisticsOptions,
    cancel: &AtomicBool,
) -> Result<FeatureTable> {
    let topics_ranked_by_humans = topics_ranked_by(human)?;
    let bar = matches!(judged.progress, Progress::Bar)
        .then(|| aesop_core::progress::counted(scores.len() as u64, "evaluate", "columns"));
    let counter = match judged.progress {
        Progress::Count(counter) => Some(counter),
        _ => None,
    };
    let evaluated: Vec<Result<FeatureRow>> = scores
        .par_iter()
        .zip(&columns)
        .map(|(metric, column)| {
            aesop_core::output::Interrupted::check(cancel)?;
            let row = evaluate_column(
                metric,
                column,
                human,
                &judged.human_file,
                options,
                topics_ranked_by_humans,
                cancel,
            );
            if let Some(bar) = &bar {
                bar.inc(1);
            }
            if let Some(counter) = counter {
                counter.done.fetch_add(1, Ordering::Relaxed);
            }
            row
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    aesop_core::output::Interrupted::check(cancel)?;
    let mut rows = evaluated.into_iter().collect::<Result<Vec<_>>>()?;
    rank_rows(&mut rows);
    let warnings = unmatched_rows_warning(&judged.features, &scores, human, &judged.human_file)
        .into_iter()
        .collect();
    Ok(FeatureTable {
        set: judged.set.to_string(),
        features_file: judged.features,
        human: format!("{} [{}]", judged.human_file, judged.target),
        inputs: judged.inputs,
        target: judged.target.to_string(),
        patterns: judged.patterns.to_vec(),
        bootstrap_samples: options.bootstrap,
        resample: options.resample,
        seed: options.seed,
        human_rows: human.len(),
        topics_ranked_by_humans,
        min_coverage: METRIC_MIN_COVERAGE,
        rows,
        columns,
        warnings,
    })
}

/// The warning a single metric's report gives when it and the human scores each hold rows the
/// other lacks ([`super::Unmatched`]), for the rows of a features file: those where any chosen
/// column has a value.
fn unmatched_rows_warning(
    features: &str,
    columns: &[super::MetricScores],
    human: &[HumanScore],
    human_file: &str,
) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    let rows = columns
        .iter()
        .flat_map(|column| &column.rows)
        .filter(|(topic, system, _)| seen.insert((topic, system)))
        .cloned()
        .collect();
    let keys = super::MetricScores {
        label: features.to_string(),
        rows,
        lines: Vec::new(),
        missing: 0,
    };
    let unmatched = super::Unmatched::of(&keys, human);
    let matched = keys.rows.len() - unmatched.metric.len();
    unmatched.warning(features, human_file, matched)
}

/// Topics with at least two summaries the annotators do not all score alike: what a metric
/// could be judged on, whatever its values (so every column is held to the same count).
fn topics_ranked_by(human: &[HumanScore]) -> Result<usize> {
    let rows: Vec<ScoreRow> = human
        .iter()
        .map(|h| ScoreRow {
            topic: h.topic.clone(),
            system: h.system.clone(),
            metric: h.score,
            human: h.score,
            words: None,
        })
        .collect();
    Ok(SummaryCoverage::of(&Aligned::new(&rows)?).ranked_by_humans)
}

/// One column judged as `evaluate --feature` judges it, read negated where its summary-level τ
/// is below zero.
fn evaluate_column(
    metric: &super::MetricScores,
    column: &str,
    human: &[HumanScore],
    human_file: &str,
    options: &StatisticsOptions,
    topics_ranked_by_humans: usize,
    cancel: &AtomicBool,
) -> Result<FeatureRow> {
    if metric.rows.is_empty() {
        // Every value missing: listed, unranked, with no statistic.
        let empty = Aligned::new(&[])?;
        return Ok(FeatureRow {
            rank: None,
            feature: column.to_string(),
            column: column.to_string(),
            negated: false,
            covers_the_set: false,
            counts: AlignCounts {
                metric_rows: 0,
                human_rows: human.len(),
                matched: 0,
                metric_only: 0,
                human_only: human.len(),
                metric_missing: metric.missing,
            },
            summary_coverage: SummaryCoverage::of(&empty),
            statistics: evaluate(&empty),
            estimates: Vec::new(),
        });
    }
    let (mut rows, counts) = align(metric, human, human_file)?;
    let mut data = Aligned::new(&rows)?;
    data.length_tolerance = options.length_tolerance;
    let negated = evaluate(&data).summary.kendall < 0.0;
    if negated {
        for row in &mut rows {
            row.metric = -row.metric;
        }
        data = Aligned::new(&rows)?;
        data.length_tolerance = options.length_tolerance;
    }
    let statistics = evaluate(&data);
    let summary_coverage = SummaryCoverage::of(&data);
    let covers = covers_the_set(
        counts.matched,
        human.len(),
        summary_coverage.ranked_by_metric(),
        topics_ranked_by_humans,
    );
    // A column that does not cover the set is no metric for it: its point figures are listed,
    // its intervals not drawn (they would take as long as a ranked column's).
    let samples = if covers { options.bootstrap } else { 0 };
    let estimates =
        bootstrap_intervals(&data, samples, options.resample, options.seed, 0.95, cancel)?;
    Ok(FeatureRow {
        rank: None,
        feature: if negated {
            format!("-{column}")
        } else {
            column.to_string()
        },
        column: column.to_string(),
        negated,
        covers_the_set: covers,
        counts,
        summary_coverage,
        statistics,
        estimates,
    })
}

/// Ranked rows first, by summary-level τ (file order among equals, as `cross-validate` takes
/// the first best feature), then the others by the same order, undefined τ last.
fn rank_rows(rows: &mut [FeatureRow]) {
    let tau = |row: &FeatureRow| row.statistics.summary.kendall;
    rows.sort_by(|a, b| {
        b.covers_the_set
            .cmp(&a.covers_the_set)
            .then_with(|| tau(a).is_nan().cmp(&tau(b).is_nan()))
            .then_with(|| tau(b).total_cmp(&tau(a)))
    });
    for (i, row) in rows.iter_mut().filter(|r| r.covers_the_set).enumerate() {
        row.rank = Some(i + 1);
    }
}

fn fmt3(x: f64) -> String {
    crate::or_dash(x, 3)
}

/// The estimate `name` of a row, as `0.304 [0.270, 0.338]` (the value alone where no sample
/// was drawn).
fn with_interval(row: &FeatureRow, name: &str) -> String {
    match row.estimates.iter().find(|e| e.name == name) {
        Some(e) if e.interval.samples > 0 => format!(
            "{} [{}, {}]",
            fmt3(e.value),
            fmt3(e.interval.lower),
            fmt3(e.interval.upper)
        ),
        Some(e) => fmt3(e.value),
        None => fmt3(f64::NAN),
    }
}

/// The human-readable table.
pub fn render_table_text(table: &FeatureTable) -> String {
    let mut out = String::new();
    let ranked = table.rows.iter().filter(|r| r.covers_the_set).count();
    let _ = writeln!(
        out,
        "features: {} ({} chosen by {})",
        table.features_file,
        aesop_core::counted(table.rows.len(), "column", "columns"),
        table.patterns.join(",")
    );
    let _ = writeln!(
        out,
        "human:    {} ({}; {} the annotators rank)",
        table.human,
        aesop_core::counted(table.human_rows, "summary", "summaries"),
        aesop_core::counted(table.topics_ranked_by_humans, "topic", "topics")
    );
    let _ = writeln!(
        out,
        "each column read the way round that agrees with the annotators at summary level \
         (-COLUMN: negated), chosen in hindsight on these rows"
    );
    if table.bootstrap_samples > 0 {
        let _ = writeln!(
            out,
            "{}",
            bootstrap_line(table.bootstrap_samples, table.resample, table.seed)
        );
    }
    let _ = writeln!(out);
    let width = table
        .rows
        .iter()
        .map(|r| r.feature.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let interval_width = if table.bootstrap_samples > 0 { 22 } else { 11 };
    let header = |out: &mut String| {
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>5}  {:>6}  {:<interval_width$}  {:<interval_width$}  {:>7}  {:>9}  {:>7}",
            "rank", "feature", "rows", "topics", "summary tau", "system tau", "sys acc", "input acc", "matched"
        );
    };
    let line = |out: &mut String, row: &FeatureRow| {
        let s = &row.statistics;
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>5}  {:>6}  {:<interval_width$}  {:<interval_width$}  {:>7}  {:>9}  {:>7}",
            row.rank.map_or("-".to_string(), |r| r.to_string()),
            row.feature,
            row.counts.matched,
            row.summary_coverage.ranked_by_metric(),
            with_interval(row, "summary.kendall"),
            with_interval(row, "system.kendall"),
            fmt3(s.system_pairwise.accuracy),
            fmt3(s.input_pairwise.accuracy),
            fmt3(s.input_length_matched.accuracy),
        );
    };
    header(&mut out);
    for row in table.rows.iter().filter(|r| r.covers_the_set) {
        line(&mut out, row);
    }
    if ranked < table.rows.len() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "not ranked, {}: a value for fewer than {:.0}% of the {} summaries, or a ranking of \
             fewer than {:.0}% of the {} topics (figures over the rest alone; no intervals):",
            match table.rows.len() - ranked {
                1 => "1 column".to_string(),
                n => format!("{n} columns"),
            },
            100.0 * table.min_coverage,
            table.human_rows,
            100.0 * table.min_coverage,
            table.topics_ranked_by_humans
        );
        for row in table.rows.iter().filter(|r| !r.covers_the_set) {
            line(&mut out, row);
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "rows: summaries with a value and a human score; topics: those the column ranks; sys acc, \
         input acc: system- and input-level pairwise accuracy; matched: input-level accuracy at \
         matched length (the full report of one column: --feature COLUMN)"
    );
    out
}

/// The tables as CSV (`delimiter`: `,`, or a tab for a `.tsv`): one line per column of each set
/// (named in `set`), every statistic with its interval bounds.
pub fn render_table_csv(tables: &[FeatureTable], delimiter: u8) -> Result<String> {
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    let mut header: Vec<String> = [
        "set",
        "rank",
        "feature",
        "column",
        "negated",
        "covers_the_set",
        "rows",
        "topics_ranked",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for name in STATISTIC_NAMES {
        header.extend([
            name.to_string(),
            format!("{name}.lower"),
            format!("{name}.upper"),
        ]);
    }
    writer.write_record(&header)?;
    let number = |x: f64| {
        if x.is_nan() {
            String::new()
        } else {
            x.to_string()
        }
    };
    for (table, row) in tables
        .iter()
        .flat_map(|t| t.rows.iter().map(move |r| (t, r)))
    {
        let mut record = vec![
            table.set.clone(),
            row.rank.map_or(String::new(), |r| r.to_string()),
            row.feature.clone(),
            row.column.clone(),
            row.negated.to_string(),
            row.covers_the_set.to_string(),
            row.counts.matched.to_string(),
            row.summary_coverage.ranked_by_metric().to_string(),
        ];
        let values = row.statistics.values();
        for (name, value) in STATISTIC_NAMES.iter().zip(values) {
            let interval = row
                .estimates
                .iter()
                .find(|e| e.name == *name)
                .filter(|e| e.interval.samples > 0)
                .map(|e| (e.interval.lower, e.interval.upper))
                .unwrap_or((f64::NAN, f64::NAN));
            record.extend([number(value), number(interval.0), number(interval.1)]);
        }
        writer.write_record(&record)?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}
