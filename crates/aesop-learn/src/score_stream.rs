//! `aesop score` at scale: the judgment set is read topic by topic, a window of topics is
//! scored in parallel, and predictions are written in set order as they come, so memory
//! depends on the largest topic and not on the set. The output goes to a temporary file beside
//! the destination that is renamed into place only when every topic was scored: an error or an
//! interruption never leaves a partial file. At the end a per-system table of mean predictions
//! and a "wrote N predictions" line go to standard error.

use super::builtin::{self, Family};
use super::model_file::ModelFile;
use super::range_tally::{RangeTally, RunRanges};
use super::scoring::{add_ranges, NamedModel, Scorer};
use aesop_corpus::stream::{for_each_topic, StreamStats, Window};
use aesop_corpus::{jsonl, Topic};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

mod systems;
pub use systems::{write_means, SystemMean, SystemTally, SYSTEM_BOOTSTRAP_SAMPLES};

/// `aesop score SET [--model MODEL|builtin:NAME …] [-o PRED.jsonl]`, or with plain text files:
/// `aesop score --documents a.txt b.txt --summary s.txt [--reference r.txt …]`.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "cli", command(group(clap::ArgGroup::new("input").required(true).args(["set", "summary"]))))]
pub struct ScoreArgs {
    /// Judgment set (JSON Lines; `-` reads standard input, a name ending in .gz is read
    /// decompressed); human scores are not needed. Or plain text: --documents FILE… --summary
    /// FILE… [--reference FILE…].
    #[cfg_attr(feature = "cli", arg(conflicts_with_all = ["documents", "summary", "reference"]))]
    pub set: Option<PathBuf>,
    /// Model file written by `aesop train` (`PATH`, or `NAME=PATH` to name it in the output),
    /// or `builtin:NAME` (see `aesop models`); repeat for several. Default: the built-in pyramid, responsiveness and readability models, each in its
    /// reference-based variant for topics with references and `…-noref` for topics without.
    #[cfg_attr(feature = "cli", arg(long))]
    pub model: Vec<std::ffi::OsString>,
    /// Use the built-ins with the neural LM class (`…-lm` variants and `faithfulness`; see
    /// `aesop models`) instead of the classic ones. Needs `aesop models fetch smollm2` once.
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "model"))]
    pub neural: bool,
    /// Plain-text input documents of one topic (UTF-8), instead of a judgment set.
    #[cfg_attr(feature = "cli", arg(long, num_args = 1.., requires = "summary"))]
    pub documents: Vec<PathBuf>,
    /// Plain-text summaries to score (one file each; the system name is the file name); needs
    /// --documents (as the HTTP service, which refuses a topic without documents).
    #[cfg_attr(feature = "cli", arg(long, num_args = 1.., requires = "documents"))]
    pub summary: Vec<PathBuf>,
    /// Plain-text human reference summaries (optional).
    #[cfg_attr(feature = "cli", arg(long, num_args = 1..))]
    pub reference: Vec<PathBuf>,
    /// Predictions to write (JSON Lines; gzip-compressed when named .gz); standard output when
    /// omitted or `-`.
    #[cfg_attr(feature = "cli", arg(short, long))]
    pub output: Option<PathBuf>,
    /// Output format: `jsonl` (one line per summary and model), `csv` (one row per summary,
    /// one column per model, and `in_training`: the columns whose model learned from the
    /// summary) or `tsv` (the CSV with tabs). Default: CSV for an output ending in .csv (or
    /// .csv.gz), TSV for .tsv, else JSON Lines.
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub format: Option<ScoreFormat>,
    /// Also write each system's mean prediction per model, ranked, with a 95% bootstrap
    /// interval over the system's topics and how many topics it was scored on (a system
    /// comparison, as ROUGE-1.5.5's averages): CSV for a .csv name, TSV for .tsv, else JSON
    /// Lines; `-` for standard output when the predictions go to a file.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub systems: Option<PathBuf>,
}

