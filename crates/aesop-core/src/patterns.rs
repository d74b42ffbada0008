//! The one syntax of feature patterns, as `train --features` and `evaluate --features` take
//! them: a feature name, or a prefix ending in `*` (`*` alone matches every name).

/// Whether `pattern` chooses the feature `name`.
pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn a_name_or_a_prefix_ending_in_a_star() {
        assert!(matches("rouge.r1_f", "rouge.r1_f"));
        assert!(!matches("rouge.r1", "rouge.r1_f"));
        assert!(matches("rouge.*", "rouge.r1_f"));
        assert!(matches("rouge.r1*", "rouge.r1_f"));
        assert!(!matches("content.*", "rouge.r1_f"));
        assert!(matches("*", "anything"));
    }
}
