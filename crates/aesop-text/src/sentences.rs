//! Rule-based English sentence splitting.
//!
//! The text is cut into whitespace-separated tokens, and a sentence boundary can only fall in the
//! whitespace between two tokens (or at the end of the text). For each gap the splitter looks at
//! the token before it (does it end in `.`, `!`, `?` or an ellipsis, possibly followed by closing
//! quotes and brackets; is the word before the period an abbreviation, an initial, an acronym) and
//! at the start of the token after it (uppercase, lowercase, digit, an emoticon, bare punctuation).
//! Every token is inspected a bounded number of times, so splitting is linear in the input.
//!
//! Rules, in order (docs/SENTENCES.md has the details and the measurements behind them):
//! - A blank line (two or more line breaks in one gap) always ends a sentence. A single line break
//!   is ordinary whitespace by default, because newswire source documents are hard-wrapped;
//!   [`SplitOptions::newline_ends_sentence`] makes every line break a boundary instead. A line
//!   that opens a list item (`- The`, `2) The`) opens a sentence either way, and a Markdown
//!   heading's line (`## Key points`), a bold label's (`**Key points**`) or a label's (a line of
//!   at most four tokens ending in a colon, before a capital: `Summary:`) ends one. A line of
//!   layout (a rule or heading underline `---`, a code fence, a table row) is a sentence of its own.
//! - No terminal punctuation before the gap: no boundary, except after an emoticon that follows
//!   terminal punctuation or precedes a capital. Closing marks written as separate tokens
//!   (tokenized text: `anybody . '' Paul`) are joined to the word before them.
//! - The next token is an emoticon or a bare closing/repeated mark (`:)`, `"`, `?`): it belongs
//!   to this sentence. A bare ellipsis (`... Then`) opens the next one.
//! - `?` / `!`: boundary, except before a lowercase word when a closing quote or bracket follows
//!   the mark (`"Why?" he asked`).
//! - Ellipsis (`...`, `…`): boundary only before an uppercase word or a non-letter.
//! - A single `.` after a title (`Mr.`, `e.g.`): never a boundary. After `No.`, `Fig.` …: no
//!   boundary before a number. After a company, month or place abbreviation, an initial (`J.`) or
//!   an acronym with internal periods (`U.S.`, `a.m.`): boundary only before a common
//!   sentence-opening word (`The`, `He`, `But`, …). After `etc.`, `bn.` …: boundary before any
//!   uppercase word. A one- or two-digit list label opening a clause (`Done. 2. Next`) is not an
//!   end. After any other word (including URLs, e-mail addresses and numbers): boundary, except
//!   before a lowercase word when a closing quote follows the period (`"Go." she said`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

/// Options for [`sentence_spans_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SplitOptions {
    /// Treat every line break as a sentence boundary (for one-sentence-per-line input). When false
    /// (the default) only a blank line is a boundary and a single line break is whitespace.
    pub newline_ends_sentence: bool,
}

/// Split `text` into sentences (trimmed, non-empty), with the default options.
pub fn split_sentences(text: &str) -> Vec<String> {
    sentence_spans(text)
        .into_iter()
        .map(|span| text[span].to_string())
        .collect()
}

/// Byte ranges of the sentences of `text`, in order, with the default options. Each range starts
/// at the sentence's first non-whitespace character and ends after its last one, so ranges never
/// overlap and never contain leading or trailing whitespace.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    sentence_spans_with(text, SplitOptions::default())
}

