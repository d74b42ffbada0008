//! The compiled half of the Python package `aesop` (module `aesop._aesop`). It stays thin: the
//! judgment-set parsing, model loading and scoring are the library's own (the code `aesop
//! score` runs), so Python results equal the CLI's bit for bit. Inputs arrive as JSON strings
//! (the Python side serializes topic dicts), errors become `ValueError`s with the CLI's
//! messages, and the GIL is released while scoring.

use aesop::corpus::jsonl::topic_from_value;
use aesop::corpus::{Document, Reference, Summary, Topic};
use aesop::features::{build_classes, run::extract_features_counted, FeatureOptions};
use aesop::learn::builtin::Family;
use aesop::learn::score_stream::{ModelGroups, Prediction};
use aesop::progress::Counter;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn value_error(e: anyhow::Error) -> PyErr {
    PyValueError::new_err(format!("{e:#}"))
}

/// The worker threads of this process's calls: a rayon pool of the package's own, not rayon's
/// global one, started on the first call and again when `RAYON_NUM_THREADS` changes (checked on
/// every call, so a bad value is a clear error, not an abort).
///
/// Why not the global pool: a process forked after a call (`multiprocessing`'s default start
/// method on Linux, a `ProcessPoolExecutor`, a web server's pre-fork workers) inherits the pool's
/// bookkeeping but not its threads, and work sent to it waited forever. A child therefore
/// starts a pool of its own; the parent's, whose threads are not there to be stopped, is left
/// alone. Another library's use of the global pool no longer shares (or sizes) aesop's.
fn worker_pool() -> PyResult<Arc<rayon::ThreadPool>> {
    type Slot = Option<(u32, Option<usize>, Arc<rayon::ThreadPool>)>;
    static POOL: Mutex<Slot> = Mutex::new(None);
    let threads = aesop::threads::requested_threads().map_err(value_error)?;
    let process = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((owner, size, pool)) = slot.as_ref() {
        if *owner == process && *size == threads {
            return Ok(Arc::clone(pool));
        }
    }
    let mut builder = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("aesop-worker-{i}"))
        // The work ran on Python's thread before; give it a main thread's stack.
        .stack_size(16 << 20);
    if let Some(threads) = threads {
        builder = builder.num_threads(threads);
    }
    let pool = Arc::new(builder.build().map_err(|e| {
        PyRuntimeError::new_err(format!(
            "aesop: cannot start the worker threads ({} is {threads:?}): {e}",
            aesop::threads::THREADS_VAR
        ))
    })?);
    if let Some(previous) = slot.replace((process, threads, Arc::clone(&pool))) {
        if previous.0 != process {
            // Inherited through fork: dropping it would signal threads that do not exist here.
            std::mem::forget(previous);
        }
    }
    Ok(pool)
}

