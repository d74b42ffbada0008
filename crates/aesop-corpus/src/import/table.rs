//! `aesop import table`: a judgment set from tables with one row per summary, its topic's
//! documents (and references) repeated on each row, as annotations and datasets are often kept:
//! CSV, TSV, or a spreadsheet's export split at semicolons with decimal commas
//! (`aesop_core::table` tells them apart as `aesop evaluate` does), or JSON rows (JSON Lines, a
//! JSON array of objects), as `datasets` and pandas write them. Every format is read into the same
//! rows of cells, so one gatherer applies the rules to all. Several tables make one set: model
//! outputs are often kept one table per system, without a system column, and such a table is
//! named by its file as `import lines` names its files. The Python package's
//! `aesop.topics_from_rows` makes the same topics from rows in memory.

use super::{named, read_text, Named};
use crate::jsonl;
use crate::{Document, Reference, Summary, Topic};
use aesop_core::table;
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Which columns hold what. A document or reference column's name is that text's id; a topic's
/// rows must agree on them.
#[derive(Debug, Clone)]
pub struct TableColumns {
    pub topic: String,
    pub system: String,
    pub summary: String,
    /// Each column one input document of the topic (an empty cell: none there).
    pub documents: Vec<String>,
    /// Each column one human reference summary of the topic (an empty cell: none there).
    pub references: Vec<String>,
    /// The human scores' columns; `None`: every column not named above.
    pub scores: Option<Vec<String>>,
    /// The column of annotator ids, where each annotator's rating of a summary is a row of its
    /// own: a summary's rows are one summary, each score the mean of its annotators'.
    pub annotator: Option<String>,
    /// Every row is one topic's: the summary column holds a list of its summaries, the system
    /// column (if any) a list of their systems, each score column a list of their scores. Found
    /// by itself where a system or score column holds a list; this says so for rows with neither.
    pub per_topic: bool,
}

impl Default for TableColumns {
    fn default() -> Self {
        TableColumns {
            topic: "topic".into(),
            system: "system".into(),
            summary: "summary".into(),
            documents: vec!["document".into()],
            references: Vec::new(),
            scores: None,
            annotator: None,
            per_topic: false,
        }
    }
}

impl TableColumns {
    /// The columns of texts and ids, each with the flag that names it (for messages).
    fn named(&self) -> Vec<(&str, &'static str)> {
        let mut named = vec![
            (self.topic.as_str(), "--topic-column"),
            (self.system.as_str(), "--system-column"),
            (self.summary.as_str(), "--summary-column"),
        ];
        named.extend(
            self.documents
                .iter()
                .map(|c| (c.as_str(), "--document-column")),
        );
        named.extend(
            self.references
                .iter()
                .map(|c| (c.as_str(), "--reference-column")),
        );
        named.extend(
            self.annotator
                .iter()
                .map(|c| (c.as_str(), "--annotator-column")),
        );
        named
    }
}

/// A cell of a row, as its table holds it.
#[derive(Clone)]
enum Cell {
    /// An absent field or JSON `null` (a CSV cell is never missing: an empty one is `Text("")`).
    Missing,
    Text(String),
    /// A JSON list of texts: several documents or references in one field, a summary's sentences,
    /// a topic's summaries (or their systems, or their scores written as text) in a row per topic.
    Texts(Vec<String>),
    /// A JSON list of numbers or nulls (texts among them too): in a row per topic, the scores (or
    /// system ids) of its summaries, each a `Number`, `Missing` or `Text` cell.
    Values(Vec<Cell>),
    /// A JSON number, with the text it was written as (an id keeps it: `7`, not `7.0`).
    Number(f64, String),
    /// Any other JSON value, by its kind (for messages).
    Other(&'static str),
}

impl Cell {
    fn of_json(value: Value) -> Cell {
        match value {
            Value::Null => Cell::Missing,
            Value::String(text) => Cell::Text(text),
            Value::Number(number) => {
                Cell::Number(number.as_f64().unwrap_or(f64::NAN), number.to_string())
            }
            Value::Array(items) if items.iter().all(Value::is_string) => Cell::Texts(
                items
                    .into_iter()
                    .filter_map(|item| item.as_str().map(str::to_string))
                    .collect(),
            ),
            Value::Array(items)
                if items
                    .iter()
                    .all(|item| item.is_number() || item.is_null() || item.is_string()) =>
            {
                Cell::Values(items.into_iter().map(Cell::of_json).collect())
            }
            Value::Array(_) => Cell::Other("a list holding other values than texts and numbers"),
            other => Cell::Other(jsonl::kind(&other)),
        }
    }

