//! `aesop import rouge settings.xml`: the evaluation configuration ROUGE-1.5.5 reads
//! (`ROUGE-1.5.5.pl -e data … settings.xml`, also what pyrouge writes), so that the summaries a
//! ROUGE user already has become a judgment set without copying a file. One `<EVAL ID=…>` is one
//! topic; each `<P ID=…>` under `<PEERS>` a summary of that system, each `<M ID=…>` under
//! `<MODELS>` a reference with that id; no input documents and no human scores (a ROUGE run has
//! neither). The texts are read as ROUGE reads them, so `aesop features --classes rouge` gives
//! ROUGE's own numbers: `<INPUT-FORMAT TYPE=…>` SPL (each non-blank line a sentence), SEE (the
//! HTML of `<a name="1">[1]</a> <a href="#1" id=1>sentence</a>` lines, by ROUGE's own pattern:
//! other lines are not text) or ISI (`<S SNTNO="1">sentence</S>` lines); the sentences are
//! kept one per line, which ROUGE-L reads as its units. Where ROUGE would silently read a file
//! wrong (a SEE file without a line in SEE's layout, often a plain-text file named in a SEE
//! configuration, which ROUGE reads as empty; SEE or ISI markup under SPL, whose tags ROUGE
//! counts as words), this is an error naming the file.

use super::nist::{decode, markup};
use crate::{Reference, Summary, Topic};
use anyhow::{bail, Context, Result};
use regex::Regex;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// Whether `line`, a file's first line that is not blank, opens a ROUGE-1.5.5 configuration
/// (`<ROUGE-EVAL version="1.0">`, as pyrouge writes it, or a bare `<EVAL ID=…>`), so that a
/// verb given one where a set belongs can point to `aesop import rouge`.
pub(crate) fn opens_rouge_config(line: &str) -> bool {
    let start = line.trim_start().to_ascii_lowercase();
    ["<rouge-eval", "<rouge_eval", "<eval id", "<eval\tid"]
        .iter()
        .any(|opening| start.starts_with(opening))
}

/// How ROUGE reads one summary file (`<INPUT-FORMAT TYPE=…>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// One sentence per line.
    Spl,
    /// The HTML of the SEE annotation tool, one `<a …>` sentence per line.
    See,
    /// `<S SNTNO="…">sentence</S>` lines.
    Isi,
}

impl InputFormat {
    /// `SPL`, `SEE` or `ISI` (any case); an error that says what the others are.
    pub fn parse(value: &str) -> std::result::Result<InputFormat, String> {
        match value.trim().to_ascii_uppercase().as_str() {
            "SPL" => Ok(InputFormat::Spl),
            "SEE" => Ok(InputFormat::See),
            "ISI" => Ok(InputFormat::Isi),
            "SIMPLE" => Err(
                "TYPE=\"SIMPLE\" is ROUGE's Basic Elements input (head|modifier|relation \
                             triples), not text; aesop reads the text formats SPL, SEE and ISI"
                    .to_string(),
            ),
            _ => Err(format!(
                "unknown TYPE={value:?}; ROUGE-1.5.5's text formats are SPL, SEE and ISI"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            InputFormat::Spl => "SPL",
            InputFormat::See => "SEE",
            InputFormat::Isi => "ISI",
        }
    }

    /// ROUGE's pattern of a sentence line, its sentence the first group (SPL: every line).
    fn line_pattern(self) -> Option<&'static Regex> {
        match self {
            InputFormat::Spl => None,
            InputFormat::See => Some(&SEE_LINE),
            InputFormat::Isi => Some(&ISI_LINE),
        }
    }

    /// A sentence line of the layout, for messages.
    fn example(self) -> &'static str {
        match self {
            InputFormat::Spl => "sentence",
            InputFormat::See => "<a name=\"1\">[1]</a> <a href=\"#1\" id=1>sentence</a>",
            InputFormat::Isi => "<S SNTNO=\"1\">sentence</S>",
        }
    }
}

/// ROUGE-1.5.5's SEE line (`readText`): with or without `size="…"`, the sentence runs to the
/// next `<`. The pattern is ROUGE's, so a line it skips is skipped here too.
static SEE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^<a (?:size="[0-9]+" )?name="[0-9]+">\[[0-9]+\]</a>[ \t\r\n\x0C]+<a href="\#[0-9]+" id=[0-9]+>([^<]+)"#,
    )
    .expect("the SEE pattern compiles")
});

/// ROUGE-1.5.5's ISI line.
static ISI_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^<S SNTNO="[0-9a-z,]+">([^<]+)</S>"#).expect("the ISI pattern compiles")
});

