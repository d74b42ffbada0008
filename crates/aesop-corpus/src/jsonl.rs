//! Streaming reader and writer for judgment sets (JSON Lines, one topic per line).
//!
//! The rules the reader enforces are documented in docs/JUDGMENT_SETS.md; every error names the
//! file, the line and the field (`set.jsonl:12: summaries[3].scores.relevance: expected a number`).
//! Validation is done by hand on a `serde_json::Value` rather than by serde derive so that the
//! messages carry the full field path and so that missing scores (`null`, `"NaN"`) can be
//! dropped instead of rejected. Lines are parsed by [`parse_json`], which (unlike
//! `serde_json::from_str`) refuses an object that repeats a key instead of keeping the last value.

use super::{Document, Extra, Query, Reference, Summary, Topic};
use anyhow::{Context, Result};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// Split `SET:COLUMN` (a judgment set and one of its score columns, as `--set` and `evaluate
/// --features --also` take it) at the last `:`, so that the set's path may hold colons (and any
/// byte a file name may hold: [`aesop_core::input::split_arg`]). The error says what is wrong
/// without the expected form, which each flag adds in its own words.
pub fn split_set_and_column(
    text: &std::ffi::OsStr,
) -> std::result::Result<(std::path::PathBuf, String), String> {
    // A file whose name holds a ':' given without a column would split into a path that does
    // not exist and a "column" that is the rest of its name; say what is missing instead.
    if Path::new(text).is_file() {
        return Err(format!(
            "the set '{}' is a file but names no column",
            Path::new(text).display()
        ));
    }
    let Some((path, column)) = aesop_core::input::split_arg(text, b':', true) else {
        return Err("no column after the set".to_string());
    };
    if path.is_empty() {
        return Err("the set's path is empty".to_string());
    }
    let column = column
        .into_string()
        .map_err(|_| "the column after the last ':' is not UTF-8".to_string())?;
    if column.is_empty() || column.contains(['/', '\\']) {
        return Err("no column after the last ':'".to_string());
    }
    Ok((path.into(), column))
}

/// A problem with one field of one topic, e.g. `summaries[3].scores.relevance: expected a number`.
/// `field` is empty when the problem concerns the whole line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for FieldError {}

/// Read a whole judgment set, failing on the first invalid line. Not from standard input: the
/// verbs that read a set whole record its content hash (a file's bytes) beside their figures.
pub fn read_set(path: &Path) -> Result<Vec<Topic>> {
    aesop_core::hash::check_hashable(path)?;
    open_set(path)?.collect()
}

/// Open a judgment set for streaming: an iterator over its topics, in file order. `-` reads
/// standard input, so a set can come from a pipe (`aesop import … -o - | aesop score -`); a
/// name ending in `.gz`, or gzip-compressed bytes (on standard input too), are read decompressed
/// ([`aesop_core::input::open`]).
pub fn open_set(path: &Path) -> Result<SetReader<Box<dyn BufRead + Send>>> {
    if aesop_core::input::names_stdin(path) {
        let input = aesop_core::input::decompressed_if_gzip(BufReader::new(std::io::stdin()))
            .context("reading standard input")?;
        return Ok(SetReader::new(input, "standard input"));
    }
    let input = aesop_core::input::open(path)?;
    Ok(SetReader::new(input, path.display().to_string()))
}

/// Iterator over the topics of a judgment set read from any buffered reader. `label` (usually
/// the file name) prefixes every error message. It yields one `Err` per invalid line and keeps
/// going, so a caller may collect every error; `collect::<Result<Vec<_>>>()` stops at the first.
pub struct SetReader<R> {
    input: R,
    label: String,
    line_number: usize,
    buffer: Vec<u8>,
    /// Topic id -> line where it first appeared, to report duplicates with both lines.
    seen_topics: HashMap<String, usize>,
    failed_io: bool,
    /// Whether anything (a topic or an error) was yielded: a set with no line at all is an error.
    yielded: bool,
    /// Whether a line that is not blank was read: the first one tells a file written as one JSON
    /// document (`json.dump(topics, f, indent=2)`) from JSON Lines.
    content_seen: bool,
}

