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
