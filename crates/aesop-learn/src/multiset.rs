//! Learning from several judgment sets: loading each set's features once, training a
//! calibrated model on pooled sets, protocol 1 over the pool, and protocol 2 as a command
//! (leave one set out: train on every other set, score the held-out one, and compare with the
//! best single feature of the same classes on that set using the statistics of `evaluate`).

use super::cv::{out_of_fold, summary_level_tau, system_level_tau, Protocol1};
use super::learners::{Hyper, LearnerKind};
use super::model_file::predict_held_out;
use super::range_tally::{OutsideRange, RangeTally};
use super::transfer::{
    mean_absolute_error, normalize_table, pool, Calibration, Normalization, PoolOptions, Pooled,
    SetData, SetRecord, SetSpec,
};
use super::{train_anchored, Dataset, RankerOptions, Trained};
use aesop_core::hash::content_hash;
use aesop_corpus::{jsonl, Topic};
use aesop_eval::bootstrap::{bootstrap_intervals, compare_metrics, PairedComparison, Resample};
use aesop_eval::levels::{
    best_single_column, covers_the_set, per_topic_tau, Aligned, LengthAlone, ScoreRow,
};
use aesop_features::run::{extract_features, FeatureTable};
use aesop_features::{build_classes, FeatureClass, FeatureOptions};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// One set loaded for learning: its rows (features normalized as asked), the raw feature rows
/// (for single-feature baselines), and what the model file records about it.
#[derive(Debug, Clone)]
pub struct LoadedSet {
    pub set: SetData,
    /// The set's rows before normalization (same order as `set.data`).
    pub raw_rows: Vec<Vec<f64>>,
    pub record: SetRecord,
    pub topics: usize,
    pub summaries: usize,
    /// The identities of the summaries that carry the set's column, sorted
    /// ([`training_identities`]): the model file records them for `evaluate`'s in-sample check.
    pub identities: Vec<u64>,
}

/// The identities ([`aesop_corpus::summary_identity`]) of the summaries of `topics` with a
/// finite score in `column` (those a model learns from), sorted and without repeats.
pub fn training_identities(topics: &[Topic], column: &str) -> Vec<u64> {
    let mut identities = scored_identities(topics, column);
    identities.sort_unstable();
    identities.dedup();
    identities
}

/// The identity of each summary of `topics` with a finite score in `column`, in order: two
/// systems' identical summaries of a topic give one identity twice.
pub fn scored_identities(topics: &[Topic], column: &str) -> Vec<u64> {
    topics
        .iter()
        .flat_map(|topic| {
            topic
                .summaries
                .iter()
                .filter(|s| s.scores.get(column).is_some_and(|v| v.is_finite()))
                .map(|s| aesop_corpus::summary_identity(&topic.topic, &s.text))
        })
        .collect()
}

/// What a verb does when two of its sets hold the same summaries (see [`check_overlap`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// `train`: shared summaries only count twice; a warning, except for one set given twice
    /// with the same column, an error.
    Warn,
    /// `cross-validate` and `ablate`: a summary in two sets would be trained on through one
    /// while it is tested through the other, inflating the figures, except where the two are
    /// one corpus (the same content) judged on different columns: its rows share their folds
    /// under protocol 1 and are held out together under protocol 2 ([`SetData::same_corpus`]).
    Refuse,
}

/// Read every set, extract `classes` once per set, normalize within topics and keep the rows
/// with the set's column. A set without the column is an error naming the file and column;
/// sets sharing summaries are handled as `overlap` says.
pub fn load_sets(
    specs: &[SetSpec],
    classes: &[String],
    names: &[String],
    options: &FeatureOptions,
    normalization: Normalization,
    overlap: Overlap,
    cancel: &AtomicBool,
) -> Result<Vec<LoadedSet>> {
    let built = build_classes(classes, options)?;
    // Every set is read (and the overlap checked) before any feature is extracted.
    let mut read = Vec::new();
    for spec in specs {
        let topics = jsonl::read_set(&spec.path)?;
        // Before the long extraction, so the warning is seen while the run can still be stopped.
        warn_not_english(&spec.path, &topics);
        read.push((content_hash(&spec.path)?, topics));
    }
    check_overlap(specs, &read, overlap)?;
    let mut out = Vec::new();
    for (spec, (hash, topics)) in specs.iter().zip(read) {
        let table = extract_features(&topics, &built, aesop_core::progress::enabled(), cancel)?;
        let raw = Dataset::from_table(&table, &topics, &spec.column, names)
            .with_context(|| format!("{}: column '{}'", spec.path.display(), spec.column))?;
        check_features_present(&spec.path.display().to_string(), &topics, &raw, &built)?;
        warn_idle_options(&spec.path, &table);
        let data = if normalization.batch_dependent() {
            let normalized = normalize_table(&table, normalization);
            Dataset::from_table(&normalized, &topics, &spec.column, names)?
        } else {
            raw.clone()
        };
        out.push(LoadedSet {
            record: SetRecord {
                name: spec.name(),
                column: spec.column.clone(),
                content_hash: hash.clone(),
                rows: data.len(),
            },
            topics: topics.len(),
            summaries: table.records.len(),
            identities: training_identities(&topics, &spec.column),
            raw_rows: raw.rows,
            set: SetData {
                spec: spec.clone(),
                data,
                corpus: hash,
            },
        });
    }
    Ok(out)
}

