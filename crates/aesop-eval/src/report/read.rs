//! The inputs of `aesop evaluate`: a set's human scores, and the metric's scores from a
//! predictions file (`aesop score`, `cross-validate`), a features file (CSV or JSON Lines) or a
//! plain `topic, system, score` table, or a saved answer of the HTTP service (`read/answer.rs`).
//! Every error names the file, the line and the field. The JSON records themselves, from a file,
//! an answer or memory, are read in `read/records.rs`.

use super::MetricScores;
use aesop_core::table;
use aesop_corpus::{jsonl, Topic};
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

mod answer;
mod records;
use answer::{metric_of_answer, read_answer};
use records::{feature_columns_of, predictions_of};
pub use records::{
    feature_columns_of_records, metric_of_records, records_hold_predictions, Keywords, Origin,
};

/// One summary's human score, with its length for the statistics at matched length.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanScore {
    pub topic: String,
    pub system: String,
    pub score: f64,
    /// Words of the summary: maximal runs of letters and digits, as `surface.summary_tokens`
    /// counts them; `None` where the human scores come without the summaries' texts (a table).
    pub words: Option<usize>,
}

/// Words of a text as `surface.summary_tokens` counts them (maximal alphanumeric runs). Kept
/// here rather than shared with the features crate: evaluation reads judgment sets, never
/// feature code (metrics and meta-evaluation stay apart).
pub fn word_count(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .count()
}

/// Human scores `target` of every summary of the set that has one. The set may also be a table
/// of `topic`, `system` and a `target` column, as annotations are often kept: CSV or TSV (as
/// [`is_csv`] tells), or JSON Lines of such rows (pandas' `to_json(orient="records",
/// lines=True)`). Its scores are read as a features file's column is (an empty cell, null or NaN
/// is missing), and without the summaries' texts the statistics that need their lengths are left
/// out.
pub fn read_human(path: &Path, target: &str) -> Result<Vec<HumanScore>> {
    if is_csv(path) {
        return human_of_table(path, read_features_csv(path, target)?, target);
    }
    if holds_score_rows(path)? {
        return human_of_table(path, read_features_jsonl(path, target)?, target);
    }
    let topics = jsonl::read_set(path)?;
    human_scores(&topics, target, &path.display().to_string())
}

/// Whether the JSON Lines file at `path` holds rows of scores (its first line an object with a
/// `system` and neither `documents` nor `summaries`, the rule by which the set reader refuses
/// such a line) rather than a judgment set. Predictions (`aesop score`'s lines, with `target`
/// and `score`) are no human scores: the set reader says what they are and what to give.
fn holds_score_rows(path: &Path) -> Result<bool> {
    let file = aesop_core::input::open_text(path)?;
    for (i, line) in file.lines().enumerate() {
        let Ok(line) = line else { return Ok(false) };
        let line = match i {
            0 => aesop_core::input::without_bom(&line),
            _ => &line,
        };
        if line.trim().is_empty() {
            continue;
        }
        return Ok(match jsonl::parse_json(line) {
            Ok(Value::Object(map)) => {
                let has = |key: &str| map.contains_key(key);
                let a_prediction = has("target") && has("score");
                has("system") && !has("documents") && !has("summaries") && !a_prediction
            }
            // The set reader names what is wrong with the line.
            _ => false,
        });
    }
    Ok(false)
}

