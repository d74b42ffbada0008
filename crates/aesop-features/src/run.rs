//! Running feature classes over a judgment set: parallel over topics, with progress and clean
//! interruption, and writing the feature table as CSV or JSON Lines.

use super::{FeatureClass, FeatureRow, TopicContext};
use aesop_corpus::Topic;
use anyhow::{Context, Result};
use indicatif::ProgressBar;
use rayon::prelude::*;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub use aesop_core::output::Interrupted;

/// Feature values for every summary of a set: one record per summary, in set order.
#[derive(Debug, Clone)]
pub struct FeatureTable {
    /// `class.feature` names, in column order.
    pub names: Vec<String>,
    pub records: Vec<FeatureRecord>,
    /// The classes that could not be computed for some summaries (e.g. no references).
    pub skipped: Vec<Skipped>,
    /// Options that changed nothing on any topic.
    pub idle_options: IdleOptions,
}

/// The changed options that changed nothing on any topic of a run
/// ([`FeatureClass::idle_options`]), with the reason each gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IdleOptions {
    /// `None` before the first topic; then the options idle on every topic so far.
    idle: Option<Vec<(&'static str, &'static str)>>,
}

impl IdleOptions {
    /// Keep the options that are idle on `topic` too.
    pub fn add(&mut self, topic: &Topic, classes: &[Box<dyn FeatureClass>]) {
        let here: Vec<(&'static str, &'static str)> =
            classes.iter().flat_map(|c| c.idle_options(topic)).collect();
        self.idle = Some(match self.idle.take() {
            None => here,
            Some(before) => before
                .into_iter()
                .filter(|(name, _)| here.iter().any(|(n, _)| n == name))
                .collect(),
        });
    }

    /// One note per option, naming its flag and Python keyword:
    /// `--consensus-include-human (consensus_include_human) changed nothing: no summary is …`.
    pub fn notes(&self) -> Vec<String> {
        self.idle
            .iter()
            .flatten()
            .map(|(name, why)| {
                format!(
                    "--{} ({name}) changed nothing: {why}",
                    name.replace('_', "-")
                )
            })
            .collect()
    }
}

/// Where one class gave no values.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub class: String,
    /// Topics with at least one summary left without values.
    pub topics: Vec<String>,
    pub summaries: usize,
    /// Of those summaries, how many lack only the class's reference-based features (a class
    /// such as `graph` that has reference-free features too: its `graph.input_*` values are
    /// there).
    pub reference_features_only: usize,
    /// What those topics lack, each once in first-seen order (e.g. "no input documents").
    pub reasons: Vec<&'static str>,
}

impl Skipped {
    /// What `aesop features` notes about this class (and the Python package warns):
    /// `class rouge has no values for 16 summaries in 1 topic (e.g. t1): no references to compare with`;
    /// `class graph has no reference-based values for …` when only those are missing.
    pub fn note(&self) -> String {
        let which = if self.reference_features_only == self.summaries {
            "reference-based values"
        } else if self.reference_features_only > 0 {
            "values, or no reference-based values,"
        } else {
            "values"
        };
        format!(
            "class {} has no {which} for {} in {} (e.g. {}): {}",
            self.class,
            aesop_core::counted(self.summaries, "summary", "summaries"),
            aesop_core::counted(self.topics.len(), "topic", "topics"),
            self.topics.first().map_or("", String::as_str),
            self.reasons.join("; ")
        )
    }

    /// Add `more` (of later topics, e.g. the next part of a stream) to `into`, class by class.
    pub fn merge(into: &mut Vec<Skipped>, more: Vec<Skipped>) {
        for m in more {
            match into.iter_mut().find(|s| s.class == m.class) {
                Some(s) => {
                    s.topics.extend(m.topics);
                    s.summaries += m.summaries;
                    s.reference_features_only += m.reference_features_only;
                    for reason in m.reasons {
                        if !s.reasons.contains(&reason) {
                            s.reasons.push(reason);
                        }
                    }
                }
                None => into.push(m),
            }
        }
    }

    /// One empty entry per class, in the classes' order.
    fn none_for(classes: &[Box<dyn FeatureClass>]) -> Vec<Skipped> {
        classes
            .iter()
            .map(|c| Skipped {
                class: c.name().to_string(),
                topics: Vec::new(),
                summaries: 0,
                reference_features_only: 0,
                reasons: Vec::new(),
            })
            .collect()
    }

