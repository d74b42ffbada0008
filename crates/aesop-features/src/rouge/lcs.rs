//! ROUGE-L's longest common subsequences: ROUGE-1.5.5's summary-level union LCS (each reference
//! sentence against every peer sentence, positions marked as the Perl back-trace marks them).
//!
//! Why bit-parallel: the Perl dynamic program keeps a table of m × n cells; at 4 bytes a cell,
//! one sentence of 16,000 tokens against another took 1 GB. Here a table row is a bit vector
//! (Allison & Dix, Hyyrö: a cell's value is the count of zero bits before it), built from the
//! token's positions in the other sentence, and only every k-th row (k ≈ √m) is kept: the
//! back-trace rebuilds the rows of one block at a time. Memory is O(√m · n / 64) words and the
//! marked positions are the Perl back-trace's, cell for cell.

use super::{Counts, PreparedText};
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// Each token of one sentence with its position, sorted by token: a row's bit mask is built
/// from the positions of one token, so no sentence needs a mask per distinct token (n²/8 bytes
/// for n distinct tokens).
#[derive(Debug, Clone, Default)]
pub(super) struct TokenPositions {
    /// (token id, position), sorted.
    pairs: Vec<(u32, u32)>,
}

impl TokenPositions {
    pub(super) fn new(sentence: &[u32]) -> TokenPositions {
        let mut pairs: Vec<(u32, u32)> = sentence
            .iter()
            .zip(0u32..)
            .map(|(&token, position)| (token, position))
            .collect();
        pairs.sort_unstable();
        TokenPositions { pairs }
    }

    /// Number of tokens in the sentence.
    fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The positions of `token`, as (token, position) pairs.
    fn of(&self, token: u32) -> &[(u32, u32)] {
        let start = self.pairs.partition_point(|&(t, _)| t < token);
        let end = start + self.pairs[start..].partition_point(|&(t, _)| t == token);
        &self.pairs[start..end]
    }
}

/// One row of the bit-parallel LCS: `row` (the previous token's row, one bit per position of
/// the other sentence, 0 where the LCS grows) becomes the next token's, by
/// V ← (V + U) | (V − U) with U = V & mask, as multi-word integers.
fn advance(row: &mut [u64], mask: &[u64]) {
    let mut carry = false;
    for (vw, &mw) in row.iter_mut().zip(mask) {
        let u = *vw & mw;
        let (sum, c1) = vw.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(u64::from(carry));
        carry = c1 || c2;
        // U's bits are a subset of V's, so V − U never borrows: it clears U's bits.
        *vw = sum | (*vw & !u);
    }
}

/// Number of zero bits of `row` before position `end`: the dynamic program's cell value.
fn zeros_before(row: &[u64], end: usize) -> u32 {
    let full = end / 64;
    let mut zeros: u32 = row[..full].iter().map(|w| w.count_zeros()).sum();
    let rest = end % 64;
    if rest > 0 {
        zeros += (!row[full] & ((1u64 << rest) - 1)).count_ones();
    }
    zeros
}

/// 1 where the LCS grows at `position` of `row` (its bit is zero), else 0.
fn grows_at(row: &[u64], position: usize) -> u32 {
    u32::from(row[position / 64] >> (position % 64) & 1 == 0)
}

/// Bit rows for [`lcs_length`] and [`mark_lcs`], reused from one sentence pair to the next.
#[derive(Debug, Default)]
pub(super) struct LcsScratch {
    /// The mask of one token (its positions in the other sentence); all zero between rows.
    mask: Vec<u64>,
    /// Rows 0, k, 2k, … of the forward pass.
    checkpoints: Vec<u64>,
    /// The rows of the block being traced back.
    block: Vec<u64>,
}

/// Advance `row` by the row of `token` against the sentence of `positions`; `mask` is all zero
/// before and after.
fn advance_by(row: &mut [u64], mask: &mut [u64], positions: &TokenPositions, token: u32) {
    let at = positions.of(token);
    if at.is_empty() {
        // An all-zero mask leaves the row as it is.
        return;
    }
    for &(_, p) in at {
        mask[p as usize / 64] |= 1 << (p % 64);
    }
    advance(row, mask);
    for &(_, p) in at {
        mask[p as usize / 64] = 0;
    }
}

impl LcsScratch {
    fn reset_mask(&mut self, words: usize) {
        self.mask.clear();
        self.mask.resize(words, 0);
    }
}

