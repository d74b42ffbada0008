//! The Rust SmolLM2 and Gemma 3 (tokenizer and forward pass) against llama.cpp on the same
//! GGUF: tests/fixtures/neural_llamacpp.json and gemma3_llamacpp.json were written once by
//! scripts/build/neural-fixture.py (the latter with `--bos`). Needs the downloaded models:
//! skipped with a notice when absent, a failure under AESOP_REQUIRE_MODELS=1 (set by .ci/run
//! after `aesop models fetch smollm2` and `aesop models fetch gemma3-270m`).

use crate::common;

use aesop::neural::llama::{Llama, Precision};
use std::sync::atomic::AtomicBool;

/// The stop flag of calls that nothing cancels.
static NOT_STOPPED: AtomicBool = AtomicBool::new(false);
use aesop::neural::model::{self, ModelSpec, GEMMA3, SMOLLM2};
use serde::Deserialize;

#[derive(Deserialize)]
struct Scored {
    text: String,
    ids: Vec<u32>,
    logprobs: Vec<f64>,
}

#[derive(Deserialize)]
struct TokOnly {
    text: String,
    ids: Vec<u32>,
}

#[derive(Deserialize)]
struct Fixture {
    model_sha256: String,
    scored: Vec<Scored>,
    tokenize_only: Vec<TokOnly>,
}

fn fixture() -> Fixture {
    fixture_of("neural_llamacpp.json", &SMOLLM2)
}

fn fixture_of(name: &str, spec: &ModelSpec) -> Fixture {
    let path = common::fixture(name);
    let f: Fixture = common::read_json(path);
    assert_eq!(
        f.model_sha256, spec.sha256,
        "fixture made from another model file"
    );
    f
}

/// The loaded SmolLM2, or None (skip) when it is not installed.
fn model_or_skip(test: &str) -> Option<std::sync::Arc<aesop::neural::llama::Llama>> {
    present_or_skip(test, &SMOLLM2).then(|| model::smollm2().expect("load model"))
}

fn present_or_skip(test: &str, spec: &ModelSpec) -> bool {
    common::lm_model_or_skip(test, spec)
}

/// The loaded Gemma 3, or None (skip) when it is not installed.
fn gemma_or_skip(test: &str) -> Option<std::sync::Arc<aesop::neural::llama::Llama>> {
    present_or_skip(test, &GEMMA3).then(|| model::gemma3().expect("load Gemma 3"))
}

#[test]
fn gemma3_tokenizer_matches_llama_cpp() {
    let Some(lm) = gemma_or_skip("gemma3_tokenizer_matches_llama_cpp") else {
        return;
    };
    let f = fixture_of("gemma3_llamacpp.json", &GEMMA3);
    let bos = lm.config.bos.expect("Gemma 3 wants a BOS token");
    for s in &f.scored {
        assert_eq!(s.ids[0], bos, "the fixture's scored texts start with BOS");
        assert_eq!(
            lm.tokenizer.encode(&s.text),
            s.ids[1..],
            "token ids of {:?}",
            s.text
        );
    }
    for t in &f.tokenize_only {
        assert_eq!(
            lm.tokenizer.encode(&t.text),
            t.ids,
            "token ids of {:?}",
            t.text
        );
        assert_eq!(
            lm.tokenizer.decode(&t.ids),
            t.text,
            "round trip of {:?}",
            t.text
        );
    }
}

/// Gemma 3's forward pass (sliding-window layers, per-head norms, NeoX RoPE, GELU) against
/// llama.cpp, at the CPU's default precision and at f32.
#[test]
fn gemma3_log_probs_match_llama_cpp() {
    let Some(lm) = gemma_or_skip("gemma3_log_probs_match_llama_cpp") else {
        return;
    };
    let f = fixture_of("gemma3_llamacpp.json", &GEMMA3);
    eprintln!("Gemma 3 precision {}", lm.precision.name());
    log_probs_match_at(&lm, &f);
    if lm.precision != Precision::F32 {
        let f32_lm = Llama::load(&model::model_path(&GEMMA3), Precision::F32).expect("load f32");
        log_probs_match_at(&f32_lm, &f);
    }
}

#[test]
fn tokenizer_matches_llama_cpp() {
    let Some(lm) = model_or_skip("tokenizer_matches_llama_cpp") else {
        return;
    };
    let f = fixture();
    let texts = f
        .scored
        .iter()
        .map(|s| (&s.text, &s.ids))
        .chain(f.tokenize_only.iter().map(|t| (&t.text, &t.ids)));
    for (text, ids) in texts {
        assert_eq!(&lm.tokenizer.encode(text), ids, "token ids of {text:?}");
        assert_eq!(&lm.tokenizer.decode(ids), text, "round trip of {text:?}");
    }
}

