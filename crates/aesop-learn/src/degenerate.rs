//! Degenerate summaries: text no model should be asked to judge.
//!
//! Why: the learned models are (mostly) linear in features such as length, word length and
//! overlap ratios, so text unlike any training summary made them extrapolate: an empty summary
//! ranked 2nd of 16 for readability, a punctuation-only one got a higher responsiveness than a
//! faithful one, and a one-million-character "word" got readability 140,141. Feature values are
//! now clamped at prediction time into their training range (model format 5, see
//! `ModelFile::feature_ranges`) and, in every model, scaled features to ±6
//! ([`crate::dataset::Scaler::transform_row_clipped`]), and
//! summaries detected here get no score at all: `null` (in JSON) with the reason, and a warning
//! on output. The single call site is [`crate::scoring::Scorer::score`]; docs/ROBUSTNESS.md
//! lists the cases.

use serde::Serialize;

/// A summary longer than this (in characters) is not scored: the longest summary in the public
/// sets (SummEval, REALSumm, Newsroom, TAC, DUC) is under 4,000 characters; 100,000 is
/// a 15,000-word text, far outside anything a model was trained on.
pub const MAX_SUMMARY_CHARS: usize = 100_000;
/// A "word" longer than this (in characters) is not language (the longest English dictionary
/// words are under 50 letters).
pub const MAX_WORD_CHARS: usize = 60;
/// Fewer than this share of the non-space characters in real words (alphabetic tokens up to
/// [`MAX_WORD_CHARS`]) marks the text as non-linguistic.
pub const MIN_WORD_SHARE: f64 = 0.5;

/// Why a summary is not scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Degenerate {
    /// No characters other than white space.
    Empty,
    /// No word of two or more letters, or most of the text is not words (punctuation, symbols,
    /// digits, or one absurdly long token).
    NonLinguistic,
    /// Longer than [`MAX_SUMMARY_CHARS`].
    TooLong,
}

impl Degenerate {
    pub fn reason(self) -> &'static str {
        match self {
            Degenerate::Empty => "empty summary",
            Degenerate::NonLinguistic => {
                "no language to judge (punctuation, symbols, digits or an absurdly long token)"
            }
            Degenerate::TooLong => "summary longer than 100,000 characters",
        }
    }
}

impl std::fmt::Display for Degenerate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

/// Degenerate summaries counted by kind, each with the first one's name: one warning per kind
/// (the CLI's stderr, the Python package's `AesopWarning`s).
#[derive(Debug, Default)]
pub struct Tally(Vec<(Degenerate, usize, String)>);

impl Tally {
    /// Count a summary of `kind`; `name` (e.g. `topic/system`) is kept for the first of a kind.
    pub fn add(&mut self, kind: Degenerate, name: impl FnOnce() -> String) {
        match self.0.iter_mut().find(|(k, _, _)| *k == kind) {
            Some(entry) => entry.1 += 1,
            None => self.0.push((kind, 1, name())),
        }
    }

    /// One line per kind; `unscored` is how the output shows a missing score (`null`, `None`).
    pub fn warnings(&self, unscored: &str) -> Vec<String> {
        self.0
            .iter()
            .map(|(kind, n, example)| {
                format!(
                    "{} not scored (score {unscored}): {kind} (e.g. {example})",
                    aesop_core::counted(*n, "summary", "summaries")
                )
            })
            .collect()
    }
}

