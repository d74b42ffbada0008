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
    grouped_divergences, Lidstone, WordCounts, WordMap, SIMETRIX_BINS_FACTOR, SIMETRIX_DELTA,
};
use super::rouge::{
    score, topic_vocabulary, MultiRefMode, NgramCounts, PooledNgrams, PreparedText, Prf,
    RougeOptions, Vocabulary,
};
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
    let smoothing = Lidstone {
        delta: opts.delta,
        bins: opts.bins_factor * pool.vocabulary_size() as f64,
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
    batch_dependent: true,
    options: &["consensus_include_human"],
    partial_options: &[],
    build: |o| Ok(Box::new(Consensus::new(o.consensus.clone()))),
};

impl FeatureClass for Consensus {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("consensus.{f}")).collect()
    }
    fn idle_options(&self, topic: &aesop_corpus::Topic) -> Vec<(&'static str, &'static str)> {
        if self.opts.include_human && !topic.summaries.iter().any(|s| s.human) {
            vec![(
                "consensus_include_human",
                "no summary is marked `human: true`, so each consensus pool held the other summaries either way",
            )]
        } else {
            Vec::new()
        }
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let summaries = &ctx.topic.summaries;
        let in_pool: Vec<bool> = summaries
            .iter()
            .map(|s| self.opts.include_human || !s.human)
            .collect();
        let members = in_pool.iter().filter(|&&b| b).count();
        let counts = summary_counts(ctx);
        let interned = InternedSummaries::new(&counts);
        let pool = PoolDistribution::new(&interned, &in_pool);
        let rouge = RougeAgainstPool::new(
            summaries,
            &in_pool,
            &self.opts.rouge,
            &topic_vocabulary(ctx),
        );
        (0..summaries.len())
            .map(|i| {
                if members - usize::from(in_pool[i]) == 0 {
                    return None;
                }
                let (js, js_smoothed) = pool.js_without(i, &self.opts);
                let (rouge1, rouge2) = rouge.score(i);
                Some(vec![
                    js,
                    js_smoothed,
                    rouge1.recall,
                    rouge2.recall,
                    rouge1.f,
                    rouge2.f,
                ])
            })
            .collect()
    }
}

/// The pool's word counts, and how many words share each count, so that the JS divergence of
/// one summary against the pool without it visits the summary's words and the distinct counts
/// only, not the whole pool vocabulary (which grows with the topic).
struct PoolDistribution<'a> {
    interned: &'a InternedSummaries,
    in_pool: &'a [bool],
    /// Count of every word over all pool members.
    counts: Vec<u64>,
    /// (count, number of words with that count), ascending, counts > 0 only.
    count_groups: Vec<(u64, u64)>,
    total: u64,
    vocabulary: usize,
}

impl<'a> PoolDistribution<'a> {
    fn new(interned: &'a InternedSummaries, in_pool: &'a [bool]) -> PoolDistribution<'a> {
        let mut counts = vec![0u64; interned.vocabulary_size];
        for (own, _) in interned.sparse.iter().zip(in_pool).filter(|(_, &p)| p) {
            for &(id, n) in own {
                counts[id] += n;
            }
        }
        let mut sorted: Vec<u64> = counts.iter().copied().filter(|&c| c > 0).collect();
        sorted.sort_unstable();
        let mut count_groups: Vec<(u64, u64)> = Vec::new();
        for c in sorted {
            match count_groups.last_mut() {
                Some((last, words)) if *last == c => *words += 1,
                _ => count_groups.push((c, 1)),
            }
        }
        PoolDistribution {
            interned,
            in_pool,
            total: counts.iter().sum(),
            vocabulary: count_groups.iter().map(|&(_, w)| w as usize).sum(),
            counts,
            count_groups,
        }
    }

    /// (JS, smoothed JS) of summary `i` against the pool with `i` taken out.
    fn js_without(&self, i: usize, opts: &ConsensusOptions) -> (f64, f64) {
        let own = &self.interned.sparse[i];
        let member = self.in_pool[i];
        // The summary's own words: (pool count without it, its count).
        let mut groups: Vec<(u64, u64, u64)> =
            Vec::with_capacity(own.len() + self.count_groups.len());
        let mut own_pool_counts: Vec<u64> = Vec::with_capacity(own.len());
        let (mut own_total, mut lost_words) = (0, 0);
        for &(id, n) in own {
            let full = self.counts[id];
            let without = if member { full - n } else { full };
            groups.push((without, n, 1));
            own_total += n;
            if full > 0 {
                own_pool_counts.push(full);
                lost_words += usize::from(without == 0);
            }
        }
        // Every other pool word, grouped by its count.
        own_pool_counts.sort_unstable();
        let mut own_at = own_pool_counts.iter().peekable();
        for &(count, words) in &self.count_groups {
            let mut own_words = 0;
            while own_at.next_if(|&&c| c == count).is_some() {
                own_words += 1;
            }
            if words > own_words {
                groups.push((count, 0, words - own_words));
            }
        }
        let pool_total = if member {
            self.total - own_total
        } else {
            self.total
        };
        let smoothing = Lidstone {
            delta: opts.delta,
            bins: opts.bins_factor * (self.vocabulary - lost_words) as f64,
        };
        let d = grouped_divergences(groups, (pool_total, own_total), smoothing);
        (d.js, d.js_smoothed)
    }
}

