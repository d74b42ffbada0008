//! A llama-family decoder (SmolLM2's llama architecture, and Gemma 3) on candle tensors, written
//! for *scoring*: it returns the log-probability of every given token, not just the next one, and
//! its key-value cache is ours, so one source prompt is run once per topic and every summary
//! continues from it.
//!
//! Gemma 3 differs from llama in a few places, each marked [`Arch::Gemma3`] below, as llama.cpp's
//! `gemma3` graph has them: embeddings scaled by the square root of the width, queries and keys
//! RMS-normed per head, RoPE on the two halves of a head (NeoX) rather than adjacent pairs, a
//! norm after attention and after the feed-forward network as well as before, a GELU-gated
//! feed-forward network, and five of every six layers attending to the last `sliding_window`
//! positions only, with their own RoPE base (10,000). The llama path is unchanged by them (its
//! features are bit-identical to before Gemma's support).
//!
//! Weights are dequantized at load: candle's quantized matmul on CPU is ~14x slower than its f32
//! gemm here (CRATES.md). Where the CPU has AVX-512 VNNI or AVX2 they are then requantized for
//! our own 8-bit products ([`super::int8`], [`Precision`]), 1.6x faster than f32 over a whole
//! run with VNNI.
//! Layout as llama.cpp's GGUF conversion leaves it: query and key rows are permuted so RoPE rotates adjacent pairs (2i, 2i+1); grouped-query attention gives
//! query head h the key-value head h / (heads / kv-heads); the output head is tied to the token
//! embedding when the file has no `output.weight`.

use anyhow::{anyhow, bail, Context, Result};
use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor, D};
use std::io::{Read, Seek};
use std::path::Path;

use super::int8::Int8Matrix;
use super::tokenizer::{BpeTokenizer, SpmTokenizer, Tokenizer};

mod portable;

/// Rows of hidden states sent through the LM head at a time (64 x 49,152 logits: 12 MiB).
const HEAD_ROWS: usize = 64;

/// The decoder families this module runs (GGUF `general.architecture`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// `llama` (SmolLM2).
    Llama,
    /// `gemma3` (Gemma 3 270M): see the module documentation for what differs.
    Gemma3,
}

/// Positions the RoPE tables cover at most: far beyond what scoring uses (a 1,400-token source
/// and a 512-token summary), and it keeps Gemma 3's tables (context 32,768, head width 256) at
/// 17 MB instead of 67.
pub const MAX_POSITIONS: usize = 8192;

/// Layers of Gemma 3 in each run of sliding-window layers plus one global layer (llama.cpp's
/// `set_swa_pattern(6)`: layer `i` is global when `i % 6 == 5`).
const GEMMA3_SWA_PATTERN: usize = 6;

/// RoPE base of Gemma 3's sliding-window layers (llama.cpp's `rope_freq_base_train_swa`).
const GEMMA3_SWA_ROPE_BASE: f32 = 10_000.0;

/// Hyper-parameters read from the GGUF metadata.
#[derive(Debug, Clone)]
pub struct Config {
    pub arch: Arch,
    pub n_layer: usize,
    pub n_embd: usize,
    pub n_head: usize,
    pub n_kv_head: usize,
    /// Width of one attention head: `n_embd / n_head` for llama, `attention.key_length` for
    /// Gemma 3 (256, with 4 heads of a 640-wide model).
    pub head_dim: usize,
    pub n_ff: usize,
    /// Positions the model may see (the GGUF's context, at most `MAX_POSITIONS`).
    pub context: usize,
    pub rope_base: f32,
    pub rms_eps: f64,
    /// Gemma 3: how many positions back a sliding-window layer sees (itself included); 0 for
    /// llama, whose layers all see everything before them.
    pub sliding_window: usize,
    /// The beginning-of-sequence token every text starts with, where the model wants one
    /// (`tokenizer.ggml.add_bos_token`: Gemma 3 yes, SmolLM2 no).
    pub bos: Option<u32>,
}

impl Config {
    fn head_dim(&self) -> usize {
        self.head_dim
    }

    /// Does layer `i` attend to a sliding window only?
    fn is_sliding(&self, i: usize) -> bool {
        self.sliding_window > 0 && i % GEMMA3_SWA_PATTERN < GEMMA3_SWA_PATTERN - 1
    }
}

/// How the linear layers (and the LM head) multiply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// Weights dequantized to f32, candle's (gemm's) products.
    F32,
    /// Weights and activations at 8 bits on AVX-512 VNNI or AVX2 ([`super::int8`], the same
    /// values on both): faster products, log-probs within a few hundredths of a nat of f32
    /// (docs/NEURAL.md).
    Int8,
    /// Weights at f32 on an NVIDIA GPU, the whole forward pass there (the tensor-only pass of
    /// `llama/portable.rs`); needs an aesop built with the `cuda` cargo feature.
    Cuda,
}

/// Tokens per batched pass unless [`BATCH_TOKENS_VAR`] says otherwise ([`Llama::batch_tokens`]).
/// On the CPU, the setting docs/NEURAL.md's timings were measured with. On an H200, 4,096 tokens
/// per pass saved 4-19 % of the time but took 7 times the GPU memory (docs/NEURAL.md, "GPU"),
/// so a GPU keeps it too.
pub const DEFAULT_BATCH_TOKENS: usize = 1024;

/// Environment variable setting the tokens per batched pass (a positive number); results
/// differ only in float rounding.
pub const BATCH_TOKENS_VAR: &str = "AESOP_NEURAL_BATCH_TOKENS";

/// [`BATCH_TOKENS_VAR`], else [`DEFAULT_BATCH_TOKENS`].
fn batch_tokens_from_env() -> Result<usize> {
    parse_batch_tokens(&std::env::var(BATCH_TOKENS_VAR).unwrap_or_default())
}

/// [`BATCH_TOKENS_VAR`]'s value: empty for the default, else a positive number.
fn parse_batch_tokens(value: &str) -> Result<usize> {
    if value.is_empty() {
        return Ok(DEFAULT_BATCH_TOKENS);
    }
    match value.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => {
            bail!("{BATCH_TOKENS_VAR} is '{value}': expected a positive number of tokens per pass")
        }
    }
}

/// Environment variable choosing [`Precision`]: `auto` (default: the GPU where aesop was built
/// with the `cuda` feature and finds one, else int8 where the CPU has AVX-512 VNNI or AVX2,
/// else f32), `f32`, `int8` or `cuda`.
pub const PRECISION_VAR: &str = "AESOP_NEURAL_PRECISION";

impl Precision {
    /// The precision [`PRECISION_VAR`] asks for; `int8` on a CPU without an int8 kernel is an
    /// error.
    pub fn from_env() -> Result<Precision> {
        let value = std::env::var(PRECISION_VAR).unwrap_or_default();
        match value.as_str() {
            "" | "auto" => Ok(if cuda_device().is_ok() {
                Precision::Cuda
            } else if Int8Matrix::supported() {
                Precision::Int8
            } else {
                Precision::F32
            }),
            "cuda" => cuda_device().map(|_| Precision::Cuda),
            "f32" => Ok(Precision::F32),
            "int8" if Int8Matrix::supported() => Ok(Precision::Int8),
            "int8" => bail!(
                "{PRECISION_VAR}=int8 needs a CPU with AVX-512 VNNI or AVX2, which this one \
                 lacks; use auto or f32"
            ),
            other => bail!("{PRECISION_VAR} is '{other}': expected auto, f32, int8 or cuda"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Int8 => "int8",
            Precision::Cuda => "cuda",
        }
    }
}

/// The first CUDA GPU, or why there is none to use. Opened once per process: choosing the
/// precision (`auto` asks whether there is a GPU) and loading the model share one device.
fn cuda_device() -> Result<Device> {
    static FIRST_GPU: std::sync::OnceLock<std::result::Result<Device, String>> =
        std::sync::OnceLock::new();
    FIRST_GPU
        .get_or_init(|| open_first_gpu().map_err(|e| e.to_string()))
        .clone()
        .map_err(|e| anyhow!(e))
}

fn open_first_gpu() -> Result<Device> {
    if !candle_core::utils::cuda_is_available() {
        bail!(
            "{PRECISION_VAR}=cuda needs an aesop built with the `cuda` cargo feature and the CUDA \
             toolkit (docs/NEURAL.md, \"GPU\"); this one was built without it"
        );
    }
    // The first line only: candle appends a backtrace where RUST_BACKTRACE is set.
    Device::new_cuda(0).map_err(|e| {
        let e = e.to_string();
        let first = e.lines().next().unwrap_or_default();
        anyhow!("{PRECISION_VAR}=cuda: no usable CUDA GPU: {first}")
    })
}

/// A weight matrix (inputs, outputs) that activations (rows, inputs) are multiplied by.
enum Linear {
    F32(Tensor),
    Int8(Int8Matrix),
}

impl Linear {
    /// `w` is (outputs, inputs), contiguous f32 on the CPU, as a GGUF stores it: transposed for
    /// f32 (and moved to `dev`), read as it lies for int8.
    fn new(w: Tensor, precision: Precision, dev: &Device) -> Result<Linear> {
        Ok(match precision {
            Precision::F32 | Precision::Cuda => Linear::F32(w.t()?.contiguous()?.to_device(dev)?),
            Precision::Int8 => {
                let (n, k) = w.dims2()?;
                let w = w.contiguous()?;
                Linear::Int8(with_f32(&w, |v| {
                    Ok(Int8Matrix::from_f32_by_column(v, k, n))
                })?)
            }
        })
    }

