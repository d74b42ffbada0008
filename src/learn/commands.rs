//! `train`, `score` and `cross-validate` as library functions (src/main.rs wires them).

use super::cv::{cross_validate, summary_level_tau, system_level_tau, Protocol1};
use super::learners::{Hyper, LearnerKind};
use super::model_file::{fnv1a64, ModelFile, TrainingSet};
use super::scoring::{default_model_names, score_topics, NamedModel};
use super::stack::{self, BaseSpec, StackData, StackPlan, StackSettings};
use super::{train, Dataset};
use crate::corpus::{jsonl, Topic};
use crate::features::run::{extract_features, FeatureTable};
use crate::features::{self, build_classes, FeatureOptions};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// What to learn and from what: shared by `train`, `cross-validate` and `ablate`.
#[derive(Debug, Clone, clap::Args)]
pub struct LearnArgs {
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
    /// Seed of the folds, the solvers and every resampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub hyper: HyperArgs,
    #[command(flatten)]
    pub stack: StackArgs,
}

impl LearnArgs {
    /// Learn `target` from `set` with the defaults: rank-svm, all classes, seed 1, inner CV.
    pub fn new(set: impl Into<PathBuf>, target: &str) -> LearnArgs {
        LearnArgs {
            set: set.into(),
            target: target.to_string(),
            learner: LearnerKind::RankSvm,
            classes: Vec::new(),
            no_references: false,
            seed: 1,
            hyper: HyperArgs::default(),
            stack: StackArgs::default(),
        }
    }
}

/// A stacked (CREMER-style) model: base models trained on their own targets, and `--learner`
/// (with the hyper-parameter flags) as the meta learner over their predictions.
#[derive(Debug, Clone, clap::Args)]
pub struct StackArgs {
    /// A base model of a stacked model; repeat for each. CLASSES: comma-separated or `all`;
    /// C: fixed C (empty: inner cross-validation); LEARNER: default rank-svm. `--target` and
    /// `--learner` are then the meta learner's, `--no-references` applies to every base, and
    /// `--classes` is refused. Example: --stack content=relevance:content,rouge:0.001
    /// --stack readability=coherence:all:0.0001 --learner svr-rbf
    #[arg(long = "stack", value_name = "NAME=TARGET[:CLASSES[:C[:LEARNER]]]",
          value_parser = stack::parse_stack_flag)]
    pub bases: Vec<BaseSpec>,
    /// Stacked model: topic folds of the inner split that gives the meta learner out-of-fold
    /// base predictions.
    #[arg(long, default_value_t = stack::DEFAULT_INNER_TOPIC_FOLDS)]
    pub stack_topic_folds: usize,
    /// Stacked model: system folds of that inner split.
    #[arg(long, default_value_t = stack::DEFAULT_INNER_SYSTEM_FOLDS)]
    pub stack_system_folds: usize,
}

impl Default for StackArgs {
    fn default() -> StackArgs {
        StackArgs {
            bases: Vec::new(),
            stack_topic_folds: stack::DEFAULT_INNER_TOPIC_FOLDS,
            stack_system_folds: stack::DEFAULT_INNER_SYSTEM_FOLDS,
        }
    }
}

/// What a learning command computes: the classes, the model's columns, and for a stacked
/// model the bases resolved against those columns.
struct LearnPlan {
    classes: Vec<String>,
    names: Vec<String>,
    stack: Option<StackPlan>,
}

impl LearnArgs {
    fn plan(&self, options: &FeatureOptions) -> Result<LearnPlan> {
        if self.stack.bases.is_empty() {
            let (classes, names) = feature_plan(&self.classes, self.no_references, options)?;
            return Ok(LearnPlan {
                classes,
                names,
                stack: None,
            });
        }
        if !self.classes.is_empty() {
            bail!("--classes cannot be combined with --stack: each base model names its classes (NAME=TARGET:CLASSES)");
        }
        let plan = stack::plan(&self.stack.bases, self.no_references, options)?;
        Ok(LearnPlan {
            classes: plan.classes.clone(),
            names: plan.feature_names.clone(),
            stack: Some(plan),
        })
    }

    fn stack_settings(&self, meta_hyper: Option<Hyper>) -> StackSettings {
        StackSettings {
            meta_learner: self.learner,
            meta_hyper,
            inner_topic_folds: self.stack.stack_topic_folds,
            inner_system_folds: self.stack.stack_system_folds,
            seed: self.seed,
        }
    }
}

