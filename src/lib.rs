//! aesop: learn to predict how humans judge summaries.
//!
//! The layers, each using only those before it: judgment sets ([`corpus`]) → text analysis
//! ([`text`], [`nlp`], the neural LM in [`neural`]) → feature classes ([`features`]) →
//! learners, model files and the verbs that train and score ([`learn`]) → the HTTP service
//! ([`serve`]). Meta-evaluation ([`eval`]) stands apart, as in SacreROUGE: it judges any
//! metric's scores with the same statistics. [`output`] (safe output files), [`rng`] and [`varint`]
//! are shared utilities.

pub mod corpus;
pub mod eval;
pub mod features;
pub mod learn;
pub mod neural;
pub mod nlp;
pub mod output;
pub mod rng;
pub mod serve;
pub mod text;
pub mod varint;

/// Directory holding the public data sets (`AESOP_DATA`, default `../shared/data`).
pub fn data_dir() -> std::path::PathBuf {
    std::env::var_os("AESOP_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("../shared/data"))
}