#[test]
fn log_probs_match_llama_cpp() {
    let Some(lm) = model_or_skip("log_probs_match_llama_cpp") else {
        return;
    };
    eprintln!("precision {}", lm.precision.name());
    log_probs_match_llama_cpp_at(&lm);
}

/// The f32 path too, where the default is int8 (AVX-512 VNNI or AVX2): both must agree with
/// llama.cpp, so a user's results do not depend on the CPU beyond the stated tolerance.
#[test]
fn f32_log_probs_match_llama_cpp() {
    let Some(default) = model_or_skip("f32_log_probs_match_llama_cpp") else {
        return;
    };
    if default.precision == Precision::F32 {
        eprintln!("f32 is this CPU's default precision: log_probs_match_llama_cpp covers it");
        return;
    }
    let lm = Llama::load(&model::model_path(&SMOLLM2), Precision::F32).expect("load f32");
    log_probs_match_llama_cpp_at(&lm);
}

/// The int8 layout of the real model: every block projection (Q4_1 in the GGUF, 16 levels per
/// block) is stored at 4 bits, which the AVX2 kernel's speed rests on; the LM head (Q8_0) at 8.
#[test]
fn block_projections_are_stored_at_four_bits() {
    let Some(default) = model_or_skip("block_projections_are_stored_at_four_bits") else {
        return;
    };
    let lm = if default.precision == Precision::Int8 {
        default
    } else {
        let path = model::model_path(&SMOLLM2);
        std::sync::Arc::new(Llama::load(&path, Precision::Int8).expect("load int8"))
    };
    let layers = lm.config.n_layer;
    assert_eq!(lm.four_bit_matrices(), (4 * layers, 4 * layers + 1));
}

fn log_probs_match_llama_cpp_at(lm: &Llama) {
    log_probs_match_at(lm, &fixture());
}

fn log_probs_match_at(lm: &Llama, f: &Fixture) {
    let (mut abs_sum, mut n) = (0.0, 0usize);
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for s in &f.scored {
        let got = lm.score_text(&s.ids).expect("score");
        assert_eq!(got.len(), s.logprobs.len(), "{:?}", s.text);
        for (a, b) in got.iter().zip(&s.logprobs) {
            abs_sum += (f64::from(*a) - b).abs();
            n += 1;
        }
        ours.push(got.iter().map(|&v| f64::from(v)).sum::<f64>() / got.len() as f64);
        theirs.push(s.logprobs.iter().sum::<f64>() / s.logprobs.len() as f64);
    }
    let mad = abs_sum / n as f64;
    eprintln!("mean |delta log-prob| over {n} tokens: {mad:.4} nats; per-text means ours {ours:?} llama.cpp {theirs:?}");
    assert!(mad <= 0.1, "mean |delta log-prob| {mad} > 0.1 nats");
    let r = aesop::eval::pearson(&ours, &theirs);
    assert!(r >= 0.99, "per-text mean log-prob correlation {r} < 0.99");
}

#[test]
fn cached_prefix_gives_the_same_log_probs() {
    let Some(lm) = model_or_skip("cached_prefix_gives_the_same_log_probs") else {
        return;
    };
    let f = fixture();
    let s = &f.scored[1];
    let whole = lm.score_text(&s.ids).expect("score");
    let k = s.ids.len() / 2;
    let prefix = lm.prefix(&s.ids[..k]).expect("prefix");
    let tail = lm.score(&prefix, &s.ids[k..]).expect("score");
    assert_eq!(tail.len(), s.ids.len() - k);
    for (a, b) in tail.iter().zip(&whole[k - 1..]) {
        assert!((a - b).abs() < 1e-3, "cached {a} vs whole {b}");
    }
}

/// The tensor-only forward pass that runs on a GPU (`AESOP_NEURAL_PRECISION=cuda`), here on the
/// CPU since CI has no GPU: it must meet the same bar against llama.cpp, and give the CPU f32
/// pass's log-probs for continuations batched on a shared prefix (its block-diagonal mask) and
/// for the prefix's next token.
#[test]
fn portable_pass_matches_llama_cpp_and_the_cpu_pass() {
    if !present_or_skip("portable_pass_matches_llama_cpp_and_the_cpu_pass", &SMOLLM2) {
        return;
    }
    let path = model::model_path(&SMOLLM2);
    let portable = Llama::load_portable(&path, &candle_core::Device::Cpu).expect("load portable");
    assert!(portable.is_portable());
    log_probs_match_llama_cpp_at(&portable);

    let cpu = Llama::load(&path, Precision::F32).expect("load f32");
    assert!(!cpu.is_portable());
    let f = fixture();
    let conts: Vec<&[u32]> = f.scored[1..].iter().map(|s| s.ids.as_slice()).collect();
    let prompts: Vec<&[u32]> = f.scored[..3].iter().map(|s| s.ids.as_slice()).collect();
    portable_pass_matches_the_cpu_pass(&cpu, &portable, &f.scored[0].ids, &conts, &prompts);
}