/// The sentences of one summary file as ROUGE reads them, one per line; blank ones left out
/// (ROUGE counts no token in them).
fn sentences(text: &str, format: InputFormat) -> Vec<String> {
    text.split('\n')
        .filter_map(|line| match format.line_pattern() {
            None => Some(line),
            Some(pattern) => pattern
                .captures(line)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str()),
        })
        .map(str::trim)
        .filter(|sentence| !sentence.is_empty())
        .map(str::to_string)
        .collect()
}

/// The configuration with its comments blanked (kept as spaces and line breaks, so that the
/// line numbers of what follows stay right): a commented-out `<EVAL>` is not read.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("-->")
            .map_or(rest.len(), |end| start + end + 3);
        out.extend(
            rest[start..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The 1-based line of `part` (a slice of `whole`) in `whole`.
fn line_of(whole: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(whole.as_ptr() as usize);
    whole[..offset.min(whole.len())].matches('\n').count() + 1
}

/// An element's text content as ROUGE takes it: entities decoded, surrounding space trimmed.
fn content(element: &markup::Element) -> String {
    markup::decode_entities(element.inner.trim())
}

/// A summary file named by the configuration. ROUGE opens `root/file` from the directory it
/// runs in; a configuration written beside its summaries is read from elsewhere too, so a
/// relative path missing from the current directory is looked for beside the configuration.
fn locate(config: &Path, root: Option<&str>, file: &str) -> std::result::Result<PathBuf, String> {
    let named = match root {
        Some(root) if !root.is_empty() => Path::new(root).join(file),
        _ => PathBuf::from(file),
    };
    if named.is_absolute() {
        return match named.is_file() {
            true => Ok(named),
            false => Err(format!("{}: no such file", named.display())),
        };
    }
    let beside = config.parent().map(|dir| dir.join(&named));
    if named.is_file() {
        return Ok(named);
    }
    match beside {
        Some(beside) if beside.is_file() => Ok(beside),
        Some(beside) if beside != named => Err(format!(
            "{}: no such file (looked in the current directory, as ROUGE does, and beside the \
             configuration: {})",
            named.display(),
            beside.display()
        )),
        _ => Err(format!("{}: no such file", named.display())),
    }
}

/// One `<P>` or `<M>` entry: its id, its file as written, and its line in the configuration.
struct Entry {
    id: String,
    file: String,
    line: usize,
}

/// The `<tag ID=…>file</tag>` entries inside the first `<list>` element of an `<EVAL>`.
fn entries(
    whole: &str,
    eval: &str,
    list: &str,
    tag: &str,
    at: &dyn Fn(usize) -> String,
) -> Result<Vec<Entry>> {
    let Some(listed) = markup::elements(eval, list).into_iter().next() else {
        return Ok(Vec::new());
    };
    let mut found: Vec<Entry> = Vec::new();
    for element in markup::elements(listed.inner, tag) {
        let line = line_of(whole, element.inner);
        let id = element.attr("ID").map(str::trim).unwrap_or_default();
        if id.is_empty() {
            bail!("{}: <{tag}> without an ID (ROUGE names every {} by it: <{tag} ID=\"1\">file</{tag}>)",
                at(line), if tag == "P" { "peer" } else { "model" });
        }
        let file = content(&element);
        if file.is_empty() {
            bail!("{}: <{tag} ID=\"{id}\"> names no file", at(line));
        }
        if let Some(first) = found.iter().find(|e| e.id == id) {
            bail!(
                "{}: <{tag} ID=\"{id}\"> again (first at line {}): ROUGE would keep only the last",
                at(line),
                first.line
            );
        }
        found.push(Entry {
            id: id.to_string(),
            file,
            line,
        });
    }
    Ok(found)
}

/// Who chose a file's [`InputFormat`], for the hint of an error: a configuration's EVAL (where
/// it names the file) or `--input-format` (the pyrouge layout).
pub(super) enum FormatFrom<'a> {
    Configuration { named_at: &'a str },
    Flag,
}

impl FormatFrom<'_> {
    /// "… says INPUT-FORMAT SPL" or "read as --input-format SPL".
    fn given(&self, format: InputFormat) -> String {
        match self {
            FormatFrom::Configuration { named_at } => {
                format!("{named_at} says INPUT-FORMAT {}", format.name())
            }
            FormatFrom::Flag => format!("read as --input-format {}", format.name()),
        }
    }

    /// How to ask for `format` instead.
    fn ask_for(&self, format: InputFormat) -> String {
        match self {
            FormatFrom::Configuration { .. } => format!("TYPE=\"{}\"", format.name()),
            FormatFrom::Flag => format!("--input-format {}", format.name()),
        }
    }
}

/// The sentences of one summary file read as ROUGE reads `format`; an error where ROUGE would
/// read the file silently wrong, with the way to ask for the right format.
pub(super) fn read_sentences(
    file: &Path,
    format: InputFormat,
    from: &FormatFrom,
) -> Result<Vec<String>> {
    let bytes = std::fs::read(file).with_context(|| format!("{}: cannot read", file.display()))?;
    let raw = decode(&bytes);
    let sentences = sentences(&raw, format);
    if format == InputFormat::Spl {
        // ROUGE would count a markup's tags as words.
        let marked_up = [InputFormat::See, InputFormat::Isi]
            .into_iter()
            .filter_map(|layout| Some((layout, layout.line_pattern()?)))
            .find(|(_, pattern)| raw.split('\n').any(|line| pattern.is_match(line)));
        if let Some((layout, _)) = marked_up {
            bail!(
                "{}: lines in ROUGE's {} layout, but {}, where ROUGE would count the markup as \
                 words: is it {}?",
                file.display(),
                layout.name(),
                from.given(format),
                from.ask_for(layout)
            );
        }
    } else if sentences.is_empty() && !raw.trim().is_empty() {
        bail!(
            "{}: no line in ROUGE's {} layout ({}), so ROUGE would read it as empty; {}: is the \
             file plain text, one sentence per line ({})?",
            file.display(),
            format.name(),
            format.example(),
            from.given(format),
            from.ask_for(InputFormat::Spl)
        );
    }
    Ok(sentences)
}

/// A reference read from `file`: an error when it holds no sentence (`named` says which model
/// of what, for the message).
pub(super) fn reference(
    id: &str,
    file: &Path,
    format: InputFormat,
    from: &FormatFrom,
    named: &str,
) -> Result<Reference> {
    let sentences = read_sentences(file, format, from)?;
    if sentences.is_empty() {
        bail!(
            "{named}: {} holds no sentence (a reference needs its text)",
            file.display()
        );
    }
    Ok(Reference::new(id, sentences.join("\n")))
}

/// One `<EVAL>`: its topic id, how its files are read, and its models and peers located.
struct Eval {
    id: String,
    format: InputFormat,
    models: Vec<Located>,
    peers: Vec<Located>,
}

/// A `<P>` or `<M>` entry with the file found for it.
struct Located {
    entry: Entry,
    file: PathBuf,
}

/// The configuration read and every file it names located; the errors of the configuration
/// itself, at their lines.
fn read_configuration(path: &Path) -> Result<Vec<Eval>> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let text = without_comments(&decode(&bytes));
    let at = |line: usize| format!("{}:{line}", path.display());
    let elements = markup::elements(&text, "EVAL");
    if elements.is_empty() {
        bail!(
            "{}: no <EVAL ID=…> element: a ROUGE-1.5.5 evaluation configuration holds \
             <ROUGE-EVAL><EVAL ID=\"…\"> with <PEER-ROOT>, <MODEL-ROOT>, <INPUT-FORMAT TYPE=\"SPL\">, \
             <PEERS><P ID=\"…\">file</P></PEERS> and <MODELS><M ID=\"…\">file</M></MODELS> \
             (ROUGE's -z file lists are not read; docs/JUDGMENT_SETS.md)",
            path.display()
        );
    }
    let mut evals = Vec::with_capacity(elements.len());
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for eval in &elements {
        let line = line_of(&text, eval.inner);
        let id = eval.attr("ID").map(str::trim).unwrap_or_default();
        if id.is_empty() {
            bail!(
                "{}: <EVAL> without an ID (each EVAL is one topic, named by its ID)",
                at(line)
            );
        }
        let where_eval = |line: usize| format!("{}: EVAL {id:?}", at(line));
        if let Some(first) = first_line.insert(id.to_string(), line) {
            bail!(
                "{}: again (first at line {first}): each EVAL ID is one topic",
                where_eval(line)
            );
        }
        let format_element = markup::elements(eval.inner, "INPUT-FORMAT")
            .into_iter()
            .next();
        let Some(type_value) = format_element.as_ref().and_then(|e| e.attr("TYPE")) else {
            bail!(
                "{}: no <INPUT-FORMAT TYPE=\"…\"> (SPL, SEE or ISI: how ROUGE reads the \
                 summary files)",
                where_eval(line)
            );
        };
        let format = InputFormat::parse(type_value)
            .map_err(|message| anyhow::anyhow!("{}: INPUT-FORMAT: {message}", where_eval(line)))?;
        let root = |tag: &str| {
            markup::elements(eval.inner, tag)
                .first()
                .map(content)
                .filter(|root| !root.is_empty())
        };
        let locate_all = |entries: Vec<Entry>, root: Option<String>, what: &str| {
            entries
                .into_iter()
                .map(|entry| {
                    let file = locate(path, root.as_deref(), &entry.file).map_err(|message| {
                        anyhow::anyhow!(
                            "{}: {what} {:?}: {message}",
                            where_eval(entry.line),
                            entry.id
                        )
                    })?;
                    Ok(Located { entry, file })
                })
                .collect::<Result<Vec<Located>>>()
        };
        let peers = entries(&text, eval.inner, "PEERS", "P", &where_eval)?;
        if peers.is_empty() {
            bail!(
                "{}: no peer (<PEERS><P ID=\"…\">file</P></PEERS>): a topic needs its summaries",
                where_eval(line)
            );
        }
        let models = entries(&text, eval.inner, "MODELS", "M", &where_eval)?;
        evals.push(Eval {
            id: id.to_string(),
            format,
            models: locate_all(models, root("MODEL-ROOT"), "model")?,
            peers: locate_all(peers, root("PEER-ROOT"), "peer")?,
        });
    }
    Ok(evals)
}

