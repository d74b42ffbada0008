//! SummEval and Newsroom as released in the BARTScore repository: one article per line,
//! `{"doc_id", "src", "ref_summ", ["ref_summs"], "sys_summs": {SYSTEM: {"sys_summ", "scores"}}}`.
//! The two share a layout, so each checks that every summary has the scores it maps (SummEval's
//! `consistency`, Newsroom's `informativeness`, …): a file of the other kind is refused at its
//! first summary instead of being imported without its targets.

use super::{map_score, read_json_lines, At, BlankTexts};
use crate::{Document, Reference, Summary, Topic};
use anyhow::Result;
use std::path::Path;

/// SummEval: 11 references per article (`ref_summs` order, ids `ref0`..`ref10`);
/// responsiveness <- relevance, readability <- coherence, faithfulness <- consistency.
pub fn import_summeval(path: &Path) -> Result<Vec<Topic>> {
    import(
        path,
        "summeval",
        &[
            ("relevance", "responsiveness"),
            ("coherence", "readability"),
            ("consistency", "faithfulness"),
        ],
    )
}

/// Newsroom: one reference per article (`ref0`);
/// responsiveness <- informativeness, readability <- coherence.
pub fn import_newsroom(path: &Path) -> Result<Vec<Topic>> {
    import(
        path,
        "newsroom",
        &[
            ("informativeness", "responsiveness"),
            ("coherence", "readability"),
        ],
    )
}

fn import(path: &Path, format: &str, mapping: &[(&str, &str)]) -> Result<Vec<Topic>> {
    let mut topics = Vec::new();
    // doc_id -> the line that gave it: one topic per line, so a repeated id names both lines.
    let mut first_line = std::collections::HashMap::new();
    let mut blank = BlankTexts::default();
    for (line, value) in read_json_lines(path)? {
        let at = At { file: path, line };
        let id = at.id(&value, "", "doc_id")?;
        if let Some(first) = first_line.insert(id.clone(), line) {
            return Err(at.error(
                "doc_id",
                format!("{id:?} already given at line {first} (one article per line)"),
            ));
        }
        let mut topic = Topic::new(id.clone());
        let source = at.string(&value, "", "src")?;
        if blank.keep(&at, "src", &source) {
            topic.documents.push(Document::new(id, source));
        }
        // `ref_summs` (SummEval) holds every reference with `ref_summ` first; Newsroom has only `ref_summ`.
        if value.get("ref_summs").is_some() {
            for (i, reference) in at.array(&value, "", "ref_summs")?.iter().enumerate() {
                let field = format!("ref_summs[{i}]");
                let text = reference
                    .as_str()
                    .ok_or_else(|| at.error(&field, "expected a string"))?;
                if blank.keep(&at, &field, text) {
                    topic
                        .references
                        .push(Reference::new(format!("ref{i}"), text));
                }
            }
        } else {
            let text = at.string(&value, "", "ref_summ")?;
            if blank.keep(&at, "ref_summ", &text) {
                topic.references.push(Reference::new("ref0", text));
            }
        }
        for (system, entry) in at.object(&value, "", "sys_summs")? {
            at.system_key("sys_summs", system)?;
            let field = format!("sys_summs.{system}");
            let mut summary = Summary::new(system.clone(), at.string(entry, &field, "sys_summ")?);
            let scores = at.object(entry, &field, "scores")?;
            for (name, score) in scores {
                if let Some(score) = at.score(score, &format!("{field}.scores.{name}"))? {
                    summary.scores.insert(name.clone(), score);
                }
            }
            let expected: Vec<&str> = mapping.iter().map(|(from, _)| *from).collect();
            at.require_scores(&format!("{field}.scores"), scores, &expected, format)?;
            for (from, to) in mapping {
                map_score(&mut summary.scores, from, to);
            }
            topic.summaries.push(summary);
        }
        topics.push(topic);
    }
    blank.warn();
    Ok(topics)
}
