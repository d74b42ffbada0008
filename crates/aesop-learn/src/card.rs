//! The card of a model file a user trained: what the file says about itself, so `aesop models
//! PATH` (and the HTTP service's `GET /v1/models`) can tell what a model predicts, from which
//! data, with which features and options, on which scale, without reading bincode.
//!
//! The built-ins have hand-checked cards rendered when they are trained (models/builtin/*.md);
//! this one is derived from the file alone, so it holds only what the file records.

use crate::learners::{Fitted, Hyper};
use crate::model_file::{header_of, FeatureOptionsRecord, ModelFile};
use aesop_features::FeatureOptions;
use anyhow::Result;
use serde_json::{json, Map, Value};
use std::fmt::Write;
use std::path::Path;

/// How many of a linear model's weights the text card lists.
const WEIGHTS_SHOWN: usize = 10;

/// The card of the model file at `path`: Markdown text, or with `json` a JSON object holding
/// the same facts (and every weight, and the stored report parsed).
pub fn describe_file(path: &Path, json: bool) -> Result<String> {
    let bytes = crate::model_file::read_model_bytes(path)?;
    let file = path.display().to_string();
    let model = ModelFile::from_bytes(&bytes, &file)?;
    let facts = card_facts(&model, &file, header_of(&bytes));
    Ok(if json {
        serde_json::to_string_pretty(&facts)? + "\n"
    } else {
        render(&facts)
    })
}

/// The facts of a card as JSON. `header` is the file's (format version, writing aesop version)
/// when the bytes are at hand; otherwise the lowest format version that holds the model.
pub fn card_facts(model: &ModelFile, file: &str, header: Option<(u32, String)>) -> Value {
    let (format_version, written_by) = match header {
        Some((v, w)) => (v, Some(w)),
        None => (model.format_version(), None),
    };
    let transfer = &model.transfer;
    // Files from before several-set training record only `training`.
    let training = &model.training;
    let sets: Vec<Value> = if transfer.sets.is_empty() {
        vec![json!({
            "name": training.name,
            "column": model.target,
            "content_hash": training.content_hash,
            "topics": training.topics,
            "summaries": training.summaries,
            "rows": training.rows,
        })]
    } else {
        transfer
            .sets
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut set = json!({
                    "name": s.name,
                    "column": s.column,
                    "content_hash": s.content_hash,
                    "rows": s.rows,
                    // The summaries `evaluate` matches its judged ones against (format 11).
                    "identities": model.training_identities.as_ref().and_then(|ids| ids.get(i)).map(Vec::len),
                });
                // `training` counts topics and summaries; it describes this set when it is the
                // only one.
                if transfer.sets.len() == 1 && training.content_hash == s.content_hash {
                    set["topics"] = json!(training.topics);
                    set["summaries"] = json!(training.summaries);
                }
                set
            })
            .collect()
    };
    let report = model
        .report
        .as_deref()
        .map(|text| serde_json::from_str::<Value>(text).unwrap_or_else(|_| json!(text)));
    json!({
        "file": file,
        "format_version": format_version,
        "written_by": written_by,
        "target": model.target,
        "reference_free": model.reference_free,
        "learner": model.model.learner.name(),
        "hyper": hyper_facts(&model.model.hyper),
        "anchor": model.anchor,
        "pair_length_tolerance": model.pair_length_tolerance,
        "classes": model.classes,
        "columns_per_class": class_columns(model),
        "features": model.feature_names,
        "feature_options_changed": changed_options(&model.feature_options),
        "feature_option_flags": option_flags(model),
        "neural": model.neural.is_some(),
        "neural_options": model.neural.as_ref().map(|n| json!({
            "source_tokens": n.source_tokens,
            "max_references": n.max_references,
            "max_scored_tokens": n.max_scored_tokens,
            "prompt": n.prompt.name(),
        })),
        "normalization": transfer.normalization.name(),
        "feature_ranges": model.feature_ranges.is_some(),
        "calibration": transfer.calibration.as_ref().map(|c| json!({
            "slope": c.slope, "intercept": c.intercept, "min": c.min, "max": c.max,
        })),
        "held_out_mae": transfer.held_out_mae,
        "training_sets": sets,
        "seed": model.settings.seed,
        "equal_set_weights": model.settings.equal_set_weights,
        "weights": linear_weights(model),
        "stack_folds": model.model.stack_bases().map(|_| json!({
            "topic_folds": model.settings.stack_folds.topic_folds,
            "system_folds": model.settings.stack_folds.system_folds,
        })),
        "stack_bases": model.model.stack_bases().map(|bases| bases.iter().map(|b| json!({
            "name": b.name,
            "target": b.target,
            "learner": b.model.learner.name(),
            "hyper": hyper_facts(&b.model.hyper),
            "classes": b.classes,
            "features": b.feature_names.len(),
        })).collect::<Vec<_>>()),
        "report": report,
    })
}