/// Run `work` on [`worker_pool`] while the calling thread waits without the GIL and, every
/// 50 ms, lets Python handle signals: Ctrl-C sets the cancel flag, the work stops at its next
/// checkpoint (a topic, a feature class, an LM pass), and `KeyboardInterrupt` is raised, as the
/// CLI stops with exit 130 (the work ran to the end before, however long, and its result was
/// thrown away). Python handles signals on its main thread only; called from another thread,
/// this just waits. The work counts what it has finished (topics, a table's columns) in its
/// second argument, and sets the total there when only it knows it; `progress` (the package's
/// `progress=`) is told `(done, total)` when the count has changed, and at the end (total 0:
/// the caller knows it); an exception raised there stops the work as Ctrl-C does, and is raised.
fn interruptible<T: Send>(
    py: Python<'_>,
    progress: Option<Bound<'_, PyAny>>,
    work: impl FnOnce(&AtomicBool, &Counter) -> anyhow::Result<T> + Send,
) -> PyResult<T> {
    let pool = worker_pool()?;
    let (cancel, counter) = (AtomicBool::new(false), Counter::default());
    let (cancel, counter) = (&cancel, &counter);
    let mut told = 0;
    let mut tell = || -> PyResult<()> {
        let count = counter.done.load(Ordering::Relaxed);
        match &progress {
            Some(callback) if count != told => {
                told = count;
                let total = counter.total.load(Ordering::Relaxed);
                callback.call1((count, total)).map(drop)
            }
            _ => Ok(()),
        }
    };
    std::thread::scope(|scope| {
        let (tx, mut rx) = std::sync::mpsc::channel();
        // This thread only hands the work to the pool (`install` runs it on a worker there)
        // and reports back, so Python's thread stays free to take Ctrl-C.
        std::thread::Builder::new()
            .spawn_scoped(scope, move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let result = pool.install(|| work(cancel, counter));
                    // Nothing of the call left running when it returns: see `Scorer::new`.
                    aesop::nlp::Pipeline::finish_background_decoding();
                    result
                }));
                let _ = tx.send(result);
            })
            .map_err(|e| PyRuntimeError::new_err(format!("starting a thread: {e}")))?;
        let mut interrupt: Option<PyErr> = None;
        loop {
            let (back, received) = py.allow_threads(move || {
                let received = rx.recv_timeout(Duration::from_millis(50));
                (rx, received)
            });
            rx = back;
            match received {
                Ok(result) => {
                    if let Some(e) = interrupt {
                        return Err(e);
                    }
                    return match result {
                        Ok(Ok(value)) => tell().map(|()| value),
                        Ok(Err(e)) => Err(value_error(e)),
                        Err(_) => Err(PyRuntimeError::new_err(
                            "aesop: internal error (a panic while scoring); please report it",
                        )),
                    };
                }
                Err(RecvTimeoutError::Timeout) => {
                    if interrupt.is_none() {
                        let checked = py.check_signals().and_then(|()| tell());
                        if let Err(e) = checked {
                            cancel.store(true, Ordering::SeqCst);
                            interrupt = Some(e);
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "aesop: the scoring thread ended without a result",
                    ))
                }
            }
        }
    })
}