/// Warn about the feature options that changed nothing on any topic of the set at `path`
/// (`--consensus-include-human` where no summary is human): the model still records them.
pub fn warn_idle_options(path: &std::path::Path, table: &FeatureTable) {
    for note in table.idle_options.notes() {
        aesop_core::eprintln_quiet!("warning: {}: {note}", path.display());
    }
}

/// Warn about the parts of the set at `path` that do not read as English (its documents,
/// references or summaries; `aesop_features::language`): a model learns little from them.
pub fn warn_not_english(path: &std::path::Path, topics: &[Topic]) {
    for warning in aesop_features::language::warnings(topics) {
        aesop_core::eprintln_quiet!("warning: {}: {warning}", path.display());
    }
}

/// Sets that hold the same summaries (the same topic id and text): one file given twice, a copy
/// under another name, or sets cut from one another. Learning from both counts those summaries
/// twice; evaluating on both tests what was trained on (protocol 1 inflated summary τ from .04
/// to .22 on a copy of six SummEval topics). `sets[i]` is (content hash, topics) of `specs[i]`.
fn check_overlap(specs: &[SetSpec], sets: &[(String, Vec<Topic>)], overlap: Overlap) -> Result<()> {
    use std::collections::HashMap;
    // Summary identity: topic id and text (the system name may differ between copies).
    let key = |topic: &Topic, text: &str| aesop_corpus::summary_identity(&topic.topic, text);
    let mut first_set_of: HashMap<u64, usize> = HashMap::new();
    for (i, (_, topics)) in sets.iter().enumerate() {
        for topic in topics {
            for summary in &topic.summaries {
                first_set_of.entry(key(topic, &summary.text)).or_insert(i);
            }
        }
    }
    for (j, (hash_j, topics)) in sets.iter().enumerate() {
        // Per earlier set: summaries of set j it already holds, and the first such topic.
        let mut shared: Vec<(usize, usize, &str)> = Vec::new();
        for topic in topics {
            for summary in &topic.summaries {
                let i = first_set_of[&key(topic, &summary.text)];
                if i == j {
                    continue;
                }
                match shared.iter_mut().find(|(set, _, _)| *set == i) {
                    Some(entry) => entry.1 += 1,
                    None => shared.push((i, 1, topic.topic.as_str())),
                }
            }
        }
        for (i, count, topic) in shared {
            let (a, b) = (&specs[i], &specs[j]);
            let same_file = sets[i].0 == *hash_j;
            let what = if same_file {
                format!("{a} and {b} are the same set (identical content)")
            } else {
                format!("{a} and {b} share {count} summaries (same topic id and text; e.g. topic '{topic}')")
            };
            match overlap {
                _ if same_file && a.column == b.column => bail!(
                    "{what}, with the same column: every summary would count twice; give each set once"
                ),
                // One corpus judged on several columns: its rows are dealt to folds and held
                // out together (`SetData::same_corpus`), so nothing is tested that was trained on.
                Overlap::Refuse if same_file => aesop_core::eprintln_quiet!(
                    "note: {a} and {b} are one corpus judged on two columns: its summaries share their folds (protocol 1) and are held out together (protocol 2)"
                ),
                Overlap::Refuse => bail!(
                    "{what}: a summary in two sets would be tested on after being trained on through the other, inflating every figure; give each set once (one file may be given with several columns)"
                ),
                Overlap::Warn => aesop_core::eprintln_quiet!(
                    "warning: {what}: those summaries count once per set in training"
                ),
            }
        }
    }
    Ok(())
}

