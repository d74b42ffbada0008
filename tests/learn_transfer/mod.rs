//! Issue 13: several judgment sets in one training, within-topic normalization, calibrated
//! scores, and model files from before these changes.
//!
//! This file holds the set writer the tests share (and `learn_recipe` uses); the tests are grouped
//! by what they check: `sets`, `corpus_columns`, `scaling`, `model_files`, `held_out` and
//! `missing`.

use crate::common;

use aesop::corpus::{jsonl, Document, Reference, Summary, Topic};
use aesop::learn::commands::LearnArgs;
use aesop::learn::learners::within_group_pairs;
use aesop::learn::model_file::ModelFile;
use aesop::learn::transfer::{
    normalize_column, parse_set_spec, pool, Calibration, Normalization, PoolOptions, SetData,
    SetSpec,
};
use aesop::learn::Dataset;
use std::path::Path;

mod corpus_columns;
mod held_out;
mod missing;
mod model_files;
mod scaling;
mod sets;

/// A small judgment set: `topics` topics of 5 summaries whose `quality` grows with their length.
/// Topic ids start with the file's stem (`a-t0`), so two sets never hold the same summaries
/// (sets that do are refused by `cross-validate` and `ablate`).
pub(crate) fn write_set(path: &Path, topics: usize, scale: f64) {
    write_set_with(path, topics, |s, t| {
        (3 + 2 * s + t % 2, scale * (s as f64 + 1.0) + t as f64 * 0.1)
    });
}

/// As [`write_set`], with the word count and `quality` of system `s`'s summary in topic `t`
/// given by `summary(s, t)` (past its 14 words the sentence starts again).
pub(crate) fn write_set_with(
    path: &Path,
    topics: usize,
    summary: impl Fn(usize, usize) -> (usize, f64),
) {
    let words = "the council approved the new budget for schools and roads after a long debate";
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let mut set = Vec::new();
    for t in 0..topics {
        let mut topic = Topic::new(format!("{stem}-t{t}"));
        topic.documents.push(Document::new(
            "d",
            format!("{words}. {words} again in topic {t}."),
        ));
        topic.references.push(Reference::new("r", words));
        for s in 0..5 {
            let (length, quality) = summary(s, t);
            let text: Vec<&str> = words.split(' ').cycle().take(length).collect();
            let mut written = Summary::new(format!("sys{s}"), text.join(" "));
            written.scores.insert("quality".into(), quality);
            topic.summaries.push(written);
        }
        set.push(topic);
    }
    let file = std::fs::File::create(path).expect("create set");
    jsonl::write_set(std::io::BufWriter::new(file), &set).expect("write set");
}
