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
    /// Does a summary's row depend on the other summaries of its topic in the batch (the peer
    /// pool of `consensus`)? Then a model using the class scores a summary differently when it
    /// is scored with other summaries, and a large topic cannot be scored in parts.
    pub batch_dependent: bool,
    /// The named options ([`crate::named_options::OPTION_NAMES`], the CLI's flags with `_` for
    /// `-`) that change this class's features: an option no computed class reads is refused
    /// ([`check_options_apply`]) rather than silently ignored.
    pub options: &'static [&'static str],
    /// Those of `options` that change only some of the class's features, with those features
    /// (names without the class prefix); an option not listed changes every feature. So a model
    /// of `content.js` is not trained with `--topic-word-cutoff`, which it would then carry and
    /// which would keep it from scoring beside models using the default cutoff.
    pub partial_options: &'static [(&'static str, &'static [&'static str])],
    pub build: fn(&FeatureOptions) -> Result<Box<dyn FeatureClass>>,
}

impl ClassSpec {
    /// See the field of the same name.
    pub fn batch_dependent(&self) -> bool {
        self.batch_dependent
    }
}

/// Is the class `name` batch-dependent ([`ClassSpec::batch_dependent`])? False for unknown names.
pub fn is_batch_dependent(name: &str) -> bool {
    class_spec(name).is_some_and(ClassSpec::batch_dependent)
}

/// The batch-dependent classes, in output order.
pub fn batch_dependent_class_names() -> Vec<&'static str> {
    CLASSES
        .iter()
        .filter(|c| c.batch_dependent())
        .map(|c| c.name)
        .collect()
}

/// The class named `name`, if this build has it.
pub fn class_spec(name: &str) -> Option<&'static ClassSpec> {
    CLASSES.iter().copied().find(|c| c.name == name)
}

/// Every class of this build, in output order (the values `--classes` accepts).
pub fn class_names() -> Vec<&'static str> {
    CLASSES.iter().map(|c| c.name).collect()
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

/// Whether every feature in `names` (`class.feature`, of the classes `classes`) is computed
/// without references, so a model of those columns scores topics that have none. A class whose
/// spec says [`ReferenceUse::Some`] is built (with `options`) and asked feature by feature; one
/// that cannot be built (an LM class without its model file) counts as needing them.
pub fn all_reference_free(classes: &[String], names: &[String], options: &FeatureOptions) -> bool {
    classes.iter().all(|class| {
        let prefix = format!("{class}.");
        let mut own = names.iter().filter(|n| n.starts_with(&prefix)).peekable();
        if own.peek().is_none() {
            return true;
        }
        match class_spec(class).map(|c| (c.references, c.build)) {
            Some((ReferenceUse::None, _)) => true,
            Some((ReferenceUse::Some, build)) => match build(options) {
                Ok(built) => own.all(|n| built.is_reference_free_feature(n)),
                Err(_) => false,
            },
            Some((ReferenceUse::All, _)) | None => false,
        }
    })
}

