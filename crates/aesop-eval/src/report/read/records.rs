//! Records as JSON objects, wherever they come from: the lines of a predictions or features
//! file (JSON Lines), or the rows a caller holds in memory (the Python package's
//! `aesop.evaluate`, which serializes each row). One reader for both, so a row in memory is
//! read and checked as a file's line is; only the messages differ, naming `p.jsonl:3` or
//! `predictions[2]` ([`Origin`]) and the flags or keywords that choose (`--model NAME`,
//! `model=NAME`).

use super::answer::{answer_in_records, metric_of_answer};
use super::{
    column_list, empty_scores, one_column, resolve_column, some_values, MetricScores, ModelChoice,
    SetChoice,
};
use aesop_corpus::jsonl;
use anyhow::{bail, Result};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// Where the records of a metric come from, as messages name them: the lines of a file
/// (`p.jsonl:3`), or the items of a list a caller holds in memory (the Python package's
/// `aesop.evaluate`: `predictions[2]`).
#[derive(Debug, Clone, Copy)]
pub enum Origin<'a> {
    File(&'a Path),
    /// The list's name in messages; its items are numbered from 1 as lines are, and named
    /// from 0 as Python indexes them.
    List(&'a str),
    /// The results of a saved answer of the service (`read/answer.rs`), numbered from 1 by
    /// position and named by their labels (`results[3]`, or `line 2: results[3]`), in the file
    /// (or list) named first.
    Answer(&'a str, &'a [String]),
}

impl Origin<'_> {
    /// The record numbered `line` (from 1): `p.jsonl:3`, or `predictions[2]`.
    pub fn at(self, line: usize) -> String {
        match self {
            Origin::File(path) => format!("{}:{line}", path.display()),
            Origin::List(name) => format!("{name}[{}]", line.saturating_sub(1)),
            Origin::Answer(name, labels) => format!("{name}: {}", answer_label(labels, line)),
        }
    }

    /// The file or the list as a whole.
    pub fn name(self) -> String {
        match self {
            Origin::File(path) => path.display().to_string(),
            Origin::List(name) | Origin::Answer(name, _) => name.to_string(),
        }
    }

    /// The record numbered `line` where the whole is already named: `line 3`, or `[2]`.
    fn record(self, line: usize) -> String {
        match self {
            Origin::File(_) => format!("line {line}"),
            Origin::List(_) => format!("[{}]", line.saturating_sub(1)),
            Origin::Answer(_, labels) => answer_label(labels, line),
        }
    }

    /// What holds the records: `file` or `list`.
    fn holder(self) -> &'static str {
        match self {
            Origin::File(_) => "file",
            Origin::List(_) => "list",
            Origin::Answer(..) => "answer",
        }
    }

    /// What one record is: a `line` or a `row`.
    fn item(self) -> &'static str {
        match self {
            Origin::File(_) => "line",
            Origin::List(_) => "row",
            Origin::Answer(..) => "result",
        }
    }
}

/// The label of the result numbered `line` (from 1) of an answer.
fn answer_label(labels: &[String], line: usize) -> String {
    labels
        .get(line.saturating_sub(1))
        .cloned()
        .unwrap_or_else(|| format!("result {line}"))
}

/// A flag with its value's placeholder, as messages suggest it: `--model NAME`, or a Python
/// keyword `model=NAME`.
fn with_value(flag: &str, placeholder: &str) -> String {
    if flag.ends_with('=') {
        format!("{flag}{placeholder}")
    } else {
        format!("{flag} {placeholder}")
    }
}

/// The metric of records held in memory, one JSON object per text, named `name` in messages
/// (`predictions[2]: score: missing`): prediction records (the lines of `aesop score`) or, with
/// `feature`, feature records (`topic`, `system` and a field per feature) read as `--feature`
/// reads a features file. What the Python package's `aesop.evaluate` judges; its keywords are
/// the flags its messages suggest (`model=NAME`).
pub fn metric_of_records(
    name: &str,
    records: &[String],
    target: &str,
    feature: Option<&str>,
    model: Option<&str>,
    set: Option<&str>,
    keywords: Keywords,
) -> Result<MetricScores> {
    let origin = Origin::List(name);
    if let (Some(_), Some(_)) = (feature, model) {
        bail!(
            "{} chooses among predictions, and {} reads a feature's column: give one of them",
            keywords.model,
            keywords.feature
        );
    }
    let choice = ModelChoice {
        model,
        flag: keywords.model,
        feature_flag: keywords.feature,
        predicted_flag: "predicted=",
        set_flag: "set=",
        set: set.map_or(SetChoice::All, SetChoice::Named),
    };
    if let Some(answer) = answer_in_records(name, records)? {
        return some_values(metric_of_answer(&answer, target, feature, choice)?);
    }
    let objects = objects_of_texts(origin, records)?;
    let scores = match feature {
        Some(column) => one_column(feature_columns_of(origin, &objects, &[column])?)?,
        None => predictions_of(origin, &objects, target, choice)?,
    };
    some_values(scores)
}

