//! Importers: one per source format, each turning a public or NIST layout into topics.
//! The choices each importer makes (ids, score names, mapped targets) are documented in
//! docs/JUDGMENT_SETS.md. Every error names the file, and the line and field where one applies.
//! Shared rules: a leading UTF-8 byte-order mark is skipped (`read_text`), JSON lines are parsed
//! as judgment-set lines are ([`jsonl::parse_json`]: bare `NaN` allowed, repeated keys refused), an
//! import with no topic is an error, and an error on a file of another known format says which.

mod bartscore;
mod dialsummeval;
pub mod lines;
mod nist;
mod realsumm;
pub(crate) mod rouge_config;
pub mod rouge_dirs;
mod summeval_op;
pub mod table;

use super::jsonl::{self, kind};
use super::Topic;
pub(crate) use aesop_core::input::read_text;
use aesop_core::input::{plain_name, split_arg};
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The formats `aesop import` understands.
pub const FORMATS: &[&str] = &[
    "summeval",
    "realsumm",
    "newsroom",
    "summeval-op",
    "dialsummeval",
    "tac",
    "duc",
    "rouge",
    "table",
    "lines",
];

/// Import `path` (a file or directory, depending on the format) into topics; a `table` with
/// its default columns.
pub fn import(format: &str, path: &Path) -> Result<Vec<Topic>> {
    import_with(format, path, &table::TableColumns::default())
}

/// [`import`], a `table` read with `columns`.
pub fn import_with(format: &str, path: &Path, columns: &table::TableColumns) -> Result<Vec<Topic>> {
    if !path.exists() {
        bail!("{}: no such file or directory", path.display());
    }
    if format == "table" {
        return import_tables(&[path.to_path_buf()], columns);
    }
    let topics = import_format(format, path).map_err(|e| match foreign_format(format, path) {
        Some(found) => e.context(format!(
            "{}: this looks like a {found}, not a {format} file",
            path.display()
        )),
        None => e,
    })?;
    checked(&path.display().to_string(), topics)
}

/// Import tables of summaries (`aesop import table TABLE…`; [`table`]): one, or several (one
/// per system, each `PATH` or `NAME=PATH`), their rows gathered into one set.
pub fn import_tables(paths: &[PathBuf], columns: &table::TableColumns) -> Result<Vec<Topic>> {
    let topics = table::import(paths, columns).map_err(|e| {
        let foreign = paths
            .iter()
            .find_map(|path| foreign_format("table", path).map(|found| (path, found)));
        match foreign {
            Some((path, found)) => e.context(format!(
                "{}: this looks like a {found}, not a table file",
                path.display()
            )),
            None => e,
        }
    })?;
    checked(&listed(paths), topics)
}

/// Import summaries laid out for pyrouge (`aesop import rouge SYSTEM_DIR…`; [`rouge_dirs`]).
pub fn import_rouge_dirs(layout: &rouge_dirs::PyrougeLayout) -> Result<Vec<Topic>> {
    for dir in layout.system_dirs.iter().chain([&layout.model_dir]) {
        if !dir.is_dir() {
            bail!("{}: no such directory", dir.display());
        }
    }
    let topics = rouge_dirs::import(layout)?;
    checked(&listed(&layout.system_dirs), topics)
}

/// Import line-aligned files, one text per line (`aesop import lines SUMMARIES… --references
/// FILE…`; [`lines`]).
pub fn import_lines(files: &lines::LineFiles) -> Result<Vec<Topic>> {
    let topics = lines::import(files)?;
    checked(&listed(&files.summaries), topics)
}

// Files named on the command line (`import lines`, `import table`): `PATH`, named by its file
// name without the last extension (`bart.txt` is `bart`; `.gz` read through), or `NAME=PATH`.

/// A file with the name it gives its texts (a system, a reference or document id).
#[derive(Debug)]
struct Named {
    name: String,
    path: PathBuf,
}

/// `given` as `PATH` or `NAME=PATH` (`what`: the kind of text the file holds, for messages).
fn named(given: &Path, what: &str) -> Result<Named> {
    if !given.exists() {
        if let Some((name, path)) = split_arg(given.as_os_str(), b'=', false) {
            let name = name.to_string_lossy();
            let name = name.trim();
            // `dir/a=b` names a path holding `=`, not a name.
            if !name.is_empty() && !name.contains(std::path::MAIN_SEPARATOR) && !path.is_empty() {
                let path = PathBuf::from(path);
                if !path.exists() {
                    bail!(
                        "{}: no such file (the {what} {name:?}, given as NAME=PATH)",
                        path.display()
                    );
                }
                return Ok(Named {
                    name: name.to_string(),
                    path,
                });
            }
        }
        bail!("{}: no such file", given.display());
    }
    let name = plain_name(given)
        .file_stem()
        .map(|stem| stem.to_string_lossy().trim().to_string())
        .filter(|stem| !stem.is_empty());
    match name {
        Some(name) => Ok(Named {
            name,
            path: given.to_path_buf(),
        }),
        None => bail!(
            "{}: no file name to name the {what} by: give it as NAME=PATH",
            given.display()
        ),
    }
}

