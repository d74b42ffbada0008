//! The `cohmetrix` feature class (reference-free): Coh-Metrix-like descriptive measures of a
//! summary (Graesser et al. 2004, as used by Pitler, Louis & Nenkova 2010): word and sentence
//! length, lexical diversity, readability, connective density, adjacent-sentence overlap, share
//! of content words and pronoun density.
//!
//! Everything is computed from the shared per-topic analyses ([`super::analyses::topic_analyses`]):
//! the analyser's sentences, tokens and universal POS tags. [`cohmetrix_values`] takes one
//! [`Analysis`], so tests can build analyses by hand.
//!
//! # Definitions
//! * **Word**: a token with at least one alphanumeric character (punctuation and symbols are
//!   not words; clitics such as `n't` and `'s` are). Types are lowercase forms.
//! * **Content word**: a word tagged NOUN, PROPN, VERB, ADJ or ADV (Coh-Metrix's content
//!   classes; auxiliaries are AUX in UD and so are not content words).
//! * **Content stem**: the Porter stem of a lowercase content word that is not on the SMART
//!   common-word list (so `said`, `also`, … do not create overlap).
//! * **Noun lemma**: the Porter stem of a lowercase NOUN or PROPN (the analyser gives no lemma).
//! * **Syllables**: [`syllables`], a documented vowel-group heuristic.
//!
//! # Features (`cohmetrix.*`)
//! | feature | definition |
//! |---|---|
//! | `word_chars` | mean characters (Unicode scalar values) per word |
//! | `word_syllables` | mean syllables per word |
//! | `sentence_words` | mean words per sentence (sentences without words count, with 0) |
//! | `ttr` | distinct types / words |
//! | `mattr` | moving-average TTR over windows of [`MATTR_WINDOW`] words (Covington & McFall 2010); TTR when shorter |
//! | `flesch_reading_ease` | 206.835 − 1.015·(words/sentences) − 84.6·(syllables/words) |
//! | `flesch_kincaid_grade` | 0.39·(words/sentences) + 11.8·(syllables/words) − 15.59 |
//! | `connectives` | connective occurrences / words ([`CONNECTIVES`]) |
//! | `connectives_additive`, `_causal`, `_adversative`, `_temporal` | the same per category |
//! | `adjacent_noun_overlap` | share of adjacent sentence pairs sharing a noun lemma |
//! | `adjacent_content_overlap` | mean over adjacent pairs of shared / all distinct content stems of the pair (0 for a pair without any) |
//! | `content_word_share` | content words / words |
//! | `pronoun_density` | PRON tokens / words |
//!
//! Undefined values are NaN: every per-word value for a summary without words (e.g. empty), and
//! both adjacent-overlap values for a summary with fewer than two sentences. Nothing panics.

use super::{ClassSpec, ParseFeatures, ReferenceUse};
use aesop_text::nlp::{Analysis, Token};
use aesop_text::porter;
use aesop_text::stopwords::is_smart_common_word;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// Window of the moving-average type-token ratio (a common choice for short texts).
pub const MATTR_WINDOW: usize = 25;

/// Connective categories, in the order of the per-category features.
pub const CONNECTIVE_CATEGORIES: &[&str] = &["additive", "causal", "adversative", "temporal"];

/// A small hand list of common English connectives by category (index into
/// [`CONNECTIVE_CATEGORIES`]), lowercase, multi-word ones as space-separated tokens. Ambiguous
/// words are listed under their most frequent connective use and counted wherever they occur,
/// as Coh-Metrix's word lists do; `as` and `since` are left out as too ambiguous.
pub const CONNECTIVES: &[(&str, usize)] = &[
    // Additive.
    ("and", 0),
    ("also", 0),
    ("moreover", 0),
    ("furthermore", 0),
    ("additionally", 0),
    ("besides", 0),
    ("likewise", 0),
    ("similarly", 0),
    ("in addition", 0),
    ("as well as", 0),
    ("for example", 0),
    ("for instance", 0),
    // Causal.
    ("because", 1),
    ("so", 1),
    ("therefore", 1),
    ("thus", 1),
    ("hence", 1),
    ("consequently", 1),
    ("as a result", 1),
    ("because of", 1),
    ("due to", 1),
    ("so that", 1),
    // Adversative.
    ("but", 2),
    ("however", 2),
    ("although", 2),
    ("though", 2),
    ("yet", 2),
    ("nevertheless", 2),
    ("nonetheless", 2),
    ("whereas", 2),
    ("instead", 2),
    ("despite", 2),
    ("even though", 2),
    ("in contrast", 2),
    ("on the other hand", 2),
    ("in spite of", 2),
    // Temporal.
    ("then", 3),
    ("after", 3),
    ("before", 3),
    ("when", 3),
    ("while", 3),
    ("until", 3),
    ("meanwhile", 3),
    ("afterwards", 3),
    ("later", 3),
    ("finally", 3),
    ("eventually", 3),
    ("subsequently", 3),
    ("previously", 3),
    ("after that", 3),
    ("at the same time", 3),
];

