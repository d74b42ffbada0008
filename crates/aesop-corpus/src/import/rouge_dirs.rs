//! `aesop import rouge SYSTEM_DIR… --model-dir DIR --system-pattern RE --model-pattern RE`:
//! summaries laid out as pyrouge reads them, the way most ROUGE users in Python keep theirs.
//! pyrouge writes ROUGE-1.5.5's configuration into a temporary directory and deletes it, so
//! such a user has no settings.xml for `aesop import rouge settings.xml`: only the directories
//! and the two patterns they gave `Rouge155` (`system_filename_pattern`,
//! `model_filename_pattern`).
//!
//! Read as pyrouge pairs them: a system file is one whose name the system pattern matches from
//! its start (Python's `re.match`), its document id the pattern's first group; the document's
//! references are the files of the model directory whose names the model pattern, its `#ID#`
//! replaced by that id, matches from the start. One topic per document id, each system
//! directory one system (named by the directory), each reference named by its file. The texts
//! are read as ROUGE reads them (`--input-format`: SPL, pyrouge's plain text, one sentence per
//! line, by default; SEE, the HTML pyrouge converts them to).
//!
//! Where pyrouge would pair files silently wrong, the import stops: a pattern without a group
//! (pyrouge fails with an `IndexError`), a model pattern without `#ID#` (every document would get
//! every model), two files of one system for one document, a document without a reference.

use super::rouge_config::{read_sentences, reference, FormatFrom, InputFormat};
use crate::{Summary, Topic};
use anyhow::{bail, Context, Result};
use regex::Regex;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What `aesop import rouge` reads in the pyrouge layout.
#[derive(Debug, Clone)]
pub struct PyrougeLayout {
    /// One directory of summaries per system (pyrouge's `system_dir`).
    pub system_dirs: Vec<PathBuf>,
    /// The reference summaries (pyrouge's `model_dir`).
    pub model_dir: PathBuf,
    /// pyrouge's `system_filename_pattern`: its first group is the document id.
    pub system_pattern: String,
    /// pyrouge's `model_filename_pattern`, `#ID#` standing for the document id.
    pub model_pattern: String,
    /// How the files are read: `SPL` (plain text, pyrouge's input), `SEE` or `ISI`.
    pub input_format: String,
}

/// The placeholder of the document id in pyrouge's model pattern.
const ID_PLACEHOLDER: &str = "#ID#";

/// `pattern` compiled to match from the start of a name, as Python's `re.match` does.
fn from_start(pattern: &str, flag: &str) -> Result<Regex> {
    Regex::new(&format!("^(?:{pattern})")).with_context(|| {
        format!(
            "{flag} {pattern:?}: not a regular expression aesop reads (Rust's `regex` syntax, \
             close to Python's but without look-around or back-references)"
        )
    })
}

/// The file names in `dir`, sorted (pyrouge sorts them).
fn file_names(dir: &Path, what: &str) -> Result<Vec<String>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("{what} {}: cannot read the directory", dir.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("{what} {}: cannot list", dir.display()))?;
        if !entry.path().is_file() {
            continue;
        }
        match entry.file_name().into_string() {
            Ok(name) => names.push(name),
            Err(name) => bail!(
                "{what} {}: the file name {name:?} is not UTF-8, so no pattern can match it",
                dir.display()
            ),
        }
    }
    names.sort();
    Ok(names)
}

/// A system's name: its directory's last component.
fn system_name(dir: &Path) -> Result<String> {
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    canonical
        .file_name()
        .and_then(|name| name.to_str())
        .map(str::to_string)
        .with_context(|| {
            format!(
                "system directory {}: no name to call its system by",
                dir.display()
            )
        })
}

/// Each system's (name, directory, document id → file), in the order given.
type Systems = Vec<(String, PathBuf, Vec<(String, PathBuf)>)>;

