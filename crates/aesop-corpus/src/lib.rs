//! The data model every part of aesop uses: a judgment set is a sequence of topics, each with
//! its input documents, optional human references, and the summaries to judge (with optional
//! human scores under their original names).

pub mod import;
pub mod jsonl;
pub mod stream;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Fields we do not know are kept (and written back), never fatal.
pub type Extra = serde_json::Map<String, serde_json::Value>;

/// One topic (one line of a judgment set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topic {
    pub topic: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<Query>,
    #[serde(default)]
    pub documents: Vec<Document>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    #[serde(default)]
    pub summaries: Vec<Summary>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The information need of a query-focused topic (TAC title and narrative).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Query {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrative: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// An input document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub id: String,
    pub text: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A human reference (model) summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub id: String,
    pub text: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A summary to judge, with its human scores (original names, plus the mapped targets
/// `pyramid` / `responsiveness` / `readability` where an importer knows the mapping).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub system: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scores: BTreeMap<String, f64>,
    /// True when the "system" is a human-written summary rated like a system
    /// (DialSummEval's gold reference, SummEval-OP's human summary, TAC models).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub human: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Topic {
    /// A topic with no query, references or extra fields.
    pub fn new(topic: impl Into<String>) -> Topic {
        Topic {
            topic: topic.into(),
            query: None,
            documents: Vec::new(),
            references: Vec::new(),
            summaries: Vec::new(),
            extra: Extra::new(),
        }
    }

    /// The topic with its texts in the one form every feature class reads, or `None` when they
    /// are in it already: line breaks written as `\n` (a Windows `\r\n`, an old Mac `\r`, or
    /// U+2028), Unicode composed (NFC: `e` + U+0301 as `é`), and spaced as a reader sees it
    /// (each run of spaces, tabs, no-break or other Unicode spaces one space, none beside a line
    /// break or at either end; soft hyphens, zero-width spaces, the marks of bidirectional text
    /// and control characters, which no reader sees, gone), with UTF-8 that was read as Latin-1
    /// decoded again where C1 control characters give it away (`Iranâ\u{80}\u{99}s` → `Iran’s`).
    /// Why: the same text saved on Windows, copied from a PDF or macOS in decomposed form, or
    /// typed with two spaces after each period scored otherwise; the `graph` class and the
    /// character counts read a `\r` or a second space as a character, the language models read
    /// it as a token, and tokens with a combining accent are other words to every class (a
    /// summary in NFD: `pyramid` .441 → .493). Nothing else is changed (a ligature stays, which
    /// NFKC would split). SummEval holds no text this changes; 105 texts of the other public
    /// sets have a run of spaces, a no-break space or a soft hyphen (the built-ins were retrained
    /// on these texts as changed here).
    pub fn with_canonical_text(&self) -> Option<Topic> {
        let query_texts = self
            .query
            .iter()
            .flat_map(|q| q.title.iter().chain(&q.narrative));
        let mut texts = self
            .documents
            .iter()
            .map(|d| &d.text)
            .chain(self.references.iter().map(|r| &r.text))
            .chain(self.summaries.iter().map(|s| &s.text))
            .chain(query_texts);
        if !texts.any(|t| canonical_text(t).is_some()) {
            return None;
        }
        let mut topic = self.clone();
        let texts = topic
            .documents
            .iter_mut()
            .map(|d| &mut d.text)
            .chain(topic.references.iter_mut().map(|r| &mut r.text))
            .chain(topic.summaries.iter_mut().map(|s| &mut s.text))
            .chain(
                topic
                    .query
                    .iter_mut()
                    .flat_map(|q| q.title.iter_mut().chain(q.narrative.iter_mut())),
            );
        for text in texts {
            if let Some(canonical) = canonical_text(text) {
                *text = canonical;
            }
        }
        Some(topic)
    }
}

/// A summary's identity across files: FNV-1a 64 of its topic id and its text as every feature
/// class reads it ([`Topic::with_canonical_text`]), whatever its system is called. Sets that
/// hold the same summaries are told by it (a file given twice, a copy, sets cut from one
/// another, one re-saved with Windows line breaks), and so are predictions judged on a model's
/// own training summaries (a model file records the identities of those it learned from).
pub fn summary_identity(topic: &str, text: &str) -> u64 {
    let canonical = canonical_text(text);
    let text = canonical.as_deref().unwrap_or(text);
    let mut bytes = Vec::with_capacity(topic.len() + 1 + text.len());
    bytes.extend_from_slice(topic.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(text.as_bytes());
    aesop_core::hash::fnv1a64(&bytes)
}

/// `text` with `\n` line breaks, in NFC and spaced as [`Topic::with_canonical_text`] says, or
/// `None` when it is so already (told in one pass, without a copy).
fn canonical_text(text: &str) -> Option<String> {
    let repaired = with_mojibake_repaired(text);
    let source = repaired.as_deref().unwrap_or(text);
    let spaced = (!is_spaced_canonically(source)).then(|| spaced_canonically(source));
    let spaced = spaced.or(repaired);
    match composed(spaced.as_deref().unwrap_or(text)) {
        std::borrow::Cow::Owned(composed) => Some(composed),
        std::borrow::Cow::Borrowed(_) => spaced,
    }
}

/// `text` composed (NFC), borrowed when it is so already: how ids are compared where two files
/// are joined on them, since one id can be written in two forms (some macOS file systems store file
/// names decomposed, and `score` takes file names as system ids; text typed elsewhere is composed).
pub fn composed(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() || unicode_normalization::is_nfc(text) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(unicode_normalization::UnicodeNormalization::nfc(text).collect())
    }
}

/// What a character is to the layout of a text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Ends a line: `\n`, `\r` (alone or before `\n`), vertical tab, form feed, NEL, U+2028,
    /// U+2029.
    LineBreak,
    /// Any other Unicode white space: a space, a tab, a no-break space, U+2000..U+200A, …
    Space,
    /// Not seen by a reader ([`is_invisible`]).
    Invisible,
    Visible,
}

