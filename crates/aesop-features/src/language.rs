//! Text that does not read as English.
//!
//! Why: every part of aesop that reads language is English: the tagger and parser (UD
//! English), the word lists (stopwords, connectives, word frequencies), the background corpus
//! and the LMs, and the built-ins learned from English sets. Given French or Chinese, aesop
//! still computes every feature and prints scores that look like any others. So `score`,
//! `features` and the learning verbs (and the HTTP service and the Python package when scoring)
//! warn, once per part of a topic (documents, references, summaries), naming the first topic;
//! the work is still done (content overlap means something in any language written with
//! spaces).
//!
//! The test, on a topic's documents (or its references, or its summaries) pooled: text is not
//! English when both under 10% of its words are among the 100 most frequent English function
//! words (*the, and, to, of, a, in, …*; `features/function_words_ud_en.tsv`) and under 70% of
//! its letters are in common English words ([`crate::wordfreq::COMMON_ZIPF`]). Letters, not
//! words, so that a script without spaces between words (Chinese) counts as long as it is. Over
//! the five public sets, every English text of 100 letters or more (6,893) passes one test by a
//! wide margin: those with under 75% common letters (names) have 17% function words or more, and
//! those with under 10% function words (telegraphic headlines) have 95% common letters. News
//! sentences in French, German, Spanish, Italian, Portuguese, Dutch, Indonesian and Swahili
//! have 0-4% function words and 7-46% common letters (French shares many words with English),
//! Chinese and Arabic 0 on both.

use crate::wordfreq::WordFrequencies;
use aesop_corpus::Topic;
use std::collections::HashSet;
use std::sync::LazyLock;

/// Under this share of words that are English function words (and under
/// [`MIN_COMMON_LETTER_SHARE`]), text does not read as English.
pub const MIN_FUNCTION_WORD_SHARE: f64 = 0.1;
/// Under this share of letters in common English words (and under [`MIN_FUNCTION_WORD_SHARE`]),
/// text does not read as English.
pub const MIN_COMMON_LETTER_SHARE: f64 = 0.7;
/// Text with fewer letters is not judged (a headline of names says little about its language).
pub const MIN_LETTERS: usize = 100;
/// Letters read per part of a topic: the start of a long text shows its language.
const MAX_LETTERS: usize = 5_000;
/// How many of the shipped function words (most frequent first) count: further down the list
/// come forms that other languages use too (Portuguese *o*, Swahili *na*).
const FUNCTION_WORDS: usize = 100;

/// The most frequent English function words, lowercased.
static ENGLISH_FUNCTION_WORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    crate::tesla::SHIPPED_FUNCTION_WORDS
        .lines()
        .skip(1)
        .filter_map(|line| line.split('\t').next())
        .take(FUNCTION_WORDS)
        .collect()
});

/// What a text's words say about its language.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Shares {
    /// The share of its words that are English function words.
    pub function_words: f64,
    /// The share of its letters in common English words.
    pub common_letters: f64,
}

impl Shares {
    fn is_english(&self) -> bool {
        self.function_words >= MIN_FUNCTION_WORD_SHARE
            || self.common_letters >= MIN_COMMON_LETTER_SHARE
    }
}

/// Words and letters of texts counted for [`Shares`].
#[derive(Debug, Default)]
struct Counts {
    words: usize,
    function_words: usize,
    letters: usize,
    common_letters: usize,
}

impl Counts {
    /// Count the whitespace-delimited words of `text` that hold a letter, until
    /// [`MAX_LETTERS`] letters are counted.
    fn add(&mut self, text: &str, frequencies: &WordFrequencies) {
        for word in text.split_whitespace() {
            if self.letters >= MAX_LETTERS {
                return;
            }
            let letters = word.chars().filter(|c| c.is_alphabetic()).count();
            if letters == 0 {
                continue;
            }
            self.words += 1;
            self.letters += letters;
            let bare = word
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
                .replace('\u{2019}', "'");
            if ENGLISH_FUNCTION_WORDS.contains(bare.as_str()) {
                self.function_words += 1;
            }
            if frequencies.is_common(word) {
                self.common_letters += letters;
            }
        }
    }

