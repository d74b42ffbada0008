//! ROUGE-L's longest common subsequences: ROUGE-1.5.5's summary-level union LCS (each reference
//! sentence against every peer sentence, positions marked as the Perl back-trace marks them) and,
//! for one-line texts, the bit-parallel LCS length that equals it.

use super::{Counts, PreparedText};
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// For each distinct token of one sentence, the bit set of its positions (bit-parallel LCS).
#[derive(Debug, Clone, Default)]
pub(super) struct PositionMasks {
    /// Distinct token ids, sorted.
    tokens: Vec<u32>,
    /// `words` u64 words per token, in the order of `tokens`.
    bits: Vec<u64>,
    words: usize,
    len: usize,
}

/// The most memory one text's masks may take (distinct tokens × 64-bit words per mask). The
/// masks of an n-token line take at most n²/8 bytes, where the dynamic program they replace
/// takes 4 bytes a cell: a one-line summary of 16,000 tokens against a one-line reference as
/// long took 1 GB that way, and takes at most 32 MB of masks. A longer text (a reference of
/// 100,000 tokens) uses the dynamic program only.
pub(super) const MAX_MASK_BYTES: usize = 64 << 20;

impl PositionMasks {
    #[cfg(test)]
    fn new(sentence: &[u32]) -> PositionMasks {
        Self::within(sentence, usize::MAX).unwrap_or_default()
    }

    /// The masks of `sentence`, unless they would take more than `max_bytes`.
    pub(super) fn within(sentence: &[u32], max_bytes: usize) -> Option<PositionMasks> {
        let mut tokens = sentence.to_vec();
        tokens.sort_unstable();
        tokens.dedup();
        let words = sentence.len().div_ceil(64);
        if tokens.len().saturating_mul(words).saturating_mul(8) > max_bytes {
            return None;
        }
        let mut bits = vec![0u64; tokens.len() * words];
        for (position, token) in sentence.iter().enumerate() {
            if let Ok(t) = tokens.binary_search(token) {
                bits[t * words + position / 64] |= 1 << (position % 64);
            }
        }
        Some(PositionMasks {
            tokens,
            bits,
            words,
            len: sentence.len(),
        })
    }

    pub(super) fn mask(&self, token: u32) -> Option<&[u64]> {
        let t = self.tokens.binary_search(&token).ok()?;
        Some(&self.bits[t * self.words..(t + 1) * self.words])
    }

    /// Length of the longest common subsequence of `other` and this sentence, by the
    /// bit-parallel algorithm of Allison & Dix / Hyyrö: one pass over `other`, updating the
    /// bit vector V ← (V + U) | (V − U) with U = V & mask(token), as multi-word integers.
    pub(super) fn lcs_length(&self, other: &[u32]) -> u32 {
        let mut v = vec![u64::MAX; self.words];
        for &token in other {
            let Some(mask) = self.mask(token) else {
                continue;
            };
            let mut carry = false;
            for (vw, &mw) in v.iter_mut().zip(mask) {
                let u = *vw & mw;
                let (sum, c1) = vw.overflowing_add(u);
                let (sum, c2) = sum.overflowing_add(u64::from(carry));
                carry = c1 || c2;
                // U's bits are a subset of V's, so V − U never borrows: it clears U's bits.
                *vw = sum | (*vw & !u);
            }
        }
        // Zero bits among the first `len` positions are the LCS.
        let mut zeros = 0;
        for (w, &vw) in v.iter().enumerate() {
            let valid = (self.len - w * 64).min(64);
            let live = if valid == 64 {
                u64::MAX
            } else {
                (1u64 << valid) - 1
            };
            zeros += (!vw & live).count_ones();
        }
        zeros
    }
}

pub(super) fn lcs_counts(peer: &PreparedText, reference: &PreparedText) -> Counts {
    Counts {
        hits: union_lcs_hits(reference, peer),
        reference_total: reference.unigrams.total,
        peer_total: peer.unigrams.total,
    }
}

