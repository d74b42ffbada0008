//! Tokenization profiles: the exact token streams that ROUGE-1.5.5, SIMetrix and Google's
//! rouge-score count.

use super::{porter, porter_nltk, stopwords, wordnet};

/// Options of the `rouge155` profile (ROUGE-1.5.5 `-s` and `-m`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rouge155Options {
    pub remove_stopwords: bool,
    pub stem: bool,
}

/// Tokens of `text` exactly as ROUGE-1.5.5 counts them for ROUGE-N and ROUGE-S (all lines
/// joined).
///
/// ROUGE lowercases A–Z, turns every character outside `[A-Za-z0-9-]` into a space and puts
/// spaces around `-`, so the tokens are the maximal runs of ASCII letters and digits plus lone
/// `-` tokens; it then drops tokens that do not start with `[a-z0-9$]` (only the `-` tokens).
/// With `-s` a token on the SMART list is dropped (checked before stemming); with `-m` a token
/// longer than 3 characters is replaced by its WordNet exception base if it has one, else by
/// its Porter stem.
pub fn rouge155_tokens(text: &str, opts: Rouge155Options) -> Vec<String> {
    let mut tokens = Vec::new();
    for_each_rouge155_token(text, opts, |t| tokens.push(t.to_string()));
    tokens
}

/// Tokens of each line of `text` (ROUGE-1.5.5's SPL format: one sentence per line), as ROUGE-L
/// sees them. Lines without tokens give empty sentences, which count for nothing.
pub fn rouge155_sentence_tokens(text: &str, opts: Rouge155Options) -> Vec<Vec<String>> {
    text.split('\n')
        .map(|line| rouge155_tokens(line, opts))
        .collect()
}

/// Calls `emit` with every ROUGE-1.5.5 token of `text` (see [`rouge155_tokens`]), without
/// allocating a vector of strings.
pub fn for_each_rouge155_token(text: &str, opts: Rouge155Options, mut emit: impl FnMut(&str)) {
    let mut word = String::new();
    let mut finish = |word: &mut String| {
        if word.is_empty() {
            return;
        }
        if !(opts.remove_stopwords && stopwords::is_smart_common_word(word)) {
            if opts.stem && word.len() > 3 {
                with_rouge155_stem(word, &mut emit);
            } else {
                emit(word);
            }
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        } else {
            // `-` becomes its own token, which the start-character rule then drops; every
            // other character is a separator.
            finish(&mut word);
        }
    }
    finish(&mut word);
}

/// ROUGE-1.5.5's `-m` stem of `word`: the WordNet exception base if there is one, else Porter.
fn with_rouge155_stem(word: &str, emit: &mut impl FnMut(&str)) {
    if let Some(base) = wordnet::exception_base(word) {
        emit(base);
        return;
    }
    porter::with_stem(word, emit);
}

/// Calls `emit` with every token of `text` as Google's rouge-score package counts it
/// (`rouge_score.tokenize.tokenize`): the text lowercased as Python's `str.lower` does (so a
/// Kelvin sign is a `k`, and `İ` an `i` and a combining dot), every run of characters outside
/// ASCII `[a-z0-9]` a separator, and with `stem` (`use_stemmer=True`) a token longer than 3
/// characters replaced by its NLTK Porter stem ([`porter_nltk`]).
///
/// The differences from [`for_each_rouge155_token`] are the point: Unicode lowercasing, no
/// WordNet exceptions before stemming, NLTK's Porter rather than the original.
pub fn for_each_rouge_score_token(text: &str, stem: bool, mut emit: impl FnMut(&str)) {
    let mut word = String::new();
    let mut finish = |word: &mut String| {
        if word.is_empty() {
            return;
        }
        if stem && word.len() > 3 {
            porter_nltk::with_stem(word, |stemmed| {
                // rouge-score keeps only tokens that are still `[a-z0-9]+` after stemming.
                if !stemmed.is_empty() {
                    emit(stemmed)
                }
            });
        } else {
            emit(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                word.push(c.to_ascii_lowercase());
            } else {
                finish(&mut word);
            }
            continue;
        }
        for lower in c.to_lowercase() {
            if lower.is_ascii_alphanumeric() {
                word.push(lower);
            } else {
                finish(&mut word);
            }
        }
    }
    finish(&mut word);
}