/// A feature missing (no finite value) on every training row of a set teaches the model
/// nothing from that set, and one set without references makes every reference feature so:
/// say which, rather than write a model that silently ignores them. When no feature of the
/// model has a value on any row, nothing can be learned at all: an error. Features that the
/// classes' own options turn off ([`FeatureClass::is_feature_off`]) are missing by request and
/// get no warning.
fn check_features_present(
    source: &str,
    topics: &[Topic],
    data: &Dataset,
    classes: &[Box<dyn FeatureClass>],
) -> Result<()> {
    if data.rows.is_empty() {
        return Ok(());
    }
    let missing: Vec<&str> = data
        .names
        .iter()
        .enumerate()
        .filter(|&(c, _)| data.rows.iter().all(|r| !r[c].is_finite()))
        .map(|(_, name)| name.as_str())
        .collect();
    let turned_off = |name: &str| {
        classes.iter().any(|class| {
            name.strip_prefix(class.name())
                .is_some_and(|rest| rest.starts_with('.'))
                && class.is_feature_off(name)
        })
    };
    let all_missing = missing.len() == data.names.len();
    let missing: Vec<&str> = if all_missing {
        missing
    } else {
        missing.into_iter().filter(|n| !turned_off(n)).collect()
    };
    if missing.is_empty() {
        return Ok(());
    }
    let hint = if topics.iter().all(|t| t.references.is_empty()) {
        " (the set has no references: learn from it with --no-references, or use sets with references)"
    } else {
        ""
    };
    let shown = missing
        .iter()
        .take(6)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = if missing.len() > 6 { ", …" } else { "" };
    if all_missing {
        bail!(
            "{source}: none of the model's {} features has a value on any summary ({shown}{more}){hint}",
            data.names.len()
        );
    }
    aesop_core::eprintln_quiet!(
        "warning: {source}: {} of {} features have no value on any summary and teach the model nothing from this set ({shown}{more}){hint}",
        missing.len(),
        data.names.len()
    );
    Ok(())
}

/// [`check_features_present`] for each base of a stacked model (the rows of `path`): a base
/// whose features all lack values would learn nothing and feed the meta learner a constant.
pub fn check_stack_features_present(
    path: &std::path::Path,
    topics: &[Topic],
    data: &super::stack::StackData,
    plan: &super::stack::StackPlan,
    options: &FeatureOptions,
) -> Result<()> {
    let built = build_classes(&plan.classes, options)?;
    for base in &plan.bases {
        let rows = data
            .data
            .rows
            .iter()
            .map(|row| base.columns.iter().map(|&c| row[c]).collect())
            .collect();
        let base_data = Dataset {
            names: base.feature_names.clone(),
            rows,
            targets: Vec::new(),
            topics: Vec::new(),
            systems: Vec::new(),
            words: Vec::new(),
            fold_topics: Vec::new(),
            fold_systems: Vec::new(),
        };
        let source = format!("{} (--stack base '{}')", path.display(), base.spec.name);
        check_features_present(&source, topics, &base_data, &built)?;
    }
    Ok(())
}

/// The sets' data, for [`pool`].
pub fn set_data(loaded: &[LoadedSet]) -> Vec<SetData> {
    loaded.iter().map(|l| l.set.clone()).collect()
}

/// How to train on pooled sets.
#[derive(Debug, Clone, Copy)]
pub struct Recipe<'a> {
    /// The model's target: calibration learns the scale of the sets with this column.
    pub target: &'a str,
    pub learner: LearnerKind,
    pub hyper: Option<Hyper>,
    pub seed: u64,
    pub pool: PoolOptions,
    /// The ranking SVM's anchor feature (`--anchor`), if any.
    pub anchor: Option<&'a str>,
    /// The ranking SVM's pairs of matched length (`--pair-length-tolerance`), if any.
    pub pair_length_tolerance: Option<f64>,
}

/// A model and the calibration fitted on its own training rows: raw output against the
/// original targets of the sets whose column is `recipe.target` (all rows when none is; sets
/// on other scales, e.g. a 0-1 pyramid column pooled with 1-5 Likert columns, would otherwise
/// mix scales).
pub fn train_calibrated(pooled: &Pooled, recipe: &Recipe) -> Result<(Trained, Calibration)> {
    let model = train_anchored(
        &pooled.for_training(),
        recipe.learner,
        recipe.hyper,
        recipe.seed,
        RankerOptions {
            anchor: recipe.anchor,
            pair_length_tolerance: recipe.pair_length_tolerance,
        },
    )?;
    // In (topic, system) order, as the model was fitted ([`Dataset::in_canonical_order`]).
    let mut idx = pooled.rows_on_scale_of(recipe.target);
    let data = &pooled.data;
    idx.sort_by(|&a, &b| {
        (&data.topics[a], &data.systems[a]).cmp(&(&data.topics[b], &data.systems[b]))
    });
    let rows: Vec<Vec<f64>> = idx.iter().map(|&i| pooled.data.rows[i].clone()).collect();
    let targets: Vec<f64> = idx.iter().map(|&i| pooled.original_targets[i]).collect();
    let topics: Vec<String> = idx.iter().map(|&i| pooled.data.topics[i].clone()).collect();
    let raw = model.predict(&rows)?;
    let Some(calibration) = Calibration::fit_within_topics(&raw, &targets, &topics) else {
        bail!("no finite prediction on the training rows to calibrate with");
    };
    Ok((model, calibration))
}