    /// What the cell holds, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Cell::Missing => "nothing (null or no such field)",
            Cell::Text(_) => "a text",
            Cell::Texts(_) => "a list of texts",
            Cell::Values(_) => "a list of numbers (or nulls)",
            Cell::Number(..) => "a number",
            Cell::Other(kind) => kind,
        }
    }
}

/// One row: its line in the file and its cells by column.
struct Row {
    line: u64,
    cells: HashMap<String, Cell>,
}

impl Row {
    fn cell(&self, column: &str) -> &Cell {
        self.cells.get(column).unwrap_or(&Cell::Missing)
    }
}

/// One table read: its columns (a CSV's header; the fields of its JSON rows, sorted) and rows.
struct Table {
    file: String,
    /// `Some(delimiter)` for a CSV or TSV (how its cells are split and its decimal commas read).
    delimiter: Option<u8>,
    columns: Vec<String>,
    rows: Vec<Row>,
}

impl Table {
    /// The columns, in words, for a message naming one that is not there.
    fn columns_listed(&self) -> String {
        match self.delimiter {
            Some(delimiter) => format!(
                "split at {}, the columns are: {}",
                table::delimiter_name(delimiter),
                self.columns.join(", ")
            ),
            None => format!("the rows' fields are: {}", self.columns.join(", ")),
        }
    }

    fn has(&self, column: &str) -> bool {
        self.columns.iter().any(|c| c == column)
    }

    /// The system and score columns that hold a list on some row: the table then holds one row
    /// per topic (a list of scores is one per summary, never a summary's).
    fn listed_columns<'c>(&self, columns: &'c TableColumns, scores: &'c [String]) -> Vec<&'c str> {
        std::iter::once(&columns.system)
            .chain(scores)
            .filter(|&column| {
                self.rows
                    .iter()
                    .any(|row| matches!(row.cell(column), Cell::Texts(_) | Cell::Values(_)))
            })
            .map(String::as_str)
            .collect()
    }
}

/// Whether the table at `path` holds JSON rows: its first character other than white space opens
/// an object (JSON Lines) or a list (a JSON array of rows), which starts no CSV header one meets.
fn holds_json(path: &Path) -> Result<Option<char>> {
    let mut lines = std::io::BufRead::lines(aesop_core::input::open_text(path)?);
    for line in lines.by_ref() {
        let Ok(line) = line else { break };
        let line = aesop_core::input::without_bom(&line)
            .trim_start()
            .to_string();
        if let Some(first) = line.chars().next() {
            return Ok(matches!(first, '{' | '[').then_some(first));
        }
    }
    Ok(None)
}

/// A CSV or TSV table (a spreadsheet's export split at semicolons too).
fn read_csv(path: &Path, columns: &TableColumns) -> Result<Table> {
    let file = path.display().to_string();
    let header = std::io::BufRead::lines(aesop_core::input::open_text(path)?)
        .map_while(std::result::Result::ok)
        .find(|line| !line.trim().is_empty())
        .map(|line| aesop_core::input::without_bom(&line).to_string())
        .with_context(|| format!("{file}: empty (a table's first line names its columns)"))?;
    // A table of one system's summaries may have no system column.
    let (topic, summary) = (columns.topic.as_str(), columns.summary.as_str());
    let delimiter = table::delimiter_of_header(&header, &[topic, columns.system.as_str(), summary])
        .or_else(|| table::delimiter_of_header(&header, &[topic, summary]))
        .unwrap_or(match aesop_core::input::format_extension(path).as_deref() {
            Some("tsv") => b'\t',
            _ => b',',
        });
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(aesop_core::input::open_text(path)?);
    let headers: Vec<String> = reader
        .headers()
        .with_context(|| format!("{file}:1: cannot read the header"))?
        .iter()
        .map(str::to_string)
        .collect();
    for (i, name) in headers.iter().enumerate() {
        if headers.iter().take(i).any(|h| h == name) {
            bail!("{file}:1: column '{name}' appears twice; keep one");
        }
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| row_error(&file, delimiter, e))?;
        let line = record.position().map_or(0, |p| p.line());
        let cells = headers
            .iter()
            .zip(record.iter())
            .map(|(name, cell)| (name.clone(), Cell::Text(cell.to_string())))
            .collect();
        rows.push(Row { line, cells });
    }
    Ok(Table {
        file,
        delimiter: Some(delimiter),
        columns: headers,
        rows,
    })
}

