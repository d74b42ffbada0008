//! Background corpus statistics: word counts (for the topic-signature log-likelihood test) and
//! document frequencies (for idf), after the `simetrix` tokenization profile.
//!
//! The shipped data (`features/background.tsv.gz`) is built by `scripts/build/build-background` from
//! the open English text corpus (Wikinews, OpenStax textbooks, US presidential addresses; see
//! `features/ATTRIBUTION-background.md`), embedded in the binary and parsed once on first use.
//!
//! File format (UTF-8, tab-separated, gzip-compressed when shipped; `→` marks a tab here):
//! ```text
//! #aesop-background→1
//! #documents→<number of documents>
//! #tokens→<number of tokens>
//! <word>→<count>→<document frequency>     one line per word, sorted by word (byte order)
//! ```

use super::distribution::WordMap;
use aesop_text::simetrix_tokens;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Arc, LazyLock};

/// The shipped background data, gzip-compressed TSV.
const SHIPPED_GZ: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../features/background.tsv.gz"
));

const FORMAT_HEADER: &str = "#aesop-background\t1";

static SHIPPED: LazyLock<Arc<Background>> = LazyLock::new(|| {
    // The data is embedded at build time and checked by a unit test, so failure here is a
    // packaging bug, not bad user input.
    Arc::new(Background::from_gzip(SHIPPED_GZ).unwrap_or_else(|e| {
        panic!("the embedded features/background.tsv.gz is invalid ({e}); re-run scripts/build/build-background")
    }))
});

/// Why background data could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BackgroundError {
    #[error("cannot decompress background data: {0}")]
    Io(#[from] std::io::Error),
    #[error("background data line {line}: {message}")]
    Format { line: usize, message: String },
}

/// Count and document frequency of one word in the background corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WordStats {
    pub count: u64,
    pub document_frequency: u64,
}

/// Word statistics of a background corpus.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Background {
    words: WordMap<Box<str>, WordStats>,
    total_tokens: u64,
    documents: u64,
}

impl Background {
    /// The shipped background (parsed on first use, then shared).
    pub fn shipped() -> Arc<Background> {
        Arc::clone(&SHIPPED)
    }

    /// Statistics of already tokenized documents.
    pub fn from_documents<I, D, S>(documents: I) -> Background
    where
        I: IntoIterator<Item = D>,
        D: AsRef<[S]>,
        S: AsRef<str>,
    {
        let mut background = Background::default();
        for tokens in documents {
            background.documents += 1;
            let mut seen: HashSet<&str> = HashSet::new();
            for token in tokens.as_ref() {
                let token = token.as_ref();
                let stats = match background.words.get_mut(token) {
                    Some(s) => s,
                    None => background.words.entry(token.into()).or_default(),
                };
                stats.count += 1;
                if seen.insert(token) {
                    stats.document_frequency += 1;
                }
                background.total_tokens += 1;
            }
        }
        background
    }

    /// Statistics of raw corpus files in the `### source/id` format of
    /// `resources/english_text_corpus`, tokenized with the `simetrix` profile.
    pub fn from_corpus_texts<S: AsRef<str>>(files: &[S]) -> Background {
        let documents = files
            .iter()
            .flat_map(|f| corpus_documents(f.as_ref()))
            .map(|(_, body)| simetrix_tokens(&body));
        Background::from_documents(documents)
    }