/// Out-of-fold raw and calibrated predictions of protocol 1 over pooled sets.
pub fn cross_validate_pooled(
    pooled: &Pooled,
    recipe: &Recipe,
    layout: &Protocol1,
    cancel: &AtomicBool,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let mut calibrated = vec![f64::NAN; pooled.data.len()];
    let raw = out_of_fold(layout, |train_idx, test_idx| {
        // Ctrl-C stops between folds (exit 130), not after the last one.
        aesop_features::run::Interrupted::check(cancel)?;
        let train = pooled.subset(train_idx);
        let (model, calibration) = train_calibrated(&train, recipe)?;
        let rows: Vec<Vec<f64>> = test_idx
            .iter()
            .map(|&i| pooled.data.rows[i].clone())
            .collect();
        let (raw, _) = predict_held_out(&model, &train.data.rows, &rows)?;
        for (&i, &r) in test_idx.iter().zip(&raw) {
            calibrated[i] = calibration.apply(r);
        }
        Ok(raw)
    })?;
    Ok((raw, calibrated))
}

/// Summary, system and pairwise statistics of one held-out set, with intervals.
#[derive(Debug, Clone, Serialize)]
pub struct HeldOutStats {
    pub summary_kendall: Stat,
    pub system_kendall: Stat,
    /// System-level Pearson r (EVALUATION.md asks for it beside the two τ).
    pub system_pearson: Stat,
    pub system_pairwise_accuracy: Stat,
    pub input_pairwise_accuracy: Stat,
    /// Input-level pairwise accuracy over the pairs of matched length (`aesop evaluate`'s
    /// `input.length_matched_accuracy`, default tolerance): what the metric orders beyond
    /// summary length. Undefined where the rows carry no texts.
    pub input_length_matched_accuracy: Stat,
}

/// A point estimate with its bootstrap 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Stat {
    pub value: f64,
    pub lower: f64,
    pub upper: f64,
}

/// Without bootstrap samples (`--bootstrap 0`) the interval is unknown: shown as `[—, —]`, as
/// `aesop evaluate` shows it, never as `[NaN, NaN]`.
impl std::fmt::Display for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} [{}, {}]",
            or_dash(self.value, 3),
            or_dash(self.lower, 3),
            or_dash(self.upper, 3)
        )
    }
}

/// `x` with `decimals` digits, or `—` where it is undefined (NaN): the one helper every report
/// prints through.
pub use aesop_eval::or_dash;

/// One held-out set of protocol 2.
#[derive(Debug, Clone, Serialize)]
pub struct HeldOut {
    pub set: String,
    pub column: String,
    pub rows: usize,
    pub trained_on: Vec<String>,
    pub model: HeldOutStats,
    /// The feature of the model's classes with the best summary-level τ on this set, chosen
    /// in hindsight (its sign too: a feature that falls as the humans' score rises counts
    /// negated, e.g. JS divergence), among the features with a value for at least
    /// [`aesop_eval::levels::METRIC_MIN_COVERAGE`] of the set's summaries.
    pub best_feature: String,
    pub best_feature_stats: HeldOutStats,
    /// Model minus best feature, summary-level τ.
    pub summary_difference: f64,
    /// Koehn's paired bootstrap over topics: share of samples where the model's summary τ is
    /// strictly higher.
    pub bootstrap_model_wins: f64,
    /// Paired permutation test (two-sided) on summary τ.
    pub permutation_p: f64,
    /// The single feature a user could choose for this set without its scores: the one the
    /// other sets rank first by their mean summary-level τ (read the way round they agree
    /// with), among the features that cover every set; the protocol-2 counterpart of
    /// `best_feature`, and what `aesop evaluate --features --also` names for the same sets.
    pub chosen_without_the_set: ChosenFeature,
    /// Mean absolute error of the calibrated predictions against the set's column.
    pub calibrated_mae: f64,
    /// What summary length alone (more words higher) orders on this set, on every pair and on
    /// the pairs of matched length: the part of a summary τ that length can explain.
    pub length_alone: LengthAlone,
    /// The model's features that lie outside their range over the training sets for at least
    /// [`crate::range_tally::WARN_SHARE`] (and [`crate::range_tally::WARN_SUMMARIES`]) of this
    /// set's rows, most often outside first: what `aesop score` would warn about scoring this
    /// set with the model (docs/MODEL_FILE.md, "Feature ranges").
    pub outside_training_range: Vec<OutsideRange>,
    pub seconds: f64,
}