/// [`read_human`] of topics already read (`label` names them in messages: the set's file, or
/// `topics` for the Python package's).
pub fn human_scores(topics: &[Topic], target: &str, label: &str) -> Result<Vec<HumanScore>> {
    let mut rows = Vec::new();
    let mut names = BTreeSet::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for topic in topics {
        for summary in &topic.summaries {
            names.extend(summary.scores.keys().cloned());
            if let Some(&score) = summary.scores.get(target) {
                let key = (topic.topic.clone(), summary.system.clone());
                if !seen.insert(key) {
                    bail!(
                        "{label}: topic {:?}: system {:?} has two summaries scored '{target}'; \
                         evaluation needs one score per (topic, system)",
                        topic.topic,
                        summary.system
                    );
                }
                rows.push(HumanScore {
                    topic: topic.topic.clone(),
                    system: summary.system.clone(),
                    score,
                    words: Some(word_count(&summary.text)),
                });
            }
        }
    }
    if rows.is_empty() {
        let known: Vec<String> = names.into_iter().collect();
        bail!(
            "{label}: no summary has a score '{target}' (scores in this set: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
    }
    Ok(rows)
}

/// [`read_human`] of a table: its column `target` (`scores`, read from a CSV or TSV, or JSON
/// Lines, with `topic` and `system` columns), each (topic, system) at most once.
fn human_of_table(path: &Path, scores: MetricScores, target: &str) -> Result<Vec<HumanScore>> {
    let mut first_line: HashMap<(&str, &str), usize> = HashMap::new();
    for ((topic, system, _), &line) in scores.rows.iter().zip(&scores.lines) {
        if let Some(first) = first_line.insert((topic.as_str(), system.as_str()), line) {
            bail!(
                "{}: topic {topic:?}, system {system:?} is scored twice (lines {first} and \
                 {line}); evaluation needs one score per (topic, system): with a row per \
                 annotator, average each summary's scores first (pandas: \
                 df.groupby([\"topic\", \"system\"], as_index=False)[\"{target}\"].mean())",
                path.display()
            );
        }
    }
    if scores.rows.is_empty() {
        bail!(
            "{}: no row has a value in column '{target}'",
            path.display()
        );
    }
    Ok(scores
        .rows
        .into_iter()
        .map(|(topic, system, score)| HumanScore {
            topic,
            system,
            score,
            words: None,
        })
        .collect())
}

/// Read a predictions file, or the column `feature` of a features file (CSV or JSON Lines, as
/// [`is_csv`] tells).
pub fn read_metric(path: &Path, target: &str, feature: Option<&str>) -> Result<MetricScores> {
    read_metric_for(
        path,
        target,
        feature,
        ModelChoice {
            model: None,
            flag: "--model",
            feature_flag: "--feature",
            predicted_flag: "--predicted",
            set_flag: "--set",
            set: SetChoice::All,
        },
    )
}

/// Which model's predictions to read from a predictions file, and the flags that choose the
/// model and a features file's column (named in messages: `--model` or `--compare-model`).
#[derive(Clone, Copy)]
pub(super) struct ModelChoice<'a> {
    pub(super) model: Option<&'a str>,
    pub(super) flag: &'static str,
    pub(super) feature_flag: &'static str,
    /// The flag that reads another target's predictions (`--predicted`).
    pub(super) predicted_flag: &'static str,
    /// The flag that chooses the lines of one set (`--set`).
    pub(super) set_flag: &'static str,
    pub(super) set: SetChoice<'a>,
}

/// Which lines of a predictions file whose lines name their set (`set`) to read.
#[derive(Clone, Copy)]
pub(super) enum SetChoice<'a> {
    /// Every line.
    All,
    /// `--set NAME`.
    Named(&'a str),
    /// The lines of the set named as the --human file is, when the lines name sets.
    HumanFile(&'a str),
}

/// [`read_metric`] with the flags of the file it reads.
pub(super) fn read_metric_for(
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
    if !is_csv(path) {
        if let Some(answer) = read_answer(path)? {
            return some_values(metric_of_answer(&answer, target, feature, choice)?);
        }
    }
    let scores = match (is_csv(path), feature) {
        (true, Some(column)) => read_features_csv(path, column)?,
        (true, None) => {
            // The file's own columns as the example: `score`'s CSV predictions are read this
            // way too (`--feature pyramid`). A file that cannot be read says why instead.
            let columns = feature_columns(path)?;
            let example = match columns.first() {
                Some(first) => format!(
                    "e.g. {flag} {first}; its columns: {}{}",
                    columns
                        .iter()
                        .take(8)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", "),
                    if columns.len() > 8 { ", …" } else { "" }
                ),
                None => format!("e.g. {flag} rouge.r1_f"),
            };
            bail!(
                "{}: a CSV (features, or `aesop score`'s predictions) is read one column at a time: give {flag} COLUMN ({example})",
                path.display()
            )
        }
        (false, Some(column)) => read_features_jsonl(path, column)?,
        (false, None) => read_predictions(path, target, choice)?,
    };
    some_values(scores)
}

