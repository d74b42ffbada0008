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

    /// The topic with every text's line breaks written as `\n` (a Windows `\r\n` or an old Mac
    /// `\r`), or `None` when no text holds a `\r`. Features are computed on this: the same text
    /// saved on Windows scored otherwise, since the character-level `graph` class and the
    /// character counts read the `\r`s as characters. No public judgment set holds one.
    pub fn with_line_feeds(&self) -> Option<Topic> {
        let query_texts = self
            .query
            .iter()
            .flat_map(|q| q.title.iter().chain(&q.narrative));
        let texts = self
            .documents
            .iter()
            .map(|d| &d.text)
            .chain(self.references.iter().map(|r| &r.text))
            .chain(self.summaries.iter().map(|s| &s.text))
            .chain(query_texts);
        if !texts.into_iter().any(|t| t.contains('\r')) {
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
            if text.contains('\r') {
                *text = text.replace("\r\n", "\n").replace('\r', "\n");
            }
        }
        Some(topic)
    }
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
    fn line_breaks_of_every_text_become_line_feeds() {
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
        let fed = topic.with_line_feeds().expect("the topic holds \\r");
        assert_eq!(fed.documents[0].text, "One.\nTwo.\nThree.\n");
        assert_eq!(fed.references[0].text, "A.\n\nB.");
        assert_eq!(fed.summaries[0].text, "X.\nY.");
        assert_eq!(fed.summaries[1], topic.summaries[1]);
        assert_eq!(
            fed.query.as_ref().and_then(|q| q.title.as_deref()),
            Some("Q\n")
        );
        assert_eq!(fed.with_line_feeds(), None);
    }
}
