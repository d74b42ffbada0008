//! The original Porter (1980) stemmer, as used by ROUGE-1.5.5 and SIMetrix.
//! STUB: identity until written.

/// Stem one lowercase word.
pub fn stem(word: &str) -> String {
    word.to_string()
}