/// `scores`, unless every value is missing: that is not "no shared row" (what [`super::align`]
/// would say), so say what it is.
fn some_values(scores: MetricScores) -> Result<MetricScores> {
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
    one_column(read_features_csv_columns(path, &[column])?)
}

/// The one column a single-column read asked for.
fn one_column(mut columns: Vec<MetricScores>) -> Result<MetricScores> {
    columns
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no column read"))
}

/// The columns `columns` of a features CSV in one pass over its records: each as `--feature`
/// reads it (`-COLUMN` negated, where no column has that name), labelled with the name asked.
fn read_features_csv_columns(path: &Path, columns: &[&str]) -> Result<Vec<MetricScores>> {
    let (mut reader, delimiter) = csv_reader(path)?;
    let headers = reader
        .headers()
        .with_context(|| format!("{}:1: cannot read the header", path.display()))?
        .clone();
    let find = |name: &str| headers.iter().position(|h| h == name);
    let resolved: Vec<(&str, bool)> = columns
        .iter()
        .map(|&column| {
            resolve_column(column, |name| find(name).is_some()).unwrap_or((column, false))
        })
        .collect();
    // A column given twice would be read from its first place without a word.
    let checked = ["topic", "system"]
        .into_iter()
        .chain(resolved.iter().map(|&(name, _)| name));
    for name in checked {
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
            "{}:1: the header needs 'topic' and 'system' columns (split at {}, its columns \
             are: {}); a table's fields may be split at tabs, commas or semicolons",
            path.display(),
            table::delimiter_name(delimiter),
            column_list(headers.iter())
        );
    };
    let mut value_cols = Vec::with_capacity(columns.len());
    for (&column, &(name_in_file, _)) in columns.iter().zip(&resolved) {
        let Some(value_col) = find(name_in_file) else {
            bail!(
                "{}:1: no column '{column}' (columns: {})",
                path.display(),
                column_list(headers.iter())
            );
        };
        value_cols.push(value_col);
    }
    let mut all_scores = empty_scores(&path.display().to_string(), columns);
    for record in reader.records() {
        let record = record.map_err(|e| {
            aesop_corpus::import::table::row_error(&path.display().to_string(), delimiter, e)
        })?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        let field = |i: usize| record.get(i).unwrap_or("");
        for (k, scores) in all_scores.iter_mut().enumerate() {
            let (column, negate) = (columns[k], resolved[k].1);
            let cell = field(value_cols[k]).trim();
            if cell.is_empty() {
                scores.missing += 1;
                continue;
            }
            let value = table::parse_cell(cell, delimiter).ok_or_else(|| {
                anyhow::anyhow!(
                    "{}:{line}: {column}: expected a number, found {cell:?}{}",
                    path.display(),
                    table::not_a_number_hint(cell, delimiter)
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
                if negate { -value } else { value },
            ));
            scores.lines.push(line as usize);
        }
    }
    Ok(all_scores)
}

/// No scores yet for each of `columns` of the file (or list) `name`, labelled `name [column]`.
fn empty_scores(name: &str, columns: &[&str]) -> Vec<MetricScores> {
    columns
        .iter()
        .map(|column| MetricScores {
            label: format!("{name} [{column}]"),
            rows: Vec::new(),
            lines: Vec::new(),
            missing: 0,
        })
        .collect()
}

