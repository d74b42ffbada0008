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
//! [`super::distribution::js_divergence`]: an empty summary or an empty pool gives JS = ln 2
//! (both empty: NaN); the smoothed JS is NaN when the pool has no tokens (no vocabulary to
//! smooth over).

use super::content::summary_counts;
use super::distribution::{
    AlignedCounts, Lidstone, WordCounts, WordMap, SIMETRIX_BINS_FACTOR, SIMETRIX_DELTA,
};
use super::rouge::{score, PreparedText, RougeOptions};
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};

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
    let (_, aligned) = pool.align(summary);
    js_of_aligned(&aligned, pool.vocabulary_size(), opts)
}

/// (JS, smoothed JS) of a pool (`a`) and a summary (`b`) already aligned.
fn js_of_aligned(
    aligned: &AlignedCounts,
    pool_vocabulary: usize,
    opts: &ConsensusOptions,
) -> (f64, f64) {
    let smoothing = Lidstone {
        delta: opts.delta,
        bins: opts.bins_factor * pool_vocabulary as f64,
    };
    let d = aligned.divergences(smoothing);
    (d.js, d.js_smoothed)
}

/// The summaries of one topic as count vectors over the topic's summary vocabulary (word ids
/// in sorted word order, so sums are reproducible), for fast pooling.
struct InternedSummaries {
    vocabulary_size: usize,
    /// Per summary, `(word id, count)` sorted by id.
    sparse: Vec<Vec<(usize, u64)>>,
}

impl InternedSummaries {
    fn new(counts: &[WordCounts]) -> InternedSummaries {
        let mut words: Vec<&str> = counts
            .iter()
            .flat_map(|c| c.iter().map(|(w, _)| w))
            .collect();
        words.sort_unstable();
        words.dedup();
        let ids: WordMap<&str, usize> = words.iter().enumerate().map(|(i, &w)| (w, i)).collect();
        let sparse = counts
            .iter()
            .map(|c| {
                let mut v: Vec<(usize, u64)> = c
                    .iter()
                    .filter_map(|(w, n)| ids.get(w).map(|&id| (id, n)))
                    .collect();
                v.sort_unstable();
                v
            })
            .collect();
        InternedSummaries {
            vocabulary_size: words.len(),
            sparse,
        }
    }
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

/// The `consensus` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "consensus",
    about: "closeness to the other systems' summaries",
    default: true,
    references: ReferenceUse::None,
    build: |o| Ok(Box::new(Consensus::new(o.consensus.clone()))),
};

impl FeatureClass for Consensus {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("consensus.{f}")).collect()
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
        let interned = InternedSummaries::new(&counts);
        // All pool members pooled once; each summary then takes itself out and back in.
        let mut pool = vec![0u64; interned.vocabulary_size];
        for (own, _) in interned.sparse.iter().zip(&in_pool).filter(|(_, &p)| p) {
            for &(id, n) in own {
                pool[id] += n;
            }
        }
        let mut own_dense = vec![0u64; interned.vocabulary_size];
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
                let own = &interned.sparse[i];
                for &(id, n) in own {
                    own_dense[id] = n;
                    if in_pool[i] {
                        pool[id] -= n;
                    }
                }
                let capacity = pool.len();
                let (mut a, mut b) = (Vec::with_capacity(capacity), Vec::with_capacity(capacity));
                let mut pool_vocabulary = 0;
                for (&p, &q) in pool.iter().zip(&own_dense) {
                    if p > 0 || q > 0 {
                        a.push(p);
                        b.push(q);
                        pool_vocabulary += usize::from(p > 0);
                    }
                }
                let (js, js_smoothed) =
                    js_of_aligned(&AlignedCounts::new(a, b), pool_vocabulary, &self.opts);
                for &(id, n) in own {
                    own_dense[id] = 0;
                    if in_pool[i] {
                        pool[id] += n;
                    }
                }
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