/// The files given for one kind of text, named, each name once.
fn named_all(given: &[PathBuf], what: &str, plural: &str) -> Result<Vec<Named>> {
    let mut files: Vec<Named> = Vec::with_capacity(given.len());
    for path in given {
        let file = named(path, what)?;
        if let Some(first) = files.iter().find(|f| f.name == file.name) {
            bail!(
                "two {plural} named {:?} ({} and {}): a {what} is named by its file's name without \
                 the extension; name each as NAME=PATH (e.g. {}-2={})",
                file.name,
                first.path.display(),
                file.path.display(),
                file.name,
                file.path.display()
            );
        }
        files.push(file);
    }
    Ok(files)
}

/// `paths` as a message names them, the source of an import that reads several.
fn listed(paths: &[std::path::PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

/// An import's topics, refused when there are none or one breaks a judgment-set rule (`source`
/// names what was imported, for the message).
fn checked(source: &str, topics: Vec<Topic>) -> Result<Vec<Topic>> {
    if topics.is_empty() {
        bail!("{source}: no topics (the input is empty or holds only blank lines)");
    }
    // An import must not write a set that its reader refuses (an empty topic or system id in the
    // source, a blank summary id, a topic id twice…): every topic passes the set reader's rules.
    // Each importer names the source lines of a repeated id itself; this is the last net.
    let mut seen = std::collections::HashMap::new();
    for (i, topic) in topics.iter().enumerate() {
        if let Some(first) = seen.insert(topic.topic.as_str(), i) {
            bail!(
                "{source}: topic id {:?} occurs twice (topics {} and {} of the import), so no set was written",
                topic.topic,
                first + 1,
                i + 1
            );
        }
        let value = serde_json::to_value(topic).context("encoding an imported topic")?;
        if let Err(e) = jsonl::topic_from_value(value) {
            bail!(
                "{source}: topic {} (id {:?}) breaks a judgment-set rule, so no set was written: {e}",
                i + 1,
                topic.topic
            );
        }
    }
    Ok(topics)
}

/// The files an import of `format` reads besides `path` itself (a ROUGE configuration's
/// summaries), so that its output never replaces one of them; an importer that reads only
/// under `path` has none.
pub fn files_read_besides(format: &str, path: &Path) -> Vec<std::path::PathBuf> {
    match format {
        "rouge" => rouge_config::files(path),
        _ => Vec::new(),
    }
}

fn import_format(format: &str, path: &Path) -> Result<Vec<Topic>> {
    match format {
        "summeval" => bartscore::import_summeval(path),
        "newsroom" => bartscore::import_newsroom(path),
        "realsumm" => realsumm::import(path),
        "summeval-op" => summeval_op::import(path),
        "dialsummeval" => dialsummeval::import(path),
        "tac" => nist::tac::import(path),
        "duc" => nist::duc::import(path),
        "rouge" => rouge_config::import(path),
        "lines" => bail!(
            "{}: the lines format reads several files (summaries, references, documents): \
             give them to `import_lines`",
            path.display()
        ),
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

    /// `value[key]` as a string or integer (ids are numbers in some sources), not blank: a
    /// judgment set needs every id.
    fn id(&self, value: &Value, field: &str, key: &str) -> Result<String> {
        let path = join(field, key);
        match value.get(key) {
            Some(Value::String(text)) if text.trim().is_empty() => Err(self.error(
                &path,
                "must not be empty (a judgment set needs an id for every topic and summary)",
            )),
            Some(Value::String(text)) => Ok(text.clone()),
            Some(Value::Number(number)) => Ok(number.to_string()),
            None | Some(Value::Null) => Err(self.error(&path, "missing required field")),
            Some(other) => Err(self.error(
                &path,
                format!("expected a string or number, found {}", kind(other)),
            )),
        }
    }

    /// A system id given as an object's key (`sys_summs.M0`), which must not be blank either.
    fn system_key(&self, field: &str, system: &str) -> Result<()> {
        if system.trim().is_empty() {
            return Err(self.error(
                &format!("{field}.{system}"),
                "a system named by a blank key (a judgment set needs an id for every summary)",
            ));
        }
        Ok(())
    }

    /// The scores a format maps to targets are required (null is allowed: a missing rating):
    /// a summary without one would be written without its target, unsaid.
    fn require_scores(
        &self,
        field: &str,
        scores: &serde_json::Map<String, Value>,
        expected: &[&str],
        format: &str,
    ) -> Result<()> {
        let Some(missing) = expected.iter().find(|name| !scores.contains_key(**name)) else {
            return Ok(());
        };
        let found: Vec<&str> = scores.keys().map(String::as_str).collect();
        Err(self.error(
            &format!("{field}.{missing}"),
            format!(
                "missing required field (a {format} file scores {}; found: {})",
                expected.join(", "),
                if found.is_empty() {
                    "none".to_string()
                } else {
                    found.join(", ")
                }
            ),
        ))
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
            // A bare `Infinity` (Python's json.dumps writes it) reaches here as a string.
            Value::String(text)
                if ["infinity", "-infinity", "inf", "-inf"]
                    .contains(&text.trim().to_ascii_lowercase().as_str()) =>
            {
                Err(self.error(field, "infinite score (a score must be a finite number)"))
            }
            other => Err(self.error(field, format!("expected a number, found {}", kind(other)))),
        }
    }
}

/// The blank documents and references an import leaves out. A judgment set may hold neither (a
/// blank source or reference would change every summary's content features, or set ROUGE to 0),
/// so they are dropped, as the NIST importers drop theirs, and said once with the first place:
/// the set reader's refusal named the written set's field (`documents[0].text`), not the source's.
#[derive(Default)]
struct BlankTexts {
    count: usize,
    first: Option<String>,
}

impl BlankTexts {
    /// Whether `text` (at `field` of `at`) is kept; a blank one is counted.
    fn keep(&mut self, at: &At, field: &str, text: &str) -> bool {
        if !text.trim().is_empty() {
            return true;
        }
        self.count += 1;
        self.first
            .get_or_insert_with(|| format!("{}:{}: {field}", at.file.display(), at.line));
        false
    }

    fn warn(&self) {
        if let Some(first) = &self.first {
            aesop_core::eprintln_quiet!(
                "warning: {first}: blank text left out ({} in all): a judgment set holds no blank document or reference; a topic without its source gets no content features, and a blank human summary stays a summary but is no reference",
                aesop_core::counted(
                    self.count,
                    "blank source or reference text",
                    "blank source or reference texts"
                )
            );
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

/// When the import of `path` as `format` failed: the format the file's first line looks like, if
/// it is another known one (so the error can say `import newsroom` was given a SummEval file).
fn foreign_format(format: &str, path: &Path) -> Option<&'static str> {
    if !path.is_file() {
        return None;
    }
    let bytes = read_bytes(path).ok()?;
    let line = bytes
        .split(|&b| b == b'\n')
        .map(|line| std::str::from_utf8(line).unwrap_or(""))
        .find(|line| !line.trim().is_empty())?;
    if rouge_config::opens_rouge_config(line) {
        return (format != "rouge")
            .then_some("ROUGE-1.5.5 evaluation configuration (import it with `rouge`)");
    }
    let value = jsonl::parse_json(line).ok()?;
    let has = |key: &str| value.get(key).is_some();
    let has_score = |name: &str| {
        value
            .get("sys_summs")
            .and_then(Value::as_object)
            .is_some_and(|systems| {
                systems
                    .values()
                    .any(|s| s.get("scores").and_then(|s| s.get(name)).is_some())
            })
    };
    let (name, found) = if has("topic") && (has("summaries") || has("documents")) {
        ("", "judgment set (no import needed)")
    } else if has("doc_id") && has("sys_summs") && has_score("informativeness") {
        ("newsroom", "newsroom file")
    } else if has("doc_id") && has("sys_summs") && (has("ref_summs") || has_score("consistency")) {
        ("summeval", "summeval file")
    } else if has("reviews") && has("summaries") {
        ("summeval-op", "summeval-op file")
    } else if has("model_id") && has("annotations") {
        ("dialsummeval", "dialsummeval file")
    } else if has("system_summaries") {
        (
            "realsumm",
            "REALSumm score file (import its directory with `realsumm`)",
        )
    } else {
        return None;
    };
    (name != format).then_some(found)
}

/// The bytes of `path` without a leading UTF-8 byte-order mark (Windows editors write one; the
/// judgment-set reader skips it too), decompressed when the name ends in `.gz`. Every importer
/// reads its files through this or [`read_text`] (`aesop_core::input::read_text`, which skips the mark
/// too).
fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let mut bytes = aesop_core::input::read_bytes(path)?;
    let bom = bytes.len() - aesop_core::input::without_bom_bytes(&bytes).len();
    bytes.drain(..bom);
    Ok(bytes)
}

/// Read a JSON Lines file: `(line number, value)` for every non-blank line.
fn read_json_lines(path: &Path) -> Result<Vec<(usize, Value)>> {
    let bytes = read_bytes(path)?;
    let mut rows = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = i + 1;
        let not_text = (number == 1)
            .then(|| aesop_core::input::not_text_advice(line))
            .flatten()
            .map(|advice| format!(" ({advice})"))
            .unwrap_or_default();
        let text = std::str::from_utf8(line).map_err(|e| {
            anyhow::anyhow!(
                "{}:{number}: invalid UTF-8 at byte {} of the line{not_text}",
                path.display(),
                e.valid_up_to() + 1
            )
        })?;
        if text.trim().is_empty() {
            continue;
        }
        let value = jsonl::parse_json(text).map_err(|message| {
            anyhow::anyhow!("{}:{number}: {message}{not_text}", path.display())
        })?;
        rows.push((number, value));
    }
    Ok(rows)
}

/// Add the mapped target `to` from the original score `from` when present.
fn map_score(scores: &mut std::collections::BTreeMap<String, f64>, from: &str, to: &str) {
    if let Some(&value) = scores.get(from) {
        scores.insert(to.to_string(), value);
    }
}
