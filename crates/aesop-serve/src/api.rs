//! The `POST /v1/score` request: parsing and validation with errors that name the field, and
//! the shape of the answer.

use super::error::ApiError;
use super::limits::Limits;
use aesop_corpus::jsonl::{self, FieldError};
use aesop_corpus::Topic;
use aesop_learn::score_stream::SystemMean;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// A validated scoring request.
#[derive(Debug, Clone)]
pub struct ScoreRequest {
    pub topics: Vec<Topic>,
    /// Model names as given; `None` means the defaults `aesop score` uses, chosen per topic.
    pub models: Option<Vec<String>>,
    /// Include every summary's features in the answer.
    pub features: bool,
    /// Include each system's mean per model, as `aesop score --systems` writes them.
    pub systems: bool,
}

/// One summary's predictions.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScoreResult {
    pub topic: String,
    pub system: String,
    /// Model name -> prediction (`null` if a model could not predict a finite number).
    pub scores: BTreeMap<String, Option<f64>>,
    /// Model name -> its raw output before calibration (what `aesop score` writes as `raw`),
    /// for the calibrated models only; absent when none is.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub raw: BTreeMap<String, Option<f64>>,
    /// The models that learned from this summary (their model files record the same topic id
    /// and text), whose predictions of it are in-sample (what `aesop score` marks
    /// `"in_training": true`); absent when none did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub in_training: Vec<String>,
    /// Why the summary was not scored (empty, non-linguistic, too long): every score is then `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub features: Option<BTreeMap<String, Option<f64>>>,
}

/// A model that contributed to an answer.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct ModelRef {
    pub name: String,
    pub version: String,
    /// What the model predicts (`pyramid`, a user model's target), so that a saved answer can
    /// be judged against the human scores of that target (`aesop evaluate answer.json`).
    pub target: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScoreResponse {
    pub results: Vec<ScoreResult>,
    pub models: Vec<ModelRef>,
    /// What `aesop score` warns about the whole run, in its words: models whose scores depend on
    /// the other summaries of the request, classes that gave no values for some summaries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// With `"systems": true`: each system's mean per model (per target for the defaults),
    /// ranked, the rows of `aesop score --systems`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub systems: Option<Vec<SystemMean>>,
}

const REQUEST_KEYS: &[&str] = &["topics", "models", "features", "systems"];

/// Parse and validate a request body against `limits`. Every error is a 4xx [`ApiError`] that
/// names the field at fault.
pub fn parse_score_request(body: &[u8], limits: &Limits) -> Result<ScoreRequest, ApiError> {
    // A body in UTF-16 (with a byte-order mark, or without one: then valid UTF-8 that fails as
    // JSON), a PDF or a ZIP is named for what it is, as the CLI names such files.
    let not_text = aesop_core::input::not_text_advice(body)
        .map(|advice| format!(" ({advice})"))
        .unwrap_or_default();
    let text = std::str::from_utf8(body).map_err(|e| invalid_utf8(body, e, &not_text))?;
    let text = aesop_core::input::without_bom(text);
    // Lenient as a judgment-set line is: Python's json.dumps writes a missing score as bare NaN.
    let value: Value = aesop_corpus::jsonl::parse_lenient(text).map_err(|e| {
        let e = match e {
            aesop_corpus::jsonl::Unparsed::Json(e) => e,
            aesop_corpus::jsonl::Unparsed::Duplicate { field, message } => {
                return ApiError::new(
                    axum::http::StatusCode::BAD_REQUEST,
                    "duplicate_key",
                    message,
                )
                .at(field)
            }
        };
        let message = e.to_string();
        // serde_json ends its message with the position; we report it in our own words.
        let message = message
            .rfind(" at line ")
            .map_or(message.as_str(), |pos| &message[..pos]);
        ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "malformed_json",
            format!(
                "malformed JSON at line {} column {}: {message}{not_text}",
                e.line(),
                e.column()
            ),
        )
    })?;
    let Value::Object(mut request) = value else {
        return Err(ApiError::invalid(
            "wrong_type",
            "",
            format!("the request must be a JSON object, found {}", kind(&value)),
        ));
    };
    if let Some(unknown) = request.keys().find(|k| !REQUEST_KEYS.contains(&k.as_str())) {
        return Err(ApiError::invalid(
            "unknown_field",
            unknown.clone(),
            format!("unknown field (a request has {})", REQUEST_KEYS.join(", ")),
        ));
    }
    let features = flag(&mut request, "features")?;
    let systems = flag(&mut request, "systems")?;
    let models = match request.remove("models") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => Some(model_names(items)?),
        Some(other) => {
            return Err(ApiError::invalid(
                "wrong_type",
                "models",
                format!("expected an array of model names, found {}", kind(&other)),
            ))
        }
    };
    let topics = match request.remove("topics") {
        None => {
            return Err(ApiError::invalid(
                "missing_field",
                "topics",
                "missing required field",
            ))
        }
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ApiError::invalid(
                "wrong_type",
                "topics",
                format!("expected an array of topics, found {}", kind(&other)),
            ))
        }
    };
    if topics.is_empty() {
        return Err(ApiError::invalid(
            "invalid_value",
            "topics",
            "must contain at least one topic",
        ));
    }
    if topics.len() > limits.max_topics {
        return Err(ApiError::too_large(
            "batch_too_large",
            "topics",
            format!(
                "{} topics in one request; the limit is {} (--max-topics)",
                topics.len(),
                limits.max_topics
            ),
        ));
    }
    let mut parsed = Vec::with_capacity(topics.len());
    let mut first_index: HashMap<String, usize> = HashMap::new();
    let mut summaries = 0;
    for (i, value) in topics.into_iter().enumerate() {
        let topic = topic(value, i, limits)?;
        if let Some(first) = first_index.insert(topic.topic.clone(), i) {
            return Err(ApiError::invalid(
                "invalid_value",
                format!("topics[{i}].topic"),
                format!(
                    "duplicate topic id {:?} (first at topics[{first}])",
                    topic.topic
                ),
            ));
        }
        summaries += topic.summaries.len();
        if summaries > limits.max_summaries {
            return Err(ApiError::too_large(
                "batch_too_large",
                format!("topics[{i}].summaries"),
                format!(
                    "more than {} summaries in one request (--max-summaries)",
                    limits.max_summaries
                ),
            ));
        }
        parsed.push(topic);
    }
    Ok(ScoreRequest {
        topics: parsed,
        models,
        features,
        systems,
    })
}

