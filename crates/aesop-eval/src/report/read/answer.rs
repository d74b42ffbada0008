//! A saved answer of the HTTP service's `POST /v1/score` (`curl … > answer.json`, one JSON
//! document, pretty-printed or not), or a JSON Lines file of such answers, one per line (a
//! client that posts batches and appends each answer). `evaluate` reads it as the records of
//! the file it stands for: one prediction record per (result, model), with the model's
//! `target` from the answer's `models` and its `raw` output where it has one, as `aesop score`
//! writes its lines; or, with `--feature`, one feature record per result from its `features`
//! (asked with `"features": true`). Messages name the result: `answer.json: results[3]`, or
//! `answers.jsonl:2: results[3]` in a file of several answers.

use super::records::{feature_columns_of, predictions_of, Origin};
use super::{one_column, MetricScores, ModelChoice};
use aesop_corpus::jsonl;
use anyhow::{bail, Result};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::io::BufRead;
use std::path::Path;

/// The results of one or more answers, and where each came from.
pub(crate) struct Answer {
    /// The file (or, in memory, the list) in messages.
    name: String,
    /// Every answer's results in file order.
    results: Vec<Map<String, Value>>,
    /// Each result's name in messages (`results[3]`, or `line 2: results[3]`), by position.
    labels: Vec<String>,
    /// Model name -> its target, from the answers' `models` (answers saved before the service
    /// named targets give none).
    targets: HashMap<String, String>,
}

/// The answer or answers in the file at `path`, or `None` when it holds none: JSON Lines of
/// records, a table, or a file that cannot be read (its reader then says why). One JSON
/// object spread over several lines that is no answer is refused here, since the JSON Lines
/// reader would only say its first line is cut short.
pub(crate) fn read_answer(path: &Path) -> Result<Option<Answer>> {
    let Some(first) = super::first_line(path) else {
        return Ok(None);
    };
    match jsonl::parse_json(&first) {
        Ok(Value::Object(map)) if is_answer(&map) => answers_by_line(path).map(Some),
        Ok(_) => Ok(None),
        Err(_) if first.trim_start().starts_with('{') => one_document(path),
        Err(_) => Ok(None),
    }
}

/// An answer has `results`; no record (a line of `score`, `features` or `cross-validate`) does.
fn is_answer(map: &Map<String, Value>) -> bool {
    map.contains_key("results") && !map.contains_key("topic")
}

/// A file whose first line opens an object it does not close: one pretty-printed document.
fn one_document(path: &Path) -> Result<Option<Answer>> {
    let text = aesop_core::input::read_text(path)?;
    let text = aesop_core::input::without_bom(&text);
    match jsonl::parse_lenient(text) {
        Ok(Value::Object(map)) if is_answer(&map) => {
            let mut answer = Answer::empty(path.display().to_string());
            answer.add(None, map)?;
            answer.finish().map(Some)
        }
        Ok(_) => bail!(
            "{}: one JSON document over several lines, which is neither JSON Lines (one record \
             per line, as `aesop score` and `aesop features` write them) nor a saved answer of \
             the service (`results`)",
            path.display()
        ),
        Err(jsonl::Unparsed::Duplicate { message, .. }) => {
            bail!("{}: {message}", path.display())
        }
        Err(jsonl::Unparsed::Json(e)) => {
            let message = e.to_string();
            let message = message
                .rfind(" at line ")
                .map_or(message.as_str(), |pos| &message[..pos]);
            bail!(
                "{}:{}: malformed JSON at column {}: {message} (read as one JSON document, \
                 since its first line opens an object it does not close)",
                path.display(),
                e.line(),
                e.column()
            )
        }
    }
}

/// A JSON Lines file whose lines are answers (a one-line answer is the common case).
fn answers_by_line(path: &Path) -> Result<Answer> {
    let file = aesop_core::input::open_text(path)?;
    let mut answer = Answer::empty(path.display().to_string());
    let mut lines = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let number = i + 1;
        let line = match line {
            Ok(line) => line,
            Err(e) => bail!("{}:{number}: cannot read: {e}", path.display()),
        };
        let line = match number {
            1 => aesop_core::input::without_bom(&line).to_string(),
            _ => line,
        };
        if !line.trim().is_empty() {
            lines.push((number, line));
        }
    }
    let several = lines.len() > 1;
    for (number, line) in lines {
        match jsonl::parse_json(&line) {
            Ok(Value::Object(map)) if is_answer(&map) => {
                answer.add(several.then_some(number), map)?
            }
            Ok(_) => bail!(
                "{}:{number}: expected a saved answer of the service (an object with \
                 `results`), as line 1 is",
                path.display()
            ),
            Err(message) => bail!("{}:{number}: {message}", path.display()),
        }
    }
    answer.finish()
}