    /// Parse the TSV format described in the module documentation.
    pub fn parse_tsv(text: &str) -> Result<Background, BackgroundError> {
        let err = |line: usize, message: String| BackgroundError::Format { line, message };
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        match lines.next() {
            Some((_, FORMAT_HEADER)) => {}
            _ => return Err(err(1, format!("expected header '{FORMAT_HEADER}'"))),
        }
        let mut header_number = |name: &str| -> Result<u64, BackgroundError> {
            let (n, line) = lines
                .next()
                .ok_or_else(|| err(0, format!("missing #{name} line")))?;
            line.strip_prefix('#')
                .and_then(|l| l.strip_prefix(name))
                .and_then(|l| l.strip_prefix('\t'))
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| err(n, format!("expected '#{name}<TAB><number>'")))
        };
        let documents = header_number("documents")?;
        let total_tokens = header_number("tokens")?;
        let mut words = WordMap::default();
        for (n, line) in lines {
            if line.is_empty() {
                continue;
            }
            let mut fields = line.split('\t');
            let (Some(word), Some(count), Some(df), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(err(n, "expected word<TAB>count<TAB>df".to_string()));
            };
            let number = |s: &str| {
                s.parse::<u64>()
                    .map_err(|_| err(n, format!("'{s}' is not a count")))
            };
            let stats = WordStats {
                count: number(count)?,
                document_frequency: number(df)?,
            };
            words.insert(Box::from(word), stats);
        }
        Ok(Background {
            words,
            total_tokens,
            documents,
        })
    }

    /// Parse gzip-compressed TSV.
    pub fn from_gzip(bytes: &[u8]) -> Result<Background, BackgroundError> {
        Background::parse_tsv(&aesop_core::input::gunzip_text(bytes)?)
    }

    /// The TSV text: header, then words sorted by byte order (deterministic output).
    pub fn to_tsv(&self) -> String {
        let mut entries: Vec<(&str, &WordStats)> =
            self.words.iter().map(|(w, s)| (&**w, s)).collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut out = String::with_capacity(entries.len() * 16);
        out.push_str(FORMAT_HEADER);
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            "\n#documents\t{}\n#tokens\t{}\n",
            self.documents, self.total_tokens
        );
        for (word, stats) in entries {
            let _ = writeln!(out, "{word}\t{}\t{}", stats.count, stats.document_frequency);
        }
        out
    }

    /// Gzip-compressed TSV. Deterministic: the gzip header carries no time stamp or name.
    pub fn to_gzip(&self) -> std::io::Result<Vec<u8>> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(self.to_tsv().as_bytes())?;
        encoder.finish()
    }

    /// Occurrences of `word` in the corpus (0 when unseen).
    pub fn count(&self, word: &str) -> u64 {
        self.words.get(word).map_or(0, |s| s.count)
    }

    /// Number of documents containing `word` (0 when unseen).
    pub fn document_frequency(&self, word: &str) -> u64 {
        self.words.get(word).map_or(0, |s| s.document_frequency)
    }

    /// idf(w) = ln(D / df(w)), D = number of documents. An unseen word counts as seen in one
    /// document, idf = ln D, the largest value (SIMetrix's convention). 0 for an empty corpus.
    pub fn idf(&self, word: &str) -> f64 {
        if self.documents == 0 {
            return 0.0;
        }
        let df = self.document_frequency(word).clamp(1, self.documents);
        (self.documents as f64 / df as f64).ln()
    }

    /// Number of tokens in the corpus.
    pub fn total_tokens(&self) -> u64 {
        self.total_tokens
    }

    /// Number of documents in the corpus.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Number of distinct words.
    pub fn vocabulary_size(&self) -> usize {
        self.words.len()
    }
}

/// The texts of the corpus files in `dir` (`resources/english_text_corpus`): every `*.txt` file
/// that holds `### source/id` documents, in file-name order, so a build from them is
/// deterministic. Licence and notice files, which have no document headers, are left out;
/// `on_file` is told each file read (the build examples print it). An error names the directory
/// or file that could not be read, or says that no file held documents.
pub fn read_corpus_dir(
    dir: &std::path::Path,
    mut on_file: impl FnMut(&std::path::Path),
) -> anyhow::Result<Vec<String>> {
    use anyhow::Context;
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    let mut texts = Vec::new();
    for path in &paths {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if !text.lines().any(|l| l.starts_with("### ")) {
            continue;
        }
        on_file(path);
        texts.push(text);
    }
    if texts.is_empty() {
        anyhow::bail!(
            "no corpus files with '### ' document headers in {}",
            dir.display()
        );
    }
    Ok(texts)
}

