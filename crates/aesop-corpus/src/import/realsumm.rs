//! REALSumm (Bhandari et al. 2020): a directory with `scores_abs.jsonl`, `scores_ext.jsonl`,
//! `src.txt` (line i = article of doc_id i) and optionally `doc_id_map.jsonl` (doc_id -> event_id).

use super::{map_score, read_json_lines, read_text, At, BlankTexts};
use crate::{Document, Reference, Summary, Topic};
use anyhow::{bail, Result};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The abstractive file's `bart_out.txt` repeats the extractive BART entry (same text and
/// score for every document, REALSumm issue #3), so it is dropped; the extractive one stays.
const DUPLICATED_ABSTRACTIVE_SYSTEM: &str = "bart_out.txt";

pub fn import(dir: &Path) -> Result<Vec<Topic>> {
    if !dir.is_dir() {
        bail!(
            "{}: realsumm expects the directory holding scores_abs.jsonl, scores_ext.jsonl and src.txt",
            dir.display()
        );
    }
    let event_ids = read_event_ids(&dir.join("doc_id_map.jsonl"))?;
    let source_path = dir.join("src.txt");
    let sources = read_sources(&source_path)?;
    let mut blank = BlankTexts::default();

    // doc_id -> topic, filled from both score files.
    let mut topics: BTreeMap<u64, Topic> = BTreeMap::new();
    for (file_name, drop) in [
        ("scores_abs.jsonl", Some(DUPLICATED_ABSTRACTIVE_SYSTEM)),
        ("scores_ext.jsonl", None),
    ] {
        let path = dir.join(file_name);
        let lines = read_json_lines(&path)?;
        if lines.is_empty() {
            // An empty score file took every system of its kind (13 abstractive or 11
            // extractive) out of the set, unsaid.
            bail!(
                "{}: no records: REALSumm's scores come in two files, scores_abs.jsonl (abstractive systems) and scores_ext.jsonl (extractive), and both are needed",
                path.display()
            );
        }
        for (line, value) in lines {
            let at = At { file: &path, line };
            let doc_id = value
                .get("doc_id")
                .and_then(Value::as_u64)
                .ok_or_else(|| at.error("doc_id", "expected a non-negative integer"))?;
            let topic = match topics.entry(doc_id) {
                std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
                std::collections::btree_map::Entry::Vacant(entry) => entry.insert(new_topic(
                    doc_id,
                    &value,
                    &at,
                    event_ids.as_ref(),
                    (&source_path, &sources),
                    &mut blank,
                )?),
            };
            for (system, entry) in at.object(&value, "", "system_summaries")? {
                if Some(system.as_str()) == drop {
                    continue;
                }
                let field = format!("system_summaries.{system}");
                let name = system.strip_suffix(".txt").unwrap_or(system);
                at.system_key("system_summaries", name)?;
                if topic.summaries.iter().any(|s| s.system == name) {
                    return Err(at.error(
                        &field,
                        format!("system {name:?} already seen for doc_id {doc_id}"),
                    ));
                }
                let text = strip_sentence_tags(&at.string(entry, &field, "system_summary")?);
                let mut summary = Summary::new(name, text);
                let scores = at.object(entry, &field, "scores")?;
                // The human judgment is required (null: a missing one), as the other
                // importers require their mapped scores.
                at.require_scores(
                    &format!("{field}.scores"),
                    scores,
                    &["litepyramid_recall"],
                    "realsumm",
                )?;
                for (metric, score) in scores {
                    if let Some(score) = at.score(score, &format!("{field}.scores.{metric}"))? {
                        // Only litepyramid_recall is a human judgment; the automatic metrics
                        // are kept under `auto_` so they can serve as baselines, never as targets by accident.
                        let key = if metric == "litepyramid_recall" {
                            metric.clone()
                        } else {
                            format!("auto_{metric}")
                        };
                        summary.scores.insert(key, score);
                    }
                }
                map_score(&mut summary.scores, "litepyramid_recall", "pyramid");
                topic.summaries.push(summary);
            }
        }
    }
    blank.warn();
    warn_uneven_systems(dir, &topics);
    Ok(topics.into_values().collect())
}

/// Warn when topics differ in how many systems they hold: a doc_id present in only one score
/// file gives a topic with 11 systems instead of 24, and systems are compared on unequal topics.
fn warn_uneven_systems(dir: &Path, topics: &BTreeMap<u64, Topic>) {
    let most = topics
        .values()
        .map(|t| t.summaries.len())
        .max()
        .unwrap_or(0);
    let short: Vec<&Topic> = topics
        .values()
        .filter(|t| t.summaries.len() < most)
        .collect();
    if let Some(first) = short.first() {
        aesop_core::eprintln_quiet!(
            "warning: {}: {} fewer systems than the {most} of the others (e.g. {}: {}); a doc_id missing from one of the score files does this",
            dir.display(),
            match short.len() {
                1 => "1 topic holds".to_string(),
                n => format!("{n} topics hold"),
            },
            first.topic,
            first.summaries.len()
        );
    }
}