/// The answer a caller holds in memory (the Python package's `aesop.evaluate` given the dict
/// of a `POST /v1/score` reply): one record that is an answer, named `name` in messages.
pub(crate) fn answer_in_records(name: &str, texts: &[String]) -> Result<Option<Answer>> {
    let [text] = texts else {
        return Ok(None);
    };
    match jsonl::parse_json(text) {
        Ok(Value::Object(map)) if is_answer(&map) => {
            let mut answer = Answer::empty(name.to_string());
            answer.add(None, map)?;
            answer.finish().map(Some)
        }
        _ => Ok(None),
    }
}

/// The metric an answer holds: the predictions of `target` (as `choice` chooses among them) or,
/// with `feature`, that column of its features.
pub(crate) fn metric_of_answer(
    answer: &Answer,
    target: &str,
    feature: Option<&str>,
    choice: ModelChoice,
) -> Result<MetricScores> {
    let origin = answer.origin();
    match feature {
        Some(column) => one_column(feature_columns_of(
            origin,
            &answer.feature_records()?,
            &[column],
        )?),
        None => predictions_of(
            origin,
            &answer.prediction_records(choice.model, choice.flag)?,
            target,
            choice,
        ),
    }
}

impl Answer {
    fn empty(name: String) -> Answer {
        Answer {
            name,
            results: Vec::new(),
            labels: Vec::new(),
            targets: HashMap::new(),
        }
    }

    /// Add one answer's results (`line`: its line in a file of several answers).
    fn add(&mut self, line: Option<usize>, mut map: Map<String, Value>) -> Result<()> {
        let name = &self.name;
        let at = |field: &str| match line {
            Some(line) => format!("{name}:{line}: {field}"),
            None => format!("{name}: {field}"),
        };
        let results = match map.remove("results") {
            Some(Value::Array(results)) => results,
            _ => bail!("{}: expected an array of results", at("results")),
        };
        if let Some(models) = map.get("models") {
            let Value::Array(models) = models else {
                bail!("{}: expected an array", at("models"));
            };
            for (i, model) in models.iter().enumerate() {
                let (Some(Value::String(name)), target) = (model.get("name"), model.get("target"))
                else {
                    bail!(
                        "{}: expected an object with a `name`",
                        at(&format!("models[{i}]"))
                    );
                };
                match target {
                    None | Some(Value::Null) => {}
                    Some(Value::String(target)) => {
                        if let Some(other) = self.targets.insert(name.clone(), target.clone()) {
                            if &other != target {
                                bail!(
                                    "{}: model {name:?} predicts '{target}' here and '{other}' \
                                     in an earlier answer",
                                    at(&format!("models[{i}].target"))
                                );
                            }
                        }
                    }
                    Some(_) => bail!("{}: expected a string", at(&format!("models[{i}].target"))),
                }
            }
        }
        for (i, result) in results.into_iter().enumerate() {
            let label = match line {
                Some(line) => format!("line {line}: results[{i}]"),
                None => format!("results[{i}]"),
            };
            let Value::Object(result) = result else {
                bail!("{}: {label}: expected an object", self.name);
            };
            self.results.push(result);
            self.labels.push(label);
        }
        Ok(())
    }

    fn finish(self) -> Result<Answer> {
        if self.results.is_empty() {
            bail!(
                "{}: the service's answer holds no results; there is nothing to evaluate",
                self.name
            );
        }
        Ok(self)
    }

