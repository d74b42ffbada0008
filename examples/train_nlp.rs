//! Train aesop's tagger and parser from UD English-EWT (run through scripts/train-nlp).
//!
//! Usage: train_nlp EWT_DIR OUT_DIR

use std::path::{Path, PathBuf};
use std::time::Instant;

use aesop::nlp::{conllu, tagged_sentences, tagger::{Tagger, TaggerOptions}};

fn read(dir: &Path, split: &str) -> anyhow::Result<Vec<conllu::Sentence>> {
    let path = dir.join(format!("en_ewt-ud-{split}.conllu"));
    let text = std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(conllu::parse(&text)?)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    anyhow::ensure!(args.len() == 3, "usage: train_nlp EWT_DIR OUT_DIR");
    let ewt = PathBuf::from(&args[1]);
    let out = PathBuf::from(&args[2]);
    let train = read(&ewt, "train")?;
    let dev = read(&ewt, "dev")?;
    let test = read(&ewt, "test")?;
    let start = Instant::now();
    let opts = TaggerOptions::default();
    if std::env::var("UPOS_ONLY").is_ok() {
        let only = |v: Vec<aesop::nlp::tagger::TaggedSentence>| -> Vec<aesop::nlp::tagger::TaggedSentence> {
            v.into_iter().map(|mut s| { for t in &mut s.tags { t.1 = t.0.clone(); } s }).collect()
        };
        let (t, _) = Tagger::train(&only(tagged_sentences(&train)), &only(tagged_sentences(&dev)), opts, |m| eprintln!("{m}"));
        eprintln!("UPOS-only test {:?}", t.upos_xpos_accuracy(&only(tagged_sentences(&test))));
        return Ok(());
    }
    let (tagger, history) =
        Tagger::train(&tagged_sentences(&train), &tagged_sentences(&dev), opts, |m| eprintln!("{m}"));
    eprintln!("tagger trained in {:.1}s; dev {:?}", start.elapsed().as_secs_f64(), history);
    eprintln!("tagger test joint accuracy {:.4}", tagger.accuracy(&tagged_sentences(&test)));
    eprintln!("tagger test (UPOS, XPOS) accuracy {:?}", tagger.upos_xpos_accuracy(&tagged_sentences(&test)));
    eprintln!("tagger: {} features, {} weights", tagger.model().nfeatures(), tagger.model().nweights());
    let bytes = tagger.to_bytes()?;
    std::fs::write(out.join("tagger.bin.gz"), &bytes)?;
    eprintln!("wrote tagger.bin.gz ({} bytes)", bytes.len());
    Ok(())
}
