//! Tokenization profiles. STUB: simplified until written.

/// Options of the `rouge155` profile (ROUGE-1.5.5 `-s` and `-m`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rouge155Options {
    pub remove_stopwords: bool,
    pub stem: bool,
}

/// Tokens of `text` exactly as ROUGE-1.5.5 counts them.
pub fn rouge155_tokens(text: &str, opts: Rouge155Options) -> Vec<String> {
    let _ = opts;
    text.to_lowercase()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Tokens of `text` as SIMetrix (Louis & Nenkova) counts them.
pub fn simetrix_tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}
