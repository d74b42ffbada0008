//! The per-system view of a `score` run: each system's mean prediction per model, over the
//! topics where it was scored. `score` prints it as a table, and `--systems FILE` writes it with
//! each mean's rank and a 95% percentile-bootstrap interval over the system's topics (as
//! ROUGE-1.5.5 gives one for each system's average), for leaderboards and system comparisons.
//!
//! A system's mean is over its scored summaries only: a summary scored null (degenerate) or a
//! topic without a summary of the system is left out. Means over different topics do not
//! compare (a system that wrote nothing on the hardest topics would look better), so the run
//! says when systems were scored on different topics, and the file gives each system's count.
//! Memory stays flat in the set's size unless `--systems` asks for intervals, which keep one
//! number per prediction (8 bytes: 24 MB for a million summaries with the three defaults).

use super::Prediction;
use aesop_core::output::Interrupted;
use aesop_core::rng::SplitMix64;
use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;

/// Bootstrap samples of each system's interval (ROUGE-1.5.5's default), drawn with this seed.
pub const SYSTEM_BOOTSTRAP_SAMPLES: usize = 1000;
const SYSTEM_BOOTSTRAP_SEED: u64 = 1;
const SYSTEM_CONFIDENCE: f64 = 0.95;

/// Per system and output column: what `score` predicted, gathered as predictions are written.
#[derive(Debug, Clone)]
pub struct SystemTally {
    columns: Vec<String>,
    /// The default built-ins: which variant scored a system is named in the file.
    defaults: bool,
    /// Keep every score, for the intervals of `--systems`.
    keep_scores: bool,
    systems: BTreeMap<String, SystemScores>,
    /// Topics seen so far (the parts of a topic scored in parts count once), and the last one's id.
    topics: u64,
    last_topic: Option<String>,
}

#[derive(Debug, Clone)]
struct SystemScores {
    /// Topics with a summary of the system, scored or not.
    topics: usize,
    columns: Vec<ColumnScores>,
}

#[derive(Debug, Clone, Default)]
struct ColumnScores {
    sum: f64,
    scored: usize,
    /// An order-free fingerprint of the topics scored (a sum of their hashed indices): systems
    /// scored on the same topics have the same one, so differing coverage is found without
    /// keeping the topics.
    fingerprint: u64,
    /// Every score, with `keep_scores`.
    scores: Vec<f64>,
    /// The models that scored the column (the reference-based or `-noref` default built-in).
    models: BTreeSet<String>,
}

/// One row of `--systems`: a system's mean prediction of one output column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemMean {
    /// The output column: the target for the default built-ins, else the model's name.
    pub model: String,
    /// 1 for the highest mean (equal means share a rank); none when no summary was scored.
    pub rank: Option<usize>,
    pub system: String,
    pub mean: Option<f64>,
    /// The 95% percentile-bootstrap interval of the mean over the system's scored topics
    /// (1,000 samples, seed 1); none with fewer than two.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Topics with a summary of the system.
    pub topics: usize,
    /// Summaries scored (the mean is over these).
    pub scored: usize,
    /// For the default built-ins: the variants that scored the system's topics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models: Option<String>,
}

impl SystemTally {
    pub fn new(columns: Vec<String>, defaults: bool, keep_scores: bool) -> SystemTally {
        SystemTally {
            columns,
            defaults,
            keep_scores,
            systems: BTreeMap::new(),
            topics: 0,
            last_topic: None,
        }
    }

    /// One summary's predictions (`row`, by the models named `models`, in column order) in
    /// topic `topic`. Topics come in set order, the parts of one topic one after another.
    pub fn add(&mut self, topic: &str, system: &str, models: &[&str], row: &[f64]) {
        if self.last_topic.as_deref() != Some(topic) {
            self.topics += 1;
            self.last_topic = Some(topic.to_string());
        }
        let topic_hash = SplitMix64::new(self.topics).next_u64();
        let width = self.columns.len();
        let entry = self
            .systems
            .entry(system.to_string())
            .or_insert_with(|| SystemScores {
                topics: 0,
                columns: vec![ColumnScores::default(); width],
            });
        entry.topics += 1;
        for ((model, &score), column) in models.iter().zip(row).zip(&mut entry.columns) {
            if !score.is_finite() {
                continue;
            }
            column.sum += score;
            column.scored += 1;
            column.fingerprint = column.fingerprint.wrapping_add(topic_hash);
            if self.keep_scores {
                column.scores.push(score);
            }
            if self.defaults && !column.models.contains(*model) {
                column.models.insert(model.to_string());
            }
        }
    }