    /// Count the summaries of `topic` left without values of `class`, and say why.
    fn add(&mut self, class: &dyn FeatureClass, topic: &Topic, missing: Missing) {
        if missing.summaries == 0 {
            return;
        }
        self.topics.push(topic.topic.clone());
        self.summaries += missing.summaries;
        self.reference_features_only += missing.reference_features_only;
        let no_references = class.uses_references() && topic.references.is_empty();
        let mut reasons = Vec::new();
        if no_references {
            reasons.push("no references to compare with");
        }
        if topic.documents.is_empty() {
            reasons.push("no input documents");
        }
        if reasons.is_empty() && class.uses_references() && topic.summaries.iter().any(|s| s.human)
        {
            reasons
                .push("no other reference for a human summary (one is never compared with itself)");
        }
        if reasons.is_empty() {
            reasons.push("the class computed no values for them");
        }
        for reason in reasons {
            if !self.reasons.contains(&reason) {
                self.reasons.push(reason);
            }
        }
    }
}

/// How many summaries of one topic a class left without values.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Missing {
    /// Without any value, or without any of the class's reference-based values.
    summaries: usize,
    /// Of those, the ones whose reference-free values are there.
    reference_features_only: usize,
}

/// The features of one summary. `None` marks a value that could not be computed.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureRecord {
    pub topic: String,
    pub system: String,
    pub values: Vec<Option<f64>>,
}

/// Extract `classes` for every summary of `topics`, in parallel over topics.
/// `cancel` is polled between topics and once more at the end; when it is set the run stops
/// with [`Interrupted`].
pub fn extract_features(
    topics: &[Topic],
    classes: &[Box<dyn FeatureClass>],
    show_progress: bool,
    cancel: &AtomicBool,
) -> Result<FeatureTable> {
    extract_features_counted(topics, classes, show_progress, cancel, &AtomicUsize::new(0))
}

/// [`extract_features`], adding 1 to `done` as each topic is finished, for a caller that
/// reports progress its own way (the Python package's `progress=`).
pub fn extract_features_counted(
    topics: &[Topic],
    classes: &[Box<dyn FeatureClass>],
    show_progress: bool,
    cancel: &AtomicBool,
    done: &AtomicUsize,
) -> Result<FeatureTable> {
    let names: Vec<String> = classes.iter().flat_map(|c| c.feature_names()).collect();
    let bar = if show_progress {
        // Through the shared draw target, so `--progress` also draws off a terminal.
        aesop_core::progress::counted(topics.len() as u64, "features", "topics")
    } else {
        ProgressBar::hidden()
    };

    let per_topic: Vec<Result<(Vec<FeatureRecord>, Vec<Missing>)>> = topics
        .par_iter()
        .map(|topic| {
            Interrupted::check(cancel)?;
            let out = extract_topic(topic, classes, cancel);
            bar.inc(1);
            done.fetch_add(1, Ordering::Relaxed);
            Ok(out)
        })
        .collect();
    bar.finish_and_clear();
    // Ctrl-C while the last topics were in flight: they finished, but the run still ends as
    // interrupted, so the verb writes nothing and exits 130 (as `for_each_topic` does).
    Interrupted::check(cancel)?;

    let mut records = Vec::new();
    let mut skipped = Skipped::none_for(classes);
    let mut idle_options = IdleOptions::default();
    for (topic, result) in topics.iter().zip(per_topic) {
        let (topic_records, class_missing) = result?;
        records.extend(topic_records);
        idle_options.add(topic, classes);
        for ((slot, class), missing) in skipped.iter_mut().zip(classes).zip(class_missing) {
            slot.add(class.as_ref(), topic, missing);
        }
    }
    skipped.retain(|s| s.summaries > 0);
    Ok(FeatureTable {
        names,
        records,
        skipped,
        idle_options,
    })
}

