//! Stop lists. STUB.

/// Is `word` (lowercase) on the SMART common-words list that ROUGE-1.5.5 (`-s`) and SIMetrix use?
pub fn is_smart_common_word(_word: &str) -> bool {
    false
}
