//! `evaluate` of a built-in model's predictions on the model's own training data: an in-sample
//! correlation, which overstates how well the model agrees with humans on new summaries.
//!
//! What can be checked: a predictions line records the model's name (`"model"`, as a saved answer
//! of the service names its models), and a built-in's
//! model file records the judgment sets it was trained on, by file name and FNV-1a 64 content
//! hash (`training`, and `transfer.sets` for several sets), not by topic id. So the human set is
//! matched on its content hash (the very file: certain) or else on its file name (`summeval.jsonl`,
//! or that name with `-sample`: a likely subset; the README imports the shipped SummEval sample
//! as `summeval.jsonl`), and the warning says which. A model file given by path is not checked: a
//! predictions line names it by its file stem only, which does not find the file reliably.

use super::builtin;
use std::path::Path;

/// Warnings for `evaluate PREDICTIONS --human HUMAN --target TARGET` when a built-in model that
/// made the predictions (for `target`) was trained on `human`. Best effort: an unreadable file
/// gives no warning (`evaluate` itself reports it).
pub fn in_sample_warnings(predictions: &Path, human: &Path, target: &str) -> Vec<String> {
    let Ok(human_hash) = aesop_core::hash::content_hash(human) else {
        return Vec::new();
    };
    let human_name = file_name(&human.display().to_string());
    let mut warnings = Vec::new();
    for model in aesop_eval::report::prediction_models(predictions, target) {
        let Ok(found) = builtin::find(&model) else {
            continue;
        };
        let Ok(file) = found.load() else {
            continue;
        };
        let mut sets: Vec<(String, String)> = vec![(
            file_name(&file.training.name),
            file.training.content_hash.clone(),
        )];
        for s in &file.transfer.sets {
            sets.push((file_name(&s.name), s.content_hash.clone()));
        }
        let card = format!(
            "see the protocol-1 and leave-one-set-out figures of its card (`aesop models {model}`)"
        );
        if let Some((set, _)) = sets.iter().find(|(_, hash)| *hash == human_hash) {
            warnings.push(format!(
                "model {model} was trained on {set}, and {human_name} is that very file (same content \
                 hash): these are in-sample figures that overstate agreement; {card}"
            ));
        } else if let Some((set, _)) = sets.iter().find(|(set, _)| same_set_name(&human_name, set))
        {
            warnings.push(format!(
                "model {model} was trained on set {set}; these topics look like {set} (matched on the \
                 file name {human_name}: model files record training sets by name and content hash, \
                 not by topic): in-sample figures overstate agreement; {card}"
            ));
        }
    }
    warnings
}

/// The last component of a path as the model file records it (`bench-out/builtin/x.jsonl`).
fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

/// `human` is `set` by name, or its sample (`summeval-sample.jsonl` for `summeval.jsonl`),
/// compared without extension (`.jsonl`, `.json`, either gzipped) and case. (Not any name starting with the set's: `summeval-op`
/// is another data set than `summeval`.)
fn same_set_name(human: &str, set: &str) -> bool {
    let stem = |n: &str| {
        let n = n.strip_suffix(".gz").unwrap_or(n);
        n.strip_suffix(".jsonl")
            .or_else(|| n.strip_suffix(".json"))
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
        assert!(!same_set_name("summeval-op.jsonl", "summeval.jsonl"));
        assert!(!same_set_name("realsumm.jsonl", "summeval.jsonl"));
        assert!(!same_set_name("summevalx.jsonl", "summeval.jsonl"));
        assert_eq!(
            file_name("bench-out/builtin/summeval.jsonl"),
            "summeval.jsonl"
        );
    }
}
