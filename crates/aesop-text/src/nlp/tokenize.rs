//! Tokenizer for raw English following UD English-EWT conventions closely enough for the tagger:
//! clitics (`'s n't 're 'll 'd 've 'm`) are split off, `cannot`/`gonna`/`wanna`/`gotta` split in two,
//! punctuation separated (runs like `...` or `?!` stay one token), hyphenated words split at the
//! hyphen except after prefixes EWT keeps (`e-mail`, `non-`, `pre-`, `co-` …) and inside numbers
//! (`713-853-3989`), slashes between words split (`and / or`) but not in numbers (`11/28/2000`),
//! URLs, e-mail addresses, numbers (`3.5`, `1,000`), abbreviations (`U.S.`, `Mr.`) and common
//! emoticons kept whole, `$` and `%` separate. Emphasis marks around a word (`*new*`, `_new_`,
//! `**new**`, as Markdown and EWT's web text write them) are split off, one token per run;
//! underscores inside a word (`GCP_London`, `trans_expn.pdf`) stay. A Markdown link splits into its
//! brackets, its words and its target (`[`, `the`, `report`, `]`, `(`, `https://…`, `)`). Every token carries byte offsets into the input.

use std::ops::Range;

/// A token: its byte range in the text it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, source: &'a str) -> &'a str {
        source.get(self.start..self.end).unwrap_or("")
    }
}

/// Prefixes EWT keeps attached to the rest of a hyphenated word.
const HYPHEN_PREFIXES: &[&str] = &[
    "e", "non", "pre", "anti", "re", "mid", "post", "co", "pro", "multi", "ex", "sub", "semi",
    "neo", "cross", "vice", "un", "socio", "micro", "intra", "counter", "self", "inter", "over",
    "psycho", "bi", "tri",
];

/// Words whose final period belongs to the word.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "inc", "ltd", "co", "corp", "vs",
    "etc", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "no", "vol", "gen", "gov", "sen", "rep", "capt", "col", "lt", "sgt", "ave", "blvd", "dept",
    "est", "fig", "approx", "min", "max", "e.g", "i.e", "a.m", "p.m", "u.s", "u.k", "d.c", "ph.d",
];

const EMOTICONS: &[&str] = &[
    ":)", ":-)", ":(", ":-(", ";)", ";-)", ":D", ":-D", ":P", ":-P", ":p", ":/", ":-/", ":o", ":O",
    "<3", ":'(", "^_^", "^^", "XD", "xD", ":]", "=)",
];

/// Clitic suffixes split off a word (compared in lower case, either apostrophe).
const CLITICS: &[&str] = &["n't", "'s", "'re", "'ll", "'d", "'ve", "'m"];

/// Tokenize `text`; offsets are relative to `text` plus `base`.
pub fn tokenize_with_base(text: &str, base: usize) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chunk_start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if is_space(c) {
            if let Some(s) = chunk_start.take() {
                split_chunk(text, s..i, &mut out);
            }
        } else if chunk_start.is_none() {
            chunk_start = Some(i);
        }
    }
    if let Some(s) = chunk_start {
        split_chunk(text, s..text.len(), &mut out);
    }
    for t in &mut out {
        t.start += base;
        t.end += base;
    }
    out
}

/// Tokenize `text` with offsets relative to it.
pub fn tokenize(text: &str) -> Vec<Token> {
    tokenize_with_base(text, 0)
}

/// Whitespace, control and invisible format characters all separate tokens.
fn is_space(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(c, '\u{200B}' | '\u{200C}' | '\u{2060}' | '\u{FEFF}')
}

fn is_url_or_email(s: &str) -> bool {
    is_url_start(s) || is_email(s)
}

/// Does `s` start as a web address does? Only its first bytes are read, so that peeling marks
/// off a long chunk one at a time stays linear.
fn is_url_start(s: &str) -> bool {
    let head = &s.as_bytes()[..s.len().min(8)];
    let starts = |prefix: &[u8]| {
        head.len() >= prefix.len() && head[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    starts(b"http://") || starts(b"https://") || starts(b"www.") || starts(b"ftp://")
}

fn is_email_char(c: char) -> bool {
    c.is_alphanumeric() || "._%+-@".contains(c)
}

/// `user@host.domain`. The characters are checked first, which stops at the first one an
/// address cannot hold (a bracket or quote being peeled off a chunk), so the test is cheap
/// where it fails.
fn is_email(s: &str) -> bool {
    if !s.chars().all(is_email_char) {
        return false;
    }
    s.split_once('@')
        .is_some_and(|(user, host)| !user.is_empty() && host.contains('.') && !host.ends_with('.'))
}

/// Characters split off the front of a chunk.
fn is_opening(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '('
            | '['
            | '{'
            | '<'
            | '“'
            | '‘'
            | '«'
            | '$'
            | '£'
            | '€'
            | '¥'
            | '#'
            | '¿'
            | '¡'
            | '*'
            | '_'
            | '`'
            | '~'
    ) || is_symbol(c)
}

/// Characters split off the end of a chunk.
fn is_closing(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | ')'
            | ']'
            | '}'
            | '>'
            | '”'
            | '’'
            | '»'
            | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '.'
            | '…'
            | '%'
            | '*'
            | '_'
            | '`'
    ) || is_symbol(c)
}

