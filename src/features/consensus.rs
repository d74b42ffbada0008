//! The `consensus` feature class: how close a summary is to what the other systems said about
//! the same input (Louis & Nenkova 2013, §6, "collective knowledge" of systems).
//!
//! For each summary the pool is the other summaries of the topic: the summary itself is always
//! left out, and by default so are summaries marked `human: true` (the pool is "the other
//! systems", as in the paper; human summaries are still scored against it). Features, in order:
//!
//! | name | definition |
//! |---|---|
//! | `consensus.js` | JS divergence, summary vs pooled word distribution of the pool, unsmoothed |
//! | `consensus.js_smoothed` | same, Lidstone-smoothed (δ = 0.005, B = 1.5 × pool vocabulary) |
//! | `consensus.rouge1_recall`, `consensus.rouge2_recall`, `consensus.rouge1_f`, `consensus.rouge2_f` | ROUGE with the pool as pseudo-references |
//!
//! Words are counted with the `simetrix` profile (shared with the `content` class); ROUGE uses
//! its own profile via [`RougeOptions`]. A summary with an empty pool (the topic has no other
//! eligible summary) gets a `None` row. Degenerate texts follow
//! [`super::distribution::js_divergence`]: an empty summary or empty pool gives JS = ln 2; the
//! smoothed JS is NaN when the pool has no tokens (no vocabulary to smooth over).

use super::content::summary_counts;
use super::distribution::{Lidstone, WordCounts, SIMETRIX_BINS_FACTOR, SIMETRIX_DELTA};
use super::rouge::{score, PreparedText, RougeOptions};
use super::{FeatureClass, FeatureRow, TopicContext};

/// Feature names without the class prefix, in output order.
pub const FEATURES: &[&str] = &[
    "js",
    "js_smoothed",
    "rouge1_recall",
    "rouge2_recall",
    "rouge1_f",
    "rouge2_f",
];

/// Options of the `consensus` class.
#[derive(Debug, Clone)]
pub struct ConsensusOptions {
    /// Lidstone δ (default 0.005).
    pub delta: f64,
    /// Smoothing bins as a multiple of the pool's vocabulary size (default 1.5).
    pub bins_factor: f64,
    /// Put summaries marked `human: true` in the pool too (default false: other systems only).
    pub include_human: bool,
    /// How ROUGE against the pool is computed (default: ROUGE-1.5.5 defaults plus stemming,
    /// `-m`, model-average over pseudo-references).
    pub rouge: RougeOptions,
}

impl Default for ConsensusOptions {
    fn default() -> ConsensusOptions {
        ConsensusOptions {
            delta: SIMETRIX_DELTA,
            bins_factor: SIMETRIX_BINS_FACTOR,
            include_human: false,
            rouge: RougeOptions {
                stem: true,
                ..RougeOptions::default()
            },
        }
    }
}

/// JS divergence (unsmoothed, smoothed) between a summary and a pool of other summaries, the
/// smoothing bins taken from the pool's vocabulary.
pub fn consensus_js(
    summary: &WordCounts,
    pool: &WordCounts,
    opts: &ConsensusOptions,
) -> (f64, f64) {
    let smoothing = Lidstone::for_reference(pool, opts.delta, opts.bins_factor);
    let aligned = pool.align(summary);
    (aligned.js(), aligned.js_smoothed(smoothing))
}

/// The `consensus` feature class.
pub struct Consensus {
    opts: ConsensusOptions,
}

impl Consensus {
    pub fn new(opts: ConsensusOptions) -> Consensus {
        Consensus { opts }
    }
}

impl FeatureClass for Consensus {
    fn name(&self) -> &'static str {
        "consensus"
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("consensus.{f}")).collect()
    }
    fn needs_references(&self) -> bool {
        false
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let summaries = &ctx.topic.summaries;
        let in_pool: Vec<bool> = summaries
            .iter()
            .map(|s| self.opts.include_human || !s.human)
            .collect();
        if in_pool.iter().filter(|&&b| b).count() == 0 {
            return vec![None; summaries.len()];
        }
        let counts = summary_counts(ctx);
        // All pool members pooled once; each summary then takes itself back out.
        let mut full_pool = WordCounts::new();
        for (c, _) in counts.iter().zip(&in_pool).filter(|(_, &p)| p) {
            full_pool.add_counts(c);
        }
        let prepared: Vec<PreparedText> = summaries
            .iter()
            .map(|s| PreparedText::new(&s.text, &self.opts.rouge))
            .collect();

        (0..summaries.len())
            .map(|i| {
                let others: Vec<&PreparedText> = (0..summaries.len())
                    .filter(|&j| j != i && in_pool[j])
                    .map(|j| &prepared[j])
                    .collect();
                if others.is_empty() {
                    return None;
                }
                let (js, js_smoothed) = if in_pool[i] {
                    let mut pool = full_pool.clone();
                    pool.subtract_counts(&counts[i]);
                    consensus_js(&counts[i], &pool, &self.opts)
                } else {
                    consensus_js(&counts[i], &full_pool, &self.opts)
                };
                let rouge = score(&prepared[i], &others, &self.opts.rouge);
                Some(vec![
                    js,
                    js_smoothed,
                    rouge.rouge1.recall,
                    rouge.rouge2.recall,
                    rouge.rouge1.f,
                    rouge.rouge2.f,
                ])
            })
            .collect()
    }
}