/// What a set written as one JSON array of topics is told (`label`: the file's name).
fn one_json_array(label: &str) -> String {
    format!(
        " (the file holds one JSON array of topics; a judgment set is JSON Lines, one topic \
         object per line: convert it with `jq -c '.[]' {} > set.jsonl`, or in Python write \
         `json.dumps(topic)` and a line break for each topic)",
        shell_word(label)
    )
}

/// For a first line that does not parse: whether it opens a JSON document spread over several
/// lines (pretty-printed), which JSON Lines cannot hold, and how to rewrite it.
fn not_json_lines(line: &str, label: &str) -> String {
    let opens_document = serde_json::from_str::<Value>(line).is_err_and(|e| e.is_eof());
    match line.trim_start().chars().next() {
        Some('[') if opens_document => one_json_array(label),
        Some('{') if opens_document => format!(
            " (the file holds JSON spread over several lines; a judgment set is JSON Lines, one \
             topic object per line: rewrite it with `jq -c . {} > set.jsonl`)",
            shell_word(label)
        ),
        Some('<') if crate::import::rouge_config::opens_rouge_config(line) => format!(
            " (the file looks like a ROUGE-1.5.5 evaluation configuration; `aesop import rouge \
             {} -o set.jsonl` makes a judgment set of the summaries and references it names \
             (docs/JUDGMENT_SETS.md, \"From a ROUGE configuration\"))",
            shell_word(label)
        ),
        // A table of summaries (a CSV or TSV header, or a spreadsheet's split at semicolons),
        // as users and spreadsheets keep them.
        Some(c) if c != '{' && c != '[' && line.contains([',', '\t', ';']) => format!(
            " (the file looks like a table (CSV or TSV); a judgment set is JSON Lines, one topic \
             per line with its documents, references and summaries and their scores: `aesop \
             import table {} -o set.jsonl` makes one from a table with a row per summary \
             (docs/JUDGMENT_SETS.md, \"From a table\", names its columns))",
            shell_word(label)
        ),
        _ => String::new(),
    }
}

/// `label` as a word of a shell command: the file name, quoted where the shell would split or
/// expand it; `FILE` for standard input.
fn shell_word(label: &str) -> String {
    if label == "standard input" {
        "FILE".to_string()
    } else if label
        .chars()
        .all(|c| c.is_alphanumeric() || "._-/+,:@%".contains(c))
    {
        label.to_string()
    } else {
        format!("'{}'", label.replace('\'', "'\\''"))
    }
}

impl<R: BufRead> SetReader<R> {
    pub fn new(input: R, label: impl Into<String>) -> SetReader<R> {
        SetReader {
            input,
            label: label.into(),
            line_number: 0,
            buffer: Vec::new(),
            seen_topics: HashMap::new(),
            failed_io: false,
            yielded: false,
            content_seen: false,
        }
    }

    fn parse_line(&mut self) -> Option<Result<Topic>> {
        let line_number = self.line_number;
        let mut bytes = self.buffer.as_slice();
        while let [rest @ .., b'\n' | b'\r'] = bytes {
            bytes = rest;
        }
        if line_number == 1 {
            bytes = aesop_core::input::without_bom_bytes(bytes);
        }
        let here = format!("{}:{}", self.label, line_number);
        // A first line in UTF-16, a PDF or a ZIP archive is named for what it is.
        let not_text = match line_number {
            1 => aesop_core::input::not_text_advice(bytes),
            _ => None,
        };
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                return Some(Err(anyhow::anyhow!(
                    "{here}: invalid UTF-8 at byte {} of the line ({})",
                    e.valid_up_to() + 1,
                    not_text.unwrap_or(
                        "judgment sets must be UTF-8; re-encode the file, e.g. with iconv"
                    )
                )))
            }
        };
        if text.trim().is_empty() {
            return None;
        }
        let first_line = !self.content_seen;
        self.content_seen = true;
        let value = match parse_json(text) {
            Ok(value) => value,
            Err(message) => {
                let hint = match (first_line, not_text) {
                    (true, Some(advice)) => format!(" ({advice})"),
                    (true, None) => not_json_lines(text, &self.label),
                    (false, _) => String::new(),
                };
                return Some(Err(anyhow::anyhow!("{here}: {message}{hint}")));
            }
        };
        let array = value.is_array();
        let topic = match topic_from_value(value) {
            Ok(topic) => topic,
            Err(e) if first_line && array => {
                let hint = one_json_array(&self.label);
                return Some(Err(anyhow::anyhow!("{here}: {e}{hint}")));
            }
            Err(e) => return Some(Err(anyhow::anyhow!("{here}: {e}"))),
        };
        if let Some(first) = self.seen_topics.get(&topic.topic) {
            return Some(Err(anyhow::anyhow!(
                "{here}: topic: duplicate topic id {:?} (first at line {first})",
                topic.topic
            )));
        }
        self.seen_topics.insert(topic.topic.clone(), line_number);
        Some(Ok(topic))
    }
}