/// A table of JSON rows: JSON Lines (one object per line, as `datasets`' `to_json` and pandas'
/// `to_json(orient="records", lines=True)` write) or a JSON array of objects (pandas'
/// `orient="records"`, `json.dump` of a list of dicts).
fn read_json(path: &Path, opening: char) -> Result<Table> {
    let file = path.display().to_string();
    let values: Vec<(u64, Value)> = if opening == '[' {
        let text = read_text(path)?;
        let value = match jsonl::parse_lenient(&text) {
            Ok(value) => value,
            Err(jsonl::Unparsed::Json(e)) => bail!(
                "{file}:{}: malformed JSON at column {}: {}",
                e.line(),
                e.column(),
                e.to_string()
                    .rsplit_once(" at line ")
                    .map_or(e.to_string(), |(message, _)| message.to_string())
            ),
            Err(jsonl::Unparsed::Duplicate { message, .. }) => bail!("{file}: {message}"),
        };
        let Value::Array(items) = value else {
            bail!("{file}:1: a JSON array of rows was expected");
        };
        element_lines(&text).into_iter().zip(items).collect()
    } else {
        match super::read_json_lines(path) {
            Ok(rows) => rows.into_iter().map(|(line, v)| (line as u64, v)).collect(),
            // A pretty-printed object (pandas' `to_json()` of columns, a dict of lists) is one
            // JSON value over many lines: say what it is rather than where line 1 breaks off.
            Err(e) => match jsonl::parse_lenient(&read_text(path)?) {
                Ok(Value::Object(_)) => bail!(
                    "{file}: one JSON object, not rows: write the table as JSON Lines (one object \
                     per row; pandas: to_json(path, orient=\"records\", lines=True)) or as a JSON \
                     array of rows (orient=\"records\")"
                ),
                _ => return Err(e),
            },
        }
    };
    if values.is_empty() {
        bail!("{file}: no rows (an empty JSON array)");
    }
    let mut columns = std::collections::BTreeSet::new();
    let mut rows = Vec::with_capacity(values.len());
    for (line, value) in values {
        let Value::Object(fields) = value else {
            bail!(
                "{file}:{line}: expected an object (a row, its fields the columns), found {}",
                jsonl::kind(&value)
            );
        };
        columns.extend(fields.keys().cloned());
        let cells = fields
            .into_iter()
            .map(|(key, value)| (key, Cell::of_json(value)))
            .collect();
        rows.push(Row { line, cells });
    }
    Ok(Table {
        file,
        delimiter: None,
        columns: columns.into_iter().collect(),
        rows,
    })
}

/// The line on which each element of the JSON array `text` starts (`text` parsed already, so
/// valid JSON; bare `NaN` and `Infinity` are single elements too).
fn element_lines(text: &str) -> Vec<u64> {
    let (mut lines, mut line, mut depth) = (Vec::new(), 1u64, 0usize);
    let (mut in_string, mut escaped, mut expecting) = (false, false, false);
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if depth == 1 && expecting && !c.is_whitespace() && c != ']' {
            lines.push(line);
            expecting = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                expecting = depth == 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expecting = true,
            _ => {}
        }
    }
    lines
}