/// Every summary file the configuration at `path` names (those found): `aesop import rouge`
/// never writes its set over one of them.
pub fn files(path: &Path) -> Vec<PathBuf> {
    read_configuration(path)
        .map(|evals| {
            evals
                .into_iter()
                .flat_map(|eval| eval.models.into_iter().chain(eval.peers))
                .map(|located| located.file)
                .collect()
        })
        .unwrap_or_default()
}

/// Import a ROUGE-1.5.5 evaluation configuration: one topic per `<EVAL>`, in file order.
pub fn import(path: &Path) -> Result<Vec<Topic>> {
    let mut topics = Vec::new();
    for eval in read_configuration(path)? {
        let named_at = |located: &Located| {
            format!(
                "the configuration (EVAL {:?}, line {})",
                eval.id, located.entry.line
            )
        };
        let mut topic = Topic::new(eval.id.as_str());
        for model in &eval.models {
            let named_at = named_at(model);
            let named = format!(
                "{}:{}: EVAL {:?}: model {:?}",
                path.display(),
                model.entry.line,
                eval.id,
                model.entry.id
            );
            let from = FormatFrom::Configuration {
                named_at: &named_at,
            };
            topic.references.push(reference(
                &model.entry.id,
                &model.file,
                eval.format,
                &from,
                &named,
            )?);
        }
        for peer in &eval.peers {
            let named_at = named_at(peer);
            let from = FormatFrom::Configuration {
                named_at: &named_at,
            };
            let sentences = read_sentences(&peer.file, eval.format, &from)?;
            topic
                .summaries
                .push(Summary::new(peer.entry.id.clone(), sentences.join("\n")));
        }
        topics.push(topic);
    }
    Ok(topics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn see_lines_are_read_by_rouge_pattern() {
        let html = "<html>\n<head>\n<title>x</title>\n</head>\n<body bgcolor=\"white\">\n\
                    <a name=\"1\">[1]</a> <a href=\"#1\" id=1>The cat sat.</a>\n\
                    <a size=\"10\" name=\"2\">[2]</a>\t<a href=\"#2\" id=2>It purred & slept.</a>\n\
                    <a name=\"3\">[3]</a><a href=\"#3\" id=3>No space: ROUGE skips this.</a>\n\
                    </body>\n</html>\n";
        assert_eq!(
            sentences(html, InputFormat::See),
            vec!["The cat sat.", "It purred & slept."]
        );
    }

    #[test]
    fn isi_and_spl_lines() {
        let isi = "<S SNTNO=\"1\">First one.</S>\n<S SNTNO=\"2a\">Second.</S>\nstray\n";
        assert_eq!(
            sentences(isi, InputFormat::Isi),
            vec!["First one.", "Second."]
        );
        assert_eq!(
            sentences("One.\r\n\r\n  \nTwo two.\n", InputFormat::Spl),
            vec!["One.", "Two two."]
        );
    }

    #[test]
    fn comments_are_blanked_with_their_lines_kept() {
        let text = "a\n<!-- <EVAL ID=\"x\">\n</EVAL> -->\n<EVAL ID=\"y\"></EVAL>";
        let blanked = without_comments(text);
        assert_eq!(blanked.lines().count(), text.lines().count());
        let evals = markup::elements(&blanked, "EVAL");
        assert_eq!(evals.len(), 1);
        assert_eq!(evals[0].attr("ID"), Some("y"));
        assert_eq!(line_of(&blanked, evals[0].inner), 4);
    }

    #[test]
    fn input_formats() {
        assert_eq!(InputFormat::parse("spl"), Ok(InputFormat::Spl));
        assert_eq!(InputFormat::parse(" SEE "), Ok(InputFormat::See));
        assert!(InputFormat::parse("SIMPLE")
            .unwrap_err()
            .contains("Basic Elements"));
        assert!(InputFormat::parse("HTML")
            .unwrap_err()
            .contains("SPL, SEE and ISI"));
    }
}