    /// How many systems have a summary in the run.
    pub fn system_count(&self) -> usize {
        self.systems.len()
    }

    /// The table `score` prints: per system, its summaries and its mean per column (at most
    /// `max_rows` systems, then a count).
    pub fn table(&self, max_rows: usize) -> String {
        let mut out = String::new();
        if self.systems.is_empty() {
            return out;
        }
        let width = self
            .systems
            .keys()
            .take(max_rows)
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        out.push_str(&format!("{:<width$} {:>9}", "system", "summaries"));
        for c in &self.columns {
            out.push_str(&format!(" {:>14}", c));
        }
        out.push('\n');
        for (system, scores) in self.systems.iter().take(max_rows) {
            let n = scores.columns.iter().map(|c| c.scored).max().unwrap_or(0);
            out.push_str(&format!("{system:<width$} {n:>9}"));
            for column in &scores.columns {
                if column.scored == 0 {
                    out.push_str(&format!(" {:>14}", "-"));
                } else {
                    out.push_str(&format!(" {:>14.4}", column.sum / column.scored as f64));
                }
            }
            out.push('\n');
        }
        if self.systems.len() > max_rows {
            out.push_str(&format!(
                "… and {} more systems\n",
                self.systems.len() - max_rows
            ));
        }
        out
    }

    /// A warning when the systems' means are over different topics, per column whose coverage
    /// differs (one warning when every column's does alike): the systems scored on fewer topics
    /// than the best covered one, fewest first.
    pub fn coverage_warnings(&self) -> Vec<String> {
        self.coverage_warnings_of("mean predictions", "aesop score --systems FILE")
    }

    /// [`SystemTally::coverage_warnings`] saying what the means are of (`mean predictions`,
    /// `feature means`) and which command gives each system's count.
    pub fn coverage_warnings_of(&self, means: &str, command: &str) -> Vec<String> {
        let mut warnings: Vec<String> = Vec::new();
        let mut last_detail = None;
        for (c, name) in self.columns.iter().enumerate() {
            let coverage: Vec<(&str, usize, u64)> = self
                .systems
                .iter()
                .map(|(s, v)| (s.as_str(), v.columns[c].scored, v.columns[c].fingerprint))
                .collect();
            let Some(&(_, most, fingerprint)) = coverage.iter().max_by_key(|(_, n, _)| *n) else {
                continue;
            };
            if coverage
                .iter()
                .all(|&(_, n, f)| n == most && f == fingerprint)
            {
                continue;
            }
            let mut fewer: Vec<&(&str, usize, u64)> =
                coverage.iter().filter(|(_, n, _)| *n < most).collect();
            fewer.sort_by_key(|(s, n, _)| (*n, *s));
            let detail = if fewer.is_empty() {
                "every system has scores on as many topics, but not on the same ones".to_string()
            } else {
                let named: Vec<String> = fewer
                    .iter()
                    .take(3)
                    .map(|(s, n, _)| format!("'{s}' on {n}"))
                    .collect();
                let more = fewer.len().saturating_sub(3);
                format!(
                    "{} of {} {} scores on fewer topics than the most covered ({most}): {}{}",
                    fewer.len(),
                    coverage.len(),
                    if coverage.len() == 1 {
                        "system has"
                    } else {
                        "systems have"
                    },
                    named.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                )
            };
            if last_detail.as_ref() == Some(&detail) {
                continue;
            }
            let column = if self.columns.len() > 1 {
                format!(" of {name}")
            } else {
                String::new()
            };
            warnings.push(format!(
                "the systems' {means}{column} are over different topics: {detail} (a topic \
                 without a summary of the system, or a summary not scored); compare systems on \
                 the topics they share (`{command}` gives each system's count)"
            ));
            last_detail = Some(detail);
        }
        warnings
    }