/// Hyper-parameters fixed on the command line. Unset, they are chosen by inner cross-validation
/// over the training topics (the grids are in learners.rs).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HyperArgs {
    /// C of rank-svm and the SVRs.
    #[arg(long)]
    pub c: Option<f64>,
    /// SVR: half-width of the ε-tube in target standard deviations (default 0.1; needs --c).
    #[arg(long)]
    pub epsilon: Option<f64>,
    /// SVR: RBF width factor (default 0.5) or polynomial degree (default 2); needs --c.
    #[arg(long)]
    pub kernel_param: Option<f64>,
    /// Elastic net: penalty (fixes the hyper-parameters; --l1-ratio defaults to 0.5).
    #[arg(long)]
    pub penalty: Option<f64>,
    /// Elastic net: share of the L1 penalty, in [0, 1] (needs --penalty).
    #[arg(long)]
    pub l1_ratio: Option<f64>,
    /// Random forest: number of trees (default 100).
    #[arg(long)]
    pub trees: Option<usize>,
    /// Random forest: maximum depth (default unlimited).
    #[arg(long)]
    pub max_depth: Option<u16>,
    /// Random forest: minimum samples per leaf (default 5).
    #[arg(long)]
    pub min_leaf: Option<usize>,
}

impl HyperArgs {
    /// The fixed hyper-parameters for `learner`, or `None` to choose them by inner CV. A flag
    /// that does not apply to the learner, or a value out of range, is an error.
    pub fn fixed(&self, learner: LearnerKind) -> Result<Option<Hyper>> {
        let positive = |flag: &str, v: f64| -> Result<f64> {
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                bail!("{flag} must be a positive number, got {v}")
            }
        };
        let given: Vec<&str> = [
            ("--c", self.c.is_some()),
            ("--epsilon", self.epsilon.is_some()),
            ("--kernel-param", self.kernel_param.is_some()),
            ("--penalty", self.penalty.is_some()),
            ("--l1-ratio", self.l1_ratio.is_some()),
            ("--trees", self.trees.is_some()),
            ("--max-depth", self.max_depth.is_some()),
            ("--min-leaf", self.min_leaf.is_some()),
        ]
        .iter()
        .filter(|(_, set)| *set)
        .map(|(flag, _)| *flag)
        .collect();
        let applies: &[&str] = match learner {
            LearnerKind::Ols => &[],
            LearnerKind::RankSvm => &["--c"],
            LearnerKind::SvrRbf | LearnerKind::SvrPoly => &["--c", "--epsilon", "--kernel-param"],
            LearnerKind::SvrLinear => &["--c", "--epsilon"],
            LearnerKind::ElasticNet => &["--penalty", "--l1-ratio"],
            LearnerKind::Forest => &["--trees", "--max-depth", "--min-leaf"],
        };
        if let Some(flag) = given.iter().find(|f| !applies.contains(f)) {
            bail!("{flag} does not apply to the {} learner", learner.name());
        }
        if given.is_empty() {
            return Ok(None);
        }
        let hyper = match learner {
            LearnerKind::Ols => Hyper::None,
            LearnerKind::RankSvm => Hyper::RankSvm {
                c: positive("--c", self.c.unwrap_or(1.0))?,
            },
            LearnerKind::SvrRbf | LearnerKind::SvrPoly | LearnerKind::SvrLinear => {
                let Some(c) = self.c else {
                    bail!("--epsilon and --kernel-param need --c as well");
                };
                let default_kernel = match learner {
                    LearnerKind::SvrRbf => 0.5,
                    LearnerKind::SvrPoly => 2.0,
                    _ => 0.0,
                };
                Hyper::Svr {
                    c: positive("--c", c)?,
                    epsilon: positive("--epsilon", self.epsilon.unwrap_or(0.1))?,
                    kernel: match self.kernel_param {
                        Some(k) => positive("--kernel-param", k)?,
                        None => default_kernel,
                    },
                }
            }
            LearnerKind::ElasticNet => {
                let Some(penalty) = self.penalty else {
                    bail!("--l1-ratio needs --penalty as well");
                };
                let l1_ratio = self.l1_ratio.unwrap_or(0.5);
                if !(0.0..=1.0).contains(&l1_ratio) {
                    bail!("--l1-ratio must be in [0, 1], got {l1_ratio}");
                }
                Hyper::ElasticNet {
                    penalty: positive("--penalty", penalty)?,
                    l1_ratio,
                }
            }
            LearnerKind::Forest => {
                let n_trees = self.trees.unwrap_or(100);
                let min_samples_leaf = self.min_leaf.unwrap_or(5);
                if n_trees == 0 || min_samples_leaf == 0 || self.max_depth == Some(0) {
                    bail!("--trees, --max-depth and --min-leaf must be at least 1");
                }
                Hyper::Forest {
                    n_trees,
                    max_depth: self.max_depth,
                    min_samples_leaf,
                }
            }
        };
        Ok(Some(hyper))
    }
}

