//! `aesop evaluate --features … --also FEATURES=SET:COLUMN`: the chosen columns judged on
//! several judgment sets, and which of them hold up on all of them. Issue 13's question ("does a
//! learned model beat the single features it is built from on new data?") needs the single
//! features' side under the same rules as the models': a column chosen and oriented on the sets
//! a model was trained on, scored on the set held out.
//!
//! Two views, both of summary-level Kendall τ as each set's own table computes it:
//! - **Across sets**: every column that covers every set, read one way round on all of them (the
//!   way its mean τ agrees with the annotators), ranked by that mean, with its worst set beside.
//!   A per-set orientation would let a column that agrees on one corpus and disagrees on the
//!   next look good on both.
//! - **Chosen without the set**: for each set, the column the other sets rank first (oriented by
//!   them), and its τ on the set, next to the best column in hindsight there: the best single
//!   feature under protocol 2 (leave one set out), which a built-in's leave-one-set-out figure
//!   can be fairly compared with.

use super::table::FeatureTable;
use crate::levels::best_single_column;
use anyhow::{bail, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// A features file and the judgment set and column it is judged on: `--also
/// FEATURES=SET:COLUMN`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeaturesOnSet {
    pub features: PathBuf,
    pub human: PathBuf,
    pub target: String,
}

/// Parse `FEATURES=SET:COLUMN`: split at the first `=` and, after it, at the last `:` (so the
/// set's path may hold colons; the features file's may not hold `=`). Both paths may hold any
/// byte a file name may hold ([`aesop_core::input::split_arg`]).
pub fn parse_features_on_set(
    text: impl AsRef<std::ffi::OsStr>,
) -> std::result::Result<FeaturesOnSet, String> {
    let example = "e.g. newsroom.csv=newsroom.jsonl:responsiveness";
    let shown = text.as_ref().to_string_lossy();
    let Some((features, set)) = aesop_core::input::split_arg(text.as_ref(), b'=', false) else {
        return Err(format!(
            "'{shown}': expected FEATURES=SET:COLUMN, {example}"
        ));
    };
    if features.is_empty() {
        return Err(format!(
            "'{shown}': the features file is empty (expected FEATURES=SET:COLUMN)"
        ));
    }
    let (human, target) = aesop_corpus::jsonl::split_set_and_column(&set).map_err(|problem| {
        format!("'{shown}': {problem} (expected FEATURES=SET:COLUMN, {example})")
    })?;
    Ok(FeaturesOnSet {
        features: features.into(),
        human,
        target,
    })
}

/// [`parse_features_on_set`] as clap's parser of `--also`, reading the argument as given (not
/// as a `String`, which refuses a path that is not UTF-8).
#[cfg(feature = "cli")]
pub fn features_on_set_parser() -> impl clap::builder::TypedValueParser<Value = FeaturesOnSet> {
    use clap::builder::TypedValueParser as _;
    clap::builder::OsStringValueParser::new().try_map(parse_features_on_set)
}