/// The column that `--feature NAME` reads, and whether its values are negated: NAME itself, or,
/// where no column is called that, `-COLUMN` for COLUMN negated: the notation of
/// `cross-validate`'s best single feature (`-content.js`), so that a feature whose larger values
/// mean worse summaries is judged the right way round by the pairwise accuracies. `None` when
/// neither is in the file.
fn resolve_column(column: &str, exists: impl Fn(&str) -> bool) -> Option<(&str, bool)> {
    if exists(column) {
        return Some((column, false));
    }
    column
        .strip_prefix('-')
        .filter(|base| exists(base))
        .map(|base| (base, true))
}

/// A reader of the table at `path`, with the character its fields are split at: the one of tab,
/// comma and semicolon at which its header holds `topic` and `system` columns (a semicolon is
/// what spreadsheets write in locales whose decimal mark is a comma), or, when none does, a tab
/// for a `.tsv` name (through `.gz`), as `aesop features -o f.tsv` writes, and a comma otherwise.
fn csv_reader(path: &Path) -> Result<(csv::Reader<Box<dyn std::io::BufRead + Send>>, u8)> {
    let by_name = match aesop_core::input::format_extension(path).as_deref() {
        Some("tsv") => b'\t',
        _ => b',',
    };
    let delimiter = first_line(path)
        .and_then(|line| table_delimiter(&line))
        .unwrap_or(by_name);
    let reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(aesop_core::input::open_text(path)?);
    Ok((reader, delimiter))
}

/// Whether `path` holds CSV. Its name says so when it can (`.csv` is CSV, `.tsv` CSV with tabs,
/// `.jsonl` and `.json` JSON Lines, through a trailing `.gz`); any other name is read by its
/// first non-blank line, JSON Lines when that starts with `{`. Why: `aesop features` writes CSV under any other name and to
/// standard output, so `features … -o f.out` or `features … > f` used to be read back here as
/// JSON Lines ("f:1: malformed JSON"). A `.csv` whose first line starts with `{` is JSON Lines
/// too (no CSV header does): `cross-validate -o oof.csv` wrote JSON Lines before stop 79.
///
/// A `.jsonl` or `.json` whose first line is a table's header (`score --format csv -o
/// p.jsonl`: the format asked for, under the name given) is CSV as well: that header is no JSON,
/// and reading it as JSON failed with `p.jsonl:1: malformed JSON at column 2: expected ident`.
fn is_csv(path: &Path) -> bool {
    let starts_json = || first_line(path).is_some_and(|line| line.trim_start().starts_with('{'));
    match aesop_core::input::format_extension(path).as_deref() {
        Some("csv" | "tsv") => !starts_json(),
        Some("jsonl" | "json") => {
            first_line(path).is_some_and(|line| table_delimiter(&line).is_some())
        }
        _ => first_line(path).is_some_and(|line| !line.trim_start().starts_with('{')),
    }
}

/// The delimiter of a table of scores whose header is `line`: the one at which it holds `topic`
/// and `system` columns (every table aesop writes or reads has both); `None` for a line that is
/// no such header (JSON, or anything else).
fn table_delimiter(line: &str) -> Option<u8> {
    aesop_core::table::delimiter_of_header(line, &["topic", "system"])
}

/// The first non-blank line of the file at `path` (a byte-order mark removed); `None` when it
/// cannot be read or holds none.
fn first_line(path: &Path) -> Option<String> {
    let file = aesop_core::input::open(path).ok()?;
    file.lines()
        .map_while(std::result::Result::ok)
        .find(|line| !line.trim().is_empty())
        .map(|line| aesop_core::input::without_bom(&line).to_string())
}

/// Whether `path` is a JSON Lines predictions file: its first record has a `score`, which
/// `aesop features` never writes. False for a CSV, a saved answer of the service, or a file that
/// cannot be read (the reader then says why).
pub(super) fn holds_prediction_lines(path: &Path) -> bool {
    !is_csv(path)
        && first_line(path).is_some_and(|line| {
            matches!(jsonl::parse_json(&line), Ok(Value::Object(map)) if map.contains_key("score"))
        })
}

