//! Feature options set by name, for front ends without clap (the Python package's
//! `aesop.features(..., neural_references=0)`). The names are those of `aesop features`' flags
//! with underscores for dashes, and the values their text (`"true"`, `"b"`, `"0.5"`), so one
//! option means the same from the shell and from Python; a test of the CLI checks that every
//! flag has its name here and sets the same field.

use crate::distribution::LogBase;
use crate::neural::NeuralPrompt;
use crate::rouge::{LengthLimit, MultiRefMode};
use crate::{content::ContentOptions, FeatureOptions};
use anyhow::{bail, Context, Result};

/// The option names [`FeatureOptions::from_named`] accepts, in the CLI's order.
pub const OPTION_NAMES: &[&str] = &[
    "rouge_mode",
    "rouge_jackknife",
    "rouge_no_stem",
    "rouge_remove_stopwords",
    "rouge_length_limit",
    "rouge_byte_limit",
    "simetrix",
    "topic_word_cutoff",
    "topic_word_log_base",
    "consensus_include_human",
    "graph_rank",
    "graph_window",
    "tesla_alpha",
    "tesla_stem_similarity",
    "neural_source_tokens",
    "neural_references",
    "neural_prompt",
];

impl FeatureOptions {
    /// The defaults with the named options set. `simetrix` is applied first whatever its
    /// position, as on the command line, so `topic_word_cutoff` and `topic_word_log_base`
    /// refine it. An unknown name, a repeated one or a value of the wrong kind is an error
    /// naming the option.
    pub fn from_named(options: &[(String, String)]) -> Result<FeatureOptions> {
        let mut seen = std::collections::HashSet::new();
        for (name, _) in options {
            if !OPTION_NAMES.contains(&name.as_str()) {
                bail!(
                    "unknown feature option {name:?} (known: {})",
                    OPTION_NAMES.join(", ")
                );
            }
            if !seen.insert(name.as_str()) {
                bail!("feature option {name:?} given twice");
            }
        }
        if seen.contains("rouge_length_limit") && seen.contains("rouge_byte_limit") {
            bail!(
                "feature options rouge_length_limit and rouge_byte_limit: give one (ROUGE-1.5.5 \
                 takes -l or -b, not both)"
            );
        }
        let mut opts = FeatureOptions::default();
        let simetrix = options.iter().find(|(n, _)| n == "simetrix");
        if let Some((name, value)) = simetrix {
            if parse_bool(name, value)? {
                opts.content = ContentOptions::simetrix();
            }
        }
        for (name, value) in options {
            let value = value.trim();
            match name.as_str() {
                "simetrix" => {}
                "rouge_mode" => {
                    opts.rouge.mode = parse_choice(
                        name,
                        value,
                        &[("a", MultiRefMode::Average), ("b", MultiRefMode::Best)],
                    )?
                }
                "rouge_jackknife" => opts.rouge.jackknife = parse_bool(name, value)?,
                "rouge_no_stem" => opts.rouge.stem = !parse_bool(name, value)?,
                "rouge_remove_stopwords" => opts.rouge.remove_stopwords = parse_bool(name, value)?,
                "rouge_length_limit" => {
                    opts.rouge.limit =
                        Some(LengthLimit::Words(parse_count(name, value, 1, usize::MAX)?))
                }
                "rouge_byte_limit" => {
                    opts.rouge.limit =
                        Some(LengthLimit::Bytes(parse_count(name, value, 1, usize::MAX)?))
                }
                "topic_word_cutoff" => {
                    opts.content.llr_cutoff = checked(name, non_negative(value))?
                }
                "topic_word_log_base" => {
                    opts.content.log_base =
                        parse_choice(name, value, &[("e", LogBase::E), ("10", LogBase::Ten)])?
                }
                "consensus_include_human" => {
                    opts.consensus.include_human = parse_bool(name, value)?
                }
                "graph_rank" => opts.graph.rank = parse_count(name, value, 1, 64)?,
                "graph_window" => opts.graph.window = parse_count(name, value, 1, 64)?,
                "tesla_alpha" => opts.tesla.alpha = checked(name, unit_interval(value))?,
                "tesla_stem_similarity" => {
                    opts.tesla.stem_similarity = checked(name, unit_interval(value))?
                }
                "neural_source_tokens" => {
                    // As the CLI's flag: with none the article is empty, and beyond the most
                    // the summaries would not fit the LM's context.
                    opts.neural.source_tokens =
                        parse_count(name, value, 1, crate::neural::MAX_SOURCE_TOKENS)?
                }
                "neural_references" => {
                    opts.neural.max_references = parse_count(name, value, 0, usize::MAX)?
                }
                "neural_prompt" => {
                    opts.neural.prompt = parse_choice(
                        name,
                        value,
                        &[("chat", NeuralPrompt::Chat), ("plain", NeuralPrompt::Plain)],
                    )?
                }
                // Every name was checked against OPTION_NAMES above.
                other => bail!("feature option {other:?} has no setter (a bug)"),
            }
        }
        Ok(opts)
    }
}