/// Byte ranges of the sentences of `text` (see [`sentence_spans`]) under `options`.
pub fn sentence_spans_with(text: &str, options: SplitOptions) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut sentence_start = 0usize;
    let mut previous: Option<PreviousToken> = None;
    // Whether the current line is a Markdown heading (`## Key points`), which its line break ends,
    // and whether it opens in bold (`**Key points**`, a label when the bold closes the line).
    let mut heading_line = false;
    let mut bold_line = false;
    // Tokens on the current line so far: a short line ending in a colon is a label (`Summary:`).
    let mut line_tokens = 0usize;
    // Whether the current line is layout that stands apart from the sentences around it (a rule,
    // a code fence, a table row), whose line breaks both end a sentence.
    let mut layout_line = false;
    for (token, line_breaks) in Tokens::new(text) {
        let Some(prev) = previous.as_ref() else {
            layout_line = is_layout_line(line_from(text, token.start));
            heading_line = is_heading_mark(&text[token.clone()]);
            bold_line = text[token.clone()].starts_with("**");
            line_tokens = 1;
            sentence_start = token.start;
            previous = Some(PreviousToken {
                word_start: token.start,
                range: token,
                opens_clause: true,
            });
            continue;
        };
        let decision_text = prev.decision_text(text);
        let next_layout_line = line_breaks > 0 && is_layout_line(line_from(text, token.start));
        let ends = line_breaks >= 2
            || (line_breaks == 1
                && (options.newline_ends_sentence
                    || layout_line
                    || next_layout_line
                    || heading_line
                    || (bold_line && closes_bold(&text[prev.range.clone()]))
                    || (line_tokens <= MAX_LABEL_TOKENS
                        && ends_label(&text[prev.range.clone()], &text[token.start..]))
                    || opens_list_item(&text[token.clone()], &text[token.end..])))
            || boundary_between(&decision_text, &text[token.clone()], prev.opens_clause);
        if line_breaks > 0 {
            layout_line = next_layout_line;
            heading_line = is_heading_mark(&text[token.clone()]);
            bold_line = text[token.clone()].starts_with("**");
            line_tokens = 0;
        }
        line_tokens += 1;
        if ends {
            spans.push(sentence_start..prev.range.end);
            sentence_start = token.start;
        }
        let detached_closers = !ends && text[token.clone()].chars().all(is_closer);
        previous = Some(if detached_closers {
            // `said . '' Then`: the quote token extends the word before it.
            PreviousToken {
                word_start: prev.word_start,
                range: token,
                opens_clause: prev.opens_clause,
            }
        } else {
            PreviousToken {
                word_start: token.start,
                range: token,
                opens_clause: line_breaks > 0 || ends || ends_clause(&decision_text),
            }
        });
    }
    if let Some(prev) = previous {
        spans.push(sentence_start..prev.range.end);
    }
    spans
}

/// The token before the gap being decided.
struct PreviousToken {
    range: Range<usize>,
    /// Where its word starts: its own start, or, for closing marks written as separate tokens
    /// (tokenized text: `anybody . ''`), the start of the word they close.
    word_start: usize,
    /// Whether the word starts a clause: it is the first token, follows a line break, or follows
    /// a word ending in terminal punctuation or a colon. A number there is a list label.
    opens_clause: bool,
}

impl PreviousToken {
    /// Longest stretch of detached closing marks to rejoin; longer stretches are judged on the
    /// last token alone, which keeps the splitter linear on adversarial input.
    const MAX_JOINED_BYTES: usize = 64;

    /// The text the boundary rules look at: the token, or the word with its detached closing
    /// marks joined to it without the whitespace.
    fn decision_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let token = &text[self.range.clone()];
        if self.word_start == self.range.start
            || self.range.end - self.word_start > Self::MAX_JOINED_BYTES
        {
            return Cow::Borrowed(token);
        }
        Cow::Owned(
            text[self.word_start..self.range.end]
                .split_whitespace()
                .collect(),
        )
    }
}

/// Whitespace-separated tokens of a text, each with the number of line breaks in the whitespace
/// before it.
struct Tokens<'a> {
    text: &'a str,
    position: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens { text, position: 0 }
    }
}

impl Iterator for Tokens<'_> {
    type Item = (Range<usize>, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = &self.text[self.position..];
        let mut line_breaks = 0usize;
        let mut start = None;
        let mut previous_was_cr = false;
        for (offset, c) in rest.char_indices() {
            if !c.is_whitespace() {
                start = Some(self.position + offset);
                break;
            }
            // "\r\n" is one line break; a lone '\r' (old Mac files) is one too.
            line_breaks += match c {
                '\n' if previous_was_cr => 0,
                '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' => 1,
                // A Unicode paragraph separator is a blank line.
                '\u{2029}' => 2,
                _ => 0,
            };
            previous_was_cr = c == '\r';
        }
        let start = start?;
        let end = self.text[start..]
            .char_indices()
            .find(|&(_, c)| c.is_whitespace())
            .map_or(self.text.len(), |(offset, _)| start + offset);
        self.position = end;
        Some((start..end, line_breaks))
    }
}

/// Sentence-final punctuation marks.
fn is_terminal(c: char) -> bool {
    matches!(
        c,
        '.' | '!' | '?' | '…' | '‼' | '⁇' | '⁈' | '⁉' | '。' | '！' | '？' | '｡'
    )
}

