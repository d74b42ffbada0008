//! Running feature classes over a judgment set: parallel over topics, with progress and clean
//! interruption, and writing the feature table as CSV or JSON Lines.

use super::{FeatureClass, TopicContext};
use crate::corpus::Topic;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Feature values for every summary of a set: one record per summary, in set order.
#[derive(Debug, Clone)]
pub struct FeatureTable {
    /// `class.feature` names, in column order.
    pub names: Vec<String>,
    pub records: Vec<FeatureRecord>,
    /// For each class, the topics it could not be computed for (e.g. no references).
    pub skipped: Vec<(String, Vec<String>)>,
}

/// The features of one summary. `None` marks a value that could not be computed.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureRecord {
    pub topic: String,
    pub system: String,
    pub values: Vec<Option<f64>>,
}

/// Extract `classes` for every summary of `topics`, in parallel over topics.
/// `cancel` is polled between topics; when it is set the run stops with an error.
pub fn extract_features(
    topics: &[Topic],
    classes: &[Box<dyn FeatureClass>],
    show_progress: bool,
    cancel: &AtomicBool,
) -> Result<FeatureTable> {
    let names: Vec<String> = classes.iter().flat_map(|c| c.feature_names()).collect();
    let bar = if show_progress {
        let bar = ProgressBar::new(topics.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} features [{bar:30}] {pos}/{len} topics {elapsed} (eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let per_topic: Vec<Result<(Vec<FeatureRecord>, Vec<bool>)>> = topics
        .par_iter()
        .map(|topic| {
            if cancel.load(Ordering::Relaxed) {
                bail!("interrupted");
            }
            let out = extract_topic(topic, classes);
            bar.inc(1);
            Ok(out)
        })
        .collect();
    bar.finish_and_clear();

    let mut records = Vec::new();
    let mut skipped: Vec<(String, Vec<String>)> = classes
        .iter()
        .map(|c| (c.name().to_string(), Vec::new()))
        .collect();
    for (topic, result) in topics.iter().zip(per_topic) {
        let (topic_records, class_missing) = result?;
        records.extend(topic_records);
        for (slot, missing) in skipped.iter_mut().zip(class_missing) {
            if missing {
                slot.1.push(topic.topic.clone());
            }
        }
    }
    skipped.retain(|(_, topics)| !topics.is_empty());
    Ok(FeatureTable {
        names,
        records,
        skipped,
    })
}

/// All classes on one topic; also says, per class, whether any summary got no values.
fn extract_topic(
    topic: &Topic,
    classes: &[Box<dyn FeatureClass>],
) -> (Vec<FeatureRecord>, Vec<bool>) {
    let ctx = TopicContext::new(topic);
    let mut records: Vec<FeatureRecord> = topic
        .summaries
        .iter()
        .map(|s| FeatureRecord {
            topic: topic.topic.clone(),
            system: s.system.clone(),
            values: Vec::new(),
        })
        .collect();
    let mut missing = Vec::with_capacity(classes.len());
    for class in classes {
        let width = class.feature_names().len();
        let rows = class.extract(&ctx);
        debug_assert_eq!(
            rows.len(),
            records.len(),
            "class {} returned a wrong row count",
            class.name()
        );
        let mut any_missing = false;
        for (i, record) in records.iter_mut().enumerate() {
            match rows.get(i) {
                Some(Some(values)) if values.len() == width => {
                    record.values.extend(values.iter().map(|&v| {
                        if v.is_finite() {
                            Some(v)
                        } else {
                            None
                        }
                    }))
                }
                _ => {
                    any_missing = true;
                    record.values.extend(std::iter::repeat_n(None, width));
                }
            }
        }
        missing.push(any_missing && width > 0);
    }
    (records, missing)
}

/// Output formats of a feature table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Csv,
    Jsonl,
}

impl TableFormat {
    /// The format a file name implies (`.jsonl`/`.json` → JSONL, anything else CSV).
    pub fn from_path(path: &std::path::Path) -> TableFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl") | Some("json") => TableFormat::Jsonl,
            _ => TableFormat::Csv,
        }
    }
}

/// Write the table: CSV with `topic,system,<features…>` (empty cell = missing), or JSON Lines
/// with one object per summary (`null` = missing).
pub fn write_table<W: Write>(table: &FeatureTable, format: TableFormat, out: W) -> Result<()> {
    match format {
        TableFormat::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut header = vec!["topic".to_string(), "system".to_string()];
            header.extend(table.names.iter().cloned());
            w.write_record(&header)?;
            for r in &table.records {
                let mut row = vec![r.topic.clone(), r.system.clone()];
                row.extend(
                    r.values
                        .iter()
                        .map(|v| v.map(|x| x.to_string()).unwrap_or_default()),
                );
                w.write_record(&row)?;
            }
            w.flush().context("writing CSV")?;
        }
        TableFormat::Jsonl => {
            let mut out = std::io::BufWriter::new(out);
            for r in &table.records {
                let mut obj = serde_json::Map::new();
                obj.insert("topic".into(), r.topic.clone().into());
                obj.insert("system".into(), r.system.clone().into());
                for (name, v) in table.names.iter().zip(&r.values) {
                    obj.insert(
                        name.clone(),
                        v.map(serde_json::Value::from)
                            .unwrap_or(serde_json::Value::Null),
                    );
                }
                serde_json::to_writer(&mut out, &obj)?;
                out.write_all(b"\n")?;
            }
            out.flush()?;
        }
    }
    Ok(())
}
