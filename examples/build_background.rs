//! Build the shipped background statistics (`features/background.tsv.gz`) from the open English
//! text corpus. Run through `scripts/build/build-background`.
//!
//! Usage: build_background [CORPUS_DIR [OUTPUT]]
//!   CORPUS_DIR  default: $AESOP_DATA/resources/english_text_corpus
//!   OUTPUT      default: features/background.tsv.gz (relative to the crate root)
//!
//! Every `*.txt` file of the corpus directory that holds `### source/id` documents is read, in
//! file-name order; licence and notice files are skipped. Tokens go through the `simetrix`
//! profile, so re-run this whenever that profile changes. The output is deterministic.

use aesop::features::background::Background;
use aesop::output::OutputFile;
use anyhow::{bail, Context, Result};
use std::path::PathBuf;

fn main() -> Result<()> {
    let mut args = std::env::args_os().skip(1);
    let corpus_dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| aesop::data_dir().join("resources/english_text_corpus"));
    let output = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("features/background.tsv.gz")
    });

    let mut paths: Vec<PathBuf> = std::fs::read_dir(&corpus_dir)
        .with_context(|| format!("reading {}", corpus_dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();

    let mut texts = Vec::new();
    for path in &paths {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        // Licence and notice files have no document headers.
        if !text.lines().any(|l| l.starts_with("### ")) {
            continue;
        }
        eprintln!("reading {}", path.display());
        texts.push(text);
    }
    if texts.is_empty() {
        bail!(
            "no corpus files with '### ' document headers in {}",
            corpus_dir.display()
        );
    }

    let background = Background::from_corpus_texts(&texts);
    let bytes = background.to_gzip().context("compressing")?;
    // Temporary file + rename: a failed run never leaves a half-written committed file.
    OutputFile::write_all_to(&output, &[], &bytes)?;
    eprintln!(
        "wrote {}: {} documents, {} tokens, {} words, {} bytes",
        output.display(),
        background.documents(),
        background.total_tokens(),
        background.vocabulary_size(),
        bytes.len()
    );
    Ok(())
}