/// An optional boolean field of the request (absent or `null`: false).
fn flag(request: &mut serde_json::Map<String, Value>, name: &str) -> Result<bool, ApiError> {
    match request.remove(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(b),
        Some(other) => Err(ApiError::invalid(
            "wrong_type",
            name,
            format!("expected true or false, found {}", kind(&other)),
        )),
    }
}

fn model_names(items: Vec<Value>) -> Result<Vec<String>, ApiError> {
    if items.is_empty() {
        return Err(ApiError::invalid(
            "invalid_value",
            "models",
            "must name at least one model (omit it for the defaults)",
        ));
    }
    let mut names: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let field = format!("models[{i}]");
        let Value::String(name) = item else {
            return Err(ApiError::invalid(
                "wrong_type",
                field,
                format!("expected a model name, found {}", kind(&item)),
            ));
        };
        if names.contains(&name) {
            return Err(ApiError::invalid(
                "invalid_value",
                field,
                format!("model {name:?} is named twice"),
            ));
        }
        names.push(name);
    }
    Ok(names)
}

/// One topic: a judgment-set line validated by the judgment-set reader's rules (scores are
/// ignored), plus what scoring needs: documents, summaries, no blank text, texts within the
/// limit.
fn topic(mut value: Value, i: usize, limits: &Limits) -> Result<Topic, ApiError> {
    let at = |field: &str| {
        if field.is_empty() {
            format!("topics[{i}]")
        } else {
            format!("topics[{i}].{field}")
        }
    };
    // Scores are ignored, so a malformed one must not fail the request.
    if let Some(Value::Array(summaries)) = value.get_mut("summaries") {
        for summary in summaries {
            if let Value::Object(map) = summary {
                map.remove("scores");
            }
        }
    }
    let topic_id = value.get("topic").and_then(jsonl::id_text);
    let topic = jsonl::topic_from_value(value).map_err(|e: FieldError| {
        // A blank document or reference is refused by the set reader's own rule (it would
        // silently change every score of the topic: content features missing, ROUGE 0).
        let code = if e.message == "missing required field" {
            "missing_field"
        } else if e.message.starts_with("empty document text") {
            "empty_document"
        } else if e.message.starts_with("empty reference text") {
            "empty_reference"
        } else if e.message.starts_with("expected") {
            "wrong_type"
        } else {
            "invalid_value"
        };
        let message = match (code, &topic_id) {
            ("empty_document" | "empty_reference", Some(id)) => {
                format!("topic {id:?}: {}", e.message)
            }
            _ => e.message,
        };
        ApiError::invalid(code, at(&e.field), message)
    })?;
    if topic.documents.is_empty() {
        return Err(ApiError::invalid(
            "invalid_value",
            at("documents"),
            "must contain at least one document",
        ));
    }
    if topic.summaries.is_empty() {
        return Err(ApiError::invalid(
            "invalid_value",
            at("summaries"),
            "must contain at least one summary",
        ));
    }
    let texts = topic
        .documents
        .iter()
        .enumerate()
        .map(|(j, d)| (format!("documents[{j}].text"), &d.text))
        .chain(
            topic
                .references
                .iter()
                .enumerate()
                .map(|(j, r)| (format!("references[{j}].text"), &r.text)),
        )
        .chain(
            topic
                .summaries
                .iter()
                .enumerate()
                .map(|(j, s)| (format!("summaries[{j}].text"), &s.text)),
        );
    for (field, text) in texts {
        if text.len() > limits.max_text_bytes {
            return Err(ApiError::too_large(
                "text_too_long",
                at(&field),
                format!(
                    "{} bytes; the limit is {} (--max-text-bytes)",
                    text.len(),
                    limits.max_text_bytes
                ),
            ));
        }
        if field.starts_with("summaries") && text.trim().is_empty() {
            return Err(ApiError::invalid(
                "empty_summary",
                at(&field),
                "summary text is empty; there is nothing to score",
            ));
        }
    }
    Ok(topic)
}