    /// The rows of `--systems`: per column (in output order), the systems by mean, highest
    /// first, with their intervals. Needs the scores kept (`keep_scores`); stops with
    /// [`Interrupted`] once `cancel` is set.
    pub fn means(&self, cancel: &AtomicBool) -> Result<Vec<SystemMean>> {
        let mut rows = Vec::new();
        for (c, name) in self.columns.iter().enumerate() {
            // Systems in parallel: a million summaries are a billion draws.
            let systems: Vec<(&String, &SystemScores)> = self.systems.iter().collect();
            let mut column_rows = systems
                .par_iter()
                .map(|&(system, scores)| {
                    Interrupted::check(cancel)?;
                    let column = &scores.columns[c];
                    // With the scores kept, the mean and interval are those of the sorted
                    // scores, so they do not depend on the order the predictions came in.
                    let mut sorted = column.scores.clone();
                    sorted.sort_by(f64::total_cmp);
                    let mean = match column.scored {
                        0 => None,
                        n if self.keep_scores => Some(sorted.iter().sum::<f64>() / n as f64),
                        n => Some(column.sum / n as f64),
                    };
                    let interval = (sorted.len() >= 2).then(|| bootstrap_mean_interval(&sorted));
                    Ok(SystemMean {
                        model: name.clone(),
                        rank: None,
                        system: system.clone(),
                        mean,
                        low: interval.map(|i| i.0),
                        high: interval.map(|i| i.1),
                        topics: scores.topics,
                        scored: column.scored,
                        models: self.defaults.then(|| {
                            column
                                .models
                                .iter()
                                .map(String::as_str)
                                .collect::<Vec<_>>()
                                .join(" ")
                        }),
                    })
                })
                .collect::<Result<Vec<SystemMean>>>()?;
            // Highest mean first, unscored systems last; equal means share a rank
            // (competition ranking: 1, 2, 2, 4).
            column_rows.sort_by(|a, b| match (a.mean, b.mean) {
                (Some(x), Some(y)) => y.total_cmp(&x).then_with(|| a.system.cmp(&b.system)),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.system.cmp(&b.system),
            });
            let mut previous: Option<(f64, usize)> = None;
            for (i, row) in column_rows.iter_mut().enumerate() {
                if let Some(mean) = row.mean {
                    let rank = match previous {
                        Some((m, r)) if m == mean => r,
                        _ => i + 1,
                    };
                    row.rank = Some(rank);
                    previous = Some((mean, rank));
                }
            }
            rows.extend(column_rows);
        }
        Ok(rows)
    }
}

/// The rows of `--systems` and the coverage warnings from predictions in any order (the
/// Python package's `Scorer.system_means`, whose rows may come sorted or filtered): grouped by
/// topic and summary first, in the order each first appears. `column_of` gives a prediction's
/// output column among `columns` (none: the prediction is not counted).
pub fn means_of_predictions(
    predictions: &[Prediction],
    columns: Vec<String>,
    defaults: bool,
    column_of: impl Fn(&Prediction) -> Option<usize>,
    cancel: &AtomicBool,
) -> Result<(Vec<SystemMean>, Vec<String>)> {
    let width = columns.len();
    let mut order: Vec<(&str, &str)> = Vec::new();
    // Per (topic, system): the model and score of each column.
    type Row<'p> = (Vec<&'p str>, Vec<f64>);
    let mut summaries: std::collections::HashMap<(&str, &str), Row> =
        std::collections::HashMap::new();
    let mut topic_order: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for p in predictions {
        let Some(c) = column_of(p) else { continue };
        let key = (p.topic.as_str(), p.system.as_str());
        let n = topic_order.len();
        topic_order.entry(key.0).or_insert(n);
        let entry = summaries.entry(key).or_insert_with(|| {
            order.push(key);
            (vec![""; width], vec![f64::NAN; width])
        });
        entry.0[c] = p.model.as_str();
        entry.1[c] = p.score;
    }
    // Topics together, each in the order it first appeared; summaries within it likewise.
    order.sort_by_key(|(topic, _)| topic_order[topic]);
    let mut tally = SystemTally::new(columns, defaults, true);
    for key in order {
        let (models, row) = &summaries[&key];
        tally.add(key.0, key.1, models, row);
    }
    Ok((tally.means(cancel)?, tally.coverage_warnings()))
}