/// Whether `path` holds predictions: a predictions file, or a saved answer of the service (whose
/// features, when they were asked for, `--compare-feature` reads).
pub(super) fn holds_predictions(path: &Path) -> bool {
    holds_prediction_lines(path) || (!is_csv(path) && matches!(read_answer(path), Ok(Some(_))))
}

/// The models whose predictions of a target a file holds, each with the summaries it predicted.
pub type PredictionModels = BTreeMap<String, PredictedSummaries>;

/// The columns of `aesop score`'s table of predictions (`-o p.csv`) that hold no prediction:
/// the summary's ids, the built-in behind each default column of the row (`models`, space
/// separated), and the columns whose prediction is of a summary its model learned from
/// (`in_training`). No model is named after one, and no reader takes one for a feature.
pub const PREDICTION_TABLE_TEXT_COLUMNS: [&str; 4] = ["topic", "system", "models", "in_training"];

/// The summaries (topic id, system) one model's lines predict, and those of them it predicted
/// in-sample: lines marked `"in_training": true`, as `aesop score` marks the summaries a model
/// learned from (a saved answer of the service lists those models in a result's `in_training`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PredictedSummaries {
    pub predicted: BTreeSet<(String, String)>,
    pub in_training: BTreeSet<(String, String)>,
}

impl PredictedSummaries {
    /// One summary's prediction.
    pub fn add(&mut self, topic: &str, system: &str, in_training: bool) {
        let key = (topic.to_string(), system.to_string());
        if in_training {
            self.in_training.insert(key.clone());
        }
        self.predicted.insert(key);
    }

    /// Those of `other` too (the predictions and the `--compare`d ones of one evaluation).
    pub fn extend(&mut self, other: PredictedSummaries) {
        self.predicted.extend(other.predicted);
        self.in_training.extend(other.in_training);
    }
}

/// The distinct models whose predictions of `target` the file at `path` holds: the `model` of
/// its lines for `target` (lines without `target` count), or of a saved answer of the service
/// (models whose target the answer does not name count), with the summaries marked in-sample.
/// For the warning that a model is judged on its own training summaries; best effort, so a
/// file that cannot be read holds none (`evaluate` itself reports it).
pub fn prediction_models(path: &Path, target: &str) -> PredictionModels {
    if is_csv(path) {
        return table_prediction_models(path, target).unwrap_or_default();
    }
    if let Ok(Some(answer)) = read_answer(path) {
        return answer.models_predicting(target);
    }
    let Ok(file) = aesop_core::input::open(path) else {
        return PredictionModels::new();
    };
    models_of_lines(file.lines().map_while(std::result::Result::ok), target)
}

/// The models behind the column `column` of `aesop score`'s table of predictions in the file
/// at `path` ([`models_of_prediction_table`]); `None` for a file that cannot be read.
pub(super) fn table_prediction_models(path: &Path, column: &str) -> Option<PredictionModels> {
    let (mut reader, _) = csv_reader(path).ok()?;
    let header: Vec<String> = reader.headers().ok()?.iter().map(str::to_string).collect();
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|record| Some(record.ok()?.iter().map(str::to_string).collect()))
        .collect::<Option<_>>()?;
    models_of_prediction_table(&header, &rows, column)
}