/// All classes on one topic; also counts, per class, the summaries that got no values.
fn extract_topic(
    topic: &Topic,
    classes: &[Box<dyn FeatureClass>],
    cancel: &AtomicBool,
) -> (Vec<FeatureRecord>, Vec<Missing>) {
    // `\n` line breaks and composed characters, so a text scores the same however it was saved.
    let canonical = topic.with_canonical_text();
    let topic = canonical.as_ref().unwrap_or(topic);
    let ctx = TopicContext::new(topic).with_stop(cancel);
    // Once cancelled, the classes not yet run give empty rows: the run ends as interrupted and
    // keeps none of them.
    let mut class_rows: Vec<Vec<FeatureRow>> = classes
        .iter()
        .map(|c| {
            if ctx.stopped() {
                vec![None; topic.summaries.len()]
            } else {
                c.extract(&ctx)
            }
        })
        .collect();
    rescore_self_references(topic, classes, &mut class_rows, cancel);

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
    for (class, rows) in classes.iter().zip(class_rows) {
        let names = class.feature_names();
        let width = names.len();
        // A class with reference-free features too gives a row without its reference-based
        // values when there is no reference to compare with; that is missing data as much as
        // a class without a row, and is said the same way.
        let reference_based: Vec<usize> = if class.uses_references() {
            (0..width)
                .filter(|&j| !class.is_reference_free_feature(&names[j]))
                .collect()
        } else {
            Vec::new()
        };
        let partial = !reference_based.is_empty() && reference_based.len() < width;
        debug_assert_eq!(
            rows.len(),
            records.len(),
            "class {} returned a wrong row count",
            class.name()
        );
        let mut class_missing = Missing::default();
        for (i, record) in records.iter_mut().enumerate() {
            match rows.get(i) {
                Some(Some(values)) if values.len() == width => {
                    if partial && reference_based.iter().all(|&j| !values[j].is_finite()) {
                        class_missing.summaries += 1;
                        class_missing.reference_features_only += 1;
                    }
                    record.values.extend(values.iter().map(|&v| {
                        if v.is_finite() {
                            Some(v)
                        } else {
                            None
                        }
                    }))
                }
                _ => {
                    class_missing.summaries += 1;
                    record.values.extend(std::iter::repeat_n(None, width));
                }
            }
        }
        missing.push(if width > 0 {
            class_missing
        } else {
            Missing::default()
        });
    }
    (records, missing)
}

/// A human summary that is also one of the topic's references (TAC models, DialSummEval's gold
/// summary) must not be scored against itself: for the classes that use references, its row is
/// recomputed against the other references only (the usual jackknife for human summaries).
fn rescore_self_references(
    topic: &Topic,
    classes: &[Box<dyn FeatureClass>],
    class_rows: &mut [Vec<FeatureRow>],
    cancel: &AtomicBool,
) {
    if !classes.iter().any(|c| c.uses_references()) {
        return;
    }
    for (i, summary) in topic.summaries.iter().enumerate() {
        if !summary.human || !topic.references.iter().any(|r| r.id == summary.system) {
            continue;
        }
        let mut others = topic.clone();
        others.references.retain(|r| r.id != summary.system);
        others.summaries = vec![summary.clone()];
        let ctx = TopicContext::for_self_reference(&others).with_stop(cancel);
        for (class, rows) in classes.iter().zip(class_rows.iter_mut()) {
            if class.uses_references() && !ctx.stopped() {
                if let (Some(slot), Some(row)) = (rows.get_mut(i), class.extract(&ctx).pop()) {
                    *slot = row;
                }
            }
        }
    }
}

/// Output formats of a feature table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Csv,
    /// CSV with tabs between the fields (a `.tsv` name), as spreadsheets and `cut` expect.
    Tsv,
    Jsonl,
}

impl TableFormat {
    /// The format a file name implies (`.jsonl`/`.json` → JSONL, `.tsv` → tab-separated,
    /// anything else CSV), read through a trailing `.gz` (`features.jsonl.gz` is JSON Lines,
    /// written compressed).
    pub fn from_path(path: &std::path::Path) -> TableFormat {
        match aesop_core::input::format_extension(path).as_deref() {
            Some("jsonl") | Some("json") => TableFormat::Jsonl,
            Some("tsv") => TableFormat::Tsv,
            _ => TableFormat::Csv,
        }
    }
}

/// A CSV writer, with tabs between the fields when `tabs` (a `.tsv` output).
pub fn csv_writer<W: Write>(out: W, tabs: bool) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .delimiter(if tabs { b'\t' } else { b',' })
        .from_writer(out)
}

