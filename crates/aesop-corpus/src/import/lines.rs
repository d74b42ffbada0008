//! `aesop import lines SUMMARIES… --references FILE… [--documents FILE…]`: line-aligned text
//! files, one text per line, the layout seq2seq toolkits write and ROUGE scripts read (fairseq's
//! test.source / test.target / test.hypo, Hugging Face's generated_predictions.txt, the
//! CNN/DailyMail test.source / test.target files, Google's rouge-score CLI, files2rouge). Such a
//! user has no table and no ROUGE configuration, only the files: line N of each is topic N.
//!
//! Nothing but the line number pairs a summary with its references, so a file a line short would
//! pair every later topic wrongly, unsaid: every file must hold as many lines as the others, and an
//! empty reference or document line (most likely a misaligned file) is an error at its line. An
//! empty summary line is kept (a model may output nothing) and counted in a note.

use super::read_text;
use super::{named, named_all, Named};
use crate::{Document, Reference, Summary, Topic};
use anyhow::{bail, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What `aesop import lines` reads. A file of summaries, references or documents is given as on
/// the command line: `PATH`, named by its file name without the last extension (`bart.txt` is
/// `bart`; `.gz` read through), or `NAME=PATH` where the whole is not an existing file.
#[derive(Debug, Clone, Default)]
pub struct LineFiles {
    /// One file per system, one summary per line.
    pub summaries: Vec<PathBuf>,
    /// One reference summary per line; several files give each topic several references.
    pub references: Vec<PathBuf>,
    /// The input documents, one per line; several files make multi-document topics.
    pub documents: Vec<PathBuf>,
    /// Topic ids, one per line; without it a topic is named by its line number (`1`, `2`, …).
    pub ids: Option<PathBuf>,
    /// Split every text at this separator into sentences, written one per line (PreSumm's `<q>`,
    /// Pegasus' `<n>`); without it a line's text is kept as it is.
    pub sentence_separator: Option<String>,
}

/// A file's records: its lines, a `\r` before a line break dropped, a final line break ending the
/// last line rather than starting another. The text is read as every importer reads its files
/// (`.gz` decompressed, a byte-order mark skipped, bytes that are not UTF-8 an error at their line).
fn records(path: &Path) -> Result<Vec<String>> {
    let text = read_text(path)?;
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let body = text.strip_suffix('\n').unwrap_or(&text);
    Ok(body
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line).to_string())
        .collect())
}