impl ScoreArgs {
    /// Every file this run reads (the output may be none of them).
    pub(crate) fn input_paths(&self) -> Vec<&std::path::Path> {
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

    /// Flags that do not go together, which clap's declarations cannot say: a usage error,
    /// found before anything is read.
    pub fn check_usage(&self) -> Result<()> {
        let to_stdout = |p: Option<&Path>| aesop_core::output::file_or_stdout(p).is_none();
        if self
            .systems
            .as_deref()
            .is_some_and(aesop_core::output::names_stdout)
            && to_stdout(self.output.as_deref())
        {
            bail!(
                "--systems - and the predictions would both go to standard output; name a file \
                 for one of them (-o FILE, or --systems FILE)"
            );
        }
        Ok(())
    }

    /// The predictions' output and, with --systems, the system means', both opened (and told
    /// apart) before any input is read.
    fn create_outputs(&self) -> Result<(Output, Option<Output>)> {
        self.check_usage()?;
        let inputs = self.input_paths();
        let files: Vec<(&str, &Path)> = [
            ("-o", self.output.as_deref()),
            ("--systems", self.systems.as_deref()),
        ]
        .into_iter()
        .filter_map(|(flag, path)| Some((flag, aesop_core::output::file_or_stdout(path)?)))
        .collect();
        aesop_core::output::check_distinct_outputs(&files)?;
        let predictions = Output::create(self.output.as_deref(), &inputs)?;
        let systems = match &self.systems {
            Some(path) => Some(Output::create(Some(path), &inputs)?),
            None => None,
        };
        Ok((predictions, systems))
    }

    /// The one topic built from the plain-text files (when no judgment set is given).
    pub(crate) fn plain_text_topics(&self) -> Result<(Vec<Topic>, String)> {
        let read = |path: &PathBuf| -> Result<(String, String)> {
            let text = aesop_core::input::read_text(path)?;
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            Ok((name, text))
        };
        // An empty document or reference would silently change every score; an empty summary is
        // only a degenerate summary (scored null with a warning naming its file).
        let read_nonempty = |path: &PathBuf, what: &str| -> Result<(String, String)> {
            let (name, text) = read(path)?;
            if text.trim().is_empty() {
                bail!(
                    "{}: empty {what} file (no text; give a file with the {what}'s text)",
                    path.display()
                );
            }
            Ok((name, text))
        };
        let mut topic = Topic::new("input");
        for path in &self.documents {
            let (id, text) = read_nonempty(path, "document")?;
            topic.documents.push(aesop_corpus::Document::new(id, text));
        }
        for path in &self.reference {
            let (id, text) = read_nonempty(path, "reference")?;
            topic
                .references
                .push(aesop_corpus::Reference::new(id, text));
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
                .push(aesop_corpus::Summary::new(system, text));
        }
        Ok((vec![topic], "the given text files".to_string()))
    }
}

/// Output formats of `aesop score`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ScoreFormat {
    /// One line per (summary, model): `{"topic","system","target","score","model"}`.
    Jsonl,
    /// One row per summary, one column per model (per target for the default built-ins; then
    /// `models` names the built-in behind each), and `in_training`: the columns whose model
    /// learned from the summary.
    Csv,
    /// The CSV with tabs between the fields (a `.tsv` name), as spreadsheets and `cut` expect.
    Tsv,
}

impl ScoreFormat {
    /// `--format` when given, else CSV for a `.csv` (or `.csv.gz`) output, TSV for a `.tsv`
    /// and JSON Lines otherwise.
    pub fn resolve(format: Option<ScoreFormat>, output: Option<&Path>) -> ScoreFormat {
        format.unwrap_or_else(
            || match output.and_then(aesop_core::input::format_extension) {
                Some(ext) if ext == "csv" => ScoreFormat::Csv,
                Some(ext) if ext == "tsv" => ScoreFormat::Tsv,
                _ => ScoreFormat::Jsonl,
            },
        )
    }
}

/// What a scoring run wrote.
#[derive(Debug, Clone)]
pub struct ScoreReport {
    pub predictions: usize,
    pub stats: StreamStats,
    /// Per system and output column (model names, or targets for the default built-ins): the
    /// predictions' means.
    pub systems: SystemTally,
}

