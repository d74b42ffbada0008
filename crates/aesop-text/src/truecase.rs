//! Recasing a summary's words as its source writes them ("truecasing" from the source).
//!
//! Why: many summarization systems write lowercase (most of SummEval's and REALSumm's, trained on
//! lowercased CNN/DailyMail), and a language model reads "andros townsend" as bad English
//! whatever the summary says. Taking each lowercase word's casing from the source lets the
//! model judge the text rather than the system's casing convention (docs/NEURAL.md,
//! "Casing from the source").
//!
//! Only a word written all lowercase is changed, and only to the form the source uses most
//! often away from a sentence start (where every word is capitalized), so a summary that is
//! already cased is left as it is, and words the source does not have keep their form.

use std::collections::HashMap;

/// The casing the source gives each word: lowercased core → its most frequent form away from
/// sentence starts (the first seen among equally frequent forms).
#[derive(Debug, Clone, Default)]
pub struct SourceCasing {
    forms: HashMap<String, String>,
}

/// A whitespace token split into leading punctuation, the core (from the first to the last
/// alphanumeric character) and trailing punctuation; `None` without an alphanumeric character.
fn split_core(token: &str) -> Option<(&str, &str, &str)> {
    let start = token.find(char::is_alphanumeric)?;
    let end = token
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_alphanumeric())
        .map(|(i, c)| i + c.len_utf8())?;
    Some((&token[..start], &token[start..end], &token[end..]))
}

/// Does a sentence end with this token (a full stop, question or exclamation mark, possibly
/// followed by quotes or brackets)?
fn ends_sentence(token: &str) -> bool {
    token
        .trim_end_matches(['"', '\'', ')', ']', '’', '”'])
        .ends_with(['.', '!', '?'])
}

impl SourceCasing {
    /// Count the forms of every word of `source` that does not start a sentence.
    pub fn from_text(source: &str) -> SourceCasing {
        // lowercased core → (form → (count, first position)).
        let mut counts: HashMap<String, HashMap<&str, (usize, usize)>> = HashMap::new();
        let mut sentence_start = true;
        for (position, token) in source.split_whitespace().enumerate() {
            if let Some((_, core, _)) = split_core(token) {
                if !sentence_start {
                    let entry = counts
                        .entry(core.to_lowercase())
                        .or_default()
                        .entry(core)
                        .or_insert((0, position));
                    entry.0 += 1;
                }
                sentence_start = false;
            }
            if ends_sentence(token) {
                sentence_start = true;
            }
        }
        let forms = counts
            .into_iter()
            .filter_map(|(key, forms)| {
                let (form, _) = forms
                    .into_iter()
                    .max_by(|(_, a), (_, b)| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))?;
                Some((key, form.to_string()))
            })
            .collect();
        SourceCasing { forms }
    }

    /// `text` with every all-lowercase word the source writes otherwise recased as the source
    /// writes it; whitespace runs become single spaces.
    pub fn apply(&self, text: &str) -> String {
        let words: Vec<String> = text
            .split_whitespace()
            .map(|token| match split_core(token) {
                Some((lead, core, tail)) if core == core.to_lowercase() => {
                    match self.forms.get(core) {
                        Some(form) if form != core => format!("{lead}{form}{tail}"),
                        _ => token.to_string(),
                    }
                }
                _ => token.to_string(),
            })
            .collect();
        words.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercase_words_take_the_source_form() {
        let source = "Paul Merson has restarted his row with Andros Townsend . \
                      Merson put it on Twitter , and Townsend replied from Tottenham .";
        let casing = SourceCasing::from_text(source);
        assert_eq!(
            casing.apply("Paul merson criticised andros townsend 's call-up on twitter ."),
            "Paul Merson criticised Andros Townsend 's call-up on Twitter ."
        );
    }

    #[test]
    fn cased_words_and_unknown_words_are_kept() {
        let casing = SourceCasing::from_text("He met the Pope in Rome . The pope smiled .");
        // "Pope" is seen once at mid-sentence and once as "pope"; the first seen wins a tie.
        assert_eq!(casing.apply("the pope"), "the Pope");
        // An already cased word is the system's choice; a word the source lacks stays.
        assert_eq!(casing.apply("ROME and paris"), "ROME and paris");
    }

    #[test]
    fn sentence_starts_do_not_count() {
        // "The" starts both sentences: the mid-sentence "the" is the only evidence.
        let casing = SourceCasing::from_text("The cat sat . The dog ran to the cat .");
        assert_eq!(casing.apply("the dog"), "the dog");
        // A word seen only at sentence starts has no form.
        let casing = SourceCasing::from_text("Yesterday it rained . Yesterday it snowed !");
        assert_eq!(casing.apply("yesterday"), "yesterday");
    }

    #[test]
    fn punctuation_around_a_word_is_kept() {
        let casing = SourceCasing::from_text("a visit to London, then (Paris).");
        assert_eq!(
            casing.apply("\"london\" and (paris)."),
            "\"London\" and (Paris)."
        );
    }

    #[test]
    fn empty_and_symbol_only_texts() {
        let casing = SourceCasing::from_text("");
        assert_eq!(casing.apply("  just   words "), "just words");
        assert_eq!(SourceCasing::from_text("— … 😀").apply("😀 …"), "😀 …");
    }
}