/// Refuse feature options that change none of `classes` (the default set when empty): with
/// `--classes content --rouge-mode b` the ROUGE option was silently ignored, and a user reading
/// the command line believed it applied. With `columns` (the features a model learns from), an
/// option must also change one of them ([`ClassSpec::partial_options`]): `--features content.js
/// --topic-word-cutoff 5` is refused. The error names the option as a flag and as the Python
/// keyword, and the classes or features that read it.
pub fn check_options_apply(
    options: &FeatureOptions,
    classes: &[String],
    columns: Option<&[String]>,
) -> Result<()> {
    let computed: Vec<&str> = if classes.is_empty() {
        default_class_names()
    } else {
        classes.iter().map(String::as_str).collect()
    };
    for name in options.changed_options() {
        let flag = format!("--{} ({name})", name.replace('_', "-"));
        let readers: Vec<&ClassSpec> = computed
            .iter()
            .filter_map(|c| class_spec(c))
            .filter(|s| s.options.contains(&name))
            .collect();
        if readers.is_empty() {
            let readers: Vec<&str> = CLASSES
                .iter()
                .filter(|c| c.options.contains(&name))
                .map(|c| c.name)
                .collect();
            bail!(
                "{flag} changes only the {} class{}, and none is computed here (classes: {}); drop the option or add the class",
                readers.join(", "),
                if readers.len() == 1 { "" } else { "es" },
                computed.join(", ")
            );
        }
        let Some(columns) = columns else { continue };
        let mut changed = Vec::new();
        let mut applies = false;
        for spec in readers {
            let prefix = format!("{}.", spec.name);
            let own = columns.iter().filter_map(|c| c.strip_prefix(&prefix));
            match spec.partial_options.iter().find(|(o, _)| *o == name) {
                None => applies |= own.count() > 0,
                Some((_, features)) => {
                    applies |= own.into_iter().any(|c| features.contains(&c));
                    changed.extend(features.iter().map(|f| format!("{prefix}{f}")));
                }
            }
        }
        if !applies {
            bail!(
                "{flag} changes only {}, and none of them is among the features used here; drop the option or select one of them with --features",
                changed.join(", ")
            );
        }
    }
    Ok(())
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
        let class = (spec.build)(opts)?;
        class.start_loading();
        classes.push(class);
    }
    Ok(classes)
}

