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

use aesop::features::background::{read_corpus_dir, Background};
use aesop::output::OutputFile;
use anyhow::{Context, Result};
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

    let texts = read_corpus_dir(&corpus_dir, |path| eprintln!("reading {}", path.display()))?;

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
