//! `train`, `score` and `cross-validate` as library functions (src/main.rs wires them).

use super::cv::{cross_validate, summary_level_tau, system_level_tau, Protocol1};
use super::learners::LearnerKind;
use super::model_file::{fnv1a64, ModelFile, TrainingSet};
use super::{train, Dataset};
use crate::corpus::{jsonl, Topic};
use crate::features::run::{extract_features, FeatureTable};
use crate::features::{self, build_classes, FeatureOptions};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// `aesop train SET --target T [--learner L] [--classes …] [--no-references] -o MODEL`
#[derive(Debug, Clone, clap::Args)]
pub struct TrainArgs {
    /// Judgment set (JSON Lines) with human scores.
    pub set: PathBuf,
    /// Score to learn (e.g. pyramid, responsiveness, relevance).
    #[arg(long)]
    pub target: String,
    #[arg(long, value_enum, default_value_t = LearnerKind::RankSvm)]
    pub learner: LearnerKind,
    /// Comma-separated feature classes (default: all).
    #[arg(long, value_delimiter = ',')]
    pub classes: Vec<String>,
    /// Use only features that need no references (content, consensus, surface, graph.input_*).
    #[arg(long)]
    pub no_references: bool,
    /// Model file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Seed of the inner cross-validation folds and solvers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `aesop score SET --model MODEL -o PRED.jsonl`, or with plain text files:
/// `aesop score --model MODEL --documents a.txt b.txt --summary s.txt [--reference r.txt …]`.
#[derive(Debug, Clone, clap::Args)]
pub struct ScoreArgs {
    /// Judgment set (JSON Lines); human scores are not needed.
    #[arg(required_unless_present = "summary", conflicts_with_all = ["documents", "summary", "reference"])]
    pub set: Option<PathBuf>,
    /// Model file written by `aesop train`.
    #[arg(long)]
    pub model: PathBuf,
    /// Plain-text input documents of one topic (UTF-8), instead of a judgment set.
    #[arg(long, num_args = 1.., requires = "summary")]
    pub documents: Vec<PathBuf>,
    /// Plain-text summaries to score (one file each; the system name is the file name).
    #[arg(long, num_args = 1..)]
    pub summary: Vec<PathBuf>,
    /// Plain-text human reference summaries (optional).
    #[arg(long, num_args = 1..)]
    pub reference: Vec<PathBuf>,
    /// Predictions to write (JSON Lines); standard output when omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

impl ScoreArgs {
    /// The topics to score: the judgment set, or one topic built from the plain-text files.
    fn topics(&self) -> Result<(Vec<Topic>, String)> {
        if let Some(set) = &self.set {
            return Ok((jsonl::read_set(set)?, set.display().to_string()));
        }
        let read = |path: &PathBuf| -> Result<(String, String)> {
            let bytes =
                std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
            let text = String::from_utf8(bytes).map_err(|e| {
                anyhow::anyhow!(
                    "{}: not UTF-8 (invalid byte at offset {})",
                    path.display(),
                    e.utf8_error().valid_up_to()
                )
            })?;
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            Ok((name, text))
        };
        let mut topic = Topic::new("input");
        for path in &self.documents {
            let (id, text) = read(path)?;
            topic.documents.push(crate::corpus::Document::new(id, text));
        }
        for path in &self.reference {
            let (id, text) = read(path)?;
            topic
                .references
                .push(crate::corpus::Reference::new(id, text));
        }
        for path in &self.summary {
            let (system, text) = read(path)?;
            if topic.summaries.iter().any(|s| s.system == system) {
                bail!(
                    "{}: two summaries with the file name '{system}'",
                    path.display()
                );
            }
            topic
                .summaries
                .push(crate::corpus::Summary::new(system, text));
        }
        Ok((vec![topic], "the given text files".to_string()))
    }
}

/// `aesop cross-validate SET --target T …` (protocol 1 of EVALUATION.md)
#[derive(Debug, Clone, clap::Args)]
pub struct CrossValidateArgs {
    /// Judgment set (JSON Lines) with human scores.
    pub set: PathBuf,
    #[arg(long)]
    pub target: String,
    #[arg(long, value_enum, default_value_t = LearnerKind::RankSvm)]
    pub learner: LearnerKind,
    /// Comma-separated feature classes (default: all).
    #[arg(long, value_delimiter = ',')]
    pub classes: Vec<String>,
    #[arg(long)]
    pub no_references: bool,
    /// Topic folds.
    #[arg(long, default_value_t = 5)]
    pub topic_folds: usize,
    /// System folds.
    #[arg(long, default_value_t = 4)]
    pub system_folds: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Out-of-fold predictions to write (JSON Lines).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Also write the report as JSON here.
    #[arg(long)]
    pub report: Option<PathBuf>,
}

/// The report of a protocol-1 run.
#[derive(Debug, Clone, Serialize)]
pub struct CvReport {
    pub set: String,
    pub target: String,
    pub learner: String,
    pub classes: Vec<String>,
    pub reference_free: bool,
    pub features: usize,
    pub topic_folds: usize,
    pub system_folds: usize,
    pub seed: u64,
    pub rows: usize,
    pub topics: usize,
    pub systems: usize,
    /// Kendall τ-b within topics, averaged over topics.
    pub summary_kendall_tau: f64,
    /// Kendall τ-b of system means.
    pub system_kendall_tau: f64,
}

/// The classes to compute and the model's columns. With `reference_free`, classes needing
/// references are dropped and of `graph` only the `graph.input_*` features are kept.
pub fn feature_plan(
    classes: &[String],
    reference_free: bool,
    options: &FeatureOptions,
) -> Result<(Vec<String>, Vec<String>)> {
    let built = build_classes(classes, options)?;
    let keep_class =
        |name: &str| !reference_free || features::is_reference_free(name) || name == "graph";
    let kept: Vec<_> = built.iter().filter(|c| keep_class(c.name())).collect();
    if kept.is_empty() {
        bail!(
            "none of the classes {} works without references",
            classes.join(", ")
        );
    }
    let names = kept
        .iter()
        .flat_map(|c| c.feature_names())
        .filter(|n| !reference_free || !n.starts_with("graph.") || n.starts_with("graph.input_"))
        .collect();
    Ok((kept.iter().map(|c| c.name().to_string()).collect(), names))
}

fn extract(
    topics: &[Topic],
    classes: &[String],
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<FeatureTable> {
    use std::io::IsTerminal;
    let built = build_classes(classes, options)?;
    extract_features(topics, &built, std::io::stderr().is_terminal(), cancel)
}

/// Train and save a model.
pub fn train_command(
    args: &TrainArgs,
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<ModelFile> {
    let bytes =
        std::fs::read(&args.set).with_context(|| format!("reading {}", args.set.display()))?;
    let topics = jsonl::read_set(&args.set)?;
    let (classes, names) = feature_plan(&args.classes, args.no_references, options)?;
    let table = extract(&topics, &classes, options, cancel)?;
    let data = Dataset::from_table(&table, &topics, &args.target, &names)
        .with_context(|| format!("{}", args.set.display()))?;
    let model = train(&data, args.learner, None, args.seed)?;
    let file = ModelFile {
        target: args.target.clone(),
        classes,
        feature_names: names,
        feature_options: options.into(),
        reference_free: args.no_references,
        model,
        training: TrainingSet {
            name: args.set.file_name().map_or_else(
                || args.set.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            content_hash: format!("{:016x}", fnv1a64(&bytes)),
            topics: topics.len(),
            summaries: table.records.len(),
            rows: data.len(),
        },
        report: None,
    };
    file.save(&args.output)?;
    eprintln!(
        "trained {} on {} rows ({} features, {:?}); wrote {}",
        args.learner.name(),
        data.len(),
        file.feature_names.len(),
        file.model.hyper,
        args.output.display()
    );
    Ok(file)
}

/// One prediction line.
#[derive(Debug, Serialize)]
struct PredictionLine<'a> {
    topic: &'a str,
    system: &'a str,
    target: &'a str,
    score: f64,
}

fn write_predictions<W: Write>(
    out: W,
    table: &FeatureTable,
    target: &str,
    scores: &[f64],
) -> Result<()> {
    let mut out = BufWriter::new(out);
    for (r, &score) in table.records.iter().zip(scores) {
        let line = PredictionLine {
            topic: &r.topic,
            system: &r.system,
            target,
            score,
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// Score a set with a saved model. Fails before extracting anything when the model needs
/// references and some topic has none.
pub fn score_command(args: &ScoreArgs, cancel: &AtomicBool) -> Result<Vec<f64>> {
    let model = ModelFile::load(&args.model)?;
    let (topics, source) = args.topics()?;
    check_references(&model, &topics, &args.model)?;
    let options: FeatureOptions = (&model.feature_options).into();
    let table = extract(&topics, &model.classes, &options, cancel)?;
    let scores = model
        .predict_table(&table)
        .with_context(|| format!("scoring {source} with {}", args.model.display()))?;
    match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("creating {}", path.display()))?;
            write_predictions(file, &table, &model.target, &scores)
                .with_context(|| format!("writing {}", path.display()))?
        }
        None => write_predictions(std::io::stdout().lock(), &table, &model.target, &scores)?,
    }
    Ok(scores)
}

/// A reference-based model cannot score topics without references.
pub fn check_references(model: &ModelFile, topics: &[Topic], model_path: &Path) -> Result<()> {
    if !model.needs_references() {
        return Ok(());
    }
    if let Some(t) = topics.iter().find(|t| t.references.is_empty()) {
        bail!(
            "model {} uses features that need references, but topic '{}' has none; use a reference-free \
             model instead (train one with --no-references, or a built-in `…-noref` model)",
            model_path.display(),
            t.topic
        );
    }
    Ok(())
}

/// Protocol 1: out-of-fold predictions and the summary- and system-level τ.
pub fn cross_validate_command(
    args: &CrossValidateArgs,
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<CvReport> {
    let topics = jsonl::read_set(&args.set)?;
    let (classes, names) = feature_plan(&args.classes, args.no_references, options)?;
    let table = extract(&topics, &classes, options, cancel)?;
    let data = Dataset::from_table(&table, &topics, &args.target, &names)
        .with_context(|| format!("{}", args.set.display()))?;
    let layout = Protocol1::new(
        &data.topics,
        &data.systems,
        args.topic_folds,
        args.system_folds,
        args.seed,
    )?;
    let predictions = cross_validate(&data, args.learner, None, &layout, args.seed)?;

    let file = std::fs::File::create(&args.output)
        .with_context(|| format!("creating {}", args.output.display()))?;
    let mut out = BufWriter::new(file);
    for ((topic, system), &score) in data.topics.iter().zip(&data.systems).zip(&predictions) {
        let line = PredictionLine {
            topic,
            system,
            target: &args.target,
            score,
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()
        .with_context(|| format!("writing {}", args.output.display()))?;

    let distinct = |v: &[String]| v.iter().collect::<std::collections::BTreeSet<_>>().len();
    let report = CvReport {
        set: args.set.display().to_string(),
        target: args.target.clone(),
        learner: args.learner.name().to_string(),
        classes,
        reference_free: args.no_references,
        features: names.len(),
        topic_folds: args.topic_folds,
        system_folds: args.system_folds,
        seed: args.seed,
        rows: data.len(),
        topics: distinct(&data.topics),
        systems: distinct(&data.systems),
        summary_kendall_tau: summary_level_tau(&predictions, &data.targets, &data.topics),
        system_kendall_tau: system_level_tau(&predictions, &data.targets, &data.systems),
    };
    println!(
        "protocol 1 ({}×{} folds, seed {}): {} on {} ({} rows, {} topics, {} systems, {} features{})\n  \
         summary-level Kendall τ-b {:.3}\n  system-level Kendall τ-b  {:.3}",
        report.topic_folds,
        report.system_folds,
        report.seed,
        report.learner,
        report.target,
        report.rows,
        report.topics,
        report.systems,
        report.features,
        if report.reference_free { ", reference-free" } else { "" },
        report.summary_kendall_tau,
        report.system_kendall_tau
    );
    if let Some(path) = &args.report {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(report)
}
