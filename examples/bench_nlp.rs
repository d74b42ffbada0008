//! Speed and accuracy of the embedded NLP models (run through scripts/bench/bench-nlp).
//!
//! Usage: bench_nlp EWT_DIR [REPEATS]. Single-threaded, except that loading decodes the two
//! models side by side, as aesop does.

use std::path::PathBuf;
use std::time::Instant;

use aesop::nlp::{conllu, embedded_model_bytes, Pipeline};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(args.len() >= 2, "usage: bench_nlp EWT_DIR [REPEATS]");
    let dir = PathBuf::from(&args[1]);
    let repeats: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);

    let (tagger_bytes, parser_bytes) = embedded_model_bytes();
    println!(
        "model size: tagger {} bytes, parser {} bytes (gzip, embedded)",
        tagger_bytes.len(),
        parser_bytes.len()
    );
    let start = Instant::now();
    let pipeline = Pipeline::from_bytes(tagger_bytes, parser_bytes)?;
    println!("model load time: {:.3} s", start.elapsed().as_secs_f64());

    let gold_text = std::fs::read_to_string(dir.join("en_ewt-ud-test.conllu"))?;
    let gold = conllu::parse(&gold_text)?;
    let sentences: Vec<Vec<&str>> = gold
        .iter()
        .map(|s| s.words.iter().map(|w| w.form.as_str()).collect())
        .collect();
    let ntokens: usize = sentences.iter().map(Vec::len).sum();

    // (wall-clock, on-CPU) tokens per second, best of `repeats`. On a shared machine the wall
    // clock also counts time the thread waited for a core; the on-CPU rate does not.
    let best_rate = |f: &dyn Fn()| {
        let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..repeats {
            let t = Instant::now();
            let c = thread_cpu_seconds();
            f();
            wall = wall.min(t.elapsed().as_secs_f64());
            if let (Some(before), Some(after)) = (c, thread_cpu_seconds()) {
                cpu = cpu.min(after - before);
            }
        }
        (ntokens as f64 / wall, ntokens as f64 / cpu)
    };
    let (tag_wall, tag_cpu) = best_rate(&|| {
        for s in &sentences {
            std::hint::black_box(pipeline.tagger.tag(s));
        }
    });
    println!(
        "tagging: {tag_wall:.0} tokens/s wall clock, {tag_cpu:.0} tokens/s on-CPU ({ntokens} EWT test tokens, best of {repeats})"
    );
    let (parse_wall, parse_cpu) = best_rate(&|| {
        for s in &sentences {
            std::hint::black_box(pipeline.tag_and_parse(s));
        }
    });
    println!(
        "tagging + parsing: {parse_wall:.0} tokens/s wall clock, {parse_cpu:.0} tokens/s on-CPU"
    );

    // Raw text (tokenizer + sentence splitter + tagger + parser) on the test set's own text.
    let raw: String = gold
        .iter()
        .filter_map(|s| s.comments.iter().find_map(|c| c.strip_prefix("# text = ")))
        .collect::<Vec<_>>()
        .join(" ");
    let t = Instant::now();
    let analysis = pipeline.analyze(&raw);
    let secs = t.elapsed().as_secs_f64();
    println!(
        "raw text end to end: {:.0} tokens/s ({} tokens from {} bytes)",
        analysis.ntokens() as f64 / secs,
        analysis.ntokens(),
        raw.len()
    );

    let mut predicted = gold.clone();
    pipeline.annotate(&mut predicted);
    let sc = conllu::evaluate(&gold, &predicted)?;
    println!(
        "EWT test, gold tokens: UPOS {:.4} XPOS {:.4} UAS {:.4} LAS {:.4} ({} words)",
        sc.upos, sc.xpos, sc.uas, sc.las, sc.words
    );
    Ok(())
}

/// Time this thread has spent running on a CPU (Linux `/proc/thread-self/schedstat`, first
/// field, nanoseconds); `None` where that file does not exist.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}