/// Tokens of `text` as SIMetrix (Louis & Nenkova) counts them: every character outside
/// `[A-Za-z0-9 ]` becomes a space, tokens are lowercased, tokens on the SMART common-words
/// list are dropped, and the rest are stemmed with the reference Porter stemmer (SIMetrix's
/// Java release, [`porter::stem_reference`]).
pub fn simetrix_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(|t| t.to_ascii_lowercase())
        .filter(|t| !stopwords::is_smart_common_word(t))
        .map(|t| porter::stem_reference(&t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Rouge155Options = Rouge155Options {
        remove_stopwords: false,
        stem: false,
    };

    #[test]
    fn rouge155_splits_on_everything_but_ascii_alphanumerics() {
        assert_eq!(
            rouge155_tokens("The U.S.-led  coalition's $5bn (approx.) café", PLAIN),
            [
                "the",
                "u",
                "s",
                "led",
                "coalition",
                "s",
                "5bn",
                "approx",
                "caf"
            ]
        );
        assert!(rouge155_tokens(" -- ... ", PLAIN).is_empty());
    }

    #[test]
    fn rouge155_stems_only_tokens_longer_than_three() {
        let opts = Rouge155Options {
            remove_stopwords: false,
            stem: true,
        };
        // "runs" → Porter "run"; "ran" is too short for the exception list; "went" → "go"
        // (WordNet); "better" → "good" (adj.exc overwrote adv.exc); "cats" → "cat"; "dies" → "di" (Porter's -ies rule).
        assert_eq!(
            rouge155_tokens("Runs ran went better cats dies", opts),
            ["run", "ran", "go", "good", "cat", "di"]
        );
    }

    #[test]
    fn rouge155_stopwords_are_checked_before_stemming() {
        let opts = Rouge155Options {
            remove_stopwords: true,
            stem: true,
        };
        // "others" is a stopword; "thing" is not, "things" → "thing".
        assert_eq!(
            rouge155_tokens("The others adored things", opts),
            ["ador", "thing"]
        );
    }

    #[test]
    fn rouge155_sentences_follow_lines() {
        let s = rouge155_sentence_tokens("a b\n\nc-d", PLAIN);
        assert_eq!(s, vec![vec!["a", "b"], vec![], vec!["c", "d"]]);
    }

    fn rouge_score_tokens(text: &str, stem: bool) -> Vec<String> {
        let mut tokens = Vec::new();
        for_each_rouge_score_token(text, stem, |t| tokens.push(t.to_string()));
        tokens
    }

    #[test]
    fn rouge_score_lowercases_as_python_and_splits_outside_ascii_alphanumerics() {
        // As `rouge_score.tokenize.tokenize(text, None)`: "café" loses its "é", the Kelvin
        // sign lowercases to "k", "İ" to "i" and a combining dot (a separator), "-" and "$"
        // separate.
        assert_eq!(
            rouge_score_tokens("The U.S.-led $5bn café, \u{212A}m İstanbul\tend", false),
            ["the", "u", "s", "led", "5bn", "caf", "km", "i", "stanbul", "end"]
        );
        assert!(rouge_score_tokens(" -- ... é ", false).is_empty());
    }

    #[test]
    fn rouge_score_stems_only_tokens_longer_than_three_with_nltk_porter() {
        // NLTK's Porter, not ROUGE-1.5.5's: "dies" → "die" (NLTK's four-letter -ies rule,
        // where the original gives "di"), "went" stays (no WordNet exceptions), "ran" is too
        // short to stem.
        assert_eq!(
            rouge_score_tokens("Runs ran went dies happily", true),
            ["run", "ran", "went", "die", "happili"]
        );
    }

    #[test]
    fn simetrix_profile() {
        assert_eq!(
            simetrix_tokens("The cats were running\tto the U.S. border!"),
            ["cat", "run", "border"]
        );
    }
}
