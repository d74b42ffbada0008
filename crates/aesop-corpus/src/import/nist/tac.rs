//! TAC 2008-2011 (update / guided summarization): one topic per topic-set (`D0801-A`, `D0801-B`).

use super::{
    add_summaries, cell, collect_files, docset_documents, is_topics_file, query_of, read_summaries,
    read_topic_statements, summary_kind, table_rows, warn_missing_documents, ScoreTable,
    SourceFile,
};
use crate::Topic;
use anyhow::{bail, Result};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Score columns of the manual files, by file kind and column count (0-indexed, TAC_FORMAT.md).
fn manual_columns(model: bool, count: usize) -> Option<&'static [(usize, &'static str)]> {
    match (model, count) {
        (false, 9) => Some(&[
            (2, "modified_pyramid"),
            (3, "num_scus"),
            (4, "num_repetitions"),
            (6, "modified_pyramid_jk"),
            (7, "linguistic_quality"),
            (8, "overall_responsiveness"),
        ]),
        (false, 10) => Some(&[
            (2, "modified_pyramid"),
            (3, "num_scus"),
            (4, "num_repetitions"),
            (7, "modified_pyramid_jk"),
            (8, "linguistic_quality"),
            (9, "overall_responsiveness"),
        ]),
        (true, 7) => Some(&[
            (2, "num_scus_jk"),
            (4, "modified_pyramid_jk"),
            (5, "linguistic_quality"),
            (6, "overall_responsiveness"),
        ]),
        (true, 8) => Some(&[
            (2, "num_scus_jk"),
            (5, "modified_pyramid_jk"),
            (6, "linguistic_quality"),
            (7, "overall_responsiveness"),
        ]),
        _ => None,
    }
}

/// `D0801A-A`: topic, selector letter, `-A`/`-B`.
fn is_docset_dir(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 8
        && b[0].eq_ignore_ascii_case(&b'D')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5].is_ascii_alphabetic()
        && b[6] == b'-'
        && b[7].is_ascii_alphabetic()
}

fn manual_kind(file: &SourceFile) -> Option<bool> {
    if !file.ancestor(1).eq_ignore_ascii_case("manual") {
        return None;
    }
    let name = file.name();
    if name.starts_with("manual.peer") {
        Some(false)
    } else if name.starts_with("manual.model") {
        Some(true)
    } else {
        None
    }
}

fn wanted(file: &SourceFile) -> bool {
    summary_kind(file).is_some()
        || manual_kind(file).is_some()
        || is_topics_file(file)
        || is_docset_dir(file.ancestor(1))
}