/// The help of `--classes`: every class with a few words, the optional and the batch-dependent
/// ones marked.
pub fn classes_help() -> String {
    let mut help =
        String::from("Comma-separated feature classes (default: all but the optional). ");
    let described: Vec<String> = CLASSES
        .iter()
        .map(|c| {
            let optional = if c.default { "" } else { ", optional" };
            let batch = if c.batch_dependent() {
                ", batch-dependent"
            } else {
                ""
            };
            format!("{} ({}{optional}{batch})", c.name, c.about)
        })
        .collect();
    help.push_str(&described.join("; "));
    help.push_str(&format!(
        ". Batch-dependent: {} (a summary's features depend on the other summaries of its topic in \
         the same run, so a model using them scores a summary differently in another batch)",
        batch_dependent_class_names().join(", ")
    ));
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
/// whose class says they need no references are kept. A class the user named in `classes` that
/// would be left without any feature is an error naming it (`--classes content,rouge
/// --no-references` used to drop `rouge` silently); with no classes named, the default set's
/// reference-free classes are used without comment.
pub fn feature_plan(
    classes: &[String],
    reference_free: bool,
    options: &FeatureOptions,
) -> Result<(Vec<String>, Vec<String>)> {
    let (kept, names) = plan_features(classes, reference_free, options)?;
    if reference_free {
        let mut dropped: Vec<&str> = Vec::new();
        for c in classes {
            if !kept.contains(c) && !dropped.contains(&c.as_str()) {
                dropped.push(c);
            }
        }
        match dropped.as_slice() {
            [] => {}
            [one] => {
                bail!("{one} needs references; drop it from --classes or leave out --no-references")
            }
            many => bail!(
                "{} need references; drop them from --classes or leave out --no-references",
                many.join(", ")
            ),
        }
    }
    refuse_empty(classes, kept, names)
}

/// As [`feature_plan`], but a named class left without features under `reference_free` is
/// dropped silently: for the bases of a stacked model, where `--no-references` applies to every
/// base's classes.
pub fn feature_plan_dropping(
    classes: &[String],
    reference_free: bool,
    options: &FeatureOptions,
) -> Result<(Vec<String>, Vec<String>)> {
    let (kept, names) = plan_features(classes, reference_free, options)?;
    refuse_empty(classes, kept, names)
}

/// The kept classes and their kept features (see [`feature_plan`]).
fn plan_features(
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
    Ok((kept, names))
}

/// A plan without any class is an error.
fn refuse_empty(
    classes: &[String],
    kept: Vec<String>,
    names: Vec<String>,
) -> Result<(Vec<String>, Vec<String>)> {
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
    let matches = aesop_core::patterns::matches;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn named(pairs: &[(&str, &str)]) -> FeatureOptions {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        FeatureOptions::from_named(&owned).expect("options")
    }

    /// Every named option is read by some class, and every option a class declares is a named
    /// option: a flag no class reads would be refused everywhere.
    #[test]
    fn every_option_has_a_reading_class() {
        for name in crate::named_options::OPTION_NAMES {
            assert!(
                CLASSES.iter().any(|c| c.options.contains(name)),
                "{name}: no class reads it"
            );
        }
        for class in CLASSES {
            for name in class.options {
                assert!(
                    crate::named_options::OPTION_NAMES.contains(name),
                    "{}: unknown option {name}",
                    class.name
                );
            }
        }
    }

    #[test]
    fn changed_options_name_what_differs_from_the_defaults() {
        assert!(FeatureOptions::default().changed_options().is_empty());
        assert_eq!(
            named(&[("simetrix", "true")]).changed_options(),
            ["simetrix"]
        );
        assert_eq!(
            named(&[("simetrix", "true"), ("topic_word_cutoff", "5")]).changed_options(),
            ["simetrix", "topic_word_cutoff"]
        );
        // The default value given explicitly changes nothing.
        assert!(named(&[("graph_rank", "3"), ("rouge_mode", "a")])
            .changed_options()
            .is_empty());
        assert_eq!(
            named(&[("neural_prompt", "plain"), ("rouge_no_stem", "true")]).changed_options(),
            ["rouge_no_stem", "neural_prompt"]
        );
    }

    #[test]
    fn an_option_no_computed_class_reads_is_refused() {
        let rouge_b = named(&[("rouge_mode", "b")]);
        // rouge is a default class: no classes named computes it.
        check_options_apply(&rouge_b, &[], None).expect("rouge among the defaults");
        check_options_apply(&rouge_b, &names(&["content", "rouge"]), None).expect("rouge named");
        let e = check_options_apply(&rouge_b, &names(&["content"]), None)
            .expect_err("rouge not computed")
            .to_string();
        assert!(e.contains("--rouge-mode (rouge_mode)"), "{e}");
        assert!(e.contains("only the rouge, rouge_extended classes"), "{e}");
        assert!(e.contains("(classes: content)"), "{e}");
        // The LM options: any LM class reads them; none is a default class.
        let refs = named(&[("neural_references", "0")]);
        let e = check_options_apply(&refs, &[], None).expect_err("no LM class by default");
        assert!(e.to_string().contains("neural, gemma3"), "{e}");
        check_options_apply(&refs, &names(&["gemma3"]), None).expect("gemma3 reads it");
        // Gemma 3 always scores after the plain prompt.
        let plain = named(&[("neural_prompt", "plain")]);
        check_options_apply(&plain, &names(&["gemma3"]), None).expect_err("gemma3 has no prompt");
        check_options_apply(&plain, &names(&["neural_hidden"]), None).expect("neural_hidden");
        check_options_apply(&plain, &names(&["neural_match"]), None).expect("neural_match");
        // Each LM class declares what it reads: neural_match no source budget and no reference
        // count (it matches every reference), neural_hidden no reference count.
        let budget = named(&[("neural_source_tokens", "5")]);
        check_options_apply(&budget, &names(&["neural_hidden"]), None).expect("the source prompt");
        check_options_apply(&budget, &names(&["neural_match"]), None).expect_err("no article");
        for class in ["neural_match", "neural_hidden"] {
            check_options_apply(&refs, &names(&[class]), None).expect_err(class);
            check_options_apply(&refs, &names(&[class, "neural"]), None).expect("neural reads it");
        }
    }

    #[test]
    fn an_option_that_changes_none_of_the_selected_features_is_refused() {
        let content = names(&["content"]);
        let cutoff = named(&[("topic_word_cutoff", "5")]);
        // Every feature of the class (no --features): the topic-word features are among them.
        let all = names(&["content.js", "content.topic_word_share"]);
        check_options_apply(&cutoff, &content, Some(&all)).expect("a topic-word feature");
        let e = check_options_apply(&cutoff, &content, Some(&names(&["content.js"])))
            .expect_err("the JS divergence reads no topic words")
            .to_string();
        assert!(e.contains("--topic-word-cutoff (topic_word_cutoff)"), "{e}");
        assert!(
            e.contains(
                "content.cosine_topic_words, content.topic_word_share, content.topic_word_coverage"
            ),
            "{e}"
        );
        // `--simetrix` also changes the likelihoods.
        let simetrix = named(&[("simetrix", "true")]);
        let loglik = names(&["content.unigram_loglik"]);
        check_options_apply(&simetrix, &content, Some(&loglik)).expect("the likelihood");
        check_options_apply(
            &simetrix,
            &content,
            Some(&names(&["content.kl_input_summary"])),
        )
        .expect_err("the divergences read no SIMetrix option");
        // An option that changes every feature of its class applies to any of them.
        let tesla = names(&["tesla"]);
        let alpha = named(&[("tesla_alpha", "0.5")]);
        check_options_apply(&alpha, &tesla, Some(&names(&["tesla.exact"]))).expect("alpha");
        let partial = named(&[("tesla_stem_similarity", "0")]);
        check_options_apply(&partial, &tesla, Some(&names(&["tesla.exact"])))
            .expect_err("exact matches read no stems");
        check_options_apply(&partial, &tesla, Some(&names(&["tesla.stem_unigram"])))
            .expect("a stem feature");
    }

    #[test]
    fn partial_options_name_options_and_features_of_their_class() {
        for spec in CLASSES {
            if spec.partial_options.is_empty() {
                continue;
            }
            let built = (spec.build)(&FeatureOptions::default()).expect(spec.name);
            let features = built.feature_names();
            for (option, changed) in spec.partial_options {
                assert!(spec.options.contains(option), "{}: {option}", spec.name);
                for f in *changed {
                    let name = format!("{}.{f}", spec.name);
                    assert!(features.contains(&name), "{name} of {option}");
                }
            }
        }
    }

    #[test]
    fn a_named_class_that_needs_references_is_refused_under_no_references() {
        let options = FeatureOptions::default();
        let e = feature_plan(&names(&["surface", "rouge"]), true, &options)
            .expect_err("rouge without references")
            .to_string();
        assert_eq!(
            e,
            "rouge needs references; drop it from --classes or leave out --no-references"
        );
        let e = feature_plan(&names(&["rouge", "surface", "tesla"]), true, &options)
            .expect_err("two classes")
            .to_string();
        assert!(e.starts_with("rouge, tesla need references"), "{e}");
        // Named without --no-references, or not named at all: fine.
        assert!(feature_plan(&names(&["surface", "rouge"]), false, &options).is_ok());
        let (kept, _) = feature_plan(&[], true, &options).expect("default set");
        assert!(!kept.iter().any(|c| c == "rouge"), "{kept:?}");
        // A class with some reference-free features (graph) stays.
        let (kept, _) = feature_plan(&names(&["graph", "surface"]), true, &options).expect("graph");
        assert_eq!(kept, names(&["graph", "surface"]));
        // Stacked bases drop it as before.
        let (kept, _) =
            feature_plan_dropping(&names(&["surface", "rouge"]), true, &options).expect("drop");
        assert_eq!(kept, names(&["surface"]));
    }

    #[test]
    fn consensus_is_the_batch_dependent_class_and_the_help_says_so() {
        assert_eq!(batch_dependent_class_names(), vec!["consensus"]);
        assert!(is_batch_dependent("consensus"));
        assert!(!is_batch_dependent("rouge"));
        assert!(!is_batch_dependent("no-such-class"));
        let help = classes_help();
        assert!(help.contains("consensus ("), "{help}");
        assert!(help.contains(", batch-dependent)"), "{help}");
        assert!(help.contains("Batch-dependent: consensus"), "{help}");
    }
}
