//! Meta-evaluation: how well a metric or a learned model agrees with human judgments. Every
//! feature and every model is judged by this same code (SacreROUGE's separation of metrics and
//! meta-evaluation).
//!
//! [`levels`] computes the correlations and pairwise accuracies, [`bootstrap`] their intervals,
//! the paired comparison of two metrics and the discriminative-power table, [`wilcoxon`] the
//! paired test behind that table, and [`report`] the `aesop evaluate` command.

pub mod bootstrap;
pub mod correlation;
pub mod levels;
pub mod report;
pub mod svg;
pub mod wilcoxon;

pub use correlation::{kendall_tau_b, pearson, spearman};
pub use report::{evaluate_command, evaluate_command_with_warnings, EvaluateArgs};