/// The name of each set in the tables: the judgment set's file name without `.gz` and
/// `.jsonl`; `name:COLUMN` where two sets share a name, the path where that is not enough. The
/// same set and column twice is an error (it would count one set twice).
pub fn set_names(sets: &[FeaturesOnSet]) -> Result<Vec<String>> {
    for (i, set) in sets.iter().enumerate() {
        if let Some(earlier) = sets[..i]
            .iter()
            .find(|e| e.human == set.human && e.target == set.target)
        {
            bail!(
                "{}:{} is given twice (with {} and {}): each set counts once across sets",
                set.human.display(),
                set.target,
                earlier.features.display(),
                set.features.display()
            );
        }
    }
    let stem = |set: &FeaturesOnSet| {
        let name = set.human.file_name().map_or_else(
            || set.human.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let name = name.strip_suffix(".gz").unwrap_or(&name).to_string();
        name.strip_suffix(".jsonl").unwrap_or(&name).to_string()
    };
    let stems: Vec<String> = sets.iter().map(stem).collect();
    let with_column: Vec<String> = sets
        .iter()
        .zip(&stems)
        .map(|(set, stem)| format!("{stem}:{}", set.target))
        .collect();
    let count = |names: &[String], name: &String| names.iter().filter(|n| *n == name).count();
    Ok(sets
        .iter()
        .enumerate()
        .map(|(i, set)| {
            if count(&stems, &stems[i]) == 1 {
                stems[i].clone()
            } else if count(&with_column, &with_column[i]) == 1 {
                with_column[i].clone()
            } else {
                format!("{}:{}", set.human.display(), set.target)
            }
        })
        .collect())
}

/// The chosen columns across every set.
#[derive(Debug, Clone, Serialize)]
pub struct AcrossSets {
    /// The sets' names, in the order given (the first: the positional features file).
    pub sets: Vec<String>,
    /// Columns in every file that cover every set, best mean summary-level τ first (the first
    /// file's order among equals).
    pub rows: Vec<AcrossRow>,
    /// Chosen columns missing from some file: in their sets' tables only.
    pub not_in_every_file: Vec<String>,
    /// Columns in every file that do not cover some set (as each set's table decides).
    pub not_covering_every_set: Vec<String>,
    /// For each set, the column the other sets choose.
    pub chosen_without_the_set: Vec<HeldOutChoice>,
}

/// One column on every set, read one way round on all of them.
#[derive(Debug, Clone, Serialize)]
pub struct AcrossRow {
    pub rank: usize,
    /// The column, or `-COLUMN` where its mean τ over the sets is below zero.
    pub feature: String,
    pub column: String,
    pub negated: bool,
    /// Summary-level τ on each set (in the order of `sets`), under this orientation.
    pub summary_kendall: Vec<f64>,
    pub mean: f64,
    /// The lowest of `summary_kendall`.
    pub worst: f64,
}

/// The single feature protocol 2 picks for a held-out set.
#[derive(Debug, Clone, Serialize)]
pub struct HeldOutChoice {
    pub set: String,
    /// The column with the highest mean τ over the other sets, oriented by them; `None` where no
    /// column covers every set.
    pub chosen: Option<String>,
    /// Its mean τ over the other sets.
    pub mean_on_the_others: f64,
    /// Its τ on this set.
    pub summary_kendall: f64,
    /// The best column of `rows` on this set, oriented on it (in hindsight).
    pub best_in_hindsight: Option<String>,
    pub best_in_hindsight_kendall: f64,
}

/// The summary-level τ of each column on one set as its column reads (not oriented), and
/// whether the column covers that set.
fn raw_taus(table: &FeatureTable) -> Vec<(&str, f64, bool)> {
    table
        .rows
        .iter()
        .map(|row| {
            let tau = row.statistics.summary.kendall;
            let raw = if row.negated { -tau } else { tau };
            (row.column.as_str(), raw, row.covers_the_set)
        })
        .collect()
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

/// `feature` as read with `negated`.
fn oriented_name(column: &str, negated: bool) -> String {
    if negated {
        format!("-{column}")
    } else {
        column.to_string()
    }
}

/// Judge the columns of every set's table together. `tables`, `names` and `corpora` are in the
/// same order; `corpora` tells which sets hold the same summaries (one judgment file given with
/// several columns), which are no other set for one another when a column is chosen without
/// the held-out set, as `cross-validate --leave-one-set-out` holds such sets out together.
pub fn across_sets(tables: &[FeatureTable], names: &[String], corpora: &[String]) -> AcrossSets {
    // The first file's chosen columns in its own order (its table's rows are ranked).
    let first_order: Vec<&str> = tables
        .first()
        .map(|first| first.columns.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let per_set: Vec<std::collections::HashMap<&str, (f64, bool)>> = tables
        .iter()
        .map(|t| {
            raw_taus(t)
                .into_iter()
                .map(|(c, tau, covers)| (c, (tau, covers)))
                .collect()
        })
        .collect();
    let mut not_in_every_file = Vec::new();
    let mut not_covering_every_set = Vec::new();
    // (column, raw τ on each set) of the columns that cover every set.
    let mut candidates: Vec<(&str, Vec<f64>)> = Vec::new();
    for column in &first_order {
        let found: Option<Vec<(f64, bool)>> =
            per_set.iter().map(|m| m.get(column).copied()).collect();
        match found {
            None => not_in_every_file.push(column.to_string()),
            Some(values) if values.iter().all(|&(tau, covers)| covers && !tau.is_nan()) => {
                candidates.push((column, values.into_iter().map(|(tau, _)| tau).collect()))
            }
            Some(_) => not_covering_every_set.push(column.to_string()),
        }
    }
    // Columns of the other files that the first lacks.
    for table in tables.iter().skip(1) {
        for name in &table.columns {
            if !first_order.contains(&name.as_str()) && !not_in_every_file.contains(name) {
                not_in_every_file.push(name.clone());
            }
        }
    }

    let mut rows: Vec<AcrossRow> = candidates
        .iter()
        .map(|(column, raw)| {
            let negated = mean(raw.iter().copied()) < 0.0;
            let sign = if negated { -1.0 } else { 1.0 };
            let taus: Vec<f64> = raw.iter().map(|t| sign * t).collect();
            AcrossRow {
                rank: 0,
                feature: oriented_name(column, negated),
                column: column.to_string(),
                negated,
                mean: mean(taus.iter().copied()),
                worst: taus.iter().copied().fold(f64::INFINITY, f64::min),
                summary_kendall: taus,
            }
        })
        .collect();
    // Stable: the first file's order among equal means.
    rows.sort_by(|a, b| b.mean.total_cmp(&a.mean));
    for (i, row) in rows.iter_mut().enumerate() {
        row.rank = i + 1;
    }

    let chosen_without_the_set = names
        .iter()
        .enumerate()
        .map(|(held, name)| {
            let others: Vec<usize> = (0..names.len())
                .filter(|&s| corpora[s] != corpora[held])
                .collect();
            held_out_choice(&candidates, held, &others, name)
        })
        .collect();
    AcrossSets {
        sets: names.to_vec(),
        rows,
        not_in_every_file,
        not_covering_every_set,
        chosen_without_the_set,
    }
}

/// The column the sets `others` (those of other corpora than `held`'s) rank first by their mean
/// τ (oriented by that mean), scored on `held`, and the best column on `held` in hindsight: both
/// picked by [`best_single_column`], as `cross-validate --leave-one-set-out` picks them.
fn held_out_choice(
    candidates: &[(&str, Vec<f64>)],
    held: usize,
    others: &[usize],
    name: &str,
) -> HeldOutChoice {
    let sets = candidates.first().map_or(0, |(_, raw)| raw.len());
    // taus[set][candidate]: every candidate covers every set.
    let taus: Vec<Vec<Option<f64>>> = (0..sets)
        .map(|s| candidates.iter().map(|(_, raw)| Some(raw[s])).collect())
        .collect();
    let chosen = best_single_column(&taus, others);
    let best = best_single_column(&taus, &[held]);
    let name_of = |(c, negated, _): (usize, bool, f64)| oriented_name(candidates[c].0, negated);
    HeldOutChoice {
        set: name.to_string(),
        chosen: chosen.map(name_of),
        mean_on_the_others: chosen.map_or(f64::NAN, |(_, _, mean)| mean),
        summary_kendall: chosen.map_or(f64::NAN, |(c, negated, _)| {
            let raw = candidates[c].1[held];
            if negated {
                -raw
            } else {
                raw
            }
        }),
        best_in_hindsight: best.map(name_of),
        best_in_hindsight_kendall: best.map_or(f64::NAN, |(_, _, tau)| tau),
    }
}

fn fmt3(x: f64) -> String {
    crate::or_dash(x, 3)
}

/// The across-sets tables as text.
pub fn render_across_text(across: &AcrossSets) -> String {
    let mut out = String::new();
    let n = across.sets.len();
    let _ = writeln!(
        out,
        "across {n} sets: summary-level tau, each column read one way round on every set (the \
         way its mean agrees with the annotators; -COLUMN: negated)"
    );
    let _ = writeln!(out);
    let width = across
        .rows
        .iter()
        .map(|r| r.feature.chars().count())
        .chain(
            across
                .chosen_without_the_set
                .iter()
                .flat_map(|c| [&c.chosen, &c.best_in_hindsight])
                .flatten()
                .map(|f| f.chars().count()),
        )
        .max()
        .unwrap_or(7)
        .max(7);
    let set_widths: Vec<usize> = across
        .sets
        .iter()
        .map(|s| s.chars().count().max(6))
        .collect();
    if across.rows.is_empty() {
        let _ = writeln!(
            out,
            "no chosen column is in every file and covers every set"
        );
    } else {
        let mut header = format!("{:>4}  {:<width$}", "rank", "feature");
        for (set, w) in across.sets.iter().zip(&set_widths) {
            let _ = write!(header, "  {set:>w$}");
        }
        let _ = writeln!(out, "{header}  {:>6}  {:>6}", "mean", "worst");
        for row in &across.rows {
            let mut line = format!("{:>4}  {:<width$}", row.rank, row.feature);
            for (tau, w) in row.summary_kendall.iter().zip(&set_widths) {
                let _ = write!(line, "  {:>w$}", fmt3(*tau));
            }
            let _ = writeln!(out, "{line}  {:>6}  {:>6}", fmt3(row.mean), fmt3(row.worst));
        }
    }
    let left_out = |out: &mut String, names: &[String], why: &str| {
        if !names.is_empty() {
            let _ = writeln!(
                out,
                "{} {why}: in their sets' tables only ({})",
                match names.len() {
                    1 => "1 column".to_string(),
                    k => format!("{k} columns"),
                },
                super::read::column_list(names.iter().map(String::as_str))
            );
        }
    };
    if !across.not_in_every_file.is_empty() || !across.not_covering_every_set.is_empty() {
        let _ = writeln!(out);
    }
    left_out(&mut out, &across.not_in_every_file, "not in every file");
    left_out(
        &mut out,
        &across.not_covering_every_set,
        "not covering every set",
    );

    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "chosen without the set (protocol 2): the column the other sets rank first, read their \
         way round, against the best on the set in hindsight"
    );
    let set_width = set_widths.iter().copied().max().unwrap_or(6).max(3);
    let _ = writeln!(
        out,
        "{:<set_width$}  {:<width$}  {:>6}  {:>8}  {:<width$}  {:>6}  {:>6}",
        "set", "chosen on the others", "others", "tau here", "best in hindsight", "tau", "gap"
    );
    for choice in &across.chosen_without_the_set {
        let _ = writeln!(
            out,
            "{:<set_width$}  {:<width$}  {:>6}  {:>8}  {:<width$}  {:>6}  {:>6}",
            choice.set,
            choice.chosen.as_deref().unwrap_or("—"),
            fmt3(choice.mean_on_the_others),
            fmt3(choice.summary_kendall),
            choice.best_in_hindsight.as_deref().unwrap_or("—"),
            fmt3(choice.best_in_hindsight_kendall),
            crate::or_dash_signed(choice.summary_kendall - choice.best_in_hindsight_kendall, 3),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(features: &str, human: &str, target: &str) -> FeaturesOnSet {
        FeaturesOnSet {
            features: features.into(),
            human: human.into(),
            target: target.to_string(),
        }
    }

    #[test]
    fn a_spec_splits_at_the_first_equals_and_the_last_colon() {
        assert_eq!(
            parse_features_on_set("f.csv=data/c:d/set.jsonl:pyramid"),
            Ok(spec("f.csv", "data/c:d/set.jsonl", "pyramid"))
        );
        for bad in [
            "f.csv",
            "f.csv=set.jsonl",
            "=set.jsonl:t",
            "f.csv=:t",
            "f=s:",
            "f=s:a/b",
        ] {
            let error = parse_features_on_set(bad).expect_err(bad);
            assert!(error.contains("FEATURES=SET:COLUMN"), "{bad}: {error}");
        }
    }

    #[test]
    fn a_set_file_named_with_a_colon_and_no_column_is_said_to_lack_its_column() {
        let set =
            std::env::temp_dir().join(format!("aesop-across-{}-a:b.jsonl", std::process::id()));
        std::fs::write(&set, "").unwrap();
        let set_text = set.to_str().unwrap().to_string();
        let without = parse_features_on_set(format!("f.csv={set_text}"));
        let with = parse_features_on_set(format!("f.csv={set_text}:pyramid"));
        std::fs::remove_file(&set).unwrap();
        let error = without.expect_err("no column");
        assert!(error.contains("names no column"), "{error}");
        assert_eq!(with, Ok(spec("f.csv", &set_text, "pyramid")));
    }

    #[test]
    fn sets_are_named_by_file_then_by_column_then_by_path() {
        let names = set_names(&[
            spec("a.csv", "x/summeval.jsonl", "relevance"),
            spec("b.csv", "x/summeval.jsonl", "coherence"),
            spec("c.csv", "y/newsroom.jsonl.gz", "readability"),
            spec("d.csv", "y/realsumm.jsonl", "pyramid"),
            spec("e.csv", "z/realsumm.jsonl", "pyramid"),
        ])
        .expect("names");
        assert_eq!(
            names,
            [
                "summeval:relevance",
                "summeval:coherence",
                "newsroom",
                "y/realsumm.jsonl:pyramid",
                "z/realsumm.jsonl:pyramid",
            ]
        );
        let twice = set_names(&[spec("a.csv", "s.jsonl", "t"), spec("b.csv", "s.jsonl", "t")])
            .expect_err("twice");
        assert!(twice.to_string().contains("given twice"), "{twice}");
    }
}
