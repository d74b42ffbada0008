//! Build the shipped language model (`features/lm.bin.gz`) from the open English text corpus.
//! Run through `scripts/build/build-lm`.
//!
//! Usage: build_lm [CORPUS_DIR [OUTPUT]]
//!   CORPUS_DIR  default: $AESOP_DATA/resources/english_text_corpus
//!   OUTPUT      default: features/lm.bin.gz (relative to the crate root)
//!
//! Every `*.txt` file of the corpus directory that holds `### source/id` documents is read, in
//! file-name order; licence and notice files are skipped. Every 50th paragraph is held out and
//! only used to measure perplexity, which is printed and stored in the file's metadata. The
//! output is deterministic: the same corpus and code give the same bytes.

use aesop::features::background::read_corpus_dir;
use aesop::features::lm::{corpus_sentences, LanguageModel, LmCounts, TrainOptions};
use aesop::output::OutputFile;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::time::Instant;

/// Every this-many-th paragraph is held out.
const HOLDOUT_EVERY: usize = 50;

fn main() -> Result<()> {
    let started = Instant::now();
    let mut args = std::env::args_os().skip(1);
    let corpus_dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| aesop::data_dir().join("resources/english_text_corpus"));
    let output = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("features/lm.bin.gz"));

    let texts = read_corpus_dir(&corpus_dir, |path| eprintln!("reading {}", path.display()))?;

    let (train, heldout) = corpus_sentences(&texts, HOLDOUT_EVERY);
    let tokenized = started.elapsed();
    let mut counts = LmCounts::train(train, &TrainOptions::default());
    let trained = started.elapsed();

    // Held-out evaluation with the model as it will be loaded.
    let model = LanguageModel::from_counts(counts.clone());
    let (perplexity, scored) = model.perplexity(&heldout);
    let heldout_words: usize = heldout.iter().map(Vec::len).sum();
    let heldout_oov = heldout
        .iter()
        .flatten()
        .filter(|w| model.word_id(w).is_none())
        .count();
    counts.set_metadata("holdout", format!("every {HOLDOUT_EVERY}th paragraph"));
    counts.set_metadata("heldout_sentences", heldout.len().to_string());
    counts.set_metadata("heldout_tokens", heldout_words.to_string());
    counts.set_metadata(
        "heldout_perplexity",
        format!("{perplexity:.2} over {scored} tokens incl. </s>"),
    );
    counts.set_metadata(
        "heldout_oov_rate",
        format!("{:.4}", heldout_oov as f64 / heldout_words.max(1) as f64),
    );

    let bytes = counts.to_gzip().context("compressing")?;
    // Temporary file + rename: a failed run never leaves a half-written committed file.
    OutputFile::write_all_to(&output, &[], &bytes)?;

    let load_started = Instant::now();
    let reloaded = LanguageModel::from_counts(LmCounts::from_gzip(&bytes)?);
    let load_time = load_started.elapsed();

    eprintln!("wrote {} ({} bytes)", output.display(), bytes.len());
    for (key, value) in &counts.metadata {
        eprintln!("  {key}: {value}");
    }
    eprintln!(
        "  vocabulary: {} (incl. <unk> <s> </s>); bigram contexts {} with {} bigrams; trigram contexts {} with {} trigrams",
        reloaded.vocabulary_size(),
        counts.bigrams.len(),
        counts.bigrams.iter().map(|(_, c)| c.entries.len()).sum::<usize>(),
        counts.trigrams.len(),
        counts.trigrams.iter().map(|(_, c)| c.entries.len()).sum::<usize>(),
    );
    eprintln!("  discounts (order 1, 2, 3): {:?}", counts.discounts);
    eprintln!(
        "  time: tokenizing {:.1}s, counting {:.1}s, total {:.1}s; loading the written file {:.0} ms",
        tokenized.as_secs_f64(),
        (trained - tokenized).as_secs_f64(),
        started.elapsed().as_secs_f64(),
        load_time.as_secs_f64() * 1000.0
    );
    Ok(())
}