/// One prediction line.
#[derive(Debug, Serialize)]
struct PredictionLine<'a> {
    topic: &'a str,
    system: &'a str,
    target: &'a str,
    score: f64,
    /// The model's raw output (`score` is it mapped to the target's scale); absent for models
    /// without a calibration.
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<f64>,
    model: Option<&'a str>,
    /// The model learned from this summary (see [`crate::in_sample`]); written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    in_training: bool,
}

/// The models of a run: the named ones, or (no names) the default built-ins in two variants,
/// for topics with references and topics without. Also the library entry point for scoring
/// in-memory topics (the Python package).
pub struct ModelGroups {
    groups: Vec<Vec<NamedModel>>,
    /// The family of default built-ins, when no model was named.
    defaults: Option<Family>,
}

/// One prediction: what one JSON line of `aesop score` holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub topic: String,
    pub system: String,
    pub target: String,
    pub score: f64,
    /// The raw model output when the model maps it to the target's scale (calibrated).
    pub raw: Option<f64>,
    pub model: String,
    /// The model learned from this summary: the prediction is in-sample (see
    /// [`crate::in_sample`]).
    pub in_training: bool,
}

impl ModelGroups {
    /// `builtin:NAME` specs or model file paths; none: the default (classic) built-ins.
    pub fn load(specs: &[impl AsRef<std::ffi::OsStr>]) -> Result<ModelGroups> {
        Self::load_family(specs, None)
    }

    /// As [`ModelGroups::load`]; `family` picks the default built-ins and may only be given
    /// when no model is named.
    pub fn load_family(
        specs: &[impl AsRef<std::ffi::OsStr>],
        family: Option<Family>,
    ) -> Result<ModelGroups> {
        if specs.is_empty() {
            let family = family.unwrap_or_default();
            let group = |with_references: bool| -> Result<Vec<NamedModel>> {
                family
                    .targets()
                    .iter()
                    .map(|t| {
                        NamedModel::from_builtin(builtin::default_of(t, with_references, family)?)
                    })
                    .collect()
            };
            return Ok(ModelGroups {
                groups: vec![group(true)?, group(false)?],
                defaults: Some(family),
            });
        }
        if family.is_some() {
            bail!("--neural picks the default built-ins; it cannot be combined with --model (name the neural built-ins, e.g. --model builtin:readability-lm, instead)");
        }
        NamedModel::check_specs(specs)?;
        let models = specs
            .iter()
            .map(NamedModel::from_spec)
            .collect::<Result<Vec<_>>>()?;
        Ok(ModelGroups {
            groups: vec![models],
            defaults: None,
        })
    }

    /// Build every group's feature classes once, so that what they need (the neural LM's model
    /// file, above all) is loaded now and a missing one is an error here rather than at the first
    /// topic. Long-lived scorers (the Python package's `Scorer`) call it when they are made; the
    /// LM stays loaded for the process, so [`ModelGroups::predict`] does not load it again.
    pub fn prepare(&self) -> Result<()> {
        for group in &self.groups {
            let refs: Vec<&NamedModel> = group.iter().collect();
            Scorer::new(&refs)?;
        }
        Ok(())
    }

    /// Score `topics` (in parallel over topics); predictions in the order `aesop score` writes
    /// them: per topic, per summary, per model. Also the classes that gave no values for some
    /// summaries, which `aesop score` warns about (see [`SKIPPED_SCORES`]), and the models'
    /// features outside their training ranges (see [`RunRanges`]).
    pub fn predict(
        &self,
        topics: &[Topic],
        cancel: &AtomicBool,
    ) -> Result<(
        Vec<Prediction>,
        Vec<aesop_features::run::Skipped>,
        RunRanges,
    )> {
        self.predict_counted(topics, cancel, &AtomicUsize::new(0))
    }