impl<R: BufRead> Iterator for SetReader<R> {
    type Item = Result<Topic>;

    fn next(&mut self) -> Option<Result<Topic>> {
        if self.failed_io {
            return None;
        }
        loop {
            self.buffer.clear();
            match self.input.read_until(b'\n', &mut self.buffer) {
                Ok(0) if self.yielded => return None,
                Ok(0) => {
                    // An empty set is refused here, so that no verb writes an empty (header-only) result.
                    self.yielded = true;
                    return Some(Err(anyhow::anyhow!(
                        "{}: no topics (the file is empty or holds only blank lines)",
                        self.label
                    )));
                }
                Ok(_) => {
                    self.line_number += 1;
                    if let Some(result) = self.parse_line() {
                        self.yielded = true;
                        return Some(result);
                    }
                }
                Err(e) => {
                    self.failed_io = true;
                    self.yielded = true;
                    return Some(Err(anyhow::anyhow!(
                        "{}:{}: read error: {e}",
                        self.label,
                        self.line_number + 1
                    )));
                }
            }
        }
    }
}

/// Parse one line of JSON (a judgment-set line; the importers and `evaluate` use it too).
/// Python's `json.dumps` writes bare `NaN`/`Infinity`, which JSON does not allow; such lines are
/// retried with a bare `NaN` read as `null` (missing: a missing score, an absent list, an error
/// naming a required text or id) and `Infinity` quoted, so that the score rules (an infinite
/// score is an error naming its field) apply to them too. (Quoted, a `NaN` text became the
/// summary "NaN" and was scored: pandas writes NaN for a missing cell; audit stop 54.) An object that repeats a key is
/// an error naming the key's path (`summaries[0].scores.relevance: duplicate key …`). The error
/// is the message without the file and line, which the caller adds.
pub fn parse_json(text: &str) -> std::result::Result<Value, String> {
    match parse_lenient(text) {
        Ok(value) => Ok(value),
        Err(Unparsed::Duplicate { message, .. }) => Err(message),
        Err(Unparsed::Json(first)) => {
            let message = first.to_string();
            // serde_json appends "at line 1 column N"; the line is ours, so keep only the column.
            let message = match message.rfind(" at line ") {
                Some(pos) => &message[..pos],
                None => &message,
            };
            Err(format!(
                "malformed JSON at column {}: {message}",
                first.column()
            ))
        }
    }
}

/// [`parse_strict`], retried with bare `NaN`/`Infinity` quoted as [`parse_json`] does (the HTTP
/// service parses request bodies with it, so a body Python's `json.dumps` wrote is read as a
/// set line is). A JSON error is the first attempt's, so its position is in `text`.
pub fn parse_lenient(text: &str) -> std::result::Result<Value, Unparsed> {
    match parse_strict(text) {
        Err(Unparsed::Json(first)) => match quote_bare_non_finite(text).map(|q| parse_strict(&q)) {
            Some(Ok(value)) => Ok(value),
            Some(Err(duplicate @ Unparsed::Duplicate { .. })) => Err(duplicate),
            Some(Err(Unparsed::Json(_))) | None => Err(Unparsed::Json(first)),
        },
        other => other,
    }
}

/// The keys of the JSON object `text` in the order the text gives them (a [`Value`]'s map sorts
/// them), or `None` where `text` is no object: the order of a features line's columns, which
/// tables keep (`evaluate --features` ranks equal columns in file order, as a CSV header gives
/// it). Bare `NaN`/`Infinity` are read as [`parse_json`] reads them.
pub fn object_keys_in_order(text: &str) -> Option<Vec<String>> {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                keys.push(key);
            }
            Ok(keys)
        }
    }
    let keys = |text: &str| {
        use serde::Deserializer as _;
        serde_json::Deserializer::from_str(text)
            .deserialize_map(Keys)
            .ok()
    };
    keys(text).or_else(|| keys(&quote_bare_non_finite(text)?))
}

