//! Scoring topics with one or more models: the library side of `aesop score` and of the HTTP
//! service. Features are extracted once per topic for all models that share feature options.

use super::builtin::{self, Builtin, Family};
use super::degenerate::{self, Degenerate};
use super::model_file::{FeatureOptionsRecord, ModelFile, NeuralRecord};
use super::range_tally::{RangeTally, RunRanges};
use aesop_core::hash::fnv1a64;
use aesop_corpus::Topic;
use aesop_features::neural::is_lm_class;
use aesop_features::run::{extract_features, FeatureTable};
use aesop_features::{build_classes, FeatureClass, FeatureOptions, CLASSES};
use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
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
    /// The file's header, (format version, the aesop version that wrote it); `None` for
    /// built-ins and models made in memory.
    pub header: Option<(u32, String)>,
}

impl NamedModel {
    pub fn from_builtin(b: &Builtin) -> Result<NamedModel> {
        Ok(NamedModel {
            name: b.name.to_string(),
            version: b.version(),
            target: b.target.to_string(),
            source: format!("builtin:{}", b.name),
            model: b.load()?,
            header: None,
        })
    }

    /// A model file, named `name` (the file stem when `None`).
    pub fn from_file(path: &Path, name: Option<&str>) -> Result<NamedModel> {
        let bytes = crate::model_file::read_model_bytes(path)?;
        let model = ModelFile::from_bytes(&bytes, &path.display().to_string())?;
        let name = match name {
            Some(n) => n.to_string(),
            None => model_name_of(path).unwrap_or_else(|| path.display().to_string()),
        };
        Ok(NamedModel {
            name,
            version: format!("{:016x}", fnv1a64(&bytes)),
            target: model.target.clone(),
            source: path.display().to_string(),
            model,
            header: crate::model_file::header_of(&bytes),
        })
    }

    /// The name a `--model` spec's predictions will carry, found without reading the model
    /// file (the name [`NamedModel::from_spec`] gives it): a built-in's name, `NAME` of
    /// `NAME=PATH`, or the file's stem. An unknown built-in or a malformed spec is an error.
    pub fn name_of_spec(spec: impl AsRef<OsStr>) -> Result<String> {
        let spec = spec.as_ref();
        match spec.to_str().and_then(|s| s.strip_prefix("builtin:")) {
            Some(name) => Ok(builtin::find(name)?.name.to_string()),
            None => {
                let (name, path) = split_model_spec(spec).map_err(|e| anyhow::anyhow!(e))?;
                Ok(name.unwrap_or_else(|| {
                    model_name_of(&path).unwrap_or_else(|| path.display().to_string())
                }))
            }
        }
    }

    /// The `--model` specs checked before any file is read: each names a known built-in or
    /// is a well-formed `PATH` / `NAME=PATH`, and no two give their predictions one name (two
    /// CSV columns `a`, JSON lines with the same `"model"` could not be told apart). `score`
    /// reports a failure as a usage error (exit 2).
    pub fn check_specs(specs: &[impl AsRef<OsStr>]) -> Result<()> {
        let names = specs
            .iter()
            .map(Self::name_of_spec)
            .collect::<Result<Vec<_>>>()?;
        for (i, name) in names.iter().enumerate() {
            if aesop_eval::report::PREDICTION_TABLE_TEXT_COLUMNS.contains(&name.as_str()) {
                bail!(
                    "a model named '{name}' ({}): that is a column of the predictions' table \
                     beside theirs; name it otherwise as NAME=PATH",
                    specs[i].as_ref().to_string_lossy()
                );
            }
            if let Some(first) = names[..i].iter().position(|n| n == name) {
                bail!(
                    "two models are named '{name}' ({} and {}); name them apart as NAME=PATH (the CLI's --model NAME=PATH, Python's models=[\"NAME=PATH\"])",
                    specs[first].as_ref().to_string_lossy(),
                    specs[i].as_ref().to_string_lossy()
                );
            }
        }
        Ok(())
    }

