//! Bad input for the neural LM: files that are not the model (empty, not GGUF, another
//! architecture, truncated) are clear errors, never panics; an absent model names the fetch
//! command; empty, huge, emoji-only and CJK-only texts give documented values.

use crate::common;

use aesop::neural::llama::{Llama, Precision, Stopped};
use std::sync::atomic::AtomicBool;

/// The stop flag of calls that nothing cancels.
static NOT_STOPPED: AtomicBool = AtomicBool::new(false);
use aesop::neural::model::SMOLLM2;
use candle_core::quantized::{gguf_file, GgmlDType, QTensor};
use candle_core::{Device, Tensor};

fn load_err(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.gguf");
    std::fs::write(&p, bytes).unwrap();
    match Llama::load(&p, Precision::from_env().expect("precision")) {
        Ok(_) => panic!("loaded a bad file"),
        Err(e) => format!("{e:#}"),
    }
}

/// A tiny llama GGUF (1 block, width 4, 256 byte tokens) written with candle's GGUF writer.
fn tiny_gguf(arch: &str) -> Vec<u8> {
    use gguf_file::Value;
    let mut tokens = Vec::new();
    let mut n = 0u32;
    for b in 0u32..256 {
        let printable =
            (0x21..=0x7e).contains(&b) || (0xa1..=0xac).contains(&b) || (0xae..=0xff).contains(&b);
        let c = if printable {
            b
        } else {
            n += 1;
            255 + n
        };
        tokens.push(Value::String(char::from_u32(c).unwrap().to_string()));
    }
    let md: Vec<(&str, Value)> = vec![
        ("general.architecture", Value::String(arch.to_string())),
        ("tokenizer.ggml.model", Value::String("gpt2".into())),
        ("tokenizer.ggml.tokens", Value::Array(tokens)),
        ("tokenizer.ggml.merges", Value::Array(vec![])),
        ("llama.block_count", Value::U32(1)),
        ("llama.embedding_length", Value::U32(4)),
        ("llama.attention.head_count", Value::U32(2)),
        ("llama.attention.head_count_kv", Value::U32(1)),
        ("llama.feed_forward_length", Value::U32(8)),
        ("llama.context_length", Value::U32(64)),
        ("llama.rope.freq_base", Value::F32(10000.0)),
        ("llama.attention.layer_norm_rms_epsilon", Value::F32(1e-5)),
    ];
    let dev = Device::Cpu;
    let t = |dims: &[usize], seed: f32| {
        let n: usize = dims.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|i| (i as f32 * 0.37 + seed).sin() * 0.5)
            .collect();
        QTensor::quantize(&Tensor::from_vec(v, dims, &dev).unwrap(), GgmlDType::F32).unwrap()
    };
    let tensors = vec![
        ("token_embd.weight", t(&[256, 4], 1.0)),
        ("output_norm.weight", t(&[4], 2.0)),
        ("blk.0.attn_norm.weight", t(&[4], 3.0)),
        ("blk.0.ffn_norm.weight", t(&[4], 4.0)),
        ("blk.0.attn_q.weight", t(&[4, 4], 5.0)),
        ("blk.0.attn_k.weight", t(&[2, 4], 6.0)),
        ("blk.0.attn_v.weight", t(&[2, 4], 7.0)),
        ("blk.0.attn_output.weight", t(&[4, 4], 8.0)),
        ("blk.0.ffn_gate.weight", t(&[8, 4], 9.0)),
        ("blk.0.ffn_up.weight", t(&[8, 4], 10.0)),
        ("blk.0.ffn_down.weight", t(&[4, 8], 11.0)),
    ];
    let mut buf = std::io::Cursor::new(Vec::new());
    let md_refs: Vec<(&str, &Value)> = md.iter().map(|(k, v)| (*k, v)).collect();
    let t_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(k, v)| (*k, v)).collect();
    gguf_file::write(&mut buf, &md_refs, &t_refs).unwrap();
    buf.into_inner()
}

#[test]
fn tiny_llama_loads_and_scores_every_token() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tiny.gguf");
    std::fs::write(&p, tiny_gguf("llama")).unwrap();
    for precision in [Precision::F32, Precision::from_env().expect("precision")] {
        tiny_llama_scores_every_token_at(&p, precision);
    }
}

fn tiny_llama_scores_every_token_at(p: &std::path::Path, precision: Precision) {
    tiny_llama_scores_every_token_at_model(&Llama::load(p, precision).expect("tiny model loads"));
}

