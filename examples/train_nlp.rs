//! Train aesop's tagger and parser from UD English-EWT (run through scripts/build/train-nlp).
//!
//! Usage: train_nlp EWT_DIR OUT_DIR [GUM_DIR]. With `AESOP_NLP_KEEP_TAGGER=1` the tagger in OUT_DIR
//! is reused and only the parser is trained. With GUM_DIR (the open-genre UD English-GUM subset),
//! the parser trains on EWT train + GUM train; the tagger, dev selection and test stay EWT only.
//! Both files are written to temporary files in OUT_DIR and moved into place only once the
//! parser is trained too, so a failed or interrupted run leaves the committed models as they were.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use aesop::nlp::{
    conllu, jackknife_tags, parse_sentences,
    parser::{Parser, ParserOptions},
    retag, tagged_sentences,
    tagger::{Tagger, TaggerOptions},
};
use aesop::output::OutputFile;

fn read(dir: &Path, split: &str) -> anyhow::Result<Vec<conllu::Sentence>> {
    read_file(&dir.join(format!("en_ewt-ud-{split}.conllu")))
}

fn read_file(path: &Path) -> anyhow::Result<Vec<conllu::Sentence>> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(conllu::parse(&text)?)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        args.len() == 3 || args.len() == 4,
        "usage: train_nlp EWT_DIR OUT_DIR [GUM_DIR]"
    );
    let ewt = PathBuf::from(&args[1]);
    let out = PathBuf::from(&args[2]);
    let gum_train = match args.get(3) {
        Some(gum) => read_file(&PathBuf::from(gum).join("en_gum-ud-train.open.conllu"))?,
        None => Vec::new(),
    };
    let train = read(&ewt, "train")?;
    let dev = read(&ewt, "dev")?;
    let test = read(&ewt, "test")?;

    let tagger_path = out.join("tagger.bin.gz");
    let parser_path = out.join("parser.bin.gz");
    let keep_tagger = std::env::var("AESOP_NLP_KEEP_TAGGER").is_ok_and(|v| v == "1");
    // Opened (and checked) before hours of training; committed together at the end.
    let mut tagger_out = if keep_tagger {
        None
    } else {
        Some(OutputFile::create(&tagger_path, &[])?)
    };
    let mut parser_out = OutputFile::create(&parser_path, &[])?;
    let tagger = if keep_tagger {
        Tagger::from_bytes(&std::fs::read(&tagger_path)?)?
    } else {
        let start = Instant::now();
        let (tagger, history) = Tagger::train(
            &tagged_sentences(&train),
            &tagged_sentences(&dev),
            TaggerOptions::default(),
            |m| eprintln!("{m}"),
        );
        eprintln!(
            "tagger trained in {:.1}s; dev joint accuracy per iteration {history:.4?}",
            start.elapsed().as_secs_f64()
        );
        let bytes = tagger.to_bytes()?;
        if let Some(file) = tagger_out.as_mut() {
            file.write_all(&bytes)?;
        }
        eprintln!(
            "trained {} ({} bytes, {} features, {} weights; written at the end)",
            tagger_path.display(),
            bytes.len(),
            tagger.model().nfeatures(),
            tagger.model().nweights()
        );
        tagger
    };
    let (upos, xpos) = tagger.upos_xpos_accuracy(&tagged_sentences(&test));
    eprintln!("tagger on EWT test (gold tokens): UPOS {upos:.4} XPOS {xpos:.4}");

    // The parser trains on jackknifed tags and is selected on dev with predicted tags.
    let start = Instant::now();
    let jk_opts = TaggerOptions {
        max_iterations: 6,
        ..TaggerOptions::default()
    };
    // GUM's genre mix (news, academic, conversation, ...) broadens what the parser has seen; its
    // UD relations and PTB tags use the same inventory as EWT's.
    let parser_train: Vec<conllu::Sentence> = train.iter().chain(&gum_train).cloned().collect();
    eprintln!(
        "parser training sentences: {} EWT + {} GUM",
        train.len(),
        gum_train.len()
    );
    let train_parse = if std::env::var("AESOP_NLP_GOLD_TAGS").is_ok_and(|v| v == "1") {
        parse_sentences(&parser_train)
    } else {
        jackknife_tags(&parser_train, 4, jk_opts, |m| eprintln!("{m}"))
    };
    eprintln!(
        "parser training tags ready in {:.1}s",
        start.elapsed().as_secs_f64()
    );
    let mut dev_parse = parse_sentences(&dev);
    retag(&tagger, &mut dev_parse);
    let (parser, history) =
        Parser::train(&train_parse, &dev_parse, ParserOptions::default(), |m| {
            eprintln!("{m}")
        });
    eprintln!(
        "parser trained in {:.1}s; dev (UAS, LAS) per iteration {history:.4?}",
        start.elapsed().as_secs_f64()
    );
    if let Ok(fractions) = std::env::var("AESOP_NLP_PRUNE_SWEEP") {
        for f in fractions.split(',').filter_map(|f| f.parse::<f32>().ok()) {
            let p = parser.pruned(f);
            let (uas, las) = p.attachment(&dev_parse);
            eprintln!(
                "prune {f}: {} weights, {} bytes, dev UAS {uas:.4} LAS {las:.4}",
                p.model().nweights(),
                p.to_bytes()?.len()
            );
        }
    }
    let bytes = parser.to_bytes()?;
    parser_out.write_all(&bytes)?;
    // Both models are complete: move them into place (the tagger first, then the parser).
    if let Some(file) = tagger_out {
        file.commit()?;
        eprintln!("wrote {}", tagger_path.display());
    }
    parser_out.commit()?;
    eprintln!(
        "wrote {} ({} bytes, {} features, {} weights)",
        parser_path.display(),
        bytes.len(),
        parser.model().nfeatures(),
        parser.model().nweights()
    );
    // The test split is not looked at here: the parser is chosen on dev only, and its test
    // figures come from `cargo test --test nlp_ewt` or scripts/bench/bench-nlp on the final model.
    Ok(())
}