/// Is `c` a character no reader sees, which every class reads as not there: a soft hyphen
/// (U+00AD), a zero-width space (U+200B), a word joiner (U+2060), a zero-width no-break space
/// (U+FEFF), a mark or control of bidirectional text (LRM, RLM, ALM, the embeddings and
/// overrides U+202A..U+202E, the isolates U+2066..U+2069, which text copied from web pages and
/// from right-to-left scripts carries between words), or a control character that is not a
/// space or line break (a NUL, an escape, C1 controls)? Zero-width joiners and non-joiners are
/// not: emoji and Persian words need them.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{200b}'
            | '\u{2060}'
            | '\u{feff}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{61c}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    ) || (c.is_control() && !c.is_whitespace())
}

/// Is `c` a C1 control character (U+0080..U+009F)? No one writes them: in text they are the
/// bytes of UTF-8 that was read as Latin-1 ([`with_mojibake_repaired`]).
fn is_c1_control(c: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&c)
}

/// `text` with each run of characters that is UTF-8 read as Latin-1 decoded again
/// (`Iranâ\u{80}\u{99}s` → `Iran’s`, `â\u{80}\u{9c}` → `“`), or `None` when it holds none, told
/// in one pass. Only a run holding a C1 control character is taken for one: those are no one's
/// text, so no character a writer meant is changed (`Cutiã©`, which could be meant, stays as
/// it is). Why: web text scraped through a wrong decoder carries such runs (two references of
/// Newsroom do), and every class read `Iranâ` as a word.
fn with_mojibake_repaired(text: &str) -> Option<String> {
    if !text.chars().any(is_c1_control) {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let (mut at, mut repaired) = (0, false);
    while at < chars.len() {
        match utf8_read_as_latin1(&chars[at..]) {
            Some((c, used)) => {
                out.push(c);
                at += used;
                repaired = true;
            }
            None => {
                out.push(chars[at]);
                at += 1;
            }
        }
    }
    repaired.then_some(out)
}

/// The character whose UTF-8 bytes, each read as a Latin-1 character, open `chars`, and how
/// many characters they are, when one of its continuation bytes is a C1 control.
fn utf8_read_as_latin1(chars: &[char]) -> Option<(char, usize)> {
    let len = match u32::from(*chars.first()?) {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let run = chars.get(..len)?;
    let continuation = |c: &char| ('\u{80}'..='\u{bf}').contains(c);
    if !run[1..].iter().all(continuation) || !run[1..].iter().copied().any(is_c1_control) {
        return None;
    }
    let bytes = run
        .iter()
        .map(|&c| u8::try_from(u32::from(c)).ok())
        .collect::<Option<Vec<u8>>>()?;
    let decoded = std::str::from_utf8(&bytes).ok()?;
    Some((decoded.chars().next()?, len))
}

fn layout(c: char) -> Layout {
    match c {
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{85}' | '\u{2028}' | '\u{2029}' => Layout::LineBreak,
        c if is_invisible(c) => Layout::Invisible,
        c if c.is_whitespace() => Layout::Space,
        _ => Layout::Visible,
    }
}

/// Whether [`spaced_canonically`] would leave `text` as it is.
fn is_spaced_canonically(text: &str) -> bool {
    let mut previous = None;
    for c in text.chars() {
        let this = layout(c);
        let fine = match this {
            Layout::Visible => true,
            Layout::Invisible => false,
            Layout::LineBreak => c == '\n' && previous.is_some_and(|p| p != Layout::Space),
            Layout::Space => c == ' ' && previous == Some(Layout::Visible),
        };
        if !fine {
            return false;
        }
        previous = Some(this);
    }
    previous.is_none_or(|p| p == Layout::Visible)
}

/// `text` with every line break `\n` (`\r\n` as one), every run of other white space one
/// space, no space beside a line break, no white space at either end, and no invisible
/// characters. Runs of line breaks stay: a blank line parts paragraphs.
fn spaced_canonically(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // White space seen since the last visible character: line breaks to write, and whether a
    // space is owed (written only between two visible characters on one line).
    let (mut breaks, mut space) = (0usize, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match layout(c) {
            Layout::Invisible => {}
            Layout::LineBreak => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                breaks += 1;
            }
            Layout::Space => space = true,
            Layout::Visible => {
                if !out.is_empty() {
                    if breaks > 0 {
                        out.extend(std::iter::repeat_n('\n', breaks));
                    } else if space {
                        out.push(' ');
                    }
                }
                (breaks, space) = (0, false);
                out.push(c);
            }
        }
    }
    out
}

impl Document {
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Document {
        Document {
            id: id.into(),
            text: text.into(),
            extra: Extra::new(),
        }
    }
}

impl Reference {
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Reference {
        Reference {
            id: id.into(),
            text: text.into(),
            extra: Extra::new(),
        }
    }
}

impl Summary {
    pub fn new(system: impl Into<String>, text: impl Into<String>) -> Summary {
        Summary {
            system: system.into(),
            text: text.into(),
            scores: BTreeMap::new(),
            human: false,
            extra: Extra::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summarys_identity_is_its_topic_and_text_as_the_classes_read_it() {
        let id = summary_identity("t1", "The council met.\nIt voted.");
        // Another file's copy: Windows line breaks, two spaces, a decomposed accent elsewhere.
        assert_eq!(
            id,
            summary_identity("t1", "The council  met.\r\nIt voted. ")
        );
        assert_ne!(id, summary_identity("t2", "The council met.\nIt voted."));
        assert_ne!(
            id,
            summary_identity("t1", "The council met.\nIt voted again.")
        );
        // The separator keeps a topic id and a text that run together apart.
        assert_ne!(summary_identity("t", "1x"), summary_identity("t1", "x"));
        assert_eq!(
            summary_identity("t", "Caf\u{e9}"),
            summary_identity("t", "Cafe\u{301}")
        );
    }

    #[test]
    fn texts_get_line_feeds_and_composed_characters() {
        let mut topic = Topic::new("t");
        topic
            .documents
            .push(Document::new("d", "One.\r\nTwo.\rThree.\n"));
        topic.references.push(Reference::new("r", "A.\r\n\r\nB."));
        topic.summaries.push(Summary::new("s", "X.\r\nY."));
        topic
            .summaries
            .push(Summary::new("plain", "No carriage return."));
        topic.query = Some(Query {
            title: Some("Q\r".into()),
            narrative: None,
            extra: Extra::new(),
        });
        let fed = topic.with_canonical_text().expect("the topic holds \\r");
        assert_eq!(fed.documents[0].text, "One.\nTwo.\nThree.");
        assert_eq!(fed.references[0].text, "A.\n\nB.");
        assert_eq!(fed.summaries[0].text, "X.\nY.");
        assert_eq!(fed.summaries[1], topic.summaries[1]);
        assert_eq!(
            fed.query.as_ref().and_then(|q| q.title.as_deref()),
            Some("Q")
        );
        assert_eq!(fed.with_canonical_text(), None);
        // Decomposed accents are composed; a ligature stays (NFC, not NFKC).
        let mut topic = Topic::new("t");
        topic.summaries.push(Summary::new(
            "s",
            "Cafe\u{301} in Zu\u{308}rich\u{a0}\u{fb01}ne.",
        ));
        let composed = topic.with_canonical_text().expect("decomposed");
        assert_eq!(
            composed.summaries[0].text,
            "Caf\u{e9} in Z\u{fc}rich \u{fb01}ne."
        );
        assert_eq!(composed.with_canonical_text(), None);
    }

    #[test]
    fn texts_are_spaced_as_a_reader_sees_them() {
        for (written, read) in [
            (
                "Two  spaces.  After\tperiods.",
                "Two spaces. After periods.",
            ),
            (
                "No-break\u{a0}and\u{2009}thin\u{3000}spaces.",
                "No-break and thin spaces.",
            ),
            ("co\u{ad}operate\u{200b}\u{feff} now", "cooperate now"),
            (
                "  Lines  \n  indented \n\n\tand ended  \n",
                "Lines\nindented\n\nand ended",
            ),
            ("A\u{2028}B\u{2029}C\r\nD\rE", "A\nB\nC\nD\nE"),
            ("  \n\t\u{a0}", ""),
            // Marks and controls of bidirectional text, as web pages and right-to-left scripts
            // carry them, and control characters (a NUL, a bell, an escape, DEL) are not there.
            (
                "\u{202b}Usain\u{200e} Bolt\u{200f} runs\u{202c}.\u{2067}\u{2069}\u{61c}",
                "Usain Bolt runs.",
            ),
            ("The\u{0} council\u{7}\u{1b} approved\u{7f} it.", "The council approved it."),
            // UTF-8 read as Latin-1, where a C1 control gives it away, is read as it was meant;
            // a C1 control in no such run is not there.
            (
                "Iran\u{e2}\u{80}\u{99}s \u{e2}\u{80}\u{9c}Amer\u{e2}\u{80}\u{9d} \u{c3}\u{89}t\u{e9} \u{80}x\u{e2}\u{80}",
                "Iran\u{2019}s \u{201c}Amer\u{201d} \u{c9}t\u{e9} x\u{e2}",
            ),
            // Zero-width joiners stay: they make one emoji of a family, and Persian words need them.
            (
                "\u{1f468}\u{200d}\u{1f469}  \u{645}\u{6cc}\u{200c}\u{634}\u{648}\u{62f}",
                "\u{1f468}\u{200d}\u{1f469} \u{645}\u{6cc}\u{200c}\u{634}\u{648}\u{62f}",
            ),
        ] {
            let mut topic = Topic::new("t");
            topic.summaries.push(Summary::new("s", written));
            let spaced = topic.with_canonical_text().expect("the text is respaced");
            assert_eq!(spaced.summaries[0].text, read, "{written:?}");
            assert_eq!(spaced.with_canonical_text(), None, "{read:?}");
            assert!(is_spaced_canonically(read), "{read:?}");
        }
        for fine in [
            "One. Two.",
            "Cuti\u{e9} and Cuti\u{c3}\u{a9} \u{e2}",
            "Para one.\n\nPara two.",
            "- item\n- item",
            "x",
            "",
        ] {
            assert!(is_spaced_canonically(fine), "{fine:?}");
            assert_eq!(spaced_canonically(fine), fine);
        }
    }
}