fn tiny_llama_scores_every_token_at_model(lm: &Llama) {
    let ids = lm.tokenizer.encode("hi there");
    assert_eq!(ids.len(), 8, "bytes, no merges");
    let lp = lm.score_text(&ids).unwrap();
    assert_eq!(lp.len(), 7);
    assert!(lp.iter().all(|v| v.is_finite() && *v < 0.0));
    // The cache gives what one pass gives.
    let pre = lm.prefix(&ids[..3]).unwrap();
    let tail = lm.score(&pre, &ids[3..]).unwrap();
    for (a, b) in tail.iter().zip(&lp[2..]) {
        assert!((a - b).abs() < 1e-4, "{a} vs {b}");
    }
    // Past the context window (64): the rest is not scored, no panic.
    let long: Vec<u32> = (0..100).map(|i| i % 256).collect();
    let pre = lm.prefix(&long[..60]).unwrap();
    assert_eq!(lm.score(&pre, &long[60..]).unwrap().len(), 4);
    assert!(
        lm.prefix(&long).is_err(),
        "a prompt longer than the context is an error"
    );
    assert!(lm.prefix(&[]).is_err());
    assert!(lm.score(&pre, &[]).unwrap().is_empty());
}

/// The GPU's tensor-only forward pass, run on the CPU: the same checks as the CPU pass, and
/// the CPU pass's log-probs for continuations batched on one prefix (its block-diagonal mask).
#[test]
fn tiny_llama_portable_pass_matches_the_cpu_pass() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tiny.gguf");
    std::fs::write(&p, tiny_gguf("llama")).unwrap();
    let portable = Llama::load_portable(&p, &Device::Cpu).expect("tiny model loads");
    assert!(portable.is_portable());
    let lm = Llama::load(&p, Precision::F32).unwrap();
    let pre = lm.prefix(b"the ".map(u32::from).as_slice()).unwrap();
    let pre_portable = portable.prefix(b"the ".map(u32::from).as_slice()).unwrap();
    let texts: Vec<Vec<u32>> = ["cat sat", "", "a", "on the mat, twice over"]
        .iter()
        .map(|t| t.bytes().map(u32::from).collect())
        .collect();
    let conts: Vec<&[u32]> = texts.iter().map(Vec::as_slice).collect();
    // Batches of 8 tokens: some continuations share a pass, the long one has its own.
    let (a, b) = (
        lm.score_many(&pre, &conts, 8, &NOT_STOPPED).unwrap(),
        portable
            .score_many(&pre_portable, &conts, 8, &NOT_STOPPED)
            .unwrap(),
    );
    assert_eq!(a.iter().map(Vec::len).collect::<Vec<_>>(), [7, 0, 1, 22]);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.len(), y.len());
        for (u, v) in x.iter().zip(y) {
            assert!((u - v).abs() < 1e-4, "CPU {u} vs portable {v}");
        }
    }
    tiny_llama_scores_every_token_at_model(&portable);

    // Continuations after each of several prompts: one prefix pass per prompt on the CPU, one
    // cache-free segment per (prompt, continuation) pair on the portable pass.
    let prompts: Vec<Vec<u32>> = ["the ", "a dog and ", "x"]
        .iter()
        .map(|t| t.bytes().map(u32::from).collect())
        .collect();
    let prompts: Vec<&[u32]> = prompts.iter().map(Vec::as_slice).collect();
    let (a, b) = (
        lm.score_each_prompt(&prompts, &conts, 8, &NOT_STOPPED)
            .unwrap(),
        portable
            .score_each_prompt(&prompts, &conts, 8, &NOT_STOPPED)
            .unwrap(),
    );
    assert_eq!(a.len(), 3);
    assert_eq!(b.len(), 3);
    for (by_prompt_a, by_prompt_b) in a.iter().zip(&b) {
        let lens = |x: &Vec<Vec<f32>>| x.iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(lens(by_prompt_a), [7, 0, 1, 22]);
        assert_eq!(lens(by_prompt_b), [7, 0, 1, 22]);
        for (x, y) in by_prompt_a.iter().zip(by_prompt_b) {
            for (u, v) in x.iter().zip(y) {
                assert!((u - v).abs() < 1e-4, "CPU {u} vs portable {v}");
            }
        }
    }
    // The first prompt's row is what score_many gives on its prefix.
    assert_eq!(a[0], lm.score_many(&pre, &conts, 8, &NOT_STOPPED).unwrap());
    for m in [&lm, &portable] {
        let err = m
            .score_each_prompt(&[&[], prompts[0]], &conts, 8, &NOT_STOPPED)
            .unwrap_err();
        assert!(err.to_string().contains("empty prompt"), "{err}");
    }
}

