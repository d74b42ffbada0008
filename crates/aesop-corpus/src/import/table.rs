//! `aesop import table`: a judgment set from a table with one row per summary, its topic's
//! documents (and references) repeated on each row, as annotations and datasets are often kept:
//! CSV, TSV, or a spreadsheet's export split at semicolons with decimal commas
//! (`aesop_core::table` tells them apart as `aesop evaluate` does). The Python package's
//! `aesop.topics_from_rows` makes the same topics from rows in memory.

use crate::{Document, Reference, Summary, Topic};
use aesop_core::table;
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

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
        named
    }
}

/// One topic being gathered: its first row's line and the lines of its systems.
struct Gathered {
    line: u64,
    systems: HashMap<String, u64>,
    topic: Topic,
}

/// The topics of the table at `path`, in the order they first appear.
pub fn import(path: &Path, columns: &TableColumns) -> Result<Vec<Topic>> {
    let file = path.display();
    let header = std::io::BufRead::lines(aesop_core::input::open_text(path)?)
        .map_while(std::result::Result::ok)
        .find(|line| !line.trim().is_empty())
        .map(|line| aesop_core::input::without_bom(&line).to_string())
        .with_context(|| format!("{file}: empty (a table's first line names its columns)"))?;
    let wanted = [
        columns.topic.as_str(),
        columns.system.as_str(),
        columns.summary.as_str(),
    ];
    let delimiter = table::delimiter_of_header(&header, &wanted).unwrap_or(
        match aesop_core::input::format_extension(path).as_deref() {
            Some("tsv") => b'\t',
            _ => b',',
        },
    );
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(aesop_core::input::open_text(path)?);
    let headers = reader
        .headers()
        .with_context(|| format!("{file}:1: cannot read the header"))?
        .clone();
    let find = |name: &str| headers.iter().position(|h| h == name);
    for (name, flag) in columns.named() {
        if find(name).is_none() {
            bail!(
                "{file}:1: no column '{name}' (split at {}, the columns are: {}); name the \
                 column that holds it with {flag}",
                table::delimiter_name(delimiter),
                headers.iter().collect::<Vec<_>>().join(", ")
            );
        }
    }
    let named: Vec<&str> = columns.named().into_iter().map(|(name, _)| name).collect();
    for (i, name) in headers.iter().enumerate() {
        if headers.iter().take(i).any(|h| h == name) {
            bail!("{file}:1: column '{name}' appears twice; keep one");
        }
    }
    let scores: Vec<String> = match &columns.scores {
        Some(scores) => {
            for name in scores {
                if find(name).is_none() {
                    bail!(
                        "{file}:1: no score column '{name}' (columns: {})",
                        headers.iter().collect::<Vec<_>>().join(", ")
                    );
                }
            }
            scores.clone()
        }
        None => headers
            .iter()
            .filter(|h| !named.contains(h))
            .map(str::to_string)
            .collect(),
    };
    let index = |name: &str| find(name).unwrap_or(0);
    let mut order: Vec<Gathered> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| row_error(&file.to_string(), delimiter, e))?;
        let line = record.position().map_or(0, |p| p.line());
        let cell = |name: &str| record.get(index(name)).unwrap_or("");
        let id = |name: &str| -> Result<String> {
            let value = cell(name);
            if value.trim().is_empty() {
                bail!("{file}:{line}: {name}: empty (every row needs a topic id and a system id)");
            }
            Ok(value.to_string())
        };
        let (topic_id, system) = (id(&columns.topic)?, id(&columns.system)?);
        // The row's texts in the set's form: each non-empty cell, named by its column.
        let texts = |names: &[String]| -> Vec<Document> {
            names
                .iter()
                .filter(|name| !cell(name).trim().is_empty())
                .map(|name| Document {
                    id: name.clone(),
                    text: cell(name).to_string(),
                    extra: Default::default(),
                })
                .collect()
        };
        let documents = texts(&columns.documents);
        let references: Vec<Reference> = texts(&columns.references)
            .into_iter()
            .map(|d| Reference {
                id: d.id,
                text: d.text,
                extra: d.extra,
            })
            .collect();
        let mut human = BTreeMap::new();
        for name in &scores {
            let value = cell(name).trim();
            if value.is_empty() {
                continue;
            }
            let score = table::parse_cell(value, delimiter).with_context(|| {
                format!(
                    "{file}:{line}: {name}: expected a number, found {value:?}{}{}",
                    table::not_a_number_hint(value, delimiter),
                    if columns.scores.is_none() {
                        " (every column not named as a text or id is read as a human score: \
                         choose the score columns with --score-column)"
                    } else {
                        ""
                    }
                )
            })?;
            if score.is_infinite() {
                bail!("{file}:{line}: {name}: infinite score (leave the cell empty for a missing one)");
            }
            if !score.is_nan() {
                human.insert(name.clone(), score);
            }
        }
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
                    line,
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
                "{file}:{line}: the {what} differ from line {}'s, of the same topic {topic_id:?} \
                 (every row of a topic gives the same {what})",
                gathered.line
            );
        }
        if let Some(first) = gathered.systems.insert(system.clone(), line) {
            bail!(
                "{file}:{line}: topic {topic_id:?}, system {system:?} again (first at line \
                 {first}): one row per summary"
            );
        }
        gathered.topic.summaries.push(Summary {
            system,
            text: cell(&columns.summary).to_string(),
            scores: human,
            human: false,
            extra: Default::default(),
        });
    }
    Ok(order.into_iter().map(|g| g.topic).collect())
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
