//! DialSummEval (Gao & Wan 2022): `human_judgment.jsonl`, one line per (dialogue, model), each
//! with 3 annotator dicts. Lines are grouped by dialogue id into topics.

use super::{map_score, read_json_lines, At, BlankTexts};
use crate::{Document, Reference, Summary, Topic};
use anyhow::Result;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// model_id A is the SAMSum gold summary, rated like a system.
const GOLD_MODEL: &str = "A";

pub fn import(path: &Path) -> Result<Vec<Topic>> {
    let path: PathBuf = if path.is_dir() {
        path.join("human_judgment.jsonl")
    } else {
        path.to_path_buf()
    };
    let mut topics: Vec<Topic> = Vec::new();
    // dialogue id -> (index in `topics`, line where first seen)
    // id -> (topic slot, first line, its dialogue)
    let mut index: HashMap<String, (usize, usize, String)> = HashMap::new();
    let mut blank = BlankTexts::default();
    // (dialogue id, model id) -> line, to name both lines of a duplicate
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for (line, value) in read_json_lines(&path)? {
        let at = At { file: &path, line };
        let id = at.id(&value, "", "id")?;
        let model = at.id(&value, "", "model_id")?;
        let dialogue = turns_per_line(&at.string(&value, "", "dialogue")?);
        let text = at.string(&value, "", "summary")?;
        if let Some(first) = seen.insert((id.clone(), model.clone()), line) {
            return Err(at.error(
                "model_id",
                format!("dialogue {id} already has model {model:?} (line {first})"),
            ));
        }
        let slot = match index.get(&id) {
            Some((slot, first_line, first_dialogue)) => {
                if *first_dialogue != dialogue {
                    return Err(at.error(
                        "dialogue",
                        format!("differs from the dialogue of id {id} at line {first_line}"),
                    ));
                }
                *slot
            }
            None => {
                let mut topic = Topic::new(id.clone());
                if blank.keep(&at, "dialogue", &dialogue) {
                    topic
                        .documents
                        .push(Document::new(id.clone(), dialogue.clone()));
                }
                topics.push(topic);
                index.insert(id.clone(), (topics.len() - 1, line, dialogue));
                topics.len() - 1
            }
        };
        let mut summary = Summary::new(model.clone(), text.clone());
        summary.scores = mean_annotations(&at, &value)?;
        map_score(&mut summary.scores, "relevance", "responsiveness");
        map_score(&mut summary.scores, "coherence", "readability");
        map_score(&mut summary.scores, "consistency", "faithfulness");
        let topic = &mut topics[slot];
        if model == GOLD_MODEL {
            summary.human = true;
            if blank.keep(&at, "summary", &text) {
                topic.references.push(Reference::new(model, text));
            }
        }
        topic.summaries.push(summary);
    }
    blank.warn();
    Ok(topics)
}

/// The dimensions mapped to targets: every annotator must give them (`null`: a missing rating).
const MAPPED: [&str; 3] = ["relevance", "coherence", "consistency"];

/// Mean of the annotators' ratings per dimension (a `null` rating is skipped). A record without
/// annotations, or an annotator without a mapped dimension, is an error: the summary would be
/// written without its target, or with the mean of fewer annotators, unsaid.
fn mean_annotations(at: &At, value: &Value) -> Result<BTreeMap<String, f64>> {
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let annotations = at.array(value, "", "annotations")?;
    if annotations.is_empty() {
        return Err(at.error(
            "annotations",
            "no annotations (DialSummEval has 3 per summary)",
        ));
    }
    for (i, annotation) in annotations.iter().enumerate() {
        let Value::Object(ratings) = annotation else {
            return Err(at.error(&format!("annotations[{i}]"), "expected an object"));
        };
        at.require_scores(
            &format!("annotations[{i}]"),
            ratings,
            &MAPPED,
            "dialsummeval",
        )?;
        for (name, rating) in ratings {
            if let Some(rating) = at.score(rating, &format!("annotations[{i}].{name}"))? {
                let entry = sums.entry(name.clone()).or_insert((0.0, 0));
                entry.0 += rating;
                entry.1 += 1;
            }
        }
    }
    Ok(sums
        .into_iter()
        .map(|(name, (sum, count))| (name, sum / count as f64))
        .collect())
}

/// "| A: hi | B: hello" -> "A: hi\nB: hello": the source separates turns with '|'.
fn turns_per_line(dialogue: &str) -> String {
    dialogue
        .split('|')
        .map(str::trim)
        .filter(|turn| !turn.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::turns_per_line;

    #[test]
    fn one_turn_per_line() {
        assert_eq!(
            turns_per_line("| A: hi | B: hello there |"),
            "A: hi\nB: hello there"
        );
        assert_eq!(turns_per_line("no bars"), "no bars");
    }
}
