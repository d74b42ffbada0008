//! Answering a scoring request: choose the models per topic exactly as `aesop score` does, score,
//! and shape the results. CPU-bound: the caller runs it on a blocking thread.

use super::api::{ModelRef, ScoreRequest, ScoreResponse, ScoreResult};
use super::error::ApiError;
use super::registry::Registry;
use aesop_corpus::Topic;
use aesop_features::run::Skipped;
use aesop_learn::score_stream::{batch_warnings_of, skipped_warning};
use aesop_learn::scoring::{default_model_names_of, IncompatibleModels, NamedModel, Scorer};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One scoring run: some topics (indices into the request) and the models for all of them.
struct Run {
    topics: Vec<usize>,
    models: Vec<Arc<NamedModel>>,
}

/// Score a validated request with the models of `registry`.
pub fn score_request(
    request: &ScoreRequest,
    registry: &Registry,
    cancel: &AtomicBool,
) -> Result<ScoreResponse, ApiError> {
    let runs = plan_runs(request, registry)?;
    // Every run's scorers first: models that cannot score together are refused before any
    // work is done.
    let mut scorers: Vec<Vec<Scorer>> = Vec::with_capacity(runs.len());
    for run in &runs {
        // A scorer needs models that share feature options; user models may not.
        let mut groups: Vec<Vec<&NamedModel>> = Vec::new();
        for model in &run.models {
            match groups
                .iter_mut()
                .find(|g| g[0].model.feature_options == model.model.feature_options)
            {
                Some(group) => group.push(model.as_ref()),
                None => groups.push(vec![model.as_ref()]),
            }
        }
        let run_scorers = groups
            .iter()
            .map(|group| Scorer::new(group).map_err(|e| scorer_error(e, request)))
            .collect::<Result<Vec<_>, _>>()?;
        scorers.push(run_scorers);
    }
    let mut results: Vec<Vec<ScoreResult>> = vec![Vec::new(); request.topics.len()];
    let mut used: Vec<ModelRef> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    for (run, run_scorers) in runs.iter().zip(&scorers) {
        let topics: Cow<[Topic]> = if run.topics.len() == request.topics.len() {
            Cow::Borrowed(&request.topics)
        } else {
            Cow::Owned(
                run.topics
                    .iter()
                    .map(|&i| request.topics[i].clone())
                    .collect(),
            )
        };
        // The classes without values of this run's topics, each once (groups that compute
        // the same class see the same summaries).
        let mut run_skipped: Vec<Skipped> = Vec::new();
        // Where each record of this run lands: (topic index, position in its results).
        let mut slots: Vec<(usize, usize)> = Vec::new();
        for (g, scorer) in run_scorers.iter().enumerate() {
            let group = scorer.models();
            let scored = scorer.score(topics.as_ref(), false, cancel).map_err(|e| {
                if e.is::<aesop_features::run::Interrupted>() {
                    ApiError::new(
                        axum::http::StatusCode::SERVICE_UNAVAILABLE,
                        "timeout",
                        "the request took longer than the service's time limit",
                    )
                } else {
                    ApiError::internal(format!("scoring failed: {e:#}"))
                }
            })?;
            let mut next_topic = 0;
            for (r, record) in scored.table.records.iter().enumerate() {
                // Records come in topic order, each topic's summaries in order.
                while run
                    .topics
                    .get(next_topic)
                    .is_some_and(|&t| request.topics[t].topic != record.topic)
                {
                    next_topic += 1;
                }
                let Some(&t) = run.topics.get(next_topic) else {
                    return Err(ApiError::internal(format!(
                        "scoring returned an unknown topic {:?}",
                        record.topic
                    )));
                };
                let slot = if g == 0 {
                    results[t].push(ScoreResult {
                        topic: record.topic.clone(),
                        system: record.system.clone(),
                        scores: BTreeMap::new(),
                        raw: BTreeMap::new(),
                        warning: None,
                        features: request.features.then(BTreeMap::new),
                    });
                    slots.push((t, results[t].len() - 1));
                    (t, results[t].len() - 1)
                } else {
                    match slots.get(r) {
                        Some(&slot) if results[slot.0][slot.1].system == record.system => slot,
                        _ => {
                            return Err(ApiError::internal(
                                "model groups scored different summaries",
                            ))
                        }
                    }
                };
                let result = &mut results[slot.0][slot.1];
                if let Some(kind) = scored.degenerate[r] {
                    result.warning = Some(format!("not scored: {kind}"));
                }
                for (m, model) in group.iter().enumerate() {
                    let finite = |v: f64| v.is_finite().then_some(v);
                    result
                        .scores
                        .insert(model.name.clone(), finite(scored.scores[m][r]));
                    if let Some(raw) = scored.raw_of(m, r) {
                        result.raw.insert(model.name.clone(), finite(raw));
                    }
                }
                if let Some(features) = &mut result.features {
                    for (name, value) in scored.table.names.iter().zip(&record.values) {
                        features.insert(name.clone(), value.filter(|v| v.is_finite()));
                    }
                }
            }
            for class in &scored.table.skipped {
                if !run_skipped.iter().any(|s| s.class == class.class) {
                    run_skipped.push(class.clone());
                }
            }
            for model in group {
                let reference = ModelRef {
                    name: model.name.clone(),
                    version: model.version.clone(),
                };
                if !used.contains(&reference) {
                    used.push(reference);
                    warnings.extend(batch_warnings_of(model));
                }
            }
        }
        Skipped::merge(&mut skipped, run_skipped);
    }
    warnings.extend(skipped.iter().map(skipped_warning));
    Ok(ScoreResponse {
        results: results.into_iter().flatten().collect(),
        models: used,
        warnings,
    })
}