    /// [`ModelGroups::predict`], adding 1 to `done` as each topic is scored, for a caller that
    /// reports progress its own way (the Python package's `progress=`).
    pub fn predict_counted(
        &self,
        topics: &[Topic],
        cancel: &AtomicBool,
        done: &AtomicUsize,
    ) -> Result<(
        Vec<Prediction>,
        Vec<aesop_features::run::Skipped>,
        RunRanges,
    )> {
        use rayon::prelude::*;
        let refs: Vec<Vec<&NamedModel>> = self.groups.iter().map(|g| g.iter().collect()).collect();
        let scorers = refs
            .iter()
            .map(|g| Scorer::new(g))
            .collect::<Result<Vec<_>>>()?;
        let per_topic = topics
            .par_iter()
            .map(|topic| {
                let group = self.pick(topic);
                let scored = scorers[group].score(std::slice::from_ref(topic), false, cancel)?;
                let models = &self.groups[group];
                let mut out = Vec::with_capacity(topic.summaries.len() * models.len());
                for (r, summary) in topic.summaries.iter().enumerate() {
                    for (m, model) in models.iter().enumerate() {
                        out.push(Prediction {
                            topic: topic.topic.clone(),
                            system: summary.system.clone(),
                            target: model.target.clone(),
                            score: scored.scores[m][r],
                            raw: scored.raw_of(m, r),
                            model: model.name.clone(),
                            in_training: scored.in_training_of(m, r),
                        });
                    }
                }
                done.fetch_add(1, Ordering::Relaxed);
                Ok((out, scored.table.skipped, group, scored.outside))
            })
            .collect::<Vec<Result<_>>>();
        let mut all = Vec::new();
        let mut skipped = Vec::new();
        let mut ranges = RunRanges::default();
        for p in per_topic {
            let (predictions, topic_skipped, group, outside) = p?;
            all.extend(predictions);
            aesop_features::run::Skipped::merge(&mut skipped, topic_skipped);
            add_ranges(&refs[group], &outside, &mut ranges);
        }
        Ok((all, skipped, ranges))
    }

    /// One warning per named model file whose scores depend on the rest of the batch (see
    /// [`batch_warnings_of`]).
    pub fn batch_warnings(&self) -> Vec<String> {
        self.groups
            .iter()
            .flatten()
            .flat_map(batch_warnings_of)
            .collect()
    }

    /// The model names, per group (one group, or the reference-based and `-noref` defaults).
    pub fn names(&self) -> Vec<Vec<String>> {
        self.groups
            .iter()
            .map(|g| g.iter().map(|m| m.name.clone()).collect())
            .collect()
    }

    /// (name, target) of the models that score `topic`, in the order of its predictions.
    pub fn models_for(&self, topic: &Topic) -> Vec<(String, String)> {
        self.groups[self.pick(topic)]
            .iter()
            .map(|m| (m.name.clone(), m.target.clone()))
            .collect()
    }

    /// The group that scores `topic`.
    fn pick(&self, topic: &Topic) -> usize {
        usize::from(self.defaults.is_some() && topic.references.is_empty())
    }

    /// Each system's mean per output column, as `aesop score --systems` writes them, from
    /// predictions of these models in any order, and the warnings `score` gives when the
    /// systems were scored on different topics (see [`systems`]).
    pub fn system_means(
        &self,
        predictions: &[Prediction],
        cancel: &AtomicBool,
    ) -> Result<(Vec<SystemMean>, Vec<String>)> {
        system_means(predictions, self.columns(), self.defaults.is_some(), cancel)
    }

    /// Output columns: one per target for the defaults (both variants share them), else one per
    /// model.
    fn columns(&self) -> Vec<String> {
        if let Some(family) = self.defaults {
            family.targets().iter().map(|t| t.to_string()).collect()
        } else {
            self.groups[0].iter().map(|m| m.name.clone()).collect()
        }
    }
}

/// Each system's mean per output column, as `aesop score --systems` writes them, from
/// predictions in any order: `columns` are the default built-ins' targets when `defaults` (a
/// prediction counts under its target, whichever variant made it), else model names. Also the
/// warnings `score` gives when the systems were scored on different topics.
pub fn system_means(
    predictions: &[Prediction],
    columns: Vec<String>,
    defaults: bool,
    cancel: &AtomicBool,
) -> Result<(Vec<SystemMean>, Vec<String>)> {
    let column_of = |p: &Prediction| {
        let key = if defaults { &p.target } else { &p.model };
        columns.iter().position(|c| c == key)
    };
    systems::means_of_predictions(predictions, columns.clone(), defaults, column_of, cancel)
}