/// ROUGE-1/2 of each summary with the other pool members as pseudo-references: linear in the
/// pool's size for the model average (the default); the best-reference mode, which only a
/// hand-built option set can ask for, scores every pair.
enum RougeAgainstPool<'a> {
    Average {
        texts: Vec<NgramCounts>,
        pool: PooledNgrams,
        in_pool: &'a [bool],
    },
    Pairwise {
        texts: Vec<PreparedText>,
        in_pool: &'a [bool],
        opts: &'a RougeOptions,
    },
}

impl<'a> RougeAgainstPool<'a> {
    fn new(
        summaries: &[aesop_corpus::Summary],
        in_pool: &'a [bool],
        opts: &'a RougeOptions,
        vocabulary: &Vocabulary,
    ) -> RougeAgainstPool<'a> {
        if opts.mode == MultiRefMode::Average {
            let texts: Vec<NgramCounts> = summaries
                .iter()
                .map(|s| NgramCounts::new(&s.text, opts, vocabulary))
                .collect();
            let members: Vec<&NgramCounts> = texts
                .iter()
                .zip(in_pool)
                .filter(|(_, &p)| p)
                .map(|(t, _)| t)
                .collect();
            let pool = PooledNgrams::new(&members);
            RougeAgainstPool::Average {
                texts,
                pool,
                in_pool,
            }
        } else {
            RougeAgainstPool::Pairwise {
                texts: summaries
                    .iter()
                    .map(|s| PreparedText::new(&s.text, opts, vocabulary))
                    .collect(),
                in_pool,
                opts,
            }
        }
    }

    /// (ROUGE-1, ROUGE-2) of summary `i`.
    fn score(&self, i: usize) -> (Prf, Prf) {
        match self {
            RougeAgainstPool::Average {
                texts,
                pool,
                in_pool,
            } => pool.score_against_others(&texts[i], in_pool[i]),
            RougeAgainstPool::Pairwise {
                texts,
                in_pool,
                opts,
            } => {
                let others: Vec<&PreparedText> = (0..texts.len())
                    .filter(|&j| j != i && in_pool[j])
                    .map(|j| &texts[j])
                    .collect();
                let s = score(&texts[i], &others, opts);
                (s.rouge1, s.rouge2)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesop_corpus::{Summary, Topic};

    /// A topic of `n` summaries drawn from a small vocabulary (so that words repeat within and
    /// across summaries and many words share pool counts), some of them human, some empty,
    /// some on several lines; a fixed linear congruential generator keeps it reproducible.
    fn random_topic(n: usize) -> Topic {
        const WORDS: &[&str] = &[
            "volcano",
            "lava",
            "ash",
            "eruption",
            "village",
            "evacuated",
            "scientists",
            "warned",
            "crater",
            "smoke",
            "residents",
            "fled",
            "Tuesday",
            "island",
            "government",
            "flights",
            "cancelled",
            "airport",
            "closed",
            "magma",
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |bound: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as usize) % bound
        };
        let mut topic = Topic::new("t");
        for i in 0..n {
            let words: Vec<&str> = (0..next(25)).map(|_| WORDS[next(WORDS.len())]).collect();
            let text = if next(4) == 0 {
                words.join(" ").replacen(' ', ".\n", 1)
            } else {
                words.join(" ")
            };
            let mut summary = Summary::new(format!("s{i}"), text);
            summary.human = next(6) == 0;
            topic.summaries.push(summary);
        }
        topic
    }

    /// The pooled (linear-time) features equal scoring every summary against the others one
    /// by one, as the class did before (`score` against each other member, JS against the
    /// summed counts of the others).
    #[test]
    fn pooled_features_equal_pairwise_scoring() {
        let topic = random_topic(60);
        for include_human in [false, true] {
            let opts = ConsensusOptions {
                include_human,
                ..ConsensusOptions::default()
            };
            let ctx = TopicContext::new(&topic);
            let rows = Consensus::new(opts.clone()).extract(&ctx);
            let counts = summary_counts(&ctx);
            let vocabulary = Vocabulary::default();
            let prepared: Vec<PreparedText> = topic
                .summaries
                .iter()
                .map(|s| PreparedText::new(&s.text, &opts.rouge, &vocabulary))
                .collect();
            let in_pool = |j: usize| include_human || !topic.summaries[j].human;
            for (i, row) in rows.iter().enumerate() {
                let others: Vec<usize> = (0..topic.summaries.len())
                    .filter(|&j| j != i && in_pool(j))
                    .collect();
                let mut pool = WordCounts::new();
                for &j in &others {
                    pool.add_counts(&counts[j]);
                }
                let (js, js_smoothed) = consensus_js(&counts[i], &pool, &opts);
                let references: Vec<&PreparedText> = others.iter().map(|&j| &prepared[j]).collect();
                let rouge = score(&prepared[i], &references, &opts.rouge);
                let expected = [
                    js,
                    js_smoothed,
                    rouge.rouge1.recall,
                    rouge.rouge2.recall,
                    rouge.rouge1.f,
                    rouge.rouge2.f,
                ];
                let row = row.as_ref().expect("every summary has other pool members");
                for (k, (got, want)) in row.iter().zip(expected).enumerate() {
                    let same = (got.is_nan() && want.is_nan()) || (got - want).abs() < 1e-12;
                    assert!(
                        same,
                        "summary {i}, {}: pooled {got}, pairwise {want}",
                        FEATURES[k]
                    );
                }
                // ROUGE counts are integers summed either way: exactly equal.
                assert_eq!(row[2..], expected[2..], "summary {i}");
            }
        }
    }
}