/// `line` as a text: split at `separator` into trimmed sentences, one per line, empty ones dropped;
/// without one, the line as it is.
fn text_of(line: &str, separator: Option<&str>) -> String {
    match separator {
        Some(separator) => line
            .split(separator)
            .map(str::trim)
            .filter(|sentence| !sentence.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        None => line.to_string(),
    }
}

/// A named file and its records.
struct Read {
    file: Named,
    records: Vec<String>,
}

fn read_all(files: Vec<Named>) -> Result<Vec<Read>> {
    files
        .into_iter()
        .map(|file| {
            let records = records(&file.path)?;
            Ok(Read { file, records })
        })
        .collect()
}

/// Every file must hold one record per topic: the error names the first file and each that
/// differs from it, with their counts.
fn check_aligned(counts: &[(&Path, usize)]) -> Result<()> {
    let Some(&(first, expected)) = counts.first() else {
        return Ok(());
    };
    let lines = |n: usize| aesop_core::counted(n, "line", "lines");
    let differing: Vec<String> = counts
        .iter()
        .filter(|(_, count)| *count != expected)
        .map(|(path, count)| format!("{} has {}", path.display(), lines(*count)))
        .collect();
    if differing.is_empty() {
        return Ok(());
    }
    bail!(
        "files must be aligned line by line (line N of each file is topic N): {} has {}, but {}",
        first.display(),
        lines(expected),
        differing.join(", ")
    )
}

/// The topic ids of the file at `path`, each once (trimmed; an empty one is an error).
fn topic_ids(path: &Path, records: Vec<String>) -> Result<Vec<String>> {
    let mut first_line: HashMap<String, usize> = HashMap::new();
    let mut ids = Vec::with_capacity(records.len());
    for (i, record) in records.into_iter().enumerate() {
        let line = i + 1;
        let id = record.trim().to_string();
        if id.is_empty() {
            bail!(
                "{}:{line}: empty topic id (one id per line, each topic's; is the file aligned with \
                 the others?)",
                path.display()
            );
        }
        if let Some(first) = first_line.insert(id.clone(), line) {
            bail!(
                "{}:{line}: topic id {id:?} again (first at line {first}): each line is one topic",
                path.display()
            );
        }
        ids.push(id);
    }
    Ok(ids)
}

/// The text of line `i` of a reference or document file, which must not be empty.
fn source_text(read: &Read, i: usize, separator: Option<&str>, what: &str) -> Result<String> {
    let text = text_of(&read.records[i], separator);
    if text.trim().is_empty() {
        bail!(
            "{}:{}: empty {what} (every topic needs its {what}'s text; an empty line most likely \
             means the file is not aligned with the others line by line)",
            read.file.path.display(),
            i + 1
        );
    }
    Ok(text)
}

/// Every file the import reads (those that exist): its output never replaces one of them.
pub fn files(files: &LineFiles) -> Vec<PathBuf> {
    let given = files
        .summaries
        .iter()
        .chain(&files.references)
        .chain(&files.documents);
    given
        .filter_map(|path| named(path, "file").ok().map(|file| file.path))
        .chain(files.ids.clone())
        .collect()
}

/// Import the line-aligned files: topic N holds line N of each (documents, references, and a
/// summary per system, in the order given), no scores.
pub fn import(files: &LineFiles) -> Result<Vec<Topic>> {
    if files.summaries.is_empty() {
        bail!("no file of summaries given (one per system, one summary per line)");
    }
    if files.references.is_empty() && files.documents.is_empty() {
        bail!(
            "give the references (--references FILE) or the documents (--documents FILE), or both: \
             a set with neither can be scored by almost nothing"
        );
    }
    let separator = files.sentence_separator.as_deref();
    if separator == Some("") {
        bail!("--sentence-separator: empty (give the text between two sentences, e.g. '<q>')");
    }
    let summaries = read_all(named_all(&files.summaries, "system", "systems")?)?;
    let references = read_all(named_all(&files.references, "reference", "references")?)?;
    let documents = read_all(named_all(&files.documents, "document", "documents")?)?;
    let ids = match &files.ids {
        Some(path) => Some((path.as_path(), records(path)?)),
        None => None,
    };
    let mut counts: Vec<(&Path, usize)> = summaries
        .iter()
        .chain(&references)
        .chain(&documents)
        .map(|read| (read.file.path.as_path(), read.records.len()))
        .collect();
    counts.extend(ids.iter().map(|(path, records)| (*path, records.len())));
    check_aligned(&counts)?;
    let count = counts.first().map_or(0, |(_, count)| *count);
    let ids = match ids {
        Some((path, records)) => topic_ids(path, records)?,
        None => (1..=count).map(|line| line.to_string()).collect(),
    };
    let mut empty_summaries = 0;
    let mut first_empty = None;
    let mut topics = Vec::with_capacity(count);
    for (i, id) in ids.into_iter().enumerate() {
        let mut topic = Topic::new(id);
        for read in &documents {
            let text = source_text(read, i, separator, "document")?;
            topic
                .documents
                .push(Document::new(read.file.name.as_str(), text));
        }
        for read in &references {
            let text = source_text(read, i, separator, "reference")?;
            topic
                .references
                .push(Reference::new(read.file.name.as_str(), text));
        }
        for read in &summaries {
            let text = text_of(&read.records[i], separator);
            if text.trim().is_empty() {
                empty_summaries += 1;
                first_empty
                    .get_or_insert_with(|| format!("{}:{}", read.file.path.display(), i + 1));
            }
            topic
                .summaries
                .push(Summary::new(read.file.name.as_str(), text));
        }
        topics.push(topic);
    }
    if let Some(first) = first_empty {
        aesop_core::eprintln_quiet!(
            "note: {} (the first at {first}), kept: they score as empty texts",
            aesop_core::counted(empty_summaries, "empty summary", "empty summaries")
        );
    }
    Ok(topics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_lines_crlf_and_a_final_break_read_as_unix_ones() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("a.txt");
        let cases: [(&[u8], &[&str]); 6] = [
            (b"", &[]),
            (b"one\ntwo\n", &["one", "two"]),
            (b"one\r\ntwo", &["one", "two"]),
            (b"\xEF\xBB\xBFone\r\n\r\n", &["one", ""]),
            (b"\n", &[""]),
            (b"a\rb\n", &["a\rb"]),
        ];
        for (bytes, expected) in cases {
            std::fs::write(&file, bytes).expect("write");
            assert_eq!(records(&file).expect("read"), expected, "{bytes:?}");
        }
        std::fs::write(&file, b"fine\nbad \xFF\n").expect("write");
        let message = format!("{:#}", records(&file).expect_err("not UTF-8"));
        assert!(message.contains("a.txt:2: invalid UTF-8"), "{message}");
    }

    #[test]
    fn a_separator_splits_a_line_into_trimmed_sentences() {
        assert_eq!(
            text_of("One. <q>Two.<q><q> Three. <q>", Some("<q>")),
            "One.\nTwo.\nThree."
        );
        assert_eq!(text_of(" As is. <q>", None), " As is. <q>");
        assert_eq!(text_of(" <n> ", Some("<n>")), "");
    }

    #[test]
    fn files_are_named_by_their_stem_or_as_name_equals_path() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("bart.large.txt");
        std::fs::write(&file, "x\n").expect("write");
        assert_eq!(named(&file, "system").expect("named").name, "bart.large");
        let gz = dir.path().join("lead3.txt.gz");
        std::fs::write(&gz, "x\n").expect("write");
        assert_eq!(named(&gz, "system").expect("named").name, "lead3");
        let given = PathBuf::from(format!("run1={}", file.display()));
        let run = named(&given, "system").expect("named");
        assert_eq!(
            (run.name.as_str(), run.path.as_path()),
            ("run1", file.as_path())
        );
        // An existing file whose name holds `=` is that file.
        let odd = dir.path().join("a=b.txt");
        std::fs::write(&odd, "x\n").expect("write");
        assert_eq!(named(&odd, "system").expect("named").name, "a=b");
        let message = format!(
            "{:#}",
            named(Path::new("x=missing.txt"), "system").expect_err("no file")
        );
        assert!(message.contains("missing.txt: no such file"), "{message}");
        let twice = [file.clone(), file.clone()];
        let message = format!(
            "{:#}",
            named_all(&twice, "system", "systems").expect_err("twice")
        );
        assert!(
            message.contains("two systems named \"bart.large\""),
            "{message}"
        );
    }
}