/// A single feature chosen on the training sets and scored on the held-out one, against the
/// model on the rows where it has a value.
#[derive(Debug, Clone, Serialize)]
pub struct ChosenFeature {
    /// As `best_feature` names it (`-NAME` where negated); `none` where no feature covers every
    /// set.
    pub feature: String,
    /// Its mean summary-level τ over the training sets.
    pub mean_on_training_sets: f64,
    pub stats: HeldOutStats,
    /// Model minus this feature, summary-level τ, and the paired tests (as for `best_feature`).
    pub summary_difference: f64,
    pub bootstrap_model_wins: f64,
    pub permutation_p: f64,
}

/// Leave-one-set-out settings.
#[derive(Debug, Clone, Copy)]
pub struct LosoSettings<'a> {
    pub recipe: Recipe<'a>,
    pub bootstrap: usize,
    /// What counts as matched length (`--length-tolerance`).
    pub length_tolerance: f64,
}

/// What a model trained on every other set predicts for a held-out set.
#[derive(Debug, Clone)]
pub struct HeldOutScores {
    /// The model's raw output for each row of the held-out set.
    pub raw: Vec<f64>,
    /// The same, calibrated to the target's scale.
    pub calibrated: Vec<f64>,
    /// The held-out rows' features outside their range over the training sets (clamped).
    pub outside: RangeTally,
}

/// Predictions of the held-out set `h` by a model trained on every other set.
pub fn held_out_predictions(sets: &[SetData], h: usize, recipe: &Recipe) -> Result<HeldOutScores> {
    let keep = training_sets(sets, h);
    if keep.is_empty() {
        bail!(
            "{} has no other corpus to train on: every set given holds its summaries (the same file under other columns are held out with it)",
            sets[h].spec
        );
    }
    let pooled = pool(sets, &keep, recipe.pool)?;
    let (model, calibration) = train_calibrated(&pooled, recipe).with_context(|| {
        format!(
            "training on every set but {} (to score it held out)",
            sets[h].spec
        )
    })?;
    let (raw, outside) = predict_held_out(&model, &pooled.data.rows, &sets[h].data.rows)?;
    let calibrated = raw.iter().map(|&r| calibration.apply(r)).collect();
    Ok(HeldOutScores {
        raw,
        calibrated,
        outside,
    })
}

/// The sets a model scoring set `h` held out may learn from: those of every other corpus (a
/// corpus given with several columns is held out with all of them).
pub fn training_sets(sets: &[SetData], h: usize) -> Vec<usize> {
    (0..sets.len())
        .filter(|&s| !sets[s].same_corpus(&sets[h]))
        .collect()
}

/// Per held-out set, (raw, calibrated) for each of its rows.
pub type HeldOutPredictions = Vec<Vec<(f64, f64)>>;

/// Protocol 2 with fewer than two sets: nothing to hold out (said by the CLI's flag check, and by
/// [`leave_one_set_out`] to library callers).
pub(crate) const NEEDS_TWO_SETS: &str =
    "--leave-one-set-out needs at least two sets (give --set PATH:COLUMN for each)";

