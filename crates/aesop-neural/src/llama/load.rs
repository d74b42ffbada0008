//! Loading a model from a GGUF file: the architecture and shapes from its metadata, its own
//! tokenizer (byte-level BPE or SentencePiece), and the weights, dequantized to f32 and, where
//! the CPU allows, requantized for the int8 products ([`super::Precision`]), or sent to a device
//! for the portable pass.

use super::kernels::rope_tables;
use super::{
    portable, Arch, Block, Config, Embedding, GemmaNorms, Linear, Llama, Precision,
    GEMMA3_SWA_ROPE_BASE, MAX_POSITIONS,
};
use crate::int8::Int8Matrix;
use crate::tokenizer::{BpeTokenizer, SpmTokenizer, Tokenizer};
use anyhow::{anyhow, bail, Context, Result};
use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use std::io::{Read, Seek};

fn md<'a>(content: &'a gguf_file::Content, key: &str) -> Result<&'a gguf_file::Value> {
    content
        .metadata
        .get(key)
        .ok_or_else(|| anyhow!("GGUF metadata lacks '{key}'"))
}

fn md_usize(content: &gguf_file::Content, key: &str) -> Result<usize> {
    let v = md(content, key)?;
    let n = v
        .to_u32()
        .map(u64::from)
        .or_else(|_| v.to_u64())
        .map_err(|e| anyhow!("GGUF metadata '{key}': {e}"))?;
    usize::try_from(n).map_err(|_| anyhow!("GGUF metadata '{key}' out of range"))
}

fn md_f32(content: &gguf_file::Content, key: &str) -> Result<f32> {
    md(content, key)?
        .to_f32()
        .map_err(|e| anyhow!("GGUF metadata '{key}': {e}"))
}

fn md_strings(content: &gguf_file::Content, key: &str) -> Result<Vec<String>> {
    md(content, key)?
        .to_vec()
        .map_err(|e| anyhow!("GGUF metadata '{key}': {e}"))?
        .iter()
        .map(|v| {
            v.to_string()
                .cloned()
                .map_err(|e| anyhow!("GGUF metadata '{key}': {e}"))
        })
        .collect()
}

/// The tokenizer the GGUF declares: byte-level BPE (`gpt2`: tokens and merges) or SentencePiece
/// BPE (`llama`: [`SpmTokenizer::from_gguf`], which also checks its settings).
pub(super) fn tokenizer_from_gguf(content: &gguf_file::Content) -> Result<Tokenizer> {
    let model = md(content, "tokenizer.ggml.model")?
        .to_string()
        .map_err(|e| anyhow!("{e}"))?
        .clone();
    match model.as_str() {
        "gpt2" => {
            let tokens = md_strings(content, "tokenizer.ggml.tokens")?;
            let merges = md_strings(content, "tokenizer.ggml.merges")?;
            Ok(Tokenizer::Bpe(BpeTokenizer::new(tokens, &merges)?))
        }
        "llama" => Ok(Tokenizer::Spm(SpmTokenizer::from_gguf(content)?)),
        other => bail!(
            "GGUF tokenizer is '{other}', expected byte-level BPE ('gpt2') or SentencePiece ('llama')"
        ),
    }
}