/// Why [`parse_strict`] gave no value.
pub enum Unparsed {
    Json(serde_json::Error),
    /// An object repeats a key. `field` is the key's path (`summaries[0].scores.relevance`),
    /// `message` the finished message, e.g. `summaries[0].scores.relevance: duplicate key …`.
    Duplicate {
        field: String,
        message: String,
    },
}

/// `serde_json::from_str::<Value>`, except that an object repeating a key is refused (the HTTP
/// service parses request bodies with [`parse_lenient`], which adds the bare-NaN retry).
pub fn parse_strict(text: &str) -> std::result::Result<Value, Unparsed> {
    let found = RefCell::new(None);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let result = Strict(&found)
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match (result, found.into_inner()) {
        (Ok(value), _) => Ok(value),
        (Err(_), Some(duplicate)) => Err(Unparsed::Duplicate {
            field: duplicate.field(),
            message: duplicate.message(),
        }),
        (Err(e), None) => Err(Unparsed::Json(e)),
    }
}

/// A repeated key and where: `path` holds the segments of its object's path innermost first
/// (`.scores`, `[0]`, `.summaries`), added as the error unwinds, so a valid line pays nothing.
struct Duplicate {
    key: String,
    path: Vec<String>,
}

impl Duplicate {
    /// The repeated key's path, `summaries[0].scores.relevance`.
    fn field(&self) -> String {
        let mut field: String = self.path.iter().rev().map(String::as_str).collect();
        field.push('.');
        field.push_str(&self.key);
        field.trim_start_matches('.').to_string()
    }

    fn message(&self) -> String {
        format!(
            "{}: duplicate key {:?} (an object may give each key once)",
            self.field(),
            self.key
        )
    }
}

/// Builds a `serde_json::Value` as serde_json's own visitor does, but refuses repeated keys.
#[derive(Clone, Copy)]
struct Strict<'a>(&'a RefCell<Option<Duplicate>>);