/// Why models could not score together: two models the request names that need different
/// options of a class they share (422, naming them as the request does), else a fault of ours.
fn scorer_error(e: anyhow::Error, request: &ScoreRequest) -> ApiError {
    let Some(incompatible) = e.downcast_ref::<IncompatibleModels>() else {
        return ApiError::internal(format!("cannot score with these models: {e:#}"));
    };
    let position = |name: &str| {
        request
            .models
            .as_ref()
            .and_then(|names| names.iter().position(|n| n == name))
    };
    let field = position(&incompatible.second)
        .map_or_else(|| "models".to_string(), |i| format!("models[{i}]"));
    ApiError::invalid(
        "incompatible_models",
        field,
        format!(
            "models {:?} and {:?} were trained with different {}, so they cannot score in one request; request them separately",
            incompatible.first, incompatible.second, incompatible.what
        ),
    )
}

/// The runs `aesop score` would make: the named models over every topic, or by default the
/// built-ins for topics with references in one run and the `-noref` ones for the rest.
fn plan_runs(request: &ScoreRequest, registry: &Registry) -> Result<Vec<Run>, ApiError> {
    let topics = &request.topics;
    let Some(names) = &request.models else {
        let (with, without): (Vec<usize>, Vec<usize>) =
            (0..topics.len()).partition(|&i| !topics[i].references.is_empty());
        let mut runs = Vec::new();
        for part in [with, without] {
            let Some(&first) = part.first() else { continue };
            let models = default_model_names_of(&topics[first], registry.family())
                .into_iter()
                .map(|name| {
                    registry.get(name).cloned().ok_or_else(|| {
                        ApiError::internal(format!("built-in model {name} is not loaded"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            runs.push(Run {
                topics: part,
                models,
            });
        }
        return Ok(runs);
    };
    let mut models = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let Some(model) = registry.get(name) else {
            let known: Vec<&str> = registry.models().iter().map(|m| m.name.as_str()).collect();
            return Err(ApiError::invalid(
                "unknown_model",
                format!("models[{i}]"),
                format!("no model {name:?}; models: {}", known.join(", ")),
            ));
        };
        if model.model.needs_references() {
            if let Some(t) = topics.iter().position(|t| t.references.is_empty()) {
                let alternative = if registry.get(&format!("{}-noref", model.name)).is_some() {
                    format!("use {}-noref", model.name)
                } else {
                    "use a reference-free model".to_string()
                };
                return Err(ApiError::invalid(
                    "references_required",
                    format!("topics[{t}].references"),
                    format!(
                        "model {name:?} (models[{i}]) needs references, but topic {:?} has none; \
                         add references or {alternative}",
                        topics[t].topic
                    ),
                ));
            }
        }
        models.push(Arc::clone(model));
    }
    Ok(vec![Run {
        topics: (0..topics.len()).collect(),
        models,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incompatible_models_are_a_422_naming_them_as_the_request_does() {
        let request = ScoreRequest {
            topics: Vec::new(),
            models: Some(vec!["long".into(), "other".into(), "short".into()]),
            features: false,
        };
        let e = anyhow::Error::new(IncompatibleModels {
            first: "long".into(),
            second: "short".into(),
            first_source: "/srv/long.aesop".into(),
            second_source: "/srv/short.aesop".into(),
            what: "neural options".into(),
        });
        let error = scorer_error(e, &request);
        assert_eq!(
            (error.status.as_u16(), error.code, error.field.as_deref()),
            (422, "incompatible_models", Some("models[2]"))
        );
        assert!(!error.message.contains("/srv"), "{}", error.message);
        assert!(
            error.message.contains("\"long\" and \"short\"")
                && error.message.contains("request them separately"),
            "{}",
            error.message
        );
        // Anything else is our fault.
        let other = scorer_error(anyhow::anyhow!("no model to score with"), &request);
        assert_eq!(other.code, "internal");
    }
}