/// [`CONNECTIVES`] split into tokens once.
static CONNECTIVE_TOKENS: LazyLock<Vec<(Vec<&'static str>, usize)>> = LazyLock::new(|| {
    CONNECTIVES
        .iter()
        .map(|&(c, category)| (c.split(' ').collect(), category))
        .collect()
});

/// Names of the features, without the class prefix, in output order.
pub const FEATURES: &[&str] = &[
    "word_chars",
    "word_syllables",
    "sentence_words",
    "ttr",
    "mattr",
    "flesch_reading_ease",
    "flesch_kincaid_grade",
    "connectives",
    "connectives_additive",
    "connectives_causal",
    "connectives_adversative",
    "connectives_temporal",
    "adjacent_noun_overlap",
    "adjacent_content_overlap",
    "content_word_share",
    "pronoun_density",
];

/// The values of one summary, field for field as in [`FEATURES`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CohMetrixValues {
    pub word_chars: f64,
    pub word_syllables: f64,
    pub sentence_words: f64,
    pub ttr: f64,
    pub mattr: f64,
    pub flesch_reading_ease: f64,
    pub flesch_kincaid_grade: f64,
    pub connectives: f64,
    /// Per category, in the order of [`CONNECTIVE_CATEGORIES`].
    pub connectives_by_category: [f64; 4],
    pub adjacent_noun_overlap: f64,
    pub adjacent_content_overlap: f64,
    pub content_word_share: f64,
    pub pronoun_density: f64,
}

impl CohMetrixValues {
    /// The values in the order of [`FEATURES`].
    pub fn to_row(&self) -> Vec<f64> {
        let mut row = vec![
            self.word_chars,
            self.word_syllables,
            self.sentence_words,
            self.ttr,
            self.mattr,
            self.flesch_reading_ease,
            self.flesch_kincaid_grade,
            self.connectives,
        ];
        row.extend_from_slice(&self.connectives_by_category);
        row.extend([
            self.adjacent_noun_overlap,
            self.adjacent_content_overlap,
            self.content_word_share,
            self.pronoun_density,
        ]);
        row
    }
}

/// Is the token a word (has a letter or digit)?
pub fn is_word(token: &Token) -> bool {
    token.form.chars().any(char::is_alphanumeric)
}

/// Is the token a content word (a word tagged NOUN, PROPN, VERB, ADJ or ADV)?
pub fn is_content_word(token: &Token) -> bool {
    matches!(
        token.upos.as_str(),
        "NOUN" | "PROPN" | "VERB" | "ADJ" | "ADV"
    ) && is_word(token)
}

/// The content stem of a token: Porter stem of the lowercase form of a content word that is not
/// a SMART common word; `None` otherwise. Shared with the `redundancy` class.
pub fn content_stem(token: &Token) -> Option<String> {
    if !is_content_word(token) {
        return None;
    }
    let lower = token.form.to_lowercase();
    if is_smart_common_word(&lower) {
        return None;
    }
    Some(porter::stem(&lower))
}