    fn outputs(&self) -> Result<usize> {
        Ok(match self {
            Linear::F32(w) => w.dim(1)?,
            Linear::Int8(w) => w.outputs(),
        })
    }

    /// `x · w` as a tensor (rows, outputs).
    fn apply(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            Linear::F32(w) => Ok(x.matmul(w)?),
            Linear::Int8(w) => Ok(Tensor::from_vec(
                int8_product(w, x)?,
                (x.dim(0)?, w.outputs()),
                &Device::Cpu,
            )?),
        }
    }

    /// `x · w`, handed to `f` as (rows × outputs) values without another copy.
    fn with_product<T>(&self, x: &Tensor, f: impl FnOnce(&[f32]) -> Result<T>) -> Result<T> {
        match self {
            Linear::F32(w) => with_f32(&x.matmul(w)?, f),
            Linear::Int8(w) => f(&int8_product(w, x)?),
        }
    }
}

/// `x · w` for activations `x` (rows, inputs) as a tensor.
fn int8_product(w: &Int8Matrix, x: &Tensor) -> Result<Vec<f32>> {
    let rows = x.dim(0)?;
    with_f32(&x.contiguous()?, |v| Ok(w.product(v, rows)))
}

/// Gemma 3's extra per-block weights.
struct GemmaNorms {
    /// RMS-norm weights of each query and key head (head_dim each).
    q_norm: Vec<f32>,
    k_norm: Vec<f32>,
    /// The same two on the model's device, for the tensor-only pass ([`portable`]).
    head_norms: (Tensor, Tensor),
    /// Norms applied to the attention and feed-forward outputs before they join the residual.
    post_attn: Tensor,
    post_ffn: Tensor,
}

struct Block {
    attn_norm: Tensor,
    /// Gemma 3 only.
    gemma: Option<GemmaNorms>,
    /// Fused query/key/value projection, (n_embd, heads · head_dim + 2 kv_dim).
    wqkv: Linear,
    /// (heads · head_dim, n_embd).
    wo: Linear,
    ffn_norm: Tensor,
    /// Fused gate/up projection, (n_embd, 2 n_ff).
    w_gate_up: Linear,
    /// (n_ff, n_embd).
    w_down: Linear,
}

/// The model: weights, tokenizer and RoPE tables.
pub struct Llama {
    pub config: Config,
    pub tokenizer: Tokenizer,
    pub precision: Precision,
    embedding: Embedding,
    /// Output head, (n_embd, vocab).
    head: Linear,
    blocks: Vec<Block>,
    output_norm: Tensor,
    /// RoPE tables, (context, head_dim / 2) row-major: cos and sin of position · frequency.
    cos: Vec<f32>,
    sin: Vec<f32>,
    /// Gemma 3's sliding-window layers' tables (their own base); empty for llama.
    cos_local: Vec<f32>,
    sin_local: Vec<f32>,
    /// The tables on the model's device where the forward pass is [`portable`]'s (on a GPU, and
    /// in tests); None on the CPU path.
    portable: Option<portable::RopeTensors>,
    /// Tokens per batched pass ([`Llama::batch_tokens`]).
    batch_tokens: usize,
}

/// Token embeddings: f32 rows (llama), or rows dequantized on lookup (Gemma 3, whose 262,144 ×
/// 640 table would take 671 MB as f32 and takes 178 MB as the file stores it, 8-bit). Boxed:
/// with the `cuda` feature a `QTensor` takes at least 232 bytes, a `Tensor` 8.
enum Embedding {
    F32(Tensor),
    Quantized(Box<candle_core::quantized::QTensor>),
}

/// Per continuation: its tokens' log-probs, and its pooled hidden states
/// ([`Llama::score_many_pooled`]).
pub type ScoredAndPooled = (Vec<Vec<f32>>, Vec<Vec<f32>>);

/// One thread's turn on the GPU: while it is held no other thread queues GPU work, and when it
/// ends all the work it queued has finished.
///
/// Why: the topics of a run call the model from several threads, and candle runs each thread on
/// CUDA's per-thread stream with one cuBLAS handle for them all. Concurrent matrix products on
/// those streams then share the handle's workspace, and on an H200 the rows of one command
/// changed from run to run (by up to 5e-6 nats per token on SummEval), where with one thread
/// they were the same in every run and the whole set ran faster (docs/NEURAL.md, "GPU"). One
/// stream for all threads (`Device::new_cuda_with_stream`) made the rows repeat too, but took 3×
/// as long with 16 threads.
struct GpuTurn<'a> {
    device: &'a Device,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl Drop for GpuTurn<'_> {
    fn drop(&mut self) {
        // Every pass already ends by reading its results back; this also covers the frees of
        // its tensors, queued as they were dropped.
        let _ = self.device.synchronize();
    }
}

/// Keys and values of a processed prompt, per layer (kv_heads, len, head_dim), and the
/// log-probabilities of the token after it.
pub struct Prefix {
    k: Vec<Tensor>,
    v: Vec<Tensor>,
    pub len: usize,
    next_logprobs: Vec<f32>,
}

/// Keys and values of every layer, as a [`Prefix`] holds them.
type KvLayers = (Vec<Tensor>, Vec<Tensor>);

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
fn tokenizer_from_gguf(content: &gguf_file::Content) -> Result<Tokenizer> {
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

fn rms_norm(x: &Tensor, w: &Tensor, eps: f64) -> Result<Tensor> {
    let ms = x.sqr()?.mean_keepdim(D::Minus1)?;
    let inv = (ms + eps)?.sqrt()?.recip()?;
    Ok(x.broadcast_mul(&inv)?.broadcast_mul(w)?)
}

/// e^x for x <= 0 (larger x is not needed here), relative error below 2e-7: range reduction
/// to r in [-ln2/2, ln2/2] and a degree-6 polynomial. Written so that the loops using it
/// vectorize; libm's `expf` on every attention score and vocabulary entry was a visible share
/// of the profile.
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // 1.5 * 2^23: adding and subtracting it rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.max(-87.0);
    let shifted = x * LOG2E + ROUND;
    let n = shifted - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // 2^n by building the exponent bits; n is in [-126, 0]. `shifted` (in [2^23, 2^24), where
    // floats are the integers) holds n in its low mantissa bits: read there with integer
    // arithmetic, which vectorizes, where `n as i32` (a saturating cast) did not.
    let n_int = shifted.to_bits() as i32 - ROUND.to_bits() as i32;
    p * f32::from_bits(((n_int + 127) as u32) << 23)
}

