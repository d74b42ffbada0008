//! Gemma 3's SentencePiece tokenizer (crates/aesop-neural/src/spm.rs) against llama.cpp on the
//! same GGUF: tests/fixtures/gemma3_tokens.json was written once by
//! scripts/build/gemma3-tokens.py (texts, llama.cpp's ids and detokenized text).
//! Needs the model file (`aesop models fetch gemma3-270m`): skipped with a notice when it is
//! absent, a failure under AESOP_REQUIRE_MODELS=1 (set by .ci/run after fetching it).

use crate::common;

use aesop::neural::model::{self, GEMMA3};
use aesop::neural::spm::SpmTokenizer;
use candle_core::quantized::gguf_file;
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    text: String,
    ids: Vec<u32>,
    /// llama.cpp's `detokenize(ids, special=False)`, invalid UTF-8 replaced.
    decoded: String,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

/// The tokenizer from the Gemma 3 GGUF's metadata, or None (skip) when the file is absent.
fn tokenizer_or_skip(test: &str) -> Option<SpmTokenizer> {
    if !common::lm_model_or_skip(test, &GEMMA3) {
        return None;
    }
    let path = model::model_path(&GEMMA3);
    let mut file = std::fs::File::open(&path).expect("open GGUF");
    let content = gguf_file::Content::read(&mut file).expect("GGUF header");
    Some(SpmTokenizer::from_gguf(&content).expect("SPM tokenizer from GGUF"))
}

fn fixture() -> Fixture {
    let path = common::fixture("gemma3_tokens.json");
    common::read_json(path)
}

#[test]
fn spm_ids_match_llama_cpp() {
    let Some(tok) = tokenizer_or_skip("spm_ids_match_llama_cpp") else {
        return;
    };
    let cases = fixture().cases;
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let mut round_trips = 0;
    for case in &cases {
        let text = &case.text;
        assert_eq!(tok.encode(text), case.ids, "token ids of {text:?}");
        assert_eq!(tok.decode(&case.ids), case.decoded, "decoding of {text:?}");
        // Texts llama.cpp itself gets back unchanged (not those with a literal ▁, which
        // decodes as a space).
        if case.decoded == *text {
            assert_eq!(
                &tok.decode(&tok.encode(text)),
                text,
                "round trip of {text:?}"
            );
            round_trips += 1;
        }
    }
    assert!(round_trips >= cases.len() - 1, "{round_trips} round trips");
}

#[test]
fn spm_vocabulary_from_gguf() {
    let Some(tok) = tokenizer_or_skip("spm_vocabulary_from_gguf") else {
        return;
    };
    assert_eq!(tok.vocab_size(), 262_144);
    assert_eq!(tok.id_of("<bos>"), Some(2));
    assert_eq!(tok.id_of("<eos>"), Some(1));
    assert_eq!(tok.id_of("<start_of_turn>"), Some(105));
    assert_eq!(tok.id_of("<end_of_turn>"), Some(106));
    assert_eq!(tok.token(26352), Some("▁Hello"));
    assert_eq!(tok.token(u32::MAX), None);
    assert_eq!(tok.encode(" Hello world"), vec![26352, 1902]);
    // Control tokens decode to nothing; the chat template's text round-trips around them.
    assert_eq!(tok.decode(&[2, 105, 26352, 106]), " Hello");
}

#[test]
fn spm_long_text_is_fast() {
    let Some(tok) = tokenizer_or_skip("spm_long_text_is_fast") else {
        return;
    };
    let long = fixture()
        .cases
        .iter()
        .max_by_key(|c| c.text.len())
        .map(|c| c.text.clone())
        .expect("a case");
    let text = [long.as_str(); 4].join("\n\n");
    assert!(text.chars().count() >= 10_000);
    let start = std::time::Instant::now();
    let ids = tok.encode(&text);
    let elapsed = start.elapsed();
    eprintln!(
        "encode: {} chars -> {} ids in {elapsed:?}",
        text.chars().count(),
        ids.len()
    );
    assert!(elapsed.as_secs_f64() < 1.0, "{elapsed:?}");
    assert_eq!(tok.decode(&ids), text);
}