/// `pyramid` and `builtin:pyramid` name the built-in; anything else is a model file path.
fn model_spec(name: &str) -> anyhow::Result<String> {
    if name.starts_with("builtin:") {
        return Ok(name.to_string());
    }
    let (label, path) =
        aesop::learn::scoring::split_model_spec(name).map_err(|e| anyhow::anyhow!(e))?;
    let builtin = aesop::learn::builtin::find(name).is_ok();
    if path.exists() {
        // A file named as a built-in would replace it unsaid (audit stop 54).
        if builtin {
            anyhow::bail!(
                "{name} is both a built-in model and a file in the current directory: write \
                 builtin:{name} for the built-in, or ./{name} for the file"
            );
        }
        // Absolute, so that a pickled Scorer loads the same file from another directory.
        let absolute = std::path::absolute(&path)?;
        return Ok(match label {
            Some(label) => format!("{label}={}", absolute.display()),
            None => absolute.display().to_string(),
        });
    }
    if builtin {
        return Ok(format!("builtin:{name}"));
    }
    anyhow::bail!(
        "{name}: no such model file, and no built-in model of that name (built-ins: {})",
        aesop::learn::builtin::BUILTINS
            .iter()
            .map(|b| b.name)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Topic dicts (as JSON text) to topics, with the judgment-set reader's checks and messages.
fn parse_topics(topics: &[String]) -> anyhow::Result<Vec<Topic>> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(topics.len());
    for (i, text) in topics.iter().enumerate() {
        // The set reader's parser: a bare NaN (a missing human score in a DataFrame, written
        // by `json.dumps`) is read as missing, as in a judgment-set file.
        let value = aesop::corpus::jsonl::parse_json(text)
            .map_err(|e| anyhow::anyhow!("topic {i}: not a judgment-set topic: {e}"))?;
        let topic = topic_from_value(value).map_err(|e| anyhow::anyhow!("topic {i}: {e}"))?;
        if !seen.insert(topic.topic.clone()) {
            anyhow::bail!("topic {i}: topic: duplicate topic id {:?}", topic.topic);
        }
        out.push(topic);
    }
    Ok(out)
}

/// (topic, system, target, score, raw, has_raw, model, in_training): one line of `aesop
/// score`. `score` and `raw` are `None` for a summary the model could not score (the CLI's
/// `null`); `has_raw` says whether the line has a `raw` field at all (models with a
/// calibration); `in_training` whether the model learned from the summary.
type PredictionTuple = (
    String,
    String,
    String,
    Option<f64>,
    Option<f64>,
    bool,
    String,
    bool,
);

/// (model, target, score per summary): one model's scores of `score_texts`.
type ModelScores = (String, String, Vec<Option<f64>>);

/// A prediction as `Scorer.system_means` takes it: (topic, system, target, score, model).
type PredictionRow = (String, String, String, Option<f64>, String);

/// One row of `aesop score --systems`: (model, rank, system, mean, low, high, topics, scored,
/// models).
type SystemMeanTuple = (
    String,
    Option<usize>,
    String,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    usize,
    usize,
    Option<String>,
);

/// The warnings `aesop score` prints for classes left without values on some summaries.
fn skipped_warnings(skipped: &[aesop::features::run::Skipped]) -> Vec<String> {
    skipped
        .iter()
        .map(|class| {
            format!(
                "{}; {}",
                class.note(),
                aesop::learn::score_stream::SKIPPED_SCORES
            )
        })
        .collect()
}

/// The warnings `aesop score` prints for the degenerate summaries of `topics` (one per kind,
/// naming the first as `name` gives it), worded for Python's `None`.
fn degenerate_warnings<'t>(
    summaries: impl Iterator<Item = (&'t Topic, usize)>,
    name: impl Fn(&Topic, usize) -> String,
) -> Vec<String> {
    let mut tally = aesop::learn::degenerate::Tally::default();
    for (topic, i) in summaries {
        if let Some(kind) = aesop::learn::degenerate::detect(&topic.summaries[i].text) {
            tally.add(kind, || name(topic, i));
        }
    }
    tally.warnings("None")
}

/// Every (topic, summary index) of `topics`.
fn all_summaries(topics: &[Topic]) -> impl Iterator<Item = (&Topic, usize)> {
    topics
        .iter()
        .flat_map(|t| (0..t.summaries.len()).map(move |i| (t, i)))
}

/// NaN (not scored) as `None`, as the CLI writes `null`.
fn finite_or_none(v: f64) -> Option<f64> {
    (!v.is_nan()).then_some(v)
}

/// Models loaded once; scores topics. Python wraps it as `aesop.Scorer`.
#[pyclass(frozen, module = "aesop._aesop")]
struct Scorer {
    specs: Vec<String>,
    /// The neural defaults (`aesop score --neural`) instead of the classic ones.
    neural: bool,
    groups: ModelGroups,
}

#[pymethods]
impl Scorer {
    #[new]
    #[pyo3(signature = (models=None, neural=false))]
    fn new(py: Python<'_>, models: Option<Vec<String>>, neural: bool) -> PyResult<Scorer> {
        let specs: Vec<String> = models
            .unwrap_or_default()
            .iter()
            .map(|m| model_spec(m))
            .collect::<anyhow::Result<_>>()
            .map_err(value_error)?;
        if neural && !specs.is_empty() {
            return Err(PyValueError::new_err(
                "neural=True picks the default built-ins; it cannot be combined with models= \
                 (name the neural built-ins instead, e.g. models=[\"readability-lm\"])",
            ));
        }
        let groups = py
            .allow_threads(|| {
                let groups = ModelGroups::load_family(&specs, neural.then_some(Family::Neural))?;
                // Models are loaded once, here: a missing LM is an error of the constructor.
                groups.prepare()?;
                // And the tagger and parser, which the classes started decoding on a thread
                // of their own: a process forked before that thread ended (a `Pool` made right
                // after the `Scorer`) waited forever for it at its first parse.
                aesop::nlp::Pipeline::finish_background_decoding();
                anyhow::Ok(groups)
            })
            .map_err(value_error)?;
        Ok(Scorer {
            specs,
            neural,
            groups,
        })
    }

    /// Pickles as the model names and the neural choice: the other side loads them again.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyType>, (Option<Vec<String>>, bool))> {
        let scorer = slf.get();
        let specs = &scorer.specs;
        Ok((
            slf.get_type(),
            ((!specs.is_empty()).then(|| specs.clone()), scorer.neural),
        ))
    }

    /// Whether the neural defaults were asked for.
    #[getter]
    fn neural(&self) -> bool {
        self.neural
    }

    /// The model specs given (empty: the default built-ins).
    #[getter]
    fn specs(&self) -> Vec<String> {
        self.specs.clone()
    }

    /// Model names per group: one group, or the reference-based and `-noref` defaults.
    #[getter]
    fn model_names(&self) -> Vec<Vec<String>> {
        self.groups.names()
    }

    /// The CLI's warnings about models whose scores depend on the rest of the batch.
    #[getter]
    fn batch_warnings(&self) -> Vec<String> {
        self.groups.batch_warnings()
    }

    /// Score topics given as JSON text (one judgment-set line each). Returns
    /// [`PredictionTuple`]s in the CLI's output order (`raw`: the model's output before
    /// calibration) and the CLI's warnings about unscored summaries.
    #[pyo3(signature = (topics, progress=None))]
    fn score_json(
        &self,
        py: Python<'_>,
        topics: Vec<String>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<(Vec<PredictionTuple>, Vec<String>)> {
        let (predictions, warnings) = interruptible(py, progress, |cancel, counter| {
            let topics = parse_topics(&topics)?;
            let mut warnings = degenerate_warnings(all_summaries(&topics), |topic, i| {
                format!("{}/{}", topic.topic, topic.summaries[i].system)
            });
            let (predictions, skipped, ranges) =
                self.groups
                    .predict_counted(&topics, cancel, &counter.done)?;
            warnings.extend(skipped_warnings(&skipped));
            warnings.extend(aesop::features::language::warnings(&topics));
            warnings.extend(ranges.warnings());
            Ok((predictions, warnings))
        })?;
        let rows = predictions
            .into_iter()
            .map(|p| {
                let has_raw = p.raw.is_some();
                let raw = p.raw.and_then(finite_or_none);
                let score = finite_or_none(p.score);
                (
                    p.topic,
                    p.system,
                    p.target,
                    score,
                    raw,
                    has_raw,
                    p.model,
                    p.in_training,
                )
            })
            .collect();
        Ok((rows, warnings))
    }

    /// Each system's mean per output column from prediction rows in any order, as `aesop score
    /// --systems` writes them, and the warning `aesop score` gives when the systems were scored
    /// on different topics.
    fn system_means(
        &self,
        py: Python<'_>,
        rows: Vec<PredictionRow>,
    ) -> PyResult<(Vec<SystemMeanTuple>, Vec<String>)> {
        let (means, warnings) = interruptible(py, None, |cancel, _| {
            let predictions: Vec<Prediction> = rows
                .into_iter()
                .map(|(topic, system, target, score, model)| Prediction {
                    topic,
                    system,
                    target,
                    score: score.unwrap_or(f64::NAN),
                    raw: None,
                    model,
                    in_training: false,
                })
                .collect();
            self.groups.system_means(&predictions, cancel)
        })?;
        let means = means
            .into_iter()
            .map(|m| {
                (
                    m.model, m.rank, m.system, m.mean, m.low, m.high, m.topics, m.scored, m.models,
                )
            })
            .collect();
        Ok((means, warnings))
    }

    /// Score summaries of one topic; returns (model, target, scores) per model and the CLI's
    /// warnings about unscored summaries (named `summaries[i]`).
    #[pyo3(signature = (summaries, documents, references=None))]
    fn score_texts(
        &self,
        py: Python<'_>,
        summaries: Vec<String>,
        documents: Vec<String>,
        references: Option<Vec<String>>,
    ) -> PyResult<(Vec<ModelScores>, Vec<String>)> {
        let mut topic = Topic::new("input");
        for (i, d) in documents.into_iter().enumerate() {
            topic.documents.push(Document::new(format!("d{i}"), d));
        }
        for (i, r) in references.unwrap_or_default().into_iter().enumerate() {
            topic.references.push(Reference::new(format!("r{i}"), r));
        }
        let n = summaries.len();
        for (i, s) in summaries.into_iter().enumerate() {
            topic.summaries.push(Summary::new(format!("{i}"), s));
        }
        let (predictions, skipped, ranges) = interruptible(py, None, |cancel, _| {
            self.groups.predict(std::slice::from_ref(&topic), cancel)
        })?;
        let mut warnings = degenerate_warnings((0..n).map(|i| (&topic, i)), |_, i| {
            format!("summaries[{i}]")
        });
        warnings.extend(skipped_warnings(&skipped));
        // The topic is this call's texts, not a topic named `input`.
        let mut languages = aesop::features::language::Tally::default();
        languages.add_named(&topic, |_| "this call".to_string());
        warnings.extend(languages.warnings());
        warnings.extend(ranges.warnings());
        // Per summary, per model: regroup per model (every model listed, with no summaries too).
        let mut out: Vec<ModelScores> = self
            .groups
            .models_for(&topic)
            .into_iter()
            .map(|(model, target)| (model, target, Vec::with_capacity(n)))
            .collect();
        let models = out.len().max(1);
        for (i, p) in predictions.into_iter().enumerate() {
            out[i % models].2.push(finite_or_none(p.score));
        }
        Ok((out, warnings))
    }
}

/// Feature columns for topics given as JSON text: (names, topics, systems, rows of values) and
/// the notes `aesop features` prints for classes left without values on some summaries.
/// `options`: (name, value) pairs of `aesop features`' flags (`FeatureOptions::from_named`).
#[pyfunction]
#[allow(clippy::type_complexity)]
#[pyo3(signature = (topics, classes=None, options=None, progress=None))]
fn features_json(
    py: Python<'_>,
    topics: Vec<String>,
    classes: Option<Vec<String>>,
    options: Option<Vec<(String, String)>>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<(
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<Vec<Option<f64>>>,
    Vec<String>,
)> {
    let (table, languages) = interruptible(py, progress, |cancel, counter| {
        let options = FeatureOptions::from_named(&options.unwrap_or_default())?;
        let topics = parse_topics(&topics)?;
        let classes = classes.unwrap_or_default();
        aesop::features::check_options_apply(&options, &classes, None)?;
        let built = build_classes(&classes, &options)?;
        let table = extract_features_counted(&topics, &built, false, cancel, &counter.done)?;
        Ok((table, aesop::features::language::warnings(&topics)))
    })?;
    let mut topic_col = Vec::with_capacity(table.records.len());
    let mut system_col = Vec::with_capacity(table.records.len());
    let mut rows = Vec::with_capacity(table.records.len());
    for r in table.records {
        topic_col.push(r.topic);
        system_col.push(r.system);
        rows.push(r.values);
    }
    // As `aesop features` notes them; only a class's notes concern values left empty.
    let notes = table
        .skipped
        .iter()
        .map(|s| format!("{}; those values are None", s.note()))
        .chain(table.idle_options.notes())
        .chain(languages)
        .collect();
    Ok((table.names, topic_col, system_col, rows, notes))
}

/// A message of `aesop evaluate`'s code with its flags named as `aesop.evaluate`'s keywords
/// (`--bootstrap` → `bootstrap`, `--features X` → `features=X`).
fn as_evaluate_keywords(e: anyhow::Error) -> anyhow::Error {
    anyhow::anyhow!(format!("{e:#}")
        .replace("with --features", "with features=")
        .replace("--features ", "features=")
        .replace("--bootstrap", "bootstrap")
        .replace("--alpha", "alpha")
        .replace("--length-tolerance", "length_tolerance"))
}

/// The statistics options of `aesop.evaluate`'s keywords (the defaults of `aesop evaluate`
/// where `alpha` or `length_tolerance` is not given), checked as the CLI checks its flags, the
/// keywords named in messages.
fn statistics_options(
    bootstrap: usize,
    resample: &str,
    seed: u64,
    alpha: Option<f64>,
    length_tolerance: Option<f64>,
) -> PyResult<aesop::eval::report::StatisticsOptions> {
    use aesop::eval::report::StatisticsOptions;
    let defaults = StatisticsOptions::default();
    let options = StatisticsOptions {
        bootstrap,
        resample: resample.parse().map_err(value_error)?,
        seed,
        alpha: alpha.unwrap_or(defaults.alpha),
        length_tolerance: length_tolerance.unwrap_or(defaults.length_tolerance),
    };
    options
        .check()
        .map_err(as_evaluate_keywords)
        .map_err(value_error)?;
    Ok(options)
}

/// `aesop.evaluate`: prediction records (or, with `feature`, feature records), each as JSON
/// text, judged against the human scores `target` of topics given as JSON text, by the code of
/// `aesop evaluate`, and compared with the records `compare` as its `--compare` does. Returns the report as `aesop evaluate --json` writes it (JSON text; no
/// `inputs`, as no file was read), the text the CLI prints, and the report's warnings.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (records, topics, target, feature=None, model=None, predicted=None,
    set=None, compare=None, compare_feature=None, compare_model=None,
    bootstrap=1000, resample="both", seed=1, alpha=0.05, length_tolerance=None))]