    /// The shares, when there are letters enough to judge.
    fn shares(&self) -> Option<Shares> {
        (self.letters >= MIN_LETTERS).then(|| Shares {
            function_words: self.function_words as f64 / self.words as f64,
            common_letters: self.common_letters as f64 / self.letters as f64,
        })
    }
}

/// A part of a topic, judged as one pooled text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Documents,
    References,
    Summaries,
}

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Documents => "documents",
            Part::References => "references",
            Part::Summaries => "summaries",
        }
    }
}

/// The parts of `topic` that do not read as English, each with its [`Shares`].
pub fn non_english_parts(topic: &Topic) -> Vec<(Part, Shares)> {
    let frequencies = WordFrequencies::shipped();
    let parts: [(Part, Vec<&str>); 3] = [
        (
            Part::Documents,
            topic.documents.iter().map(|d| d.text.as_str()).collect(),
        ),
        (
            Part::References,
            topic.references.iter().map(|r| r.text.as_str()).collect(),
        ),
        (
            Part::Summaries,
            topic.summaries.iter().map(|s| s.text.as_str()).collect(),
        ),
    ];
    parts
        .into_iter()
        .filter_map(|(part, texts)| {
            let mut counts = Counts::default();
            for text in texts {
                counts.add(text, frequencies);
            }
            let shares = counts.shares()?;
            (!shares.is_english()).then_some((part, shares))
        })
        .collect()
}

/// Topics whose text does not read as English, counted per part of the topic: one warning per
/// part, naming the first topic. A topic scored in several batches counts once.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// (part, example, shares): the first topic of each part as the warning names it, with its
    /// shares.
    first: Vec<(Part, String, Shares)>,
    /// (part, topic) counted so far.
    seen: std::collections::BTreeSet<(Part, String)>,
}

impl Tally {
    /// Check `topic` and count the parts of it that are not English.
    pub fn add(&mut self, topic: &Topic) {
        self.add_named(topic, |_| format!("topic '{}'", topic.topic));
    }

    /// As [`Self::add`], with `example` naming a part of the topic in the warning (plain-text
    /// input names its files, not the topic `input` made of them).
    pub fn add_named(&mut self, topic: &Topic, example: impl Fn(Part) -> String) {
        for (part, shares) in non_english_parts(topic) {
            if self.seen.insert((part, topic.topic.clone()))
                && !self.first.iter().any(|(p, _, _)| *p == part)
            {
                self.first.push((part, example(part), shares));
            }
        }
    }

    /// One line per part of a topic found not English.
    pub fn warnings(&self) -> Vec<String> {
        let mut first = self.first.clone();
        first.sort_by_key(|entry| entry.0);
        first
            .iter()
            .map(|(part, example, shares)| {
                let n = self.seen.iter().filter(|(p, _)| p == part).count();
                let share = format!(
                    "{:.0}% of their words are English function words such as 'the' and 'of', \
                     and {:.0}% of their letters are in common English words, where English \
                     text has {:.0}% or {:.0}% at least",
                    shares.function_words * 100.0,
                    shares.common_letters * 100.0,
                    MIN_FUNCTION_WORD_SHARE * 100.0,
                    MIN_COMMON_LETTER_SHARE * 100.0,
                );
                let which = if n == 1 {
                    format!(
                        "the {} of {example} do not read as English ({share})",
                        part.name()
                    )
                } else {
                    format!(
                        "the {} of {n} topics do not read as English (e.g. {example}: {share})",
                        part.name()
                    )
                };
                format!(
                    "{which}: aesop reads English (its tagger, word lists and models are \
                     English ones), so its features and scores of this text mean little"
                )
            })
            .collect()
    }
}