fn new_topic(
    doc_id: u64,
    value: &Value,
    at: &At,
    event_ids: Option<&BTreeMap<u64, String>>,
    (source_path, sources): (&Path, &[String]),
    blank: &mut BlankTexts,
) -> Result<Topic> {
    // With a map every topic is named by its event id (a doc_id the map lacks would mix the
    // two schemes, and could take an event id's name); without one, by its doc_id.
    let id = match event_ids {
        Some(map) => map.get(&doc_id).cloned().ok_or_else(|| {
            at.error(
                "doc_id",
                format!(
                    "{doc_id} is not in doc_id_map.jsonl, which maps {} doc_ids",
                    map.len()
                ),
            )
        })?,
        None => doc_id.to_string(),
    };
    let mut topic = Topic::new(id.clone());
    topic
        .extra
        .insert("realsumm_doc_id".to_string(), Value::from(doc_id));
    let source = usize::try_from(doc_id)
        .ok()
        .and_then(|i| sources.get(i))
        .ok_or_else(|| {
            at.error(
                "doc_id",
                format!(
                    "{doc_id} has no article: src.txt has {} lines",
                    sources.len()
                ),
            )
        })?;
    // src.txt line doc_id + 1 holds the article.
    let source_at = At {
        file: source_path,
        line: usize::try_from(doc_id).map_or(usize::MAX, |i| i.saturating_add(1)),
    };
    if blank.keep(&source_at, "article", source) {
        topic.documents.push(Document::new(id, source.clone()));
    }
    let reference = strip_sentence_tags(&at.string(value, "", "ref_summ")?);
    if blank.keep(at, "ref_summ", &reference) {
        topic.references.push(Reference::new("ref0", reference));
    }
    Ok(topic)
}

/// doc_id -> event_id from `doc_id_map.jsonl`, `None` when the file is absent (ids are then
/// doc_ids). A doc_id given twice, or two doc_ids given one event id, is an error naming both
/// lines: either would merge or mislabel articles.
fn read_event_ids(path: &Path) -> Result<Option<BTreeMap<u64, String>>> {
    if !path.exists() {
        return Ok(None);
    }
    let mut map = BTreeMap::new();
    let mut doc_id_line = BTreeMap::new();
    let mut event_id_line: BTreeMap<String, usize> = BTreeMap::new();
    for (line, value) in read_json_lines(path)? {
        let at = At { file: path, line };
        let doc_id = value
            .get("doc_id")
            .and_then(Value::as_u64)
            .ok_or_else(|| at.error("doc_id", "expected a non-negative integer"))?;
        let event_id = at.string(&value, "", "event_id")?;
        if let Some(first) = doc_id_line.insert(doc_id, line) {
            return Err(at.error("doc_id", format!("{doc_id} already mapped at line {first}")));
        }
        if let Some(first) = event_id_line.insert(event_id.clone(), line) {
            return Err(at.error(
                "event_id",
                format!("{event_id:?} already given to another doc_id at line {first}"),
            ));
        }
        map.insert(doc_id, event_id);
    }
    Ok(Some(map))
}

fn read_sources(path: &Path) -> Result<Vec<String>> {
    Ok(read_text(path)?.lines().map(strip_sentence_tags).collect())
}

/// `<t> a . </t> <t> b . </t>` -> "a .\nb .": one sentence per line. Text without tags is trimmed.
pub(crate) fn strip_sentence_tags(text: &str) -> String {
    let mut sentences = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<t>") {
        rest = &rest[start + 3..];
        let end = rest.find("</t>").unwrap_or(rest.len());
        let sentence = rest[..end].trim();
        if !sentence.is_empty() {
            sentences.push(sentence);
        }
        rest = &rest[(end + 4).min(rest.len())..];
    }
    if sentences.is_empty() && !text.contains("<t>") {
        return text.replace("</t>", " ").trim().to_string();
    }
    sentences.join("\n")
}

#[cfg(test)]
mod tests {
    use super::strip_sentence_tags;

    #[test]
    fn strips_sentence_tags() {
        assert_eq!(
            strip_sentence_tags("<t> a b . </t>  <t> c . </t>"),
            "a b .\nc ."
        );
        assert_eq!(strip_sentence_tags("<t> unterminated"), "unterminated");
        assert_eq!(strip_sentence_tags("  plain text "), "plain text");
        assert_eq!(strip_sentence_tags("<t> </t>"), "");
    }
}
