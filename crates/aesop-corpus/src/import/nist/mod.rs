//! NIST TAC 2008-2011 and DUC 2005-2007, read as NIST ships them (docs/JUDGMENT_SETS.md and
//! /work/shared/docs/TAC_FORMAT.md): unpacked directories or the tarballs themselves.

pub mod duc;
pub(crate) mod markup;
pub mod tac;

use crate::{Document, Query, Reference, Summary, Topic};
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where the bytes of a found file are.
enum Location {
    Disk(PathBuf),
    /// An entry read from a tarball (only the entries an importer wants are kept).
    Memory(Vec<u8>),
}

/// One file found under the import root.
struct SourceFile {
    /// Path components, outermost first (a tarball contributes its own name then its entry's).
    components: Vec<String>,
    /// What error messages call this file: a disk path, or `archive.tgz:entry/path`.
    display: String,
    location: Location,
}

impl SourceFile {
    fn name(&self) -> &str {
        self.components.last().map(String::as_str).unwrap_or("")
    }

    /// The n-th directory above the file (1 = parent).
    fn ancestor(&self, n: usize) -> &str {
        self.components
            .len()
            .checked_sub(n + 1)
            .and_then(|i| self.components.get(i))
            .map(String::as_str)
            .unwrap_or("")
    }

    fn bytes(&self) -> Result<std::borrow::Cow<'_, [u8]>> {
        match &self.location {
            Location::Disk(path) => Ok(std::borrow::Cow::Owned(
                std::fs::read(path).with_context(|| format!("{}: cannot read", self.display))?,
            )),
            Location::Memory(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
        }
    }

    /// The file as text, decoded leniently (see [`decode`]).
    fn text(&self) -> Result<String> {
        Ok(decode(&self.bytes()?))
    }
}

/// Every wanted file under `root` (a directory, a tarball, or a single file), including the
/// wanted entries of tarballs found on the way (`.tar`, `.tar.gz`, `.tgz`, nested once).
fn collect_files(root: &Path, wanted: &dyn Fn(&SourceFile) -> bool) -> Result<Vec<SourceFile>> {
    let mut files = Vec::new();
    if root.is_dir() {
        walk(root, Vec::new(), wanted, &mut files)?;
    } else {
        add_file(root, Vec::new(), wanted, &mut files)?;
    }
    files.sort_by(|a, b| a.components.cmp(&b.components));
    Ok(files)
}

fn walk(
    dir: &Path,
    components: Vec<String>,
    wanted: &dyn Fn(&SourceFile) -> bool,
    files: &mut Vec<SourceFile>,
) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot list", dir.display()))?;
        let path = entry.path();
        let mut here = components.clone();
        here.push(entry.file_name().to_string_lossy().into_owned());
        // Symlinked directories are not followed, so a link cycle cannot loop.
        let file_type = entry
            .file_type()
            .with_context(|| format!("{}: cannot stat", path.display()))?;
        if file_type.is_dir() {
            walk(&path, here, wanted, files)?;
        } else {
            add_file(&path, here, wanted, files)?;
        }
    }
    Ok(())
}

fn is_tarball(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.ends_with(".tar") || name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

fn add_file(
    path: &Path,
    mut components: Vec<String>,
    wanted: &dyn Fn(&SourceFile) -> bool,
    files: &mut Vec<SourceFile>,
) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if components.is_empty() {
        components.push(name.clone());
    }
    if is_tarball(&name) {
        let file = std::fs::File::open(path)
            .with_context(|| format!("{}: cannot open", path.display()))?;
        let display = path.display().to_string();
        return read_tarball(file, &name, &components, &display, wanted, files, 0);
    }
    let file = SourceFile {
        display: path.display().to_string(),
        components,
        location: Location::Disk(path.to_path_buf()),
    };
    if wanted(&file) {
        files.push(file);
    }
    Ok(())
}