/// Gemma 3 on the same path: llama.cpp's bar, and the CPU f32 pass's log-probs after a prefix
/// longer than the 512-position sliding window, so that five layers of six hide the prefix's
/// start from the continuations (checked by mutation: with the window left out of the
/// portable pass the two differ by up to 12.6 nats).
#[test]
fn gemma3_portable_pass_matches_llama_cpp_and_the_cpu_pass() {
    if !present_or_skip(
        "gemma3_portable_pass_matches_llama_cpp_and_the_cpu_pass",
        &GEMMA3,
    ) {
        return;
    }
    let path = model::model_path(&GEMMA3);
    let portable = Llama::load_portable(&path, &candle_core::Device::Cpu).expect("load portable");
    assert!(portable.is_portable());
    let f = fixture_of("gemma3_llamacpp.json", &GEMMA3);
    log_probs_match_at(&portable, &f);

    let cpu = Llama::load(&path, Precision::F32).expect("load f32");
    // The fixture's texts (each after BOS) end to end until the prefix passes the window.
    let bos = f.scored[0].ids[0];
    let mut prompt = vec![bos];
    while prompt.len() <= 600 {
        for s in &f.scored {
            prompt.extend(&s.ids[1..]);
        }
    }
    let window = cpu.config.sliding_window;
    assert!(
        window > 0 && prompt.len() > window,
        "prefix of {} tokens",
        prompt.len()
    );
    let conts: Vec<&[u32]> = f.scored[1..].iter().map(|s| &s.ids[1..]).collect();
    let prompts: Vec<&[u32]> = f.scored[..3].iter().map(|s| s.ids.as_slice()).collect();
    portable_pass_matches_the_cpu_pass(&cpu, &portable, &prompt, &conts, &prompts);
}

/// The portable pass against the CPU f32 pass: `conts` batched after `prompt`, then each of
/// `conts` after each of `prompts` (BARTScore-style recall: the portable pass packs (prompt,
/// continuation) pairs into cache-free segments); every log-prob within 2e-3 nats.
fn portable_pass_matches_the_cpu_pass(
    cpu: &Llama,
    portable: &Llama,
    prompt: &[u32],
    conts: &[&[u32]],
    prompts: &[&[u32]],
) {
    assert!(!cpu.is_portable());
    let (p_cpu, p_portable) = (
        cpu.prefix(prompt).expect("prefix"),
        portable.prefix(prompt).expect("prefix"),
    );
    // A batch small enough to split the continuations, large enough to pack several.
    let batch = 48;
    let a = cpu
        .score_many(&p_cpu, conts, batch, &NOT_STOPPED)
        .expect("cpu");
    let b = portable
        .score_many(&p_portable, conts, batch, &NOT_STOPPED)
        .expect("portable");
    let mut worst = 0f32;
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.len(), y.len());
        for (u, v) in x.iter().zip(y) {
            worst = worst.max((u - v).abs());
        }
    }
    eprintln!("portable vs CPU f32: largest |delta log-prob| {worst:.2e} nats");
    assert!(
        worst < 2e-3,
        "portable and CPU passes differ by {worst} nats"
    );

    let conts = &conts[2..];
    let a = cpu
        .score_each_prompt(prompts, conts, 128, &NOT_STOPPED)
        .expect("cpu");
    let b = portable
        .score_each_prompt(prompts, conts, 128, &NOT_STOPPED)
        .expect("portable");
    let mut worst = 0f32;
    for (x, y) in a.iter().flatten().zip(b.iter().flatten()) {
        assert_eq!(x.len(), y.len());
        assert!(!x.is_empty());
        for (u, v) in x.iter().zip(y) {
            worst = worst.max((u - v).abs());
        }
    }
    eprintln!("portable vs CPU f32 after each prompt: largest |delta log-prob| {worst:.2e} nats");
    assert!(
        worst < 2e-3,
        "portable and CPU passes differ by {worst} nats after each prompt"
    );
}