/// Marks that may follow the terminal punctuation and still belong to the sentence.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | '»' | '›' | ')' | ']' | '}' | '」' | '』'
    )
}

/// Marks that may precede the first word of a sentence.
fn is_opener(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '`'
            | '“'
            | '‘'
            | '„'
            | '‚'
            | '«'
            | '‹'
            | '('
            | '['
            | '{'
            | '¿'
            | '¡'
            | '「'
            | '『'
    )
}

/// What kind of terminal punctuation ends a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Terminal {
    /// A single full stop.
    Period,
    /// Two or more full stops, or `…`.
    Ellipsis,
    /// Any run containing `?` or `!` (or their variants).
    Exclamation,
}

/// How the first character of the next token looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
    Upper,
    Lower,
    Digit,
    Other,
}

/// Abbreviation classes; see features/abbreviations_en.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Abbreviation {
    /// Never ends a sentence.
    Title,
    /// An abbreviation only before a number.
    Number,
    /// Ends a sentence only before a common sentence-opening word.
    Name,
    /// Ends a sentence before any uppercase word.
    Final,
}

/// The classes an abbreviation list entry gives one lowercase form.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct AbbreviationEntry {
    /// From an entry written with an initial capital: applies to capitalized tokens only.
    capitalized: Option<Abbreviation>,
    /// From an entry written in lowercase: applies to tokens in any case.
    any_case: Option<Abbreviation>,
}

impl AbbreviationEntry {
    fn class_for(&self, token_is_capitalized: bool) -> Option<Abbreviation> {
        if token_is_capitalized {
            self.capitalized.or(self.any_case)
        } else {
            self.any_case
        }
    }
}

/// The abbreviation list, keyed by lowercase form.
type AbbreviationTable = HashMap<String, AbbreviationEntry>;

static ABBREVIATIONS: LazyLock<AbbreviationTable> =
    LazyLock::new(|| parse_abbreviations(include_str!("../../../features/abbreviations_en.txt")));

fn parse_abbreviations(source: &str) -> AbbreviationTable {
    let mut table = AbbreviationTable::new();
    for line in source.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let mut fields = line.split_whitespace();
        let (Some(class), Some(form)) = (fields.next(), fields.next()) else {
            continue;
        };
        let class = match class {
            "title" => Abbreviation::Title,
            "number" => Abbreviation::Number,
            "name" => Abbreviation::Name,
            "final" => Abbreviation::Final,
            // The file is ours and covered by a test; an unknown class is skipped, not fatal.
            _ => continue,
        };
        let entry = table.entry(form.to_lowercase()).or_default();
        if form.starts_with(char::is_uppercase) {
            entry.capitalized = Some(class);
        } else {
            entry.any_case = Some(class);
        }
    }
    table
}

/// Capitalized words that commonly open an English sentence and rarely continue a name. After an
/// ambiguous abbreviation ("Inc.", "U.S.", "J.") a boundary is predicted only before one of these.
const SENTENCE_OPENERS: &[&str] = &[
    "a",
    "about",
    "according",
    "after",
    "again",
    "all",
    "also",
    "although",
    "an",
    "and",
    "another",
    "any",
    "are",
    "as",
    "at",
    "because",
    "before",
    "both",
    "but",
    "by",
    "can",
    "could",
    "dear",
    "did",
    "do",
    "does",
    "during",
    "each",
    "even",
    "every",
    "finally",
    "first",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "here",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "indeed",
    "instead",
    "is",
    "it",
    "its",
    "just",
    "last",
    "let",
    "many",
    "maybe",
    "meanwhile",
    "more",
    "most",
    "much",
    "my",
    "never",
    "next",
    "no",
    "not",
    "now",
    "of",
    "oh",
    "ok",
    "okay",
    "on",
    "once",
    "one",
    "only",
    "or",
    "our",
    "overall",
    "perhaps",
    "please",
    "she",
    "should",
    "since",
    "so",
    "some",
    "still",
    "such",
    "thank",
    "thanks",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "though",
    "thus",
    "to",
    "today",
    "unfortunately",
    "was",
    "we",
    "well",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "yet",
    "you",
    "your",
];

fn is_sentence_opener(word: &str) -> bool {
    // The list is lowercase ASCII, so an ASCII case-insensitive comparison suffices.
    SENTENCE_OPENERS
        .iter()
        .any(|opener| opener.eq_ignore_ascii_case(word))
}

