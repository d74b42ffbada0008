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
//!
//! Files: this one holds the model's types, the forward pass on the CPU and the scoring entry
//! points; `llama/load.rs` reads a GGUF file (metadata, tokenizer, weights), `llama/kernels.rs`
//! the CPU pass's arithmetic on plain slices (softmax, RoPE, gated activations), and
//! `llama/portable.rs` the same pass in tensor operations alone, for a GPU.

use anyhow::{anyhow, bail, Context, Result};
use candle_core::{Device, Tensor};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::int8::Int8Matrix;
use super::tokenizer::Tokenizer;

mod kernels;
mod load;
mod portable;

use kernels::{
    geglu, hide_before, log_sum_exp, masked_softmax_rows, rms_norm, split_heads, split_heads_gemma,
    swiglu, with_f32,
};

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
             toolkit (docs/NEURAL.md, \"GPU\"; for Python, the GPU wheel: docs/PYTHON.md, \"On an \
             NVIDIA GPU\"); this one was built without it"
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

impl Drop for Llama {
    /// A `Scorer` of the Python package, and with it its model, may be dropped on any thread.
    fn drop(&mut self) {
        make_current_for_drop(self.output_norm.device());
    }
}

/// Token embeddings: f32 rows (llama), or rows dequantized on lookup (Gemma 3, whose 262,144 ×
/// 640 table would take 671 MB as f32 and takes 178 MB as the file stores it, 8-bit). Boxed:
/// with the `cuda` feature a `QTensor` takes at least 232 bytes, a `Tensor` 8.
enum Embedding {
    F32(Tensor),
    Quantized(Box<candle_core::quantized::QTensor>),
}

/// The error of a batched call whose `stop` flag was set while it worked (a service request
/// that timed out or whose client left, Ctrl-C): it returns before its next pass through the
/// network, so a topic of long summaries gives its thread back within one pass, not minutes
/// later. The caller discards the call's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped: the work was cancelled")
    }
}

impl std::error::Error for Stopped {}

/// [`Stopped`] once `stop` is set.
fn check_stop(stop: &AtomicBool) -> Result<()> {
    if stop.load(Ordering::Relaxed) {
        return Err(Stopped.into());
    }
    Ok(())
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

/// Make `device`'s CUDA context current on this thread before GPU tensors are dropped here;
/// nothing on the CPU.
///
/// Why: cudarc frees a buffer on the thread that drops it without making its context current
/// first. On a thread where no context is current the free fails, the failure is stored in the
/// context, and the next GPU call of any thread reports it as its own error: one topic of a run
/// lost its features to `CUDA_ERROR_INVALID_CONTEXT` where a topic's processed prompts were
/// dropped on the Python package's worker thread, which had run no GPU work (an H200,
/// 2026-12-04; docs/PYTHON.md, "On an NVIDIA GPU"). The CLI's threads had all run GPU work.
fn make_current_for_drop(device: &Device) {
    #[cfg(feature = "cuda")]
    if let Device::Cuda(gpu) = device {
        use candle_core::cuda_backend::cudarc::driver::result::ctx;
        let context = gpu.cuda_stream().context().cu_ctx();
        // SAFETY: the context is alive (`device` holds it), and making a live context current
        // on the calling thread is what every cudarc call does before its work.
        let _ = unsafe { ctx::set_current(context) };
    }
    #[cfg(not(feature = "cuda"))]
    let _ = device;
}

/// Keys and values of a processed prompt, per layer (kv_heads, len, head_dim), and the
/// log-probabilities of the token after it.
pub struct Prefix {
    k: Vec<Tensor>,
    v: Vec<Tensor>,
    pub len: usize,
    next_logprobs: Vec<f32>,
}

impl Drop for Prefix {
    /// A topic's prefixes are dropped with the topic, on whichever thread ends it.
    fn drop(&mut self) {
        if let Some(k) = self.k.first() {
            make_current_for_drop(k.device());
        }
    }
}

/// Keys and values of every layer, as a [`Prefix`] holds them.
type KvLayers = (Vec<Tensor>, Vec<Tensor>);

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
        crate::fork::check_candle_workers()?;
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
    /// (up to about `batch_tokens` tokens per pass); [`Stopped`] once `stop` is set.
    pub fn score_many(
        &self,
        prefix: &Prefix,
        conts: &[&[u32]],
        batch_tokens: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<Vec<f32>>> {
        Ok(self
            .score_many_pooled(prefix, conts, batch_tokens, &[], stop)?
            .0)
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
        stop: &AtomicBool,
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
            check_stop(stop)?;
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
        stop: &AtomicBool,
    ) -> Result<Vec<Vec<Vec<f32>>>> {
        let conts = self.within_context(prefix, conts);
        let mut out: Vec<Vec<Vec<f32>>> = vec![Vec::new(); conts.len()];
        let lens: Vec<usize> = conts.iter().map(|t| t.len()).collect();
        for batch in batches(&lens, batch_tokens) {
            check_stop(stop)?;
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
        stop: &AtomicBool,
    ) -> Result<Vec<Vec<Vec<f32>>>> {
        if prompts.iter().any(|p| p.is_empty()) {
            bail!("empty prompt");
        }
        if self.portable.is_none() {
            return prompts
                .iter()
                .map(|p| {
                    check_stop(stop)?;
                    self.score_many(&self.prefix(p)?, conts, batch_tokens, stop)
                })
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
            check_stop(stop)?;
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
}
