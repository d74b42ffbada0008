//! Answering a scoring request: choose the models per topic exactly as `aesop score` does, score,
//! and shape the results. CPU-bound: the caller runs it on a blocking thread.

use super::api::{ModelRef, ScoreRequest, ScoreResponse, ScoreResult};
use super::error::ApiError;
use super::registry::Registry;
use aesop_corpus::Topic;
use aesop_features::run::Skipped;
use aesop_learn::range_tally::RunRanges;
use aesop_learn::score_stream::{batch_warnings_of, skipped_warning, Prediction, SystemMean};
use aesop_learn::scoring::{
    check_compatible, computes_class_differently, default_model_names_of, NamedModel, Scorer,
};
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
    // Per run, the classes two of its scorers compute under different options: their features
    // are reported per model (`rouge.r1_recall@MODEL`).
    let mut conflicting: Vec<Vec<String>> = Vec::with_capacity(runs.len());
    for run in &runs {
        let groups = compatible_groups(&run.models);
        conflicting.push(conflicting_classes(&groups));
        let run_scorers = groups
            .iter()
            .map(|group| Scorer::new(group).map_err(scorer_error))
            .collect::<Result<Vec<_>, _>>()?;
        scorers.push(run_scorers);
    }
    let mut results: Vec<Vec<ScoreResult>> = vec![Vec::new(); request.topics.len()];
    let mut used: Vec<ModelRef> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    // Features outside the models' training ranges, one warning per model.
    let mut ranges = RunRanges::default();
    for ((run, run_scorers), conflicting) in runs.iter().zip(&scorers).zip(&conflicting) {
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
                    timeout_error()
                } else {
                    ApiError::internal(format!("scoring failed: {e:#}"))
                }
            })?;
            scored.add_ranges_to(group, &mut ranges);
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
                        in_training: Vec::new(),
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
                    if scored.in_training_of(m, r) {
                        result.in_training.push(model.name.clone());
                    }
                }
                if let Some(features) = &mut result.features {
                    for (name, value) in scored.table.names.iter().zip(&record.values) {
                        let value = value.filter(|v| v.is_finite());
                        let class = name.split('.').next().unwrap_or(name);
                        if !conflicting.iter().any(|c| c == class) {
                            features.insert(name.clone(), value);
                            continue;
                        }
                        for model in group
                            .iter()
                            .filter(|m| m.model.classes.iter().any(|c| c == class))
                        {
                            features.insert(format!("{name}@{}", model.name), value);
                        }
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
                    target: model.target.clone(),
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
    warnings.extend(aesop_features::language::warnings(&request.topics));
    warnings.extend(ranges.warnings());
    let results: Vec<ScoreResult> = results.into_iter().flatten().collect();
    let systems = if request.systems {
        let (means, coverage) = system_means(request, registry, &runs, &results, cancel)?;
        warnings.extend(coverage);
        Some(means)
    } else {
        None
    };
    Ok(ScoreResponse {
        results,
        models: used,
        warnings,
        systems,
    })
}

/// Each system's mean per model, as `aesop score --systems` computes them: one column per
/// named model, or for the defaults one per target, whichever variant (`pyramid` or
/// `pyramid-noref`) scored a topic. Also the warnings `score` gives when the systems were
/// scored on different topics.
fn system_means(
    request: &ScoreRequest,
    registry: &Registry,
    runs: &[Run],
    results: &[ScoreResult],
    cancel: &AtomicBool,
) -> Result<(Vec<SystemMean>, Vec<String>), ApiError> {
    let defaults = request.models.is_none();
    let columns: Vec<String> = match &request.models {
        None => registry
            .family()
            .targets()
            .iter()
            .map(|t| t.to_string())
            .collect(),
        // Distinct: a request that names a model twice is refused.
        Some(names) => names.clone(),
    };
    let target_of: BTreeMap<&str, &str> = runs
        .iter()
        .flat_map(|run| &run.models)
        .map(|model| (model.name.as_str(), model.target.as_str()))
        .collect();
    let predictions: Vec<Prediction> = results
        .iter()
        .flat_map(|result| {
            result.scores.iter().map(|(model, score)| Prediction {
                topic: result.topic.clone(),
                system: result.system.clone(),
                target: target_of.get(model.as_str()).unwrap_or(&"").to_string(),
                score: score.unwrap_or(f64::NAN),
                raw: None,
                model: model.clone(),
                in_training: result.in_training.contains(model),
            })
        })
        .collect();
    aesop_learn::score_stream::system_means(&predictions, columns, defaults, cancel).map_err(|e| {
        if e.is::<aesop_features::run::Interrupted>() {
            timeout_error()
        } else {
            ApiError::internal(format!("system means failed: {e:#}"))
        }
    })
}

/// The answer to a request cut short by the service's time limit.
fn timeout_error() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        "timeout",
        "the request took longer than the service's time limit",
    )
}

/// The models of a run in groups that can each score in one pass ([`check_compatible`]): a
/// model joins the first group it is compatible with. Models whose options differ for a class
/// they share (two ROUGE settings, two LM source budgets) score in separate passes, as
/// separate `aesop score` runs would.
fn compatible_groups(models: &[Arc<NamedModel>]) -> Vec<Vec<&NamedModel>> {
    let mut groups: Vec<Vec<&NamedModel>> = Vec::new();
    for model in models {
        let joins = groups.iter_mut().find(|group| {
            let mut with: Vec<&NamedModel> = group.to_vec();
            with.push(model.as_ref());
            check_compatible(&with).is_ok()
        });
        match joins {
            Some(group) => group.push(model.as_ref()),
            None => groups.push(vec![model.as_ref()]),
        }
    }
    groups
}

/// The classes that models of two different groups use under different options: a feature of
/// such a class has one value per model, so the answer's `features` name the model.
fn conflicting_classes(groups: &[Vec<&NamedModel>]) -> Vec<String> {
    let mut classes: Vec<String> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for other in &groups[g + 1..] {
            for a in group {
                for b in other {
                    for class in a
                        .model
                        .classes
                        .iter()
                        .filter(|c| b.model.classes.contains(c))
                    {
                        if !classes.contains(class) && computes_class_differently(a, b, class) {
                            classes.push(class.clone());
                        }
                    }
                }
            }
        }
    }
    classes
}

/// Models of one group ([`compatible_groups`]) that could not score together: the LM model
/// file is absent, say. Our fault or the server's, not the request's.
fn scorer_error(e: anyhow::Error) -> ApiError {
    ApiError::internal(format!("cannot score with these models: {e:#}"))
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