impl Strict<'_> {
    /// On the way out of an error: prefix the duplicate's path with this level's segment.
    fn unwind(&self, segment: impl FnOnce() -> String) {
        if let Some(duplicate) = self.0.borrow_mut().as_mut() {
            duplicate.path.push(segment());
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            match seq.next_element_seed(self) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => return Ok(Value::Array(items)),
                Err(e) => {
                    self.unwind(|| format!("[{}]", items.len()));
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = match map.next_value_seed(self) {
                Ok(value) => value,
                Err(e) => {
                    self.unwind(|| format!(".{key}"));
                    return Err(e);
                }
            };
            match object.entry(key) {
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(value);
                }
                serde_json::map::Entry::Occupied(slot) => {
                    let key = slot.key().clone();
                    let message = format!("duplicate key {key:?}");
                    *self.0.borrow_mut() = Some(Duplicate {
                        key,
                        path: Vec::new(),
                    });
                    return Err(de::Error::custom(message));
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// Bare `NaN` tokens outside strings as `null`, bare `Infinity` and `-Infinity` quoted; `None`
/// when there are none.
fn quote_bare_non_finite(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut changed = false;
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else {
            let token = ["-Infinity", "Infinity", "NaN"]
                .into_iter()
                .find(|token| rest.starts_with(token));
            if let Some(token) = token {
                if token == "NaN" {
                    out.push_str("null");
                } else {
                    out.push('"');
                    out.push_str(token);
                    out.push('"');
                }
                rest = &rest[token.len()..];
                changed = true;
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    changed.then_some(out)
}

/// Write topics as JSON Lines (one compact object per line). Scores that are not finite are
/// written as `null`, which the reader treats as missing.
pub fn write_set<W: Write>(mut out: W, topics: &[Topic]) -> Result<()> {
    for topic in topics {
        write_topic(&mut out, topic)?;
    }
    out.flush()?;
    Ok(())
}

/// Write one topic as one line.
pub fn write_topic<W: Write>(mut out: W, topic: &Topic) -> Result<()> {
    // Serialized first, so that a write error reaches the caller as the output's own error
    // (naming the file), not inside serde_json's, which hides it.
    let mut line = serde_json::to_vec(topic)
        .with_context(|| format!("cannot write topic {:?}", topic.topic))?;
    line.push(b'\n');
    out.write_all(&line)?;
    Ok(())
}

/// Validate one topic given as JSON (one judgment-set line, or one element of an HTTP request),
/// applying every rule of docs/JUDGMENT_SETS.md except the cross-line duplicate-topic check.
pub fn topic_from_value(value: Value) -> std::result::Result<Topic, FieldError> {
    let mut map = into_object(value, "")?;
    if map.contains_key("results") && !map.contains_key("topic") {
        return Err(FieldError::new(
            "results",
            "a saved answer of the service (POST /v1/score: `results`, `models`), not a \
             judgment-set topic; give the judgment set (`aesop evaluate ANSWER --human SET` \
             judges an answer)",
        ));
    }
    // A row of `score --systems` or `features --systems` has no topic at all.
    if !map.contains_key("topic")
        && ["system", "mean", "rank"]
            .iter()
            .all(|k| map.contains_key(*k))
    {
        return Err(FieldError::new(
            "mean",
            "a system's mean (a row of `aesop score --systems` or `aesop features --systems`), \
             not a judgment-set topic; give the judgment set",
        ));
    }
    let topic = required_id(&mut map, "", "topic")?;
    if topic.trim().is_empty() {
        return Err(FieldError::new("topic", "must not be empty"));
    }
    // A line of predictions, features or system means (the outputs of `score`, `features`,
    // `cross-validate`) given where a set belongs would otherwise read as a topic with neither
    // documents nor summaries: `score` wrote 0 predictions, and a second line of the same topic
    // was called a duplicate topic id.
    if map.contains_key("system")
        && !map.contains_key("documents")
        && !map.contains_key("summaries")
    {
        return Err(FieldError::new(
            "system",
            "a line of scores for one summary or system (`topic`, `system`, …: predictions, \
             features or system means, as `aesop score`, `features` and `cross-validate` write \
             them), not a judgment-set topic (`documents`, `summaries`); give the judgment set",
        ));
    }
    let query = match map.remove("query") {
        None | Some(Value::Null) => None,
        Some(value) => Some(query_from_value(value)?),
    };
    let documents = list(&mut map, "documents", |value, field| {
        let mut map = into_object(value, field)?;
        Ok(Document {
            id: required_id(&mut map, field, "id")?,
            text: nonblank_text(&mut map, field, "document")?,
            extra: map,
        })
    })?;
    unique(documents.iter().map(|d| d.id.as_str()), "documents", "id")?;
    let references = list(&mut map, "references", |value, field| {
        let mut map = into_object(value, field)?;
        Ok(Reference {
            id: required_id(&mut map, field, "id")?,
            text: nonblank_text(&mut map, field, "reference")?,
            extra: map,
        })
    })?;
    unique(references.iter().map(|r| r.id.as_str()), "references", "id")?;
    let summaries = list(&mut map, "summaries", summary_from_value)?;
    unique(
        summaries.iter().map(|s| s.system.as_str()),
        "summaries",
        "system",
    )?;
    Ok(Topic {
        topic,
        query,
        documents,
        references,
        summaries,
        extra: map,
    })
}

/// The `text` of a document or reference (`what`), which must hold more than white space: a
/// blank source or reference would silently change every summary's score (content features
/// imputed, ROUGE 0), where an empty summary is only a degenerate summary, scored `null`.
fn nonblank_text(
    map: &mut Extra,
    field: &str,
    what: &str,
) -> std::result::Result<String, FieldError> {
    let text = required_string(map, field, "text")?;
    if text.trim().is_empty() {
        return Err(FieldError::new(
            format!("{field}.text"),
            format!("empty {what} text (give the {what}'s text, or leave the {what} out)"),
        ));
    }
    Ok(text)
}

fn query_from_value(value: Value) -> std::result::Result<Query, FieldError> {
    let mut map = into_object(value, "query")?;
    Ok(Query {
        title: optional_string(&mut map, "query", "title")?,
        narrative: optional_string(&mut map, "query", "narrative")?,
        extra: map,
    })
}

fn summary_from_value(value: Value, field: &str) -> std::result::Result<Summary, FieldError> {
    let mut map = into_object(value, field)?;
    let system = required_id(&mut map, field, "system")?;
    if system.trim().is_empty() {
        return Err(FieldError::new(
            format!("{field}.system"),
            "must not be empty",
        ));
    }
    let text = required_string(&mut map, field, "text")?;
    let mut scores = BTreeMap::new();
    match map.remove("scores") {
        None | Some(Value::Null) => {}
        Some(Value::Object(entries)) => {
            for (name, value) in entries {
                if let Some(score) = score_from_value(&value, || format!("{field}.scores.{name}"))?
                {
                    scores.insert(name, score);
                }
            }
        }
        Some(other) => {
            return Err(FieldError::new(
                format!("{field}.scores"),
                format!(
                    "expected an object of named numbers, found {}",
                    kind(&other)
                ),
            ))
        }
    }
    let human = match map.remove("human") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(human)) => human,
        Some(other) => {
            return Err(FieldError::new(
                format!("{field}.human"),
                format!("expected true or false, found {}", kind(&other)),
            ))
        }
    };
    Ok(Summary {
        system,
        text,
        scores,
        human,
        extra: map,
    })
}

/// A score: a finite number; `null`, the string "NaN" (any case) and a blank string mean
/// missing (`None`).
fn score_from_value(
    value: &Value,
    field: impl Fn() -> String,
) -> std::result::Result<Option<f64>, FieldError> {
    match value {
        Value::Null => Ok(None),
        Value::Number(number) => match number.as_f64() {
            Some(score) if score.is_finite() => Ok(Some(score)),
            _ => Err(FieldError::new(field(), "not a finite number")),
        },
        // A blank string is a missing score, as a table's empty cell is (a CSV read by
        // Python's csv module gives "" for one).
        Value::String(text)
            if text.trim().is_empty() || text.trim().eq_ignore_ascii_case("nan") =>
        {
            Ok(None)
        }
        Value::String(text)
            if matches!(
                text.trim().to_ascii_lowercase().as_str(),
                "infinity" | "-infinity" | "inf" | "-inf"
            ) =>
        {
            Err(FieldError::new(
                field(),
                "infinite score (use null or \"NaN\" for a missing score)",
            ))
        }
        Value::String(text) if text.trim().parse::<f64>().is_ok() => Err(FieldError::new(
            field(),
            format!(
                "expected a number, found the string {text:?} (write the number without \
                 quotes: in Python, float(…) before json.dumps)"
            ),
        )),
        other => Err(FieldError::new(
            field(),
            format!("expected a number, found {}", kind(other)),
        )),
    }
}

fn list<T>(
    map: &mut Extra,
    key: &str,
    mut convert: impl FnMut(Value, &str) -> std::result::Result<T, FieldError>,
) -> std::result::Result<Vec<T>, FieldError> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| convert(item, &format!("{key}[{i}]")))
            .collect(),
        Some(other) => Err(FieldError::new(
            key,
            format!("expected an array, found {}", kind(&other)),
        )),
    }
}

/// Ids must be unique within their list; the error names both positions.
fn unique<'a>(
    ids: impl Iterator<Item = &'a str>,
    list: &str,
    key: &str,
) -> std::result::Result<(), FieldError> {
    let mut first_index: HashMap<&str, usize> = HashMap::new();
    for (i, id) in ids.enumerate() {
        if let Some(first) = first_index.insert(id, i) {
            return Err(FieldError::new(
                format!("{list}[{i}].{key}"),
                format!("duplicate {key} {id:?} (first at {list}[{first}])"),
            ));
        }
    }
    Ok(())
}