fn systems(layout: &PyrougeLayout) -> Result<Systems> {
    let pattern = from_start(&layout.system_pattern, "--system-pattern")?;
    if pattern.captures_len() < 2 {
        bail!(
            "--system-pattern {:?} has no group: its first group, in parentheses, is the document \
             id that pairs a summary with its references (pyrouge: `text.(\\d+).txt`)",
            layout.system_pattern
        );
    }
    let mut systems: Systems = Vec::new();
    for dir in &layout.system_dirs {
        let name = system_name(dir)?;
        if let Some((_, other, _)) = systems.iter().find(|(n, _, _)| *n == name) {
            bail!(
                "system directories {} and {} are both named {name:?}: each directory is one \
                 system, named by the directory",
                other.display(),
                dir.display()
            );
        }
        let mut documents: Vec<(String, PathBuf)> = Vec::new();
        for file in file_names(dir, "system directory")? {
            let Some(captures) = pattern.captures(&file) else {
                continue;
            };
            let id = captures.get(1).map_or("", |m| m.as_str()).to_string();
            if id.is_empty() {
                bail!(
                    "{}: --system-pattern {:?} matches with an empty first group: no document id",
                    dir.join(&file).display(),
                    layout.system_pattern
                );
            }
            if let Some((_, first)) = documents.iter().find(|(d, _)| *d == id) {
                bail!(
                    "{}: a second summary of document {id:?} for system {name:?} (the first: {}); \
                     narrow --system-pattern {:?}",
                    dir.join(&file).display(),
                    first.display(),
                    layout.system_pattern
                );
            }
            documents.push((id, dir.join(&file)));
        }
        if documents.is_empty() {
            bail!(
                "system directory {}: no file name matches --system-pattern {:?} from its start",
                dir.display(),
                layout.system_pattern
            );
        }
        systems.push((name, dir.clone(), documents));
    }
    Ok(systems)
}

/// The model files of document `id`, sorted by name.
fn models_of(id: &str, layout: &PyrougeLayout, names: &[String]) -> Result<Vec<PathBuf>> {
    // The id is matched as written (escaped), where pyrouge pastes it into the pattern.
    let pattern = layout
        .model_pattern
        .replace(ID_PLACEHOLDER, &regex::escape(id));
    let pattern = from_start(&pattern, "--model-pattern")?;
    let files: Vec<PathBuf> = names
        .iter()
        .filter(|name| pattern.is_match(name))
        .map(|name| layout.model_dir.join(name))
        .collect();
    if files.is_empty() {
        bail!(
            "document {id:?}: no file of the model directory {} matches --model-pattern {:?} \
             (#ID# = {id}) from its start: every document needs its references",
            layout.model_dir.display(),
            layout.model_pattern
        );
    }
    Ok(files)
}

/// Every summary file the layout pairs: the import never writes its set over one of them.
pub fn files(layout: &PyrougeLayout) -> Vec<PathBuf> {
    let Ok(systems) = systems(layout) else {
        return Vec::new();
    };
    let names = file_names(&layout.model_dir, "model directory").unwrap_or_default();
    let mut files: Vec<PathBuf> = Vec::new();
    for (_, _, documents) in &systems {
        for (id, file) in documents {
            files.push(file.clone());
            files.extend(models_of(id, layout, &names).unwrap_or_default());
        }
    }
    files.sort();
    files.dedup();
    files
}