/// A table of one row per topic spread into rows of one summary each: the summary column's list
/// gives the summaries, the system column's list their systems (without one, systems are named
/// by their position, `PREFIX.1`, `PREFIX.2`, …), each score column's list their scores; the
/// topic's ids and texts are repeated on each row, as a table of summaries holds them. Rows
/// whose list of summaries is empty add nothing; their count is returned.
fn spread_topic_rows(
    table: Table,
    columns: &TableColumns,
    scores: &[String],
    positions: Option<&str>,
    found_by: &str,
) -> Result<(Table, usize)> {
    let file = table.file.clone();
    let summary_column = &columns.summary;
    let kept: Vec<&String> = std::iter::once(&columns.topic)
        .chain(&columns.documents)
        .chain(&columns.references)
        .chain(&columns.annotator)
        .collect();
    let mut rows = Vec::new();
    let mut empty = 0;
    for row in table.rows {
        let line = row.line;
        let summaries = match row.cell(summary_column) {
            Cell::Texts(list) => list.clone(),
            other => bail!(
                "{file}:{line}: {summary_column}: expected a list of the topic's summaries, found \
                 {} ({found_by}, so every row is one topic's and its summary column a list)",
                other.kind()
            ),
        };
        if summaries.is_empty() {
            empty += 1;
            continue;
        }
        let n = summaries.len();
        // Each list beside the summaries: one cell per summary, or a message saying what it held.
        let per_summary = |column: &str, what: &str| -> Result<Option<Vec<Cell>>> {
            let cells = match row.cell(column) {
                Cell::Missing => return Ok(None),
                Cell::Texts(list) => list.iter().cloned().map(Cell::Text).collect(),
                Cell::Values(list) => list.clone(),
                other => bail!(
                    "{file}:{line}: {column}: expected a list of {n} {what}, one per summary in \
                     '{summary_column}', found {}",
                    other.kind()
                ),
            };
            let cells: Vec<Cell> = cells;
            if cells.len() != n {
                bail!(
                    "{file}:{line}: {column}: {} {what} for the {n} summaries in \
                     '{summary_column}' (one per summary, in the same order)",
                    cells.len()
                );
            }
            Ok(Some(cells))
        };
        let systems: Vec<Cell> = match positions {
            Some(prefix) => (1..=n)
                .map(|i| Cell::Text(format!("{prefix}.{i}")))
                .collect(),
            None => per_summary(&columns.system, "system ids")?.with_context(|| {
                format!(
                    "{file}:{line}: {}: missing (every row needs the systems of its summaries)",
                    columns.system
                )
            })?,
        };
        let mut score_lists = Vec::with_capacity(scores.len());
        for column in scores {
            score_lists.push((column, per_summary(column, "scores")?));
        }
        for (i, (text, system)) in summaries.into_iter().zip(systems).enumerate() {
            let mut cells: HashMap<String, Cell> = kept
                .iter()
                .map(|&column| (column.clone(), row.cell(column).clone()))
                .collect();
            cells.insert(summary_column.clone(), Cell::Text(text));
            cells.insert(columns.system.clone(), system);
            for (column, list) in &score_lists {
                if let Some(list) = list {
                    cells.insert((*column).clone(), list[i].clone());
                }
            }
            rows.push(Row { line, cells });
        }
    }
    let mut spread_columns = table.columns;
    if !spread_columns.contains(&columns.system) {
        spread_columns.push(columns.system.clone());
    }
    Ok((
        Table {
            file,
            delimiter: table.delimiter,
            columns: spread_columns,
            rows,
        },
        empty,
    ))
}

/// Where a row is, as a message on a row of `here` names it: `line 2` in the same table,
/// `other.csv:2` in another.
fn place(tables: &[Table], (table, line): (usize, u64), here: usize) -> String {
    if table == here {
        format!("line {line}")
    } else {
        format!("{}:{line}", tables[table].file)
    }
}

/// One topic being gathered: where its first row is, and each system's summary.
struct Gathered {
    first: (usize, u64),
    systems: HashMap<String, Rated>,
    topic: Topic,
}

/// One summary being gathered: where its first row is, its place among the topic's summaries,
/// and, with an annotator column, each annotator's row and the sums and counts of their scores.
struct Rated {
    first: (usize, u64),
    at: usize,
    annotators: HashMap<String, (usize, u64)>,
    sums: BTreeMap<String, (f64, u32)>,
}

