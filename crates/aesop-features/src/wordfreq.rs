//! English word unigram frequencies (wordfreq), for the `neural` class's SLOR features: an LM's
//! log-probability of a word minus the word's log unigram frequency, so that a rare but
//! well-formed word (a name, a technical term) stops counting as a surprise (Kann et al. 2018).
//!
//! The shipped data (`features/wordfreq_en.tsv.gz`, the 100,000 most frequent words of
//! wordfreq 3.1.1's large English list, CC BY-SA 4.0; `features/ATTRIBUTION-wordfreq.md`) is built
//! by `scripts/build/build-wordfreq`, embedded in the binary and parsed once on first use.
//!
//! File format (UTF-8, tab-separated, gzip-compressed; `→` marks a tab here):
//! ```text
//! #aesop-wordfreq→1
//! <word>→<centibels>      one line per word, most frequent first; centibels = round(100 log10 f)
//! ```

use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// The shipped table, gzip-compressed TSV.
const SHIPPED_GZ: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../features/wordfreq_en.tsv.gz"
));

const FORMAT_HEADER: &str = "#aesop-wordfreq\t1";

static SHIPPED: LazyLock<WordFrequencies> = LazyLock::new(|| {
    // Embedded at build time and checked by a unit test: a failure is a packaging bug.
    WordFrequencies::from_gzip(SHIPPED_GZ).unwrap_or_else(|e| {
        panic!("the embedded features/wordfreq_en.tsv.gz is invalid ({e}); re-run scripts/build/build-wordfreq")
    })
});

/// Natural-log unigram probabilities of lowercased words.
#[derive(Debug, Clone)]
pub struct WordFrequencies {
    log_prob: FxHashMap<Box<str>, f64>,
    /// The log-prob given to a word the table lacks: that of its rarest word.
    floor: f64,
}

impl WordFrequencies {
    /// The shipped table (parsed on first use).
    pub fn shipped() -> &'static WordFrequencies {
        &SHIPPED
    }

    fn from_gzip(bytes: &[u8]) -> Result<WordFrequencies, String> {
        let text =
            aesop_core::input::gunzip_text(bytes).map_err(|e| format!("cannot decompress: {e}"))?;
        WordFrequencies::parse_tsv(&text)
    }

    /// Parse the format of the module documentation.
    pub fn parse_tsv(text: &str) -> Result<WordFrequencies, String> {
        let mut lines = text.lines().enumerate();
        if lines.next().map(|(_, l)| l) != Some(FORMAT_HEADER) {
            return Err(format!("line 1: expected header '{FORMAT_HEADER}'"));
        }
        let ln10 = std::f64::consts::LN_10;
        let mut log_prob = FxHashMap::default();
        let mut floor = f64::INFINITY;
        for (i, line) in lines {
            let (word, centibels) = line
                .split_once('\t')
                .ok_or_else(|| format!("line {}: expected <word><TAB><centibels>", i + 1))?;
            let centibels: i32 = centibels
                .parse()
                .map_err(|e| format!("line {}: centibels '{centibels}': {e}", i + 1))?;
            let lp = f64::from(centibels) / 100.0 * ln10;
            floor = floor.min(lp);
            log_prob.entry(word.into()).or_insert(lp);
        }
        if log_prob.is_empty() {
            return Err("no words".into());
        }
        Ok(WordFrequencies { log_prob, floor })
    }

    /// Log unigram probability of `word` (a whitespace-delimited word of a text, punctuation
    /// included) as wordfreq looks words up: lowercased, digits as `0`, leading and trailing
    /// punctuation removed. A word the table lacks is the sum over its word-character runs
    /// (`well-known` = `well` + `known`), each missing run at the floor. `None` for a word
    /// with no letter or digit: punctuation has no unigram term.
    pub fn log_prob(&self, word: &str) -> Option<f64> {
        let is_word_char = |c: char| c.is_alphanumeric() || c == '_';
        let normalized: String = word
            .trim_matches(|c: char| !is_word_char(c))
            .chars()
            .flat_map(char::to_lowercase)
            .map(|c| match c {
                '\u{2019}' => '\'',
                c if c.is_ascii_digit() => '0',
                c => c,
            })
            .collect();
        if normalized.is_empty() {
            return None;
        }
        if let Some(&lp) = self.log_prob.get(normalized.as_str()) {
            return Some(lp);
        }
        Some(
            normalized
                .split(|c: char| !is_word_char(c))
                .filter(|part| !part.is_empty())
                .map(|part| self.log_prob.get(part).copied().unwrap_or(self.floor))
                .sum(),
        )
    }
}

