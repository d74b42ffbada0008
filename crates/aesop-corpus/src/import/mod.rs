//! Importers: one per source format, each turning a public or NIST layout into topics.
//! The choices each importer makes (ids, score names, mapped targets) are documented in
//! docs/JUDGMENT_SETS.md. Every error names the file, and the line and field where one applies.

mod bartscore;
mod dialsummeval;
mod nist;
mod realsumm;
mod summeval_op;

use super::jsonl::kind;
use super::Topic;
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::path::Path;

/// The formats `aesop import` understands.
pub const FORMATS: &[&str] = &[
    "summeval",
    "realsumm",
    "newsroom",
    "summeval-op",
    "dialsummeval",
    "tac",
    "duc",
];

/// Import `path` (a file or directory, depending on the format) into topics.
pub fn import(format: &str, path: &Path) -> Result<Vec<Topic>> {
    if !path.exists() {
        bail!("{}: no such file or directory", path.display());
    }
    match format {
        "summeval" => bartscore::import_summeval(path),
        "newsroom" => bartscore::import_newsroom(path),
        "realsumm" => realsumm::import(path),
        "summeval-op" => summeval_op::import(path),
        "dialsummeval" => dialsummeval::import(path),
        "tac" => nist::tac::import(path),
        "duc" => nist::duc::import(path),
        other => bail!(
            "unknown import format {other:?}; known formats: {}",
            FORMATS.join(", ")
        ),
    }
}

/// A position in a JSON Lines source file, for error messages `file:line: field: problem`.
#[derive(Clone, Copy)]
struct At<'a> {
    file: &'a Path,
    line: usize,
}

impl At<'_> {
    fn error(&self, field: &str, message: impl std::fmt::Display) -> anyhow::Error {
        anyhow::anyhow!("{}:{}: {field}: {message}", self.file.display(), self.line)
    }

    /// `value[key]` as a string.
    fn string(&self, value: &Value, field: &str, key: &str) -> Result<String> {
        let path = join(field, key);
        match value.get(key) {
            Some(Value::String(text)) => Ok(text.clone()),
            None | Some(Value::Null) => Err(self.error(&path, "missing required field")),
            Some(other) => {
                Err(self.error(&path, format!("expected a string, found {}", kind(other))))
            }
        }
    }

    /// `value[key]` as a string or integer (ids are numbers in some sources).
    fn id(&self, value: &Value, field: &str, key: &str) -> Result<String> {
        let path = join(field, key);
        match value.get(key) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(Value::Number(number)) => Ok(number.to_string()),
            None | Some(Value::Null) => Err(self.error(&path, "missing required field")),
            Some(other) => Err(self.error(
                &path,
                format!("expected a string or number, found {}", kind(other)),
            )),
        }
    }

    /// `value[key]` as an object.
    fn object<'v>(
        &self,
        value: &'v Value,
        field: &str,
        key: &str,
    ) -> Result<&'v serde_json::Map<String, Value>> {
        let path = join(field, key);
        match value.get(key) {
            Some(Value::Object(map)) => Ok(map),
            None | Some(Value::Null) => Err(self.error(&path, "missing required field")),
            Some(_) => Err(self.error(&path, "expected an object")),
        }
    }

    /// `value[key]` as an array.
    fn array<'v>(&self, value: &'v Value, field: &str, key: &str) -> Result<&'v Vec<Value>> {
        let path = join(field, key);
        match value.get(key) {
            Some(Value::Array(items)) => Ok(items),
            None | Some(Value::Null) => Err(self.error(&path, "missing required field")),
            Some(_) => Err(self.error(&path, "expected an array")),
        }
    }

    /// A score: a number, or `None` for null/"NaN" (missing); anything else is an error.
    fn score(&self, value: &Value, field: &str) -> Result<Option<f64>> {
        match value {
            Value::Null => Ok(None),
            Value::Number(number) => match number.as_f64() {
                Some(score) if score.is_finite() => Ok(Some(score)),
                _ => Err(self.error(field, "not a finite number")),
            },
            Value::String(text) if text.trim().eq_ignore_ascii_case("nan") => Ok(None),
            other => Err(self.error(field, format!("expected a number, found {}", kind(other)))),
        }
    }
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// Read a JSON Lines file: `(line number, value)` for every non-blank line.
fn read_json_lines(path: &Path) -> Result<Vec<(usize, Value)>> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = i + 1;
        let text = std::str::from_utf8(line).map_err(|e| {
            anyhow::anyhow!(
                "{}:{number}: invalid UTF-8 at byte {} of the line",
                path.display(),
                e.valid_up_to() + 1
            )
        })?;
        if text.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            anyhow::anyhow!(
                "{}:{number}: malformed JSON at column {}: {}",
                path.display(),
                e.column(),
                e
            )
        })?;
        rows.push((number, value));
    }
    Ok(rows)
}

/// Error unless the topic ids of an import are unique (a source with a repeated id would
/// otherwise give a judgment set that its own reader rejects).
fn check_unique_topics(topics: &[Topic], source: &Path) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    for (i, topic) in topics.iter().enumerate() {
        if let Some(first) = seen.insert(topic.topic.as_str(), i) {
            bail!(
                "{}: topic id {:?} occurs twice (topics {} and {})",
                source.display(),
                topic.topic,
                first + 1,
                i + 1
            );
        }
    }
    Ok(())
}

/// Add the mapped target `to` from the original score `from` when present.
fn map_score(scores: &mut std::collections::BTreeMap<String, f64>, from: &str, to: &str) {
    if let Some(&value) = scores.get(from) {
        scores.insert(to.to_string(), value);
    }
}