/// Import the pyrouge layout: one topic per document id, in the order the system directories
/// list them.
pub fn import(layout: &PyrougeLayout) -> Result<Vec<Topic>> {
    let format = InputFormat::parse(&layout.input_format)
        .map_err(|message| anyhow::anyhow!("--input-format: {message}"))?;
    if !layout.model_pattern.contains(ID_PLACEHOLDER) {
        bail!(
            "--model-pattern {:?} has no {ID_PLACEHOLDER}: it stands for the document id, so that \
             each summary is paired with its own references (pyrouge: `text.[A-Z].#ID#.txt`)",
            layout.model_pattern
        );
    }
    let systems = systems(layout)?;
    let names = file_names(&layout.model_dir, "model directory")?;
    let mut order: Vec<String> = Vec::new();
    let mut peers: HashMap<String, Vec<(String, PathBuf)>> = HashMap::new();
    for (name, _, documents) in &systems {
        for (id, file) in documents {
            let listed = peers.entry(id.clone()).or_default();
            if listed.is_empty() {
                order.push(id.clone());
            }
            listed.push((name.clone(), file.clone()));
        }
    }
    let from = FormatFrom::Flag;
    let mut topics = Vec::with_capacity(order.len());
    for id in order {
        let mut topic = Topic::new(id.as_str());
        for file in models_of(&id, layout, &names)? {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            let named = format!("document {id:?}: model {name:?}");
            topic
                .references
                .push(reference(&name, &file, format, &from, &named)?);
        }
        for (system, file) in &peers[&id] {
            let sentences = read_sentences(file, format, &from)?;
            topic
                .summaries
                .push(Summary::new(system.as_str(), sentences.join("\n")));
        }
        topics.push(topic);
    }
    Ok(topics)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(dir: &Path, systems: &[&str]) -> PyrougeLayout {
        PyrougeLayout {
            system_dirs: systems.iter().map(|s| dir.join(s)).collect(),
            model_dir: dir.join("models"),
            system_pattern: r"text\.(\d+)\.txt".to_string(),
            model_pattern: r"text\.[A-Z]\.#ID#\.txt".to_string(),
            input_format: "SPL".to_string(),
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn documents_pair_with_their_models_and_systems_are_directories() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        write(&d.join("bart/text.1.txt"), "The cat sat.\nIt slept.\n");
        write(&d.join("bart/text.12.txt"), "A dog ran.\n");
        write(&d.join("bart/notes.md"), "not a summary");
        write(&d.join("lead/text.12.txt"), "A dog.\n");
        write(&d.join("models/text.A.1.txt"), "A cat sat down.\n");
        write(&d.join("models/text.B.1.txt"), "The cat slept.\n");
        // #ID# = 1 must not take document 12's model: the pattern runs to `.txt`.
        write(&d.join("models/text.A.12.txt"), "The dog ran off.\n");
        let topics = import(&layout(d, &["bart", "lead"])).expect("imports");
        let ids: Vec<&str> = topics.iter().map(|t| t.topic.as_str()).collect();
        assert_eq!(ids, ["1", "12"]);
        let references: Vec<&str> = topics[0].references.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(references, ["text.A.1.txt", "text.B.1.txt"]);
        assert_eq!(topics[0].summaries.len(), 1);
        assert_eq!(topics[0].summaries[0].system, "bart");
        assert_eq!(topics[0].summaries[0].text, "The cat sat.\nIt slept.");
        let systems: Vec<&str> = topics[1]
            .summaries
            .iter()
            .map(|s| s.system.as_str())
            .collect();
        assert_eq!(systems, ["bart", "lead"]);
        assert_eq!(topics[1].references.len(), 1);
        let mut read = files(&layout(d, &["bart", "lead"]));
        read.sort();
        assert_eq!(read.len(), 6, "{read:?}");
    }

    #[test]
    fn what_pyrouge_would_pair_wrong_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        write(&d.join("sys/text.1.txt"), "One.\n");
        write(&d.join("models/text.A.1.txt"), "One one.\n");
        let error = |layout: PyrougeLayout| format!("{:#}", import(&layout).expect_err("refused"));

        let mut no_group = layout(d, &["sys"]);
        no_group.system_pattern = r"text\.\d+\.txt".into();
        assert!(error(no_group).contains("has no group"));

        let mut no_id = layout(d, &["sys"]);
        no_id.model_pattern = r"text\.[A-Z]\.1\.txt".into();
        assert!(error(no_id).contains("has no #ID#"));

        let mut nothing = layout(d, &["sys"]);
        nothing.system_pattern = r"summary_(\d+)\.txt".into();
        assert!(error(nothing).contains("no file name matches --system-pattern"));

        write(&d.join("sys/text.2.txt"), "Two.\n");
        let message = error(layout(d, &["sys"]));
        assert!(
            message.contains("document \"2\": no file of the model directory"),
            "{message}"
        );

        std::fs::remove_file(d.join("sys/text.2.txt")).expect("rm");
        let mut twice = layout(d, &["sys"]);
        twice.system_pattern = r"text\.(\d+)".into();
        write(&d.join("sys/text.1.html"), "One.\n");
        assert!(error(twice).contains("a second summary of document \"1\""));
        std::fs::remove_file(d.join("sys/text.1.html")).expect("rm");

        let mut see = layout(d, &["sys"]);
        see.input_format = "HTML".into();
        assert!(error(see).contains("--input-format"));

        // SEE HTML read as plain text: ROUGE would count the tags as words.
        write(
            &d.join("sys/text.1.txt"),
            "<a name=\"1\">[1]</a> <a href=\"#1\" id=1>One.</a>\n",
        );
        let message = error(layout(d, &["sys"]));
        assert!(message.contains("is it --input-format SEE?"), "{message}");
        let mut see = layout(d, &["sys"]);
        see.input_format = "see".into();
        write(
            &d.join("models/text.A.1.txt"),
            "<a name=\"1\">[1]</a> <a href=\"#1\" id=1>One one.</a>\n",
        );
        let topics = import(&see).expect("SEE read");
        assert_eq!(topics[0].summaries[0].text, "One.");
    }
}
