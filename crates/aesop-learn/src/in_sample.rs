//! `evaluate` of a built-in model's predictions on the model's own training data: an in-sample
//! correlation, which overstates how well the model agrees with humans on new summaries.
//!
//! What can be checked: a predictions line records the model's name (`"model"`, as a saved answer
//! of the service names its models), and a built-in's model file records the identity of every
//! summary it learned from (format 11: topic id and text, [`aesop_corpus::summary_identity`]).
//! So the judged summaries are matched one by one, whatever the file they come in (the training
//! set itself, a copy, a subset, a re-import, topics in memory from Python), and the warning
//! says how many were learned from. Human scores given as a table (no texts) are matched on the
//! file name instead (`summeval.csv` for `summeval.jsonl`: a likely copy), as are the sets of a
//! model file older than format 11. A model file given by path is not checked: a predictions
//! line names it by its file stem only, which does not find the file reliably.

use super::builtin;
use super::model_file::ModelFile;
use aesop_corpus::Topic;
use std::collections::BTreeSet;
use std::path::Path;

/// The summaries an evaluation judges, as the in-sample check sees them.
pub struct Judged {
    /// The human scores as messages name them (`summeval.jsonl`; `topics` from Python).
    pub name: String,
    /// The identity of each summary with a human score for the target (two alike summaries of
    /// a topic, two entries); `None` when the human scores came without texts (a table).
    pub identities: Option<Vec<u64>>,
}

impl Judged {
    /// The summaries of `topics` with a finite human score in `target`.
    pub fn of_topics(name: &str, topics: &[Topic], target: &str) -> Judged {
        Judged {
            name: name.to_string(),
            identities: Some(crate::multiset::scored_identities(topics, target)),
        }
    }
}

/// Warnings for `evaluate PREDICTIONS --human HUMAN --target TARGET [--predicted PREDICTED]
/// [--compare OTHER]` when a built-in model that made the predictions (of `predicted`) in any of
/// `predictions` learned from summaries judged here: one per model. Best effort: an unreadable
/// file gives no warning (`evaluate` itself reports it), and the human set is read only when a
/// built-in made the predictions.
pub fn in_sample_warnings(
    predictions: &[&Path],
    human: &Path,
    target: &str,
    predicted: &str,
) -> Vec<String> {
    let models: BTreeSet<String> = predictions
        .iter()
        .flat_map(|p| aesop_eval::report::prediction_models(p, predicted))
        .collect();
    if !models.iter().any(|m| builtin::find(m).is_ok()) {
        return Vec::new();
    }
    let name = file_name(&human.display().to_string());
    let judged = match aesop_corpus::jsonl::read_set(human) {
        Ok(topics) => Judged::of_topics(&name, &topics, target),
        Err(_) => Judged {
            name,
            identities: None,
        },
    };
    warnings_for(&models, &judged)
}

/// The warnings for predictions of `models` judged on `judged`: one per built-in among them
/// that learned from any of the judged summaries (or, without identities on either side, whose
/// training set has the human scores' file name).
pub fn warnings_for(models: &BTreeSet<String>, judged: &Judged) -> Vec<String> {
    let mut warnings = Vec::new();
    for model in models {
        let Ok(found) = builtin::find(model) else {
            continue;
        };
        let Ok(file) = found.load() else {
            continue;
        };
        let card = format!(
            "see the protocol-1 and leave-one-set-out figures of its card (`aesop models {model}`)"
        );
        let learned = match (&judged.identities, &file.training_identities) {
            (Some(ids), Some(sets)) => learned_from(&file, sets, ids),
            _ => None,
        };
        if let Some((count, holders)) = learned {
            let total = judged.identities.as_ref().map_or(0, Vec::len);
            let share = if count == total {
                format!(
                    "all {} judged here",
                    aesop_core::counted(total, "summary", "summaries")
                )
            } else {
                format!("{count} of the {total} summaries judged here")
            };
            let partly = if count == total { "" } else { "partly " };
            warnings.push(format!(
                "model {model} was trained on {share} (the same topic ids and texts are in its \
                 training {holders}): these figures are {partly}in-sample and overstate \
                 agreement; {card}"
            ));
        } else if judged.identities.is_none() || file.training_identities.is_none() {
            let sets = training_set_names(&file);
            if let Some(set) = sets.iter().find(|set| same_set_name(&judged.name, set)) {
                warnings.push(format!(
                    "model {model} was trained on set {set}; these topics look like {set} \
                     (matched on the file name {}: the summaries' texts were not there to \
                     compare): in-sample figures overstate agreement; {card}",
                    judged.name
                ));
            }
        }
    }
    warnings
}