/// The topics of the tables at `paths` (each `PATH` or `NAME=PATH`), in the order they first
/// appear. A table without the system column holds one system's summaries, named by the file
/// (or `NAME`).
pub fn import(paths: &[PathBuf], columns: &TableColumns) -> Result<Vec<Topic>> {
    let mut tables = Vec::with_capacity(paths.len());
    let mut systems = Vec::with_capacity(paths.len());
    for given in paths {
        let file = named(given, "system")?;
        let table = match holds_json(&file.path)? {
            Some(opening) => read_json(&file.path, opening)?,
            None => read_csv(&file.path, columns)?,
        };
        check_columns(&table, columns)?;
        let given_name = file.path.as_path() != given.as_path();
        let scores = score_columns(&table, columns);
        let listed = table.listed_columns(columns, &scores);
        let per_topic = columns.per_topic || !listed.is_empty();
        let table = if per_topic {
            if given_name && table.has(&columns.system) {
                bail!(
                    "{}: named as NAME=PATH, but the table has a system column ('{}'): NAME \
                     names the systems of a table without one",
                    table.file,
                    columns.system
                );
            }
            // Without a system column, a summary's system is its position in the list.
            let prefix = if given_name {
                &file.name
            } else {
                &columns.summary
            };
            let positions = (!table.has(&columns.system)).then_some(prefix);
            let lists: Vec<String> = listed.iter().map(|column| format!("'{column}'")).collect();
            let found_by = match (columns.per_topic, lists.as_slice()) {
                (false, [list]) => format!("{list} holds a list"),
                (false, [lists @ .., last]) if !lists.is_empty() => {
                    format!("{} and {last} hold lists", lists.join(", "))
                }
                _ => "--per-topic is given".to_string(),
            };
            let topics = table.rows.len();
            let (spread, empty) = spread_topic_rows(
                table,
                columns,
                &scores,
                positions.map(String::as_str),
                &found_by,
            )?;
            aesop_core::eprintln_quiet!(
                "note: {}: one row per topic ({found_by}): {topics} {} spread into {} {} of \
                 '{}'{}{}",
                spread.file,
                if topics == 1 { "row" } else { "rows" },
                spread.rows.len(),
                if spread.rows.len() == 1 {
                    "summary"
                } else {
                    "summaries"
                },
                columns.summary,
                match positions {
                    Some(prefix) => format!(
                        ", their systems named by their position in the list ({prefix}.1, \
                         {prefix}.2, …: system-level figures take position N to be one system \
                         on every topic; give a list of system ids with --system-column \
                         otherwise)"
                    ),
                    None => format!(", their systems in '{}'", columns.system),
                },
                match empty {
                    0 => String::new(),
                    1 => "; 1 row with an empty list of summaries adds none".to_string(),
                    n => format!("; {n} rows with an empty list of summaries add none"),
                }
            );
            spread
        } else {
            table
        };
        let system = if table.has(&columns.system) {
            // (A table of topic rows named NAME=PATH has its systems named by NAME already.)
            if given_name && !per_topic {
                bail!(
                    "{}: named as NAME=PATH, but the table has a system column ('{}'): NAME \
                     names the system of a table without one",
                    table.file,
                    columns.system
                );
            }
            None
        } else {
            Some(file)
        };
        tables.push(table);
        systems.push(system);
    }
    let one_system: Vec<&Named> = systems.iter().flatten().collect();
    for (i, file) in one_system.iter().enumerate() {
        if let Some(first) = one_system[..i].iter().find(|f| f.name == file.name) {
            bail!(
                "two tables of system {:?} ({} and {}, neither with a column '{}'): such a table \
                 is named by its file's name without the extension; name each as NAME=PATH (e.g. \
                 {}-2={})",
                file.name,
                first.path.display(),
                file.path.display(),
                columns.system,
                file.name,
                file.path.display()
            );
        }
    }
    if !one_system.is_empty() {
        let (files, names): (Vec<String>, Vec<String>) = tables
            .iter()
            .zip(&systems)
            .filter_map(|(table, system)| {
                Some((table.file.clone(), format!("{:?}", system.as_ref()?.name)))
            })
            .unzip();
        let (has, each) = match files.len() {
            1 => ("has", "its rows are one system's summaries, named"),
            _ => (
                "have",
                "each table's rows are one system's summaries, named",
            ),
        };
        // A list in the summary column is then one summary's sentences; it may have been meant
        // as a topic's summaries.
        let lists = tables.iter().zip(&systems).any(|(table, system)| {
            system.is_some()
                && table
                    .rows
                    .iter()
                    .any(|row| matches!(row.cell(&columns.summary), Cell::Texts(_)))
        });
        aesop_core::eprintln_quiet!(
            "note: {} {has} no column '{}' (--system-column): {each} {} by the file (NAME=PATH \
             names a table's system otherwise){}",
            files.join(", "),
            columns.system,
            names.join(", "),
            if lists {
                format!(
                    "; a list in '{}' is read as one summary's sentences (--per-topic reads it as \
                     a topic's summaries, one per system)",
                    columns.summary
                )
            } else {
                String::new()
            }
        );
    }
    let mut order: Vec<Gathered> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (t, table) in tables.iter().enumerate() {
        let file = &table.file;
        let scores = score_columns(table, columns);
        let system_of_file = systems[t].as_ref().map(|named| named.name.clone());
        for row in &table.rows {
            let line = row.line;
            let id = |name: &str| -> Result<String> {
                let missing = |what: &str| {
                    let needs = if Some(name) == columns.annotator.as_deref() {
                        "every row needs its annotator's id (--annotator-column)"
                    } else {
                        "every row needs a topic id and a system id"
                    };
                    anyhow::anyhow!("{file}:{line}: {name}: {what} ({needs})")
                };
                match row.cell(name) {
                    Cell::Text(text) if text.trim().is_empty() => Err(missing("empty")),
                    Cell::Text(text) => Ok(text.clone()),
                    Cell::Number(_, written) => Ok(written.clone()),
                    Cell::Missing => Err(missing("missing")),
                    other => Err(missing(&format!(
                        "expected an id (a text or a number), found {}",
                        other.kind()
                    ))),
                }
            };
            let topic_id = id(&columns.topic)?;
            let system = match &system_of_file {
                Some(system) => system.clone(),
                None => id(&columns.system)?,
            };
            let documents = texts(row, &columns.documents, file)?;
            let references: Vec<Reference> = texts(row, &columns.references, file)?
                .into_iter()
                .map(|d| Reference {
                    id: d.id,
                    text: d.text,
                    extra: d.extra,
                })
                .collect();
            let human = human_scores(row, &scores, table, columns.scores.is_none())?;
            let annotator = columns.annotator.as_deref().map(id).transpose()?;
            let text = match row.cell(&columns.summary) {
                Cell::Text(text) => text.clone(),
                // A summary kept as its sentences: one per line, as a set keeps sentences.
                Cell::Texts(sentences) => sentences
                    .iter()
                    .map(|s| s.trim())
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => bail!(
                    "{file}:{line}: {}: expected the summary's text, found {}",
                    columns.summary,
                    other.kind()
                ),
            };
            let at = match by_id.get(&topic_id) {
                Some(&at) => at,
                None => {
                    if documents.is_empty() {
                        bail!(
                            "{file}:{line}: {}: empty (a topic needs its input documents)",
                            columns.documents.join(", ")
                        );
                    }
                    by_id.insert(topic_id.clone(), order.len());
                    order.push(Gathered {
                        first: (t, line),
                        topic: Topic {
                            topic: topic_id.clone(),
                            query: None,
                            documents: documents.clone(),
                            references: references.clone(),
                            summaries: Vec::new(),
                            extra: Default::default(),
                        },
                        systems: HashMap::new(),
                    });
                    order.len() - 1
                }
            };
            let gathered = &mut order[at];
            let differing = if documents != gathered.topic.documents {
                Some("documents")
            } else if references != gathered.topic.references {
                Some("references")
            } else {
                None
            };
            if let Some(what) = differing {
                bail!(
                    "{file}:{line}: the {what} differ from {}'s, of the same topic {topic_id:?} \
                     (every row of a topic gives the same {what})",
                    place(&tables, gathered.first, t)
                );
            }
            if let Some(rated) = gathered.systems.get_mut(&system) {
                let Some(annotator) = annotator else {
                    bail!(
                        "{file}:{line}: topic {topic_id:?}, system {system:?} again (first at {}): \
                         one row per summary{}",
                        place(&tables, rated.first, t),
                        if system_of_file.is_some() {
                            format!(
                                " ({file} has no column '{}', so all its rows are system \
                                 {system:?}: name the column of system ids with --system-column)",
                                columns.system
                            )
                        } else {
                            " (a row per annotator's rating? name the column of annotator ids \
                             with --annotator-column: their scores are averaged)"
                                .to_string()
                        }
                    );
                };
                if let Some(first) = rated.annotators.insert(annotator.clone(), (t, line)) {
                    bail!(
                        "{file}:{line}: topic {topic_id:?}, system {system:?}, annotator \
                         {annotator:?} again (first at {}): one row per annotator's rating",
                        place(&tables, first, t)
                    );
                }
                if gathered.topic.summaries[rated.at].text != text {
                    bail!(
                        "{file}:{line}: {}: the summary differs from {}'s, of the same topic \
                         {topic_id:?} and system {system:?} (every annotator's row gives the \
                         same summary)",
                        columns.summary,
                        place(&tables, rated.first, t)
                    );
                }
                for (name, score) in human {
                    let (sum, count) = rated.sums.entry(name).or_insert((0.0, 0));
                    *sum += score;
                    *count += 1;
                }
                continue;
            }
            gathered.systems.insert(
                system.clone(),
                Rated {
                    first: (t, line),
                    at: gathered.topic.summaries.len(),
                    annotators: annotator.into_iter().map(|a| (a, (t, line))).collect(),
                    sums: human.iter().map(|(k, &v)| (k.clone(), (v, 1))).collect(),
                },
            );
            gathered.topic.summaries.push(Summary {
                system,
                text,
                scores: human,
                human: false,
                extra: Default::default(),
            });
        }
    }
    if columns.annotator.is_some() {
        average_ratings(&mut order);
    }
    Ok(order.into_iter().map(|g| g.topic).collect())
}