/// The warnings of [`Tally`] for `topics`.
pub fn warnings(topics: &[Topic]) -> Vec<String> {
    let mut tally = Tally::default();
    for topic in topics {
        tally.add(topic);
    }
    tally.warnings()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesop_corpus::{Document, Summary};

    const ENGLISH: &str = "The president announced a new pension reform on Tuesday, which will \
        be presented to parliament next week. The unions called for a strike.";
    const FRENCH: &str = "Le président a annoncé mardi une nouvelle réforme des retraites, qui \
        sera présentée au parlement la semaine prochaine. Les syndicats ont appelé à la grève.";
    const CHINESE: &str = "总统周二宣布了一项新的养老金改革方案，该方案将于下周提交议会审议。\
        工会号召举行罢工。总统表示，改革对于国家财政的长期稳定是必要的，但反对党认为改革\
        将损害普通劳动者的利益，并要求政府重新考虑。议会将在下个月进行投票，结果难以预料。";

    fn topic(name: &str, document: &str, summaries: &[&str]) -> Topic {
        let mut topic = Topic::new(name);
        topic.documents.push(Document::new("d", document));
        for (i, text) in summaries.iter().enumerate() {
            topic.summaries.push(Summary::new(format!("s{i}"), *text));
        }
        topic
    }

    #[test]
    fn english_passes_and_other_languages_are_named_by_part() {
        assert!(non_english_parts(&topic("t", ENGLISH, &[ENGLISH])).is_empty());
        let parts = non_english_parts(&topic("t", FRENCH, &[ENGLISH]));
        assert_eq!(parts.len(), 1, "{parts:?}");
        assert_eq!(parts[0].0, Part::Documents);
        // "a" is the only English function word of its 25 words.
        assert_eq!(parts[0].1.function_words, 1.0 / 25.0);
        assert!(
            parts[0].1.common_letters < MIN_COMMON_LETTER_SHARE,
            "{parts:?}"
        );
        // Chinese writes no spaces: judged by its letters, not its (few) words.
        let parts = non_english_parts(&topic("t", ENGLISH, &[CHINESE]));
        assert_eq!(parts, vec![(Part::Summaries, Shares::default())]);
    }

    #[test]
    fn either_sign_of_english_is_enough() {
        // Telegraphic English: no function word, but common words.
        let headlines = "Council approves budget Monday. Schools, parks gain funding. \
            Transport costs ignored, critics say. Opposition promises amendments next week.";
        assert!(non_english_parts(&topic("t", headlines, &[])).is_empty());
        // Names: rare words, but function words.
        let names = "Anders Lindegaard is married to Misse Beqiri. Beqiri was married to \
            Lindegaard on the beach in Mauritius, and the couple posted photos of it.";
        assert!(non_english_parts(&topic("t", names, &[])).is_empty());
    }

    #[test]
    fn short_text_is_not_judged() {
        // "Le président a annoncé mardi": under 100 letters.
        assert!(
            non_english_parts(&topic("t", ENGLISH, &["Le président a annoncé mardi"])).is_empty()
        );
    }

    #[test]
    fn one_warning_per_part_counting_topics_once() {
        let mut tally = Tally::default();
        tally.add(&topic("a", FRENCH, &[FRENCH]));
        // The same topic again (scored in two batches), then a second one.
        tally.add(&topic("a", FRENCH, &[ENGLISH]));
        tally.add(&topic("b", FRENCH, &[ENGLISH]));
        tally.add(&topic("c", ENGLISH, &[ENGLISH]));
        let warnings = tally.warnings();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0]
                .starts_with("the documents of 2 topics do not read as English (e.g. topic 'a':"),
            "{}",
            warnings[0]
        );
        assert!(
            warnings[1].starts_with("the summaries of topic 'a' do not read as English ("),
            "{}",
            warnings[1]
        );
        assert!(super::warnings(&[topic("c", ENGLISH, &[ENGLISH])]).is_empty());
    }
}
