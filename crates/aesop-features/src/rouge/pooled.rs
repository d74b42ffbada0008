//! Every text of a pool against all the others (the consensus class): hits against the whole
//! pool minus hits against oneself, in time linear in the pool's size.

use super::{bigram_counts, token_ids, unigram_counts, Grams, Prf, RougeOptions, Vocabulary};
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// The ROUGE-1 and ROUGE-2 units of one text: all [`PooledNgrams`] needs, without the
/// skip-bigrams and sentences a [`PreparedText`] keeps for ROUGE-L and -SU4.
#[derive(Debug, Clone, Default)]
pub struct NgramCounts {
    unigrams: Grams,
    bigrams: Grams,
}

impl NgramCounts {
    /// `text`'s units, its tokens interned in `vocabulary` (one per pool).
    pub fn new(text: &str, opts: &RougeOptions, vocabulary: &Vocabulary) -> NgramCounts {
        let (ids, _) = token_ids(text, opts, vocabulary);
        NgramCounts {
            unigrams: unigram_counts(&ids),
            bigrams: bigram_counts(&ids),
        }
    }
}

/// One measure's units over a pool of texts, so that the clipped hits of a peer against every
/// member at once, Σ_j Σ_unit min(k, c_j), take one lookup per peer unit: for a unit and
/// t = 1, 2, …, `cumulative` holds Σ_{s ≤ t} #{members with count ≥ s}, which is
/// Σ_j min(t, c_j).
#[derive(Debug, Clone, Default)]
struct PooledGrams {
    /// Unit key → range of `cumulative` (its length is the unit's largest count in the pool).
    ranges: HashMap<u64, (usize, usize), FxBuildHasher>,
    cumulative: Vec<u64>,
    /// Σ of the members' unit totals.
    total: u64,
}

impl PooledGrams {
    fn new<'a>(members: impl Iterator<Item = &'a Grams> + Clone) -> PooledGrams {
        let mut largest: HashMap<u64, u32, FxBuildHasher> = HashMap::default();
        let mut total = 0;
        for grams in members.clone() {
            total += u64::from(grams.total);
            for (&key, &n) in &grams.counts {
                let m = largest.entry(key).or_insert(0);
                *m = (*m).max(n);
            }
        }
        let mut pooled = PooledGrams {
            total,
            ..PooledGrams::default()
        };
        let mut keys: Vec<(u64, u32)> = largest.into_iter().collect();
        keys.sort_unstable();
        for (key, n) in keys {
            let start = pooled.cumulative.len();
            pooled.cumulative.resize(start + n as usize, 0);
            pooled.ranges.insert(key, (start, start + n as usize));
        }
        // #{members with count ≥ t} for each t, then its running sum.
        for grams in members {
            for (key, &n) in &grams.counts {
                if let Some(&(start, _)) = pooled.ranges.get(key) {
                    for slot in &mut pooled.cumulative[start..start + n as usize] {
                        *slot += 1;
                    }
                }
            }
        }
        for &(start, end) in pooled.ranges.values() {
            for t in start + 1..end {
                pooled.cumulative[t] += pooled.cumulative[t - 1];
            }
        }
        pooled
    }

    /// Σ over members of the clipped hits of `peer` against that member.
    fn hits(&self, peer: &Grams) -> u64 {
        peer.counts
            .iter()
            .filter_map(|(key, &k)| {
                let &(start, end) = self.ranges.get(key)?;
                Some(self.cumulative[(start + k as usize).min(end) - 1])
            })
            .sum()
    }
}

/// ROUGE-1 and ROUGE-2 of each member of a pool against all the other members as references,
/// model-averaged ([`MultiRefMode::Average`]: pooled hits over pooled totals). Equal to
/// [`score`] against the other members, in time linear in the pool's size instead of
/// quadratic: hits against everyone minus hits against oneself.
#[derive(Debug, Clone, Default)]
pub struct PooledNgrams {
    members: usize,
    unigrams: PooledGrams,
    bigrams: PooledGrams,
}

impl PooledNgrams {
    pub fn new(members: &[&NgramCounts]) -> PooledNgrams {
        PooledNgrams {
            members: members.len(),
            unigrams: PooledGrams::new(members.iter().map(|m| &m.unigrams)),
            bigrams: PooledGrams::new(members.iter().map(|m| &m.bigrams)),
        }
    }

    /// (ROUGE-1, ROUGE-2) of `peer` against the pool, leaving `peer` itself out when it is a
    /// member (`is_member`); all 0 when no other member is left.
    pub fn score_against_others(&self, peer: &NgramCounts, is_member: bool) -> (Prf, Prf) {
        let references = (self.members - usize::from(is_member)) as f64;
        let measure = |pool: &PooledGrams, own: &Grams| {
            let own_hits: u64 = own.counts.values().map(|&n| u64::from(n)).sum();
            let (mut hits, mut reference_total) = (pool.hits(own), pool.total);
            if is_member {
                hits -= own_hits;
                reference_total -= u64::from(own.total);
            }
            Prf::from_counts(
                hits as f64,
                reference_total as f64,
                references * f64::from(own.total),
            )
        };
        (
            measure(&self.unigrams, &peer.unigrams),
            measure(&self.bigrams, &peer.bigrams),
        )
    }
}
