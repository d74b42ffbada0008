//! SummEval-OP (Siledar et al. 2024): `summeval-op.jsonl`, one product per line with 8 reviews
//! (the documents) and 13 rated summaries, `human-summaries` among them.

use super::{map_score, read_json_lines, At, BlankTexts};
use crate::{Document, Summary, Topic};
use anyhow::Result;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The rated human-written summary; it is kept as a system with `human: true` and, by choice,
/// not as a reference (see docs/JUDGMENT_SETS.md).
const HUMAN_SYSTEM: &str = "human-summaries";

/// The dimensions mapped to targets (docs/JUDGMENT_SETS.md); each summary must rate them.
const MAPPED: [(&str, &str); 3] = [
    ("Relevance", "responsiveness"),
    ("Coherence", "readability"),
    ("Faithfulness", "faithfulness"),
];

pub fn import(path: &Path) -> Result<Vec<Topic>> {
    let path: PathBuf = if path.is_dir() {
        path.join("summeval-op.jsonl")
    } else {
        path.to_path_buf()
    };
    let mut topics = Vec::new();
    let mut first_line = std::collections::HashMap::new();
    let mut blank = BlankTexts::default();
    for (index, (line, value)) in read_json_lines(&path)?.into_iter().enumerate() {
        let at = At { file: &path, line };
        // The file has no product id: topics are numbered in file order.
        let mut topic = Topic::new(format!("op{:02}", index + 1));
        match value.get("reviews") {
            Some(Value::Object(reviews)) => {
                for (id, text) in reviews {
                    let field = format!("reviews.{id}");
                    let text = text
                        .as_str()
                        .ok_or_else(|| at.error(&field, "expected a string"))?;
                    if blank.keep(&at, &field, text) {
                        topic.documents.push(Document::new(id.clone(), text));
                    }
                }
                // serde_json sorts keys, which would put rev10 before rev2; order by number.
                topic.documents.sort_by_key(|d| review_number(&d.id));
            }
            Some(Value::Array(reviews)) => {
                for (i, text) in reviews.iter().enumerate() {
                    let field = format!("reviews[{i}]");
                    let text = text
                        .as_str()
                        .ok_or_else(|| at.error(&field, "expected a string"))?;
                    if blank.keep(&at, &field, text) {
                        topic
                            .documents
                            .push(Document::new(format!("rev{}", i + 1), text));
                    }
                }
            }
            _ => return Err(at.error("reviews", "expected an object or array of reviews")),
        }
        // The file has no product id, so a repeated line would be a second product.
        let reviews: Vec<&str> = topic.documents.iter().map(|d| d.text.as_str()).collect();
        let key = reviews.join("\u{0}");
        if let Some(first) = first_line.insert(key, line) {
            return Err(at.error(
                "reviews",
                format!("the same reviews as line {first} (one product per line)"),
            ));
        }
        for (system, entry) in at.object(&value, "", "summaries")? {
            at.system_key("summaries", system)?;
            let field = format!("summaries.{system}");
            let mut summary = Summary::new(system.clone(), at.string(entry, &field, "summary")?);
            summary.human = system == HUMAN_SYSTEM;
            let dimensions = at.object(entry, &field, "dimensions")?;
            for (name, score) in dimensions {
                if let Some(score) = at.score(score, &format!("{field}.dimensions.{name}"))? {
                    summary.scores.insert(name.clone(), score);
                }
            }
            let expected: Vec<&str> = MAPPED.iter().map(|(from, _)| *from).collect();
            at.require_scores(
                &format!("{field}.dimensions"),
                dimensions,
                &expected,
                "summeval-op",
            )?;
            for (from, to) in MAPPED {
                map_score(&mut summary.scores, from, to);
            }
            topic.summaries.push(summary);
        }
        topics.push(topic);
    }
    blank.warn();
    Ok(topics)
}

fn review_number(id: &str) -> (u64, String) {
    let digits: String = id.chars().filter(char::is_ascii_digit).collect();
    (digits.parse().unwrap_or(u64::MAX), id.to_string())
}
