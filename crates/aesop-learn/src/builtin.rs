//! The built-in models, embedded in the binary so that `aesop score` works on a fresh machine
//! with no setup. They are trained by `scripts/build/train-builtin` from the public judgment sets in
//! ../shared/data and written to models/builtin/, each with a model card (NAME.md).

use super::model_file::ModelFile;
use aesop_core::hash::fnv1a64;
use anyhow::{bail, Result};

/// One embedded model and its card.
#[derive(Debug)]
pub struct Builtin {
    /// `pyramid`, `pyramid-noref`, …
    pub name: &'static str,
    /// The aesop target it predicts (`pyramid`, `responsiveness` or `readability`).
    pub target: &'static str,
    /// Needs no references: true of every `-noref` variant and of `readability` and
    /// `readability-lm`, whose columns all work without references (they are the variants
    /// picked when topics have references because they learned only from sets with references;
    /// the `-noref` twins also learned from SummEval-OP).
    pub reference_free: bool,
    /// Uses a SmolLM2 class (`neural`, `neural_truecased`), so it needs `aesop models fetch
    /// smollm2`; `score --neural` picks these.
    pub neural: bool,
    /// The model card (Markdown): data, features, learner, protocol-1 scores.
    pub card: &'static str,
    bytes: &'static [u8],
}

macro_rules! builtin {
    ($name:literal, $target:literal, $noref:literal) => {
        builtin!($name, $target, $noref, false)
    };
    ($name:literal, $target:literal, $noref:literal, $neural:literal) => {
        Builtin {
            name: $name,
            target: $target,
            reference_free: $noref,
            neural: $neural,
            card: include_str!(concat!("../../../models/builtin/", $name, ".md")),
            bytes: include_bytes!(concat!("../../../models/builtin/", $name, ".aesop")),
        }
    };
}

/// Every built-in model, reference-based variant first for each target.
pub const BUILTINS: &[Builtin] = &[
    builtin!("pyramid", "pyramid", false),
    builtin!("pyramid-noref", "pyramid", true),
    builtin!("responsiveness", "responsiveness", false),
    builtin!("responsiveness-noref", "responsiveness", true),
    builtin!("readability", "readability", true),
    builtin!("readability-noref", "readability", true),
    builtin!("readability-lm", "readability", true, true),
    builtin!("readability-lm-noref", "readability", true, true),
    builtin!("responsiveness-lm", "responsiveness", false, true),
    builtin!("faithfulness", "faithfulness", true, true),
];

/// The targets `score` predicts when no model is named.
pub const DEFAULT_TARGETS: &[&str] = &["pyramid", "responsiveness", "readability"];

/// The targets `score --neural` predicts.
pub const NEURAL_TARGETS: &[&str] = &["pyramid", "responsiveness", "readability", "faithfulness"];

/// Which built-ins `score` and `serve` use when no model is named: the classic ones (no
/// download needed, the default) or the variants with the neural LM class where one exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Family {
    #[default]
    Classic,
    Neural,
}

impl Family {
    /// The targets predicted by default.
    pub fn targets(self) -> &'static [&'static str] {
        match self {
            Family::Classic => DEFAULT_TARGETS,
            Family::Neural => NEURAL_TARGETS,
        }
    }

    /// Whether the family's built-ins include `b`.
    pub fn includes(self, b: &Builtin) -> bool {
        self == Family::Neural || !b.neural
    }
}

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

/// The variant of `target`'s classic built-in model for a topic with or without references.
pub fn default_for(target: &str, has_references: bool) -> Result<&'static Builtin> {
    default_of(target, has_references, Family::Classic)
}

/// [`default_for`] in `family`: for the neural family `TARGET-lm[-noref]` where it exists, else
/// the classic model. A target whose only model is reference-free (`faithfulness`) uses it with
/// and without references.
pub fn default_of(target: &str, has_references: bool, family: Family) -> Result<&'static Builtin> {
    let suffix = if has_references { "" } else { "-noref" };
    if family == Family::Neural {
        if let Ok(b) = find(&format!("{target}-lm{suffix}")) {
            return Ok(b);
        }
    }
    match find(&format!("{target}{suffix}")) {
        Err(_) if !has_references => match find(target) {
            Ok(b) if b.reference_free => Ok(b),
            _ => find(&format!("{target}{suffix}")),
        },
        found => found,
    }
}

/// What `aesop models` prints: a table of the built-ins (or JSON), or one model's full card.
pub fn describe(name: Option<&str>, json: bool) -> Result<String> {
    if let Some(name) = name {
        let name = name.strip_prefix("builtin:").unwrap_or(name);
        let b = match find(name) {
            Ok(b) => b,
            // Not a built-in's name: a model file's path (its card is read from the file).
            Err(_) if std::path::Path::new(name).exists() => {
                return crate::card::describe_file(std::path::Path::new(name), json);
            }
            Err(e) => bail!("{e}; and there is no model file '{name}'"),
        };
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
        "\n`aesop models NAME` prints a model's card, `aesop models FILE.aesop` a trained model's;\n\
         `aesop score` uses the built-ins by default;\n\
         `--recipe NAME` on `train`, `cross-validate` and `ablate` learns a model's recipe on your own sets.\n",
    );
    Ok(out)
}

/// One built-in as JSON (also what the HTTP service's `GET /v1/models` lists).
pub fn card_json(b: &Builtin) -> serde_json::Value {
    serde_json::json!({
        "name": b.name,
        "target": b.target,
        "reference_free": b.reference_free,
        "neural": b.neural,
        "version": b.version(),
        "summary": b.summary(),
        "card": b.card,
    })
}