pub fn import(root: &Path) -> Result<Vec<Topic>> {
    let files = collect_files(root, &wanted)?;
    let summaries = read_summaries(&files)?;
    if summaries.is_empty() {
        bail!(
            "{}: no summaries found: expected ROUGE/peers/ and ROUGE/models/ of a TAC evaluation \
             root (e.g. UpdateSumm08_eval/) in this directory or tarball",
            root.display()
        );
    }
    let mut table = read_manual(&files)?;
    let statements = read_topic_statements(&files)?;
    let mut docsets: BTreeMap<String, Vec<&SourceFile>> = BTreeMap::new();
    for file in files.iter().filter(|f| is_docset_dir(f.ancestor(1))) {
        docsets
            .entry(file.ancestor(1).to_ascii_uppercase())
            .or_default()
            .push(file);
    }

    let mut topics = Vec::new();
    let mut missing_documents = Vec::new();
    let mut only_ids = Vec::new();
    for (key, summary_files) in &summaries {
        let (base, set) = match key.split_once('-') {
            Some((base, set)) => (base.to_string(), set.to_string()),
            None => (key.clone(), String::new()),
        };
        let mut topic = Topic::new(key.clone());
        let statement = statements.get(&base);
        if let Some(statement) = statement {
            topic.query = Some(query_of(statement));
        }
        let (documents, listed_ids, missing) = set_documents(&base, &set, statement, &docsets)?;
        if documents.is_empty() && !listed_ids.is_empty() {
            // 2011: NIST does not ship the documents; keep the ids the topics file lists.
            topic
                .extra
                .insert("document_ids".to_string(), Value::from(listed_ids));
            only_ids.push(key.clone());
        } else {
            missing_documents.push((key.clone(), missing));
        }
        topic.documents = documents;
        if set == "B" {
            // The update summary is written for a reader who has seen set A.
            let (background, _, _) = set_documents(&base, "A", statement, &docsets)?;
            if !background.is_empty() {
                topic.extra.insert(
                    "background_documents".to_string(),
                    serde_json::to_value(&background)?,
                );
            }
        }
        add_summaries(
            &mut topic,
            key,
            Some(summary_files),
            &mut table,
            &|scores, human| {
                // Models have only the jackknifed score; a peer whose modified pyramid is
                // missing stays without `pyramid`, not with the other measure.
                let pyramid = scores
                    .get("modified_pyramid")
                    .or_else(|| human.then(|| scores.get("modified_pyramid_jk")).flatten())
                    .copied();
                if let Some(pyramid) = pyramid {
                    scores.insert("pyramid".to_string(), pyramid);
                }
                super::super::map_score(scores, "linguistic_quality", "readability");
                super::super::map_score(scores, "overall_responsiveness", "responsiveness");
            },
        );
        topics.push(topic);
    }
    table.warn_untaken(root);
    statements.warn_unstated(root, &topics);
    // Peers and models alone: a DUC tree has them too (ROUGE/ of its own layout), and its
    // documents and scores were silently lost under `import tac`.
    let nothing_judged = topics.iter().all(|t| {
        t.documents.is_empty()
            && !t.extra.contains_key("document_ids")
            && t.summaries.iter().all(|s| s.scores.is_empty())
    });
    if nothing_judged {
        bail!(
            "{}: summaries but no documents and no manual scores for any topic: not a TAC \
             evaluation root with its test documents (a DUC tree? use `aesop import duc`)",
            root.display()
        );
    }
    // With no document at all but the listed ids (2011, where NIST ships none), the ids are
    // kept and nothing is missing; a topic with some documents but not all is warned about.
    warn_missing_documents(root, &missing_documents);
    if let Some(first) = only_ids.first() {
        aesop_core::eprintln_quiet!(
            "note: {}: no document file for {} (e.g. {first}); they keep the ids the topics file lists as `document_ids` (TAC 2011 ships no documents; a documents folder that is a link, or documents inside an archive in the tree, are not read)",
            root.display(),
            aesop_core::counted(only_ids.len(), "topic", "topics")
        );
    }
    Ok(topics)
}

/// The documents of docset `<base><selector>-<set>`, the ids the topics file lists for it, and
/// those of its ids that no file holds.
fn set_documents(
    base: &str,
    set: &str,
    statement: Option<&super::TopicStatement>,
    docsets: &BTreeMap<String, Vec<&SourceFile>>,
) -> Result<(Vec<crate::Document>, Vec<String>, Vec<String>)> {
    let suffix = format!("-{set}");
    let listed = statement.and_then(|s| {
        s.docsets
            .iter()
            .find(|(id, _)| id.starts_with(base) && id.ends_with(&suffix))
            .map(|(_, ids)| ids)
    });
    let files: Vec<&SourceFile> = docsets
        .iter()
        .filter(|(dir, _)| dir.starts_with(base) && dir.ends_with(&suffix))
        .flat_map(|(_, files)| files.iter().copied())
        .collect();
    let (documents, missing) = docset_documents(&files, listed)?;
    Ok((documents, listed.cloned().unwrap_or_default(), missing))
}

fn read_manual(files: &[SourceFile]) -> Result<ScoreTable> {
    let mut table = ScoreTable::default();
    for file in files {
        let Some(model) = manual_kind(file) else {
            continue;
        };
        let text = file.text()?;
        // The layout is the year's, read from the first row: a later row with a column fewer
        // (a cut-off last line) would otherwise be read with the other year's columns.
        let mut first: Option<(usize, usize)> = None;
        for (line, columns) in table_rows(&text, 0) {
            let origin = format!("{}:{line}", file.display);
            let Some(layout) = manual_columns(model, columns.len()) else {
                bail!(
                    "{origin}: expected {} columns, found {}",
                    if model {
                        "7 (2008) or 8 (2009-2011)"
                    } else {
                        "9 (2008) or 10 (2009-2011)"
                    },
                    columns.len()
                );
            };
            match first {
                None => first = Some((line, columns.len())),
                Some((first_line, count)) if count != columns.len() => bail!(
                    "{origin}: expected {count} columns like line {first_line} of this file, found {} (the other year's layout)",
                    columns.len()
                ),
                Some(_) => {}
            }
            let topic = columns[0].to_ascii_uppercase();
            for &(index, name) in layout {
                let value = cell(&columns, index, &origin)?;
                table.set(&topic, columns[1], name, value, origin.clone(), false)?;
            }
        }
    }
    Ok(table)
}