fn read_tarball(
    reader: impl Read,
    name: &str,
    components: &[String],
    display: &str,
    wanted: &dyn Fn(&SourceFile) -> bool,
    files: &mut Vec<SourceFile>,
    depth: usize,
) -> Result<()> {
    let lower = name.to_ascii_lowercase();
    let reader: Box<dyn Read + '_> = if lower.ends_with(".gz") || lower.ends_with(".tgz") {
        Box::new(flate2::read::MultiGzDecoder::new(reader))
    } else {
        Box::new(reader)
    };
    let mut archive = tar::Archive::new(reader);
    let entries = archive
        .entries()
        .with_context(|| format!("{display}: not a readable tar archive"))?;
    for entry in entries {
        let mut entry = entry.with_context(|| format!("{display}: corrupt tar archive"))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let entry_path = entry
            .path()
            .with_context(|| format!("{display}: bad entry name"))?
            .to_string_lossy()
            .replace('\\', "/");
        let mut here = components.to_vec();
        here.extend(
            entry_path
                .split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .map(str::to_string),
        );
        let entry_display = format!("{display}:{entry_path}");
        let entry_name = here.last().cloned().unwrap_or_default();
        if is_tarball(&entry_name) && depth < 2 {
            let mut bytes = Vec::new();
            entry
                .read_to_end(&mut bytes)
                .with_context(|| format!("{entry_display}: cannot read"))?;
            read_tarball(
                bytes.as_slice(),
                &entry_name,
                &here,
                &entry_display,
                wanted,
                files,
                depth + 1,
            )?;
            continue;
        }
        let mut file = SourceFile {
            components: here,
            display: entry_display,
            location: Location::Memory(Vec::new()),
        };
        if wanted(&file) {
            let mut bytes = Vec::new();
            entry
                .read_to_end(&mut bytes)
                .with_context(|| format!("{}: cannot read", file.display))?;
            file.location = Location::Memory(bytes);
            files.push(file);
        }
    }
    Ok(())
}

/// NIST files are mostly ASCII with stray latin-1 / Windows-1252 bytes: valid UTF-8 is taken
/// as is, anything else is decoded as Windows-1252 (latin-1 with printable 0x80-0x9F), so no
/// byte is lost and nothing fails.
pub(crate) fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes.iter().map(|&b| windows_1252(b)).collect(),
    }
}