impl FeatureOptions {
    /// The named options whose value here differs from the default, in [`OPTION_NAMES`] order.
    /// `simetrix` counts as set when the content options carry its choices; the topic-word
    /// cutoff and log base count as set when they differ from what `simetrix` (or its absence)
    /// gives, so `--simetrix` alone names only `simetrix`.
    pub fn changed_options(&self) -> Vec<&'static str> {
        let d = FeatureOptions::default();
        let simetrix = !self.content.smooth_likelihood && !self.content.require_higher_input_rate;
        let content_base = if simetrix {
            ContentOptions::simetrix()
        } else {
            ContentOptions::default()
        };
        let changed = [
            ("rouge_mode", self.rouge.mode != d.rouge.mode),
            ("rouge_jackknife", self.rouge.jackknife != d.rouge.jackknife),
            ("rouge_no_stem", self.rouge.stem != d.rouge.stem),
            (
                "rouge_remove_stopwords",
                self.rouge.remove_stopwords != d.rouge.remove_stopwords,
            ),
            (
                "rouge_length_limit",
                matches!(self.rouge.limit, Some(LengthLimit::Words(_))),
            ),
            (
                "rouge_byte_limit",
                matches!(self.rouge.limit, Some(LengthLimit::Bytes(_))),
            ),
            ("simetrix", simetrix),
            (
                "topic_word_cutoff",
                self.content.llr_cutoff != content_base.llr_cutoff,
            ),
            (
                "topic_word_log_base",
                self.content.log_base != content_base.log_base,
            ),
            (
                "consensus_include_human",
                self.consensus.include_human != d.consensus.include_human,
            ),
            ("graph_rank", self.graph.rank != d.graph.rank),
            ("graph_window", self.graph.window != d.graph.window),
            ("tesla_alpha", self.tesla.alpha != d.tesla.alpha),
            (
                "tesla_stem_similarity",
                self.tesla.stem_similarity != d.tesla.stem_similarity,
            ),
            (
                "neural_source_tokens",
                self.neural.source_tokens != d.neural.source_tokens,
            ),
            (
                "neural_references",
                self.neural.max_references != d.neural.max_references,
            ),
            ("neural_prompt", self.neural.prompt != d.neural.prompt),
        ];
        debug_assert!(changed
            .iter()
            .map(|(n, _)| *n)
            .eq(OPTION_NAMES.iter().copied()));
        changed
            .into_iter()
            .filter(|(_, is_changed)| *is_changed)
            .map(|(name, _)| name)
            .collect()
    }

    /// [`FeatureOptions::changed_options`] as the command line gives them (`--rouge-mode b`,
    /// `--topic-word-cutoff 5`, `--simetrix`): what a model card shows, so a reader can repeat
    /// the run.
    pub fn changed_flags(&self) -> Vec<String> {
        self.changed_options()
            .into_iter()
            .map(|name| {
                let flag = format!("--{}", name.replace('_', "-"));
                let value = match name {
                    "rouge_mode" => match self.rouge.mode {
                        MultiRefMode::Average => Some("a".to_string()),
                        MultiRefMode::Best => Some("b".to_string()),
                    },
                    "rouge_length_limit" | "rouge_byte_limit" => match self.rouge.limit {
                        Some(LengthLimit::Words(n) | LengthLimit::Bytes(n)) => Some(n.to_string()),
                        None => None,
                    },
                    "topic_word_cutoff" => Some(self.content.llr_cutoff.to_string()),
                    "topic_word_log_base" => Some(
                        match self.content.log_base {
                            LogBase::E => "e",
                            LogBase::Ten => "10",
                        }
                        .to_string(),
                    ),
                    "graph_rank" => Some(self.graph.rank.to_string()),
                    "graph_window" => Some(self.graph.window.to_string()),
                    "tesla_alpha" => Some(self.tesla.alpha.to_string()),
                    "tesla_stem_similarity" => Some(self.tesla.stem_similarity.to_string()),
                    "neural_source_tokens" => Some(self.neural.source_tokens.to_string()),
                    "neural_references" => Some(self.neural.max_references.to_string()),
                    "neural_prompt" => Some(self.neural.prompt.name().to_string()),
                    // Switches: the flag alone.
                    _ => None,
                };
                match value {
                    Some(value) => format!("{flag} {value}"),
                    None => flag,
                }
            })
            .collect()
    }
}