/// The models behind the column `column` of `aesop score`'s table of predictions, given as its
/// header and rows of cells (told by its `models` or `in_training` column; a table of features
/// has neither): the row's model in `models` for the default built-ins' columns, else the
/// column's own name, with the summaries whose `in_training` lists the column. `None` for any
/// other table.
fn models_of_prediction_table(
    header: &[String],
    rows: &[Vec<String>],
    column: &str,
) -> Option<PredictionModels> {
    let find = |name: &str| header.iter().position(|h| h == name);
    let (models_col, in_training_col) = (find("models"), find("in_training"));
    if models_col.is_none() && in_training_col.is_none() {
        return None;
    }
    let (name, _) = resolve_column(column, |name| find(name).is_some())?;
    let (topic_col, system_col, value_col) = (find("topic")?, find("system")?, find(name)?);
    // The default built-ins' row names one model per prediction column, in the header's order.
    let place = header
        .iter()
        .filter(|h| !PREDICTION_TABLE_TEXT_COLUMNS.contains(&h.as_str()))
        .position(|h| h == name)?;
    let mut models = PredictionModels::new();
    for row in rows {
        let field = |i: usize| row.get(i).map_or("", String::as_str);
        if field(value_col).trim().is_empty() {
            continue; // no prediction of this summary
        }
        let model = match models_col {
            Some(at) => field(at).split_whitespace().nth(place)?.to_string(),
            None => name.to_string(),
        };
        let in_training = in_training_col
            .is_some_and(|at| field(at).split_whitespace().any(|listed| listed == name));
        models
            .entry(model)
            .or_default()
            .add(field(topic_col), field(system_col), in_training);
    }
    Some(models)
}