/// Sum of e^(x - max) over `xs`, in 16 lanes so that it vectorizes.
#[inline(always)]
fn sum_exp_shifted(xs: &[f32], max: f32) -> f32 {
    let mut lanes = [0f32; 16];
    let mut chunks = xs.chunks_exact(16);
    for c in &mut chunks {
        for (l, &v) in lanes.iter_mut().zip(c) {
            *l += exp_nonpositive(v - max);
        }
    }
    let tail: f32 = chunks
        .remainder()
        .iter()
        .map(|&v| exp_nonpositive(v - max))
        .sum();
    lanes.iter().sum::<f32>() + tail
}

/// log sum_i e^(x_i), stable; compiled for AVX2 where the CPU has it (the same 16 lanes on
/// wider vectors, so the same value).
fn log_sum_exp(xs: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { log_sum_exp_avx2(xs) };
    }
    log_sum_exp_portable(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn log_sum_exp_avx2(xs: &[f32]) -> f32 {
    log_sum_exp_portable(xs)
}

#[inline(always)]
fn log_sum_exp_portable(xs: &[f32]) -> f32 {
    let max = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return max;
    }
    max + sum_exp_shifted(xs, max).ln()
}

/// Softmax of each row of `scores` (rows of `cols`) times `scale`, in place, where row `r`
/// may see only its first `visible(r)` columns (the causal mask): the rest become 0. One pass
/// instead of candle's mask-add, max, subtract, exp, sum and divide, each a new tensor.
///
/// The exponentials are computed in a loop of their own so that they vectorize (with AVX2
/// where the CPU has it: the same operations on wider vectors, so the same bits); the sum
/// stays one running sum in column order, as before, so the result does not depend on the
/// CPU. Computed together with the sum, the exponentials ran one at a time: a seventh of
/// the whole run.
fn masked_softmax_rows(
    scores: &mut [f32],
    cols: usize,
    scale: f32,
    visible: impl Fn(usize) -> usize,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { masked_softmax_rows_avx2(scores, cols, scale, visible) };
        return;
    }
    masked_softmax_rows_portable(scores, cols, scale, visible);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn masked_softmax_rows_avx2(
    scores: &mut [f32],
    cols: usize,
    scale: f32,
    visible: impl Fn(usize) -> usize,
) {
    masked_softmax_rows_portable(scores, cols, scale, visible);
}

/// Rows whose running sums [`masked_softmax_rows`] adds side by side: each sum is still one
/// chain in column order, but eight chains keep the adder busy where one waited on itself.
const SOFTMAX_ROWS: usize = 8;

#[inline(always)]
fn masked_softmax_rows_portable(
    scores: &mut [f32],
    cols: usize,
    scale: f32,
    visible: impl Fn(usize) -> usize,
) {
    if cols == 0 {
        return;
    }
    let mut first_row = 0;
    let mut groups = scores.chunks_exact_mut(cols * SOFTMAX_ROWS);
    for group in &mut groups {
        let mut seen = [0usize; SOFTMAX_ROWS];
        for (i, row) in group.chunks_exact_mut(cols).enumerate() {
            seen[i] = visible(first_row + i).min(cols);
            exponentiate_row(row, seen[i], scale);
        }
        // Column by column over the columns every row sees, then each row's own tail.
        let common = seen.iter().copied().min().unwrap_or(0);
        let mut sums = [0f32; SOFTMAX_ROWS];
        for j in 0..common {
            for (i, sum) in sums.iter_mut().enumerate() {
                *sum += group[i * cols + j];
            }
        }
        for (i, row) in group.chunks_exact_mut(cols).enumerate() {
            for &v in &row[common..seen[i]] {
                sums[i] += v;
            }
            normalize_row(&mut row[..seen[i]], sums[i]);
        }
        first_row += SOFTMAX_ROWS;
    }
    for (i, row) in groups.into_remainder().chunks_exact_mut(cols).enumerate() {
        let seen = visible(first_row + i).min(cols);
        exponentiate_row(row, seen, scale);
        let mut sum = 0f32;
        for &v in &row[..seen] {
            sum += v;
        }
        normalize_row(&mut row[..seen], sum);
    }
}

/// e^((v - max) · scale) over the first `seen` values of `row` (max over those), 0 beyond.
#[inline(always)]
fn exponentiate_row(row: &mut [f32], seen: usize, scale: f32) {
    let (seen, hidden) = row.split_at_mut(seen);
    hidden.fill(0.0);
    let max = seen.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for v in seen.iter_mut() {
        *v = exp_nonpositive((*v - max) * scale);
    }
}

