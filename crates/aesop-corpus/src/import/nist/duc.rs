//! DUC 2005-2007 main task: one topic per document cluster (`D301`, `D0601`, `D0701`).
//! Scores come from the NIST tables (responsiveness, linguistic quality, pyramid).

use super::{
    add_summaries, base_topic_id, cell, collect_files, docset_documents, is_topics_file, query_of,
    read_summaries, read_topic_statements, summary_kind, table_rows, ScoreTable, SourceFile,
};
use crate::Topic;
use anyhow::{bail, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// The score tables NIST ships, recognised by file name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Table {
    /// 2005 `responsiveness.table`: skip 6; topic 0, summarizer 3, score 4.
    Responsiveness,
    /// 2006 `overall.table`: as above.
    OverallResponsiveness,
    /// 2006 and 2007 `content.table`: as above.
    ContentResponsiveness,
    /// `linguistic_quality.table`: skip 7; topic 0, summarizer 3, question 4, score 5.
    LinguisticQuality,
    /// 2005 `processed_pans.txt`: topic without `d`, summarizer, pyramid, modified, #SCUs, #repetitions.
    ProcessedPans,
    /// 2006/2007 `*modified_scores.txt`: topic, summarizer, modified, #SCUs, #repetitions.
    ModifiedScores,
}

fn table_kind(file: &SourceFile) -> Option<Table> {
    let name = file.name().to_ascii_lowercase();
    match name.as_str() {
        "responsiveness.table" => Some(Table::Responsiveness),
        "overall.table" => Some(Table::OverallResponsiveness),
        "content.table" => Some(Table::ContentResponsiveness),
        "linguistic_quality.table" => Some(Table::LinguisticQuality),
        "processed_pans.txt" => Some(Table::ProcessedPans),
        _ if name.ends_with("modified_scores.txt") => Some(Table::ModifiedScores),
        _ => None,
    }
}

/// `d301i` (2005/2006) or `D0701A` (2007): topic then selector letter.
fn is_cluster_dir(name: &str) -> bool {
    let b = name.as_bytes();
    (5..=6).contains(&b.len())
        && b[0].eq_ignore_ascii_case(&b'D')
        && b[1..b.len() - 1].iter().all(u8::is_ascii_digit)
        && b[b.len() - 1].is_ascii_alphabetic()
}

/// Every file under ROUGE/peers and ROUGE/models is read, so that a misnamed one is said
/// ([`read_summaries`]); the 2007 update pilot's (`D0703-A`) are then left out by topic.
fn wanted(file: &SourceFile) -> bool {
    summary_kind(file).is_some()
        || table_kind(file).is_some()
        || is_topics_file(file)
        || is_cluster_dir(file.ancestor(1))
}

pub fn import(root: &Path) -> Result<Vec<Topic>> {
    let files = collect_files(root, &wanted)?;
    let mut summaries = read_summaries(&files)?;
    summaries.retain(|topic, _| !topic.contains('-'));
    if summaries.is_empty() {
        bail!(
            "{}: no summaries found: expected ROUGE/peers/ and ROUGE/models/ of a DUC 2005-2007 \
             evaluation (e.g. results/ROUGE/) in this directory or tarball",
            root.display()
        );
    }
    let mut table = read_tables(&files)?;
    let statements = read_topic_statements(&files)?;
    let mut clusters: BTreeMap<String, Vec<&SourceFile>> = BTreeMap::new();
    for file in files.iter().filter(|f| is_cluster_dir(f.ancestor(1))) {
        clusters
            .entry(base_topic_id(file.ancestor(1)))
            .or_default()
            .push(file);
    }

    let mut topics = Vec::new();
    for (key, summary_files) in &summaries {
        let mut topic = Topic::new(key.clone());
        let statement = statements.get(key);
        if let Some(statement) = statement {
            topic.query = Some(query_of(statement));
        }
        let cluster_files = clusters.get(key).cloned().unwrap_or_default();
        let (documents, _) = docset_documents(&cluster_files, None)?;
        topic.documents = documents;
        add_summaries(
            &mut topic,
            key,
            Some(summary_files),
            &mut table,
            &add_targets,
        );
        topics.push(topic);
    }
    table.warn_untaken(root);
    statements.warn_unstated(root, &topics);
    let without: Vec<&str> = topics
        .iter()
        .filter(|t| t.documents.is_empty())
        .map(|t| t.topic.as_str())
        .collect();
    if let Some(first) = without.first() {
        aesop_core::eprintln_quiet!(
            "warning: {}: {} no documents (e.g. {first}): no cluster folder of the tree holds them (a folder that is a link, or documents inside an archive in the tree, are not read); their content features will be missing",
            root.display(),
            match without.len() {
                1 => "1 topic has".to_string(),
                n => format!("{n} topics have"),
            }
        );
    }
    Ok(topics)
}