fn evaluate_json(
    py: Python<'_>,
    records: Vec<String>,
    topics: Vec<String>,
    target: String,
    feature: Option<String>,
    model: Option<String>,
    predicted: Option<String>,
    set: Option<String>,
    compare: Option<Vec<String>>,
    compare_feature: Option<String>,
    compare_model: Option<String>,
    bootstrap: usize,
    resample: &str,
    seed: u64,
    alpha: f64,
    length_tolerance: Option<f64>,
) -> PyResult<(String, String, Vec<String>)> {
    use aesop::eval::report::{
        add_comparison, compare_column, human_scores, metric_of_records,
        prediction_models_of_records, records_hold_predictions, report_of,
        table_prediction_models_of_records, Keywords,
    };
    use aesop::learn::in_sample::{merge_models, warnings_for, Judged};
    let options = statistics_options(bootstrap, resample, seed, Some(alpha), length_tolerance)?;
    let report = interruptible(py, None, |cancel, _| {
        let topics = parse_topics(&topics)?;
        let human = human_scores(&topics, &target, "topics")?;
        let predicted = predicted.as_deref().unwrap_or(&target);
        let name = if feature.is_some() {
            "features"
        } else {
            "predictions"
        };
        let mut metric = metric_of_records(
            name,
            &records,
            predicted,
            feature.as_deref(),
            model.as_deref(),
            set.as_deref(),
            Keywords::METRIC,
        )?;
        if predicted != target && feature.is_none() {
            metric.label = format!("{} [predicts {predicted}]", metric.label);
        }
        let mut report = report_of(&metric, &human, "topics", &target, &options, cancel)?;
        // A model judged on summaries it learned from, as `aesop evaluate` warns: the
        // predictions' models (and the compared rows'), from the rows' `in_training` marks and,
        // for a built-in, matched on the summaries' identities.
        // A column of `aesop score`'s table (read by pandas) as a feature: from its
        // `in_training` and `models` columns.
        let models_of = |records: &[String], column: Option<&str>| match column {
            Some(column) => table_prediction_models_of_records(records, column).unwrap_or_default(),
            None => prediction_models_of_records(records, predicted),
        };
        let mut models = models_of(&records, feature.as_deref());
        if let Some(compare) = &compare {
            merge_models(
                &mut models,
                models_of(
                    compare,
                    compare_column(
                        compare_feature.as_deref(),
                        feature.as_deref(),
                        records_hold_predictions(compare),
                    ),
                ),
            );
        }
        let judged = Judged::of_topics("topics", &topics, &target);
        report.warnings.splice(0..0, warnings_for(&models, &judged));
        if let Some(compare) = &compare {
            let column = compare_column(
                compare_feature.as_deref(),
                feature.as_deref(),
                records_hold_predictions(compare),
            );
            let other = metric_of_records(
                "compare",
                compare,
                predicted,
                column,
                compare_model.as_deref(),
                set.as_deref(),
                Keywords::COMPARE,
            )?;
            add_comparison(
                &mut report,
                &metric,
                &other,
                &human,
                "topics",
                &options,
                cancel,
            )?;
        }
        Ok(report)
    })?;
    let json = serde_json::to_string(&report).map_err(|e| value_error(e.into()))?;
    let text = aesop::eval::report::render_text(&report);
    Ok((json, text, report.warnings))
}