/// Classify a summary's text; `None` for ordinary text. One pass over its characters.
pub fn detect(text: &str) -> Option<Degenerate> {
    /// Counts of the whitespace-separated tokens seen so far.
    #[derive(Default)]
    struct Counts {
        non_space: usize,
        word_chars: usize,
        words: usize,
    }
    impl Counts {
        /// A token of `len` characters, `letters` of them alphabetic.
        fn token(&mut self, len: usize, letters: usize) {
            self.non_space += len;
            if len > MAX_WORD_CHARS {
                return;
            }
            if letters >= 2 {
                self.words += 1;
            }
            if letters >= 1 {
                // Punctuation attached to a word ("budget.", "don't") counts with it.
                self.word_chars += len;
            }
        }
    }
    let mut counts = Counts::default();
    let (mut chars, mut len, mut letters) = (0usize, 0usize, 0usize);
    // Characters no reader sees (a soft hyphen, a zero-width space) are not there, as every
    // feature class reads the text (`Topic::with_canonical_text`).
    for c in text.chars().filter(|&c| !aesop_corpus::is_invisible(c)) {
        chars += 1;
        if c.is_whitespace() {
            counts.token(len, letters);
            (len, letters) = (0, 0);
        } else {
            len += 1;
            letters += usize::from(c.is_alphabetic());
        }
    }
    counts.token(len, letters);
    if counts.non_space == 0 {
        return Some(Degenerate::Empty);
    }
    if chars > MAX_SUMMARY_CHARS {
        return Some(Degenerate::TooLong);
    }
    if counts.words == 0 || (counts.word_chars as f64) < MIN_WORD_SHARE * counts.non_space as f64 {
        return Some(Degenerate::NonLinguistic);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_passes() {
        assert_eq!(detect("The council approved the budget."), None);
        assert_eq!(
            detect("Bolt will run in the Bahamas on May 2 and 3 ."),
            None
        );
        assert_eq!(detect("Ja."), None);
    }

    #[test]
    fn degenerate_text_is_caught() {
        assert_eq!(detect(""), Some(Degenerate::Empty));
        assert_eq!(detect(" \n\t "), Some(Degenerate::Empty));
        assert_eq!(
            detect("\u{ad}\u{200b} \u{a0}\u{2060}\u{feff}"),
            Some(Degenerate::Empty)
        );
        assert_eq!(
            detect("\u{7}\u{200e}\u{202c} \u{0}\u{2066}"),
            Some(Degenerate::Empty)
        );
        assert_eq!(detect("co\u{ad}op\u{200b}"), None);
        assert_eq!(detect("…"), Some(Degenerate::NonLinguistic));
        assert_eq!(detect("!!! ??? ... ---"), Some(Degenerate::NonLinguistic));
        assert_eq!(detect("1 2 3 4 5 6"), Some(Degenerate::NonLinguistic));
        assert_eq!(detect(&"a".repeat(1000)), Some(Degenerate::NonLinguistic));
        assert_eq!(detect("a"), Some(Degenerate::NonLinguistic));
        let long = "The council met. ".repeat(10_000);
        assert_eq!(detect(&long), Some(Degenerate::TooLong));
    }

    /// The rules as first written: tokens from `split_whitespace`, three passes.
    fn detect_by_tokens(text: &str) -> Option<Degenerate> {
        let (mut chars, mut non_space, mut word_chars, mut words) = (0, 0, 0, 0);
        for token in text.split_whitespace() {
            let len = token.chars().count();
            chars += len;
            non_space += len;
            if len > MAX_WORD_CHARS {
                continue;
            }
            let letters = token.chars().filter(|c| c.is_alphabetic()).count();
            words += usize::from(letters >= 2);
            if letters >= 1 {
                word_chars += len;
            }
        }
        chars += text.chars().filter(|c| c.is_whitespace()).count();
        if non_space == 0 {
            Some(Degenerate::Empty)
        } else if chars > MAX_SUMMARY_CHARS {
            Some(Degenerate::TooLong)
        } else if words == 0 || (word_chars as f64) < MIN_WORD_SHARE * non_space as f64 {
            Some(Degenerate::NonLinguistic)
        } else {
            None
        }
    }

    #[test]
    fn one_pass_classifies_as_the_token_split_does() {
        let word = "x".repeat(MAX_WORD_CHARS + 1);
        let texts = [
            String::new(),
            "  two  spaces\tand\ttabs\n".to_string(),
            "no\u{a0}break\u{2003}em-space \u{3000}ideographic".to_string(),
            format!("{word} ab"),
            format!("ab {word}"),
            format!("ab cd {word} {word}"),
            "a b c d e f".to_string(),
            "!!! ok ???".to_string(),
            "ab !!! ??? ...".to_string(),
            "ab !!!".to_string(),
            "日本語の文 と 漢字".to_string(),
            "ok ".repeat(MAX_SUMMARY_CHARS / 3),
            "ok ".repeat(MAX_SUMMARY_CHARS / 3 + 1),
            format!("{}é", "ok ".repeat(MAX_SUMMARY_CHARS / 3)),
        ];
        for text in &texts {
            assert_eq!(
                detect(text),
                detect_by_tokens(text),
                "{:?}",
                &text[..text.len().min(40)]
            );
        }
    }
}
