//! Stop lists.

use rustc_hash::FxHashSet;
use std::sync::LazyLock;

/// ROUGE-1.5.5's `smart_common_words.txt` (the SMART list plus news tokens); SIMetrix ships the
/// identical file.
const SMART_COMMON_WORDS: &str = include_str!("../../../features/smart_common_words.txt");

static SMART: LazyLock<FxHashSet<&'static str>> = LazyLock::new(|| {
    SMART_COMMON_WORDS
        .lines()
        .map(str::trim_end)
        .filter(|w| !w.is_empty())
        .collect()
});

/// Is `word` (lowercase) on the SMART common-words list that ROUGE-1.5.5 (`-s`) and SIMetrix use?
pub fn is_smart_common_word(word: &str) -> bool {
    SMART.contains(word)
}

#[cfg(test)]
mod tests {
    use super::is_smart_common_word;

    #[test]
    fn list_membership() {
        for w in ["the", "a", "would", "reuters", "mr.", "'s", "whereupon"] {
            assert!(is_smart_common_word(w), "{w}");
        }
        // The ROUGE list drops `first`, `last` and `name` from SMART.
        for w in ["first", "last", "name", "summary", "The", ""] {
            assert!(!is_smart_common_word(w), "{w}");
        }
    }
}