fn into_object(value: Value, field: &str) -> std::result::Result<Extra, FieldError> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(FieldError::new(
            field,
            format!("expected an object, found {}", kind(&other)),
        )),
    }
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// The text of an id given as `value`: a string as it is, or a number as its JSON text (`7` is
/// "7"), as tables turned into JSON write numeric ids (pandas' `to_dict`, a spreadsheet's
/// column of numbers); `None` for any other value. The one rule for a topic's, document's,
/// reference's and summary's ids in judgment sets and service requests, and for the ids of the
/// lines `evaluate` reads.
pub fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(id) => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

/// An id (`topic`, a document's or reference's `id`, a summary's `system`), by [`id_text`];
/// any other value gets the error [`required_string`] gives.
fn required_id(
    map: &mut Extra,
    parent: &str,
    key: &str,
) -> std::result::Result<String, FieldError> {
    match map.get(key).and_then(id_text) {
        Some(id) => {
            map.remove(key);
            Ok(id)
        }
        None => required_string(map, parent, key),
    }
}

fn required_string(
    map: &mut Extra,
    parent: &str,
    key: &str,
) -> std::result::Result<String, FieldError> {
    match map.remove(key) {
        Some(Value::String(text)) => Ok(text),
        None => Err(FieldError::new(join(parent, key), "missing required field")),
        Some(Value::Null) => Err(FieldError::new(
            join(parent, key),
            "missing (null, or a bare NaN: what pandas holds for a missing cell)",
        )),
        Some(other) => Err(FieldError::new(
            join(parent, key),
            format!(
                "expected a string, found {}{}",
                kind(&other),
                join_hint(&other)
            ),
        )),
    }
}