/// Each summary's scores as the mean of its annotators' (each score over the annotators who
/// gave it), with a note of how many rows were averaged.
fn average_ratings(order: &mut [Gathered]) {
    let (mut rows, mut summaries, mut fewest, mut most) = (0, 0, usize::MAX, 0);
    for gathered in order.iter_mut() {
        for rated in gathered.systems.values() {
            let summary = &mut gathered.topic.summaries[rated.at];
            summary.scores = rated
                .sums
                .iter()
                .map(|(name, &(sum, count))| (name.clone(), sum / f64::from(count)))
                .collect();
            let n = rated.annotators.len();
            (rows, summaries) = (rows + n, summaries + 1);
            (fewest, most) = (fewest.min(n), most.max(n));
        }
    }
    if summaries > 0 {
        aesop_core::eprintln_quiet!(
            "note: {rows} rows of annotators' ratings averaged into {summaries} summaries' scores \
             ({} per summary; each score the mean of the annotators who gave it)",
            if fewest == most {
                format!("{most} rows")
            } else {
                format!("{fewest} to {most} rows")
            }
        );
    }
}

/// Every file the import reads (those that exist; `NAME=PATH` read as its path): its output
/// never replaces one of them.
pub fn files(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .filter_map(|given| named(given, "system").ok().map(|file| file.path))
        .collect()
}