fn hyper_facts(hyper: &Hyper) -> Value {
    match *hyper {
        Hyper::None => json!({}),
        Hyper::ElasticNet { penalty, l1_ratio } => {
            json!({"penalty": penalty, "l1_ratio": l1_ratio})
        }
        Hyper::Svr { c, epsilon, kernel } => json!({"c": c, "epsilon": epsilon, "kernel": kernel}),
        Hyper::RankSvm { c } => json!({"c": c}),
        Hyper::Forest {
            n_trees,
            max_depth,
            min_samples_leaf,
        } => json!({"trees": n_trees, "max_depth": max_depth, "min_leaf": min_samples_leaf}),
    }
}

/// A learner's hyper-parameters as the card and `train` print them (`c 1e-4`;
/// `max_depth none, min_leaf 5, trees 100`), empty for a learner without any (OLS).
pub fn hyper_text(hyper: &Hyper) -> String {
    hyper_facts_text(&hyper_facts(hyper))
}

/// [`hyper_text`] of the facts JSON (a card read from a file holds only that). A null is a
/// limit not set (`max_depth none`).
fn hyper_facts_text(facts: &Value) -> String {
    facts
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| match v {
                    Value::Null => format!("{k} none"),
                    v => format!("{k} {}", number(v)),
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The number of the model's columns each class gives, as `{"rouge": 12, …}`.
fn class_columns(model: &ModelFile) -> Map<String, Value> {
    model
        .classes
        .iter()
        .map(|class| {
            let prefix = format!("{class}.");
            let columns = model
                .feature_names
                .iter()
                .filter(|n| n.starts_with(&prefix))
                .count();
            (class.clone(), json!(columns))
        })
        .collect()
}

/// The model's feature options other than the defaults as `aesop train` flags (the neural
/// options from the model's own record), in flag order.
fn option_flags(model: &ModelFile) -> Vec<String> {
    let mut options = FeatureOptions::from(&model.feature_options);
    if let Some(neural) = &model.neural {
        options.neural = neural.into();
    }
    options.changed_flags()
}

/// The feature-class options whose recorded value differs from the default, as
/// `{"rouge.stem": {"value": false, "default": true}, …}`.
pub fn changed_options(options: &FeatureOptionsRecord) -> Value {
    let default = FeatureOptionsRecord::from(&FeatureOptions::default());
    let mut actual = Map::new();
    let mut defaults = Map::new();
    flatten("", &json!(options), &mut actual);
    flatten("", &json!(default), &mut defaults);
    let changed: Map<String, Value> = actual
        .into_iter()
        .filter(|(key, value)| defaults.get(key) != Some(value))
        .map(|(key, value)| {
            let default = defaults.get(&key).cloned().unwrap_or(Value::Null);
            (key, json!({"value": value, "default": default}))
        })
        .collect();
    Value::Object(changed)
}

/// Nested objects as dotted keys (`rouge.stem`).
fn flatten(prefix: &str, value: &Value, out: &mut Map<String, Value>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let key = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&key, inner, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

/// A linear model's weight on each scaled column, largest magnitude first; `None` for the
/// other learners (an SVR with a kernel, a forest, a stacked model have no weight per feature).
fn linear_weights(model: &ModelFile) -> Option<Vec<Value>> {
    let Fitted::Linear(linear) = &model.model.fitted else {
        return None;
    };
    let mut weights: Vec<(&String, f64)> = model
        .feature_names
        .iter()
        .zip(linear.weights.iter().copied())
        .collect();
    weights.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    Some(
        weights
            .into_iter()
            .map(|(name, weight)| json!({"feature": name, "weight": weight}))
            .collect(),
    )
}

/// A number as a reader wants it: integers exactly (a seed of 2^64 − 1 went through f64 and
/// was shown rounded), whole floats whole, others to four decimals (trailing zeros dropped),
/// very small or very large ones in exponent form (a C of 1e-6; 1e300, not 301 digits).
fn number(value: &Value) -> String {
    if value.is_i64() || value.is_u64() {
        return value.to_string();
    }
    let Some(v) = value.as_f64() else {
        return value.to_string();
    };
    if v.abs() >= 1e15 {
        format!("{v:e}")
    } else if v == v.trunc() {
        format!("{v:.0}")
    } else if v.abs() >= 1e-3 {
        let fixed = format!("{v:.4}");
        fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{v:e}")
    }
}

/// The card's facts (from [`card_facts`]) as Markdown.
pub fn render(facts: &Value) -> String {
    let mut out = String::new();
    let str_of = |key: &str| facts[key].as_str().unwrap_or("").to_string();
    let hyper = hyper_facts_text(&facts["hyper"]);
    let features = facts["features"].as_array().map_or(0, Vec::len);
    let classes = facts["classes"].as_array().cloned().unwrap_or_default();
    let columns = &facts["columns_per_class"];
    let _ = writeln!(out, "# Model file `{}`\n", str_of("file"));
    let _ = writeln!(
        out,
        "Predicts `{}` with {}{}, {features} feature{} of {} class{}; {}.",
        str_of("target"),
        str_of("learner"),
        if hyper.is_empty() {
            String::new()
        } else {
            format!(" ({hyper})")
        },
        if features == 1 { "" } else { "s" },
        classes.len(),
        if classes.len() == 1 { "" } else { "es" },
        if facts["reference_free"].as_bool() == Some(true) {
            "reference-free (scores summaries without references)"
        } else {
            "uses the references (a topic without them is refused)"
        },
    );
    let _ = writeln!(
        out,
        "Model file format {}{}.\n",
        number(&facts["format_version"]),
        facts["written_by"]
            .as_str()
            .map(|w| format!(", written by aesop {w}"))
            .unwrap_or_default()
    );

    let _ = writeln!(out, "## Training data\n");
    for set in facts["training_sets"].as_array().into_iter().flatten() {
        let counts = match (set["topics"].as_u64(), set["summaries"].as_u64()) {
            (Some(t), Some(s)) => format!("{t} topics, {s} summaries, "),
            _ => String::new(),
        };
        let identities = match set["identities"].as_u64() {
            Some(n) => format!("; {n} summaries' identities, for `evaluate`'s in-sample check"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "- `{}`, column `{}`: {counts}{} rows with a score (content hash {}{identities})",
            set["name"].as_str().unwrap_or(""),
            set["column"].as_str().unwrap_or(""),
            number(&set["rows"]),
            set["content_hash"].as_str().unwrap_or(""),
        );
    }

    let sets = facts["training_sets"].as_array().map_or(0, Vec::len);
    let _ = writeln!(
        out,
        "- Seed {}{}{}",
        number(&facts["seed"]),
        match (sets > 1, facts["equal_set_weights"].as_bool() == Some(true)) {
            (true, true) => "; every set weighed the same (`--equal-set-weights`)",
            (true, false) => "; sets weighed by their rows",
            (false, _) => "",
        },
        match facts["format_version"].as_u64() {
            Some(v) if v < 8 => format!(
                " (not stored in format {v}: the defaults, unless the file was written before format 8 existed)"
            ),
            _ => String::new(),
        }
    );

    let _ = writeln!(out, "\n## Features\n");
    let class_list: Vec<String> = classes
        .iter()
        .map(|c| {
            let name = c.as_str().unwrap_or("");
            format!("`{name}` ({})", number(&columns[name]))
        })
        .collect();
    let _ = writeln!(out, "- Classes (columns): {}", class_list.join(", "));
    let changed = facts["feature_options_changed"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if changed.is_empty() {
        let _ = writeln!(out, "- Feature-class options: the defaults");
    } else {
        let list: Vec<String> = changed
            .iter()
            .map(|(k, v)| format!("`{k}` {} (default {})", v["value"], v["default"]))
            .collect();
        let flags: Vec<String> = facts["feature_option_flags"]
            .as_array()
            .map(|flags| {
                flags
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|f| format!("`{f}`"))
                    .collect()
            })
            .unwrap_or_default();
        let as_flags = if flags.is_empty() {
            String::new()
        } else {
            format!("{}; stored as ", flags.join(" "))
        };
        let _ = writeln!(
            out,
            "- Feature-class options other than the defaults: {as_flags}{}",
            list.join(", ")
        );
    }
    if let Some(n) = facts["neural_options"].as_object() {
        let _ = writeln!(
            out,
            "- Neural LM options: source budget {} tokens, {} references, at most {} scored tokens, prompt `{}`",
            number(&n["source_tokens"]),
            number(&n["max_references"]),
            number(&n["max_scored_tokens"]),
            n["prompt"].as_str().unwrap_or("")
        );
    }
    let _ = writeln!(
        out,
        "- Within-topic normalization: {}",
        match str_of("normalization").as_str() {
            "none" => "none".to_string(),
            other =>
                format!("`{other}` (a summary's score depends on the other summaries of its topic)"),
        }
    );
    let _ = writeln!(
        out,
        "- {}",
        if facts["feature_ranges"].as_bool() == Some(true) {
            "Each feature is clamped into its training range when scoring"
        } else {
            "No feature ranges recorded (an older file): scaled features are clipped at ±6 when scoring"
        }
    );
    if let Some(anchor) = facts["anchor"].as_str() {
        let _ = writeln!(
            out,
            "- Anchored on `{anchor}`: the ranking SVM's penalty is centred on that feature alone"
        );
    }
    if let Some(tolerance) = facts["pair_length_tolerance"].as_f64() {
        let _ = writeln!(
            out,
            "- Pairs of matched length: the ranking SVM learned only from pairs of summaries whose word counts are within {} of the longer one's (`--pair-length-tolerance {tolerance}`)",
            crate::learners::tolerance_percent(tolerance)
        );
    }

    let _ = writeln!(out, "\n## Scale\n");
    match facts["calibration"].as_object() {
        Some(c) => {
            let _ = writeln!(
                out,
                "`score` = clamp({} + {} × `raw`, {}, {}), fitted on the training rows; `raw` is the learner's own output.",
                number(&c["intercept"]),
                number(&c["slope"]),
                number(&c["min"]),
                number(&c["max"])
            );
            let _ = writeln!(
                out,
                "{}",
                match facts["held_out_mae"].as_f64() {
                    Some(mae) => format!("Mean absolute error on held-out data: {mae:.3}."),
                    None => "Mean absolute error on held-out data: not measured for this file."
                        .to_string(),
                }
            );
        }
        None => {
            let _ = writeln!(
                out,
                "No calibration: scores are the learner's raw output (a ranking SVM's order \
                 summaries and are not on the target's scale)."
            );
        }
    }

    if let Some(weights) = facts["weights"].as_array() {
        let _ = writeln!(
            out,
            "\n## Largest weights\n\nOn the scaled features (each class weighs the same; docs/MODEL_FILE.md), {} of {}:\n",
            weights.len().min(WEIGHTS_SHOWN),
            weights.len()
        );
        for w in weights.iter().take(WEIGHTS_SHOWN) {
            let _ = writeln!(
                out,
                "- `{}` {:+.4}",
                w["feature"].as_str().unwrap_or(""),
                w["weight"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
    if let Some(bases) = facts["stack_bases"].as_array() {
        let _ = writeln!(out, "\n## Base models (stacked)\n");
        for b in bases {
            let classes: Vec<&str> = b["classes"]
                .as_array()
                .map(|list| list.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "- `{}`: predicts `{}` with {}{}, {} feature{} of {}",
                b["name"].as_str().unwrap_or(""),
                b["target"].as_str().unwrap_or(""),
                b["learner"].as_str().unwrap_or(""),
                match hyper_facts_text(&b["hyper"]) {
                    text if text.is_empty() => text,
                    text => format!(" ({text})"),
                },
                number(&b["features"]),
                if b["features"].as_u64() == Some(1) {
                    ""
                } else {
                    "s"
                },
                if classes.is_empty() {
                    "every class".to_string()
                } else {
                    classes.join(", ")
                }
            );
        }
        let folds = &facts["stack_folds"];
        let _ = writeln!(
            out,
            "\nThe meta learner learned from out-of-fold base predictions: {} topic folds × {} \
             system folds (`--stack-topic-folds`, `--stack-system-folds`){}.",
            number(&folds["topic_folds"]),
            number(&folds["system_folds"]),
            match facts["format_version"].as_u64() {
                Some(v) if v < 9 => format!(
                    " (not stored in format {v}: the defaults, unless the file was written \
                     before format 9 existed)"
                ),
                _ => String::new(),
            }
        );
    }
    let _ = writeln!(
        out,
        "\n## Report\n\n{}",
        if facts["report"].is_null() {
            "None stored (`aesop train --report` stores an evaluation report in the file)."
        } else {
            "An evaluation report is stored; `aesop models PATH --json` prints it (`report`)."
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::number;
    use serde_json::json;

    #[test]
    fn numbers_print_exactly_and_compactly() {
        assert_eq!(number(&json!(9007199254740993u64)), "9007199254740993");
        assert_eq!(number(&json!(u64::MAX)), "18446744073709551615");
        assert_eq!(number(&json!(-3)), "-3");
        assert_eq!(number(&json!(2.0)), "2");
        assert_eq!(number(&json!(0.25)), "0.25");
        assert_eq!(number(&json!(1e-6)), "1e-6");
        assert_eq!(number(&json!(1e300)), "1e300");
        assert_eq!(number(&json!(-2.5e20)), "-2.5e20");
    }
}