/// For a text given as a list of strings (sentences, as some corpora store them: PubMed's and
/// arXiv's abstracts, HTML paragraphs), how to write it: aesop cannot guess whether the parts are
/// sentences, lines or paragraphs, which its sentence splitter reads differently.
fn join_hint(value: &Value) -> String {
    match value {
        Value::Array(parts) if !parts.is_empty() && parts.iter().all(Value::is_string) => format!(
            " of {} strings: write the text as one string, its sentences joined with spaces or line breaks",
            parts.len()
        ),
        _ => String::new(),
    }
}

fn optional_string(
    map: &mut Extra,
    parent: &str,
    key: &str,
) -> std::result::Result<Option<String>, FieldError> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(FieldError::new(
            join(parent, key),
            format!("expected a string, found {}", kind(&other)),
        )),
    }
}

/// The JSON type of `value`, as error messages say it ("found a string").
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_keys_come_in_the_texts_order() {
        assert_eq!(
            object_keys_in_order(r#"{"topic": "t", "b.z": 1, "a.y": NaN, "c": {"d": [1]}}"#),
            Some(vec!["topic".into(), "b.z".into(), "a.y".into(), "c".into()])
        );
        assert_eq!(object_keys_in_order("[1, 2]"), None);
        assert_eq!(object_keys_in_order("{\"a\": "), None);
    }

    /// Numbers are read exactly as Rust (and Python) read them: without serde_json's
    /// `float_roundtrip` feature, 125 of REALSumm's 2,500 pyramid scores changed in their last
    /// digits on import (0.09090909090909091 became 0.09090909090909093).
    #[test]
    fn numbers_keep_every_digit() {
        for text in [
            "0.09090909090909091",
            "0.3333333333333333",
            "4.333333333333333",
            "0.1",
            "1e-300",
        ] {
            let value = parse_json(&format!("{{\"x\": {text}}}")).expect("json");
            let expected: f64 = text.parse().expect("number");
            assert_eq!(value["x"].as_f64(), Some(expected), "{text}");
        }
    }

    #[test]
    fn quotes_only_bare_tokens() {
        let text = r#"{"a": NaN, "b": "NaN in text", "c": -Infinity, "d": "say \"NaN\""}"#;
        let quoted = quote_bare_non_finite(text).expect("has bare tokens");
        assert_eq!(
            quoted,
            r#"{"a": null, "b": "NaN in text", "c": "-Infinity", "d": "say \"NaN\""}"#
        );
        assert_eq!(quote_bare_non_finite(r#"{"a": "NaN"}"#), None);
    }

    #[test]
    fn repeated_keys_are_refused_with_their_path() {
        let message = parse_json(r#"{"topic": "t", "topic": "u"}"#).expect_err("duplicate");
        assert!(
            message.starts_with("topic: duplicate key \"topic\""),
            "{message}"
        );
        let line = r#"{"topic": "t", "summaries": [{"system": "a", "text": "x"},
            {"system": "b", "text": "y", "scores": {"relevance": 1, "relevance": 5}}]}"#;
        let message = parse_json(&line.replace('\n', " ")).expect_err("nested duplicate");
        assert!(
            message.starts_with("summaries[1].scores.relevance: duplicate key \"relevance\""),
            "{message}"
        );
        // Also on a line that needs its bare NaN quoted first.
        let message = parse_json(r#"{"a": NaN, "a": 1}"#).expect_err("duplicate after NaN");
        assert!(message.starts_with("a: duplicate key"), "{message}");
        // The same key in different objects, and equal values elsewhere, are fine.
        let value = parse_json(r#"{"a": {"k": 1}, "b": {"k": 1}, "c": [1, 1.5, null, true]}"#)
            .expect("valid");
        assert_eq!(
            value,
            serde_json::from_str::<Value>(
                r#"{"a": {"k": 1}, "b": {"k": 1}, "c": [1, 1.5, null, true]}"#
            )
            .expect("json")
        );
        assert!(parse_json("{\"a\": 1} x")
            .expect_err("trailing")
            .starts_with("malformed JSON"));
    }

    #[test]
    fn an_empty_set_is_an_error_naming_it() {
        for content in ["", "\n  \n\r\n", "\u{feff}\n"] {
            let results: Vec<_> = SetReader::new(content.as_bytes(), "empty.jsonl").collect();
            assert_eq!(results.len(), 1, "{content:?}");
            let message = format!("{:#}", results[0].as_ref().expect_err("no topics"));
            assert!(message.starts_with("empty.jsonl: no topics"), "{message}");
        }
    }

    /// The outputs aesop writes (predictions, features, system means, the service's answers)
    /// given where a set belongs are named for what they are; a topic with a `system` beside its
    /// documents is read.
    #[test]
    fn lines_of_scores_are_not_read_as_topics() {
        let first_error = |content: &str| {
            SetReader::new(content.as_bytes(), "p.jsonl")
                .find_map(|topic| topic.err())
                .map(|e| format!("{e:#}"))
        };
        for line in [
            r#"{"topic":"T1","system":"A","target":"pyramid","score":1.0}"#,
            r#"{"topic":"T1","system":"A","content.js":0.3}"#,
            r#"{"model":"pyramid","rank":1,"topic":"-","system":"A","mean":0.4}"#,
        ] {
            let message = first_error(&format!("{line}\n{line}\n")).expect("read as a topic");
            assert!(
                message
                    .starts_with("p.jsonl:1: system: a line of scores for one summary or system")
                    && message.ends_with("give the judgment set"),
                "{message}"
            );
        }
        // The rows of `score --systems` and `features --systems`, which name no topic.
        for line in [
            r#"{"model":"pyramid","rank":1,"system":"A","mean":0.4,"low":0.3,"high":0.5}"#,
            r#"{"feature":"rouge.r1_f","rank":2,"system":"B","mean":0.2,"low":null,"high":null}"#,
        ] {
            let message = first_error(line).expect("read as a topic");
            assert!(
                message.starts_with("p.jsonl:1: mean: a system's mean (a row of `aesop score")
                    && message.ends_with("give the judgment set"),
                "{message}"
            );
        }
        let answer =
            r#"{"results":[{"topic":"t","system":"a","scores":{"pyramid":0.5}}],"models":[]}"#;
        let message = first_error(answer).expect("read as a topic");
        assert!(
            message.starts_with("p.jsonl:1: results: a saved answer of the service"),
            "{message}"
        );
        let topic = r#"{"topic":"t","system":"batch 3","documents":[{"id":"d","text":"A."}]}"#;
        assert_eq!(first_error(topic), None);
    }

    /// A blank document or reference text is refused, naming the line and the field; a blank
    /// summary is read (it is a degenerate summary, scored `null` later).
    #[test]
    fn blank_documents_and_references_are_refused_naming_the_field() {
        let line = |document: &str, reference: &str, summary: &str| {
            format!(
                r#"{{"topic":"t1","documents":[{{"id":"d1","text":"A source."}},{{"id":"d2","text":{document:?}}}],"references":[{{"id":"r1","text":{reference:?}}}],"summaries":[{{"system":"s","text":{summary:?}}}]}}"#
            )
        };
        let first_error = |content: String| {
            SetReader::new(content.as_bytes(), "set.jsonl")
                .find_map(|topic| topic.err())
                .map(|e| format!("{e:#}"))
        };
        for blank in ["", "  \n\t "] {
            let message = first_error(line(blank, "A reference.", "A summary."))
                .expect("a blank document was read");
            assert!(
                message.starts_with("set.jsonl:1: documents[1].text: empty document text"),
                "{message}"
            );
            let message = first_error(line("More source.", blank, "A summary."))
                .expect("a blank reference was read");
            assert!(
                message.starts_with("set.jsonl:1: references[0].text: empty reference text"),
                "{message}"
            );
            assert_eq!(
                first_error(line("More source.", "A reference.", blank)),
                None,
                "a blank summary is read"
            );
        }
    }
}