fn windows_1252(byte: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž',
        '\u{8F}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}',
        'ž', 'Ÿ',
    ];
    match byte {
        0x80..=0x9F => HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

/// A summary file name `D0805-A.M.100.A.5`: five dot-separated fields; field 0 is the
/// topic (or topic-set), field 4 the summarizer (a number for systems, letters for humans:
/// `2~`, an editor's backup of system 2, is no summarizer). Returns (field 0 upper-cased,
/// summarizer).
fn parse_summary_name(name: &str) -> Option<(String, String)> {
    let fields: Vec<&str> = name.split('.').collect();
    if fields.len() != 5 || fields.iter().any(|f| f.trim().is_empty()) {
        return None;
    }
    let summarizer = fields[4];
    if !summarizer.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some((fields[0].to_ascii_uppercase(), summarizer.to_string()))
}

/// Files an editor or a copy leaves beside the ones it touched (`…A.2~`, `.…swp`, `#…#`,
/// `….bak`): not summaries, and not worth a warning.
fn is_editor_leftover(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    name.starts_with('.')
        || name.ends_with('~')
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
        || [".bak", ".orig", ".swp", ".tmp", ".rej"]
            .iter()
            .any(|extension| lower.ends_with(extension))
}

/// True for files under `<...>/ROUGE/peers/` or `<...>/ROUGE/models/` (not `manual/peers/`,
/// which holds pyramid annotations under the same file names).
fn summary_kind(file: &SourceFile) -> Option<SummaryKind> {
    if !file.ancestor(2).eq_ignore_ascii_case("ROUGE") {
        return None;
    }
    match file.ancestor(1).to_ascii_lowercase().as_str() {
        "peers" => Some(SummaryKind::Peer),
        "models" => Some(SummaryKind::Model),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SummaryKind {
    Peer,
    Model,
}

/// Summary text: lines with trailing spaces removed, leading/trailing blank lines dropped,
/// CRLF normalised. Sentence layout is kept as shipped. A blank file gives "".
fn summary_text(raw: &str) -> String {
    let lines: Vec<&str> = raw.lines().map(str::trim_end).collect();
    lines.join("\n").trim().to_string()
}

/// Human summarizers are letters (A-H in TAC, A-J in DUC); systems are numbers.
fn is_human(summarizer: &str) -> bool {
    summarizer.chars().all(|c| c.is_ascii_alphabetic())
}

/// Summarizers in NIST order: systems by number, then humans by letter.
fn summarizer_order(summarizer: &str) -> (bool, u64, String) {
    (
        is_human(summarizer),
        summarizer.parse().unwrap_or(u64::MAX),
        summarizer.to_string(),
    )
}

/// The summaries found for one topic(-set): summarizer -> (kind, text, file).
type SummaryFiles = BTreeMap<String, (SummaryKind, String, String)>;

/// Read every peer/model file, keyed by topic(-set) field. A file whose name does not parse is
/// not read, and said: a warning for a misnamed file (a summary with a field fewer was lost
/// unsaid), a note for editor leftovers. A human summary present both in models/ and peers/
/// (DUC 2006 ships it twice) is kept once.
fn read_summaries(files: &[SourceFile]) -> Result<BTreeMap<String, SummaryFiles>> {
    let mut by_topic: BTreeMap<String, SummaryFiles> = BTreeMap::new();
    let mut misnamed = Vec::new();
    let mut leftovers = Vec::new();
    for file in files {
        let Some(kind) = summary_kind(file) else {
            continue;
        };
        let Some((topic, summarizer)) = parse_summary_name(file.name()) else {
            if is_editor_leftover(file.name()) {
                leftovers.push(file.display.as_str());
            } else {
                misnamed.push(file.display.as_str());
            }
            continue;
        };
        let text = summary_text(&file.text()?);
        let entry = by_topic.entry(topic).or_default();
        match entry.get(&summarizer) {
            Some((_, other_text, other_file)) if *other_text != text => bail!(
                "{}: summarizer {summarizer} already has a different summary for this topic in {other_file}",
                file.display
            ),
            Some(_) if kind == SummaryKind::Peer => {}
            _ => {
                entry.insert(summarizer, (kind, text, file.display.clone()));
            }
        }
    }
    if let Some(first) = misnamed.first() {
        aesop_core::eprintln_quiet!(
            "warning: {} in ROUGE/peers or ROUGE/models {} not named as NIST summaries \
             (five dot-separated fields, TOPIC-SET.M.100.SELECTOR.SUMMARIZER, the summarizer a \
             number or letters) and {} not read (e.g. {first})",
            aesop_core::counted(misnamed.len(), "file", "files"),
            if misnamed.len() == 1 { "is" } else { "are" },
            if misnamed.len() == 1 { "was" } else { "were" }
        );
    }
    if let Some(first) = leftovers.first() {
        aesop_core::eprintln_quiet!(
            "note: {} in ROUGE/peers or ROUGE/models {} not read (e.g. {first})",
            aesop_core::counted(
                leftovers.len(),
                "editor backup or hidden file",
                "editor backup or hidden files"
            ),
            if leftovers.len() == 1 { "was" } else { "were" }
        );
    }
    Ok(by_topic)
}

/// Scores of one summarizer on one topic(-set), with the line each came from for duplicates.
#[derive(Default)]
struct ScoreTable {
    /// (topic, summarizer) -> score name -> value
    scores: HashMap<(String, String), BTreeMap<String, f64>>,
    /// (topic, summarizer, score name) -> "file:line" where it was first set
    origin: HashMap<(String, String, String), String>,
    /// Whether a summary took any score ([`ScoreTable::take`]).
    taken: bool,
}

impl ScoreTable {
    /// Record a score; a second value for the same cell is an error naming both lines, unless
    /// `replace` (DUC 2005's processed_pans.txt repeats some clusters: the last one is kept).
    fn set(
        &mut self,
        topic: &str,
        summarizer: &str,
        name: &str,
        value: Option<f64>,
        origin: String,
        replace: bool,
    ) -> Result<()> {
        let key = (topic.to_string(), summarizer.to_string(), name.to_string());
        if let Some(first) = self.origin.get(&key).filter(|_| !replace) {
            bail!("{origin}: {name} of summarizer {summarizer} on {topic} is already given at {first}");
        }
        self.origin.insert(key, origin);
        if let Some(value) = value {
            self.scores
                .entry((topic.to_string(), summarizer.to_string()))
                .or_default()
                .insert(name.to_string(), value);
        }
        Ok(())
    }

    fn take(&mut self, topic: &str, summarizer: &str) -> BTreeMap<String, f64> {
        let scores = self
            .scores
            .remove(&(topic.to_string(), summarizer.to_string()))
            .unwrap_or_default();
        self.taken |= !scores.is_empty();
        scores
    }

    /// Say which scores no summary took (every summary has been built): rows whose topic or
    /// summarizer matches no summary file were dropped without a word, even when that was every
    /// row (`D0901A-A` in the score files, `D0901-A` in the file names). NIST's tables do score
    /// some summaries the tree does not ship, so that is a note; a warning when no summary got
    /// any score.
    fn warn_untaken(&self, root: &Path) {
        if self.scores.is_empty() {
            return;
        }
        let mut keys: Vec<&(String, String)> = self.scores.keys().collect();
        keys.sort();
        let (topic, summarizer) = keys[0];
        let example = self
            .origin
            .iter()
            .filter(|((t, s, _), _)| t == topic && s == summarizer)
            .map(|(_, origin)| origin.as_str())
            .min()
            .unwrap_or("?");
        let (level, hint) = if self.taken {
            ("note", "")
        } else {
            (
                "warning",
                "; no summary got a score: check that the score files' topic ids and summarizers are the summary files' ones",
            )
        };
        aesop_core::eprintln_quiet!(
            "{level}: {}: the scores of {} match no summary file and are left out (e.g. summarizer {summarizer} on {topic}, {example}){hint}",
            root.display(),
            aesop_core::counted(
                keys.len(),
                "(topic, summarizer) pair",
                "(topic, summarizer) pairs"
            )
        );
    }
}

/// Warn about the documents the topics file lists but no file holds, per topic: a documents
/// folder that is a link, an archive inside the tree, or a file deleted leaves a topic with
/// fewer documents (or none), and its content features change.
fn warn_missing_documents(root: &Path, missing: &[(String, Vec<String>)]) {
    let topics: Vec<&(String, Vec<String>)> =
        missing.iter().filter(|(_, ids)| !ids.is_empty()).collect();
    let Some((topic, ids)) = topics.first() else {
        return;
    };
    let total: usize = topics.iter().map(|(_, ids)| ids.len()).sum();
    aesop_core::eprintln_quiet!(
        "warning: {}: {} the topics file lists {} in no file of the tree, in {} (e.g. {topic}: {}); {} imported without {}",
        root.display(),
        aesop_core::counted(total, "document", "documents"),
        if total == 1 { "is" } else { "are" },
        aesop_core::counted(topics.len(), "topic", "topics"),
        ids.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
        if topics.len() == 1 {
            "that topic is"
        } else {
            "those topics are"
        },
        if total == 1 { "it" } else { "them" }
    );
}

/// Whitespace-separated rows of a table file after `skip` header lines: (line number, columns).
fn table_rows(text: &str, skip: usize) -> Vec<(usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .skip(skip)
        .map(|(i, line)| (i + 1, line.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, columns)| !columns.is_empty())
        .collect()
}

/// A numeric cell; `NaN`, `NA`, `N/A` and `-` mean missing.
fn cell(columns: &[&str], index: usize, origin: &str) -> Result<Option<f64>> {
    let Some(token) = columns.get(index) else {
        bail!("{origin}: column {index} is missing");
    };
    if ["nan", "na", "n/a", "-"].contains(&token.to_ascii_lowercase().as_str()) {
        return Ok(None);
    }
    match token.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(Some(value)),
        _ => bail!("{origin}: column {index}: expected a number, found {token:?}"),
    }
}

/// One topic statement from a topics file.
#[derive(Default, Clone)]
struct TopicStatement {
    title: Option<String>,
    narrative: Option<String>,
    /// Other attributes/fields kept in the query (category, granularity).
    extra: BTreeMap<String, Value>,
    /// Docset id (e.g. `D0801A-A`) -> document ids in topic-file order.
    docsets: BTreeMap<String, Vec<String>>,
}

/// Topic id without its selector letter, upper-cased: `D0801A` -> `D0801`, `d301i` -> `D301`.
fn base_topic_id(id: &str) -> String {
    let id = id.trim().to_ascii_uppercase();
    let mut chars = id.chars();
    match (chars.next_back(), id.chars().rev().nth(1)) {
        (Some(last), Some(before)) if last.is_ascii_alphabetic() && before.is_ascii_digit() => {
            id[..id.len() - 1].to_string()
        }
        _ => id,
    }
}

/// 2011 topics list Gigaword-5 ids with an LDC catalogue suffix (`...LDC2011T07`): strip it.
fn strip_ldc_suffix(id: &str) -> &str {
    let id = id.trim();
    if id.len() > 11 && id.is_char_boundary(id.len() - 10) {
        let (head, tail) = id.split_at(id.len() - 10);
        let b = tail.as_bytes();
        if tail.starts_with("LDC")
            && b[3..7].iter().all(u8::is_ascii_digit)
            && b[7].is_ascii_alphabetic()
            && b[8..10].iter().all(u8::is_ascii_digit)
        {
            return head.trim_end_matches(['.', '_', '-']);
        }
    }
    id
}

/// Parse every `<topic>` of a topics file (TAC XML with a non-XML preamble, or DUC SGML).
fn parse_topics(text: &str) -> BTreeMap<String, TopicStatement> {
    let mut topics = BTreeMap::new();
    for element in markup::elements(text, "topic") {
        let id = element
            .attr("id")
            .map(str::to_string)
            .or_else(|| markup::first_text(element.inner, "num"));
        let Some(id) = id.filter(|id| !id.trim().is_empty()) else {
            continue; // a "<topic>" mentioned in a preamble, not a topic
        };
        let mut statement = TopicStatement {
            title: markup::first_text(element.inner, "title"),
            narrative: markup::first_text(element.inner, "narrative")
                .or_else(|| markup::first_text(element.inner, "narr")),
            ..TopicStatement::default()
        };
        if let Some(category) = element.attr("category") {
            let value = category
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| Value::from(category.trim()));
            statement.extra.insert("category".to_string(), value);
        }
        if let Some(granularity) = markup::first_text(element.inner, "granularity") {
            statement
                .extra
                .insert("granularity".to_string(), Value::from(granularity));
        }
        for tag in ["docsetA", "docsetB"] {
            for docset in markup::elements(element.inner, tag) {
                let Some(docset_id) = docset.attr("id") else {
                    continue;
                };
                let ids = markup::elements(docset.inner, "doc")
                    .iter()
                    .filter_map(|doc| doc.attr("id"))
                    .map(|doc_id| strip_ldc_suffix(doc_id).to_string())
                    .collect();
                statement
                    .docsets
                    .insert(docset_id.trim().to_ascii_uppercase(), ids);
            }
        }
        topics.insert(base_topic_id(&id), statement);
    }
    topics
}

/// The topic statements of a tree, and whether it has a topics file at all.
struct Statements {
    by_topic: BTreeMap<String, TopicStatement>,
    found_file: bool,
}

/// Read and merge every topics file (a topic defined twice keeps its first statement). A file
/// that ends inside a `<topic>` (cut short) is warned about: the topics after it are missing,
/// and the last one may have lost its narrative or documents list.
fn read_topic_statements(files: &[SourceFile]) -> Result<Statements> {
    let mut statements = Statements {
        by_topic: BTreeMap::new(),
        found_file: false,
    };
    for file in files.iter().filter(|f| is_topics_file(f)) {
        statements.found_file = true;
        let text = file.text()?;
        let topics = parse_topics(&text);
        let unclosed = markup::elements(&text, "topic")
            .len()
            .saturating_sub(text.to_ascii_lowercase().matches("</topic").count());
        if unclosed > 0 {
            aesop_core::eprintln_quiet!(
                "warning: {}: {} no end tag, so the file may be cut short: topics after its last complete one have no statement, and the last may lack part of its own ({} read)",
                file.display,
                match unclosed {
                    1 => "1 <topic> element has".to_string(),
                    n => format!("{n} <topic> elements have"),
                },
                aesop_core::counted(topics.len(), "topic", "topics")
            );
        }
        for (id, statement) in topics {
            statements.by_topic.entry(id).or_insert(statement);
        }
    }
    Ok(statements)
}

impl Statements {
    fn get(&self, topic: &str) -> Option<&TopicStatement> {
        self.by_topic.get(topic)
    }

    /// Say which imported topics got no query: all of them when the tree has no topics file
    /// (a note: the scores do not need one), some when the file lacks them (a warning: a file cut
    /// short, or the wrong year's file, left queries out unsaid).
    fn warn_unstated(&self, root: &Path, topics: &[Topic]) {
        let unstated: Vec<&str> = topics
            .iter()
            .filter(|t| t.query.is_none())
            .map(|t| t.topic.as_str())
            .collect();
        let Some(first) = unstated.first() else {
            return;
        };
        if !self.found_file {
            aesop_core::eprintln_quiet!(
                "note: {}: no topics file (a name holding `topics`, e.g. UpdateSumm08_test_topics.xml.txt) in the tree: {} imported without {} query (title and narrative)",
                root.display(),
                match unstated.len() {
                    1 => "the 1 topic is".to_string(),
                    n => format!("the {n} topics are"),
                },
                if unstated.len() == 1 { "its" } else { "their" }
            );
        } else {
            aesop_core::eprintln_quiet!(
                "warning: {}: {} of {} {} no statement in the topics file (e.g. {first}) and {} imported without {} query; a topics file cut short, or another year's, does this",
                root.display(),
                unstated.len(),
                aesop_core::counted(topics.len(), "topic", "topics"),
                if unstated.len() == 1 { "has" } else { "have" },
                if unstated.len() == 1 { "is" } else { "are" },
                if unstated.len() == 1 { "its" } else { "their" }
            );
        }
    }
}

fn is_topics_file(file: &SourceFile) -> bool {
    let name = file.name().to_ascii_lowercase();
    name.contains("topics")
        && [".xml", ".xml.txt", ".sgml", ".sgm", ".txt"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

fn query_of(statement: &TopicStatement) -> Query {
    let mut query = Query {
        title: statement.title.clone(),
        narrative: statement.narrative.clone(),
        ..Query::default()
    };
    query.extra.extend(statement.extra.clone());
    query
}

/// Parse the documents of a docset directory, ordered as the topics file lists them when it
/// does (ids it lists but no file holds are reported in `missing`).
fn docset_documents(
    files: &[&SourceFile],
    listed: Option<&Vec<String>>,
) -> Result<(Vec<Document>, Vec<String>)> {
    let mut documents = Vec::new();
    for file in files {
        documents.extend(markup::documents(&file.text()?, file.name()));
    }
    let mut missing = Vec::new();
    if let Some(listed) = listed {
        let position: HashMap<&str, usize> = listed
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        documents.sort_by_key(|d| {
            (
                position.get(d.id.as_str()).copied().unwrap_or(usize::MAX),
                d.id.clone(),
            )
        });
        for id in listed {
            if !documents.iter().any(|d| &d.id == id) {
                missing.push(id.clone());
            }
        }
    } else {
        documents.sort_by(|a, b| a.id.cmp(&b.id));
    }
    // A document with no text (a `<DOC>` without `<TEXT>` or `<GRAPHIC>`) is left out: a set
    // may not hold a blank document, which would change every summary's content features.
    // It is not `missing`: its file was there.
    documents.retain(|d| !d.text.trim().is_empty());
    Ok((documents, missing))
}

/// Build the references and summaries of one topic(-set) from its summary files and scores.
/// Every summarizer with a file becomes a summary (humans with `human: true`); the human
/// (model) summaries are also the references. `add_targets` adds the mapped targets.
fn add_summaries(
    topic: &mut Topic,
    key: &str,
    files: Option<&SummaryFiles>,
    table: &mut ScoreTable,
    add_targets: &dyn Fn(&mut BTreeMap<String, f64>, bool),
) {
    let Some(files) = files else {
        return;
    };
    let mut summarizers: Vec<&String> = files.keys().collect();
    summarizers.sort_by_key(|s| summarizer_order(s));
    for summarizer in summarizers {
        let (kind, text, _) = &files[summarizer];
        let human = is_human(summarizer);
        // A blank human summary is kept as a summary (scored as a degenerate one) but is no
        // reference: a set may not hold a blank reference, which would set ROUGE to 0.
        if (*kind == SummaryKind::Model || human) && !text.trim().is_empty() {
            topic
                .references
                .push(Reference::new(summarizer.clone(), text.clone()));
        }
        let mut summary = Summary::new(summarizer.clone(), text.clone());
        summary.human = human;
        summary.scores = table.take(key, summarizer);
        add_targets(&mut summary.scores, human);
        topic.summaries.push(summary);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_and_windows_1252() {
        assert_eq!(decode("caf\u{e9}".as_bytes()), "café");
        assert_eq!(decode(b"caf\xe9 \x92s"), "café ’s");
    }

    #[test]
    fn parses_summary_names() {
        assert_eq!(
            parse_summary_name("D0805-a.M.100.A.5"),
            Some(("D0805-A".to_string(), "5".to_string()))
        );
        assert_eq!(parse_summary_name("README"), None);
        assert_eq!(parse_summary_name("D0805-A.M.100.A"), None);
        assert_eq!(parse_summary_name("D0805-A.M.100.A.2~"), None);
        assert!(is_editor_leftover("D0805-A.M.100.A.2~"));
        assert!(is_editor_leftover(".D0805-A.M.100.A.2.swp"));
        assert!(!is_editor_leftover("D0805-A.M.100.A"));
    }

    #[test]
    fn topic_ids_and_ldc_suffix() {
        assert_eq!(base_topic_id("D0801A"), "D0801");
        assert_eq!(base_topic_id(" d301i "), "D301");
        assert_eq!(base_topic_id("D0801"), "D0801");
        assert_eq!(
            strip_ldc_suffix("AFP_ENG_20050126.0676.LDC2011T07"),
            "AFP_ENG_20050126.0676"
        );
        assert_eq!(
            strip_ldc_suffix("AFP_ENG_20050126.0676"),
            "AFP_ENG_20050126.0676"
        );
    }
}