/// Protocol 2 over `loaded`: for each set, train on the others and score it. Once `cancel` is
/// set (Ctrl-C) it stops before the next model or within a bootstrap, which is where the time
/// goes (about ten seconds a held-out set at 1,000 samples), and returns [`Interrupted`].
///
/// [`Interrupted`]: aesop_core::output::Interrupted
pub fn leave_one_set_out(
    loaded: &[LoadedSet],
    settings: &LosoSettings,
    cancel: &AtomicBool,
) -> Result<(Vec<HeldOut>, HeldOutPredictions)> {
    if loaded.len() < 2 {
        bail!(NEEDS_TWO_SETS);
    }
    let sets = set_data(loaded);
    // Each feature's summary-level τ on each set, computed once.
    let feature_taus: Vec<Vec<Option<f64>>> = loaded
        .iter()
        .map(|l| feature_summary_taus(&l.set.data, &l.raw_rows))
        .collect();
    let mut results = Vec::new();
    let mut predictions = Vec::new();
    let bar =
        aesop_core::progress::counted(loaded.len() as u64, "leave one set out", "held-out sets");
    // Each held-out set takes seconds (its bootstrap), so the elapsed time moves on between sets.
    bar.enable_steady_tick(std::time::Duration::from_secs(1));
    for (h, held) in loaded.iter().enumerate() {
        aesop_core::output::Interrupted::check(cancel)?;
        let start = std::time::Instant::now();
        let HeldOutScores {
            raw,
            calibrated,
            outside,
        } = held_out_predictions(&sets, h, &settings.recipe)?;
        let data = &held.set.data;
        let tolerance = settings.length_tolerance;
        let model_aligned = aligned(data, &raw, tolerance)?;
        let (best_feature, feature_values) =
            best_of_one_set(data, &held.raw_rows, &feature_taus[h]);
        let feature_aligned = aligned(data, &feature_values, tolerance)?;
        let seed = settings.recipe.seed;
        let stats = |a: &Aligned| held_out_stats(a, settings.bootstrap, seed, cancel);
        // As `evaluate --compare`: the paired test on the rows where both have a value.
        let paired = |values: &[f64]| -> Result<Option<PairedComparison>> {
            let model_where_feature: Vec<f64> = raw
                .iter()
                .zip(values)
                .map(|(&m, f)| if f.is_finite() { m } else { f64::NAN })
                .collect();
            let comparison = compare_metrics(
                &aligned(data, &model_where_feature, tolerance)?,
                &aligned(data, values, tolerance)?,
                settings.bootstrap,
                seed,
                cancel,
            )?;
            Ok(comparison.into_iter().find(|c| c.name == "summary.kendall"))
        };
        let summary = paired(&feature_values)?;
        let trained_on = training_sets(&sets, h);
        let chosen = best_single_column(&feature_taus, &trained_on);
        let chosen_without_the_set = match chosen {
            None => ChosenFeature {
                feature: "none".to_string(),
                mean_on_training_sets: f64::NAN,
                stats: stats(&aligned(data, &[], tolerance)?)?,
                summary_difference: f64::NAN,
                bootstrap_model_wins: f64::NAN,
                permutation_p: f64::NAN,
            },
            Some((column, negated, mean)) => {
                let (feature, values) = oriented_feature(data, &held.raw_rows, column, negated);
                let test = paired(&values)?;
                ChosenFeature {
                    feature,
                    mean_on_training_sets: mean,
                    stats: stats(&aligned(data, &values, tolerance)?)?,
                    summary_difference: test.as_ref().map_or(f64::NAN, |c| c.difference),
                    bootstrap_model_wins: test.as_ref().map_or(f64::NAN, |c| c.bootstrap_a_wins),
                    permutation_p: test.as_ref().map_or(f64::NAN, |c| c.permutation_p),
                }
            }
        };
        results.push(HeldOut {
            set: held.record.name.clone(),
            column: held.record.column.clone(),
            rows: data.len(),
            trained_on: trained_on
                .iter()
                .map(|&s| format!("{}:{}", loaded[s].record.name, loaded[s].record.column))
                .collect(),
            model: stats(&model_aligned)?,
            best_feature,
            best_feature_stats: stats(&feature_aligned)?,
            summary_difference: summary.as_ref().map_or(f64::NAN, |c| c.difference),
            bootstrap_model_wins: summary.as_ref().map_or(f64::NAN, |c| c.bootstrap_a_wins),
            permutation_p: summary.as_ref().map_or(f64::NAN, |c| c.permutation_p),
            chosen_without_the_set,
            // Only meaningful when the held-out column is on the calibrated scale and some
            // training set taught that scale.
            calibrated_mae: if held.record.column == settings.recipe.target
                && trained_on
                    .iter()
                    .any(|&s| loaded[s].record.column == settings.recipe.target)
            {
                mean_absolute_error(&calibrated, &data.targets)
            } else {
                f64::NAN
            },
            length_alone: LengthAlone::of(&model_aligned),
            outside_training_range: outside.outside(&data.names),
            seconds: start.elapsed().as_secs_f64(),
        });
        predictions.push(raw.into_iter().zip(calibrated).collect());
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok((results, predictions))
}

/// The rows of `data` with `metric` as the metric score, laid out for `evaluate`'s statistics;
/// a row without a (finite) metric value is left out, as `evaluate` leaves out a missing value.
/// Summaries are of matched length within `length_tolerance` (`--length-tolerance`).
pub(crate) fn aligned(data: &Dataset, metric: &[f64], length_tolerance: f64) -> Result<Aligned> {
    let rows: Vec<ScoreRow> = (0..data.len().min(metric.len()))
        .filter(|&i| metric[i].is_finite())
        .map(|i| ScoreRow {
            topic: data.topics[i].clone(),
            system: data.systems[i].clone(),
            metric: metric[i],
            human: data.targets[i],
            words: data.words_of(i),
        })
        .collect();
    let mut grid = Aligned::new(&rows)?;
    grid.length_tolerance = length_tolerance;
    Ok(grid)
}

fn held_out_stats(
    data: &Aligned,
    samples: usize,
    seed: u64,
    cancel: &AtomicBool,
) -> Result<HeldOutStats> {
    let estimates = bootstrap_intervals(data, samples, Resample::Both, seed, 0.95, cancel)?;
    let get = |name: &str| stat_of(&estimates, name);
    Ok(HeldOutStats {
        summary_kendall: get("summary.kendall"),
        system_kendall: get("system.kendall"),
        system_pearson: get("system.pearson"),
        system_pairwise_accuracy: get("system.pairwise_accuracy"),
        input_pairwise_accuracy: get("input.pairwise_accuracy"),
        input_length_matched_accuracy: get("input.length_matched_accuracy"),
    })
}

/// The statistic `name` (`summary.kendall`, …) of `evaluate`'s bootstrap estimates, with its
/// interval; undefined (NaN) when it is not among them.
pub fn stat_of(estimates: &[aesop_eval::bootstrap::Estimate], name: &str) -> Stat {
    estimates.iter().find(|e| e.name == name).map_or(
        Stat {
            value: f64::NAN,
            lower: f64::NAN,
            upper: f64::NAN,
        },
        |e| Stat {
            value: e.value,
            lower: e.interval.lower,
            upper: e.interval.upper,
        },
    )
}

/// The mean over held-out sets of one statistic, over the sets where it is defined (each set
/// weighs the same); NaN when it is defined on none. Without an interval: each set has its own.
pub fn mean_over_sets(values: impl IntoIterator<Item = f64>) -> Stat {
    let defined: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    Stat {
        value: if defined.is_empty() {
            f64::NAN
        } else {
            defined.iter().sum::<f64>() / defined.len() as f64
        },
        lower: f64::NAN,
        upper: f64::NAN,
    }
}

/// The column of `raw_rows` with the best summary-level τ against `data.targets`, its sign
/// chosen in hindsight, among the columns that cover the set ([`feature_summary_taus`]).
/// Missing values stay missing (NaN) and are left out of its statistics, as `evaluate
/// --feature` leaves them out. Returns its name (prefixed `-` when negated) and its oriented
/// values.
pub fn best_single_feature(data: &Dataset, raw_rows: &[Vec<f64>]) -> (String, Vec<f64>) {
    best_of_one_set(data, raw_rows, &feature_summary_taus(data, raw_rows))
}

/// [`best_single_feature`] from the set's [`feature_summary_taus`], computed already.
fn best_of_one_set(
    data: &Dataset,
    raw_rows: &[Vec<f64>],
    taus: &[Option<f64>],
) -> (String, Vec<f64>) {
    match best_single_column(&[taus.to_vec()], &[0]) {
        Some((c, negated, _)) => oriented_feature(data, raw_rows, c, negated),
        None => ("none".to_string(), vec![0.0; data.len()]),
    }
}

/// Column `c` of `raw_rows`, negated where `negated` (missing values stay NaN), and its name
/// (`-NAME` where negated).
fn oriented_feature(
    data: &Dataset,
    raw_rows: &[Vec<f64>],
    c: usize,
    negated: bool,
) -> (String, Vec<f64>) {
    let name = &data.names[c];
    let sign = if negated { -1.0 } else { 1.0 };
    (
        if negated {
            format!("-{name}")
        } else {
            name.clone()
        },
        raw_rows
            .iter()
            .map(|r| {
                if r[c].is_finite() {
                    sign * r[c]
                } else {
                    f64::NAN
                }
            })
            .collect(),
    )
}

/// Each column's summary-level τ against `data.targets` as the column reads (not oriented),
/// or `None` where the column does not cover the set: a value for fewer than
/// [`aesop_eval::levels::METRIC_MIN_COVERAGE`] of the rows, or a ranking of the summaries of
/// fewer than that share of the topics the humans rank (`covers_the_set`). Missing values
/// (NaN) are left out.
pub fn feature_summary_taus(data: &Dataset, raw_rows: &[Vec<f64>]) -> Vec<Option<f64>> {
    let ranked_by_humans = per_topic_tau(&data.targets, &data.targets, &data.topics)
        .iter()
        .filter(|t| t.is_finite())
        .count();
    (0..data.names.len())
        .map(|c| {
            let present: Vec<usize> = (0..raw_rows.len())
                .filter(|&i| raw_rows[i][c].is_finite())
                .collect();
            let taus: Vec<f64> = per_topic_tau(
                &present.iter().map(|&i| raw_rows[i][c]).collect::<Vec<_>>(),
                &present.iter().map(|&i| data.targets[i]).collect::<Vec<_>>(),
                &present
                    .iter()
                    .map(|&i| data.topics[i].clone())
                    .collect::<Vec<_>>(),
            )
            .into_iter()
            .filter(|t| t.is_finite())
            .collect();
            // Its summary-level τ (`summary_level_tau` of the present rows).
            covers_the_set(present.len(), raw_rows.len(), taus.len(), ranked_by_humans)
                .then(|| taus.iter().sum::<f64>() / taus.len() as f64)
        })
        .collect()
}

/// Summary- and system-level τ of raw predictions on pooled data, per set.
pub fn per_set_taus(pooled: &Pooled, raw: &[f64], sets: usize) -> Vec<(f64, f64)> {
    (0..sets)
        .map(|s| {
            let idx: Vec<usize> = (0..pooled.data.len())
                .filter(|&i| pooled.set_of_row[i] == s)
                .collect();
            let pick = |v: &[f64]| idx.iter().map(|&i| v[i]).collect::<Vec<f64>>();
            let pick_s = |v: &[String]| idx.iter().map(|&i| v[i].clone()).collect::<Vec<_>>();
            (
                summary_level_tau(
                    &pick(raw),
                    &pick(&pooled.data.targets),
                    &pick_s(&pooled.data.topics),
                ),
                system_level_tau(
                    &pick(raw),
                    &pick(&pooled.data.targets),
                    &pick_s(&pooled.data.systems),
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesop_eval::levels::DEFAULT_LENGTH_TOLERANCE;

    /// Six topics of four summaries (t2-t6 alike); feature `a` lacks a value for t1/s3 (one
    /// row in 24, within [`aesop_eval::levels::METRIC_MIN_COVERAGE`]), feature `b` is complete but ranks worse.
    fn data_with_a_missing_value() -> (Dataset, Vec<Vec<f64>>) {
        let (mut a, mut b) = (vec![0.1, 0.3, f64::NAN, 0.4], vec![0.4, 0.1, 0.3, 0.2]);
        let mut topics = vec!["t1".to_string(); 4];
        for t in 2..=6 {
            a.extend([0.3, 0.1, 0.2, 0.4]);
            b.extend([0.1, 0.4, 0.2, 0.3]);
            topics.extend(std::iter::repeat_n(format!("t{t}"), 4));
        }
        let rows: Vec<Vec<f64>> = a.iter().zip(&b).map(|(&x, &y)| vec![x, y]).collect();
        let data = Dataset {
            names: vec!["c.a".into(), "c.b".into()],
            rows: rows.clone(),
            targets: [1.0, 2.0, 3.0, 4.0].repeat(6),
            topics,
            systems: (0..24).map(|i| format!("s{}", i % 4)).collect(),
            words: Vec::new(),
            fold_topics: Vec::new(),
            fold_systems: Vec::new(),
        };
        (data, rows)
    }

    /// The best single feature of the fixture with one more column, `c.extra`, whose value in
    /// row `i` is `extra(i, data)`.
    fn best_with_column(extra: impl Fn(usize, &Dataset) -> f64) -> String {
        let (mut data, mut rows) = data_with_a_missing_value();
        data.names.push("c.extra".into());
        for (i, row) in rows.iter_mut().enumerate() {
            row.push(extra(i, &data));
        }
        data.rows = rows.clone();
        best_single_feature(&data, &rows).0
    }

    /// A column that orders perfectly the rows it has a value for does not compete when it
    /// lacks values for many summaries (it did, and won, once missing values were left out:
    /// stop 55), nor when it ties every summary of most topics (those topics are left out of
    /// its τ); complete, it wins.
    #[test]
    fn a_feature_that_ranks_few_summaries_or_topics_is_not_the_best_single_feature() {
        let sparse = |i: usize, _: &Dataset| if i % 4 < 2 { i as f64 } else { f64::NAN };
        assert_eq!(best_with_column(sparse), "c.a");
        let flat = |i: usize, d: &Dataset| {
            if d.topics[i] == "t1" {
                d.targets[i]
            } else {
                0.0
            }
        };
        assert_eq!(best_with_column(flat), "c.a");
        assert_eq!(best_with_column(|i, d| d.targets[i]), "c.extra");
    }

    #[test]
    fn the_best_single_feature_leaves_a_missing_value_out_as_evaluate_does() {
        let (data, rows) = data_with_a_missing_value();
        let (name, values) = best_single_feature(&data, &rows);
        assert_eq!(name, "c.a");
        // Still missing: not the column mean (.257), which would rank t1/s3 below t1/s2 and
        // give t1 a τ of 2/3.
        assert!(values[2].is_nan(), "{values:?}");
        // Its τ is t1's over its three present rows (1) and each other topic's (1/3), as
        // `evaluate` computes it on the rows it has.
        let grid = aligned(&data, &values, DEFAULT_LENGTH_TOLERANCE).expect("grid");
        let stats = aesop_eval::levels::evaluate(&grid);
        let expected = (1.0 + 5.0 / 3.0) / 6.0;
        assert!(
            (stats.summary.kendall - expected).abs() < 1e-12,
            "{} vs {expected}",
            stats.summary.kendall
        );
        assert_eq!(grid.all_topics().len(), 6);
    }
}