/// Length of the longest common subsequence of `model` and the sentence of `positions`.
pub(super) fn lcs_length(
    model: &[u32],
    positions: &TokenPositions,
    scratch: &mut LcsScratch,
) -> u32 {
    let n = positions.len();
    let words = n.div_ceil(64);
    scratch.reset_mask(words);
    let mut row = vec![u64::MAX; words];
    for &token in model {
        advance_by(&mut row, &mut scratch.mask, positions, token);
    }
    zeros_before(&row, n)
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
/// either text and the clipping never applies. That case (every SPL summary on one line) needs
/// no back-trace; otherwise the Perl procedure is followed step by step.
pub(super) fn union_lcs_hits(reference: &PreparedText, peer: &PreparedText) -> u32 {
    let mut scratch = LcsScratch::default();
    if let ([model], [positions]) = (reference.sentences.as_slice(), peer.positions.as_slice()) {
        return lcs_length(model, positions, &mut scratch);
    }
    // How many occurrences of a token one LCS hit has already consumed, in both texts at once
    // (ROUGE decrements the reference and peer unigram counts together).
    let mut used: HashMap<u32, u32, FxBuildHasher> = HashMap::default();
    let mut hits = 0;
    for model in &reference.sentences {
        let mut marked = vec![false; model.len()];
        for (candidate, positions) in peer.sentences.iter().zip(&peer.positions) {
            mark_lcs(model, candidate, positions, &mut marked, &mut scratch);
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

/// Mark in `marked` the positions of `model` on one longest common subsequence with `peer`
/// (whose [`TokenPositions`] are `positions`), choosing the same LCS as the Perl back-trace:
/// diagonal on a match, else up when the cell above is at least the cell to the left.
pub(super) fn mark_lcs(
    model: &[u32],
    peer: &[u32],
    positions: &TokenPositions,
    marked: &mut [bool],
    scratch: &mut LcsScratch,
) {
    let (m, n) = (model.len(), peer.len());
    if m == 0 || n == 0 {
        return;
    }
    let words = n.div_ceil(64);
    // Rows 0..=m in blocks of `stride`: (m / stride + 1) checkpoints and stride + 1 rows of a
    // block are kept, about 2√m rows in all.
    let stride = m.isqrt().max(1);
    scratch.reset_mask(words);
    let LcsScratch {
        mask,
        checkpoints,
        block,
    } = scratch;
    checkpoints.clear();
    let mut row = vec![u64::MAX; words];
    checkpoints.extend_from_slice(&row);
    for (i, &token) in (1..).zip(model) {
        advance_by(&mut row, mask, positions, token);
        if i % stride == 0 {
            checkpoints.extend_from_slice(&row);
        }
    }
    let (mut i, mut j) = (m, n);
    while i > 0 && j > 0 {
        // Rebuild rows base..=i from the checkpoint at `base`.
        let base = (i - 1) / stride * stride;
        block.clear();
        let start = base / stride * words;
        block.extend_from_slice(&checkpoints[start..start + words]);
        for r in base + 1..=i {
            let previous = block.len() - words;
            block.extend_from_within(previous..);
            let (_, current) = block.split_at_mut(previous + words);
            advance_by(current, mask, positions, model[r - 1]);
        }
        let row_of = |r: usize| &block[(r - base) * words..(r - base + 1) * words];
        // `here` is the cell (i, j), `above` the cell (i − 1, j).
        let mut here = zeros_before(row_of(i), j);
        let mut above = zeros_before(row_of(i - 1), j);
        while i > base && j > 0 {
            if model[i - 1] == peer[j - 1] {
                marked[i - 1] = true;
                here = above - grows_at(row_of(i - 1), j - 1);
                i -= 1;
                j -= 1;
            } else if above >= here - grows_at(row_of(i), j - 1) {
                here = above;
                i -= 1;
            } else {
                here -= grows_at(row_of(i), j - 1);
                above -= grows_at(row_of(i - 1), j - 1);
                j -= 1;
                continue;
            }
            if i > base && j > 0 {
                above = zeros_before(row_of(i - 1), j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Perl procedure as ROUGE-1.5.5 writes it: the whole table, 4 bytes a cell, then the
    /// back-trace. The oracle the bit rows are checked against.
    fn mark_lcs_with_table(model: &[u32], peer: &[u32], marked: &mut [bool]) {
        let (m, n) = (model.len(), peer.len());
        let width = n + 1;
        let mut table = vec![0u32; (m + 1) * width];
        for i in 1..=m {
            for j in 1..=n {
                table[i * width + j] = if model[i - 1] == peer[j - 1] {
                    table[(i - 1) * width + j - 1] + 1
                } else {
                    table[(i - 1) * width + j].max(table[i * width + j - 1])
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

    fn marked_by_bit_rows(model: &[u32], peer: &[u32], scratch: &mut LcsScratch) -> Vec<bool> {
        let mut marked = vec![false; model.len()];
        mark_lcs(
            model,
            peer,
            &TokenPositions::new(peer),
            &mut marked,
            scratch,
        );
        marked
    }

    #[test]
    fn lcs_tie_breaking_follows_the_perl_backtrace() {
        // Model "a b", peer "b a": LCS length 1, two choices. The Perl trace starts at (2,2):
        // no match, up (c[1][2]=1) >= left (c[2][1]=1) → go up to (1,2), a match: model "a".
        let mut scratch = LcsScratch::default();
        assert_eq!(
            marked_by_bit_rows(&[1, 2], &[2, 1], &mut scratch),
            [true, false]
        );
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

    /// The bit rows mark the positions the whole table marks, position for position, and
    /// their length is the number marked: lengths from 1 to 300 cover one to five 64-bit
    /// words, one block or many (and blocks cut short at the first row), small alphabets
    /// many ties, and one pair of 2,500 tokens each; one scratch serves every pair, as it does
    /// for a text.
    #[test]
    fn bit_rows_mark_what_the_whole_table_marks() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let mut scratch = LcsScratch::default();
        for round in 0..600 {
            let m = 1 + (round * 13) % 300;
            let n = 1 + (round * 7) % 300;
            let alphabet = 2 + (round % 12) as u64;
            let a = pseudo_random_tokens(&mut seed, m, alphabet);
            let b = pseudo_random_tokens(&mut seed, n, alphabet);
            let mut want = vec![false; m];
            mark_lcs_with_table(&a, &b, &mut want);
            assert_eq!(
                marked_by_bit_rows(&a, &b, &mut scratch),
                want,
                "round {round}"
            );
            let length = want.iter().filter(|&&x| x).count() as u32;
            let positions = TokenPositions::new(&b);
            assert_eq!(
                lcs_length(&a, &positions, &mut scratch),
                length,
                "round {round}"
            );
        }
        let positions = TokenPositions::new(&[1, 2, 3]);
        assert_eq!(lcs_length(&[4, 5], &positions, &mut scratch), 0);
        assert_eq!(lcs_length(&[], &positions, &mut scratch), 0);
        assert_eq!(
            marked_by_bit_rows(&[], &[1], &mut scratch),
            Vec::<bool>::new()
        );
        assert_eq!(marked_by_bit_rows(&[1], &[], &mut scratch), [false]);
        // 2,500 × 2,500: 50 blocks of 50 rows, 40 words a row.
        let a = pseudo_random_tokens(&mut seed, 2_500, 300);
        let b = pseudo_random_tokens(&mut seed, 2_500, 300);
        let mut want = vec![false; a.len()];
        mark_lcs_with_table(&a, &b, &mut want);
        assert_eq!(marked_by_bit_rows(&a, &b, &mut scratch), want);
    }

    /// A sentence of 16,000 tokens against another as long: the whole table would take 1 GB;
    /// the bit rows kept are about 2√m, 500 kB here, and the marks are a common subsequence
    /// of the LCS's length.
    #[test]
    fn long_sentences_keep_about_two_root_m_bit_rows() {
        let mut seed = 0x2545_f491_4f6c_dd1d;
        let model = pseudo_random_tokens(&mut seed, 16_000, 500);
        let peer = pseudo_random_tokens(&mut seed, 16_000, 500);
        let mut scratch = LcsScratch::default();
        let marked = marked_by_bit_rows(&model, &peer, &mut scratch);
        let words = peer.len().div_ceil(64);
        let rows_kept = (scratch.checkpoints.len() + scratch.block.len()) / words;
        assert!(
            rows_kept <= 2 * model.len().isqrt() + 3,
            "{rows_kept} rows kept"
        );
        let length = lcs_length(&model, &TokenPositions::new(&peer), &mut scratch);
        assert!(length > 1_000, "LCS {length}");
        let chosen: Vec<u32> = model
            .iter()
            .zip(&marked)
            .filter(|(_, &m)| m)
            .map(|(&t, _)| t)
            .collect();
        assert_eq!(chosen.len() as u32, length);
        // The chosen tokens occur in the peer in order.
        let mut rest = peer.iter();
        assert!(chosen.iter().all(|t| rest.any(|p| p == t)));
    }
}