/// Does `token` end in terminal punctuation or a colon (ignoring closing marks)?
fn ends_clause(token: &str) -> bool {
    token
        .trim_end_matches(is_closer)
        .ends_with(|c: char| is_terminal(c) || c == ':')
}

/// Is there a sentence boundary in the whitespace between `token` and `next`? `token_opens_clause`
/// says whether `token` starts a line or follows terminal punctuation (see the caller).
fn boundary_between(token: &str, next: &str, token_opens_clause: bool) -> bool {
    let next_word = next.trim_start_matches(is_opener);
    let next_is_upper = next_word.starts_with(char::is_uppercase);
    // An emoticon closes the sentence it follows ("Great. :) I") and, written without punctuation,
    // usually ends one before a capitalized word ("thanks :) I").
    if is_emoticon(token) {
        return token_opens_clause || next_is_upper;
    }
    let core = token.trim_end_matches(is_closer);
    // A closing quote or bracket after '?' or '!' and before a lowercase word marks quoted speech
    // or an aside inside the sentence ("Stop!" she said; (really?) and). After a period only a
    // quote does: "(see below.) then" is usually two sentences.
    let closed = core.len() < token.len();
    let quoted = token[core.len()..]
        .chars()
        .any(|c| !matches!(c, ')' | ']' | '}'));
    let stem = core.trim_end_matches(is_terminal);
    let run = &core[stem.len()..];
    let Some(terminal) = classify_run(run) else {
        return false;
    };
    // "providers,? gas": a '?' after a comma is an encoding artifact, not a question.
    if stem.ends_with([',', ';']) {
        return false;
    }
    if is_emoticon(next) {
        return false;
    }
    // A detached closing mark or repeated mark ("end . ." or "why ? ?") belongs to this sentence;
    // a detached ellipsis ("... and then") opens the next one.
    if next.chars().all(|c| is_terminal(c) || is_closer(c))
        && classify_run(next) != Some(Terminal::Ellipsis)
    {
        return false;
    }
    let opening = match next_word.chars().next() {
        _ if is_url_start(next_word) => Opening::Other,
        _ if next_is_upper => Opening::Upper,
        Some(c) if c.is_lowercase() => Opening::Lower,
        Some(c) if c.is_numeric() => Opening::Digit,
        _ => Opening::Other,
    };
    match terminal {
        Terminal::Exclamation => !(opening == Opening::Lower && closed),
        // A detached ellipsis opening a clause ("He left. ... Then") leads into what follows.
        Terminal::Ellipsis if stem.is_empty() && token_opens_clause => false,
        Terminal::Ellipsis => opening == Opening::Upper || opening == Opening::Other,
        Terminal::Period => {
            let stem =
                stem.trim_start_matches(|c: char| is_opener(c) || matches!(c, '*' | '#' | '-'));
            if token_opens_clause && is_list_label(stem) {
                return false;
            }
            period_boundary(stem, quoted, next_word, opening)
        }
    }
}

/// Does `token`, last on a line that opened in bold, close the bold (`points**`, `points:**`,
/// `**Summary**:`)? Then the line is a label, which its line break ends.
fn closes_bold(token: &str) -> bool {
    token.trim_end_matches(':').ends_with("**") && token.len() > 2
}

/// The most tokens a label's line holds (`Summary:`, `Key points:`, `What the council decided:`).
const MAX_LABEL_TOKENS: usize = 4;

/// Does `token`, last on a short line, end a label (`Summary:`, `Key findings:`) before a line
/// that starts with a capital (`after`, after any opening quote or bracket)? Summaries that
/// language models write often open so; the label ran into the sentence after it.
fn ends_label(token: &str, after: &str) -> bool {
    let word = after.trim_start_matches(|c: char| is_opener(c) || c == '*');
    token.len() > 1 && token.ends_with(':') && word.starts_with(char::is_uppercase)
}

/// The line of `text` that starts at `start`, without its line break.
fn line_from(text: &str, start: usize) -> &str {
    let rest = &text[start..];
    rest.find([
        '\n', '\r', '\u{0B}', '\u{0C}', '\u{85}', '\u{2028}', '\u{2029}',
    ])
    .map_or(rest, |end| &rest[..end])
}