/// Feature records held in memory (the rows of the Python package's `aesop.features`, or a
/// saved answer of the service with its `features`), named `name` in messages: the columns
/// `choose` picks from those the records hold (the fields of the first record less `topic` and
/// `system`, in its order), and each chosen column's scores, as `evaluate --features` reads a
/// features file.
pub fn feature_columns_of_records(
    name: &str,
    records: &[String],
    choose: impl FnOnce(&[String]) -> Result<Vec<String>>,
) -> Result<(Vec<String>, Vec<MetricScores>)> {
    if let Some(answer) = answer_in_records(name, records)? {
        let objects = answer.feature_records()?;
        let columns = choose(&answer.feature_names())?;
        let refs: Vec<&str> = columns.iter().map(String::as_str).collect();
        let scores = feature_columns_of(answer.origin(), &objects, &refs)?;
        return Ok((columns, scores));
    }
    let origin = Origin::List(name);
    let objects = objects_of_texts(origin, records)?;
    if let Some((line, _)) = objects
        .first()
        .filter(|(_, first)| first.contains_key("score"))
    {
        bail!(
            "{}: a prediction (it has `score`); features= ranks feature columns (aesop.features): \
             evaluate predictions without it",
            origin.at(*line)
        );
    }
    // In the first record's own order, as a CSV header gives a file's.
    let available: Vec<String> = objects.first().map_or_else(Vec::new, |(_, first)| {
        records
            .first()
            .and_then(|text| jsonl::object_keys_in_order(text))
            .unwrap_or_else(|| first.keys().cloned().collect())
            .into_iter()
            // (`aesop score`'s table, read by pandas, keeps texts beside the predictions.)
            .filter(|k| !super::PREDICTION_TABLE_TEXT_COLUMNS.contains(&k.as_str()))
            .collect()
    });
    let columns = choose(&available)?;
    let refs: Vec<&str> = columns.iter().map(String::as_str).collect();
    let scores = feature_columns_of(origin, &objects, &refs)?;
    Ok((columns, scores))
}

/// The keywords that choose a model's rows and a feature's column of records in memory, as
/// messages suggest them.
#[derive(Debug, Clone, Copy)]
pub struct Keywords {
    pub model: &'static str,
    pub feature: &'static str,
}

impl Keywords {
    /// Of the records judged (`model=`, `feature=`).
    pub const METRIC: Keywords = Keywords {
        model: "model=",
        feature: "feature=",
    };
    /// Of the records compared with them (`compare_model=`, `compare_feature=`).
    pub const COMPARE: Keywords = Keywords {
        model: "compare_model=",
        feature: "compare_feature=",
    };
}

/// Whether records in memory are predictions, as [`super::holds_predictions`] tells a file:
/// the first has a `score`, which feature records never have.
pub fn records_hold_predictions(records: &[String]) -> bool {
    // A service's answer holds predictions first (`compare_feature=` reads its features).
    records.first().is_some_and(|first| {
        matches!(jsonl::parse_json(first),
                 Ok(Value::Object(map)) if map.contains_key("score") || map.contains_key("results"))
    })
}

/// Each of `texts` (one JSON object each, as a line of a JSON Lines file) as an object, numbered
/// from 1 as [`json_objects`] numbers lines: the records a caller holds in memory (the Python
/// package serializes its rows so), read and checked as a file's lines are.
fn objects_of_texts(
    origin: Origin,
    texts: &[String],
) -> Result<Vec<(usize, serde_json::Map<String, Value>)>> {
    let mut out = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        match jsonl::parse_json(text) {
            Ok(Value::Object(map)) => out.push((i + 1, map)),
            Ok(_) => bail!("{}: expected a JSON object", origin.at(i + 1)),
            Err(message) => bail!("{}: {message}", origin.at(i + 1)),
        }
    }
    if out.is_empty() {
        bail!("{}: no records (an empty list)", origin.name());
    }
    Ok(out)
}

