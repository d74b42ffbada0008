//! Predictions judged on the summaries their model learned from: an in-sample correlation,
//! which overstates how well the model agrees with humans on new summaries.
//!
//! What can be checked: a model file records the identity of every summary it learned from
//! (format 11: topic id and text, [`aesop_corpus::summary_identity`]). `aesop score` (and the
//! service and the Python package) marks each prediction of a summary its model learned from
//! (`"in_training": true`) and notes how many there were ([`ScoredTally`]). `evaluate` then
//! warns for any model whose judged predictions are marked, and, for a built-in, matches the
//! judged summaries against its file one by one as well, so predictions written before the
//! marks, or as a CSV, are caught too, whatever file the human scores come in (the training
//! set itself, a copy, a subset, a re-import, topics in memory from Python). Human scores given
//! as a table (no texts) of unmarked predictions are matched on the file name instead
//! (`summeval.csv` for `summeval.jsonl`: a likely copy), as are the sets of a built-in older
//! than format 11.

use super::builtin;
use super::model_file::ModelFile;
use aesop_corpus::Topic;
use aesop_eval::report::PredictionModels;
use std::collections::BTreeMap;
use std::path::Path;

/// The summaries an evaluation judges, as the in-sample check sees them.
pub struct Judged {
    /// The human scores as messages name them (`summeval.jsonl`; `topics` from Python).
    pub name: String,
    /// Each summary with a finite human score for the target: (topic id, system) and its
    /// identity, `None` when the human scores came without texts (a table).
    pub summaries: Vec<((String, String), Option<u64>)>,
}

impl Judged {
    /// The summaries of `topics` with a finite human score in `target`.
    pub fn of_topics(name: &str, topics: &[Topic], target: &str) -> Judged {
        let summaries = topics
            .iter()
            .flat_map(|topic| {
                topic
                    .summaries
                    .iter()
                    .filter(|s| s.scores.get(target).is_some_and(|v| v.is_finite()))
                    .map(|s| {
                        let identity = aesop_corpus::summary_identity(&topic.topic, &s.text);
                        ((topic.topic.clone(), s.system.clone()), Some(identity))
                    })
            })
            .collect();
        Judged {
            name: name.to_string(),
            summaries,
        }
    }

    /// Human scores without texts: (topic id, system) only.
    fn of_table(name: String, rows: Vec<aesop_eval::report::HumanScore>) -> Judged {
        let summaries = rows
            .into_iter()
            .filter(|r| r.score.is_finite())
            .map(|r| ((r.topic, r.system), None))
            .collect();
        Judged { name, summaries }
    }

    /// Whether the summaries came with their texts.
    fn has_identities(&self) -> bool {
        self.summaries
            .iter()
            .any(|(_, identity)| identity.is_some())
    }
}

/// Warnings for `evaluate PREDICTIONS --human HUMAN --target TARGET [--predicted PREDICTED]
/// [--compare OTHER]` (or `--feature COLUMN` of `aesop score`'s table of predictions) when a
/// model that made the predictions in any of `predictions` learned from summaries judged here:
/// one per model. Each file comes with what is read of it: the target predicted, or the
/// table's column. Best effort: an unreadable file gives no warning (`evaluate` itself reports
/// it), and the human set is read only when a built-in made the predictions or some are marked
/// in-sample.
pub fn in_sample_warnings(
    predictions: &[(&Path, &str)],
    human: &Path,
    target: &str,
) -> Vec<String> {
    let mut models = PredictionModels::new();
    for &(path, predicted) in predictions {
        merge_models(
            &mut models,
            aesop_eval::report::prediction_models(path, predicted),
        );
    }
    let worth_reading = models.iter().any(|(model, summaries)| {
        !summaries.in_training.is_empty() || builtin::find(model).is_ok()
    });
    if !worth_reading {
        return Vec::new();
    }
    let name = file_name(&human.display().to_string());
    let judged = match aesop_corpus::jsonl::read_set(human) {
        Ok(topics) => Judged::of_topics(&name, &topics, target),
        Err(_) => Judged::of_table(
            name.clone(),
            aesop_eval::report::read_human(human, target).unwrap_or_default(),
        ),
    };
    warnings_for(&models, &judged)
}

/// Add the models of `more` (and the summaries it marks in-sample) to `models`: the
/// predictions and the `--compare`d ones of one evaluation.
pub fn merge_models(models: &mut PredictionModels, more: PredictionModels) {
    for (model, summaries) in more {
        models.entry(model).or_default().extend(summaries);
    }
}