/// A set stop flag ends every batched call before its next pass through the network, with
/// [`Stopped`] (a service request that timed out, Ctrl-C); a flag never set changes nothing.
/// Both forward passes (the CPU's and the tensor-only one).
#[test]
fn tiny_llama_batched_calls_stop_when_the_flag_is_set() {
    use std::sync::atomic::Ordering;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tiny.gguf");
    std::fs::write(&p, tiny_gguf("llama")).unwrap();
    let models = [
        Llama::load(&p, Precision::F32).unwrap(),
        Llama::load_portable(&p, &Device::Cpu).expect("tiny model loads"),
    ];
    let ids = |t: &str| t.bytes().map(u32::from).collect::<Vec<u32>>();
    let texts = [ids("cat sat"), ids("on the mat, twice over")];
    let conts: Vec<&[u32]> = texts.iter().map(Vec::as_slice).collect();
    let prompts = [ids("the ")];
    let prompts: Vec<&[u32]> = prompts.iter().map(Vec::as_slice).collect();
    for lm in &models {
        let pre = lm.prefix(prompts[0]).unwrap();
        let stop = AtomicBool::new(false);
        let go = lm.score_many(&pre, &conts, 8, &stop).unwrap();
        assert_eq!(go, lm.score_many(&pre, &conts, 8, &NOT_STOPPED).unwrap());
        stop.store(true, Ordering::Relaxed);
        let stopped = |r: anyhow::Result<()>| {
            let e = r.expect_err("a stopped call is an error");
            assert!(e.is::<Stopped>(), "{e:#}");
        };
        stopped(lm.score_many(&pre, &conts, 8, &stop).map(drop));
        stopped(lm.score_many_pooled(&pre, &conts, 8, &[0], &stop).map(drop));
        stopped(lm.token_states(&pre, &conts, 8, &[0], &stop).map(drop));
        stopped(lm.score_each_prompt(&prompts, &conts, 8, &stop).map(drop));
    }
}

/// The tensor-only pass takes one thread at a time (the GPU's turn, docs/NEURAL.md "GPU"):
/// threads calling every entry point at once on one model all finish, none waiting on a turn it
/// already holds, and each gets what the same calls give one after another. A thread that waits
/// for ever fails the test after two minutes rather than hanging it.
#[test]
fn tiny_llama_portable_pass_from_several_threads_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tiny.gguf");
    std::fs::write(&p, tiny_gguf("llama")).unwrap();
    let lm = std::sync::Arc::new(Llama::load_portable(&p, &Device::Cpu).expect("tiny model loads"));
    let every_entry_point = |lm: &Llama| {
        let ids = |t: &str| t.bytes().map(u32::from).collect::<Vec<u32>>();
        let texts = [ids("cat sat"), ids(""), ids("on the mat, twice over")];
        let conts: Vec<&[u32]> = texts.iter().map(Vec::as_slice).collect();
        let prompts = [ids("the "), ids("a dog and ")];
        let prompts: Vec<&[u32]> = prompts.iter().map(Vec::as_slice).collect();
        let pre = lm.prefix(prompts[0]).unwrap();
        (
            lm.score(&pre, conts[2]).unwrap(),
            lm.score_many(&pre, &conts, 8, &NOT_STOPPED).unwrap(),
            lm.token_states(&pre, &conts, 8, &[0], &NOT_STOPPED)
                .unwrap(),
            lm.score_each_prompt(&prompts, &conts, 8, &NOT_STOPPED)
                .unwrap(),
            lm.score_text(conts[2]).unwrap(),
        )
    };
    // One thread first, then four at once; each on a thread of its own, so that a wait that
    // never ends is a failure here, not a hang.
    let run = |threads: usize| {
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..threads {
            let (lm, tx) = (std::sync::Arc::clone(&lm), tx.clone());
            std::thread::spawn(move || tx.send(every_entry_point(&lm)));
        }
        (0..threads)
            .map(|_| {
                rx.recv_timeout(std::time::Duration::from_secs(120))
                    .expect("every thread finishes")
            })
            .collect::<Vec<_>>()
    };
    let alone = run(1).remove(0);
    for got in run(4) {
        assert_eq!(got, alone);
    }
}