/// Every named column must be in the table (the system column may be missing: the table is then
/// one system's), and each score column named with `--score-column`.
fn check_columns(table: &Table, columns: &TableColumns) -> Result<()> {
    let file = &table.file;
    for (name, flag) in columns.named() {
        if flag != "--system-column" && !table.has(name) {
            bail!(
                "{file}:1: no column '{name}' ({}); name the column that holds it with {flag}",
                table.columns_listed()
            );
        }
    }
    for name in columns.scores.iter().flatten() {
        if !table.has(name) {
            bail!(
                "{file}:1: no score column '{name}' ({})",
                table.columns_listed()
            );
        }
    }
    Ok(())
}

/// The human scores' columns of `table`: those named, or every column not named as a text or id.
fn score_columns(table: &Table, columns: &TableColumns) -> Vec<String> {
    match &columns.scores {
        Some(scores) => scores.clone(),
        None => {
            let named: Vec<&str> = columns.named().into_iter().map(|(name, _)| name).collect();
            table
                .columns
                .iter()
                .filter(|c| !named.contains(&c.as_str()))
                .cloned()
                .collect()
        }
    }
}

/// A row's texts in the set's form: each non-empty text of the columns `names`, named by its
/// column (`name.1`, `name.2`, … for the texts of a list).
fn texts(row: &Row, names: &[String], file: &str) -> Result<Vec<Document>> {
    let mut texts = Vec::new();
    let document = |id: String, text: &str| Document {
        id,
        text: text.to_string(),
        extra: Default::default(),
    };
    for name in names {
        match row.cell(name) {
            Cell::Missing => {}
            Cell::Text(text) => {
                if !text.trim().is_empty() {
                    texts.push(document(name.clone(), text));
                }
            }
            Cell::Texts(list) => texts.extend(
                list.iter()
                    .enumerate()
                    .filter(|(_, text)| !text.trim().is_empty())
                    .map(|(i, text)| document(format!("{name}.{}", i + 1), text)),
            ),
            other => bail!(
                "{file}:{}: {name}: expected a text or a list of texts, found {}",
                row.line,
                other.kind()
            ),
        }
    }
    Ok(texts)
}