/// Mean linguistic quality over the questions answered, then the mapped targets.
fn add_targets(scores: &mut BTreeMap<String, f64>, _human: bool) {
    let questions: Vec<f64> = (1..=5)
        .filter_map(|q| scores.get(&format!("linguistic_quality_q{q}")).copied())
        .collect();
    if !questions.is_empty() {
        let mean = questions.iter().sum::<f64>() / questions.len() as f64;
        scores.insert("linguistic_quality".to_string(), mean);
        scores.insert("readability".to_string(), mean);
    }
    let responsiveness = [
        "responsiveness",
        "overall_responsiveness",
        "content_responsiveness",
    ]
    .iter()
    .find_map(|name| scores.get(*name).copied());
    if let Some(value) = responsiveness {
        scores.insert("responsiveness".to_string(), value);
    }
    if let Some(&value) = scores.get("modified_pyramid") {
        scores.insert("pyramid".to_string(), value);
    }
}

/// A table row: a topic id (`D301`, `d311i`) and at least four more columns.
fn looks_like_data_row(line: &str) -> bool {
    let columns: Vec<&str> = line.split_whitespace().collect();
    let Some(first) = columns.first() else {
        return false;
    };
    let digits = first
        .strip_prefix(['D', 'd'])
        .map(|rest| rest.trim_end_matches(|c: char| c.is_ascii_alphabetic()));
    columns.len() >= 5
        && digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

fn read_tables(files: &[SourceFile]) -> Result<ScoreTable> {
    let mut table = ScoreTable::default();
    for file in files {
        let Some(kind) = table_kind(file) else {
            continue;
        };
        let text = file.text()?;
        let skip = match kind {
            Table::LinguisticQuality => 7,
            Table::Responsiveness | Table::OverallResponsiveness | Table::ContentResponsiveness => {
                6
            }
            Table::ProcessedPans | Table::ModifiedScores => 0,
        };
        // The header is skipped by its length in NIST's files; a table with a header line
        // fewer would lose its first data row, so a skipped line that reads as one is an error.
        if let Some(line) = text.lines().take(skip).position(looks_like_data_row) {
            bail!(
                "{}:{}: this line reads as a data row, but DUC's {} has {skip} header lines before its data: restore the missing header line",
                file.display,
                line + 1,
                file.name()
            );
        }
        for (line, columns) in table_rows(&text, skip) {
            let origin = format!("{}:{line}", file.display);
            let expected = match kind {
                Table::LinguisticQuality | Table::ProcessedPans => 6,
                Table::ModifiedScores => 5,
                _ => 5,
            };
            if columns.len() < expected {
                bail!(
                    "{origin}: expected at least {expected} columns, found {}",
                    columns.len()
                );
            }
            let topic = match kind {
                Table::ProcessedPans => format!("D{}", columns[0].trim_start_matches(['d', 'D'])),
                _ => columns[0].to_ascii_uppercase(),
            };
            let summarizer = match kind {
                Table::ProcessedPans | Table::ModifiedScores => columns[1],
                _ => columns[3],
            };
            let cells: Vec<(usize, String)> = match kind {
                Table::Responsiveness => vec![(4, "responsiveness".into())],
                Table::OverallResponsiveness => vec![(4, "overall_responsiveness".into())],
                Table::ContentResponsiveness => vec![(4, "content_responsiveness".into())],
                Table::LinguisticQuality => {
                    let question = columns[4].trim_start_matches(['q', 'Q']);
                    if !matches!(question, "1" | "2" | "3" | "4" | "5") {
                        bail!(
                            "{origin}: column 4: expected a question 1-5, found {:?}",
                            columns[4]
                        );
                    }
                    vec![(5, format!("linguistic_quality_q{question}"))]
                }
                Table::ProcessedPans => vec![
                    (2, "unmodified_pyramid".into()),
                    (3, "modified_pyramid".into()),
                    (4, "num_scus".into()),
                    (5, "num_repetitions".into()),
                ],
                Table::ModifiedScores => vec![
                    (2, "modified_pyramid".into()),
                    (3, "num_scus".into()),
                    (4, "num_repetitions".into()),
                ],
            };
            for (index, name) in cells {
                let value = cell(&columns, index, &origin)?;
                let replace = kind == Table::ProcessedPans;
                if replace && value.is_none() {
                    if let Some(scores) = table
                        .scores
                        .get_mut(&(topic.clone(), summarizer.to_string()))
                    {
                        scores.remove(&name);
                    }
                }
                table.set(&topic, summarizer, &name, value, origin.clone(), replace)?;
            }
        }
    }
    Ok(table)
}