/// Split a corpus file into `(id, body)` documents. Each document starts with a header line
/// `### <source>/<id>`; text before the first header is ignored.
pub fn corpus_documents(text: &str) -> Vec<(String, String)> {
    let mut documents: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(id) = line.strip_prefix("### ") {
            documents.push((id.trim().to_string(), String::new()));
        } else if let Some((_, body)) = documents.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    documents
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_dir_reads_document_files_in_name_order_and_skips_notices() {
        let dir = tempfile::tempdir().expect("tempdir");
        let empty = read_corpus_dir(dir.path(), |_| {}).expect_err("no documents");
        assert!(
            empty
                .to_string()
                .contains("no corpus files with '### ' document headers"),
            "{empty}"
        );
        std::fs::write(dir.path().join("b.txt"), "### wiki/2\nSecond.\n").expect("write");
        std::fs::write(dir.path().join("a.txt"), "### wiki/1\nFirst.\n").expect("write");
        std::fs::write(dir.path().join("LICENSE.txt"), "Licensed under CC BY.\n").expect("write");
        std::fs::write(dir.path().join("c.md"), "### wiki/3\nNot a .txt file.\n").expect("write");
        let mut seen = Vec::new();
        let texts = read_corpus_dir(dir.path(), |p| {
            seen.push(p.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .expect("two corpus files");
        assert_eq!(texts, ["### wiki/1\nFirst.\n", "### wiki/2\nSecond.\n"]);
        assert_eq!(seen, [Some("a.txt".to_string()), Some("b.txt".to_string())]);
        let missing = read_corpus_dir(&dir.path().join("absent"), |_| {}).expect_err("missing");
        assert!(missing.to_string().contains("absent"), "{missing}");
    }

    #[test]
    fn shipped_background_parses_and_is_plausible() {
        let bg = Background::shipped();
        assert!(bg.documents() > 1000, "documents: {}", bg.documents());
        assert!(bg.total_tokens() > 500_000, "tokens: {}", bg.total_tokens());
        assert!(bg.vocabulary_size() > 10_000);
        // A frequent content word is in many documents; idf is then small but positive. Its
        // form (stemmed or not) depends on the profile the data was built with.
        let word = simetrix_tokens("government").pop().unwrap_or_default();
        let df = bg.document_frequency(&word);
        assert!(df > 100 && df < bg.documents(), "df({word}) = {df}");
        assert!(bg.idf(&word) > 0.0 && bg.idf(&word) < 3.0);
        let unseen = bg.idf("qqqxqqq");
        assert!((unseen - (bg.documents() as f64).ln()).abs() < 1e-12);
    }

    #[test]
    fn documents_split_on_headers() {
        let docs = corpus_documents("preamble\n### a/1\nx y\nz\n\n### b/2\nw\n");
        assert_eq!(
            docs,
            vec![
                ("a/1".to_string(), "x y\nz\n\n".to_string()),
                ("b/2".to_string(), "w\n".to_string())
            ]
        );
    }

    #[test]
    fn tsv_round_trip_counts_and_df() {
        let bg = Background::from_documents(vec![vec!["b", "a", "b"], vec!["b", "c"]]);
        // b: 3 occurrences in 2 documents; a: 1 in 1; c: 1 in 1; 5 tokens, 2 documents.
        let tsv = bg.to_tsv();
        assert_eq!(
            tsv,
            "#aesop-background\t1\n#documents\t2\n#tokens\t5\na\t1\t1\nb\t3\t2\nc\t1\t1\n"
        );
        assert_eq!(Background::parse_tsv(&tsv).ok(), Some(bg.clone()));
        let gz = bg.to_gzip().map_err(|e| e.to_string());
        let back = gz.and_then(|g| Background::from_gzip(&g).map_err(|e| e.to_string()));
        assert_eq!(back.ok(), Some(bg.clone()));
        // idf(b) = ln(2/2) = 0; idf(a) = ln(2/1); unseen = ln 2 as well.
        assert_eq!(bg.idf("b"), 0.0);
        assert!((bg.idf("a") - 2f64.ln()).abs() < 1e-15);
        assert!((bg.idf("zzz") - 2f64.ln()).abs() < 1e-15);
    }

    #[test]
    fn malformed_tsv_is_an_error() {
        assert!(Background::parse_tsv("nonsense").is_err());
        let bad = "#aesop-background\t1\n#documents\t2\n#tokens\t5\na\tx\t1\n";
        assert!(Background::parse_tsv(bad).is_err());
    }
}