/// The central 95% percentile-bootstrap interval of the mean of `scores` (resampled with
/// replacement, [`SYSTEM_BOOTSTRAP_SAMPLES`] times, from a fixed seed; given sorted scores, the
/// interval does not depend on their order).
fn bootstrap_mean_interval(scores: &[f64]) -> (f64, f64) {
    let mut rng = SplitMix64::new(SYSTEM_BOOTSTRAP_SEED);
    let n = scores.len();
    let mut means: Vec<f64> = (0..SYSTEM_BOOTSTRAP_SAMPLES)
        .map(|_| (0..n).map(|_| scores[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    let interval = aesop_eval::bootstrap::percentile_interval(&mut means, SYSTEM_CONFIDENCE);
    (interval.lower, interval.upper)
}

/// Write `rows` as a table (CSV, or with tabs when `tabs`) or as JSON Lines. `column` names
/// what a row's [`SystemMean::model`] is: `model` for `score`'s predictions, `feature` for
/// `features --systems`.
pub fn write_means(
    rows: &[SystemMean],
    format: super::ScoreFormat,
    defaults: bool,
    column: &str,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    use super::ScoreFormat;
    match format {
        ScoreFormat::Jsonl => {
            use serde::ser::{SerializeMap, Serializer};
            for row in rows {
                // Written field by field, so that the first key is `column` and the keys keep
                // this order.
                let mut line = serde_json::Serializer::new(&mut *out);
                let mut fields = (&mut line).serialize_map(None)?;
                fields.serialize_entry(column, &row.model)?;
                fields.serialize_entry("rank", &row.rank)?;
                fields.serialize_entry("system", &row.system)?;
                fields.serialize_entry("mean", &row.mean)?;
                fields.serialize_entry("low", &row.low)?;
                fields.serialize_entry("high", &row.high)?;
                fields.serialize_entry("topics", &row.topics)?;
                fields.serialize_entry("scored", &row.scored)?;
                if let Some(models) = &row.models {
                    fields.serialize_entry("models", models)?;
                }
                fields.end()?;
                out.write_all(b"\n")?;
            }
            out.flush()?;
        }
        ScoreFormat::Csv | ScoreFormat::Tsv => {
            let mut w = aesop_features::run::csv_writer(out, format == ScoreFormat::Tsv);
            let mut header = vec![
                column, "rank", "system", "mean", "low", "high", "topics", "scored",
            ];
            if defaults {
                header.push("models");
            }
            w.write_record(&header)?;
            let cell = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
            for row in rows {
                let mut record = vec![
                    row.model.clone(),
                    row.rank.map_or_else(String::new, |r| r.to_string()),
                    row.system.clone(),
                    cell(row.mean),
                    cell(row.low),
                    cell(row.high),
                    row.topics.to_string(),
                    row.scored.to_string(),
                ];
                if defaults {
                    record.push(row.models.clone().unwrap_or_default());
                }
                w.write_record(&record)?;
            }
            w.flush()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_seeded_and_holds_the_mean() {
        let scores: Vec<f64> = (0..40).map(|i| (i % 7) as f64 / 7.0).collect();
        let mean = scores.iter().sum::<f64>() / scores.len() as f64;
        let (low, high) = bootstrap_mean_interval(&scores);
        assert!(low < mean && mean < high, "{low} {mean} {high}");
        // Roughly mean ± 1.96 · sd / √n for a mean of 40 values.
        let sd = (scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / 39.0).sqrt();
        let half = 1.96 * sd / 40f64.sqrt();
        assert!(
            ((high - low) / 2.0 - half).abs() < 0.3 * half,
            "{low} {high} {half}"
        );
        assert_eq!(bootstrap_mean_interval(&scores), (low, high));
        // Equal scores: a point.
        assert_eq!(bootstrap_mean_interval(&[0.5, 0.5, 0.5]), (0.5, 0.5));
    }
}