/// Asking for the GPU from an aesop built without the `cuda` feature is an error that says so.
#[test]
fn cuda_without_the_feature_is_a_clear_error() {
    if candle_core::utils::cuda_is_available() {
        eprintln!("built with the cuda feature: nothing to check");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tiny.gguf");
    std::fs::write(&p, tiny_gguf("llama")).unwrap();
    let e = match Llama::load(&p, Precision::Cuda) {
        Ok(_) => panic!("loaded for a GPU without the cuda feature"),
        Err(e) => format!("{e:#}"),
    };
    assert!(e.contains("built with the `cuda` cargo feature"), "{e}");
    assert!(e.contains("for Python, the GPU wheel"), "{e}");
}

#[test]
fn files_that_are_not_the_model_are_errors() {
    assert!(load_err(b"").contains("too short"));
    assert!(load_err(b"PK\x03\x04 definitely a zip").contains("not a GGUF"));
    assert!(load_err(&tiny_gguf("bert")).contains("architecture is 'bert'"));
    let whole = tiny_gguf("llama");
    for cut in [10, 200, whole.len() - 16] {
        let e = load_err(&whole[..cut]);
        assert!(e.contains("cannot load model file"), "cut at {cut}: {e}");
    }
}

#[test]
fn absent_model_names_the_fetch_command() {
    let home = tempfile::tempdir().unwrap();
    let set = home.path().join("set.jsonl");
    std::fs::write(
        &set,
        r#"{"topic":"t","documents":[{"id":"d","text":"A cat sat."}],"summaries":[{"system":"s","text":"A cat."}]}"#,
    )
    .unwrap();
    let out = common::aesop()
        .env("AESOP_HOME", home.path())
        .args(["features", set.to_str().unwrap(), "--classes", "neural"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("aesop models fetch smollm2"), "{err}");
    let out = common::aesop()
        .env("AESOP_HOME", home.path())
        .arg("models")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("smollm2") && text.contains("absent"),
        "{text}"
    );
    // A corrupt installed file is named as such.
    let p = home.path().join("models").join(SMOLLM2.file_name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, vec![0u8; SMOLLM2.size as usize]).unwrap();
    let out = common::aesop()
        .env("AESOP_HOME", home.path())
        .args(["features", set.to_str().unwrap(), "--classes", "neural"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("corrupt") && err.contains("aesop models fetch smollm2"),
        "{err}"
    );
}

#[test]
fn odd_texts_give_documented_values() {
    if !common::neural_model_or_skip("odd_texts_give_documented_values") {
        return;
    }
    use aesop::corpus::{Document, Topic};
    use aesop::features::{build_classes, FeatureOptions, TopicContext};
    let mut topic = Topic::new("t");
    let long = "The committee met again on Monday to discuss the budget. ".repeat(2000);
    topic.documents.push(Document::new("d", long));
    for (sys, text) in [
        ("empty", ""),
        ("emoji", "😀😀🎉👍"),
        ("cjk", "東京では雨が降っています"),
        ("en", "The committee met."),
    ] {
        let s: aesop::corpus::Summary =
            serde_json::from_value(serde_json::json!({"system": sys, "text": text})).unwrap();
        topic.summaries.push(s);
    }
    let classes = build_classes(&["neural".to_string()], &FeatureOptions::default()).unwrap();
    let names = classes[0].feature_names();
    let rows = classes[0].extract(&TopicContext::new(&topic));
    let col = |n: &str| names.iter().position(|x| x == n).unwrap();
    let empty = rows[0].as_ref().expect("row for the empty summary");
    assert_eq!(empty[col("neural.n_tokens")], 0.0);
    assert!(empty[col("neural.src_mean")].is_nan());
    assert!(empty[col("neural.src_slor")].is_nan() && empty[col("neural.unc_slor")].is_nan());
    for r in &rows[1..] {
        let r = r.as_ref().expect("row");
        assert!(r[col("neural.src_mean")].is_finite() && r[col("neural.src_mean")] < 0.0);
        // SLOR is defined for any words: emoji have no unigram term, CJK words the rarest one.
        assert!(r[col("neural.src_slor")].is_finite() && r[col("neural.unc_slor")].is_finite());
        assert!(
            r[col("neural.ref_precision")].is_nan(),
            "no references: NaN"
        );
    }
    // The 20,000-token source is cut to the budget; the English summary copying it is likely.
    let en = rows[3].as_ref().unwrap();
    let emoji = rows[1].as_ref().unwrap();
    assert!(en[col("neural.src_mean")] > emoji[col("neural.src_mean")]);
}