/// How many of `judged` the model learned from, and which of its training
/// sets hold them (`set summeval.jsonl`, `sets a.jsonl (12) and b.jsonl (3)`); `None` when it
/// learned from none.
fn learned_from(file: &ModelFile, sets: &[Vec<u64>], judged: &[u64]) -> Option<(usize, String)> {
    let held = |set: &[u64], id: &u64| set.binary_search(id).is_ok();
    let count = judged
        .iter()
        .filter(|id| sets.iter().any(|set| held(set, id)))
        .count();
    if count == 0 {
        return None;
    }
    let per_set: Vec<(String, usize)> = file
        .transfer
        .sets
        .iter()
        .zip(sets)
        .map(|(record, set)| {
            let n = judged.iter().filter(|id| held(set, id)).count();
            (file_name(&record.name), n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    let holders = match per_set.as_slice() {
        [(name, _)] => format!("set {name}"),
        _ => {
            let named: Vec<String> = per_set.iter().map(|(s, n)| format!("{s} ({n})")).collect();
            format!("sets {}", named.join(", "))
        }
    };
    Some((count, holders))
}

/// The file names of the sets a model learned from.
fn training_set_names(file: &ModelFile) -> Vec<String> {
    let mut names = vec![file_name(&file.training.name)];
    names.extend(file.transfer.sets.iter().map(|s| file_name(&s.name)));
    names
}

/// The last component of a path as the model file records it (`bench-out/builtin/x.jsonl`).
fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

/// `human` is `set` by name, or its sample (`summeval-sample.jsonl` for `summeval.jsonl`),
/// compared without extension (`.jsonl`, `.json`, `.csv`, `.tsv`, gzipped too) and case. (Not
/// any name starting with the set's: `summeval-op` is another data set than `summeval`.)
fn same_set_name(human: &str, set: &str) -> bool {
    let stem = |n: &str| {
        let n = n.strip_suffix(".gz").unwrap_or(n);
        [".jsonl", ".json", ".csv", ".tsv"]
            .iter()
            .find_map(|ext| n.strip_suffix(ext))
            .unwrap_or(n)
            .to_ascii_lowercase()
    };
    let (human, set) = (stem(human), stem(set));
    !set.is_empty()
        && (human == set
            || human
                .strip_prefix(&set)
                .is_some_and(|rest| rest == "-sample" || rest == "_sample"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_names_match_the_set_and_its_named_subsets_only() {
        assert!(same_set_name("summeval.jsonl", "summeval.jsonl"));
        assert!(same_set_name("SummEval-sample.jsonl", "summeval.jsonl"));
        assert!(same_set_name("summeval.jsonl.gz", "summeval.jsonl"));
        assert!(same_set_name("summeval.csv", "summeval.jsonl"));
        assert!(!same_set_name("summeval-op.jsonl", "summeval.jsonl"));
        assert!(!same_set_name("realsumm.jsonl", "summeval.jsonl"));
        assert!(!same_set_name("summevalx.jsonl", "summeval.jsonl"));
        assert_eq!(
            file_name("bench-out/builtin/summeval.jsonl"),
            "summeval.jsonl"
        );
    }

    /// Every built-in records the summaries it learned from, one list per training set, so
    /// `evaluate` matches them one by one (the file-name guess is only for tables).
    #[test]
    fn every_builtin_records_its_training_summaries() {
        for model in builtin::BUILTINS {
            let file = builtin::find(model.name)
                .and_then(|m| m.load())
                .expect("built-in loads");
            let sets = file
                .training_identities
                .as_ref()
                .unwrap_or_else(|| panic!("{}: no training identities", model.name));
            assert_eq!(sets.len(), file.transfer.sets.len(), "{}", model.name);
            // A summary written twice in a topic (by two systems) is one identity.
            for (set, record) in sets.iter().zip(&file.transfer.sets) {
                assert!(
                    !set.is_empty() && set.len() <= record.rows,
                    "{}: {}: {} identities, {} rows",
                    model.name,
                    record.name,
                    set.len(),
                    record.rows
                );
            }
        }
    }
}