    /// `builtin:NAME`, a model file `PATH`, or `NAME=PATH` (see [`split_model_spec`]).
    pub fn from_spec(spec: impl AsRef<OsStr>) -> Result<NamedModel> {
        let spec = spec.as_ref();
        match spec.to_str().and_then(|s| s.strip_prefix("builtin:")) {
            Some(name) => NamedModel::from_builtin(builtin::find(name)?),
            None => {
                let (name, path) = split_model_spec(spec).map_err(|e| anyhow::anyhow!(e))?;
                // `--model readability` is a file by that name; without one, say how to name
                // the built-in rather than only "No such file".
                if let Some(spec) = spec.to_str() {
                    if !path.exists() && builtin::find(spec).is_ok() {
                        anyhow::bail!(
                            "{spec}: no such model file; for the built-in model write builtin:{spec}"
                        );
                    }
                }
                NamedModel::from_file(&path, name.as_deref())
            }
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

/// A model file as `score --model` and `serve --model` both take it: `PATH` (named by the
/// file's stem) or `NAME=PATH`. A path that exists is taken whole, even if it holds `=`. The
/// path may hold any byte a file name may hold ([`aesop_core::input::split_arg`]); a name is
/// UTF-8.
pub fn split_model_spec(
    text: impl AsRef<OsStr>,
) -> std::result::Result<(Option<String>, PathBuf), String> {
    let text = text.as_ref();
    let shown = text.to_string_lossy();
    if !Path::new(text).exists() {
        if let Some((name_given, path)) = aesop_core::input::split_arg(text, b'=', false) {
            let name = name_given.to_string_lossy();
            let name = name.trim();
            if name.is_empty() || path.is_empty() {
                return Err(format!("expected PATH or NAME=PATH, got '{shown}'"));
            }
            if name.contains(|c: char| c.is_whitespace() || c.is_control()) {
                return Err(format!("model name '{name}' must not contain spaces"));
            }
            if !name.contains(std::path::MAIN_SEPARATOR) {
                if name_given.to_str().is_none() {
                    return Err(format!(
                        "model name '{name}' is not UTF-8: name the model in UTF-8 (NAME=PATH)"
                    ));
                }
                return Ok((Some(name.to_string()), PathBuf::from(path)));
            }
        }
    }
    if text.is_empty() {
        return Err("expected PATH or NAME=PATH, got ''".to_string());
    }
    Ok((None, PathBuf::from(text)))
}

/// The name a model file goes by when none is given: its file stem, read through a trailing
/// `.gz` (`m.json.gz` is `m`, as `m.json` is).
pub fn model_name_of(path: &Path) -> Option<String> {
    aesop_core::input::plain_name(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
}

/// Every classic built-in model, loaded.
pub fn load_builtins() -> Result<Vec<NamedModel>> {
    load_builtins_of(Family::Classic)
}

/// Every built-in model of `family`, loaded (the neural family includes the classic ones).
pub fn load_builtins_of(family: Family) -> Result<Vec<NamedModel>> {
    builtin::BUILTINS
        .iter()
        .filter(|b| family.includes(b))
        .map(NamedModel::from_builtin)
        .collect()
}

/// The built-in models `score` uses for a topic when none is named: for each default target the
/// reference-based variant if the topic has references, else the reference-free one.
pub fn default_model_names(topic: &Topic) -> Vec<&'static str> {
    default_model_names_of(topic, Family::Classic)
}

/// [`default_model_names`] for the built-ins of `family`.
pub fn default_model_names_of(topic: &Topic, family: Family) -> Vec<&'static str> {
    family
        .targets()
        .iter()
        .filter_map(|t| builtin::default_of(t, !topic.references.is_empty(), family).ok())
        .map(|b| b.name)
        .collect()
}

/// Predictions of several models for the same topics.
#[derive(Debug)]
pub struct Scored {
    /// The features of every summary (all classes any model uses), in set order.
    pub table: FeatureTable,
    /// `scores[m][r]`: model `m`'s prediction for record `r` of `table` (calibrated to the
    /// target's scale when the model has a calibration; NaN, written as `null`, for a
    /// degenerate summary).
    pub scores: Vec<Vec<f64>>,
    /// `raw[m][r]`: model `m`'s raw output; empty for a model without a calibration.
    pub raw: Vec<Vec<f64>>,
    /// `degenerate[r]`: why record `r` was not scored (see [`super::degenerate`]).
    pub degenerate: Vec<Option<Degenerate>>,
    /// `outside[m]`: the summaries model `m` scored with features outside its training ranges
    /// (`None` for a model file without ranges).
    pub outside: Vec<Option<RangeTally>>,
    /// `in_training[m][r]`: model `m` learned from record `r`'s summary (its model file records
    /// the same topic id and text, [`ModelFile::learned_from`]), so its prediction is in-sample;
    /// empty for a model that learned from none of these summaries.
    pub in_training: Vec<Vec<bool>>,
}

impl Scored {
    /// Whether model `m` learned from record `r`'s summary (see [`Scored::in_training`]).
    pub fn in_training_of(&self, m: usize, r: usize) -> bool {
        self.in_training
            .get(m)
            .and_then(|v| v.get(r))
            .copied()
            .unwrap_or(false)
    }

    /// `value(m, r)` per record `r`, per model `m`: the order `aesop score` writes them in.
    pub fn per_summary<T>(&self, value: impl Fn(usize, usize) -> T) -> Vec<Vec<T>> {
        (0..self.table.records.len())
            .map(|r| (0..self.scores.len()).map(|m| value(m, r)).collect())
            .collect()
    }

    /// Model `m`'s raw output for record `r`, when it differs from its score (calibrated).
    pub fn raw_of(&self, m: usize, r: usize) -> Option<f64> {
        self.raw.get(m).and_then(|v| v.get(r)).copied()
    }

    /// Add each model's features outside its training ranges to `run` (`models`: the models
    /// that scored, in score order).
    pub fn add_ranges_to(&self, models: &[&NamedModel], run: &mut RunRanges) {
        add_ranges(models, &self.outside, run);
    }

    /// One line per kind of degenerate summary, for a warning on output.
    pub fn degenerate_warnings(&self) -> Vec<String> {
        let mut tally = degenerate::Tally::default();
        for (record, kind) in self.table.records.iter().zip(&self.degenerate) {
            if let Some(kind) = kind {
                tally.add(*kind, || format!("{}/{}", record.topic, record.system));
            }
        }
        tally.warnings("null")
    }
}

/// Add the tallies `outside` of `models` (in score order; see [`Scored::outside`]) to `run`.
pub fn add_ranges(models: &[&NamedModel], outside: &[Option<RangeTally>], run: &mut RunRanges) {
    for (model, tally) in models.iter().zip(outside) {
        if let Some(tally) = tally {
            run.add(&model.name, &model.model.feature_names, tally);
        }
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
    Scorer::new(models)?.score(topics, show_progress, cancel)
}

/// Two models that cannot score in one run: a feature class both use, or the neural LM class,
/// was trained with different options. `aesop score` refuses them with this message, which
/// names the files; the HTTP service groups models by [`check_compatible`] and scores such
/// models in separate passes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("models {first_source} and {second_source} were trained with different {what}; score them in separate runs")]
pub struct IncompatibleModels {
    /// The models' names (`NamedModel::name`).
    pub first: String,
    pub second: String,
    /// Their sources (`NamedModel::source`: a path or `builtin:NAME`).
    pub first_source: String,
    pub second_source: String,
    /// What differs: `neural options`, or ``options of the `rouge` class (rouge_mode)``.
    pub what: String,
}

impl IncompatibleModels {
    fn new(first: &NamedModel, second: &NamedModel, what: String) -> IncompatibleModels {
        IncompatibleModels {
            first: first.name.clone(),
            second: second.name.clone(),
            first_source: first.source.clone(),
            second_source: second.source.clone(),
            what,
        }
    }
}

/// The feature-class options under which `models` score together: each class's options from
/// the models that use the class, which must agree; a class no model uses keeps the first
/// model's (they are never read). Until 2026-11-28 the whole records had to be equal, so a
/// model trained with `--rouge-mode b` could not be scored beside the built-in `readability`,
/// which computes no ROUGE.
fn merged_feature_options(models: &[&NamedModel]) -> Result<FeatureOptionsRecord> {
    let Some(first) = models.first() else {
        bail!("no model to score with");
    };
    let mut merged = option_fields(first)?;
    let mut owner: std::collections::HashMap<String, &NamedModel> =
        std::collections::HashMap::new();
    for m in models {
        let map = option_fields(m)?;
        for (field, value) in map {
            let class = class_of_field(&field).to_string();
            if !m.model.classes.contains(&class) {
                continue;
            }
            match owner.get(&field) {
                Some(other) if merged.get(&field) != Some(&value) => {
                    return Err(IncompatibleModels::new(
                        other,
                        m,
                        format!("options of the `{class}` class ({field})"),
                    )
                    .into())
                }
                Some(_) => {}
                None => {
                    owner.insert(field.clone(), m);
                    merged.insert(field, value);
                }
            }
        }
    }
    serde_json::from_value(serde_json::Value::Object(merged))
        .context("merging the models' feature options")
}

/// The fields of a model's feature-options record. Its top-level fields are named after their
/// class ([`class_of_field`]): `content_delta`, `rouge`, `graph_rank`, `tesla_alpha`, ….
fn option_fields(m: &NamedModel) -> Result<serde_json::Map<String, serde_json::Value>> {
    match serde_json::to_value(&m.model.feature_options) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        _ => bail!("model {}: its feature options do not serialize", m.source),
    }
}

/// The class an options-record field belongs to: the name before its first `_`.
fn class_of_field(field: &str) -> &str {
    field.split('_').next().unwrap_or(field)
}

/// The LM options of `models` (those that use an LM class), which must agree.
fn neural_record<'a>(models: &[&'a NamedModel]) -> Result<Option<&'a NeuralRecord>> {
    let mut neural: Option<(&NamedModel, Option<&NeuralRecord>)> = None;
    for m in models
        .iter()
        .filter(|m| m.model.classes.iter().any(|c| is_lm_class(c)))
    {
        match neural {
            None => neural = Some((m, m.model.neural.as_ref())),
            Some((other, record)) if record != m.model.neural.as_ref() => {
                return Err(IncompatibleModels::new(other, m, "neural options".into()).into())
            }
            Some(_) => {}
        }
    }
    Ok(neural.and_then(|(_, record)| record))
}

