//! aesop: learn to predict how humans judge summaries.
//!
//! The layers are crates of the workspace, each using only those before it: judgment sets
//! ([`corpus`]) → text analysis ([`text`], [`nlp`], the neural LM in [`neural`]) → feature
//! classes ([`features`]) → learners, model files and the verbs that train and score
//! ([`learn`]) → the HTTP service ([`serve`]). Meta-evaluation ([`eval`]) stands apart, as in
//! SacreROUGE: it judges any metric's scores with the same statistics. [`output`] (safe output
//! files), [`rng`] and [`varint`] are shared utilities. This crate re-exports each under its
//! module name and holds the `aesop` binary.

pub use aesop_core::{hash, output, progress, rng, threads, varint, version};
pub use aesop_corpus as corpus;
pub use aesop_eval as eval;
pub use aesop_features as features;
pub use aesop_learn as learn;
pub use aesop_neural as neural;
pub use aesop_serve as serve;
pub use aesop_text as text;
pub use aesop_text::nlp;

/// Directory holding the public data sets (`AESOP_DATA`, default `../shared/data`).
pub fn data_dir() -> std::path::PathBuf {
    std::env::var_os("AESOP_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("../shared/data"))
}