/// Emoji and other pictographic symbols: always tokens of their own.
fn is_symbol(c: char) -> bool {
    let u = c as u32;
    (0x1F000..=0x1FAFF).contains(&u)
        || (0x2600..=0x27BF).contains(&u)
        || (0x2190..=0x21FF).contains(&u)
}

const ZWJ: char = '\u{200D}';

/// Byte length of the emoji sequence at the start of `s` (a symbol, its modifiers and selectors,
/// and further symbols joined by zero-width joiners).
fn emoji_sequence_len(s: &str) -> usize {
    let mut chars = s.chars().peekable();
    let mut len = 0;
    let mut expect_symbol = true;
    while let Some(&c) = chars.peek() {
        if expect_symbol && is_symbol(c) {
            expect_symbol = false;
        } else if !expect_symbol && is_emoji_glue(c) {
            expect_symbol = c == ZWJ;
        } else {
            break;
        }
        len += c.len_utf8();
        chars.next();
    }
    len.max(s.chars().next().map_or(0, char::len_utf8))
}

/// Zero-width joiners and variation selectors glue emoji sequences together.
fn is_emoji_glue(c: char) -> bool {
    matches!(c, '\u{200D}' | '\u{FE0F}' | '\u{FE0E}') || (0x1F3FB..=0x1F3FF).contains(&(c as u32))
}

fn push(out: &mut Vec<Token>, r: Range<usize>) {
    if r.start < r.end {
        out.push(Token {
            start: r.start,
            end: r.end,
        });
    }
}

/// Byte length of the run of `c` (or of mixed `!`/`?`) starting at `at` in `s`.
fn run_len(s: &str, c: char) -> usize {
    let same = |d: char| d == c || (matches!(c, '!' | '?') && matches!(d, '!' | '?'));
    s.chars().take_while(|&d| same(d)).map(char::len_utf8).sum()
}

fn split_chunk(text: &str, r: Range<usize>, out: &mut Vec<Token>) {
    // A Markdown link (`[the text](https://…)`, as language models and chat tools write them)
    // is the link text's piece and the target's: `text` `]` and `(` `https://…` `)`, so the word
    // reaches the tagger alone and the target stays one URL.
    let mut piece_start = r.start;
    for (at, _) in text[r.clone()].match_indices("](") {
        split_piece(text, piece_start..r.start + at + 1, out);
        piece_start = r.start + at + 1;
    }
    split_piece(text, piece_start..r.end, out);
}

