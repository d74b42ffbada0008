//! The built-in models, embedded in the binary so that `aesop score` works on a fresh machine
//! with no setup. They are trained by `scripts/train-builtin` from the public judgment sets in
//! ../shared/data and written to models/builtin/, each with a model card (NAME.md).

use super::model_file::{fnv1a64, ModelFile};
use anyhow::{bail, Result};

/// One embedded model and its card.
#[derive(Debug)]
pub struct Builtin {
    /// `pyramid`, `pyramid-noref`, …
    pub name: &'static str,
    /// The aesop target it predicts (`pyramid`, `responsiveness` or `readability`).
    pub target: &'static str,
    /// Needs no references.
    pub reference_free: bool,
    /// The model card (Markdown): data, features, learner, protocol-1 scores.
    pub card: &'static str,
    bytes: &'static [u8],
}

macro_rules! builtin {
    ($name:literal, $target:literal, $noref:literal) => {
        Builtin {
            name: $name,
            target: $target,
            reference_free: $noref,
            card: include_str!(concat!("../../models/builtin/", $name, ".md")),
            bytes: include_bytes!(concat!("../../models/builtin/", $name, ".aesop")),
        }
    };
}

/// Every built-in model, reference-based variant first for each target.
pub const BUILTINS: &[Builtin] = &[
    builtin!("pyramid", "pyramid", false),
    builtin!("pyramid-noref", "pyramid", true),
    builtin!("responsiveness", "responsiveness", false),
    builtin!("responsiveness-noref", "responsiveness", true),
    builtin!("readability", "readability", false),
    builtin!("readability-noref", "readability", true),
];

/// The targets `score` predicts when no model is named.
pub const DEFAULT_TARGETS: &[&str] = &["pyramid", "responsiveness", "readability"];

impl Builtin {
    /// Decode the embedded model file.
    pub fn load(&self) -> Result<ModelFile> {
        Ok(ModelFile::from_bytes(
            self.bytes,
            &format!("builtin:{}", self.name),
        )?)
    }

    /// aesop's version plus a short hash of the model bytes, so a retrained model shows.
    pub fn version(&self) -> String {
        format!(
            "{}+{:08x}",
            env!("CARGO_PKG_VERSION"),
            fnv1a64(self.bytes) as u32
        )
    }

    /// The first line of the card after its title: a one-line description.
    pub fn summary(&self) -> &'static str {
        self.card
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("")
    }
}

/// The built-in model called `name`.
pub fn find(name: &str) -> Result<&'static Builtin> {
    match BUILTINS.iter().find(|b| b.name == name) {
        Some(b) => Ok(b),
        None => bail!(
            "no built-in model '{name}'; built-in models: {}",
            BUILTINS
                .iter()
                .map(|b| b.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The variant of `target`'s built-in model for a topic with or without references.
pub fn default_for(target: &str, has_references: bool) -> Result<&'static Builtin> {
    let name = if has_references {
        target.to_string()
    } else {
        format!("{target}-noref")
    };
    find(&name)
}

/// What `aesop models` prints: a table of the built-ins (or JSON), or one model's full card.
pub fn describe(name: Option<&str>, json: bool) -> Result<String> {
    if let Some(name) = name {
        let b = find(name)?;
        return Ok(if json {
            serde_json::to_string_pretty(&card_json(b))? + "\n"
        } else {
            b.card.to_string()
        });
    }
    if json {
        let all: Vec<_> = BUILTINS.iter().map(card_json).collect();
        return Ok(serde_json::to_string_pretty(&all)? + "\n");
    }
    let mut out = format!(
        "{:<22} {:<15} {:<11} {}\n",
        "name", "target", "references", "model"
    );
    for b in BUILTINS {
        out.push_str(&format!(
            "{:<22} {:<15} {:<11} {}\n",
            b.name,
            b.target,
            if b.reference_free { "none" } else { "needed" },
            b.summary()
        ));
    }
    out.push_str(
        "\n`aesop models NAME` prints a model's card; `aesop score` uses them by default.\n",
    );
    Ok(out)
}

/// One built-in as JSON (also what the HTTP service's `GET /v1/models` lists).
pub fn card_json(b: &Builtin) -> serde_json::Value {
    serde_json::json!({
        "name": b.name,
        "target": b.target,
        "reference_free": b.reference_free,
        "version": b.version(),
        "summary": b.summary(),
        "card": b.card,
    })
}
