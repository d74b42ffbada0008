//! `train --report FILE`: the report of a model's own cross-validation, checked against the
//! model before it is stored in the model file (the card shows its held-out error).

use super::args::LearnArgs;
use crate::transfer::{self, SetSpec};
use aesop_core::hash::content_hash;
use aesop_features::FeatureOptions;
use anyhow::{bail, Context, Result};

/// --json`) writes, about the model being trained. The model card shows its `calibrated_mae`,
/// so any JSON was stored before (a negative error printed as the held-out error, a report of
/// another target or feature set kept silently). Refused, naming the field: a `calibrated_mae`
/// that is not a finite number ≥ 0 (or null), and a `target`, `learner`, `feature_names`,
/// `sets` or `feature_options_changed` other than the model's; a report that records none of
/// the last four (`evaluate --json`) is stored with a warning that it could not be checked.
/// Returns the text and the error.
pub(super) fn read_training_report(
    path: &std::path::Path,
    learn: &LearnArgs,
    target: &str,
    names: &[String],
    options: &FeatureOptions,
) -> Result<(String, Option<f64>)> {
    use serde_json::Value;
    let shown = path.display();
    let bytes =
        aesop_core::input::read_bytes(path).with_context(|| format!("reading report {shown}"))?;
    let text = String::from_utf8(bytes).with_context(|| format!("{shown}: not UTF-8"))?;
    let value: Value = serde_json::from_str(aesop_core::input::without_bom(&text))
        .with_context(|| format!("{shown}: not JSON"))?;
    let Some(report) = value.as_object() else {
        bail!(
            "{shown}: not a report: a JSON object as `cross-validate --report` writes is expected, \
             this is {}",
            match value {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                Value::Null => "null",
                Value::Object(_) => "an object",
            }
        );
    };
    let mae = match report.get("calibrated_mae") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_f64() {
            Some(mae) if mae.is_finite() && mae >= 0.0 => Some(mae),
            _ => bail!(
                "{shown}: calibrated_mae: {v} is not a mean absolute error (a number ≥ 0, or null)"
            ),
        },
    };
    match report.get("target") {
        None => bail!(
            "{shown}: target: missing; a report of `cross-validate --report` (or `evaluate \
             --json`) names the score it measured"
        ),
        Some(Value::String(t)) if t == target => {}
        Some(other) => bail!(
            "{shown}: target: the report measured {other}, this model learns \"{target}\"; give \
             the report of this model's own cross-validation"
        ),
    }
    let mut unrecorded = Vec::new();
    match report.get("learner") {
        None => unrecorded.push("learner"),
        Some(Value::String(l)) if l == learn.learner.name() => {}
        Some(other) => bail!(
            "{shown}: learner: the report measured {other}, this model is trained with \"{}\"",
            learn.learner.name()
        ),
    }
    // A cross-validation report (it names its learner) records the pairs its ranker learned
    // from when they were limited by length: the same recipe on every pair is another model.
    if report.contains_key("learner") {
        let recorded = report.get("pair_length_tolerance").and_then(Value::as_f64);
        let here = learn.hyper.pair_length_tolerance;
        if recorded != here {
            let describe = |t: Option<f64>| match t {
                Some(t) => format!(
                    "pairs within {} in length",
                    crate::learners::tolerance_percent(t)
                ),
                None => "every pair".to_string(),
            };
            bail!(
                "{shown}: pair_length_tolerance: the report's ranker learned from {}, this model's from {} (--pair-length-tolerance); give the report of this model's own cross-validation",
                describe(recorded),
                describe(here)
            );
        }
    }
    match report.get("feature_names") {
        None => unrecorded.push("feature_names"),
        Some(v) => {
            let recorded: Option<Vec<&str>> = v
                .as_array()
                .and_then(|list| list.iter().map(Value::as_str).collect());
            let Some(recorded) = recorded else {
                bail!("{shown}: feature_names: not a list of feature names");
            };
            if recorded != names {
                let first_difference = recorded
                    .iter()
                    .zip(names)
                    .position(|(r, n)| r != n)
                    .unwrap_or(recorded.len().min(names.len()));
                bail!(
                    "{shown}: feature_names: the report measured {} features, this model has {}; \
                     they differ first at column {} ({} in the report, {} here)",
                    recorded.len(),
                    names.len(),
                    first_difference + 1,
                    recorded.get(first_difference).unwrap_or(&"none"),
                    names.get(first_difference).map_or("none", String::as_str)
                );
            }
        }
    }
    match report.get("sets") {
        None => unrecorded.push("sets"),
        Some(v) => {
            // Compared by file name and column: the report may name the files by another path.
            let key = |spec: &SetSpec| format!("{}:{}", spec.name(), spec.column);
            let recorded: Option<Vec<String>> = v.as_array().and_then(|list| {
                list.iter()
                    .map(|s| {
                        s.as_str()
                            .and_then(|s| transfer::parse_set_spec(s).ok())
                            .map(|spec| key(&spec))
                    })
                    .collect()
            });
            let Some(mut recorded) = recorded else {
                bail!("{shown}: sets: not a list of PATH:COLUMN");
            };
            let mut training: Vec<String> = learn.set_specs()?.iter().map(key).collect();
            recorded.sort();
            training.sort();
            if recorded != training {
                bail!(
                    "{shown}: sets: the report measured {}, this model is trained on {}",
                    recorded.join(" "),
                    training.join(" ")
                );
            }
        }
    }
    // The same file name may hold other data (a set re-imported, or another set's copy): the
    // hashes tell.
    match report.get("set_hashes") {
        None => unrecorded.push("set_hashes"),
        Some(v) => {
            let recorded_sets = report.get("sets").and_then(Value::as_array);
            let recorded: Option<Vec<(String, &str)>> = v.as_array().and_then(|hashes| {
                let sets = recorded_sets.filter(|sets| sets.len() == hashes.len())?;
                sets.iter()
                    .zip(hashes)
                    .map(|(set, hash)| {
                        let spec = transfer::parse_set_spec(set.as_str()?).ok()?;
                        Some((spec.name(), hash.as_str()?))
                    })
                    .collect()
            });
            let Some(recorded) = recorded else {
                bail!("{shown}: set_hashes: not one content hash per entry of `sets`");
            };
            for spec in learn.set_specs()? {
                let here = content_hash(&spec.path)?;
                if let Some((name, hash)) = recorded
                    .iter()
                    .find(|(name, hash)| *name == spec.name() && *hash != here)
                {
                    bail!(
                        "{shown}: set_hashes: the report measured {name} with content hash {hash}, \
                         the {} trained on here has {here}: the same name, other data; give the \
                         report of this model's own cross-validation",
                        spec.path.display()
                    );
                }
            }
        }
    }
    // The options that change features (`--rouge-mode b`, `--topic-word-cutoff 5`), as the
    // report and the model card record them: the same features under other options are other
    // features.
    match report.get("feature_options_changed") {
        None => unrecorded.push("feature_options_changed"),
        Some(recorded) => {
            let here = crate::card::changed_options(&options.into());
            if *recorded != here {
                let describe = |changed: &Value| match changed.as_object() {
                    Some(map) if map.is_empty() => "the default feature options".to_string(),
                    Some(map) => map
                        .iter()
                        .map(|(name, change)| format!("{name} = {}", change["value"]))
                        .collect::<Vec<_>>()
                        .join(", "),
                    None => changed.to_string(),
                };
                bail!(
                    "{shown}: feature_options_changed: the report measured features computed with \
                     {}, this model's are computed with {}",
                    describe(recorded),
                    describe(&here)
                );
            }
        }
    }
    if !unrecorded.is_empty() {
        aesop_core::eprintln_quiet!(
            "warning: {shown}: the report records no {}; stored without checking that it \
             measured this model",
            unrecorded.join(", ")
        );
    }
    Ok((text, mae))
}