/// Write the table: CSV with `topic,system,<features…>` (empty cell = missing), or JSON Lines
/// with one object per summary (`null` = missing).
pub fn write_table<W: Write>(table: &FeatureTable, format: TableFormat, out: W) -> Result<()> {
    let mut w = TableWriter::new(format, &table.names, out)?;
    for r in &table.records {
        w.write(r)?;
    }
    w.finish()
}

/// Writes feature records one at a time, in either table format (the header first for CSV).
pub enum TableWriter<'n, W: Write> {
    Csv(Box<csv::Writer<W>>),
    Jsonl {
        out: std::io::BufWriter<W>,
        names: &'n [String],
    },
}

impl<'n, W: Write> TableWriter<'n, W> {
    pub fn new(format: TableFormat, names: &'n [String], out: W) -> Result<TableWriter<'n, W>> {
        Ok(match format {
            TableFormat::Csv | TableFormat::Tsv => {
                let mut w = csv_writer(out, format == TableFormat::Tsv);
                let mut header = vec!["topic".to_string(), "system".to_string()];
                header.extend(names.iter().cloned());
                w.write_record(&header)?;
                TableWriter::Csv(Box::new(w))
            }
            TableFormat::Jsonl => TableWriter::Jsonl {
                out: std::io::BufWriter::new(out),
                names,
            },
        })
    }

    pub fn write(&mut self, r: &FeatureRecord) -> Result<()> {
        match self {
            TableWriter::Csv(w) => {
                let mut row = vec![r.topic.clone(), r.system.clone()];
                row.extend(
                    r.values
                        .iter()
                        .map(|v| v.map(|x| x.to_string()).unwrap_or_default()),
                );
                w.write_record(&row)?;
            }
            TableWriter::Jsonl { out, names } => {
                // Written field by field, in the CSV's column order: a `serde_json::Map` sorts
                // its keys, which put `topic` and `system` among the features.
                use serde::ser::{SerializeMap, Serializer};
                let mut line = serde_json::Serializer::new(&mut *out);
                let mut fields = (&mut line).serialize_map(Some(2 + names.len()))?;
                fields.serialize_entry("topic", &r.topic)?;
                fields.serialize_entry("system", &r.system)?;
                for (name, v) in names.iter().zip(&r.values) {
                    // A missing or non-finite value is `null`, as a `Value` of it was.
                    fields.serialize_entry(name, &v.filter(|x| x.is_finite()))?;
                }
                fields.end()?;
                out.write_all(b"\n")?;
            }
        }
        Ok(())
    }

    pub fn finish(self) -> Result<()> {
        match self {
            TableWriter::Csv(mut w) => w.flush().context("writing CSV")?,
            TableWriter::Jsonl { mut out, .. } => out.flush()?,
        }
        Ok(())
    }
}

/// What [`stream_features`] went through, and the classes left without values somewhere.
#[derive(Debug, Clone)]
pub struct StreamedFeatures {
    pub stats: aesop_corpus::stream::StreamStats,
    pub skipped: Vec<Skipped>,
    pub idle_options: IdleOptions,
    /// Topics whose text does not read as English.
    pub languages: crate::language::Tally,
}

/// `aesop features` at scale: extract `classes` topic by topic from a stream of topics (a
/// window of topics in parallel) and write each record as it comes, in input order, so memory
/// depends on the largest topic and not on the set. The output equals [`write_table`] of
/// [`extract_features`] over the whole set.
/// `seen` is called with every record as it is written (`features --systems` tallies each
/// system's means from them).
pub fn stream_features<I, W>(
    topics: I,
    classes: &[Box<dyn FeatureClass>],
    format: TableFormat,
    out: W,
    show_progress: bool,
    cancel: &AtomicBool,
    seen: &mut dyn FnMut(&FeatureRecord),
) -> Result<StreamedFeatures>
where
    I: Iterator<Item = Result<Topic>> + Send,
    W: Write,
{
    let names: Vec<String> = classes.iter().flat_map(|c| c.feature_names()).collect();
    let mut writer = TableWriter::new(format, &names, out)?;
    let mut skipped = Skipped::none_for(classes);
    let mut idle_options = IdleOptions::default();
    let mut languages = crate::language::Tally::default();
    let stats = aesop_corpus::stream::for_each_topic(
        topics,
        aesop_corpus::stream::Window::default(),
        show_progress.then_some("features"),
        cancel,
        |topic| Ok(extract_topic(topic, classes, cancel)),
        |topic, (records, class_missing)| {
            for r in &records {
                writer.write(r)?;
                seen(r);
            }
            idle_options.add(topic, classes);
            languages.add(topic);
            for ((slot, class), missing) in skipped.iter_mut().zip(classes).zip(class_missing) {
                slot.add(class.as_ref(), topic, missing);
            }
            Ok(())
        },
    )?;
    writer.finish()?;
    skipped.retain(|s| s.summaries > 0);
    Ok(StreamedFeatures {
        stats,
        skipped,
        idle_options,
        languages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesop_corpus::Summary;
    use std::sync::atomic::Ordering;

    /// A class that raises the cancel flag while it works, as Ctrl-C landing mid-topic does.
    struct RaisesTheFlag(&'static AtomicBool);

    impl FeatureClass for RaisesTheFlag {
        fn spec(&self) -> &'static crate::ClassSpec {
            crate::class_spec("surface").expect("surface is a class")
        }
        fn feature_names(&self) -> Vec<String> {
            vec!["surface.one".to_string()]
        }
        fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
            self.0.store(true, Ordering::Relaxed);
            // The context carries the run's flag, for classes that poll it mid-topic.
            assert!(ctx.stopped());
            ctx.topic
                .summaries
                .iter()
                .map(|_| Some(vec![1.0]))
                .collect()
        }
    }

    /// A class that counts the topics it is asked for.
    struct CountsTopics(&'static std::sync::atomic::AtomicUsize);

    impl FeatureClass for CountsTopics {
        fn spec(&self) -> &'static crate::ClassSpec {
            crate::class_spec("redundancy").expect("redundancy is a class")
        }
        fn feature_names(&self) -> Vec<String> {
            vec!["redundancy.one".to_string()]
        }
        fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
            self.0.fetch_add(1, Ordering::Relaxed);
            vec![Some(vec![1.0]); ctx.topic.summaries.len()]
        }
    }

    /// Cancelled while one class works on a topic, the run skips the topic's other classes
    /// (a service request that timed out frees its worker sooner), both in one batch and
    /// streamed.
    #[test]
    fn the_classes_after_a_cancel_are_not_run() {
        static CANCEL: AtomicBool = AtomicBool::new(false);
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let mut topic = Topic::new("t1");
        topic.summaries.push(Summary::new("s1", "A summary."));
        let classes: Vec<Box<dyn FeatureClass>> = vec![
            Box::new(RaisesTheFlag(&CANCEL)),
            Box::new(CountsTopics(&CALLS)),
        ];
        let Err(err) = extract_features(std::slice::from_ref(&topic), &classes, false, &CANCEL)
        else {
            panic!("the run was not interrupted");
        };
        assert!(err.downcast_ref::<Interrupted>().is_some(), "{err}");
        assert_eq!(CALLS.load(Ordering::Relaxed), 0);
        CANCEL.store(false, Ordering::Relaxed);
        let topics = std::iter::once(Ok(topic));
        let streamed = stream_features(
            topics,
            &classes,
            TableFormat::Csv,
            Vec::new(),
            false,
            &CANCEL,
            &mut |_| {},
        );
        assert!(streamed.is_err(), "the streamed run was not interrupted");
        assert_eq!(CALLS.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn an_interrupt_while_the_last_topics_are_worked_on_still_interrupts() {
        static CANCEL: AtomicBool = AtomicBool::new(false);
        // One topic: its own check passed before the flag was raised, and no topic is left to
        // see it, so only the check at the end can.
        let mut topic = Topic::new("t1");
        topic.summaries.push(Summary::new("s1", "A summary."));
        let classes: Vec<Box<dyn FeatureClass>> = vec![Box::new(RaisesTheFlag(&CANCEL))];
        let Err(err) = extract_features(&[topic], &classes, false, &CANCEL) else {
            panic!("the run was not interrupted");
        };
        assert!(err.downcast_ref::<Interrupted>().is_some(), "{err}");
    }
}