/// From this Zipf frequency (log10 of a word's uses per billion words) a word counts as common
/// English: once per million words, about the 25,000 most frequent words.
pub const COMMON_ZIPF: f64 = 3.0;

impl WordFrequencies {
    /// Whether `word` (as [`Self::log_prob`] reads it) is a common English word: at
    /// [`COMMON_ZIPF`] or above. A word without a letter is not.
    pub fn is_common(&self, word: &str) -> bool {
        let common_log_prob = (COMMON_ZIPF - 9.0) * std::f64::consts::LN_10;
        word.chars().any(char::is_alphabetic)
            && self.log_prob(word).is_some_and(|lp| lp >= common_log_prob)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_table_parses_and_orders_common_words_first() {
        let f = WordFrequencies::shipped();
        assert_eq!(f.log_prob.len(), 100_000);
        let the = f.log_prob("the").unwrap();
        // wordfreq: "the" has frequency 0.0537 (-127 centibels).
        assert!(
            (the - (-1.27 * std::f64::consts::LN_10)).abs() < 1e-9,
            "{the}"
        );
        assert!(f.log_prob("house").unwrap() < the);
        assert!(f.log_prob("house").unwrap() > f.floor);
    }

    #[test]
    fn lookup_normalizes_like_wordfreq() {
        let f = WordFrequencies::parse_tsv(
            "#aesop-wordfreq\t1\nthe\t-100\nwell\t-200\nknown\t-300\n0000\t-250\ndon't\t-220\nzebra\t-500\n",
        )
        .unwrap();
        let lp = |cb: f64| cb / 100.0 * std::f64::consts::LN_10;
        assert_eq!(f.log_prob("The,"), Some(lp(-100.0)));
        assert_eq!(f.log_prob("\"(the)\""), Some(lp(-100.0)));
        assert_eq!(f.log_prob("2019"), Some(lp(-250.0)));
        assert_eq!(f.log_prob("Don\u{2019}t"), Some(lp(-220.0)));
        // Not in the table: the sum of its parts, a missing part at the floor (-500).
        assert_eq!(f.log_prob("well-known"), Some(lp(-200.0) + lp(-300.0)));
        assert_eq!(f.log_prob("well-xyzzy"), Some(lp(-200.0) + lp(-500.0)));
        assert_eq!(f.log_prob("Xyzzy"), Some(lp(-500.0)));
        assert_eq!(f.log_prob("--"), None);
        assert_eq!(f.log_prob(""), None);
    }

    #[test]
    fn malformed_tables_are_errors_with_the_line() {
        assert!(WordFrequencies::parse_tsv("the\t-100\n").is_err());
        let e = WordFrequencies::parse_tsv("#aesop-wordfreq\t1\nthe -100\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        let e = WordFrequencies::parse_tsv("#aesop-wordfreq\t1\nthe\tx\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(WordFrequencies::parse_tsv("#aesop-wordfreq\t1\n").is_err());
    }

    #[test]
    fn common_words_are_those_used_once_per_million_words_or_more() {
        let f = WordFrequencies::parse_tsv(
            "#aesop-wordfreq\t1\nthe\t-100\ncat\t-600\nzebra\t-650\n0000\t-300\n",
        )
        .unwrap();
        // Zipf 8 and 3 (the limit) are common, 2.5 not; a number is no word.
        assert!(f.is_common("The,") && f.is_common("cat"));
        assert!(!f.is_common("zebra") && !f.is_common("2019") && !f.is_common("黑猫"));
    }
}