/// Syllables of one word, by a vowel-group heuristic (no dictionary):
/// 1. lowercase; only ASCII letters count (other characters are ignored);
/// 2. count maximal groups of vowels `a e i o u y`, where a word-initial `y` is a consonant;
/// 3. a final `e` after a consonant is silent (one group less), except in `-le` after a
///    consonant (`ta-ble`); a final `-es` or `-ed` after a consonant is silent too, except
///    after the sibilants `s x z c g` (`box-es`) or, for `-ed`, after `t d` (`want-ed`);
/// 4. at least 1 (also for a word without letters, e.g. a number).
///
/// Right for most common words (cat 1, make 1, table 2, jumped 1, wanted 2, boxes 2,
/// beautiful 3); wrong for some (`recipe` 2, `create` 1, `rhythm` 1).
pub fn syllables(word: &str) -> usize {
    let letters: Vec<char> = word
        .chars()
        .flat_map(char::to_lowercase)
        .filter(char::is_ascii_alphabetic)
        .collect();
    let is_vowel = |i: usize| -> bool {
        match letters[i] {
            'a' | 'e' | 'i' | 'o' | 'u' => true,
            'y' => i > 0,
            _ => false,
        }
    };
    let mut groups = 0;
    let mut previous_vowel = false;
    for i in 0..letters.len() {
        let v = is_vowel(i);
        if v && !previous_vowel {
            groups += 1;
        }
        previous_vowel = v;
    }
    let n = letters.len();
    let consonant_at = |i: usize| !is_vowel(i);
    if groups > 1 && n >= 2 && letters[n - 1] == 'e' && consonant_at(n - 2) {
        // Final silent e, but `-le` after a consonant is its own syllable.
        let syllabic_le = letters[n - 2] == 'l' && n >= 3 && consonant_at(n - 3);
        if !syllabic_le {
            groups -= 1;
        }
    } else if groups > 1
        && n >= 3
        && letters[n - 2] == 'e'
        && matches!(letters[n - 1], 's' | 'd')
        && consonant_at(n - 3)
    {
        let before = letters[n - 3];
        let voiced = match letters[n - 1] {
            's' => matches!(before, 's' | 'x' | 'z' | 'c' | 'g'),
            _ => matches!(before, 't' | 'd'),
        };
        if !voiced {
            groups -= 1;
        }
    }
    groups.max(1)
}

/// Type-token ratio of `words` (NaN when empty).
pub fn ttr<T: std::hash::Hash + Eq>(words: &[T]) -> f64 {
    if words.is_empty() {
        return f64::NAN;
    }
    words.iter().collect::<HashSet<_>>().len() as f64 / words.len() as f64
}

/// Moving-average type-token ratio: the mean TTR of every window of `window` consecutive words
/// (the TTR of the whole text when it is shorter than a window; NaN when empty).
pub fn mattr<T: std::hash::Hash + Eq>(words: &[T], window: usize) -> f64 {
    if words.is_empty() {
        return f64::NAN;
    }
    if window == 0 || words.len() <= window {
        return ttr(words);
    }
    // Slide one window, keeping type counts, so the whole text costs O(n).
    let mut counts: HashMap<&T, usize> = HashMap::new();
    for w in &words[..window] {
        *counts.entry(w).or_insert(0) += 1;
    }
    let mut total = counts.len() as f64;
    for i in window..words.len() {
        let out = &words[i - window];
        if let Some(c) = counts.get_mut(out) {
            *c -= 1;
            if *c == 0 {
                counts.remove(out);
            }
        }
        *counts.entry(&words[i]).or_insert(0) += 1;
        total += counts.len() as f64;
    }
    let windows = words.len() - window + 1;
    total / (windows * window) as f64
}

/// Flesch reading ease from the three counts (NaN without words or sentences).
pub fn flesch_reading_ease(words: usize, sentences: usize, syllables: usize) -> f64 {
    if words == 0 || sentences == 0 {
        return f64::NAN;
    }
    206.835 - 1.015 * (words as f64 / sentences as f64) - 84.6 * (syllables as f64 / words as f64)
}

/// Flesch–Kincaid grade level from the three counts (NaN without words or sentences).
pub fn flesch_kincaid_grade(words: usize, sentences: usize, syllables: usize) -> f64 {
    if words == 0 || sentences == 0 {
        return f64::NAN;
    }
    0.39 * (words as f64 / sentences as f64) + 11.8 * (syllables as f64 / words as f64) - 15.59
}

/// Connective occurrences per category in one sentence's lowercase tokens: at each position the
/// longest listed connective starting there is taken and the scan continues after it, so
/// `as a result` is one causal connective and `even though` one adversative (not `though`).
pub fn count_connectives(lower_tokens: &[String]) -> [usize; 4] {
    let mut counts = [0; 4];
    let mut i = 0;
    while i < lower_tokens.len() {
        let mut best: Option<(usize, usize)> = None;
        for (parts, category) in CONNECTIVE_TOKENS.iter() {
            let (len, category) = (parts.len(), *category);
            let matches = i + len <= lower_tokens.len()
                && parts
                    .iter()
                    .zip(&lower_tokens[i..i + len])
                    .all(|(p, t)| *p == t.as_str());
            if matches && best.is_none_or(|(l, _)| len > l) {
                best = Some((len, category));
            }
        }
        match best {
            Some((len, category)) => {
                counts[category] += 1;
                i += len;
            }
            None => i += 1,
        }
    }
    counts
}

