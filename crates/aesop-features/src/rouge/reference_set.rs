//! Several references scored together: a topic's references prepared and indexed once, so that
//! one hash lookup per distinct peer unit counts the peer's hits against every reference.

use super::{
    assert_same_vocabulary, combine_pairs, jackknife_pairs, lcs_counts, Counts, Grams, PairCounts,
    PreparedText, RougeOptions, RougeScores, Vocabulary,
};
use crate::reference_runs::ReferenceRuns;

/// For every unit of one measure, the references that contain it and how often: one hash
/// lookup per distinct peer unit serves all references at once.
#[derive(Debug, Clone, Default)]
struct GramIndex(ReferenceRuns<u32>);

impl GramIndex {
    fn new<'a>(grams: impl Iterator<Item = &'a Grams>) -> GramIndex {
        let mut triples: Vec<(u64, u32, u32)> = Vec::new();
        for (r, g) in grams.enumerate() {
            let r = u32::try_from(r).unwrap_or(u32::MAX);
            triples.extend(g.counts.iter().map(|(&key, &n)| (key, r, n)));
        }
        GramIndex(ReferenceRuns::new(triples))
    }

    /// Add to `hits[r]` the clipped hits of `peer` against every reference r.
    fn add_hits(&self, peer: &Grams, hits: &mut [u32]) {
        for (&key, &n) in &peer.counts {
            for &(r, count) in self.0.get(key) {
                hits[r as usize] += n.min(count);
            }
        }
    }
}

/// A topic's references, prepared and indexed once, to score many peers against.
#[derive(Debug, Clone, Default)]
pub struct ReferenceSet {
    references: Vec<PreparedText>,
    unigrams: GramIndex,
    bigrams: GramIndex,
    su4: GramIndex,
}

impl ReferenceSet {
    pub fn new(references: Vec<PreparedText>) -> ReferenceSet {
        ReferenceSet {
            unigrams: GramIndex::new(references.iter().map(|r| &r.unigrams)),
            bigrams: GramIndex::new(references.iter().map(|r| &r.bigrams)),
            su4: GramIndex::new(references.iter().map(|r| &r.su4)),
            references,
        }
    }

    /// Prepare and index `texts`.
    pub fn from_texts<'a>(
        texts: impl IntoIterator<Item = &'a str>,
        opts: &RougeOptions,
        vocabulary: &Vocabulary,
    ) -> ReferenceSet {
        ReferenceSet::new(
            texts
                .into_iter()
                .map(|t| PreparedText::new(t, opts, vocabulary))
                .collect(),
        )
    }

    pub fn references(&self) -> &[PreparedText] {
        &self.references
    }

    pub fn len(&self) -> usize {
        self.references.len()
    }

    pub fn is_empty(&self) -> bool {
        self.references.is_empty()
    }

    /// `pair_counts(peer, r)` for every reference r, in order.
    pub fn pair_counts(&self, peer: &PreparedText) -> Vec<PairCounts> {
        for reference in &self.references {
            assert_same_vocabulary(peer, reference);
        }
        let k = self.references.len();
        let mut hits = vec![0u32; 3 * k];
        let (h1, rest) = hits.split_at_mut(k);
        let (h2, hs) = rest.split_at_mut(k);
        self.unigrams.add_hits(&peer.unigrams, h1);
        self.bigrams.add_hits(&peer.bigrams, h2);
        self.su4.add_hits(&peer.su4, hs);
        self.references
            .iter()
            .enumerate()
            .map(|(r, reference)| {
                let counts = |hits: u32, reference: &Grams, peer: &Grams| Counts {
                    hits,
                    reference_total: reference.total,
                    peer_total: peer.total,
                };
                PairCounts {
                    rouge1: counts(h1[r], &reference.unigrams, &peer.unigrams),
                    rouge2: counts(h2[r], &reference.bigrams, &peer.bigrams),
                    rouge_l: lcs_counts(peer, reference),
                    rouge_su4: counts(hs[r], &reference.su4, &peer.su4),
                }
            })
            .collect()
    }

    /// Scores of `peer` with the mode of `opts`, jackknifed when `opts.jackknife` is set.
    pub fn score(&self, peer: &PreparedText, opts: &RougeOptions) -> RougeScores {
        let pairs = self.pair_counts(peer);
        if opts.jackknife {
            jackknife_pairs(&pairs, opts.mode)
        } else {
            combine_pairs(&pairs, opts.mode)
        }
    }
}