#[inline(always)]
fn normalize_row(row: &mut [f32], sum: f32) {
    let inv = 1.0 / sum;
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// Heads `first_head..first_head + heads` of the fused projection `qkv` (tokens, width), as
/// (heads, tokens, head_dim) values, with adjacent pairs rotated by RoPE at `positions` when
/// `rope` gives the tables (cos and sin, (positions, head_dim / 2) row-major). One pass over
/// plain slices: the same products and sums as candle's narrow, transpose, multiply, subtract
/// and cat (so the same bits), without their intermediate tensors, which were a twentieth of
/// the run.
fn split_heads(
    qkv: &[f32],
    width: usize,
    head_dim: usize,
    (first_head, heads): (usize, usize),
    positions: &[usize],
    rope: Option<(&[f32], &[f32])>,
) -> Vec<f32> {
    let half = head_dim / 2;
    let tokens = positions.len();
    let mut out = vec![0f32; heads * tokens * head_dim];
    for (t, (x, &pos)) in qkv.chunks_exact(width).zip(positions).enumerate() {
        for h in 0..heads {
            let src = &x[(first_head + h) * head_dim..(first_head + h + 1) * head_dim];
            let dst = &mut out[(h * tokens + t) * head_dim..(h * tokens + t + 1) * head_dim];
            let Some((cos, sin)) = rope else {
                dst.copy_from_slice(src);
                continue;
            };
            let (cos, sin) = (
                &cos[pos * half..(pos + 1) * half],
                &sin[pos * half..(pos + 1) * half],
            );
            for (((d, s), &c), &si) in dst
                .chunks_exact_mut(2)
                .zip(src.chunks_exact(2))
                .zip(cos)
                .zip(sin)
            {
                d[0] = s[0] * c - s[1] * si;
                d[1] = s[0] * si + s[1] * c;
            }
        }
    }
    out
}

/// NeoX-style RoPE tables for `positions` positions: (positions, head_dim / 2) row-major cos
/// and sin of position · base^(-2i / head_dim).
fn rope_tables(positions: usize, head_dim: usize, base: f32) -> (Vec<f32>, Vec<f32>) {
    let half = head_dim / 2;
    let inv: Vec<f32> = (0..half)
        .map(|i| 1.0 / base.powf(2.0 * i as f32 / head_dim as f32))
        .collect();
    let mut cos = Vec::with_capacity(positions * half);
    let mut sin = Vec::with_capacity(positions * half);
    for p in 0..positions {
        for f in &inv {
            let a = p as f32 * f;
            cos.push(a.cos());
            sin.push(a.sin());
        }
    }
    (cos, sin)
}

/// Gemma 3's [`split_heads`]: each head RMS-normed with `norm` (head_dim weights), then, when
/// `rope` gives tables, rotated NeoX-style: element i pairs with element i + head_dim / 2.
/// A function of its own rather than a mode of [`split_heads`], so that the llama path, whose
/// features must keep their bits (docs/NEURAL.md), is not touched by Gemma's.
fn split_heads_gemma(
    qkv: &[f32],
    width: usize,
    head_dim: usize,
    (first_head, heads): (usize, usize),
    positions: &[usize],
    norm: Option<(&[f32], f32)>,
    rope: Option<(&[f32], &[f32])>,
) -> Vec<f32> {
    let half = head_dim / 2;
    let tokens = positions.len();
    let mut out = vec![0f32; heads * tokens * head_dim];
    let mut normed = vec![0f32; head_dim];
    for (t, (x, &pos)) in qkv.chunks_exact(width).zip(positions).enumerate() {
        for h in 0..heads {
            let src = &x[(first_head + h) * head_dim..(first_head + h + 1) * head_dim];
            let dst = &mut out[(h * tokens + t) * head_dim..(h * tokens + t + 1) * head_dim];
            let src = match norm {
                Some((w, eps)) => {
                    let ms = src.iter().map(|v| v * v).sum::<f32>() / head_dim as f32;
                    let inv = 1.0 / (ms + eps).sqrt();
                    for ((n, &v), &wi) in normed.iter_mut().zip(src).zip(w) {
                        *n = v * inv * wi;
                    }
                    &normed[..]
                }
                None => src,
            };
            let Some((cos, sin)) = rope else {
                dst.copy_from_slice(src);
                continue;
            };
            let (cos, sin) = (
                &cos[pos * half..(pos + 1) * half],
                &sin[pos * half..(pos + 1) * half],
            );
            let (lo, hi) = dst.split_at_mut(half);
            for i in 0..half {
                let (a, b) = (src[i], src[i + half]);
                lo[i] = a * cos[i] - b * sin[i];
                hi[i] = a * sin[i] + b * cos[i];
            }
        }
    }
    out
}

/// GELU(gate) · up for each row of the fused gate/up product `gu` (rows, 2 n_ff), with GELU's
/// tanh approximation (Gemma's `gelu_pytorch_tanh`, llama.cpp's `ggml_gelu`).
fn geglu(gu: &[f32], n_ff: usize, rows: usize) -> Result<Tensor> {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    const COEF: f32 = 0.044_715;
    let mut out = Vec::with_capacity(rows * n_ff);
    for row in gu.chunks_exact(2 * n_ff) {
        let (gate, up) = row.split_at(n_ff);
        out.extend(gate.iter().zip(up).map(|(&g, &u)| {
            0.5 * g * (1.0 + (SQRT_2_OVER_PI * g * (1.0 + COEF * g * g)).tanh()) * u
        }));
    }
    Ok(Tensor::from_vec(out, (rows, n_ff), &Device::Cpu)?)
}

/// Hide, in each row of `scores` (rows of `cols`), the columns before `first_visible(r)`: the
/// keys a sliding-window layer's query no longer sees. They are set to minus infinity, which
/// [`masked_softmax_rows`] turns into weights of at most e^-87 (1.6e-38) against the row
/// maximum's 1: nothing.
fn hide_before(scores: &mut [f32], cols: usize, first_visible: impl Fn(usize) -> usize) {
    for (r, row) in scores.chunks_exact_mut(cols).enumerate() {
        let lo = first_visible(r).min(cols);
        row[..lo].fill(f32::NEG_INFINITY);
    }
}

/// SiLU(gate) · up for each row of the fused gate/up product `gu` (rows, 2 n_ff), as a tensor
/// (rows, n_ff): candle's `silu` (x / (1 + e^-x)) and product in one pass, the same
/// operations, so the same bits.
fn swiglu(gu: &[f32], n_ff: usize, rows: usize) -> Result<Tensor> {
    let mut out = Vec::with_capacity(rows * n_ff);
    for row in gu.chunks_exact(2 * n_ff) {
        let (gate, up) = row.split_at(n_ff);
        out.extend(
            gate.iter()
                .zip(up)
                .map(|(&g, &u)| (g / (1.0 + (-g).exp())) * u),
        );
    }
    Ok(Tensor::from_vec(out, (rows, n_ff), &Device::Cpu)?)
}

/// The elements of a contiguous f32 CPU tensor, without copying.
fn with_f32<T>(t: &Tensor, f: impl FnOnce(&[f32]) -> Result<T>) -> Result<T> {
    let (storage, layout) = t.storage_and_layout();
    let candle_core::Storage::Cpu(cpu) = &*storage else {
        bail!("tensor is not on the CPU");
    };
    let (start, end) = layout
        .contiguous_offsets()
        .ok_or_else(|| anyhow!("tensor is not contiguous"))?;
    f(&cpu.as_slice::<f32>()?[start..end])
}

impl Llama {
    /// Of the int8 matrices (four per block, and the LM head), how many are stored at 4 bits
    /// ([`Int8Matrix::is_four_bit`]), and how many there are: (0, 0) at f32. The AVX2 kernel
    /// multiplies 4-bit matrices twice as fast as 8-bit ones.
    pub fn four_bit_matrices(&self) -> (usize, usize) {
        let int8: Vec<&Int8Matrix> = self
            .blocks
            .iter()
            .flat_map(|b| [&b.wqkv, &b.wo, &b.w_gate_up, &b.w_down])
            .chain([&self.head])
            .filter_map(|linear| match linear {
                Linear::Int8(m) => Some(m),
                Linear::F32(_) => None,
            })
            .collect();
        (int8.iter().filter(|m| m.is_four_bit()).count(), int8.len())
    }

    /// Read a llama GGUF (any file; the pinned download is checked in [`super::model`]).
    /// A truncated file, another architecture or missing tokenizer data is an error.
    pub fn load(path: &Path, precision: Precision) -> Result<Llama> {
        match precision {
            Precision::Cuda => Self::load_on(path, precision, Some(&cuda_device()?)),
            _ => Self::load_on(path, precision, None),
        }
    }

    /// Load for the tensor-only forward pass (`llama/portable.rs`) on `device`, at f32: the GPU's
    /// pass, run on the CPU by the tests that check it.
    pub fn load_portable(path: &Path, device: &Device) -> Result<Llama> {
        let precision = if device.is_cuda() {
            Precision::Cuda
        } else {
            Precision::F32
        };
        Self::load_on(path, precision, Some(device))
    }

    /// Is the forward pass the tensor-only one (see [`Llama::load_portable`])?
    pub fn is_portable(&self) -> bool {
        self.portable.is_some()
    }

    /// Tokens per batched pass for [`Llama::score_many`] and its kin: [`BATCH_TOKENS_VAR`]
    /// where set (read at load), else [`DEFAULT_BATCH_TOKENS`].
    pub fn batch_tokens(&self) -> usize {
        self.batch_tokens
    }

    fn load_on(path: &Path, precision: Precision, portable_on: Option<&Device>) -> Result<Llama> {
        // Read before the file, so that a bad value is an error naming the variable alone, not
        // one about the model file.
        let batch_tokens = batch_tokens_from_env()?;
        let mut file = std::fs::File::open(path)
            .with_context(|| format!("cannot open model file {}", path.display()))?;
        Self::from_reader(&mut file, precision, portable_on, batch_tokens)
            .with_context(|| format!("cannot load model file {}", path.display()))
    }

    /// With `portable_on`, the weights go to that device for [`portable`]'s forward pass (f32);
    /// else they stay on the CPU for this module's.
    fn from_reader<R: Read + Seek>(
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

    /// This thread's turn on the GPU ([`GpuTurn`]) for one pass and the reads of its results;
    /// `None` on the CPU path. The tensor-only path takes it on the CPU as well (tests), where
    /// it only serializes.
    fn gpu_turn(&self) -> Option<GpuTurn<'_>> {
        static GPU: std::sync::Mutex<()> = std::sync::Mutex::new(());
        self.portable.as_ref()?;
        let Embedding::F32(table) = &self.embedding else {
            return None;
        };
        let turn = GPU.lock().unwrap_or_else(|e| e.into_inner());
        Some(GpuTurn {
            device: table.device(),
            _turn: turn,
        })
    }

    /// Run `tokens` after `prefix` (if any); returns the final normed hidden states
    /// (len, n_embd) and the extended cache when `keep` is set.
    fn forward(
        &self,
        tokens: &[u32],
        prefix: Option<&Prefix>,
        keep: bool,
    ) -> Result<(Tensor, Option<KvLayers>)> {
        let (h, cache, _) =
            self.forward_segments(tokens, &[tokens.len()], prefix, keep, &[], false)?;
        Ok((h, cache))
    }

    /// Run several independent continuations of `prefix` at once: `tokens` is their
    /// concatenation and `lens` their lengths. Weight matrices see all tokens in one product;
    /// each segment attends to the prefix and to itself only. With `keep` (one segment only)
    /// the extended cache is returned. `taps` names blocks whose output (the residual stream,
    /// (total_len, n_embd)) is returned too, in the order given. With `taps_only` the blocks
    /// after the last tap are not run and the first tensor returned is meaningless.
    fn forward_segments(
        &self,
        tokens: &[u32],
        lens: &[usize],
        prefix: Option<&Prefix>,
        keep: bool,
        taps: &[usize],
        taps_only: bool,
    ) -> Result<(Tensor, Option<KvLayers>, Vec<Tensor>)> {
        let c = &self.config;
        let total_len: usize = lens.iter().sum();
        if total_len != tokens.len() || lens.contains(&0) || (keep && lens.len() != 1) {
            bail!("bad segment lengths");
        }
        let past = prefix.map_or(0, |p| p.len);
        let longest = lens.iter().copied().max().unwrap_or(0);
        if past + longest > c.context {
            bail!(
                "{} tokens exceed the model's context of {}",
                past + longest,
                c.context
            );
        }
        if self.portable.is_some() {
            return self.forward_portable(tokens, lens, prefix, keep, taps, taps_only);
        }
        let (hd, nkv) = (c.head_dim(), c.n_kv_head);
        let group = c.n_head / nkv;
        let dev = Device::Cpu;
        let ids = Tensor::new(tokens, &dev)?;
        let positions: Vec<usize> = lens.iter().flat_map(|&l| past..past + l).collect();
        let mut x = match &self.embedding {
            Embedding::F32(table) => table.index_select(&ids, 0)?,
            // Gemma scales its embeddings by the square root of the width (as llama.cpp does,
            // in f32).
            Embedding::Quantized(table) => {
                (table.embedding(&ids)? * f64::from((c.n_embd as f32).sqrt()))?
            }
        };
        let scale = 1.0 / (hd as f32).sqrt();
        let (mut ks, mut vs) = (Vec::new(), Vec::new());
        let mut tapped = vec![None; taps.len()];
        let blocks = self.blocks_to_run(taps, taps_only, keep);
        for (i, b) in self.blocks.iter().enumerate().take(blocks) {
            let h = rms_norm(&x, &b.attn_norm, c.rms_eps)?;
            let width = (c.n_head + 2 * nkv) * hd;
            let sliding = c.is_sliding(i);
            let rope = Some(if sliding {
                (self.cos_local.as_slice(), self.sin_local.as_slice())
            } else {
                (self.cos.as_slice(), self.sin.as_slice())
            });
            let (q, k, v) = b.wqkv.with_product(&h, |qkv| {
                let heads = |range: (usize, usize), rope, norm: Option<&[f32]>| -> Result<Tensor> {
                    let values = match &b.gemma {
                        None => split_heads(qkv, width, hd, range, &positions, rope),
                        Some(_) => {
                            let norm = norm.map(|w| (w, c.rms_eps as f32));
                            split_heads_gemma(qkv, width, hd, range, &positions, norm, rope)
                        }
                    };
                    Ok(Tensor::from_vec(values, (range.1, total_len, hd), &dev)?)
                };
                let (q_norm, k_norm) = match &b.gemma {
                    Some(g) => (Some(g.q_norm.as_slice()), Some(g.k_norm.as_slice())),
                    None => (None, None),
                };
                Ok((
                    heads((0, c.n_head), rope, q_norm)?,
                    heads((c.n_head, nkv), rope, k_norm)?,
                    heads((c.n_head + nkv, nkv), None, None)?,
                ))
            })?;
            let mut outs = Vec::with_capacity(lens.len());
            let mut start = 0;
            for &len in lens {
                let (qs, kseg, vseg) = (
                    q.narrow(1, start, len)?,
                    k.narrow(1, start, len)?,
                    v.narrow(1, start, len)?,
                );
                start += len;
                let (k_all, v_all) = match prefix {
                    Some(p) => (
                        Tensor::cat(&[&p.k[i], &kseg], 1)?,
                        Tensor::cat(&[&p.v[i], &vseg], 1)?,
                    ),
                    None => (kseg.contiguous()?, vseg.contiguous()?),
                };
                // Heads group*g .. group*g+group share key-value head g: (nkv, group*len, hd).
                let qg = qs.contiguous()?.reshape((nkv, group * len, hd))?;
                // Scores (nkv, group*len, past+len); row r is query position r % len, which
                // sees the prefix and the segment up to itself.
                let total = past + len;
                let mut scores = qg.matmul(&k_all.t()?)?.flatten_all()?.to_vec1::<f32>()?;
                if sliding {
                    // Column j holds position j; query r sits at past + r % len and sees the
                    // `sliding_window` positions ending at itself.
                    let window = c.sliding_window;
                    hide_before(&mut scores, total, |r| {
                        (past + r % len + 1).saturating_sub(window)
                    });
                }
                masked_softmax_rows(&mut scores, total, scale, |r| past + r % len + 1);
                let att = Tensor::from_vec(scores, (nkv, group * len, total), &dev)?;
                outs.push(
                    att.matmul(&v_all)?
                        .reshape((c.n_head, len, hd))?
                        .transpose(0, 1)?
                        .reshape((len, c.n_head * hd))?,
                );
                if keep {
                    ks.push(k_all);
                    vs.push(v_all);
                }
            }
            let out = if outs.len() == 1 {
                outs.pop().ok_or_else(|| anyhow!("no segment"))?
            } else {
                Tensor::cat(&outs, 0)?
            };
            let attn = b.wo.apply(&out)?;
            x = match &b.gemma {
                None => (x + attn)?,
                Some(g) => (x + rms_norm(&attn, &g.post_attn, c.rms_eps)?)?,
            };
            let h = rms_norm(&x, &b.ffn_norm, c.rms_eps)?;
            x = match &b.gemma {
                None => {
                    let act = b
                        .w_gate_up
                        .with_product(&h, |gu| swiglu(gu, c.n_ff, total_len))?;
                    (x + b.w_down.apply(&act)?)?
                }
                Some(g) => {
                    let act = b
                        .w_gate_up
                        .with_product(&h, |gu| geglu(gu, c.n_ff, total_len))?;
                    (x + rms_norm(&b.w_down.apply(&act)?, &g.post_ffn, c.rms_eps)?)?
                }
            };
            for (slot, _) in tapped.iter_mut().zip(taps).filter(|(_, &t)| t == i) {
                *slot = Some(x.clone());
            }
        }
        let tapped = tapped_outputs(tapped, taps)?;
        let x = rms_norm(&x, &self.output_norm, c.rms_eps)?;
        Ok((x, keep.then_some((ks, vs)), tapped))
    }

    /// How many blocks a pass runs: all of them, or up to the last tap when only the taps are
    /// wanted (and no cache is kept).
    fn blocks_to_run(&self, taps: &[usize], taps_only: bool, keep: bool) -> usize {
        match taps.iter().max() {
            Some(&last) if taps_only && !keep => last + 1,
            _ => self.blocks.len(),
        }
    }

    /// Log-probabilities (vocab) of the token after the hidden state `h` (1, n_embd).
    fn next_logprobs(&self, h: &Tensor) -> Result<Vec<f32>> {
        if self.portable.is_some() {
            return self.next_logprobs_portable(h);
        }
        self.head.with_product(h, |logits| {
            let lse = log_sum_exp(logits);
            Ok(logits.iter().map(|l| l - lse).collect())
        })
    }

    /// log p(targets[r]) under the LM head for each row r of `h` (rows, n_embd). The head runs
    /// on [`HEAD_ROWS`] rows at a time and only each row's log-sum-exp and target logit are
    /// kept: the (rows, vocab) log-softmax was hundreds of megabytes per batch, and the page
    /// faults of allocating it a tenth of the run time.
    fn target_logprobs(&self, h: &Tensor, targets: &[u32]) -> Result<Vec<f32>> {
        if self.portable.is_some() {
            return self.target_logprobs_portable(h, targets);
        }
        let rows = h.dim(0)?;
        if rows != targets.len() {
            bail!("{rows} hidden states for {} targets", targets.len());
        }
        let vocab = self.head.outputs()?;
        let mut out = Vec::with_capacity(rows);
        for start in (0..rows).step_by(HEAD_ROWS) {
            let n = HEAD_ROWS.min(rows - start);
            self.head.with_product(&h.narrow(0, start, n)?, |all| {
                for (row, &t) in all.chunks_exact(vocab).zip(&targets[start..start + n]) {
                    out.push(lp_of(row, t)? - log_sum_exp(row));
                }
                Ok(())
            })?;
        }
        Ok(out)
    }

    /// Process a prompt once; continuations are then scored on top of it. The LM head runs
    /// on the last position only. An empty prompt is an error (nothing to condition on).
    pub fn prefix(&self, tokens: &[u32]) -> Result<Prefix> {
        if tokens.is_empty() {
            bail!("empty prompt");
        }
        let _turn = self.gpu_turn();
        let (h, cache) = self.forward(tokens, None, true)?;
        let (k, v) = cache.ok_or_else(|| anyhow!("no cache"))?;
        let last = h.narrow(0, tokens.len() - 1, 1)?;
        let next_logprobs = self.next_logprobs(&last)?;
        Ok(Prefix {
            k,
            v,
            len: tokens.len(),
            next_logprobs,
        })
    }

    /// Log-probability of each token of `tokens` given the prefix and the tokens before it.
    /// Tokens beyond the context window are not scored (the result is then shorter).
    pub fn score(&self, prefix: &Prefix, tokens: &[u32]) -> Result<Vec<f32>> {
        let room = self.config.context.saturating_sub(prefix.len);
        let tokens = &tokens[..tokens.len().min(room)];
        let Some(&first) = tokens.first() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(tokens.len());
        out.push(lp_of(&prefix.next_logprobs, first)?);
        if tokens.len() > 1 {
            let _turn = self.gpu_turn();
            let inputs = &tokens[..tokens.len() - 1];
            let (h, _) = self.forward(inputs, Some(prefix), false)?;
            out.extend(self.target_logprobs(&h, &tokens[1..])?);
        }
        Ok(out)
    }

    /// [`Llama::score`] for many continuations of one prefix, batched through the network
    /// (up to about `batch_tokens` tokens per pass).
    pub fn score_many(
        &self,
        prefix: &Prefix,
        conts: &[&[u32]],
        batch_tokens: usize,
    ) -> Result<Vec<Vec<f32>>> {
        Ok(self.score_many_pooled(prefix, conts, batch_tokens, &[])?.0)
    }

    /// [`Llama::score_many`], also returning for each continuation the mean over its input
    /// positions (all its tokens but the last) of the output of each block in `taps`, then of
    /// the final normed hidden state: `(taps.len() + 1) * n_embd` values, or none for a
    /// continuation of fewer than two tokens. For probing what the hidden states know
    /// (`AESOP_NEURAL_HIDDEN`); scoring needs only the log-probs.
    pub fn score_many_pooled(
        &self,
        prefix: &Prefix,
        conts: &[&[u32]],
        batch_tokens: usize,
        taps: &[usize],
    ) -> Result<ScoredAndPooled> {
        let conts = self.within_context(prefix, conts);
        let mut out: Vec<Vec<f32>> = Vec::with_capacity(conts.len());
        let mut pooled: Vec<Vec<f32>> = vec![Vec::new(); conts.len()];
        for t in &conts {
            out.push(match t.first() {
                Some(&first) => vec![lp_of(&prefix.next_logprobs, first)?],
                None => Vec::new(),
            });
        }
        // Each continuation needs a pass over all but its last token (none for one token).
        let input_lens: Vec<usize> = conts.iter().map(|t| t.len().saturating_sub(1)).collect();
        for batch in batches(&input_lens, batch_tokens) {
            let _turn = self.gpu_turn();
            let n: usize = batch.iter().map(|&i| input_lens[i]).sum();
            let mut inputs = Vec::with_capacity(n);
            let mut targets = Vec::with_capacity(n);
            let mut lens = Vec::with_capacity(batch.len());
            for &i in &batch {
                let t = conts[i];
                inputs.extend_from_slice(&t[..t.len() - 1]);
                targets.extend_from_slice(&t[1..]);
                lens.push(t.len() - 1);
            }
            let (h, _, tapped) =
                self.forward_segments(&inputs, &lens, Some(prefix), false, taps, false)?;
            let picked = self.target_logprobs(&h, &targets)?;
            let mut start = 0;
            for (&i, &len) in batch.iter().zip(&lens) {
                out[i].extend_from_slice(&picked[start..start + len]);
                if !taps.is_empty() {
                    for layer in tapped.iter().chain(std::iter::once(&h)) {
                        let mean = layer.narrow(0, start, len)?.mean(0)?;
                        pooled[i].extend(mean.to_vec1::<f32>()?);
                    }
                }
                start += len;
            }
        }
        Ok((out, pooled))
    }

    /// Each continuation's per-token output of each block in `taps` (the residual stream), given
    /// `prefix`: for continuation i, one row-major (len, n_embd) matrix per tap, in the order
    /// given, or none for an empty continuation. Every token is an input; the LM head never runs.
    pub fn token_states(
        &self,
        prefix: &Prefix,
        conts: &[&[u32]],
        batch_tokens: usize,
        taps: &[usize],
    ) -> Result<Vec<Vec<Vec<f32>>>> {
        let conts = self.within_context(prefix, conts);
        let mut out: Vec<Vec<Vec<f32>>> = vec![Vec::new(); conts.len()];
        let lens: Vec<usize> = conts.iter().map(|t| t.len()).collect();
        for batch in batches(&lens, batch_tokens) {
            let _turn = self.gpu_turn();
            let inputs: Vec<u32> = batch
                .iter()
                .flat_map(|&i| conts[i].iter().copied())
                .collect();
            let batch_lens: Vec<usize> = batch.iter().map(|&i| lens[i]).collect();
            let (_, _, tapped) =
                self.forward_segments(&inputs, &batch_lens, Some(prefix), false, taps, true)?;
            let mut start = 0;
            for (&i, &len) in batch.iter().zip(&batch_lens) {
                for layer in &tapped {
                    out[i].push(
                        layer
                            .narrow(0, start, len)?
                            .flatten_all()?
                            .to_vec1::<f32>()?,
                    );
                }
                start += len;
            }
        }
        Ok(out)
    }

    /// Every one of `conts` scored after each of `prompts`: `out[p][c]` is [`Llama::score`] of
    /// `conts[c]` given the prefix of `prompts[p]` (BARTScore-style recall reads each reference
    /// given each summary). On the CPU each prompt is one prefix pass with its continuations
    /// batched on top. On the tensor-only path (a GPU) one small pass per prompt costs more in
    /// kernel launches than recomputing the prompt does: each (prompt, continuation) pair is one
    /// cache-free segment, and pairs fill passes of about `batch_tokens` tokens. An empty prompt
    /// is an error, as for [`Llama::prefix`].
    pub fn score_each_prompt(
        &self,
        prompts: &[&[u32]],
        conts: &[&[u32]],
        batch_tokens: usize,
    ) -> Result<Vec<Vec<Vec<f32>>>> {
        if prompts.iter().any(|p| p.is_empty()) {
            bail!("empty prompt");
        }
        if self.portable.is_none() {
            return prompts
                .iter()
                .map(|p| self.score_many(&self.prefix(p)?, conts, batch_tokens))
                .collect();
        }
        let context = self.config.context;
        if let Some(p) = prompts.iter().find(|p| p.len() > context) {
            bail!("{} tokens exceed the model's context of {context}", p.len());
        }
        let mut out = vec![vec![Vec::new(); conts.len()]; prompts.len()];
        // (prompt, continuation, the continuation cut to the room its prompt leaves).
        let pairs: Vec<(usize, usize, &[u32])> = prompts
            .iter()
            .enumerate()
            .flat_map(|(p, prompt)| {
                let room = context - prompt.len();
                conts
                    .iter()
                    .enumerate()
                    .map(move |(c, t)| (p, c, &t[..t.len().min(room)]))
            })
            .collect();
        // A pair's inputs: its prompt and all of its continuation but the last token.
        let lens: Vec<usize> = pairs
            .iter()
            .map(|&(p, _, t)| match t.len() {
                0 => 0,
                n => prompts[p].len() + n - 1,
            })
            .collect();
        for batch in batches(&lens, batch_tokens) {
            let _turn = self.gpu_turn();
            let n: usize = batch.iter().map(|&i| lens[i]).sum();
            let mut inputs = Vec::with_capacity(n);
            let mut seg_lens = Vec::with_capacity(batch.len());
            // The rows whose next token is one of a continuation's, and those tokens.
            let (mut rows, mut targets) = (Vec::new(), Vec::new());
            for &i in &batch {
                let (p, _, t) = pairs[i];
                let start = inputs.len();
                inputs.extend_from_slice(prompts[p]);
                inputs.extend_from_slice(&t[..t.len() - 1]);
                rows.extend((start + prompts[p].len() - 1..start + lens[i]).map(|r| r as u32));
                targets.extend_from_slice(t);
                seg_lens.push(lens[i]);
            }
            let (h, _, _) = self.forward_segments(&inputs, &seg_lens, None, false, &[], false)?;
            let h = h.index_select(&Tensor::new(rows.as_slice(), h.device())?, 0)?;
            let picked = self.target_logprobs(&h, &targets)?;
            let mut start = 0;
            for &i in &batch {
                let (p, c, t) = pairs[i];
                out[p][c] = picked[start..start + t.len()].to_vec();
                start += t.len();
            }
        }
        Ok(out)
    }

    /// Each continuation cut to the room the context leaves after `prefix` (tokens beyond it are
    /// not scored).
    fn within_context<'a>(&self, prefix: &Prefix, conts: &[&'a [u32]]) -> Vec<&'a [u32]> {
        let room = self.config.context.saturating_sub(prefix.len);
        conts.iter().map(|t| &t[..t.len().min(room)]).collect()
    }

    /// Log-probabilities of every token after the first of `tokens` (no prefix), as a
    /// reference implementation would report them: `out[i]` is log p(tokens[i+1] | ..i).
    pub fn score_text(&self, tokens: &[u32]) -> Result<Vec<f32>> {
        if tokens.len() < 2 {
            return Ok(Vec::new());
        }
        let p = self.prefix(&tokens[..1])?;
        self.score(&p, &tokens[1..])
    }
}