/// A row's human scores: each score column's number (an empty cell, `null` or NaN: missing).
fn human_scores(
    row: &Row,
    scores: &[String],
    table: &Table,
    every_other_column: bool,
) -> Result<BTreeMap<String, f64>> {
    let (file, line) = (&table.file, row.line);
    // JSON rows' numbers written as text (`"4.5"`) are read as a CSV split at commas reads them.
    let delimiter = table.delimiter.unwrap_or(b',');
    let hint = if every_other_column {
        " (every column not named as a text or id is read as a human score: choose the score \
         columns with --score-column)"
    } else {
        ""
    };
    let mut human = BTreeMap::new();
    for name in scores {
        let score = match row.cell(name) {
            Cell::Missing => continue,
            Cell::Number(value, _) => *value,
            Cell::Text(text) => {
                let value = text.trim();
                if value.is_empty() {
                    continue;
                }
                table::parse_cell(value, delimiter).with_context(|| {
                    format!(
                        "{file}:{line}: {name}: expected a number, found {value:?}{}{hint}",
                        match table.delimiter {
                            Some(delimiter) => table::not_a_number_hint(value, delimiter),
                            None => "",
                        },
                    )
                })?
            }
            other => bail!(
                "{file}:{line}: {name}: expected a number, found {}{hint}",
                other.kind()
            ),
        };
        if score.is_infinite() {
            bail!("{file}:{line}: {name}: infinite score (leave the cell empty for a missing one)");
        }
        if !score.is_nan() {
            human.insert(name.clone(), score);
        }
    }
    Ok(human)
}

/// A row the csv reader refused, named by its line: one of another field count than the header
/// (a quote left open, or the delimiter inside an unquoted text), or not UTF-8. Shared with
/// `aesop evaluate`'s reader of tables.
pub fn row_error(file: &str, delimiter: u8, error: csv::Error) -> anyhow::Error {
    match error.kind() {
        csv::ErrorKind::UnequalLengths {
            pos: Some(pos),
            expected_len,
            len,
        } => anyhow::anyhow!(
            "{file}:{}: {len} fields where the header has {expected_len} (split at {}): a quote \
             left open, or the delimiter inside an unquoted text (quote that text)",
            pos.line(),
            table::delimiter_name(delimiter)
        ),
        _ => match error.position() {
            Some(pos) => anyhow::anyhow!("{file}:{}: {error}", pos.line()),
            None => anyhow::anyhow!("{file}: {error}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_lines_find_where_each_row_of_an_array_opens() {
        let text = "[\n  {\"a\": \"[{,\\\"\"},\n  {\"b\": [1,\n 2]}, NaN,\n\n{}\n]";
        assert_eq!(element_lines(text), [2, 3, 4, 6]);
        assert_eq!(element_lines("[]"), Vec::<u64>::new());
        assert_eq!(element_lines("[{}, {}]"), [1, 1]);
    }

    #[test]
    fn json_cells_keep_what_a_field_holds() {
        let cell = |json: &str| Cell::of_json(serde_json::from_str(json).expect("json"));
        assert!(matches!(cell("null"), Cell::Missing));
        assert!(matches!(cell("7"), Cell::Number(v, w) if v == 7.0 && w == "7"));
        assert!(matches!(cell("[\"a\", \"b\"]"), Cell::Texts(t) if t == ["a", "b"]));
        assert!(matches!(
            cell("[\"a\", 1, null]"),
            Cell::Values(v) if matches!(v.as_slice(), [Cell::Text(_), Cell::Number(..), Cell::Missing])
        ));
        assert_eq!(
            cell("[1, [2]]").kind(),
            "a list holding other values than texts and numbers"
        );
        assert_eq!(cell("true").kind(), "a boolean");
    }
}