/// [`table_prediction_models`] of rows held in memory (`aesop score`'s table read by pandas,
/// given to the Python package's `aesop.evaluate` with `feature=`), each as JSON text: the
/// first row's fields, in its order, are the header; a number is its text, `null` empty.
pub fn table_prediction_models_of_records(
    records: &[String],
    column: &str,
) -> Option<PredictionModels> {
    let header = jsonl::object_keys_in_order(records.first()?)?;
    let rows = records
        .iter()
        .map(|record| {
            // (Parsed as records are: pandas' NaN for an empty cell is a bare `NaN`.)
            let Ok(Value::Object(fields)) = jsonl::parse_json(record) else {
                return None;
            };
            Some(
                header
                    .iter()
                    .map(|name| match fields.get(name) {
                        Some(Value::String(text)) => text.clone(),
                        Some(Value::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    })
                    .collect(),
            )
        })
        .collect::<Option<Vec<Vec<String>>>>()?;
    models_of_prediction_table(&header, &rows, column)
}

/// [`prediction_models`] of records held in memory (the rows the Python package's
/// `aesop.evaluate` is given, each as JSON text, or one saved answer of the service).
pub fn prediction_models_of_records(records: &[String], target: &str) -> PredictionModels {
    if let Ok(Some(answer)) = answer::answer_in_records("predictions", records) {
        return answer.models_predicting(target);
    }
    models_of_lines(records.iter(), target)
}

/// The `model` of each JSON object among `lines` that predicts `target` (or names no target),
/// with the (topic, system) of its lines and of those marked `"in_training": true`.
fn models_of_lines<S: AsRef<str>>(
    lines: impl Iterator<Item = S>,
    target: &str,
) -> PredictionModels {
    let mut models = PredictionModels::new();
    for line in lines {
        let Ok(Value::Object(object)) = serde_json::from_str(line.as_ref()) else {
            continue;
        };
        let for_target = match object.get("target") {
            Some(Value::String(t)) => t == target,
            _ => true,
        };
        let Some(Value::String(model)) = object.get("model").filter(|_| for_target) else {
            continue;
        };
        let summaries = models.entry(model.clone()).or_default();
        if let (Some(Value::String(topic)), Some(Value::String(system))) =
            (object.get("topic"), object.get("system"))
        {
            let in_training = object.get("in_training") == Some(&Value::Bool(true));
            summaries.add(topic, system, in_training);
        }
    }
    models
}

/// Each non-blank line of a JSON Lines file as an object, with its line number.
fn json_objects(path: &Path) -> Result<Vec<(usize, serde_json::Map<String, Value>)>> {
    let file = aesop_core::input::open_text(path)?;
    let mut out = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let line_number = i + 1;
        let line =
            line.with_context(|| format!("{}:{line_number}: cannot read", path.display()))?;
        let line = match line_number {
            1 => aesop_core::input::without_bom(&line).to_string(),
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

fn read_features_jsonl(path: &Path, column: &str) -> Result<MetricScores> {
    one_column(read_features_jsonl_columns(path, &[column])?)
}

/// [`read_features_csv_columns`] for a features file in JSON Lines: the columns are the fields
/// of its first line.
fn read_features_jsonl_columns(path: &Path, columns: &[&str]) -> Result<Vec<MetricScores>> {
    if let Some(answer) = read_answer(path)? {
        return feature_columns_of(answer.origin(), &answer.feature_records()?, columns);
    }
    feature_columns_of(Origin::File(path), &json_objects(path)?, columns)
}

/// The feature columns of a features file (CSV header or the fields of the first JSON line),
/// in file order (the line's, not its parsed map's, which sorts them), less `topic` and
/// `system`.
pub(super) fn feature_columns(path: &Path) -> Result<Vec<String>> {
    let names: Vec<String> = if is_csv(path) {
        let (mut reader, _) = csv_reader(path)?;
        reader
            .headers()
            .with_context(|| format!("{}:1: cannot read the header", path.display()))?
            .iter()
            .map(str::to_string)
            .collect()
    } else if let Some(answer) = read_answer(path)? {
        // An answer without features is refused here, saying how to ask for them.
        answer.feature_records()?;
        answer.feature_names()
    } else {
        // Only the first line: the reader of the columns reads (and checks) them all.
        let file = aesop_core::input::open_text(path)?;
        let mut names = Vec::new();
        for (i, line) in file.lines().enumerate() {
            let line =
                line.with_context(|| format!("{}:{}: cannot read", path.display(), i + 1))?;
            let line = match i {
                0 => aesop_core::input::without_bom(&line),
                _ => &line,
            };
            if line.trim().is_empty() {
                continue;
            }
            match jsonl::parse_json(line) {
                Ok(Value::Object(map)) => {
                    names = jsonl::object_keys_in_order(line)
                        .unwrap_or_else(|| map.keys().cloned().collect())
                }
                Ok(_) => bail!("{}:{}: expected a JSON object", path.display(), i + 1),
                Err(message) => bail!("{}:{}: {message}", path.display(), i + 1),
            }
            break;
        }
        names
    };
    // `aesop score`'s table of predictions keeps texts beside them (`models`, `in_training`).
    Ok(names
        .into_iter()
        .filter(|n| !PREDICTION_TABLE_TEXT_COLUMNS.contains(&n.as_str()))
        .collect())
}

/// The columns `columns` (names in the file) of a features file, CSV or JSON Lines, read in
/// one pass.
pub(super) fn read_feature_columns(path: &Path, columns: &[&str]) -> Result<Vec<MetricScores>> {
    if is_csv(path) {
        read_features_csv_columns(path, columns)
    } else {
        read_features_jsonl_columns(path, columns)
    }
}

/// A predictions file (JSON Lines), read by [`predictions_of`].
fn read_predictions(path: &Path, target: &str, choice: ModelChoice) -> Result<MetricScores> {
    predictions_of(Origin::File(path), &json_objects(path)?, target, choice)
}

pub(super) fn column_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    if names.len() > 20 {
        format!("{}, … ({} in all)", names[..20].join(", "), names.len())
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::table_delimiter;

    #[test]
    fn a_table_header_is_told_from_json_by_its_topic_and_system_columns() {
        assert_eq!(table_delimiter("topic,system,pyramid"), Some(b','));
        assert_eq!(table_delimiter("system\ttopic\tscore, raw"), Some(b'\t'));
        assert_eq!(table_delimiter("topic;system;relevance"), Some(b';'));
        assert_eq!(table_delimiter(r#"{"topic": "t", "system": "s"}"#), None);
        assert_eq!(table_delimiter("topic,score"), None);
    }
}