/// A body that is not UTF-8. The error names the string holding the first bad byte: the body
/// is decoded lossily (bad bytes become U+FFFD) and the first string with a U+FFFD is named.
fn invalid_utf8(body: &[u8], e: std::str::Utf8Error, not_text: &str) -> ApiError {
    let offset = e.valid_up_to();
    let lossy = String::from_utf8_lossy(body);
    let field = serde_json::from_str::<Value>(&lossy)
        .ok()
        .and_then(|v| path_of_replacement(&v, String::new()));
    let error = ApiError::new(
        axum::http::StatusCode::BAD_REQUEST,
        "invalid_utf8",
        format!("invalid UTF-8 at byte {offset} of the body; text must be UTF-8{not_text}"),
    );
    match field {
        Some(field) => error.at(field),
        None => error,
    }
}

fn path_of_replacement(value: &Value, path: String) -> Option<String> {
    let child = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::String(s) if s.contains('\u{FFFD}') => Some(path),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| path_of_replacement(v, format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            if k.contains('\u{FFFD}') {
                Some(child(k))
            } else {
                path_of_replacement(v, child(k))
            }
        }),
        _ => None,
    }
}

fn kind(value: &Value) -> &'static str {
    jsonl::kind(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(body: &[u8]) -> ApiError {
        parse_score_request(body, &Limits::default()).expect_err("should be rejected")
    }

    const TOPIC: &str = r#"{"topic": "t1", "documents": [{"id": "d", "text": "A cat sat."}],
        "summaries": [{"system": "s1", "text": "A cat."}]}"#;

    #[test]
    fn accepts_a_minimal_request_and_ignores_scores() {
        let body = format!(
            r#"{{"topics": [{}]}}"#,
            TOPIC.replace(
                r#""text": "A cat.""#,
                r#""text": "A cat.", "scores": {"x": "bad"}"#
            )
        );
        let request = parse_score_request(body.as_bytes(), &Limits::default()).expect("valid");
        assert_eq!(request.topics.len(), 1);
        assert!(request.topics[0].summaries[0].scores.is_empty());
        assert_eq!(request.models, None);
        assert!(!request.features);
    }

    /// A body that starts with a byte-order mark (a request file saved by a Windows editor, sent
    /// with `curl --data-binary @request.json`) reads as without it, as judgment sets do; it was
    /// "malformed JSON at line 1 column 1".
    #[test]
    fn a_leading_byte_order_mark_is_skipped() {
        let body = format!("\u{feff}{{\"topics\": [{TOPIC}]}}");
        let request = parse_score_request(body.as_bytes(), &Limits::default()).expect("valid");
        assert_eq!(request.topics.len(), 1);
        // Only a leading one: inside the JSON it is a character like any other.
        let inside = format!("{{\"topics\": \u{feff}[{TOPIC}]}}");
        assert_eq!(error(inside.as_bytes()).code, "malformed_json");
    }

    #[test]
    fn a_repeated_key_is_refused_naming_its_path() {
        let body = format!(
            r#"{{"topics": [{}]}}"#,
            TOPIC.replace(r#""system": "s1","#, r#""system": "s1", "system": "s2","#)
        );
        let e = error(body.as_bytes());
        assert_eq!(e.code, "duplicate_key");
        assert_eq!(e.field.as_deref(), Some("topics[0].summaries[0].system"));
        assert!(
            e.message.contains("topics[0].summaries[0].system"),
            "{}",
            e.message
        );
    }

    #[test]
    fn names_the_field_of_each_problem() {
        let cases: Vec<(String, &str, &str)> = vec![
            (r#"{"topics": "x"}"#.into(), "wrong_type", "topics"),
            (r#"{}"#.into(), "missing_field", "topics"),
            (
                format!(r#"{{"topics": [{TOPIC}], "model": []}}"#),
                "unknown_field",
                "model",
            ),
            (
                format!(r#"{{"topics": [{TOPIC}], "models": [3]}}"#),
                "wrong_type",
                "models[0]",
            ),
            (
                format!(r#"{{"topics": [{TOPIC}], "features": 1}}"#),
                "wrong_type",
                "features",
            ),
            (
                format!(
                    r#"{{"topics": [{}]}}"#,
                    TOPIC.replace(r#""system": "s1", "#, "")
                ),
                "missing_field",
                "topics[0].summaries[0].system",
            ),
            (
                format!(r#"{{"topics": [{}]}}"#, TOPIC.replace("A cat.\"", " \"")),
                "empty_summary",
                "topics[0].summaries[0].text",
            ),
            (
                format!(r#"{{"topics": [{TOPIC}, {TOPIC}]}}"#),
                "invalid_value",
                "topics[1].topic",
            ),
            (
                format!(
                    r#"{{"topics": [{}]}}"#,
                    TOPIC.replace("A cat sat.\"", "\"")
                ),
                "empty_document",
                "topics[0].documents[0].text",
            ),
            (
                format!(
                    r#"{{"topics": [{}]}}"#,
                    TOPIC.replace(
                        r#""summaries""#,
                        r#""references": [{"id": "r", "text": "A cat."}, {"id": "r2", "text": " \n "}], "summaries""#
                    )
                ),
                "empty_reference",
                "topics[0].references[1].text",
            ),
        ];
        for (body, code, field) in cases {
            let e = error(body.as_bytes());
            assert_eq!((e.code, e.field.as_deref()), (code, Some(field)), "{body}");
            assert!(e.status.is_client_error());
        }
    }

    #[test]
    fn invalid_utf8_names_the_string() {
        // A lone 0xFF byte inside the summary's text.
        let body = format!(r#"{{"topics": [{TOPIC}]}}"#).replace("A cat.\"", "A c@at.\"");
        let bad: Vec<u8> = body
            .bytes()
            .map(|b| if b == b'@' { 0xFF } else { b })
            .collect();
        let e = error(&bad);
        assert_eq!(e.code, "invalid_utf8");
        assert_eq!(e.field.as_deref(), Some("topics[0].summaries[0].text"));
    }

    #[test]
    fn a_body_in_utf16_is_named_as_such() {
        let body = format!(r#"{{"topics": [{TOPIC}]}}"#);
        let le = |bom: bool| -> Vec<u8> {
            let units = bom
                .then_some(0xfeff_u16)
                .into_iter()
                .chain(body.encode_utf16());
            units.flat_map(u16::to_le_bytes).collect()
        };
        let e = error(&le(true));
        assert_eq!(e.code, "invalid_utf8");
        assert!(
            e.message.contains("(it is UTF-16 (as Windows Notepad"),
            "{}",
            e.message
        );
        let e = error(&le(false));
        assert_eq!(e.code, "malformed_json");
        assert!(
            e.message.contains("(it looks like UTF-16 little-endian"),
            "{}",
            e.message
        );
        // An ordinary malformed body keeps the plain message.
        assert!(!error(b"{\"topics\": [").message.contains("UTF-16"));
    }

    #[test]
    fn limits_texts_and_batches() {
        let limits = Limits {
            max_text_bytes: 5,
            ..Limits::default()
        };
        let body = format!(r#"{{"topics": [{TOPIC}]}}"#);
        let e = parse_score_request(body.as_bytes(), &limits).expect_err("too long");
        assert_eq!(e.code, "text_too_long");
        assert_eq!(e.field.as_deref(), Some("topics[0].documents[0].text"));
        let limits = Limits {
            max_summaries: 1,
            ..Limits::default()
        };
        let two = TOPIC.replace(
            r#"[{"system": "s1", "text": "A cat."}]"#,
            r#"[{"system": "s1", "text": "A cat."}, {"system": "s2", "text": "A dog."}]"#,
        );
        let body = format!(r#"{{"topics": [{two}]}}"#);
        let e = parse_score_request(body.as_bytes(), &limits).expect_err("too many");
        assert_eq!((e.code, e.status.as_u16()), ("batch_too_large", 413));
    }
}