/// Is `line` layout that stands apart from the sentences around it, so that the line breaks
/// before and after it end sentences: a rule or a heading's underline (`---`, `* * *`, `===`), a
/// code fence (`` ``` ``, `` ```python ``, `~~~`) or a table row (`| Budget | approved |`), as
/// Markdown and language models write them? A heading underlined so (`Key points\n---`) ran into
/// the sentence after its rule, and a table was one sentence of all its rows.
fn is_layout_line(line: &str) -> bool {
    let line = line.trim();
    if line.starts_with("```") || line.starts_with("~~~") {
        return true;
    }
    if line.len() >= 2 && line.starts_with('|') && line.ends_with('|') {
        return true;
    }
    let mut marks = line.chars().filter(|c| !c.is_whitespace());
    let Some(first) = marks.next() else {
        return false;
    };
    matches!(first, '-' | '*' | '_' | '=')
        && line.chars().filter(|&c| c == first).count() >= 3
        && marks.all(|c| c == first)
}

/// Is `token`, first on its line, a Markdown heading's mark (`#` to `######`)?
fn is_heading_mark(token: &str) -> bool {
    (1..=6).contains(&token.len()) && token.bytes().all(|b| b == b'#')
}

/// Does `token`, first on its line, open a list item: a bullet (`-`, `*`, `+`, `•`, …) or a
/// number label (`1.`, `2)`, `(3)`) before a word that starts with a capital, after any opening
/// quote, bracket or `**` (`after` is the text after the token)? Summaries written as lists (as language
/// models often write them) leave their items without a period, which read as one long
/// sentence. Requiring the capital keeps a dash or a number that a hard-wrapped line starts with
/// (`the budget\n- which passed -`, `won 5\n- 4`) inside its sentence.
fn opens_list_item(token: &str, after: &str) -> bool {
    let bullet = matches!(
        token,
        "-" | "*" | "+" | "\u{2022}" | "\u{2023}" | "\u{25e6}" | "\u{25aa}"
    );
    let number = token
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .or_else(|| token.strip_suffix(['.', ')']))
        .is_some_and(is_list_label);
    if !(bullet || number) {
        return false;
    }
    let word = after
        .trim_start()
        .trim_start_matches(|c: char| is_opener(c) || c == '*');
    word.starts_with(char::is_uppercase)
}

/// "1", "12" before a period at the start of a clause: a list item number, which opens the
/// sentence that follows rather than ending the one before.
fn is_list_label(stem: &str) -> bool {
    (1..=2).contains(&stem.len()) && stem.chars().all(|c| c.is_ascii_digit())
}

/// Does `word` start a web address (which may open a sentence in lowercase)?
fn is_url_start(word: &str) -> bool {
    let head = word.as_bytes().get(..8).unwrap_or(word.as_bytes());
    let lower = head.to_ascii_lowercase();
    lower.starts_with(b"http://") || lower.starts_with(b"https://") || lower.starts_with(b"www.")
}

fn classify_run(run: &str) -> Option<Terminal> {
    if run.is_empty() {
        None
    } else if run.chars().any(|c| !matches!(c, '.' | '…' | '。' | '｡')) {
        Some(Terminal::Exclamation)
    } else if run == "." || run == "。" || run == "｡" {
        Some(Terminal::Period)
    } else {
        Some(Terminal::Ellipsis)
    }
}

/// The decision after a single period that follows `stem` (the token without its period, closing
/// marks and leading opening marks).
fn period_boundary(stem: &str, quoted: bool, next_word: &str, opening: Opening) -> bool {
    let opens_sentence = || {
        let word_end = next_word
            .char_indices()
            .find(|&(_, c)| !c.is_alphabetic())
            .map_or(next_word.len(), |(i, _)| i);
        is_sentence_opener(&next_word[..word_end])
    };
    match classify_stem(stem) {
        Some(Abbreviation::Title) => false,
        Some(Abbreviation::Name) => opening == Opening::Upper && opens_sentence(),
        Some(Abbreviation::Final) => opening == Opening::Upper,
        Some(Abbreviation::Number) if opening == Opening::Digit || next_word.starts_with('#') => {
            false
        }
        Some(Abbreviation::Number) | None => !(opening == Opening::Lower && quoted),
    }
}

