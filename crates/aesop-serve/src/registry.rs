//! The models the service can score with: the built-ins (always) and user model files given as
//! `--model NAME=PATH`, which a reload reads again. A registry is immutable; a reload builds a
//! new one and swaps it in, so requests in flight keep the one they started with.

use aesop_corpus::{Document, Reference, Summary, Topic};
use aesop_learn::builtin::{self, Family};
use aesop_learn::card;
use aesop_learn::score_stream::scores_each_summary_alone;
use aesop_learn::scoring::{load_builtins_of, score_topics, NamedModel};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A user model: `NAME=PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSpec {
    pub name: String,
    pub path: PathBuf,
}

impl ModelSpec {
    /// `PATH` or `NAME=PATH`, the path as given (it may hold bytes that are not UTF-8); a name
    /// taken from the file's stem must be UTF-8 without spaces, since requests name it.
    pub fn parse(text: &std::ffi::OsStr) -> std::result::Result<ModelSpec, String> {
        let (name, path) = aesop_learn::scoring::split_model_spec(text)?;
        let name = match name {
            Some(name) => name,
            // A stem that is not UTF-8 reads with U+FFFD in it, which no client could type.
            None => aesop_learn::scoring::model_name_of(&path)
                .filter(|s| !s.contains(char::is_whitespace) && !s.contains('\u{fffd}'))
                .ok_or_else(|| {
                    format!(
                        "'{}': no usable model name in the file name (one word of UTF-8); give NAME=PATH",
                        text.to_string_lossy()
                    )
                })?,
        };
        Ok(ModelSpec { name, path })
    }

    /// [`ModelSpec::parse`] as clap's parser of `--model`, reading the argument as given (not as
    /// a `String`, which refuses a path that is not UTF-8).
    #[cfg(feature = "cli")]
    pub fn parser() -> impl clap::builder::TypedValueParser<Value = ModelSpec> {
        use clap::builder::TypedValueParser as _;
        clap::builder::OsStringValueParser::new().try_map(|text| ModelSpec::parse(&text))
    }
}

impl FromStr for ModelSpec {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<ModelSpec, String> {
        ModelSpec::parse(text.as_ref())
    }
}

/// One generation of loaded models: built-ins first (in `aesop models` order), then user
/// models in the order given.
#[derive(Debug)]
pub struct Registry {
    models: Vec<Arc<NamedModel>>,
    builtin_count: usize,
    /// The built-ins used when a request names no model.
    family: Family,
}

impl Registry {
    /// Load and pre-warm the classic built-ins and the user models.
    pub fn load(specs: &[ModelSpec]) -> Result<Registry> {
        Registry::load_family(specs, Family::Classic)
    }

    /// Load and pre-warm the built-ins of `family` (the neural family loads the LM once) and
    /// the user models.
    pub fn load_family(specs: &[ModelSpec], family: Family) -> Result<Registry> {
        let builtins: Vec<Arc<NamedModel>> = load_builtins_of(family)?
            .into_iter()
            .map(Arc::new)
            .collect();
        warm(&builtins)?;
        Registry::with_builtins(builtins, specs, family)
    }

    /// A new generation that keeps this one's built-ins and reads the user model files again.
    /// Any bad file fails the whole reload, and the caller keeps serving the old generation.
    pub fn reload(&self, specs: &[ModelSpec]) -> Result<Registry> {
        Registry::with_builtins(
            self.models[..self.builtin_count].to_vec(),
            specs,
            self.family,
        )
    }

    /// The built-ins used when a request names no model.
    pub fn family(&self) -> Family {
        self.family
    }

    fn with_builtins(
        builtins: Vec<Arc<NamedModel>>,
        specs: &[ModelSpec],
        family: Family,
    ) -> Result<Registry> {
        let builtin_count = builtins.len();
        let mut models = builtins;
        for spec in specs {
            if models.iter().any(|m| m.name == spec.name) {
                bail!(
                    "--model {}={}: the name '{}' is already taken{}",
                    spec.name,
                    spec.path.display(),
                    spec.name,
                    if builtin::find(&spec.name).is_ok() {
                        " by a built-in model"
                    } else {
                        ""
                    }
                );
            }
            let model = NamedModel::from_file(&spec.path, Some(&spec.name))
                .with_context(|| format!("loading model '{}'", spec.name))?;
            let model = Arc::new(model);
            warm(std::slice::from_ref(&model))
                .with_context(|| format!("model '{}' cannot score", spec.name))?;
            models.push(model);
        }
        Ok(Registry {
            models,
            builtin_count,
            family,
        })
    }

    pub fn get(&self, name: &str) -> Option<&Arc<NamedModel>> {
        self.models.iter().find(|m| m.name == name)
    }

    pub fn models(&self) -> &[Arc<NamedModel>] {
        &self.models
    }

    /// The cards `GET /v1/models` lists: the built-ins' own cards, and for user models what the
    /// model file says about itself, as `aesop models FILE --json` gives it less the weights,
    /// the stored report and the feature list (a count here; `GET /v1/models/{name}` has them
    /// all). Each says whether the model is `batch_dependent`: whether a summary's score
    /// depends on the other summaries of its topic sent in the same request.
    pub fn cards(&self) -> Vec<serde_json::Value> {
        (0..self.models.len())
            .map(|i| {
                let mut card = self.card(i);
                if let Some(facts) = card.as_object_mut() {
                    if !self.is_builtin(i) {
                        facts.remove("weights");
                        facts.remove("report");
                        facts.insert(
                            "features".into(),
                            self.models[i].model.feature_names.len().into(),
                        );
                    }
                }
                card
            })
            .collect()
    }

    /// The whole card of the model `name` (`GET /v1/models/{name}`): for a user model every
    /// fact of `aesop models FILE --json` (the file's path as `source`), for a built-in its card.
    pub fn card_of(&self, name: &str) -> Option<serde_json::Value> {
        let i = self.models.iter().position(|m| m.name == name)?;
        Some(self.card(i))
    }

    fn is_builtin(&self, i: usize) -> bool {
        i < self.builtin_count && builtin::find(&self.models[i].name).is_ok()
    }

    /// The card of the `i`th model of this registry, with the service's facts.
    fn card(&self, i: usize) -> serde_json::Value {
        let m = &self.models[i];
        let mut card = if self.is_builtin(i) {
            match builtin::find(&m.name) {
                Ok(b) => builtin::card_json(b),
                Err(_) => serde_json::json!({}),
            }
        } else {
            // What `aesop models FILE` prints, as text (`card`) and with --json.
            let mut card = card::card_facts(&m.model, &m.source, m.header.clone());
            let text = card::render(&card);
            if let Some(facts) = card.as_object_mut() {
                facts.insert("card".into(), text.into());
                facts.remove("file");
            }
            card
        };
        card["name"] = serde_json::json!(m.name);
        card["version"] = serde_json::json!(m.version);
        card["builtin"] = serde_json::json!(self.is_builtin(i));
        if !self.is_builtin(i) {
            card["source"] = serde_json::json!(m.source);
        }
        card["batch_dependent"] = serde_json::json!(!scores_each_summary_alone(&m.model));
        card
    }
}

/// Score a tiny topic with every model once: checks that each can score at all, and makes the
/// first real request as fast as later ones (lazily decoded resources are decoded now).
pub fn warm(models: &[Arc<NamedModel>]) -> Result<()> {
    let topic = warm_topic();
    let never = AtomicBool::new(false);
    for model in models {
        let scored = score_topics(
            &[model.as_ref()],
            std::slice::from_ref(&topic),
            false,
            &never,
        )?;
        if scored.scores.first().map(Vec::len) != Some(topic.summaries.len()) {
            bail!("model {} gave no predictions", model.source);
        }
    }
    Ok(())
}

fn warm_topic() -> Topic {
    let mut topic = Topic::new("warm-up");
    topic.documents.push(Document::new(
        "d1",
        "The city council approved a new budget on Monday. The plan raises spending on schools \
         and parks. Critics said the council ignored rising costs of public transport.",
    ));
    topic.references.push(Reference::new(
        "r1",
        "The council passed a budget that spends more on schools and parks.",
    ));
    topic.summaries.push(Summary::new(
        "s1",
        "The council approved a budget raising school and park spending.",
    ));
    topic.summaries.push(Summary::new(
        "s2",
        "Critics said transport costs were ignored.",
    ));
    topic
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn parses_model_specs() {
        let spec: ModelSpec = "mine=/tmp/a=b.aesop".parse().expect("valid");
        assert_eq!(spec.name, "mine");
        assert_eq!(spec.path, PathBuf::from("/tmp/a=b.aesop"));
        // A bare path is named by its file's stem, as `score --model PATH` names it.
        let spec: ModelSpec = "/tmp/relevance.aesop".parse().expect("valid");
        assert_eq!(spec.name, "relevance");
        assert_eq!(spec.path, PathBuf::from("/tmp/relevance.aesop"));
        assert!("=path".parse::<ModelSpec>().is_err());
        assert!("a b=path".parse::<ModelSpec>().is_err());
    }

    /// The path may be any bytes; a name, given or taken from the stem, is what requests type.
    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_served_under_a_utf8_name() {
        use std::os::unix::ffi::OsStrExt;
        let spec = ModelSpec::parse(OsStr::from_bytes(b"mine=/tmp/m\xff.aesop")).expect("valid");
        assert_eq!(spec.name, "mine");
        assert_eq!(spec.path.as_os_str().as_bytes(), b"/tmp/m\xff.aesop");
        let error = ModelSpec::parse(OsStr::from_bytes(b"/tmp/m\xff.aesop")).expect_err("no name");
        assert!(error.contains("give NAME=PATH"), "{error}");
        let error = ModelSpec::parse(OsStr::from_bytes(b"n\xff=/tmp/m.aesop")).expect_err("name");
        assert!(error.contains("is not UTF-8"), "{error}");
    }
}
