//! ROUGE-1.5.5's length limits, `-l N` (the first N words) and `-b N` (the first N bytes), as
//! its Perl cuts each text, peer and reference alike, before tokenizing: DUC and TAC scored
//! with them (`-l 100`, `-l 250`, `-b 665`), so their published numbers need them.
//!
//! What ROUGE counts, reproduced here (its `readText` and `readText_LCS`):
//! - a word is a field of Perl's `split(/\s+/, sentence)` on the raw sentence, before
//!   punctuation is dropped (so a lone `.` is a word, `well-known` one);
//! - sentences are taken whole while the running count stays below the limit; the sentence that
//!   reaches it is cut to the words (bytes) left, and nothing follows;
//! - with `-b`, the bytes of a sentence are counted without the spaces joining sentences, and
//!   ROUGE-L's sentences are cut by a second reading whose running count never grows: every
//!   sentence shorter than the limit is kept until the first that is not, which is cut to the
//!   limit. So under `-b` ROUGE-L reads more of a long text than ROUGE-N does; the n-gram
//!   reading still gives ROUGE-L's clipping counts and its precision denominator.

use super::LengthLimit;

/// Perl's `split(/\s+/, line)`: a leading empty field when the line starts with white space
/// (and has a word), no trailing one.
fn perl_fields(line: &str) -> Vec<&str> {
    let mut fields = Vec::new();
    if line.starts_with(|c: char| c.is_ascii_whitespace())
        && line.chars().any(|c| !c.is_ascii_whitespace())
    {
        fields.push("");
    }
    fields.extend(line.split_ascii_whitespace());
    fields
}

/// The first `bytes` bytes of `line` (Perl's `substr`), short of a character cut in two: its
/// bytes are no letter or digit, so ROUGE reads them as a separator at the end.
fn byte_prefix(line: &str, bytes: usize) -> &str {
    let mut end = bytes.min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// The text's sentences (lines) as ROUGE reads them from an SPL file: the empty ones skipped.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').filter(|line| !line.is_empty())
}

/// The text whose tokens ROUGE-N, ROUGE-SU4 and ROUGE-L's clipping count, and the sentences
/// ROUGE-L matches where they differ from it (under `-b` only), each as lines, under `limit`.
pub(super) fn truncated(text: &str, limit: LengthLimit) -> (String, Option<String>) {
    match limit {
        // Both readings cut at words alike.
        LengthLimit::Words(words) => (first_words(text, words), None),
        LengthLimit::Bytes(bytes) => (first_bytes(text, bytes), Some(lcs_bytes(text, bytes))),
    }
}

fn first_words(text: &str, limit: usize) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut count = 0;
    for sentence in sentences(text) {
        let fields = perl_fields(sentence);
        if count + fields.len() < limit {
            kept.push(sentence.to_string());
            count += fields.len();
        } else {
            kept.push(fields[..limit - count].join(" "));
            break;
        }
    }
    kept.join("\n")
}

fn first_bytes(text: &str, limit: usize) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut count = 0;
    for sentence in sentences(text) {
        if count + sentence.len() < limit {
            kept.push(sentence);
            count += sentence.len();
        } else {
            kept.push(byte_prefix(sentence, limit - count));
            break;
        }
    }
    kept.join("\n")
}

/// ROUGE-L's reading under `-b`: its running count stays at zero (ROUGE-1.5.5's
/// `readText_LCS` never adds to it).
fn lcs_bytes(text: &str, limit: usize) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for sentence in sentences(text) {
        if sentence.len() < limit {
            kept.push(sentence);
        } else {
            kept.push(byte_prefix(sentence, limit));
            break;
        }
    }
    kept.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_perl_fields_and_the_sentence_reaching_the_limit_is_cut() {
        let text = "The cat sat .\nIt was well-known , they said .\nMore here.";
        // 4 words, then 7 (`well-known` one, `,` and `.` one each): 4 + 7 >= 6 cuts to 2.
        let (ngram, lcs) = truncated(text, LengthLimit::Words(6));
        assert_eq!(ngram, "The cat sat .\nIt was");
        assert_eq!(lcs, None, "ROUGE-L reads what the n-grams do");
        // A limit the whole text stays below keeps it all; one equal to a sentence end cuts
        // that sentence to itself, and nothing follows.
        assert_eq!(first_words(text, 100), text);
        assert_eq!(first_words(text, 4), "The cat sat .");
        assert_eq!(perl_fields("  a b"), vec!["", "a", "b"]);
        assert!(perl_fields("   ").is_empty());
    }

    #[test]
    fn bytes_count_sentences_without_their_joins_and_lcs_never_accumulates() {
        let text = "aaaa bbbb\ncccc dddd\neeee ffff\nggggggggggggggg";
        // n-gram reading: 9 + 9 < 20, then 18 + 9 >= 20 cuts the third sentence to 2 bytes.
        assert_eq!(first_bytes(text, 20), "aaaa bbbb\ncccc dddd\nee");
        // ROUGE-L's reading keeps every sentence shorter than 12 bytes, then cuts the first
        // longer one to 12 bytes.
        assert_eq!(
            lcs_bytes(text, 12),
            "aaaa bbbb\ncccc dddd\neeee ffff\ngggggggggggg"
        );
        // A character cut in two is dropped (ROUGE reads its bytes as a separator).
        assert_eq!(byte_prefix("café", 4), "caf");
        assert_eq!(byte_prefix("café", 5), "café");
    }
}
