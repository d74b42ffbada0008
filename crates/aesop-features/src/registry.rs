//! The registry of feature classes: the one list of every class this build computes.
//!
//! Why: the names, the default set, which classes work without references and the help of
//! `--classes` / `--no-references` used to be four hand-kept lists that drifted apart. Each class
//! now declares its own [`ClassSpec`] (a `pub static CLASS` in its module), `features/mod.rs`
//! lists them in [`CLASSES`] next to the module declarations, and everything else is derived
//! here. Adding a class is its module plus two lines in `features/mod.rs`.

use super::{FeatureClass, FeatureOptions, CLASSES};
use anyhow::{bail, Result};

/// How a class's features relate to human references.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceUse {
    /// No feature looks at the references.
    None,
    /// Some features compare with the references (NaN without them), others do not; the class
    /// says which in [`FeatureClass::is_reference_free_feature`].
    Some,
    /// Every feature needs references: rows are missing for topics without.
    All,
}

/// What the registry knows about a class without building it (building may load a model).
pub struct ClassSpec {
    /// The name used in `--classes` and as the prefix of every feature name.
    pub name: &'static str,
    /// A few words for the help of `--classes`.
    pub about: &'static str,
    /// Computed when no classes are named (`neural` is opt-in: it needs a downloaded model).
    pub default: bool,
    pub references: ReferenceUse,
    pub build: fn(&FeatureOptions) -> Result<Box<dyn FeatureClass>>,
}

/// The class named `name`, if this build has it.
pub fn class_spec(name: &str) -> Option<&'static ClassSpec> {
    CLASSES.iter().copied().find(|c| c.name == name)
}

/// The classes computed when none are named, in output order.
pub fn default_class_names() -> Vec<&'static str> {
    CLASSES
        .iter()
        .filter(|c| c.default)
        .map(|c| c.name)
        .collect()
}

/// Classes computed on request only.
pub fn optional_class_names() -> Vec<&'static str> {
    CLASSES
        .iter()
        .filter(|c| !c.default)
        .map(|c| c.name)
        .collect()
}

/// Does the class have features that work without references? False for unknown names.
pub fn is_reference_free(name: &str) -> bool {
    class_spec(name).is_some_and(|c| c.references != ReferenceUse::All)
}

/// Build the named classes (the default set when `names` is empty), in the order given;
/// a name given twice is built once.
pub fn build_classes(
    names: &[String],
    opts: &FeatureOptions,
) -> Result<Vec<Box<dyn FeatureClass>>> {
    let names: Vec<&str> = if names.is_empty() {
        default_class_names()
    } else {
        names.iter().map(String::as_str).collect()
    };
    let mut classes: Vec<Box<dyn FeatureClass>> = Vec::new();
    for name in names {
        if classes.iter().any(|c| c.name() == name) {
            continue;
        }
        let Some(spec) = class_spec(name) else {
            bail!(
                "unknown feature class '{name}'; known classes: {}",
                CLASSES
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        classes.push((spec.build)(opts)?);
    }
    Ok(classes)
}

/// The help of `--classes`: every class with a few words, the optional ones marked.
pub fn classes_help() -> String {
    let mut help =
        String::from("Comma-separated feature classes (default: all but the optional). ");
    let described: Vec<String> = CLASSES
        .iter()
        .map(|c| {
            let optional = if c.default { "" } else { ", optional" };
            format!("{} ({}{optional})", c.name, c.about)
        })
        .collect();
    help.push_str(&described.join("; "));
    help
}

/// The help of `--no-references`, naming what it keeps.
pub fn no_references_help() -> String {
    let with = |use_: ReferenceUse| {
        CLASSES
            .iter()
            .filter(|c| c.references == use_)
            .map(|c| c.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "Use only features that need no references: all of {}; the reference-free features of {}; \
         nothing of {}.",
        with(ReferenceUse::None),
        with(ReferenceUse::Some),
        with(ReferenceUse::All)
    )
}

/// The classes to compute and the model's columns. With `reference_free`, only the features
/// whose class says they need no references are kept, and classes left without any are dropped.
pub fn feature_plan(
    classes: &[String],
    reference_free: bool,
    options: &FeatureOptions,
) -> Result<(Vec<String>, Vec<String>)> {
    let built = build_classes(classes, options)?;
    let mut kept = Vec::new();
    let mut names = Vec::new();
    for class in &built {
        let features: Vec<String> = class
            .feature_names()
            .into_iter()
            .filter(|f| !reference_free || class.is_reference_free_feature(f))
            .collect();
        if !features.is_empty() {
            kept.push(class.name().to_string());
            names.extend(features);
        }
    }
    if kept.is_empty() {
        bail!(
            "none of the classes {} works without references",
            classes.join(", ")
        );
    }
    Ok((kept, names))
}

/// The features of `names` that `patterns` select (all when there are none): a pattern is a
/// feature name, or a prefix ending in `*`. A pattern that matches nothing is an error (a typo
/// would otherwise train a different model silently), as is selecting nothing.
pub fn select_features(names: Vec<String>, patterns: &[String]) -> Result<Vec<String>> {
    if patterns.is_empty() {
        return Ok(names);
    }
    let matches = |pattern: &str, name: &str| match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    };
    for pattern in patterns {
        if !names.iter().any(|n| matches(pattern, n)) {
            bail!(
                "--features {pattern}: no feature of the chosen classes matches (e.g. {})",
                names.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
            );
        }
    }
    Ok(names
        .into_iter()
        .filter(|n| patterns.iter().any(|p| matches(p, n)))
        .collect())
}