impl Llama {
    /// With `portable_on`, the weights go to that device for [`portable`]'s forward pass (f32);
    /// else they stay on the CPU for this module's.
    pub(super) fn from_reader<R: Read + Seek>(
        reader: &mut R,
        precision: Precision,
        portable_on: Option<&Device>,
        batch_tokens: usize,
    ) -> Result<Llama> {
        let mut magic = [0u8; 4];
        reader
            .read_exact(&mut magic)
            .context("file too short for a GGUF header")?;
        if magic != *b"GGUF" {
            bail!("not a GGUF file (magic {magic:02x?})");
        }
        reader.rewind()?;
        let content = gguf_file::Content::read(reader).map_err(|e| anyhow!("bad GGUF: {e}"))?;
        let arch = md(&content, "general.architecture")?
            .to_string()
            .map_err(|e| anyhow!("GGUF general.architecture: {e}"))?
            .clone();
        let arch_kind = match arch.as_str() {
            "llama" => Arch::Llama,
            "gemma3" => Arch::Gemma3,
            other => bail!("GGUF architecture is '{other}', expected 'llama' or 'gemma3'"),
        };
        let key = |k: &str| format!("{arch}.{k}");
        let n_embd = md_usize(&content, &key("embedding_length"))?;
        let n_head = md_usize(&content, &key("attention.head_count"))?;
        let gemma = arch_kind == Arch::Gemma3;
        let add_bos = match content.metadata.get("tokenizer.ggml.add_bos_token") {
            Some(v) => v
                .to_bool()
                .map_err(|e| anyhow!("GGUF tokenizer.ggml.add_bos_token: {e}"))?,
            None => false,
        };
        let bos = if add_bos {
            let id = md_usize(&content, "tokenizer.ggml.bos_token_id")?;
            Some(u32::try_from(id).map_err(|_| anyhow!("GGUF bos token id out of range"))?)
        } else {
            None
        };
        let config = Config {
            arch: arch_kind,
            n_layer: md_usize(&content, &key("block_count"))?,
            n_embd,
            n_head,
            n_kv_head: md_usize(&content, &key("attention.head_count_kv"))?,
            head_dim: if gemma {
                md_usize(&content, &key("attention.key_length"))?
            } else {
                n_embd.checked_div(n_head).unwrap_or(0)
            },
            n_ff: md_usize(&content, &key("feed_forward_length"))?,
            context: md_usize(&content, &key("context_length"))?.min(MAX_POSITIONS),
            rope_base: md_f32(&content, &key("rope.freq_base")).unwrap_or(10_000.0),
            rms_eps: f64::from(md_f32(&content, &key("attention.layer_norm_rms_epsilon"))?),
            sliding_window: if gemma {
                md_usize(&content, &key("attention.sliding_window"))?
            } else {
                0
            },
            bos,
        };
        if config.n_head == 0
            || config.n_kv_head == 0
            || config.head_dim == 0
            || (!gemma && !config.n_embd.is_multiple_of(config.n_head))
            || !config.n_head.is_multiple_of(config.n_kv_head)
            || !config.head_dim().is_multiple_of(2)
            || config.n_layer == 0
            || config.n_layer > 1024
            || config.context == 0
        {
            bail!("GGUF hyper-parameters are inconsistent: {config:?}");
        }
        let tokenizer = tokenizer_from_gguf(&content)?;
        if let Some(b) = config.bos {
            if b as usize >= tokenizer.vocab_size() {
                bail!("GGUF bos token id {b} is outside the vocabulary");
            }
        }

        if portable_on.is_some() && precision == Precision::Int8 {
            bail!("the GPU forward pass runs at f32 only, not at int8");
        }
        // Where the weights live: the GPU (or, in tests, the CPU) for the portable pass.
        let target = portable_on.cloned().unwrap_or(Device::Cpu);
        let dev = Device::Cpu;
        let mut get_quantized = |name: &str| -> Result<candle_core::quantized::QTensor> {
            content
                .tensor(reader, name, &dev)
                .map_err(|e| anyhow!("tensor {name}: {e}"))
        };
        let (e, kv) = (config.n_embd, config.n_kv_head * config.head_dim());
        let q_width = config.n_head * config.head_dim();
        let expect = |t: &Tensor, dims: &[usize], name: &str| -> Result<()> {
            if t.dims() != dims {
                bail!("tensor {name} has shape {:?}, expected {dims:?}", t.dims());
            }
            Ok(())
        };
        let vocab = tokenizer.vocab_size();
        let embedding_q = get_quantized("token_embd.weight")?;
        if embedding_q.shape().dims() != [vocab, e] {
            bail!(
                "tensor token_embd.weight has shape {:?}, expected {:?}",
                embedding_q.shape().dims(),
                [vocab, e]
            );
        }
        let mut get = |name: &str| -> Result<Tensor> {
            get_quantized(name)?
                .dequantize(&dev)
                .map_err(|e| anyhow!("tensor {name}: {e}"))
        };
        let dequantized_embedding = || {
            embedding_q
                .dequantize(&dev)
                .map_err(|e| anyhow!("tensor token_embd.weight: {e}"))
        };
        let tied = !content.tensor_infos.contains_key("output.weight");
        let (head, embedding) = if !tied {
            let head = get("output.weight")?;
            expect(&head, &[vocab, e], "output.weight")?;
            let embedding = if gemma && portable_on.is_none() {
                Embedding::Quantized(Box::new(embedding_q))
            } else {
                Embedding::F32(dequantized_embedding()?.to_device(&target)?)
            };
            (Linear::new(head, precision, &target)?, embedding)
        } else if gemma && precision == Precision::Int8 {
            // The tied head quantized a group of rows at a time from the 8-bit table, so that
            // its 671 MB as f32 never exist (the same values as from the whole matrix).
            let rows = |first: usize, count: usize| -> Result<std::borrow::Cow<'static, [f32]>> {
                let ids = Tensor::arange(first as u32, (first + count) as u32, &dev)?;
                Ok(std::borrow::Cow::Owned(
                    embedding_q
                        .embedding(&ids)?
                        .flatten_all()?
                        .to_vec1::<f32>()?,
                ))
            };
            let head = Linear::Int8(Int8Matrix::from_column_groups(e, vocab, rows)?);
            (head, Embedding::Quantized(Box::new(embedding_q)))
        } else {
            let table = dequantized_embedding()?;
            let head = Linear::new(table.clone(), precision, &target)?;
            // The portable pass looks rows up on its device, so it keeps Gemma's table at f32
            // there (671 MB; a GPU has the room).
            let embedding = if gemma && portable_on.is_none() {
                drop(table);
                Embedding::Quantized(Box::new(embedding_q))
            } else {
                Embedding::F32(table.to_device(&target)?)
            };
            (head, embedding)
        };
        let output_norm = get("output_norm.weight")?.to_device(&target)?;
        let mut blocks = Vec::with_capacity(config.n_layer);
        for i in 0..config.n_layer {
            let mut w = |s: &str, dims: &[usize]| -> Result<Tensor> {
                let name = format!("blk.{i}.{s}.weight");
                let t = get(&name)?;
                expect(&t, dims, &name)?;
                Ok(t)
            };
            let wq = w("attn_q", &[q_width, e])?;
            let wk = w("attn_k", &[kv, e])?;
            let wv = w("attn_v", &[kv, e])?;
            let wo = w("attn_output", &[e, q_width])?;
            let gate = w("ffn_gate", &[config.n_ff, e])?;
            let up = w("ffn_up", &[config.n_ff, e])?;
            let down = w("ffn_down", &[e, config.n_ff])?;
            let gemma_norms = if gemma {
                let hd = config.head_dim();
                let (q_norm, k_norm) = (w("attn_q_norm", &[hd])?, w("attn_k_norm", &[hd])?);
                Some(GemmaNorms {
                    q_norm: q_norm.to_vec1()?,
                    k_norm: k_norm.to_vec1()?,
                    head_norms: (q_norm.to_device(&target)?, k_norm.to_device(&target)?),
                    post_attn: w("post_attention_norm", &[e])?.to_device(&target)?,
                    post_ffn: w("post_ffw_norm", &[e])?.to_device(&target)?,
                })
            } else {
                None
            };
            blocks.push(Block {
                attn_norm: w("attn_norm", &[e])?.to_device(&target)?,
                gemma: gemma_norms,
                ffn_norm: w("ffn_norm", &[e])?.to_device(&target)?,
                wqkv: Linear::new(Tensor::cat(&[wq, wk, wv], 0)?, precision, &target)?,
                wo: Linear::new(wo, precision, &target)?,
                w_gate_up: Linear::new(Tensor::cat(&[gate, up], 0)?, precision, &target)?,
                w_down: Linear::new(down, precision, &target)?,
            });
        }
        let (cos, sin) = rope_tables(config.context, config.head_dim(), config.rope_base);
        let (cos_local, sin_local) = if gemma {
            rope_tables(config.context, config.head_dim(), GEMMA3_SWA_ROPE_BASE)
        } else {
            (Vec::new(), Vec::new())
        };
        let portable = match portable_on {
            Some(d) => Some(portable::RopeTensors::new(
                (&cos, &sin),
                (&cos_local, &sin_local),
                config.head_dim() / 2,
                d,
            )?),
            None => None,
        };
        Ok(Llama {
            config,
            tokenizer,
            precision,
            embedding,
            head,
            blocks,
            output_norm,
            cos,
            sin,
            cos_local,
            sin_local,
            batch_tokens,
            portable,
        })
    }
}