/// The warnings for predictions of `models` judged on `judged`: one per model whose judged
/// predictions are marked in-sample, or that is a built-in which learned from any of the judged
/// summaries (or, without identities on either side, whose training set has the human scores'
/// file name).
pub fn warnings_for(models: &PredictionModels, judged: &Judged) -> Vec<String> {
    let mut warnings = Vec::new();
    for (model, predicted) in models {
        let builtin = builtin::find(model)
            .ok()
            .and_then(|found| found.load().ok());
        let advice = match builtin {
            Some(_) => format!(
                "see the protocol-1 and leave-one-set-out figures of its card (`aesop models {model}`)"
            ),
            None => "judge it on summaries it did not learn from (`aesop cross-validate -o` \
                     writes out-of-fold predictions)"
                .to_string(),
        };
        // The summaries judged here that the model predicted (all of them when the lines give
        // no topic and system to tell).
        let mut judged_here: Vec<&((String, String), Option<u64>)> = judged
            .summaries
            .iter()
            .filter(|(key, _)| predicted.predicted.contains(key))
            .collect();
        if judged_here.is_empty() {
            judged_here = judged.summaries.iter().collect();
        }
        let total = judged_here.len();
        // The built-in's own record of its training summaries names the sets that hold them;
        // the marks of `aesop score` serve any model file.
        let identities: Vec<u64> = judged_here.iter().filter_map(|(_, id)| *id).collect();
        let learned = builtin
            .as_ref()
            .and_then(|file| match &file.training_identities {
                Some(sets) if !identities.is_empty() => {
                    learned_from(file, sets, &identities).map(|(count, holders)| {
                        let why =
                            format!("the same topic ids and texts are in its training {holders}");
                        (count, why)
                    })
                }
                _ => None,
            })
            .or_else(|| {
                let count = judged_here
                    .iter()
                    .filter(|(key, _)| predicted.in_training.contains(key))
                    .count();
                (count > 0).then(|| {
                    let why = "its predictions of them are marked \"in_training\": the same topic \
                               ids and texts are in its training data"
                        .to_string();
                    (count, why)
                })
            });
        if let Some((count, why)) = learned {
            let share = share_of(count, total);
            let partly = if count == total { "" } else { "partly " };
            warnings.push(format!(
                "model {model} was trained on {share} judged here ({why}): these figures are {partly}\
                 in-sample and overstate agreement; {advice}"
            ));
            continue;
        }
        let Some(file) = builtin else {
            continue;
        };
        if !judged.has_identities() || file.training_identities.is_none() {
            let sets = training_set_names(&file);
            if let Some(set) = sets.iter().find(|set| same_set_name(&judged.name, set)) {
                warnings.push(format!(
                    "model {model} was trained on set {set}; these topics look like {set} \
                     (matched on the file name {}: the summaries' texts were not there to \
                     compare): in-sample figures overstate agreement; {advice}",
                    judged.name
                ));
            }
        }
    }
    warnings
}

/// Per model, the summaries `aesop score` scored and how many of them the model learned from
/// (see [`crate::scoring::Scored::in_training`]), for its note that their predictions are
/// in-sample.
#[derive(Debug, Default)]
pub struct ScoredTally {
    /// Model name -> (summaries scored, of them learned from).
    per_model: BTreeMap<String, (usize, usize)>,
}

impl ScoredTally {
    /// One summary scored by `model`.
    pub fn add(&mut self, model: &str, in_training: bool) {
        let entry = match self.per_model.get_mut(model) {
            Some(entry) => entry,
            None => self.per_model.entry(model.to_string()).or_default(),
        };
        entry.0 += 1;
        entry.1 += usize::from(in_training);
    }

    /// One note per count of summaries learned from (the default built-ins all learned from
    /// the same summaries: one note names the three).
    pub fn notes(&self) -> Vec<String> {
        let mut by_count: BTreeMap<(usize, usize), Vec<&str>> = BTreeMap::new();
        for (model, &(scored, learned)) in &self.per_model {
            if learned > 0 {
                by_count.entry((scored, learned)).or_default().push(model);
            }
        }
        by_count
            .into_iter()
            .map(|((scored, learned), models)| {
                let share = share_of(learned, scored);
                let (who, its) = match models.as_slice() {
                    [model] => (format!("model {model}"), "its"),
                    _ => (format!("models {}", models.join(", ")), "their"),
                };
                format!(
                    "{who} learned from {share} scored here (the same topic ids and texts are in \
                     {its} training data), so their predictions are marked \"in_training\": \
                     judged against these summaries' human scores they are in-sample and \
                     overstate agreement"
                )
            })
            .collect()
    }
}

/// `count` of `total` summaries in words: `all 160 summaries` (`all 1 summary`), `64 of the
/// 160 summaries`.
fn share_of(count: usize, total: usize) -> String {
    if count == total {
        format!("all {}", aesop_core::counted(total, "summary", "summaries"))
    } else {
        format!("{count} of the {total} summaries")
    }
}

/// How many of `judged` the model learned from, and which of its training
/// sets hold them (`set summeval.jsonl`, `sets a.jsonl (12) and b.jsonl (3)`); `None` when it
/// learned from none.
fn learned_from(file: &ModelFile, sets: &[Vec<u64>], judged: &[u64]) -> Option<(usize, String)> {
    let held = |set: &[u64], id: &u64| set.binary_search(id).is_ok();
    let count = judged.iter().filter(|&&id| file.learned_from(id)).count();
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

    /// One note per count: models that learned from the same summaries are named together, a
    /// model that learned from none is not named.
    #[test]
    fn scored_tally_notes_each_count_once() {
        let mut tally = ScoredTally::default();
        for i in 0..10 {
            for model in ["pyramid", "responsiveness"] {
                tally.add(model, true);
            }
            tally.add("mine", i < 4);
            tally.add("unseen", false);
        }
        let notes = tally.notes();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("model mine learned from 4 of the 10 summaries scored here"),
            "{}",
            notes[0]
        );
        assert!(
            notes[1].starts_with(
                "models pyramid, responsiveness learned from all 10 summaries scored here (the \
                 same topic ids and texts are in their training data)"
            ),
            "{}",
            notes[1]
        );
        assert!(!notes.iter().any(|n| n.contains("unseen")));
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