/// One set of `feature_table_json` as Python passes it: its name, its feature records (JSON
/// texts) and their name in messages, its topics (JSON texts) and theirs, the column judged.
type RecordSetTexts = (String, String, Vec<String>, String, Vec<String>, String);

/// `aesop.evaluate(…, features=PATTERNS, also=…)`: for each set (its name, its feature records
/// as JSON texts and their name in messages, its topics as JSON texts and their name, the
/// column judged), the columns `patterns` choose (names or prefixes ending in `*`) judged
/// against the human scores and ranked, then, with several sets, the columns across them: by
/// the code of `aesop evaluate --features … --also …`. Returns the report as `--json` writes it
/// (JSON text), the text the CLI prints, and no warnings (the tables have none; the tuple is
/// `evaluate_json`'s).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (sets, patterns, bootstrap=1000, resample="both", seed=1,
    length_tolerance=None, progress=None))]
fn feature_table_json(
    py: Python<'_>,
    sets: Vec<RecordSetTexts>,
    patterns: Vec<String>,
    bootstrap: usize,
    resample: &str,
    seed: u64,
    length_tolerance: Option<f64>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<(String, String, Vec<String>)> {
    use aesop::eval::report::{
        feature_tables_of_records, human_scores, tables_json, tables_text, RecordSet,
    };
    let options = statistics_options(bootstrap, resample, seed, None, length_tolerance)?;
    let (json, text, warnings) = interruptible(py, progress, |cancel, counter| {
        let mut humans = Vec::with_capacity(sets.len());
        for (_, _, _, topics_name, topics, target) in &sets {
            humans.push(human_scores(&parse_topics(topics)?, target, topics_name)?);
        }
        let record_sets: Vec<RecordSet> = sets
            .iter()
            .zip(&humans)
            .map(
                |((name, records_name, records, topics_name, topics, target), human)| RecordSet {
                    name,
                    records_name,
                    records,
                    human,
                    human_name: topics_name,
                    target,
                    corpus: aesop::hash::content_hash_of(topics.join("\n").as_bytes()),
                },
            )
            .collect();
        let (tables, across) =
            feature_tables_of_records(&record_sets, &patterns, &options, cancel, Some(counter))
                .map_err(as_evaluate_keywords)?;
        let warnings: Vec<String> = tables
            .iter()
            .flat_map(|table| table.warnings.iter().cloned())
            .collect();
        Ok((
            tables_json(&tables, across.as_ref())?,
            tables_text(&tables, across.as_ref()),
            warnings,
        ))
    })?;
    Ok((json, text, warnings))
}

/// The topics `aesop import FORMAT PATH…` writes, each as the JSON line it writes. `options`:
/// the format's own options as (name, values) pairs, named as `aesop.import_set`'s keywords,
/// which the Python side has checked against the format.
#[pyfunction]
#[pyo3(signature = (format, paths, options=None))]
fn import_json(
    py: Python<'_>,
    format: String,
    paths: Vec<String>,
    options: Option<Vec<(String, Vec<String>)>>,
) -> PyResult<Vec<String>> {
    use aesop::corpus::import;
    use std::path::PathBuf;
    py.allow_threads(|| -> anyhow::Result<Vec<String>> {
        let options: std::collections::HashMap<String, Vec<String>> =
            options.unwrap_or_default().into_iter().collect();
        let many = |name: &str| options.get(name).cloned().unwrap_or_default();
        let one = |name: &str| many(name).into_iter().next();
        let files = |name: &str| {
            many(name)
                .into_iter()
                .map(PathBuf::from)
                .collect::<Vec<_>>()
        };
        let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
        let Some(first) = paths.first() else {
            anyhow::bail!("no path given");
        };
        let topics = match format.as_str() {
            "table" => {
                let defaults = import::table::TableColumns::default();
                let documents = many("document_columns");
                import::import_tables(
                    &paths,
                    &import::table::TableColumns {
                        topic: one("topic_column").unwrap_or(defaults.topic),
                        system: one("system_column").unwrap_or(defaults.system),
                        summary: one("summary_column").unwrap_or(defaults.summary),
                        documents: match documents.is_empty() {
                            true => defaults.documents,
                            false => documents,
                        },
                        references: many("reference_columns"),
                        scores: options.get("score_columns").cloned(),
                        annotator: one("annotator_column"),
                        per_topic: options.contains_key("per_topic"),
                    },
                )?
            }
            "lines" => import::import_lines(&import::lines::LineFiles {
                summaries: paths.clone(),
                references: files("references"),
                documents: files("documents"),
                ids: one("ids").map(PathBuf::from),
                sentence_separator: one("sentence_separator"),
            })?,
            "rouge" if options.contains_key("model_dir") || first.is_dir() => {
                import::import_rouge_dirs(&import::rouge_dirs::PyrougeLayout {
                    system_dirs: paths.clone(),
                    model_dir: one("model_dir").map(PathBuf::from).unwrap_or_default(),
                    system_pattern: one("system_pattern").unwrap_or_default(),
                    model_pattern: one("model_pattern").unwrap_or_default(),
                    input_format: one("input_format").unwrap_or_else(|| "SPL".to_string()),
                })?
            }
            _ => {
                if paths.len() > 1 {
                    anyhow::bail!(
                        "{} paths given; the {format} importer reads one (only rouge reads \
                         several, directories of system summaries, lines, files of summaries, \
                         and table, tables)",
                        paths.len()
                    );
                }
                import::import(&format, first)?
            }
        };
        topics
            .iter()
            .map(|topic| Ok(serde_json::to_string(topic)?))
            .collect()
    })
    .map_err(value_error)
}

/// The topics of the judgment set at `path`, each as its JSON line, read as every verb reads a
/// set (`.gz` decompressed, every rule checked, errors naming the line and field).
#[pyfunction]
fn read_set_json(py: Python<'_>, path: String) -> PyResult<Vec<String>> {
    py.allow_threads(|| -> anyhow::Result<Vec<String>> {
        aesop::corpus::jsonl::read_set(std::path::Path::new(&path))?
            .iter()
            .map(|topic| Ok(serde_json::to_string(topic)?))
            .collect()
    })
    .map_err(value_error)
}

/// The built-in model names.
#[pyfunction]
fn builtin_models() -> Vec<String> {
    aesop::learn::builtin::BUILTINS
        .iter()
        .map(|b| b.name.to_string())
        .collect()
}

/// Where the LM classes run ("the GPU (cuda, f32)", "the CPU, int8 (avx2 kernel)"), as `aesop
/// models` says it; a ValueError says why they cannot (`AESOP_NEURAL_PRECISION`).
#[pyfunction]
fn lm_runs_on() -> PyResult<String> {
    aesop::neural::model::where_lms_run().map_err(value_error)
}

#[pymodule]
fn _aesop(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Scorer>()?;
    m.add_function(wrap_pyfunction!(features_json, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_json, m)?)?;
    m.add_function(wrap_pyfunction!(feature_table_json, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_models, m)?)?;
    m.add_function(wrap_pyfunction!(import_json, m)?)?;
    m.add_function(wrap_pyfunction!(read_set_json, m)?)?;
    m.add_function(wrap_pyfunction!(lm_runs_on, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