/// The predictions for one topic: the group that scored it and, per summary, one score per model.
struct TopicScores {
    group: usize,
    rows: Vec<Vec<f64>>,
    /// Per summary, per model: the raw output of calibrated models.
    raw: Vec<Vec<Option<f64>>>,
    /// Per summary, per model: the model learned from the summary.
    in_training: Vec<Vec<bool>>,
    /// Per summary: why it was not scored (see [`super::degenerate`]).
    degenerate: Vec<Option<super::degenerate::Degenerate>>,
    /// The classes that gave no values for some of its summaries.
    skipped: Vec<aesop_features::run::Skipped>,
    /// Per model: its features outside their training ranges (see [`super::scoring::Scored::outside`]).
    outside: Vec<Option<RangeTally>>,
}

/// Score the set (or the plain-text files) of `args`, streaming; `on_prediction` sees every
/// prediction written, as (model name, score), in output order.
pub fn score_streaming(
    args: &ScoreArgs,
    cancel: &AtomicBool,
    mut on_prediction: impl FnMut(&str, f64),
) -> Result<ScoreReport> {
    let groups = ModelGroups::load_family(&args.model, args.neural.then_some(Family::Neural))?;
    for warning in groups.batch_warnings() {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    let refs: Vec<Vec<&NamedModel>> = groups.groups.iter().map(|g| g.iter().collect()).collect();
    let scorers = refs
        .iter()
        .map(|g| Scorer::new(g))
        .collect::<Result<Vec<_>>>()?;
    let format = ScoreFormat::resolve(args.format, args.output.as_deref());
    let columns = groups.columns();
    let sink_name = aesop_core::output::file_or_stdout(args.output.as_deref()).map_or_else(
        || "standard output".to_string(),
        |p| p.display().to_string(),
    );
    // A file's write errors name it ([`aesop_core::output::OutputFile`]); standard output's do not.
    let writing_predictions = match aesop_core::output::file_or_stdout(args.output.as_deref()) {
        Some(_) => "writing the predictions",
        None => "writing the predictions to standard output",
    };
    let (topics, source): (Box<dyn Iterator<Item = Result<Topic>> + Send>, String) = match &args.set
    {
        Some(set) if aesop_core::input::names_stdin(set) => (
            Box::new(jsonl::open_set(set)?),
            "standard input".to_string(),
        ),
        Some(set) => (Box::new(jsonl::open_set(set)?), set.display().to_string()),
        None => {
            let (topics, source) = args.plain_text_topics()?;
            (Box::new(topics.into_iter().map(Ok)), source)
        }
    };

    // A topic of many summaries is scored in parts when no model looks at the other summaries
    // of a topic: the scores are the same and memory stays flat in the topic's size.
    let split_parts = AtomicUsize::new(0);
    let topics: Box<dyn Iterator<Item = Result<Topic>> + Send> = if groups
        .groups
        .iter()
        .flatten()
        .all(|m| scores_each_summary_alone(&m.model))
    {
        let split_parts = &split_parts;
        Box::new(topics.flat_map(move |topic| match topic {
            Ok(topic) if topic.summaries.len() > TOPIC_PART => {
                let parts = split_topic(topic, TOPIC_PART);
                split_parts.fetch_add(parts.len() - 1, Ordering::Relaxed);
                parts.into_iter().map(Ok).collect::<Vec<_>>()
            }
            other => vec![other],
        }))
    } else {
        topics
    };

    let (mut output, systems_output) = args.create_outputs()?;
    let mut writer =
        PredictionWriter::new(format, &columns, groups.defaults.is_some(), output.writer())?;
    let mut systems = SystemTally::new(
        columns.clone(),
        groups.defaults.is_some(),
        systems_output.is_some(),
    );
    let mut predictions = 0;
    // Degenerate summaries seen, for one warning per kind.
    let mut degenerate = super::degenerate::Tally::default();
    // Topics whose text does not read as English, for one warning per part of a topic.
    let mut languages = aesop_features::language::Tally::default();
    // Classes without values for some summaries: the models scored those from their other
    // features (a model whose features all went missing gives every such summary one score).
    let mut skipped = Vec::new();
    // Features outside the models' training ranges, for one warning per model.
    let mut ranges = RunRanges::default();
    // Summaries the models learned from, for one note per model.
    let mut in_sample = super::in_sample::ScoredTally::default();
    let progress = aesop_core::progress::enabled();
    let stats = for_each_topic(
        topics,
        Window::default(),
        progress.then_some("score"),
        cancel,
        |topic| {
            let group = groups.pick(topic);
            let scored = scorers[group].score(std::slice::from_ref(topic), false, cancel)?;
            Ok(TopicScores {
                group,
                rows: scored.per_summary(|m, r| scored.scores[m][r]),
                raw: scored.per_summary(|m, r| scored.raw_of(m, r)),
                in_training: scored.per_summary(|m, r| scored.in_training_of(m, r)),
                degenerate: scored.degenerate,
                skipped: scored.table.skipped,
                outside: scored.outside,
            })
        },
        |topic, scores| {
            aesop_features::run::Skipped::merge(&mut skipped, scores.skipped);
            add_ranges(&refs[scores.group], &scores.outside, &mut ranges);
            if args.set.is_some() {
                languages.add(topic);
            } else {
                // Plain-text input: name the files.
                languages.add_named(topic, |part| {
                    let paths = match part {
                        aesop_features::language::Part::Documents => &args.documents,
                        aesop_features::language::Part::References => &args.reference,
                        aesop_features::language::Part::Summaries => &args.summary,
                    };
                    paths
                        .first()
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|| format!("topic '{}'", topic.topic))
                });
            }
            let models = &groups.groups[scores.group];
            let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
            for ((((summary, row), raw), in_training), kind) in topic
                .summaries
                .iter()
                .zip(&scores.rows)
                .zip(&scores.raw)
                .zip(&scores.in_training)
                .zip(&scores.degenerate)
            {
                if let Some(kind) = kind {
                    // Plain-text input: the summary's file as given; a set: topic/system.
                    degenerate.add(*kind, || {
                        match args.summary.iter().find(|p| {
                            args.set.is_none()
                                && p.file_name()
                                    .is_some_and(|n| n.to_string_lossy() == summary.system)
                        }) {
                            Some(path) => path.display().to_string(),
                            None => format!("{}/{}", topic.topic, summary.system),
                        }
                    });
                }
                writer
                    .write(topic, &summary.system, models, row, raw, in_training)
                    .context(writing_predictions)?;
                systems.add(&topic.topic, &summary.system, &names, row);
                for ((model, &score), &learned) in models.iter().zip(row).zip(in_training) {
                    on_prediction(&model.name, score);
                    in_sample.add(&model.name, learned);
                    predictions += 1;
                }
            }
            Ok(())
        },
    )
    .with_context(|| format!("scoring {source}"))?;
    let mut stats = stats;
    stats.topics -= split_parts.load(Ordering::Relaxed);
    writer.finish().context(writing_predictions)?;
    match systems_output {
        Some(mut systems_output) => {
            let means = systems.means(cancel)?;
            let path = args.systems.as_deref().unwrap_or(Path::new("-"));
            let format = ScoreFormat::resolve(None, aesop_core::output::file_or_stdout(Some(path)));
            systems::write_means(
                &means,
                format,
                groups.defaults.is_some(),
                "model",
                &mut *systems_output.writer(),
            )
            .context(match aesop_core::output::file_or_stdout(Some(path)) {
                Some(_) => "writing the system means",
                None => "writing the system means to standard output",
            })?;
            Output::commit_all(output, systems_output)?;
        }
        None => output.commit()?,
    }
    let report = ScoreReport {
        predictions,
        stats,
        systems,
    };
    for warning in degenerate.warnings("null") {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    for class in &skipped {
        aesop_core::eprintln_quiet!("warning: {}", skipped_warning(class));
    }
    for warning in languages.warnings() {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    for warning in ranges.warnings() {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    for note in in_sample.notes() {
        aesop_core::eprintln_quiet!("note: {note}");
    }
    aesop_core::eprint_quiet!("{}", report.systems.table(40));
    for warning in report.systems.coverage_warnings() {
        aesop_core::eprintln_quiet!("warning: {warning}");
    }
    // Two significant digits at least: the LM scores under one summary a second on a CPU,
    // which `{:.0}` showed as 0.
    let rate = report.stats.summaries_per_second();
    let rate = if rate < 10.0 {
        format!("{rate:.2}")
    } else {
        format!("{rate:.0}")
    };
    aesop_core::eprintln_quiet!(
        "wrote {} for {} ({}, {rate} summaries/s) to {sink_name}",
        aesop_core::counted(report.predictions, "prediction", "predictions"),
        aesop_core::counted(report.stats.summaries, "summary", "summaries"),
        aesop_core::counted(report.stats.topics, "topic", "topics"),
    );
    if let Some(path) = aesop_core::output::file_or_stdout(args.systems.as_deref()) {
        aesop_core::eprintln_quiet!(
            "wrote the means of {} to {}",
            aesop_core::counted(report.systems.system_count(), "system", "systems"),
            path.display()
        );
    }
    Ok(report)
}

/// The warnings for a model file whose scores depend on the rest of the batch: it uses a
/// batch-dependent feature class (`consensus`) or normalizes features within each topic. None
/// for the built-ins, which use neither (their cards say so). `aesop score` and the HTTP
/// service both say these words.
pub fn batch_warnings_of(m: &NamedModel) -> Vec<String> {
    let mut out = Vec::new();
    if m.source.starts_with("builtin:") {
        return out;
    }
    let batch: Vec<&str> = m
        .model
        .classes
        .iter()
        .map(String::as_str)
        .filter(|c| aesop_features::registry::is_batch_dependent(c))
        .collect();
    if !batch.is_empty() {
        out.push(format!(
            "model {} uses {}: a summary's score depends on the other summaries of its topic in this batch",
            m.name,
            batch.join(", ")
        ));
    }
    if m.model.transfer.normalization.batch_dependent() {
        out.push(format!(
            "model {} normalizes features within each topic: a summary's score depends on the other summaries of its topic in this batch",
            m.name
        ));
    }
    out
}

/// The warning for a class that gave no values for some summaries, as `aesop score` and the
/// HTTP service say it.
pub fn skipped_warning(class: &aesop_features::run::Skipped) -> String {
    format!("{}; {SKIPPED_SCORES}", class.note())
}

/// What a class without values means for the scores (after [`aesop_features::run::Skipped::note`]).
pub const SKIPPED_SCORES: &str =
    "the models using it scored those summaries as if its features were at their training average";

/// Summaries per part when a large topic is scored in parts (see [`score_streaming`]).
const TOPIC_PART: usize = 512;

/// Whether `model` scores a summary from that summary (and its topic's documents and references)
/// alone: no batch-dependent feature class and no within-topic normalization.
pub fn scores_each_summary_alone(model: &ModelFile) -> bool {
    !model.transfer.normalization.batch_dependent()
        && !model
            .classes
            .iter()
            .any(|c| aesop_features::registry::is_batch_dependent(c))
}

/// `topic` as topics of at most `part` summaries each, every one with the topic's id,
/// documents and references.
fn split_topic(mut topic: Topic, part: usize) -> Vec<Topic> {
    let mut summaries = std::mem::take(&mut topic.summaries).into_iter().peekable();
    let mut parts = Vec::new();
    while summaries.peek().is_some() {
        let mut piece = topic.clone();
        // Collected afresh, so every part owns only its own summaries' memory.
        piece.summaries = summaries.by_ref().take(part.max(1)).collect();
        parts.push(piece);
    }
    parts
}

/// Where predictions go: standard output, or an [`aesop_core::output::OutputFile`] that
/// [`Output::commit`] renames into place (dropped uncommitted, it is deleted; a device or pipe
/// it writes in place).
enum Output {
    Stdout,
    File(aesop_core::output::OutputFile),
}

impl Output {
    fn create(path: Option<&Path>, inputs: &[&Path]) -> Result<Output> {
        let Some(path) = aesop_core::output::file_or_stdout(path) else {
            return Ok(Output::Stdout);
        };
        Ok(Output::File(aesop_core::output::OutputFile::create(
            path, inputs,
        )?))
    }

    fn writer(&mut self) -> Box<dyn Write + '_> {
        match self {
            Output::Stdout => Box::new(BufWriter::new(std::io::stdout().lock())),
            Output::File(file) => Box::new(BufWriter::with_capacity(1 << 16, file)),
        }
    }

    fn commit(self) -> Result<()> {
        match self {
            Output::Stdout => Ok(()),
            Output::File(file) => file.commit(),
        }
    }

    /// Commit both outputs of a run; two files are committed together
    /// ([`aesop_core::output::OutputFile::commit_all`]), so a run writes both or neither.
    fn commit_all(a: Output, b: Output) -> Result<()> {
        match (a, b) {
            (Output::File(a), Output::File(b)) => {
                aesop_core::output::OutputFile::commit_all(vec![a, b])
            }
            (a, b) => {
                a.commit()?;
                b.commit()
            }
        }
    }
}

/// Writes predictions as JSON Lines or CSV (comma- or tab-separated).
enum PredictionWriter<'w> {
    Jsonl(Box<dyn Write + 'w>),
    Csv {
        w: Box<csv::Writer<Box<dyn Write + 'w>>>,
        /// The default built-ins: a column names the variant used for the row.
        models_column: bool,
        /// The prediction columns' names, for the last column: those whose model learned from
        /// the row's summary (`in_training`, as JSON Lines mark each such line).
        columns: Vec<String>,
    },
}

impl<'w> PredictionWriter<'w> {
    fn new(
        format: ScoreFormat,
        columns: &[String],
        defaults: bool,
        out: Box<dyn Write + 'w>,
    ) -> Result<PredictionWriter<'w>> {
        Ok(match format {
            ScoreFormat::Jsonl => PredictionWriter::Jsonl(out),
            ScoreFormat::Csv | ScoreFormat::Tsv => {
                let mut w = aesop_features::run::csv_writer(out, format == ScoreFormat::Tsv);
                let mut header = vec!["topic", "system"];
                header.extend(columns.iter().map(String::as_str));
                if defaults {
                    header.push("models");
                }
                header.push("in_training");
                w.write_record(&header)?;
                PredictionWriter::Csv {
                    w: Box::new(w),
                    models_column: defaults,
                    columns: columns.to_vec(),
                }
            }
        })
    }

    fn write(
        &mut self,
        topic: &Topic,
        system: &str,
        models: &[NamedModel],
        scores: &[f64],
        raw: &[Option<f64>],
        in_training: &[bool],
    ) -> Result<()> {
        match self {
            PredictionWriter::Jsonl(out) => {
                for (((model, &score), &raw), &in_training) in
                    models.iter().zip(scores).zip(raw).zip(in_training)
                {
                    let line = PredictionLine {
                        topic: &topic.topic,
                        system,
                        target: &model.target,
                        score,
                        raw,
                        model: Some(&model.name),
                        in_training,
                    };
                    serde_json::to_writer(&mut *out, &line)?;
                    out.write_all(b"\n")?;
                }
            }
            PredictionWriter::Csv {
                w,
                models_column,
                columns,
            } => {
                let mut row = vec![topic.topic.clone(), system.to_string()];
                row.extend(scores.iter().map(|s| {
                    if s.is_finite() {
                        s.to_string()
                    } else {
                        String::new()
                    }
                }));
                if *models_column {
                    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
                    row.push(names.join(" "));
                }
                let learned: Vec<&str> = columns
                    .iter()
                    .zip(in_training)
                    .filter(|(_, &learned)| learned)
                    .map(|(column, _)| column.as_str())
                    .collect();
                row.push(learned.join(" "));
                w.write_record(&row)?;
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        match self {
            PredictionWriter::Jsonl(mut out) => out.flush()?,
            PredictionWriter::Csv { mut w, .. } => w.flush()?,
        }
        Ok(())
    }
}