/// `aesop train SET --target T [--learner L] [--classes …] [--no-references] -o MODEL`
#[derive(Debug, Clone, clap::Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub learn: LearnArgs,
    /// Model file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// An evaluation report (JSON, e.g. from `aesop evaluate --json` on this model's protocol-1
    /// predictions) to store in the model file.
    #[arg(long)]
    pub report: Option<PathBuf>,
}

/// `aesop score SET [--model MODEL|builtin:NAME …] [-o PRED.jsonl]`, or with plain text files:
/// `aesop score --documents a.txt b.txt --summary s.txt [--reference r.txt …]`.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["set", "summary"])))]
pub struct ScoreArgs {
    /// Judgment set (JSON Lines); human scores are not needed. Or plain text: --documents
    /// FILE… --summary FILE… [--reference FILE…].
    #[arg(conflicts_with_all = ["documents", "summary", "reference"])]
    pub set: Option<PathBuf>,
    /// Model file written by `aesop train`, or `builtin:NAME` (see `aesop models`); repeat for
    /// several. Default: the built-in pyramid, responsiveness and readability models, each in its
    /// reference-based variant for topics with references and `…-noref` for topics without.
    #[arg(long)]
    pub model: Vec<String>,
    /// Plain-text input documents of one topic (UTF-8), instead of a judgment set.
    #[arg(long, num_args = 1.., requires = "summary")]
    pub documents: Vec<PathBuf>,
    /// Plain-text summaries to score (one file each; the system name is the file name); needs
    /// --documents (as the HTTP service, which refuses a topic without documents).
    #[arg(long, num_args = 1.., requires = "documents")]
    pub summary: Vec<PathBuf>,
    /// Plain-text human reference summaries (optional).
    #[arg(long, num_args = 1..)]
    pub reference: Vec<PathBuf>,
    /// Predictions to write (JSON Lines); standard output when omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

impl ScoreArgs {
    /// Every file this run reads (the output may be none of them).
    fn input_paths(&self) -> Vec<&std::path::Path> {
        let models = self
            .model
            .iter()
            .map(std::path::Path::new)
            .filter(|p| p.exists());
        self.set
            .iter()
            .chain(&self.documents)
            .chain(&self.summary)
            .chain(&self.reference)
            .map(PathBuf::as_path)
            .chain(models)
            .collect()
    }

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
    #[command(flatten)]
    pub learn: LearnArgs,
    /// Topic folds.
    #[arg(long, default_value_t = 5)]
    pub topic_folds: usize,
    /// System folds.
    #[arg(long, default_value_t = 4)]
    pub system_folds: usize,
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
    /// Base models of a stacked model (`NAME=TARGET:CLASSES:C:LEARNER`); `learner` is then the
    /// meta learner. Empty for a plain model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<String>,
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
    let learn = &args.learn;
    let hyper = learn.hyper.fixed(learn.learner)?;
    let bytes =
        std::fs::read(&learn.set).with_context(|| format!("reading {}", learn.set.display()))?;
    let topics = jsonl::read_set(&learn.set)?;
    let LearnPlan {
        classes,
        names,
        stack,
    } = learn.plan(options)?;
    let table = extract(&topics, &classes, options, cancel)?;
    let report = match &args.report {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading report {}", path.display()))?;
            serde_json::from_str::<serde_json::Value>(&text)
                .with_context(|| format!("{}: not JSON", path.display()))?;
            Some(text)
        }
        None => None,
    };
    let (model, rows) = match &stack {
        None => {
            let data = Dataset::from_table(&table, &topics, &learn.target, &names)
                .with_context(|| format!("{}", learn.set.display()))?;
            (train(&data, learn.learner, hyper, learn.seed)?, data.len())
        }
        Some(plan) => {
            let data = StackData::from_table(&table, &topics, &learn.target, plan)
                .with_context(|| format!("{}", learn.set.display()))?;
            let settings = learn.stack_settings(hyper);
            let model = stack::train_stacked(&plan.bases, &data, &settings, cancel)?;
            (model, data.len())
        }
    };
    let file = ModelFile {
        target: learn.target.clone(),
        classes,
        feature_names: names,
        feature_options: options.into(),
        reference_free: learn.no_references,
        model,
        training: TrainingSet {
            name: learn.set.file_name().map_or_else(
                || learn.set.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            content_hash: format!("{:016x}", fnv1a64(&bytes)),
            topics: topics.len(),
            summaries: table.records.len(),
            rows,
        },
        report,
    };
    file.save_checked(&args.output, &[&learn.set])?;
    for base in file.model.stack_bases().unwrap_or_default() {
        eprintln!(
            "base model {}: {} on {} ({} features, {:?})",
            base.name,
            base.model.learner.name(),
            base.target,
            base.feature_names.len(),
            base.model.hyper
        );
    }
    eprintln!(
        "trained {}{} on {rows} rows ({} features, {:?}); wrote {}",
        learn.learner.name(),
        if stack.is_some() { " (stacked)" } else { "" },
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
    /// The model's name (`pyramid-noref`, a model file's stem); absent in out-of-fold files.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
}

/// Score a set (or plain-text files) with the named models, or with the default built-in
/// models chosen per topic. Returns the prediction lines written, as (model name, score), in
/// output order. Fails before extracting anything when a model needs references that a topic
/// lacks.
pub fn score_command(args: &ScoreArgs, cancel: &AtomicBool) -> Result<Vec<(String, f64)>> {
    use std::io::IsTerminal;
    let (topics, source) = args.topics()?;
    let progress = std::io::stderr().is_terminal();
    let order: Vec<String> = topics.iter().map(|t| t.topic.clone()).collect();
    // Runs of (topics, models): one run with the named models, or with the defaults one run
    // per variant set (topics with references, topics without).
    let mut runs: Vec<(Vec<Topic>, Vec<NamedModel>)> = Vec::new();
    if args.model.is_empty() {
        let (with, without): (Vec<Topic>, Vec<Topic>) =
            topics.into_iter().partition(|t| !t.references.is_empty());
        for part in [with, without] {
            let Some(first) = part.first() else { continue };
            let models = default_model_names(first)
                .into_iter()
                .map(|name| NamedModel::from_spec(&format!("builtin:{name}")))
                .collect::<Result<Vec<_>>>()?;
            runs.push((part, models));
        }
    } else {
        let models = args
            .model
            .iter()
            .map(|spec| NamedModel::from_spec(spec))
            .collect::<Result<Vec<_>>>()?;
        runs.push((topics, models));
    }
    // Score every run, then write in the set's order (topic ids are unique within a set).
    let mut by_topic: std::collections::HashMap<String, Vec<(String, String, f64, String)>> =
        std::collections::HashMap::new();
    for (topics, models) in &runs {
        let refs: Vec<&NamedModel> = models.iter().collect();
        let scored = score_topics(&refs, topics, progress, cancel)
            .with_context(|| format!("scoring {source}"))?;
        for warning in scored.degenerate_warnings() {
            eprintln!("warning: {warning}");
        }
        for (r, record) in scored.table.records.iter().enumerate() {
            let lines = by_topic.entry(record.topic.clone()).or_default();
            for (m, model) in models.iter().enumerate() {
                lines.push((
                    record.system.clone(),
                    model.target.clone(),
                    scored.scores[m][r],
                    model.name.clone(),
                ));
            }
        }
    }
    let sink = args.output.as_ref().map_or_else(
        || "standard output".to_string(),
        |p| p.display().to_string(),
    );
    let mut file_out = match &args.output {
        Some(path) => Some(crate::output::OutputFile::create(
            path,
            &args.input_paths(),
        )?),
        None => None,
    };
    let mut out: Box<dyn Write + '_> = match file_out.as_mut() {
        Some(file) => Box::new(file),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let mut written = Vec::new();
    for topic in &order {
        for (system, target, score, model) in by_topic.remove(topic).unwrap_or_default() {
            let line = PredictionLine {
                topic,
                system: &system,
                target: &target,
                score,
                model: Some(&model),
            };
            serde_json::to_writer(&mut out, &line)?;
            out.write_all(b"\n")
                .with_context(|| format!("writing {sink}"))?;
            written.push((model, score));
        }
    }
    out.flush().with_context(|| format!("writing {sink}"))?;
    drop(out);
    if let Some(file) = file_out {
        file.commit()?;
    }
    Ok(written)
}

/// Protocol 1: out-of-fold predictions and the summary- and system-level τ.
pub fn cross_validate_command(
    args: &CrossValidateArgs,
    options: &FeatureOptions,
    cancel: &AtomicBool,
) -> Result<CvReport> {
    let learn = &args.learn;
    let hyper = learn.hyper.fixed(learn.learner)?;
    let topics = jsonl::read_set(&learn.set)?;
    let LearnPlan {
        classes,
        names,
        stack,
    } = learn.plan(options)?;
    let table = extract(&topics, &classes, options, cancel)?;
    let (data, stack_data) = match &stack {
        None => (
            Dataset::from_table(&table, &topics, &learn.target, &names)
                .with_context(|| format!("{}", learn.set.display()))?,
            None,
        ),
        Some(plan) => {
            let sd = StackData::from_table(&table, &topics, &learn.target, plan)
                .with_context(|| format!("{}", learn.set.display()))?;
            (sd.data.clone(), Some(sd))
        }
    };
    let layout = Protocol1::new(
        &data.topics,
        &data.systems,
        args.topic_folds,
        args.system_folds,
        learn.seed,
    )?;
    let predictions = match (&stack, &stack_data) {
        (Some(plan), Some(sd)) => {
            let settings = learn.stack_settings(hyper);
            stack::cross_validate_stacked(&plan.bases, sd, &settings, &layout, cancel)?
        }
        _ => cross_validate(&data, learn.learner, hyper, &layout, learn.seed)?,
    };

    // Ctrl-C during the folds: exit 130 with no output (run::Interrupted), not a full file.
    if cancel.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(crate::features::run::Interrupted.into());
    }
    let mut out = crate::output::OutputFile::create(&args.output, &[&learn.set])?;
    for ((topic, system), &score) in data.topics.iter().zip(&data.systems).zip(&predictions) {
        let line = PredictionLine {
            topic,
            system,
            target: &learn.target,
            score,
            model: None,
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.commit()?;

    let distinct = |v: &[String]| v.iter().collect::<std::collections::BTreeSet<_>>().len();
    let report = CvReport {
        set: learn.set.display().to_string(),
        target: learn.target.clone(),
        learner: learn.learner.name().to_string(),
        stack: learn.stack.bases.iter().map(|b| b.to_string()).collect(),
        classes,
        reference_free: learn.no_references,
        features: names.len(),
        topic_folds: args.topic_folds,
        system_folds: args.system_folds,
        seed: learn.seed,
        rows: data.len(),
        topics: distinct(&data.topics),
        systems: distinct(&data.systems),
        summary_kendall_tau: summary_level_tau(&predictions, &data.targets, &data.topics),
        system_kendall_tau: system_level_tau(&predictions, &data.targets, &data.systems),
    };
    println!(
        "protocol 1 ({}×{} folds, seed {}): {}{} on {} ({} rows, {} topics, {} systems, {} features{})\n  \
         summary-level Kendall τ-b {:.3}\n  system-level Kendall τ-b  {:.3}",
        report.topic_folds,
        report.system_folds,
        report.seed,
        report.learner,
        if report.stack.is_empty() {
            String::new()
        } else {
            format!(" over [{}]", report.stack.join(" "))
        },
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
        let json = serde_json::to_string_pretty(&report)?;
        crate::output::OutputFile::write_all_to(path, &[&learn.set], json.as_bytes())?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_flags_fix_the_learners_parameters_or_are_refused() {
        let none = HyperArgs::default();
        assert_eq!(none.fixed(LearnerKind::RankSvm).expect("ok"), None);
        let c = HyperArgs {
            c: Some(0.01),
            ..HyperArgs::default()
        };
        assert_eq!(
            c.fixed(LearnerKind::RankSvm).expect("ok"),
            Some(Hyper::RankSvm { c: 0.01 })
        );
        assert_eq!(
            c.fixed(LearnerKind::SvrRbf).expect("ok"),
            Some(Hyper::Svr {
                c: 0.01,
                epsilon: 0.1,
                kernel: 0.5
            })
        );
        let e = c.fixed(LearnerKind::Forest).expect_err("--c on a forest");
        assert!(
            e.to_string().contains("--c does not apply to the forest"),
            "{e}"
        );
        let negative = HyperArgs {
            c: Some(-1.0),
            ..HyperArgs::default()
        };
        assert!(negative.fixed(LearnerKind::RankSvm).is_err());
        let en = HyperArgs {
            l1_ratio: Some(0.2),
            ..HyperArgs::default()
        };
        assert!(
            en.fixed(LearnerKind::ElasticNet).is_err(),
            "needs --penalty"
        );
        let en = HyperArgs {
            penalty: Some(0.1),
            ..HyperArgs::default()
        };
        assert_eq!(
            en.fixed(LearnerKind::ElasticNet).expect("ok"),
            Some(Hyper::ElasticNet {
                penalty: 0.1,
                l1_ratio: 0.5
            })
        );
        let forest = HyperArgs {
            max_depth: Some(4),
            ..HyperArgs::default()
        };
        assert_eq!(
            forest.fixed(LearnerKind::Forest).expect("ok"),
            Some(Hyper::Forest {
                n_trees: 100,
                max_depth: Some(4),
                min_samples_leaf: 5
            })
        );
    }
}
