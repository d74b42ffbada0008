//! Meta-evaluation: how well a metric or a learned model agrees with human judgments. Every
//! feature and every model is judged by this same code (SacreROUGE's separation of metrics and
//! meta-evaluation).

pub mod correlation;

pub use correlation::{kendall_tau_b, pearson, spearman};