/// A record's id field (`topic`, `system`, `model`): a string, or a number read as its text, as
/// a judgment set's ids are (`jsonl::id_text`).
fn string_field(
    origin: Origin,
    line: usize,
    object: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<String> {
    match object.get(name) {
        Some(value) => jsonl::id_text(value)
            .ok_or_else(|| anyhow::anyhow!("{}: {name}: expected a string", origin.at(line))),
        None => bail!("{}: {name}: missing", origin.at(line)),
    }
}

/// A number, or `None` for a missing value: null or NaN (bare, as Python writes it, or `"NaN"`),
/// as in a judgment set (docs/JUDGMENT_SETS.md); an infinite value is an error.
fn number_field(
    origin: Origin,
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
                "{}: {name}: infinite value (use null or NaN for a missing one)",
                origin.at(line)
            )
        }
        Some(other) => bail!(
            "{}: {name}: expected a number, found {other}",
            origin.at(line)
        ),
        None => bail!("{}: {name}: missing", origin.at(line)),
    }
}

/// What a record that is neither a prediction nor a row of features is, where it is one of
/// aesop's other outputs given in their place: a judgment set's topic (the set given twice, or
/// before scoring), or a system mean of `score --systems`.
fn misplaced(origin: Origin, object: &serde_json::Map<String, Value>) -> Option<String> {
    let (score, features) = match origin {
        Origin::List(_) => ("Scorer.score_sets", "aesop.features"),
        Origin::File(_) | Origin::Answer(..) => (
            "aesop score SET -o pred.jsonl",
            "aesop features SET -o f.csv",
        ),
    };
    if object.contains_key("summaries") || object.contains_key("documents") {
        Some(format!(
            "a judgment-set topic (`documents`, `summaries`), not a prediction or a row of features: judge a model's \
             predictions (`{score}`) or a feature's column (`{features}`)"
        ))
    } else if object.contains_key("mean")
        && object.contains_key("rank")
        && !object.contains_key("topic")
    {
        // `features --systems` writes the same rows with `feature` for `model`.
        let (verb, per, judge) = match object.contains_key("feature") {
            true => ("features", "feature", features),
            false => ("score", "model", score),
        };
        Some(format!(
            "a system's mean (`aesop {verb} --systems` writes one per {per} and system), not a \
             value for one summary: judge the summaries' {} (`{judge}`), from which the system \
             level is computed",
            if verb == "features" {
                "features"
            } else {
                "predictions"
            }
        ))
    } else {
        None
    }
}

/// The columns `columns` of feature records (`topic`, `system` and a field per feature, as a
/// line of `aesop features -o f.jsonl`), each as `--feature` reads it (`-COLUMN` negated,
/// where no field has that name), labelled with the name asked.
pub(super) fn feature_columns_of(
    origin: Origin,
    objects: &[(usize, serde_json::Map<String, Value>)],
    columns: &[&str],
) -> Result<Vec<MetricScores>> {
    if let Some((line, what)) = objects
        .first()
        .and_then(|(line, first)| Some((line, misplaced(origin, first)?)))
    {
        bail!("{}: {what}", origin.at(*line));
    }
    let mut resolved = Vec::with_capacity(columns.len());
    for &column in columns {
        let (name_in_file, negate) = objects
            .first()
            .and_then(|(_, first)| resolve_column(column, |name| first.contains_key(name)))
            .unwrap_or((column, false));
        if let Some((line, first)) = objects.first() {
            if !first.contains_key(name_in_file) {
                bail!(
                    "{}: no field '{column}' (fields: {})",
                    origin.at(*line),
                    column_list(first.keys().map(String::as_str))
                );
            }
        }
        resolved.push((name_in_file, negate));
    }
    let mut all_scores = empty_scores(&origin.name(), columns);
    for (line, object) in objects {
        let topic = string_field(origin, *line, object, "topic")?;
        let system = string_field(origin, *line, object, "system")?;
        for (scores, &(name_in_file, negate)) in all_scores.iter_mut().zip(&resolved) {
            match number_field(origin, *line, object, name_in_file)? {
                Some(v) => {
                    scores
                        .rows
                        .push((topic.clone(), system.clone(), if negate { -v } else { v }));
                    scores.lines.push(*line);
                }
                None => scores.missing += 1,
            }
        }
    }
    Ok(all_scores)
}

