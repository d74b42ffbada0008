//! aesop: learn to predict how humans judge summaries.
//!
//! The pipeline is: judgment set ([`corpus`]) → text analysis ([`text`]) → feature classes
//! ([`features`]) → learners and model files (later) → scoring and meta-evaluation.

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

/// Directory holding the public data sets (`AESOP_DATA`, default `../shared/data`).
pub fn data_dir() -> std::path::PathBuf {
    std::env::var_os("AESOP_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("../shared/data"))
}