/// Whether the word before a period is a known abbreviation, an initial or an acronym.
fn classify_stem(stem: &str) -> Option<Abbreviation> {
    let mut chars = stem.chars();
    let first = chars.next()?;
    if chars.next().is_none() {
        // A single letter: an initial ("J. R. R. Tolkien") or a list label.
        return first.is_alphabetic().then_some(Abbreviation::Name);
    }
    // Abbreviations are short ASCII; other tokens (URLs, a megabyte without spaces) skip the
    // lookup, and the lowercase key is built on the stack.
    let mut key = [0u8; 12];
    if stem.is_ascii() && stem.len() <= key.len() {
        let key = &mut key[..stem.len()];
        key.copy_from_slice(stem.as_bytes());
        key.make_ascii_lowercase();
        let class = std::str::from_utf8(key)
            .ok()
            .and_then(|key| ABBREVIATIONS.get(key))
            .and_then(|entry| entry.class_for(first.is_uppercase()));
        if class.is_some() {
            return class;
        }
    }
    is_dotted_acronym(stem).then_some(Abbreviation::Name)
}

/// "U.S", "a.m", "Ph.D": at least two period-separated parts of one or two letters. Domain names
/// ("google.com") have a longer part and are ordinary words.
fn is_dotted_acronym(stem: &str) -> bool {
    stem.len() <= 16
        && stem.contains('.')
        && stem.split('.').all(|part| {
            (1..=2).contains(&part.chars().count()) && part.chars().all(char::is_alphabetic)
        })
}

/// Common ASCII emoticons (":)", ";-)", ":D", "^_^", "<3"), which web writers put after the
/// sentence they comment on.
fn is_emoticon(token: &str) -> bool {
    if token.len() > 6 || token.chars().count() < 2 {
        return false;
    }
    if matches!(token, "^_^" | "^^" | "^.^" | "<3" | "xD" | "XD" | "xd") {
        return true;
    }
    let mut chars = token.chars().peekable();
    // Optional "brow" (">:(" "):"), then eyes, optional nose, then one or more mouth characters.
    if chars.peek().is_some_and(|&c| c == '>' || c == '}') {
        chars.next();
    }
    if !chars
        .next()
        .is_some_and(|c| matches!(c, ':' | ';' | '=' | '8'))
    {
        return false;
    }
    if chars
        .peek()
        .is_some_and(|&c| matches!(c, '-' | '\'' | '^' | 'o'))
    {
        chars.next();
    }
    let mouth: Vec<char> = chars.collect();
    !mouth.is_empty()
        && mouth.iter().all(|&c| {
            matches!(
                c,
                ')' | '('
                    | 'D'
                    | 'P'
                    | 'p'
                    | 'O'
                    | 'o'
                    | '/'
                    | '\\'
                    | '|'
                    | ']'
                    | '['
                    | '*'
                    | '3'
                    | 'S'
                    | 's'
                    | '$'
                    | '@'
                    | 'X'
                    | 'x'
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviation_file_parses_every_entry() {
        let source = include_str!("../../../features/abbreviations_en.txt");
        let entries = source
            .lines()
            .map(|line| line.split('#').next().unwrap_or("").trim())
            .filter(|line| !line.is_empty())
            .count();
        let table = &*ABBREVIATIONS;
        // "Rep"/"rep" share a key, so the table may be slightly smaller than the line count.
        assert!(
            table.len() >= entries - 2,
            "{} keys for {entries} lines",
            table.len()
        );
        let class =
            |key: &str, capitalized: bool| table.get(key).and_then(|e| e.class_for(capitalized));
        assert_eq!(class("mr", true), Some(Abbreviation::Title));
        assert_eq!(class("mr", false), Some(Abbreviation::Title));
        assert_eq!(class("sun", true), Some(Abbreviation::Name));
        assert_eq!(class("sun", false), None);
        assert_eq!(class("etc", true), Some(Abbreviation::Final));
        assert_eq!(class("etc", false), Some(Abbreviation::Final));
        assert_eq!(class("rep", true), Some(Abbreviation::Title));
        assert_eq!(class("rep", false), Some(Abbreviation::Final));
    }

    #[test]
    fn emoticons_are_recognized() {
        for face in [
            ":)", ":-)", ";)", ":D", "=)", ":(", ">:(", "^_^", ":O", ":-P",
        ] {
            assert!(is_emoticon(face), "{face}");
        }
        for word in ["Hi", ":", "::", "http://x", "(a)", "8"] {
            assert!(!is_emoticon(word), "{word}");
        }
    }

    #[test]
    fn dotted_acronyms() {
        assert!(is_dotted_acronym("U.S"));
        assert!(is_dotted_acronym("Ph.D"));
        assert!(!is_dotted_acronym("google.com"));
        assert!(!is_dotted_acronym("3.5"));
        assert!(!is_dotted_acronym("a..b"));
    }
}