/// Prediction records; those whose `target` names another target are skipped (a file may hold
/// several targets), those without `target` are taken. With `choice.model`, only that model's
/// records are read. One summary predicted by two models (`aesop score --model A --model B` on
/// one target) is an error naming both records and the flag that chooses one.
pub(super) fn predictions_of(
    origin: Origin,
    objects: &[(usize, serde_json::Map<String, Value>)],
    target: &str,
    choice: ModelChoice,
) -> Result<MetricScores> {
    let mut scores = MetricScores {
        label: match choice.model {
            Some(model) => format!("{} [model {model}]", origin.name()),
            None => origin.name(),
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
    for (line, object) in objects {
        if let Some(set) = object.get("set") {
            let Value::String(set) = set else {
                bail!("{}: set: expected a string", origin.at(*line));
            };
            sets.insert(set.clone());
            if wanted_set.is_some_and(|wanted| wanted != set) {
                continue;
            }
        }
        if let Some(t) = object.get("target") {
            let Value::String(t) = t else {
                bail!("{}: target: expected a string", origin.at(*line));
            };
            if t != target {
                other_targets.insert(t.clone());
                continue;
            }
        }
        let model = match object.get("model") {
            None | Some(Value::Null) => None,
            Some(_) => Some(string_field(origin, *line, object, "model")?),
        };
        if let Some(model) = &model {
            models_of_target.insert(model.clone());
        }
        if choice.model.is_some() && model.as_deref() != choice.model {
            continue;
        }
        if let Some(what) = misplaced(origin, object) {
            bail!("{}: {what}", origin.at(*line));
        }
        if !object.contains_key("score") {
            bail!(
                "{}: score: missing (a features {} needs {})",
                origin.at(*line),
                origin.holder(),
                with_value(choice.feature_flag, "COLUMN")
            );
        }
        let topic = string_field(origin, *line, object, "topic")?;
        let system = string_field(origin, *line, object, "system")?;
        if let Some((first_line, first_model)) =
            first.insert((topic.clone(), system.clone()), (*line, model.clone()))
        {
            let models = match (&first_model, &model) {
                (Some(a), Some(b)) if a != b => format!(
                    ": models {a} and {b} both predict '{target}'; choose one with {}",
                    with_value(choice.flag, "NAME")
                ),
                // Lines of several sets (a pooled `cross-validate`) read all together.
                _ if wanted_set.is_none() && object.contains_key("set") => format!(
                    ": the {}s name their set (`set`); choose one with {}",
                    origin.item(),
                    with_value(choice.set_flag, "NAME")
                ),
                _ => String::new(),
            };
            bail!(
                "{}: topic {topic:?}, system {system:?} already has a prediction at {}{models}",
                origin.at(*line),
                origin.record(first_line)
            );
        }
        let raw = match object.get("raw") {
            Some(raw) if !raw.is_null() => Some(number_field(origin, *line, object, "raw")?),
            _ => None,
        };
        // `aesop score`'s mark of a summary the model learned from (crate `aesop_learn`'s
        // `in_sample`): a hand-edited value that is no boolean would be read as unmarked.
        if let Some(other) = object
            .get("in_training")
            .filter(|v| !v.is_boolean() && !v.is_null())
        {
            bail!(
                "{}: in_training: expected true or false (whether the model learned from the \
                 summary), found {other}",
                origin.at(*line)
            );
        }
        let score = number_field(origin, *line, object, "score")?;
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
                origin.name(),
                if models_of_target.is_empty() && !other_targets.is_empty() {
                    // The lines name models, but of other targets (audit stop 53: this said
                    // "its lines name no model").
                    format!(
                        "no {} predicts '{target}'; targets in the {}: {}",
                        origin.item(),
                        origin.holder(),
                        other_targets.iter().cloned().collect::<Vec<_>>().join(", ")
                    )
                } else if models_of_target.is_empty() {
                    format!("its lines of '{target}' name no model")
                } else {
                    format!(
                        "models in the {}: {}",
                        origin.holder(),
                        models_of_target.into_iter().collect::<Vec<_>>().join(", ")
                    )
                }
            );
        }
    }
    match choice.set {
        SetChoice::Named(set) if sets.is_empty() => bail!(
            "{}: {}: its {}s name no set (only `cross-validate` with several --set writes `set`)",
            origin.name(),
            with_value(choice.set_flag, set),
            origin.item()
        ),
        SetChoice::Named(set) | SetChoice::HumanFile(set)
            if !sets.is_empty() && !sets.contains(set) =>
        {
            bail!(
                "{}: no {} of set '{set}'{} (sets in the {}: {}); choose one with {}{}",
                origin.name(),
                origin.item(),
                if matches!(choice.set, SetChoice::HumanFile(_)) {
                    ", the --human file's name"
                } else {
                    ""
                },
                origin.holder(),
                sets.into_iter().collect::<Vec<_>>().join(", "),
                with_value(choice.set_flag, "NAME"),
                match origin {
                    Origin::File(_) => " and give that set's file as --human",
                    Origin::List(_) | Origin::Answer(..) => "",
                }
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
            "{}: no prediction for target '{target}' (targets in the {}: {}; {} reads another \
             target's {}s)",
            origin.name(),
            origin.holder(),
            other_targets.into_iter().collect::<Vec<_>>().join(", "),
            with_value(choice.predicted_flag, "TARGET"),
            origin.item()
        );
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::{metric_of_records, Keywords};

    fn texts(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn records_in_memory_are_read_as_a_files_lines_and_named_by_index() {
        // One model's lines: `raw` is judged where a line has it; another target is skipped.
        let rows = texts(&[
            r#"{"topic":"t","system":"a","target":"pyramid","score":0.5,"raw":1.5,"model":"m"}"#,
            r#"{"topic":"t","system":"b","target":"pyramid","score":0.25,"model":"m"}"#,
            r#"{"topic":"t","system":"a","target":"readability","score":3,"model":"r"}"#,
        ]);
        let scores = metric_of_records(
            "predictions",
            &rows,
            "pyramid",
            None,
            None,
            None,
            Keywords::METRIC,
        )
        .unwrap();
        assert_eq!(
            scores.rows,
            vec![
                ("t".into(), "a".into(), 1.5),
                ("t".into(), "b".into(), 0.25)
            ]
        );
        assert_eq!(scores.label, "predictions");
        let error = |rows: &[&str], feature, model| {
            metric_of_records(
                "predictions",
                &texts(rows),
                "pyramid",
                feature,
                model,
                None,
                Keywords::METRIC,
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            error(
                &[
                    r#"{"topic":"t","system":"a","score":1}"#,
                    r#"{"topic":"t"}"#
                ],
                None,
                None
            ),
            "predictions[1]: score: missing (a features list needs feature=COLUMN)"
        );
        assert_eq!(
            error(
                &[
                    r#"{"topic":"t","system":"a","score":1}"#,
                    r#"{"topic":"t","system":"a","score":2}"#
                ],
                None,
                None
            ),
            "predictions[1]: topic \"t\", system \"a\" already has a prediction at [0]"
        );
        assert_eq!(
            error(
                &[r#"{"topic":"t","system":"a","target":"x","score":1}"#],
                None,
                None
            ),
            "predictions: no prediction for target 'pyramid' (targets in the list: x; \
             predicted=TARGET reads another target's rows)"
        );
        assert_eq!(
            error(&["[1]"], None, None),
            "predictions[0]: expected a JSON object"
        );
        assert_eq!(
            error(&[], None, None),
            "predictions: no records (an empty list)"
        );
        assert!(error(
            &[r#"{"topic":"t","system":"a","score":1}"#],
            Some("x"),
            Some("m")
        )
        .starts_with("model= chooses among predictions"));
        // Rows of two sets (a pooled cross-validation): read together, a summary of both is
        // refused with the keyword that chooses one; `set=` reads one set's rows.
        let pooled = texts(&[
            r#"{"set":"a.jsonl","topic":"t","system":"s","score":1}"#,
            r#"{"set":"b.jsonl","topic":"t","system":"s","score":2}"#,
        ]);
        let read = |set| {
            metric_of_records(
                "predictions",
                &pooled,
                "pyramid",
                None,
                None,
                set,
                Keywords::METRIC,
            )
        };
        assert_eq!(
            read(None).unwrap_err().to_string(),
            "predictions[1]: topic \"t\", system \"s\" already has a prediction at [0]: the \
             rows name their set (`set`); choose one with set=NAME"
        );
        assert_eq!(
            read(Some("b.jsonl")).unwrap().rows,
            vec![("t".into(), "s".into(), 2.0)]
        );
        assert_eq!(
            read(Some("c.jsonl")).unwrap_err().to_string(),
            "predictions: no row of set 'c.jsonl' (sets in the list: a.jsonl, b.jsonl); choose \
             one with set=NAME"
        );
        // Feature records: `-NAME` reads NAME negated where no field is called so.
        let features = texts(&[r#"{"topic":"t","system":"a","c.x":2}"#]);
        let negated = metric_of_records(
            "features",
            &features,
            "pyramid",
            Some("-c.x"),
            None,
            None,
            Keywords::COMPARE,
        )
        .unwrap();
        assert_eq!(negated.rows, vec![("t".into(), "a".into(), -2.0)]);
        assert_eq!(negated.label, "features [-c.x]");
    }
}