/// Can `models` score in one run ([`Scorer::new`])? An [`IncompatibleModels`] error when two of
/// them compute a class they share, or the LM classes, under different options.
pub fn check_compatible(models: &[&NamedModel]) -> Result<()> {
    merged_feature_options(models)?;
    neural_record(models)?;
    Ok(())
}

/// Do `a` and `b` compute the feature class `class` under different options? Then a feature
/// of that class holds different values for them (the HTTP service, which scores such models
/// in separate runs, reports both).
pub fn computes_class_differently(a: &NamedModel, b: &NamedModel, class: &str) -> bool {
    if is_lm_class(class) {
        return a.model.neural != b.model.neural;
    }
    match (option_fields(a), option_fields(b)) {
        (Ok(x), Ok(y)) => x
            .iter()
            .any(|(field, value)| class_of_field(field) == class && y.get(field) != Some(value)),
        _ => true,
    }
}

/// Models that score together, with their feature classes built once: the reusable core of
/// [`score_topics`] for callers that score many batches (streaming `aesop score`, Python).
pub struct Scorer<'m> {
    models: Vec<&'m NamedModel>,
    classes: Vec<Box<dyn FeatureClass>>,
}

impl<'m> Scorer<'m> {
    /// Check that the models share feature options and build the union of their classes.
    pub fn new(models: &[&'m NamedModel]) -> Result<Scorer<'m>> {
        let Some(first) = models.first() else {
            bail!("no model to score with");
        };
        let merged = merged_feature_options(models)?;
        // The union of classes in the registry's order, then any unknown ones (which fail in
        // build_classes with the list of known classes).
        let mut classes: Vec<String> = CLASSES
            .iter()
            .filter(|c| {
                models
                    .iter()
                    .any(|m| m.model.classes.iter().any(|x| x == c.name))
            })
            .map(|c| c.name.to_string())
            .collect();
        for m in models {
            for c in &m.model.classes {
                if !classes.contains(c) {
                    classes.push(c.clone());
                }
            }
        }
        let mut options: FeatureOptions = (&merged).into();
        if let Some(record) = neural_record(models)? {
            options.neural = record.into();
        }
        let classes = build_classes(&classes, &options).with_context(|| {
            // The neural class fails to build when its model file is absent: name the models
            // that need it, not merely the first one.
            let neural: Vec<&str> = models
                .iter()
                .filter(|m| m.model.classes.iter().any(|c| is_lm_class(c)))
                .map(|m| m.source.as_str())
                .collect();
            if neural.is_empty() {
                format!(
                    "model {} needs a feature class this build lacks",
                    first.source
                )
            } else {
                format!("{} use a neural LM class", neural.join(", "))
            }
        })?;
        Ok(Scorer {
            models: models.to_vec(),
            classes,
        })
    }

    /// The models, in score order.
    pub fn models(&self) -> &[&'m NamedModel] {
        &self.models
    }

    /// Score `topics` with every model; fails when a model needs references a topic lacks.
    pub fn score(
        &self,
        topics: &[Topic],
        show_progress: bool,
        cancel: &AtomicBool,
    ) -> Result<Scored> {
        for m in &self.models {
            m.check_references(topics)?;
        }
        // Degenerate summaries are not scored, so their features are not computed either (a
        // 10 MB one would cost minutes): their text is emptied for extraction.
        let degenerate: Vec<Option<Degenerate>> = topics
            .iter()
            .flat_map(|t| &t.summaries)
            .map(|s| degenerate::detect(&s.text))
            .collect();
        let cleaned = without_degenerate_text(topics, &degenerate);
        let mut table = extract_features(
            cleaned.as_deref().unwrap_or(topics),
            &self.classes,
            show_progress,
            cancel,
        )?;
        table.skipped.retain(|s| self.uses_missing_features(s));
        let mut scores = Vec::new();
        let mut raw = Vec::new();
        let mut outside = Vec::new();
        for m in &self.models {
            // Degenerate summaries get no score, so their (empty) features are not counted.
            let predicted = m
                .model
                .predict_table_calibrated(&table, |r| {
                    degenerate.get(r).is_some_and(Option::is_none)
                })
                .with_context(|| format!("scoring with {}", m.source))?;
            scores.push(predicted.score);
            raw.push(if m.model.transfer.calibration.is_some() {
                predicted.raw
            } else {
                Vec::new()
            });
            outside.push(predicted.outside);
        }
        let mut scored = mark_degenerate(degenerate, table, scores, raw, outside)?;
        scored.in_training = self.in_training(topics);
        Ok(scored)
    }

    /// [`Scored::in_training`] of `topics`: each summary's identity is computed only when some
    /// model records those it learned from.
    fn in_training(&self, topics: &[Topic]) -> Vec<Vec<bool>> {
        let recorded = |m: &&NamedModel| m.model.training_identities.is_some();
        if !self.models.iter().any(recorded) {
            return vec![Vec::new(); self.models.len()];
        }
        let identities: Vec<u64> = topics
            .iter()
            .flat_map(|t| {
                t.summaries
                    .iter()
                    .map(|s| aesop_corpus::summary_identity(&t.topic, &s.text))
            })
            .collect();
        self.models
            .iter()
            .map(|m| {
                let learned: Vec<bool> = identities
                    .iter()
                    .map(|&id| m.model.learned_from(id))
                    .collect();
                if learned.contains(&true) {
                    learned
                } else {
                    Vec::new()
                }
            })
            .collect()
    }
}

impl Scorer<'_> {
    /// Whether some model reads features that `skipped` says are missing: a class that lacks
    /// only its reference-based values (`graph` without references) takes nothing from a model
    /// trained on its reference-free features alone, so no warning is due.
    fn uses_missing_features(&self, skipped: &aesop_features::run::Skipped) -> bool {
        if skipped.reference_features_only < skipped.summaries {
            return true;
        }
        let Some(class) = self.classes.iter().find(|c| c.name() == skipped.class) else {
            return true;
        };
        self.models.iter().any(|m| {
            m.model.feature_names.iter().any(|name| {
                name.split('.').next() == Some(skipped.class.as_str())
                    && !class.is_reference_free_feature(name)
            })
        })
    }
}

/// `topics` with the text of every degenerate summary emptied (`degenerate`: one entry per
/// summary, topic by topic), or `None` when there is none.
fn without_degenerate_text(
    topics: &[Topic],
    degenerate: &[Option<Degenerate>],
) -> Option<Vec<Topic>> {
    if degenerate.iter().all(Option::is_none) {
        return None;
    }
    let mut cleaned = topics.to_vec();
    let summaries = cleaned.iter_mut().flat_map(|t| t.summaries.iter_mut());
    for (summary, kind) in summaries.zip(degenerate) {
        if kind.is_some() {
            summary.text.clear();
        }
    }
    Some(cleaned)
}

/// Null the scores of degenerate summaries. `degenerate` has one entry per summary, topic by
/// topic, the order of the table's records.
fn mark_degenerate(
    degenerate: Vec<Option<Degenerate>>,
    table: FeatureTable,
    mut scores: Vec<Vec<f64>>,
    mut raw: Vec<Vec<f64>>,
    outside: Vec<Option<RangeTally>>,
) -> Result<Scored> {
    anyhow::ensure!(
        degenerate.len() == table.records.len(),
        "internal error: {} feature records for {} summaries",
        table.records.len(),
        degenerate.len()
    );
    for model_scores in scores.iter_mut().chain(raw.iter_mut()) {
        for (score, kind) in model_scores.iter_mut().zip(&degenerate) {
            if kind.is_some() {
                *score = f64::NAN;
            }
        }
    }
    Ok(Scored {
        table,
        scores,
        raw,
        degenerate,
        outside,
        in_training: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamed(builtin: &str, name: &str, edit: impl FnOnce(&mut ModelFile)) -> NamedModel {
        let mut model =
            NamedModel::from_builtin(builtin::find(builtin).expect("built-in")).expect("loads");
        model.name = name.to_string();
        model.source = format!("/srv/{name}.aesop");
        edit(&mut model.model);
        model
    }

    /// The error says which models, by name for the service and by file for `score`, before any
    /// LM is needed.
    #[test]
    fn models_with_different_neural_options_are_a_typed_error() {
        let long = renamed("readability-lm-noref", "long", |_| {});
        let short = renamed("readability-lm-noref", "short", |m| {
            if let Some(neural) = m.neural.as_mut() {
                neural.max_scored_tokens += 1;
            }
        });
        let Err(e) = Scorer::new(&[&long, &short]) else {
            panic!("two neural option sets scored together");
        };
        let incompatible = e
            .downcast_ref::<IncompatibleModels>()
            .expect("an IncompatibleModels error");
        assert_eq!(
            (incompatible.first.as_str(), incompatible.second.as_str()),
            ("long", "short")
        );
        assert_eq!(incompatible.what, "neural options");
        assert_eq!(
            e.to_string(),
            "models /srv/long.aesop and /srv/short.aesop were trained with different neural options; score them in separate runs"
        );
    }
}
