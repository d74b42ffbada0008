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
pub use report::{
    evaluate_command, evaluate_command_with_warnings, features_table_command, EvaluateArgs,
};

/// How every human-readable report prints a statistic: `decimals` digits, or `—` where it is
/// undefined (NaN: a constant ranking, a single system, too few rows). JSON reports give `null`.
pub fn or_dash(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        "—".to_string()
    } else {
        format!("{x:.decimals$}")
    }
}

/// [`or_dash`] with the sign always shown, for a difference.
pub fn or_dash_signed(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        "—".to_string()
    } else {
        format!("{x:+.decimals$}")
    }
}

/// A tie threshold ε as the reports print it: `—` where undefined (no pair), `0 (exact ties
/// only)`, or four significant digits in scientific notation (metrics range from 1e-6 to 1e3).
pub fn epsilon_or_dash(epsilon: f64) -> String {
    if epsilon.is_nan() {
        "—".to_string()
    } else if epsilon == 0.0 {
        "0 (exact ties only)".to_string()
    } else {
        format!("{epsilon:.4e}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn undefined_values_print_as_a_dash() {
        assert_eq!(super::or_dash(f64::NAN, 3), "—");
        assert_eq!(super::or_dash(0.12345, 3), "0.123");
        assert_eq!(super::or_dash_signed(f64::NAN, 3), "—");
        assert_eq!(super::or_dash_signed(0.5, 2), "+0.50");
    }
}