/// Mean over adjacent pairs of sets of `f(pair)`; NaN with fewer than two sets.
fn adjacent_mean<T>(sets: &[HashSet<T>], f: impl Fn(&HashSet<T>, &HashSet<T>) -> f64) -> f64 {
    if sets.len() < 2 {
        return f64::NAN;
    }
    let total: f64 = sets.windows(2).map(|w| f(&w[0], &w[1])).sum();
    total / (sets.len() - 1) as f64
}

/// The `cohmetrix` values of one analysed summary.
pub fn cohmetrix_values(analysis: &Analysis) -> CohMetrixValues {
    let mut words: Vec<String> = Vec::new();
    let mut chars = 0usize;
    let mut syllable_count = 0usize;
    let mut content = 0usize;
    let mut pronouns = 0usize;
    let mut connectives = [0usize; 4];
    let mut noun_lemmas: Vec<HashSet<String>> = Vec::new();
    let mut content_stems: Vec<HashSet<String>> = Vec::new();
    for sentence in &analysis.sentences {
        let lower: Vec<String> = sentence
            .tokens
            .iter()
            .map(|t| t.form.to_lowercase())
            .collect();
        let mut nouns = HashSet::new();
        let mut stems = HashSet::new();
        for (token, lower) in sentence.tokens.iter().zip(&lower) {
            if !is_word(token) {
                continue;
            }
            chars += token.form.chars().count();
            syllable_count += syllables(&token.form);
            if is_content_word(token) {
                content += 1;
            }
            if token.upos == "PRON" {
                pronouns += 1;
            }
            if matches!(token.upos.as_str(), "NOUN" | "PROPN") {
                nouns.insert(porter::stem(lower));
            }
            if let Some(stem) = content_stem(token) {
                stems.insert(stem);
            }
            words.push(lower.clone());
        }
        // Connectives are matched on words only, so a comma cannot break `as a result`.
        let sentence_words: Vec<String> = sentence
            .tokens
            .iter()
            .zip(&lower)
            .filter(|(t, _)| is_word(t))
            .map(|(_, l)| l.clone())
            .collect();
        for (total, c) in connectives
            .iter_mut()
            .zip(count_connectives(&sentence_words))
        {
            *total += c;
        }
        noun_lemmas.push(nouns);
        content_stems.push(stems);
    }
    let nwords = words.len();
    let nsentences = analysis.sentences.len();
    let per_word = |count: usize| {
        if nwords == 0 {
            f64::NAN
        } else {
            count as f64 / nwords as f64
        }
    };
    CohMetrixValues {
        word_chars: per_word(chars),
        word_syllables: per_word(syllable_count),
        sentence_words: if nsentences == 0 {
            f64::NAN
        } else {
            nwords as f64 / nsentences as f64
        },
        ttr: ttr(&words),
        mattr: mattr(&words, MATTR_WINDOW),
        flesch_reading_ease: flesch_reading_ease(nwords, nsentences, syllable_count),
        flesch_kincaid_grade: flesch_kincaid_grade(nwords, nsentences, syllable_count),
        connectives: per_word(connectives.iter().sum()),
        connectives_by_category: connectives.map(per_word),
        adjacent_noun_overlap: adjacent_mean(&noun_lemmas, |a, b| {
            if a.is_disjoint(b) {
                0.0
            } else {
                1.0
            }
        }),
        adjacent_content_overlap: adjacent_mean(&content_stems, |a, b| {
            let union = a.union(b).count();
            if union == 0 {
                0.0
            } else {
                a.intersection(b).count() as f64 / union as f64
            }
        }),
        content_word_share: per_word(content),
        pronoun_density: per_word(pronouns),
    }
}

/// The `cohmetrix` feature class.
#[derive(Debug, Clone, Default)]
pub struct CohMetrix;

impl CohMetrix {
    pub fn new() -> CohMetrix {
        CohMetrix
    }
}

/// The `cohmetrix` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "cohmetrix",
    about: "Coh-Metrix-like descriptive measures",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(CohMetrix::new())),
};

impl ParseFeatures for CohMetrix {
    const SPEC: &'static ClassSpec = &CLASS;
    fn names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("cohmetrix.{f}")).collect()
    }
    fn row(&self, analysis: &Analysis) -> Vec<f64> {
        cohmetrix_values(analysis).to_row()
    }
}
