//! Sentence-boundary precision, recall and F1 of our splitter and of the `sentencex` crate on UD
//! English-EWT, plus throughput. Run by scripts/experiments/eval-sentences; method in docs/SENTENCES.md.
//!
//! Usage: sentence_eval [--data DIR] [--split dev|test|train ...] [--errors N] [--reps N]
//! DIR holds en_ewt-ud-{split}.conllu (default: <data dir>/resources/ud_english_ewt).
//! `--errors N` prints N missed and N spurious boundaries of our splitter per split (flat layout):
//! use it on train only, never to tune on test.

#[path = "sentence_eval/ewt.rs"]
mod ewt;

use anyhow::{bail, Context, Result};
use ewt::{Counts, Layout, Splitter};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<()> {
    let mut data = aesop::data_dir().join("resources/ud_english_ewt");
    let mut splits = Vec::new();
    let mut show_errors = 0usize;
    let mut reps = 3usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--data" => data = PathBuf::from(args.next().context("--data needs a directory")?),
            "--split" => splits.push(args.next().context("--split needs a name")?),
            "--errors" => show_errors = args.next().context("--errors needs a count")?.parse()?,
            "--reps" => reps = args.next().context("--reps needs a count")?.parse()?,
            other => bail!("unknown argument {other}"),
        }
    }
    if splits.is_empty() {
        splits = vec!["dev".into(), "test".into()];
    }

    let systems: [(&str, Splitter); 3] = [
        ("aesop", ewt::ours),
        ("aesop (newline = boundary)", ewt::ours_newlines),
        ("sentencex 0.1.33", ewt::sentencex_en),
    ];
    println!("| split | layout | boundaries scored | system | gold | predicted | precision | recall | F1 |");
    println!("|---|---|---|---|---:|---:|---:|---:|---:|");
    let mut all_documents = Vec::new();
    for split in &splits {
        let path = data.join(format!("en_ewt-ud-{split}.conllu"));
        let documents =
            ewt::read_conllu(&path).with_context(|| format!("reading {}", path.display()))?;
        let settings = [
            (Layout::Flat, "flat", false, "all"),
            (Layout::Paragraphs, "paragraphs", false, "all"),
            (Layout::Paragraphs, "paragraphs", true, "intra-paragraph"),
        ];
        for (layout, layout_name, intra, scored) in settings {
            for (name, splitter) in systems {
                // Under the flat layout there are no newlines, so the newline option changes nothing.
                if layout == Layout::Flat && name.contains("newline") {
                    continue;
                }
                let c: Counts = ewt::evaluate(&documents, layout, splitter, intra);
                println!(
                    "| {split} | {layout_name} | {scored} | {name} | {} | {} | {:.4} | {:.4} | {:.4} |",
                    c.gold,
                    c.predicted,
                    c.precision(),
                    c.recall(),
                    c.f1()
                );
            }
        }
        if show_errors > 0 {
            let (missed, spurious) = ewt::errors(&documents, Layout::Flat, ewt::ours);
            println!(
                "\n{split}: {} missed, {} spurious (flat layout); first {show_errors} of each:",
                missed.len(),
                spurious.len()
            );
            for line in missed.iter().take(show_errors) {
                println!("  MISSED   {line}");
            }
            for line in spurious.iter().take(show_errors) {
                println!("  SPURIOUS {line}");
            }
        }
        all_documents.extend(documents);
    }

    // Throughput: one text of all documents (paragraph layout, documents separated by a blank
    // line), repeated to at least 4 MB so timings are stable; best of `reps` runs; one call per
    // run, so per-call setup is amortized for both splitters.
    let documents_text = all_documents
        .iter()
        .map(|d| ewt::rebuild(d, Layout::Paragraphs).text)
        .collect::<Vec<_>>()
        .join("\n\n");
    let copies = (4_000_000 / documents_text.len().max(1)).max(1);
    let corpus = vec![documents_text.as_str(); copies].join("\n\n");
    let megabytes = corpus.len() as f64 / 1e6;
    println!(
        "\nThroughput on {megabytes:.2} MB ({copies} copies of the {} documents), best of {reps}:",
        all_documents.len()
    );
    println!("| system | sentences | seconds | MB/s |");
    println!("|---|---:|---:|---:|");
    for (name, splitter) in [systems[0], systems[2]] {
        let mut best = f64::INFINITY;
        let mut count = 0;
        for _ in 0..reps.max(1) {
            let start = Instant::now();
            count = std::hint::black_box(splitter(&corpus)).len();
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!("| {name} | {count} | {best:.4} | {:.1} |", megabytes / best);
    }
    Ok(())
}