/// A chunk, or the part of one between a Markdown link's `]` and `(`, into tokens.
fn split_piece(text: &str, r: Range<usize>, out: &mut Vec<Token>) {
    let chunk = &text[r.clone()];
    if EMOTICONS.contains(&chunk) {
        push(out, r);
        return;
    }
    let (mut start, mut end) = (r.start, r.end);
    // Leading punctuation, one token per character (emoji sequences together).
    let mut leading = Vec::new();
    while start < end {
        let rest = &text[start..end];
        if is_url_or_email(rest) || EMOTICONS.contains(&rest) {
            break;
        }
        let Some(c) = rest.chars().next() else { break };
        if !is_opening(c) {
            break;
        }
        let mut len = c.len_utf8();
        if is_symbol(c) {
            len = emoji_sequence_len(rest);
        } else if matches!(c, '*' | '_' | '`' | '~' | '\'' | '"') {
            len = run_len(rest, c);
        }
        // A quote before a clitic-looking word (`'s`, `'em`) is part of it.
        if c == '\''
            && len == 1
            && start + 1 < end
            && rest[1..].chars().next().is_some_and(char::is_alphanumeric)
            && start > r.start
        {
            break;
        }
        leading.push(start..start + len);
        start += len;
    }
    // Trailing punctuation, peeled from the end; runs of the same mark stay one token.
    // URLs keep everything but trailing sentence punctuation and closing brackets/quotes (`>`
    // too: `<https://…>` is an autolink, and no URL holds a bare `>`). Where the URL's own
    // characters end is found once, and an address is tested only once the characters left
    // could all be its own, so that peeling a long run of mixed marks stays linear.
    let url_end = is_url_start(&text[start..end]).then(|| {
        let trimmed = text[start..end].trim_end_matches(|c: char| ".,;:!?)]}>\"'”’".contains(c));
        start + trimmed.len()
    });
    let chunk = &text[start..end];
    let email_chars_end = chunk
        .char_indices()
        .find(|&(_, c)| !is_email_char(c))
        .map_or(end, |(k, _)| start + k);
    // `text[start..e]` is an address (as `is_email` says) when its characters all may be, its
    // first `@` has a user before it and a `.` after it, and it does not end in `.`.
    let at = chunk.find('@').map(|k| start + k);
    let dot_after_at = at.and_then(|a| text[a..end].find('.').map(|k| a + k));
    let is_email_until = |e: usize| {
        e <= email_chars_end
            && at.is_some_and(|a| a > start && a < e)
            && dot_after_at.is_some_and(|d| d < e)
            && !text[..e].ends_with('.')
    };
    let mut trailing: Vec<Range<usize>> = Vec::new();
    while start < end {
        let rest = &text[start..end];
        if let Some(url_end) = url_end {
            if end <= url_end || url_end == start {
                break;
            }
        } else if is_email_until(end) {
            let trimmed = rest.trim_end_matches('.');
            if trimmed.len() == rest.len() || trimmed.is_empty() {
                break;
            }
        }
        if EMOTICONS.contains(&rest) {
            break;
        }
        let Some(c) = rest.chars().next_back() else {
            break;
        };
        if !is_closing(c) && !is_emoji_glue(c) {
            break;
        }
        let mut tok_start = end - c.len_utf8();
        if is_symbol(c) || is_emoji_glue(c) {
            // Walk back over a whole emoji sequence (modifiers, variation selectors, ZWJ-joined symbols).
            while tok_start > start {
                let Some(p) = text[start..tok_start].chars().next_back() else {
                    break;
                };
                let cur = text[tok_start..end].chars().next().unwrap_or(' ');
                if (is_emoji_glue(cur) && (is_symbol(p) || is_emoji_glue(p))) || p == ZWJ {
                    tok_start -= p.len_utf8();
                } else {
                    break;
                }
            }
        } else {
            // Extend over a run of the same mark ("...", "!!", "?!").
            while tok_start > start {
                let Some(p) = text[start..tok_start].chars().next_back() else {
                    break;
                };
                let same = p == c || (matches!(c, '!' | '?') && matches!(p, '!' | '?'));
                if same {
                    tok_start -= p.len_utf8();
                } else {
                    break;
                }
            }
        }
        if c == '.' && tok_start + 1 == end && keeps_period(&text[start..end]) {
            break;
        }
        // Possessive apostrophe after s ("students'") is its own token; other apostrophes too.
        // A number's decimal separator or thousands comma never ends up here (they are not final).
        if tok_start == start {
            // The whole rest is punctuation: one token (handled below as the core).
            break;
        }
        trailing.push(tok_start..end);
        end = tok_start;
    }
    for t in leading {
        push(out, t);
    }
    if start < end {
        split_core(text, start..end, out);
    }
    for t in trailing.into_iter().rev() {
        push(out, t);
    }
}

/// The longest word an abbreviation's period stays on (`U.S.A.`, `Calif.`, `a.m.`).
const MAX_ABBREVIATION_BYTES: usize = 24;

/// `word.` is an abbreviation: in the list, a single letter, or letters with inner periods (`U.S.`).
fn keeps_period(word_with_period: &str) -> bool {
    let w = &word_with_period[..word_with_period.len() - 1];
    // No abbreviation, initial or acronym is longer; a long chunk is not read whole at each
    // period peeled off it.
    if w.is_empty() || w.len() > MAX_ABBREVIATION_BYTES {
        return false;
    }
    let lower = w.to_lowercase();
    if ABBREVIATIONS.contains(&lower.as_str()) {
        return true;
    }
    let mut chars = w.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return c.is_alphabetic() && c.is_uppercase();
    }
    w.contains('.')
        && w.split('.')
            .all(|p| !p.is_empty() && p.chars().count() <= 2 && p.chars().all(char::is_alphabetic))
}

