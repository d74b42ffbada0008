//! Scoring topics with one or more models: the library side of `aesop score` and of the HTTP
//! service. Features are extracted once per topic for all models that share feature options.

use super::builtin::{self, Builtin};
use super::model_file::{fnv1a64, ModelFile};
use crate::corpus::Topic;
use crate::features::run::{extract_features, FeatureTable};
use crate::features::{build_classes, FeatureOptions, ALL_CLASSES};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// A loaded model with the name and version users see.
#[derive(Debug)]
pub struct NamedModel {
    /// `pyramid`, `readability-noref`, or the name a user gave a model file.
    pub name: String,
    /// For built-ins aesop's version and a hash of the model; for files a hash of the file.
    pub version: String,
    /// What the predictions are written as (`target` of the prediction lines).
    pub target: String,
    /// `builtin:NAME` or the file's path, for error messages.
    pub source: String,
    pub model: ModelFile,
}

impl NamedModel {
    pub fn from_builtin(b: &Builtin) -> Result<NamedModel> {
        Ok(NamedModel {
            name: b.name.to_string(),
            version: b.version(),
            target: b.target.to_string(),
            source: format!("builtin:{}", b.name),
            model: b.load()?,
        })
    }

    /// A model file, named `name` (the file stem when `None`).
    pub fn from_file(path: &Path, name: Option<&str>) -> Result<NamedModel> {
        let bytes =
            std::fs::read(path).with_context(|| format!("reading model {}", path.display()))?;
        let model = ModelFile::from_bytes(&bytes, &path.display().to_string())?;
        let name = match name {
            Some(n) => n.to_string(),
            None => path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            ),
        };
        Ok(NamedModel {
            name,
            version: format!("{:016x}", fnv1a64(&bytes)),
            target: model.target.clone(),
            source: path.display().to_string(),
            model,
        })
    }

    /// `builtin:NAME` or a model file path.
    pub fn from_spec(spec: &str) -> Result<NamedModel> {
        match spec.strip_prefix("builtin:") {
            Some(name) => NamedModel::from_builtin(builtin::find(name)?),
            None => NamedModel::from_file(Path::new(spec), None),
        }
    }

    /// A reference-based model cannot score a topic without references.
    pub fn check_references(&self, topics: &[Topic]) -> Result<()> {
        if !self.model.needs_references() {
            return Ok(());
        }
        if let Some(t) = topics.iter().find(|t| t.references.is_empty()) {
            let alternative = if self.source.starts_with("builtin:") {
                format!("the built-in `{}-noref`", self.target)
            } else {
                "a reference-free model (train one with --no-references, or a built-in `…-noref` model)"
                    .to_string()
            };
            bail!(
                "model {} uses features that need references, but topic '{}' has none; use {alternative} instead",
                self.source,
                t.topic
            );
        }
        Ok(())
    }
}

/// Every built-in model, loaded.
pub fn load_builtins() -> Result<Vec<NamedModel>> {
    builtin::BUILTINS
        .iter()
        .map(NamedModel::from_builtin)
        .collect()
}

/// The built-in models `score` uses for a topic when none is named: for each default target the
/// reference-based variant if the topic has references, else the reference-free one.
pub fn default_model_names(topic: &Topic) -> Vec<&'static str> {
    builtin::DEFAULT_TARGETS
        .iter()
        .filter_map(|t| builtin::default_for(t, !topic.references.is_empty()).ok())
        .map(|b| b.name)
        .collect()
}

/// Predictions of several models for the same topics.
#[derive(Debug)]
pub struct Scored {
    /// The features of every summary (all classes any model uses), in set order.
    pub table: FeatureTable,
    /// `scores[m][r]`: model `m`'s prediction for record `r` of `table` (calibrated to the
    /// target's scale when the model has a calibration).
    pub scores: Vec<Vec<f64>>,
    /// `raw[m][r]`: model `m`'s raw output; empty for a model without a calibration.
    pub raw: Vec<Vec<f64>>,
}

impl Scored {
    /// Model `m`'s raw output for record `r`, when it differs from its score (calibrated).
    pub fn raw_of(&self, m: usize, r: usize) -> Option<f64> {
        self.raw.get(m).and_then(|v| v.get(r)).copied()
    }
}

/// Score `topics` with every model in `models`. Features are computed once for the union of the
/// models' classes, so all models must share feature options (the built-ins do); each model
/// must be able to score every topic (see [`NamedModel::check_references`]).
pub fn score_topics(
    models: &[&NamedModel],
    topics: &[Topic],
    show_progress: bool,
    cancel: &AtomicBool,
) -> Result<Scored> {
    let Some(first) = models.first() else {
        bail!("no model to score with");
    };
    for m in models {
        m.check_references(topics)?;
        if m.model.feature_options != first.model.feature_options {
            bail!(
                "models {} and {} were trained with different feature options; score them in separate runs",
                first.source,
                m.source
            );
        }
    }
    // The union of classes in the registry's order, then any unknown ones (which fail in
    // build_classes with the list of known classes).
    let mut classes: Vec<String> = ALL_CLASSES
        .iter()
        .filter(|c| {
            models
                .iter()
                .any(|m| m.model.classes.iter().any(|x| x == *c))
        })
        .map(|c| c.to_string())
        .collect();
    for m in models {
        for c in &m.model.classes {
            if !classes.contains(c) {
                classes.push(c.clone());
            }
        }
    }
    let options: FeatureOptions = (&first.model.feature_options).into();
    let built = build_classes(&classes, &options).with_context(|| {
        format!(
            "model {} needs a feature class this build lacks",
            first.source
        )
    })?;
    let table = extract_features(topics, &built, show_progress, cancel)?;
    let mut scores = Vec::new();
    let mut raw = Vec::new();
    for m in models {
        let (score, model_raw) = m
            .model
            .predict_table_calibrated(&table)
            .with_context(|| format!("scoring with {}", m.source))?;
        scores.push(score);
        raw.push(if m.model.transfer.calibration.is_some() {
            model_raw
        } else {
            Vec::new()
        });
    }
    Ok(Scored { table, scores, raw })
}
