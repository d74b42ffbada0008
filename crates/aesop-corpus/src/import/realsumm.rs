//! REALSumm (Bhandari et al. 2020): a directory with `scores_abs.jsonl`, `scores_ext.jsonl`,
//! `src.txt` (line i = article of doc_id i) and optionally `doc_id_map.jsonl` (doc_id -> event_id).

use super::{check_unique_topics, map_score, read_json_lines, read_text, At};
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
    let sources = read_sources(&dir.join("src.txt"))?;

    // doc_id -> topic, filled from both score files.
    let mut topics: BTreeMap<u64, Topic> = BTreeMap::new();
    for (file_name, drop) in [
        ("scores_abs.jsonl", Some(DUPLICATED_ABSTRACTIVE_SYSTEM)),
        ("scores_ext.jsonl", None),
    ] {
        let path = dir.join(file_name);
        for (line, value) in read_json_lines(&path)? {
            let at = At { file: &path, line };
            let doc_id = value
                .get("doc_id")
                .and_then(Value::as_u64)
                .ok_or_else(|| at.error("doc_id", "expected a non-negative integer"))?;
            let topic = match topics.entry(doc_id) {
                std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
                std::collections::btree_map::Entry::Vacant(entry) => {
                    entry.insert(new_topic(doc_id, &value, &at, &event_ids, &sources)?)
                }
            };
            for (system, entry) in at.object(&value, "", "system_summaries")? {
                if Some(system.as_str()) == drop {
                    continue;
                }
                let field = format!("system_summaries.{system}");
                let name = system.strip_suffix(".txt").unwrap_or(system);
                if topic.summaries.iter().any(|s| s.system == name) {
                    return Err(at.error(
                        &field,
                        format!("system {name:?} already seen for doc_id {doc_id}"),
                    ));
                }
                let text = strip_sentence_tags(&at.string(entry, &field, "system_summary")?);
                let mut summary = Summary::new(name, text);
                for (metric, score) in at.object(entry, &field, "scores")? {
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
    let topics: Vec<Topic> = topics.into_values().collect();
    check_unique_topics(&topics, dir)?;
    Ok(topics)
}

fn new_topic(
    doc_id: u64,
    value: &Value,
    at: &At,
    event_ids: &BTreeMap<u64, String>,
    sources: &[String],
) -> Result<Topic> {
    let id = event_ids
        .get(&doc_id)
        .cloned()
        .unwrap_or_else(|| doc_id.to_string());
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
    topic.documents.push(Document::new(id, source.clone()));
    topic.references.push(Reference::new(
        "ref0",
        strip_sentence_tags(&at.string(value, "", "ref_summ")?),
    ));
    Ok(topic)
}

/// doc_id -> event_id from `doc_id_map.jsonl`; empty when the file is absent (ids are then doc_ids).
fn read_event_ids(path: &Path) -> Result<BTreeMap<u64, String>> {
    let mut map = BTreeMap::new();
    if !path.exists() {
        return Ok(map);
    }
    for (line, value) in read_json_lines(path)? {
        let at = At { file: path, line };
        let doc_id = value
            .get("doc_id")
            .and_then(Value::as_u64)
            .ok_or_else(|| at.error("doc_id", "expected a non-negative integer"))?;
        map.insert(doc_id, at.string(&value, "", "event_id")?);
    }
    Ok(map)
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