/// One of a few words (case-insensitive), as the CLI's value enums take them.
fn parse_choice<T: Copy>(name: &str, value: &str, choices: &[(&str, T)]) -> Result<T> {
    let lower = value.to_ascii_lowercase();
    match choices.iter().find(|(word, _)| *word == lower) {
        Some((_, choice)) => Ok(*choice),
        None => {
            let words: Vec<String> = choices.iter().map(|(w, _)| format!("{w:?}")).collect();
            bail!(
                "feature option {name}: expected {}, got {value:?}",
                words.join(" or ")
            )
        }
    }
}

fn parse_bool(name: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => bail!("feature option {name}: expected true or false, got {value:?}"),
    }
}

/// A number in [0, 1] (also the CLI's clap value parser for such flags).
pub fn unit_interval(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("expected a number between 0 and 1, got '{text}'")),
    }
}

/// A finite number ≥ 0 (also the CLI's clap value parser for such flags).
pub fn non_negative(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("expected a non-negative number, got '{text}'")),
    }
}

/// A value parser's error, named after the option.
fn checked(name: &str, parsed: std::result::Result<f64, String>) -> Result<f64> {
    parsed.map_err(|e| anyhow::anyhow!("feature option {name}: {e}"))
}

fn parse_count(name: &str, value: &str, min: usize, max: usize) -> Result<usize> {
    let v: usize = value.parse().with_context(|| {
        format!("feature option {name}: expected a whole number ≥ {min}, got {value:?}")
    })?;
    if v < min || v > max {
        bail!("feature option {name}: {v} is outside [{min}, {max}]");
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The changed options as flags, each with its value as the command line takes it.
    #[test]
    fn changed_options_read_as_flags() {
        let options = FeatureOptions::from_named(&[
            ("rouge_mode".to_string(), "B".to_string()),
            ("rouge_jackknife".to_string(), "true".to_string()),
            ("topic_word_cutoff".to_string(), "5".to_string()),
            ("topic_word_log_base".to_string(), "10".to_string()),
            ("neural_prompt".to_string(), "plain".to_string()),
        ])
        .expect("options");
        assert_eq!(
            options.changed_flags(),
            [
                "--rouge-mode b",
                "--rouge-jackknife",
                "--topic-word-cutoff 5",
                "--topic-word-log-base 10",
                "--neural-prompt plain"
            ]
        );
        assert!(FeatureOptions::default().changed_flags().is_empty());
    }

    fn named(pairs: &[(&str, &str)]) -> Result<FeatureOptions> {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        FeatureOptions::from_named(&owned)
    }

    #[test]
    fn no_options_are_the_defaults() {
        assert_eq!(
            format!("{:?}", named(&[]).unwrap()),
            format!("{:?}", FeatureOptions::default())
        );
    }

    #[test]
    fn simetrix_applies_first_so_the_cutoff_refines_it() {
        let opts = named(&[("topic_word_cutoff", "5"), ("simetrix", "true")]).unwrap();
        assert_eq!(opts.content.llr_cutoff, 5.0);
        assert_eq!(opts.content.log_base, LogBase::Ten);
        assert!(!opts.content.smooth_likelihood);
    }

    #[test]
    fn values_are_parsed_and_checked() {
        let opts = named(&[
            ("neural_references", "0"),
            ("neural_prompt", "Plain"),
            ("rouge_no_stem", "true"),
            ("graph_rank", "4"),
        ])
        .unwrap();
        assert_eq!(opts.neural.max_references, 0);
        assert_eq!(opts.neural.prompt, NeuralPrompt::Plain);
        assert!(!opts.rouge.stem);
        assert_eq!(opts.graph.rank, 4);
        for (pairs, needle) in [
            (&[("neural_references", "-1")][..], "neural_references"),
            (&[("graph_rank", "0")][..], "outside [1, 64]"),
            (
                &[("neural_source_tokens", "0")][..],
                "neural_source_tokens: 0 is outside [1,",
            ),
            (
                &[("neural_source_tokens", "7553")][..],
                "neural_source_tokens: 7553 is outside [1, 7552]",
            ),
            (
                &[("tesla_alpha", "1.5")][..],
                "tesla_alpha: expected a number between 0 and 1, got '1.5'",
            ),
            (
                &[("tesla_alpha", "nan")][..],
                "expected a number between 0 and 1",
            ),
            (
                &[("topic_word_cutoff", "-1")][..],
                "expected a non-negative number",
            ),
            (
                &[("rouge_jackknife", "maybe")][..],
                "expected true or false",
            ),
            (&[("rouge_mode", "c")][..], "rouge_mode"),
            (
                &[("neural_refs", "0")][..],
                "unknown feature option \"neural_refs\"",
            ),
            (
                &[("graph_rank", "3"), ("graph_rank", "4")][..],
                "given twice",
            ),
        ] {
            let err = format!("{:#}", named(pairs).unwrap_err());
            assert!(err.contains(needle), "{pairs:?}: {err}");
        }
    }
}