/// Split a chunk without outer punctuation at hyphens/slashes between words, then clitics.
fn split_core(text: &str, r: Range<usize>, out: &mut Vec<Token>) {
    let core = &text[r.clone()];
    if is_url_or_email(core) || is_number(core) {
        push(out, r);
        return;
    }
    let mut piece_start = r.start;
    let mut i = r.start;
    while i < r.end {
        let Some(c) = text[i..r.end].chars().next() else {
            break;
        };
        let clen = c.len_utf8();
        if matches!(c, '-' | '/' | '–' | '—') {
            // The whole run of dashes ("--").
            let run: usize = text[i..r.end]
                .chars()
                .take_while(|&d| d == c)
                .map(char::len_utf8)
                .sum();
            let before = &text[piece_start..i];
            let after_end = text[i + run..r.end]
                .char_indices()
                .find(|&(_, d)| matches!(d, '-' | '/' | '–' | '—'))
                .map_or(r.end, |(k, _)| i + run + k);
            let after = &text[i + run..after_end];
            if should_split(before, c, run, after) {
                split_clitics(text, piece_start..i, out);
                push(out, i..i + run);
                piece_start = i + run;
            }
            i += run;
            continue;
        }
        i += clen;
    }
    split_clitics(text, piece_start..r.end, out);
}

fn is_number(s: &str) -> bool {
    let mut digits = 0;
    for c in s.chars() {
        if c.is_ascii_digit() {
            digits += 1;
        } else if !matches!(c, '.' | ',' | ':' | '/' | '-' | '+') {
            return false;
        }
    }
    digits > 0
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '+' || c == '-' || c == '.')
}

/// Whether a dash/slash run between `before` and `after` is a token boundary.
fn should_split(before: &str, c: char, run: usize, after: &str) -> bool {
    if before.is_empty() || after.is_empty() {
        // Leading or trailing hyphen inside a chunk ("-ECT-", "pre-"): split off as punctuation.
        return !before.is_empty() || !after.is_empty();
    }
    let has_digit = |s: &str| s.chars().any(|d| d.is_ascii_digit());
    if has_digit(before) && has_digit(after) {
        // Phone numbers, dates, ranges like 8-7-01 stay one token in EWT.
        return false;
    }
    if run > 1 || c != '-' && c != '/' {
        return true;
    }
    if c == '/' {
        return before.chars().all(char::is_alphabetic) && after.chars().all(char::is_alphabetic);
    }
    let lower = before.to_lowercase();
    !HYPHEN_PREFIXES.contains(&lower.as_str())
}

fn split_clitics(text: &str, r: Range<usize>, out: &mut Vec<Token>) {
    if r.start >= r.end {
        return;
    }
    let word = &text[r.clone()];
    // Normalize the curly apostrophe for matching; it has the same meaning.
    let lower = word.to_lowercase().replace('’', "'");
    // The normalized string is shorter by 2 bytes per curly apostrophe; compute the split in characters.
    for clitic in CLITICS {
        if lower.len() > clitic.len() && lower.ends_with(clitic) {
            let clitic_chars = clitic.chars().count();
            let split = word
                .char_indices()
                .rev()
                .nth(clitic_chars - 1)
                .map_or(r.start, |(k, _)| r.start + k);
            if split > r.start {
                // "n't" after an apostrophe-less stem; the stem itself may carry more clitics? No: one is enough.
                push(out, r.start..split);
                push(out, split..r.end);
                return;
            }
        }
    }
    for (whole, stem_len) in [("cannot", 3), ("gonna", 3), ("wanna", 3), ("gotta", 3)] {
        if lower == whole {
            push(out, r.start..r.start + stem_len);
            push(out, r.start + stem_len..r.end);
            return;
        }
    }
    push(out, r);
}

/// Byte spans of the sentences of `text` (the foundation splitter's own ranges: trimmed, in
/// order, never overlapping).
pub use crate::sentences::sentence_spans;

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<&str> {
        tokenize(s).iter().map(|t| t.text(s)).collect()
    }

    #[test]
    fn clitics_and_punctuation() {
        assert_eq!(
            toks("I don't think it's ready."),
            ["I", "do", "n't", "think", "it", "'s", "ready", "."]
        );
        assert_eq!(
            toks("We can't, won't; they'll"),
            ["We", "ca", "n't", ",", "wo", "n't", ";", "they", "'ll"]
        );
        assert_eq!(toks("I cannot"), ["I", "can", "not"]);
        assert_eq!(toks("She’s here"), ["She", "’s", "here"]);
    }

    #[test]
    fn offsets_point_into_the_text() {
        let s = "Hi, you're “great”!";
        for t in tokenize(s) {
            assert!(s.is_char_boundary(t.start) && s.is_char_boundary(t.end));
            assert!(!t.text(s).trim().is_empty());
        }
        assert_eq!(toks(s), ["Hi", ",", "you", "'re", "“", "great", "”", "!"]);
    }
}
