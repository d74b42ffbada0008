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
    /// are in it already: line breaks written as `\n` (a Windows `\r\n` or an old Mac `\r`),
    /// and Unicode composed (NFC: `e` + U+0301 as `é`). Why: the same text saved on Windows, or
    /// copied from a PDF or macOS in decomposed form, scored otherwise; the `graph` class and the
    /// character counts read a `\r` as a character, and tokens with a combining accent are other
    /// words to every class (a summary in NFD: `pyramid` .441 → .493). Nothing else is changed
    /// (not a no-break space, which NFKC would make a space), and every public judgment set is in
    /// this form already, so no built-in's features change.
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

/// `text` with `\n` line breaks and in NFC, or `None` when it is so already (ASCII without a
/// `\r` is, and is told at once).
fn canonical_text(text: &str) -> Option<String> {
    let has_cr = text.contains('\r');
    if !has_cr && (text.is_ascii() || unicode_normalization::is_nfc(text)) {
        return None;
    }
    let fed = if has_cr {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    Some(unicode_normalization::UnicodeNormalization::nfc(fed.as_ref()).collect())
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
        assert_eq!(fed.documents[0].text, "One.\nTwo.\nThree.\n");
        assert_eq!(fed.references[0].text, "A.\n\nB.");
        assert_eq!(fed.summaries[0].text, "X.\nY.");
        assert_eq!(fed.summaries[1], topic.summaries[1]);
        assert_eq!(
            fed.query.as_ref().and_then(|q| q.title.as_deref()),
            Some("Q\n")
        );
        assert_eq!(fed.with_canonical_text(), None);
        // Decomposed accents are composed; a no-break space and a ligature stay (NFC, not NFKC).
        let mut topic = Topic::new("t");
        topic.summaries.push(Summary::new(
            "s",
            "Cafe\u{301} in Zu\u{308}rich\u{a0}\u{fb01}ne.",
        ));
        let composed = topic.with_canonical_text().expect("decomposed");
        assert_eq!(
            composed.summaries[0].text,
            "Caf\u{e9} in Z\u{fc}rich\u{a0}\u{fb01}ne."
        );
        assert_eq!(composed.with_canonical_text(), None);
    }
}