    /// How messages name the answer's results.
    pub(crate) fn origin(&self) -> Origin<'_> {
        Origin::Answer(&self.name, &self.labels)
    }

    /// The models that score some result and predict `target` (or whose target the answer does
    /// not name), each with the (topic, system) of its results and of those whose `in_training`
    /// names it.
    pub(crate) fn models_predicting(&self, target: &str) -> super::PredictionModels {
        let mut models = super::PredictionModels::new();
        for result in &self.results {
            let Some(Value::Object(scores)) = result.get("scores") else {
                continue;
            };
            let in_training = |model: &str| match result.get("in_training") {
                Some(Value::Array(names)) => names.iter().any(|n| n.as_str() == Some(model)),
                _ => false,
            };
            for model in scores.keys() {
                if self.targets.get(model).is_some_and(|t| t != target) {
                    continue;
                }
                let summaries = models.entry(model.clone()).or_default();
                if let (Some(Value::String(topic)), Some(Value::String(system))) =
                    (result.get("topic"), result.get("system"))
                {
                    summaries.add(topic, system, in_training(model));
                }
            }
        }
        models
    }

    /// Whether any result carries `features` (the request asked `"features": true`).
    pub(crate) fn has_features(&self) -> bool {
        self.results.iter().any(|r| r.contains_key("features"))
    }

    /// The feature names of the first result that has features.
    pub(crate) fn feature_names(&self) -> Vec<String> {
        self.results
            .iter()
            .find_map(|r| match r.get("features") {
                Some(Value::Object(features)) => Some(features.keys().cloned().collect()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// One feature record per result: `topic`, `system` and its `features`, numbered from 1 by
    /// position.
    pub(crate) fn feature_records(&self) -> Result<Vec<(usize, Map<String, Value>)>> {
        if !self.has_features() {
            bail!(
                "{}: the service's answer holds no features (ask for them with \"features\": \
                 true); evaluate its predictions without a feature",
                self.name
            );
        }
        let mut out = Vec::with_capacity(self.results.len());
        for (i, result) in self.results.iter().enumerate() {
            let mut record = identity(result);
            match result.get("features") {
                Some(Value::Object(features)) => {
                    record.extend(features.iter().map(|(k, v)| (k.clone(), v.clone())))
                }
                Some(_) => bail!(
                    "{}: {}.features: expected an object",
                    self.name,
                    self.labels[i]
                ),
                // A result without features (a summary not scored) has every column missing.
                None => {}
            }
            out.push((i + 1, record));
        }
        Ok(out)
    }

    /// One prediction record per (result, model): `topic`, `system`, `model`, its `target`
    /// where the answer names it, `score`, `raw` and `in_training`, as a line of `aesop score`.
    pub(crate) fn prediction_records(
        &self,
        model: Option<&str>,
        model_flag: &str,
    ) -> Result<Vec<(usize, Map<String, Value>)>> {
        let mut out = Vec::new();
        let mut models = BTreeSet::new();
        let none = Map::new();
        for (i, result) in self.results.iter().enumerate() {
            let label = &self.labels[i];
            let scores = object_of(&self.name, label, result, "scores")?.unwrap_or(&none);
            let raw = object_of(&self.name, label, result, "raw")?.unwrap_or(&none);
            let in_training = match result.get("in_training") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
                    names.iter().filter_map(Value::as_str).collect()
                }
                Some(other) => bail!(
                    "{}: {label}.in_training: expected a list of model names (those that \
                     learned from the summary), found {other}",
                    self.name
                ),
            };
            for (name, score) in scores {
                check_number(&self.name, label, "scores", name, score)?;
                let mut record = identity(result);
                record.insert("model".into(), Value::String(name.clone()));
                if let Some(target) = self.targets.get(name) {
                    record.insert("target".into(), Value::String(target.clone()));
                }
                record.insert("score".into(), score.clone());
                if let Some(raw) = raw.get(name) {
                    check_number(&self.name, label, "raw", name, raw)?;
                    record.insert("raw".into(), raw.clone());
                }
                if in_training.contains(&name.as_str()) {
                    record.insert("in_training".into(), Value::Bool(true));
                }
                models.insert(name.clone());
                out.push((i + 1, record));
            }
        }
        if out.is_empty() {
            bail!(
                "{}: no result of the service's answer has `scores`",
                self.name
            );
        }
        // Without targets, a model's predictions cannot be told from another's by what they
        // predict: the answer must hold one model, or the flag must choose.
        let untargeted: Vec<&String> = models
            .iter()
            .filter(|m| !self.targets.contains_key(*m))
            .collect();
        if model.is_none() && models.len() > 1 && !untargeted.is_empty() {
            bail!(
                "{}: the answer scores with the models {} and does not name what {} predict \
                 (`models[].target`, which answers saved before aesop named targets lack); choose one \
                 with {}",
                self.name,
                models.iter().cloned().collect::<Vec<_>>().join(", "),
                if untargeted.len() == 1 { "one of them" } else { "they" },
                if model_flag.ends_with('=') {
                    format!("{model_flag}NAME")
                } else {
                    format!("{model_flag} NAME")
                }
            );
        }
        Ok(out)
    }
}

/// A result's `topic` and `system`, as given (the record reader checks them).
fn identity(result: &Map<String, Value>) -> Map<String, Value> {
    let mut record = Map::new();
    for key in ["topic", "system"] {
        if let Some(value) = result.get(key) {
            record.insert(key.into(), value.clone());
        }
    }
    record
}

/// The object `field` of a result, `None` when absent.
fn object_of<'a>(
    name: &str,
    label: &str,
    result: &'a Map<String, Value>,
    field: &str,
) -> Result<Option<&'a Map<String, Value>>> {
    match result.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(_) => bail!("{name}: {label}.{field}: expected an object of model names and scores"),
    }
}

/// A model's score is a number or null (the service writes null where a model gave no finite
/// number); the record reader reads `NaN` as null too.
fn check_number(name: &str, label: &str, field: &str, model: &str, value: &Value) -> Result<()> {
    match value {
        Value::Number(_) | Value::Null => Ok(()),
        Value::String(s) if s.trim().eq_ignore_ascii_case("nan") => Ok(()),
        other => bail!("{name}: {label}.{field}.{model}: expected a number or null, found {other}"),
    }
}