/// ROUGE-1.5.5's summary-level LCS hits of `peer` against `reference`.
///
/// When both texts are one sentence, the hits are exactly the LCS length: the marked reference
/// positions form one common subsequence, so no token is marked more often than it occurs in
/// either text and the clipping never applies. That case (every SPL summary on one line) uses
/// the bit-parallel LCS length; otherwise the Perl procedure is followed step by step.
pub(super) fn union_lcs_hits(reference: &PreparedText, peer: &PreparedText) -> u32 {
    if let ([model], Some(masks)) = (reference.sentences.as_slice(), &peer.masks) {
        return masks.lcs_length(model);
    }
    let mut table = Vec::new();
    // How many occurrences of a token one LCS hit has already consumed, in both texts at once
    // (ROUGE decrements the reference and peer unigram counts together).
    let mut used: HashMap<u32, u32, FxBuildHasher> = HashMap::default();
    let mut hits = 0;
    for model in &reference.sentences {
        let mut marked = vec![false; model.len()];
        for candidate in &peer.sentences {
            mark_lcs(model, candidate, &mut marked, &mut table);
        }
        for (&token, _) in model.iter().zip(&marked).filter(|(_, &m)| m) {
            let key = u64::from(token);
            let consumed = used.entry(token).or_insert(0);
            if reference.unigrams.count(key) > *consumed && peer.unigrams.count(key) > *consumed {
                *consumed += 1;
                hits += 1;
            }
        }
    }
    hits
}

/// Mark in `marked` the positions of `model` on one longest common subsequence with `peer`,
/// choosing the same LCS as the Perl back-trace (diagonal on a match, else up when the cell
/// above is at least the cell to the left).
pub(super) fn mark_lcs(model: &[u32], peer: &[u32], marked: &mut [bool], table: &mut Vec<u32>) {
    let (m, n) = (model.len(), peer.len());
    let width = n + 1;
    table.clear();
    table.resize((m + 1) * width, 0);
    for i in 1..=m {
        let (filled, rest) = table.split_at_mut(i * width);
        let above = &filled[(i - 1) * width..];
        let row = &mut rest[..width];
        let token = model[i - 1];
        for j in 1..=n {
            row[j] = if token == peer[j - 1] {
                above[j - 1] + 1
            } else {
                above[j].max(row[j - 1])
            };
        }
    }
    let (mut i, mut j) = (m, n);
    while i > 0 && j > 0 {
        if model[i - 1] == peer[j - 1] {
            i -= 1;
            j -= 1;
            marked[i] = true;
        } else if table[(i - 1) * width + j] >= table[i * width + j - 1] {
            i -= 1;
        } else {
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcs_tie_breaking_follows_the_perl_backtrace() {
        // Model "a b", peer "b a": LCS length 1, two choices. The Perl trace starts at (2,2):
        // no match, up (c[1][2]=1) >= left (c[2][1]=1) → go up to (1,2), a match: model "a".
        let mut marked = vec![false; 2];
        mark_lcs(&[1, 2], &[2, 1], &mut marked, &mut Vec::new());
        assert_eq!(marked, [true, false]);
    }

    /// A small deterministic generator (xorshift) for randomized comparisons.
    fn pseudo_random_tokens(seed: &mut u64, len: usize, alphabet: u64) -> Vec<u32> {
        (0..len)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                (*seed % alphabet) as u32
            })
            .collect()
    }

    #[test]
    fn bit_parallel_lcs_equals_the_dynamic_program() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for round in 0..300 {
            // Lengths up to 150 cover one, two and three 64-bit words.
            let m = 1 + round % 150;
            let n = 1 + (round * 7) % 150;
            let alphabet = 2 + (round % 12) as u64;
            let a = pseudo_random_tokens(&mut seed, m, alphabet);
            let b = pseudo_random_tokens(&mut seed, n, alphabet);
            let mut marked = vec![false; m];
            mark_lcs(&a, &b, &mut marked, &mut Vec::new());
            let dp = marked.iter().filter(|&&x| x).count() as u32;
            assert_eq!(PositionMasks::new(&b).lcs_length(&a), dp, "round {round}");
        }
        assert_eq!(PositionMasks::new(&[1, 2, 3]).lcs_length(&[4, 5]), 0);
    }

    /// A long line (past the 4,096 tokens that once sent it to the dynamic program, which
    /// takes 4 bytes a cell) gets masks, and they give the dynamic program's length; a line
    /// whose masks would pass the budget gets none.
    #[test]
    fn long_lines_get_masks_within_the_memory_budget() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        let long = pseudo_random_tokens(&mut seed, 6_000, 500);
        let model = pseudo_random_tokens(&mut seed, 300, 500);
        let masks = PositionMasks::within(&long, MAX_MASK_BYTES).expect("within the budget");
        let mut marked = vec![false; model.len()];
        mark_lcs(&model, &long, &mut marked, &mut Vec::new());
        let dp = marked.iter().filter(|&&x| x).count() as u32;
        assert_eq!(masks.lcs_length(&model), dp);
        // 100,000 distinct tokens: 100,000 masks of 1,563 words, 1.25 GB.
        let distinct: Vec<u32> = (0..100_000).collect();
        assert!(PositionMasks::within(&distinct, MAX_MASK_BYTES).is_none());
        assert!(PositionMasks::within(&distinct[..20_000], MAX_MASK_BYTES).is_some());
    }
}