/// The tapped blocks' outputs in the order `taps` asked for them; a block that was not run is an
/// error.
fn tapped_outputs(tapped: Vec<Option<Tensor>>, taps: &[usize]) -> Result<Vec<Tensor>> {
    tapped
        .into_iter()
        .zip(taps)
        .map(|(t, layer)| t.ok_or_else(|| anyhow!("no block {layer} to tap")))
        .collect()
}

/// The indices of the non-zero `lens`, in order, packed greedily into batches of at most
/// `batch_tokens` tokens (a longer one alone in its batch): one pass through the network each.
fn batches(lens: &[usize], batch_tokens: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut n = 0;
    for (i, &len) in lens.iter().enumerate().filter(|(_, &l)| l > 0) {
        match out.last_mut() {
            Some(batch) if n + len <= batch_tokens => {
                batch.push(i);
                n += len;
            }
            _ => {
                out.push(vec![i]);
                n = len;
            }
        }
    }
    out
}

fn lp_of(row: &[f32], id: u32) -> Result<f32> {
    row.get(id as usize)
        .copied()
        .ok_or_else(|| anyhow!("token id {id} outside the vocabulary"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_tokens_are_the_default_or_a_positive_number() {
        assert_eq!(parse_batch_tokens("").unwrap(), DEFAULT_BATCH_TOKENS);
        assert_eq!(parse_batch_tokens(" 4096 ").unwrap(), 4096);
        for bad in ["0", "-5", "lots", "1e3"] {
            let e = parse_batch_tokens(bad).unwrap_err().to_string();
            assert!(e.contains(BATCH_TOKENS_VAR) && e.contains(bad), "{e}");
        }
    }

    #[test]
    fn batches_pack_in_order_skip_empty_and_keep_a_long_one_alone() {
        assert_eq!(
            batches(&[3, 0, 4, 2, 9, 1], 8),
            vec![vec![0, 2], vec![3], vec![4], vec![5]]
        );
        assert_eq!(batches(&[2, 2, 2, 2], 4), vec![vec![0, 1], vec![2, 3]]);
        assert!(batches(&[0, 0], 8).is_empty());
    }

    /// Gemma's NeoX RoPE: position 0 leaves a head as it is, each (i, i + half) pair keeps its
    /// length, and a query-key product depends on the positions' difference only; with a
    /// unit-weight norm each head comes out with a mean square of 1.
    #[test]
    fn gemma_heads_are_normed_and_rotated_neox_style() {
        let (hd, heads) = (8, 2);
        let width = heads * hd;
        let (cos, sin) = rope_tables(64, hd, 10_000.0);
        let rope = Some((cos.as_slice(), sin.as_slice()));
        let x: Vec<f32> = (0..width).map(|i| ((i as f32) * 0.7).sin() + 0.1).collect();
        let at = |pos: usize, norm: Option<(&[f32], f32)>, rope| {
            split_heads_gemma(&x, width, hd, (0, heads), &[pos], norm, rope)
        };
        assert_eq!(
            at(0, None, rope),
            at(0, None, None),
            "position 0 is the identity"
        );
        let (plain, turned) = (at(0, None, None), at(13, None, rope));
        for h in 0..heads {
            for i in 0..hd / 2 {
                let len =
                    |v: &[f32]| (v[h * hd + i].powi(2) + v[h * hd + i + hd / 2].powi(2)).sqrt();
                assert!((len(&plain) - len(&turned)).abs() < 1e-5);
            }
        }
        let dot = |p: usize, q: usize| -> f32 {
            let (a, b) = (at(p, None, rope), at(q, None, rope));
            a[..hd].iter().zip(&b[hd..]).map(|(u, v)| u * v).sum()
        };
        assert!(
            (dot(5, 2) - dot(20, 17)).abs() < 1e-4,
            "{} vs {}",
            dot(5, 2),
            dot(20, 17)
        );
        assert!(
            (dot(5, 2) - dot(5, 3)).abs() > 1e-3,
            "rotation depends on the distance"
        );
        let ones = vec![1f32; hd];
        let normed = at(0, Some((&ones, 1e-6)), None);
        for h in normed.chunks_exact(hd) {
            let ms = h.iter().map(|v| v * v).sum::<f32>() / hd as f32;
            assert!((ms - 1.0).abs() < 1e-4, "mean square {ms}");
        }
    }

    /// GELU's tanh approximation against its formula in f64, and its limits.
    #[test]
    fn geglu_is_gelu_of_the_gate_times_up() -> Result<()> {
        let gates = [-6.0f32, -1.5, -0.1, 0.0, 0.3, 1.0, 2.5, 8.0];
        let mut gu = Vec::new();
        for &g in &gates {
            gu.extend([g, 2.0]);
        }
        // Rows of (gate, up) with n_ff 1.
        let out = geglu(&gu, 1, gates.len())?
            .flatten_all()?
            .to_vec1::<f32>()?;
        for (&g, &o) in gates.iter().zip(&out) {
            let g = f64::from(g);
            let want = 0.5
                * g
                * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (g + 0.044715 * g.powi(3))).tanh())
                * 2.0;
            assert!(
                (f64::from(o) - want).abs() < 1e-5,
                "gate {g}: {o} vs {want}"
            );
        }
        assert_eq!(out[3], 0.0);
        assert!((out[7] - 16.0).abs() < 1e-4 && out[0].abs() < 1e-6);
        Ok(())
    }

    /// A sliding-window row keeps weight only on its last `window` positions (itself included).
    #[test]
    fn sliding_window_hides_old_positions() {
        let (cols, window) = (10, 3);
        let mut scores: Vec<f32> = (0..cols * cols).map(|i| (i as f32 * 0.37).cos()).collect();
        hide_before(&mut scores, cols, |r| (r + 1).saturating_sub(window));
        masked_softmax_rows(&mut scores, cols, 1.0, |r| r + 1);
        for (r, row) in scores.chunks_exact(cols).enumerate() {
            let lo = (r + 1).saturating_sub(window);
            assert!(row[..lo].iter().all(|&w| w < 1e-37), "row {r}: {row:?}");
            assert!(row[lo..=r].iter().all(|&w| w > 0.0));
            assert!(row[r + 1..].iter().all(|&w| w == 0.0));
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn fast_exp_matches_libm() {
        let mut worst = 0f32;
        for i in 0..=173_000 {
            let x = -(i as f32) * 0.0005;
            let rel = (exp_nonpositive(x) - x.exp()).abs() / x.exp();
            worst = worst.max(rel);
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
        assert_eq!(exp_nonpositive(0.0), 1.0);
        // Below -87 the result stays at e^-87 (about 1.6e-38): nothing next to the row maximum's 1.
        assert!(exp_nonpositive(-1000.0) < 2e-38);
        assert!(exp_nonpositive(-1000.0) >= 0.0);
    }

    #[test]
    fn log_sum_exp_is_stable_and_exact() {
        let xs: Vec<f32> = (0..1000)
            .map(|i| (i as f32 * 0.37).sin() * 30.0 + 500.0)
            .collect();
        let max = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let naive = max as f64
            + xs.iter()
                .map(|&x| (f64::from(x) - f64::from(max)).exp())
                .sum::<f64>()
                .ln();
        assert!((f64::from(log_sum_exp(&xs)) - naive).abs() < 1e-4);
        assert_eq!(log_sum_exp(&[f32::NEG_INFINITY; 3]), f32::NEG_INFINITY);
    }

    /// Deterministic values in [-scale/2, scale/2).
    fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * scale
            })
            .collect()
    }

    /// The softmax as it was before rows were summed side by side: one row at a time, the
    /// exponentials and the running sum in one loop.
    fn softmax_one_row_at_a_time(
        scores: &mut [f32],
        cols: usize,
        scale: f32,
        visible: impl Fn(usize) -> usize,
    ) {
        for (r, row) in scores.chunks_exact_mut(cols).enumerate() {
            let n = visible(r).min(cols);
            let (seen, hidden) = row.split_at_mut(n);
            hidden.fill(0.0);
            let max = seen.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0f32;
            for v in seen.iter_mut() {
                *v = exp_nonpositive((*v - max) * scale);
                sum += *v;
            }
            for v in seen.iter_mut() {
                *v *= 1.0 / sum;
            }
        }
    }

    #[test]
    fn softmax_in_groups_of_rows_gives_the_same_bits() {
        // 21 rows: two groups of eight and a remainder of five; causal-like and ragged masks.
        for (cols, visible) in [
            (
                40,
                Box::new(|r: usize| 10 + (r * 3) % 31) as Box<dyn Fn(usize) -> usize>,
            ),
            (40, Box::new(|r: usize| r + 1)),
            (7, Box::new(|_| 100)),
        ] {
            let original = values(21 * cols, cols as u64, 20.0);
            let mut ours = original.clone();
            let mut before = original.clone();
            masked_softmax_rows(&mut ours, cols, 0.125, &visible);
            softmax_one_row_at_a_time(&mut before, cols, 0.125, &visible);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours), bits(&before));
            let mut portable = original.clone();
            masked_softmax_rows_portable(&mut portable, cols, 0.125, &visible);
            assert_eq!(bits(&ours), bits(&portable));
            for (r, row) in ours.chunks_exact(cols).enumerate() {
                let n = visible(r).min(cols);
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                assert!(row[n..].iter().all(|&v| v == 0.0));
            }
        }
    }

    #[test]
    fn fast_exp_bits_do_not_depend_on_vectorization() {
        // The exponent read from the mantissa bits equals the rounded value's integer.
        for i in 0..=200_000 {
            let x = -(i as f32) * 0.000_87;
            let shifted = x.max(-87.0) * std::f32::consts::LOG2_E + 12_582_912.0;
            let n = shifted - 12_582_912.0;
            assert_eq!(
                shifted.to_bits() as i32 - 12_582_912f32.to_bits() as i32,
                n as i32,
                "x = {x}"
            );
        }
    }

    #[test]
    fn split_heads_and_rope_match_candle() -> Result<()> {
        // 5 tokens of a fused projection: 3 query heads, 1 key and 1 value head of width 8.
        let (tokens, hd, heads, kv) = (5, 8, 3, 1);
        let width = (heads + 2 * kv) * hd;
        let qkv = values(tokens * width, 7, 4.0);
        let positions = [0usize, 1, 2, 9, 10];
        let half = hd / 2;
        let (mut cos, mut sin) = (Vec::new(), Vec::new());
        for p in 0..16 {
            for i in 0..half {
                let a = p as f32 / 10_000f32.powf(2.0 * i as f32 / hd as f32);
                cos.push(a.cos());
                sin.push(a.sin());
            }
        }
        // candle's way, as the model did it before `split_heads`.
        let dev = Device::Cpu;
        let t = Tensor::from_vec(qkv.clone(), (tokens, width), &dev)?;
        let cos_t = Tensor::from_vec(cos.clone(), (16, half), &dev)?;
        let sin_t = Tensor::from_vec(sin.clone(), (16, half), &dev)?;
        let pos: Vec<u32> = positions.iter().map(|&p| p as u32).collect();
        let pos = Tensor::new(pos.as_slice(), &dev)?;
        let candle = |first: usize, n: usize, rotate: bool| -> Result<Vec<f32>> {
            let x = t
                .narrow(1, first * hd, n * hd)?
                .reshape((tokens, n, hd))?
                .transpose(0, 1)?
                .contiguous()?;
            if !rotate {
                return Ok(x.flatten_all()?.to_vec1()?);
            }
            let c = cos_t.index_select(&pos, 0)?.reshape((1, tokens, half, 1))?;
            let s = sin_t.index_select(&pos, 0)?.reshape((1, tokens, half, 1))?;
            let x = x.reshape((n, tokens, half, 2))?;
            let (x0, x1) = (x.narrow(3, 0, 1)?, x.narrow(3, 1, 1)?);
            let r0 = (x0.broadcast_mul(&c)? - x1.broadcast_mul(&s)?)?;
            let r1 = (x0.broadcast_mul(&s)? + x1.broadcast_mul(&c)?)?;
            Ok(Tensor::cat(&[r0, r1], 3)?.flatten_all()?.to_vec1()?)
        };
        let rope = Some((cos.as_slice(), sin.as_slice()));
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        for (first, n, rotate) in [(0, heads, true), (heads, kv, true), (heads + kv, kv, false)] {
            let ours = split_heads(
                &qkv,
                width,
                hd,
                (first, n),
                &positions,
                rope.filter(|_| rotate),
            );
            assert_eq!(bits(ours), bits(candle(first, n, rotate)?));
        }
        Ok(())
    }

    #[test]
    fn swiglu_matches_candle() -> Result<()> {
        let (rows, n_ff) = (3, 10);
        let gu = values(rows * 2 * n_ff, 11, 16.0);
        let t = Tensor::from_vec(gu.clone(), (rows, 2 * n_ff), &Device::Cpu)?;
        let candle = (t.narrow(1, 0, n_ff)?.silu()? * t.narrow(1, n_ff, n_ff)?)?;
        let bits = |t: Tensor| -> Result<Vec<u32>> {
            Ok(t.flatten_all()?
                .to_vec1::<f32>()?
                .into_iter()
                .map(f32::to_bits)
                .collect())
        };
        assert_eq!(bits(swiglu(&gu, n_ff, rows)?)?, bits(candle)?);
        Ok(())
    }

    #[test]
    fn masked_softmax_hides_future_columns() {
        let mut s = vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0];
        masked_softmax_rows(&mut s, 3, 1.0, |r| r + 2);
        let e = [1f32.exp(), 2f32.exp(), 3f32.exp()];
        assert!((s[0] - e[0] / (e[0] + e[1])).abs() < 1e-6);
        assert_eq!(s[2], 0.0);
        assert!((s[3..].iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((s[5] - e[2] / (e[0] + e[1] + e[2])).abs() < 1e-6);
    }
}
