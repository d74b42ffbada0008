//! ROUGE-L's longest common subsequences: ROUGE-1.5.5's summary-level union LCS (each reference
//! sentence against every peer sentence, positions marked as the Perl back-trace marks them).
//!
//! Why bit-parallel: the Perl dynamic program keeps a table of m × n cells; at 4 bytes a cell,
//! one sentence of 16,000 tokens against another took 1 GB. Here a table row is a bit vector
//! (Allison & Dix, Hyyrö: a cell's value is the count of zero bits before it), built from the
//! token's positions in the other sentence, and only every k-th row (k ≈ √m) is kept: the
//! back-trace rebuilds the rows of one block at a time. Memory is O(√m · n / 64) words and the
//! marked positions are the Perl back-trace's, cell for cell. A reference sentence is traced
//! only against the peer sentences that can mark it (sharing a token, each distinct sentence
//! once), where ROUGE-1.5.5 traces every pair.

use super::{Counts, PreparedText};
use rustc_hash::FxBuildHasher;
use std::collections::{HashMap, HashSet};

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
        // ROUGE-L's recall counts the reference's sentence tokens, its precision the peer's
        // n-gram tokens: the same but under a byte limit.
        reference_total: reference.sentence_tokens,
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
    let by_token = SentencesByToken::new(&peer.sentences);
    let mut candidates = Vec::new();
    // How many occurrences of a token one LCS hit has already consumed, in both texts at once
    // (ROUGE decrements the reference and peer unigram counts together).
    let mut used: HashMap<u32, u32, FxBuildHasher> = HashMap::default();
    let mut hits = 0;
    for model in &reference.sentences {
        let mut marked = vec![false; model.len()];
        by_token.sharing_a_token(model, &mut candidates);
        for &s in &candidates {
            let (candidate, positions) = (&peer.sentences[s], &peer.positions[s]);
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

/// The peer sentences that can add marks to a model sentence: those sharing a token with it
/// (an LCS with no common token marks nothing), each distinct sentence once (identical
/// sentences mark identically, and marks only accumulate). ROUGE-1.5.5 traces every pair:
/// 12,000 one-word lines against as many were 144 million back-traces.
pub(super) struct SentencesByToken {
    /// (token, sentence) for each token of each distinct sentence, sorted and deduplicated.
    pairs: Vec<(u32, u32)>,
}

impl SentencesByToken {
    pub(super) fn new(sentences: &[Vec<u32>]) -> SentencesByToken {
        let mut seen: HashSet<&[u32], FxBuildHasher> = HashSet::default();
        let mut pairs = Vec::new();
        for (s, sentence) in (0u32..).zip(sentences) {
            if seen.insert(sentence.as_slice()) {
                pairs.extend(sentence.iter().map(|&token| (token, s)));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        SentencesByToken { pairs }
    }

    /// The sentences sharing a token with `model`, in order, into `out`.
    pub(super) fn sharing_a_token(&self, model: &[u32], out: &mut Vec<usize>) {
        out.clear();
        for &token in model {
            let start = self.pairs.partition_point(|&(t, _)| t < token);
            let with = self.pairs[start..].iter().take_while(|&&(t, _)| t == token);
            out.extend(with.map(|&(_, s)| s as usize));
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// Past this many 64-bit words (512 kB), [`mark_lcs`] keeps every row of its table; beyond,
/// about 2√m rows.
const ALL_ROWS_WORDS: usize = 1 << 16;

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
    mark_lcs_keeping(model, peer, positions, marked, scratch, ALL_ROWS_WORDS);
}

/// [`mark_lcs`], keeping every row of tables up to `all_rows_words` words (tests pass 0 to
/// trace small tables block by block).
fn mark_lcs_keeping(
    model: &[u32],
    peer: &[u32],
    positions: &TokenPositions,
    marked: &mut [bool],
    scratch: &mut LcsScratch,
    all_rows_words: usize,
) {
    let (m, n) = (model.len(), peer.len());
    if m == 0 || n == 0 {
        return;
    }
    let words = n.div_ceil(64);
    if words == 1 && m < all_rows_words {
        mark_lcs_one_word(model, peer, marked, &mut scratch.block);
        return;
    }
    // Rows 0..=m in blocks of `stride`: (m / stride + 1) checkpoints and stride + 1 rows of a
    // block are kept, about 2√m rows in all; a small table is one block, built in one pass.
    let stride = if (m + 1) * words <= all_rows_words {
        m
    } else {
        m.isqrt().max(1)
    };
    scratch.reset_mask(words);
    let LcsScratch {
        mask,
        checkpoints,
        block,
    } = scratch;
    checkpoints.clear();
    checkpoints.resize(words, u64::MAX);
    if stride < m {
        let mut row = checkpoints.clone();
        for (i, &token) in (1..).zip(model) {
            advance_by(&mut row, mask, positions, token);
            if i % stride == 0 {
                checkpoints.extend_from_slice(&row);
            }
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
        (i, j) = trace_rows(model, peer, (block, words, base), (i, j), marked);
    }
}

/// The whole table of a peer sentence of at most 64 tokens, one word a row, each token's mask
/// found by a scan of the peer: most sentence pairs, where the general path's lookups and
/// buffers cost more than the table itself.
fn mark_lcs_one_word(model: &[u32], peer: &[u32], marked: &mut [bool], rows: &mut Vec<u64>) {
    rows.clear();
    let mut row = u64::MAX;
    rows.push(row);
    for &token in model {
        let mask = peer
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p == token)
            .fold(0u64, |mask, (j, _)| mask | 1 << j);
        let u = row & mask;
        row = row.wrapping_add(u) | (row & !u);
        rows.push(row);
    }
    // `trace_rows` on one-word rows, with a cell's value read from its row directly.
    // The zero bits below bit j (j ≤ 64: a shift by 64 would not clear the word).
    let cell = |i: usize, j: usize| {
        let below = u64::MAX.checked_shr(64 - j as u32).unwrap_or(0);
        (!rows[i] & below).count_ones()
    };
    let (mut i, mut j) = (model.len(), peer.len());
    while i > 0 && j > 0 {
        if model[i - 1] == peer[j - 1] {
            marked[i - 1] = true;
            i -= 1;
            j -= 1;
        } else if cell(i - 1, j) >= cell(i, j - 1) {
            i -= 1;
        } else {
            j -= 1;
        }
    }
}

/// The Perl back-trace from cell (i, j) through rows `base..=i` (`rows`, `words` words each,
/// row `base` first), marking the model positions of its matches, until it leaves the rows
/// (row `base`) or column 0: the cell it reached.
fn trace_rows(
    model: &[u32],
    peer: &[u32],
    (rows, words, base): (&[u64], usize, usize),
    (mut i, mut j): (usize, usize),
    marked: &mut [bool],
) -> (usize, usize) {
    let row_of = |r: usize| &rows[(r - base) * words..(r - base + 1) * words];
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
    (i, j)
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

    /// The marks of the bit rows, checked to be the same whether the table is kept whole or
    /// traced block by block.
    fn marked_by_bit_rows(model: &[u32], peer: &[u32], scratch: &mut LcsScratch) -> Vec<bool> {
        let positions = TokenPositions::new(peer);
        let mut marked = vec![false; model.len()];
        mark_lcs(model, peer, &positions, &mut marked, scratch);
        let mut by_blocks = vec![false; model.len()];
        mark_lcs_keeping(model, peer, &positions, &mut by_blocks, scratch, 0);
        assert_eq!(marked, by_blocks, "whole table and blocks differ");
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
        // Peers of one word's length, one bit less and one more (the one-word path's edges).
        for (m, n) in [(64, 64), (70, 64), (64, 63), (5, 64), (64, 65), (1, 64)] {
            for alphabet in [2, 5, 40] {
                let a = pseudo_random_tokens(&mut seed, m, alphabet);
                let b = pseudo_random_tokens(&mut seed, n, alphabet);
                let mut want = vec![false; m];
                mark_lcs_with_table(&a, &b, &mut want);
                assert_eq!(marked_by_bit_rows(&a, &b, &mut scratch), want, "{m} × {n}");
            }
        }
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

    /// The union LCS hits as ROUGE-1.5.5 counts them, tracing every pair of sentences with
    /// the whole table: the oracle for the pruned loop of [`union_lcs_hits`].
    fn union_hits_of_every_pair(reference: &PreparedText, peer: &PreparedText) -> u32 {
        let mut used: HashMap<u32, u32> = HashMap::new();
        let mut hits = 0;
        for model in &reference.sentences {
            let mut marked = vec![false; model.len()];
            for candidate in &peer.sentences {
                mark_lcs_with_table(model, candidate, &mut marked);
            }
            for (&token, _) in model.iter().zip(&marked).filter(|(_, &m)| m) {
                let key = u64::from(token);
                let consumed = used.entry(token).or_insert(0);
                if reference.unigrams.count(key) > *consumed && peer.unigrams.count(key) > *consumed
                {
                    *consumed += 1;
                    hits += 1;
                }
            }
        }
        hits
    }

    /// Skipping the peer sentences that share no token with a reference sentence, and
    /// repeated ones, leaves the hits as they are: 300 random pairs of texts of 1 to 12 lines
    /// (repeated lines, lines sharing no word, a vocabulary of 10 words).
    #[test]
    fn union_hits_skip_only_sentences_that_cannot_mark() {
        let words = [
            "council", "budget", "school", "river", "bridge", "mayor", "voted", "green", "night",
            "train",
        ];
        let opts = super::super::RougeOptions::default();
        let vocabulary = super::super::Vocabulary::default();
        let mut seed = 0x1234_5678_9abc_def1_u64;
        let mut text = |lines: usize| -> String {
            let mut out: Vec<String> = Vec::new();
            for _ in 0..lines {
                let line_words = pseudo_random_tokens(&mut seed, 1 + lines % 7, 10);
                let line: Vec<&str> = line_words.iter().map(|&w| words[w as usize]).collect();
                out.push(line.join(" "));
                if lines.is_multiple_of(3) {
                    out.push(out[0].clone());
                }
            }
            out.join("\n")
        };
        for round in 0..300 {
            let reference = PreparedText::new(&text(1 + round % 12), &opts, &vocabulary);
            let peer = PreparedText::new(&text(1 + (round * 5) % 12), &opts, &vocabulary);
            assert_eq!(
                union_lcs_hits(&reference, &peer),
                union_hits_of_every_pair(&reference, &peer),
                "round {round}"
            );
        }
    }
}
