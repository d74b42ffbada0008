//! ROUGE-W: ROUGE-1.5.5's weighted longest common subsequence (`-w 1.2`), which rewards
//! consecutive matches: a run of k matched tokens counts k^1.2, not k.
//!
//! Followed step by step from the Perl (`wlcs`, `wlcs_inner`, `markLCS`, `computeWLCSScore`),
//! including what it does that a reader might not expect:
//! - the table is the Perl's: on a match the cell extends the run of the cell up-left,
//!   `c + f(k+1) − f(k)`; otherwise up when the cell above is at least the cell to the left (as
//!   floating-point numbers, so ties fall where the Perl's fall);
//! - each reference sentence is marked against every peer sentence (marks accumulate), then its
//!   marked tokens are read left to right: a marked token whose unigram is used up in either
//!   text (the clipping ROUGE-L has) is skipped without ending the run it sits in, and a run is
//!   counted when the next token is unmarked or the sentence ends;
//! - a reference's base is Σ f(sentence length), and the recall denominator is f of that sum
//!   (f applied twice); the precision denominator is f(peer tokens);
//! - recall and precision are f⁻¹ of hits over those denominators.
//!
//! Memory: the table has a cell per token pair. Tables up to [`ALL_CELLS`] cells are kept whole;
//! beyond, only every k-th row (k ≈ √m) is kept and the back-trace rebuilds one block of rows
//! at a time, as ROUGE-L's [`super::lcs`] does.

use super::lcs::SentencesByToken;
use super::PreparedText;
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// ROUGE's `-w` weighting factor: ROUGE-W-1.2, the weight DUC's runs used.
pub(super) const WEIGHT: f64 = 1.2;

/// Past this many cells (4 MB of moves), [`mark_wlcs`] keeps about 2√m rows of its table.
const ALL_CELLS: usize = 1 << 22;

/// ROUGE's `wlcsWeight`: f(r) = r^1.2.
pub(super) fn weight(r: f64) -> f64 {
    r.powf(WEIGHT)
}

/// ROUGE's `wlcsWeightInverse`: f⁻¹(r) = r^(1/1.2).
pub(super) fn weight_inverse(r: f64) -> f64 {
    r.powf(1.0 / WEIGHT)
}

/// ROUGE-W's counts for one peer/reference pair.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WlcsCounts {
    /// Σ f(run length) over the runs of marked, unclipped reference tokens.
    pub hits: f64,
    /// Σ f(length) over the reference's sentences.
    pub reference_base: f64,
    /// The peer's tokens (its n-gram reading, as ROUGE-L's precision counts them).
    pub peer_tokens: u32,
}

impl WlcsCounts {
    /// The reference's own score, by which mode B picks the best reference: f⁻¹(hits / base),
    /// unrounded (0 for a reference without tokens, where ROUGE-1.5.5 stops on a division by
    /// zero).
    pub(super) fn recall_against_this_reference(&self) -> f64 {
        if self.reference_base > 0.0 {
            weight_inverse(self.hits / self.reference_base)
        } else {
            0.0
        }
    }
}

/// One cell of the Perl table: the weighted length so far and the run of consecutive matches
/// ending here.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    weighted: f64,
    run: u32,
}

/// Which way the Perl back-trace leaves a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    Diagonal,
    Up,
    Left,
}

/// Rows kept by [`mark_wlcs`], reused from one sentence pair to the next.
#[derive(Debug, Default)]
pub(super) struct WlcsScratch {
    /// Rows 0, k, 2k, … of the forward pass.
    checkpoints: Vec<Cell>,
    /// The row being computed from the one before.
    row: Vec<Cell>,
    next: Vec<Cell>,
    /// The moves of the rows of the block being traced back, n a row.
    moves: Vec<Move>,
}

/// The row of `token` (`current`, n + 1 cells) from the row before it (`previous`), as the
/// Perl fills it; each cell's move is passed to `moved`.
fn advance(
    previous: &[Cell],
    current: &mut [Cell],
    token: u32,
    peer: &[u32],
    mut moved: impl FnMut(Move),
) {
    current[0] = Cell::default();
    for (j, &other) in (1..).zip(peer) {
        if token == other {
            let k = previous[j - 1].run;
            current[j] = Cell {
                weighted: previous[j - 1].weighted + weight(f64::from(k + 1))
                    - weight(f64::from(k)),
                run: k + 1,
            };
            moved(Move::Diagonal);
        } else if previous[j].weighted >= current[j - 1].weighted {
            current[j] = Cell {
                weighted: previous[j].weighted,
                run: 0,
            };
            moved(Move::Up);
        } else {
            current[j] = Cell {
                weighted: current[j - 1].weighted,
                run: 0,
            };
            moved(Move::Left);
        }
    }
}

/// Mark in `marked` the positions of `model` on the Perl's weighted LCS with `peer`.
pub(super) fn mark_wlcs(
    model: &[u32],
    peer: &[u32],
    marked: &mut [bool],
    scratch: &mut WlcsScratch,
) {
    mark_wlcs_keeping(model, peer, marked, scratch, ALL_CELLS);
}

/// [`mark_wlcs`], keeping whole the tables of up to `all_cells` cells (tests pass 0 to trace
/// small tables block by block).
fn mark_wlcs_keeping(
    model: &[u32],
    peer: &[u32],
    marked: &mut [bool],
    scratch: &mut WlcsScratch,
    all_cells: usize,
) {
    let (m, n) = (model.len(), peer.len());
    if m == 0 || n == 0 {
        return;
    }
    let stride = if m * n <= all_cells {
        m
    } else {
        m.isqrt().max(1)
    };
    let WlcsScratch {
        checkpoints,
        row,
        next,
        moves,
    } = scratch;
    checkpoints.clear();
    checkpoints.reserve_exact((m / stride + 1) * (n + 1));
    checkpoints.resize(n + 1, Cell::default());
    if stride < m {
        row.clear();
        row.resize(n + 1, Cell::default());
        next.clear();
        next.resize(n + 1, Cell::default());
        for (i, &token) in (1..).zip(model) {
            advance(row, next, token, peer, |_| {});
            std::mem::swap(row, next);
            if i % stride == 0 {
                checkpoints.extend_from_slice(row);
            }
        }
    }
    let (mut i, mut j) = (m, n);
    while i > 0 && j > 0 {
        // Rebuild rows base + 1..=i from the checkpoint at `base`, keeping their moves.
        let base = (i - 1) / stride * stride;
        let start = base / stride * (n + 1);
        row.clear();
        row.extend_from_slice(&checkpoints[start..start + n + 1]);
        next.clear();
        next.resize(n + 1, Cell::default());
        moves.clear();
        for &token in &model[base..i] {
            advance(row, next, token, peer, |step| moves.push(step));
            std::mem::swap(row, next);
        }
        while i > base && j > 0 {
            match moves[(i - base - 1) * n + j - 1] {
                Move::Diagonal => {
                    i -= 1;
                    j -= 1;
                    marked[i] = true;
                }
                Move::Up => i -= 1,
                Move::Left => j -= 1,
            }
        }
    }
}

/// ROUGE-1.5.5's ROUGE-W counts of `peer` against `reference`.
pub(super) fn wlcs_counts(peer: &PreparedText, reference: &PreparedText) -> WlcsCounts {
    let mut scratch = WlcsScratch::default();
    let by_token = SentencesByToken::new(&peer.sentences);
    let mut candidates = Vec::new();
    // Occurrences of a token already counted, in both texts at once (ROUGE decrements the
    // reference and peer unigram counts together).
    let mut used: HashMap<u32, u32, FxBuildHasher> = HashMap::default();
    let (mut hits, mut reference_base) = (0.0, 0.0);
    for model in &reference.sentences {
        reference_base += weight(model.len() as f64);
        let mut marked = vec![false; model.len()];
        // A peer sentence sharing no token with the model marks nothing, and identical ones
        // mark alike: only the others are traced.
        by_token.sharing_a_token(model, &mut candidates);
        for &s in &candidates {
            mark_wlcs(model, &peer.sentences[s], &mut marked, &mut scratch);
        }
        let mut run = 0u32;
        for (position, &token) in model.iter().enumerate() {
            if !marked[position] {
                continue;
            }
            let key = u64::from(token);
            let consumed = used.entry(token).or_insert(0);
            if reference.unigrams.count(key) > *consumed && peer.unigrams.count(key) > *consumed {
                *consumed += 1;
                run += 1;
                let run_ends = position + 1 == model.len() || !marked[position + 1];
                if run_ends {
                    hits += weight(f64::from(run));
                    run = 0;
                }
            }
        }
    }
    WlcsCounts {
        hits,
        reference_base,
        peer_tokens: peer.unigrams.total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Perl procedure as ROUGE-1.5.5 writes it: the whole table, then the back-trace.
    fn marked_by_whole_table(model: &[u32], peer: &[u32]) -> Vec<bool> {
        let (m, n) = (model.len(), peer.len());
        let mut c = vec![vec![0.0f64; n + 1]; m + 1];
        let mut l = vec![vec![0u32; n + 1]; m + 1];
        let mut b = vec![vec![' '; n + 1]; m + 1];
        for i in 1..=m {
            for j in 1..=n {
                if model[i - 1] == peer[j - 1] {
                    let k = l[i - 1][j - 1];
                    c[i][j] = c[i - 1][j - 1] + weight(f64::from(k + 1)) - weight(f64::from(k));
                    b[i][j] = '\\';
                    l[i][j] = k + 1;
                } else if c[i - 1][j] >= c[i][j - 1] {
                    c[i][j] = c[i - 1][j];
                    b[i][j] = '^';
                } else {
                    c[i][j] = c[i][j - 1];
                    b[i][j] = '<';
                }
            }
        }
        let mut marked = vec![false; m];
        let (mut i, mut j) = (m, n);
        while i != 0 && j != 0 {
            match b[i][j] {
                '\\' => {
                    i -= 1;
                    j -= 1;
                    marked[i] = true;
                }
                '^' => i -= 1,
                _ => j -= 1,
            }
        }
        marked
    }

    fn marked(model: &[u32], peer: &[u32], all_cells: usize) -> Vec<bool> {
        let mut marked = vec![false; model.len()];
        let mut scratch = WlcsScratch::default();
        mark_wlcs_keeping(model, peer, &mut marked, &mut scratch, all_cells);
        marked
    }

    #[test]
    fn weights_are_rouge_w_1_2() {
        assert_eq!(weight(0.0), 0.0);
        assert_eq!(weight(1.0), 1.0);
        assert!((weight(2.0) - 2f64.powf(1.2)).abs() < 1e-15);
        assert!((weight_inverse(weight(3.0)) - 3.0).abs() < 1e-12);
    }

    #[test]
    fn consecutive_matches_outweigh_scattered_ones() {
        // Model "a b x c d", peer "c d a y b": two common subsequences of length 2. "a b" is
        // consecutive in the model only (1 + 1 = 2), "c d" in both (2^1.2 ≈ 2.30): ROUGE-W takes
        // "c d".
        let (a, b, x, c, d, y) = (1, 2, 3, 4, 5, 6);
        assert_eq!(
            marked(&[a, b, x, c, d], &[c, d, a, y, b], ALL_CELLS),
            [false, false, false, true, true]
        );
        // Model "a b", peer "b a": one match either way; the trace goes up first (as the Perl),
        // marking "a".
        assert_eq!(marked(&[a, b], &[b, a], ALL_CELLS), [true, false]);
    }

    #[test]
    fn blocks_mark_as_the_whole_table() {
        // Seeded pseudo-random sentences over a small vocabulary, so that runs, ties and repeats
        // are frequent.
        let mut rng = aesop_core::rng::SplitMix64::new(7);
        let mut next = |bound: usize| u32::try_from(rng.below(bound)).expect("a small bound");
        for _ in 0..300 {
            let m = 1 + next(40) as usize;
            let n = 1 + next(40) as usize;
            let vocabulary = 2 + next(6) as usize;
            let model: Vec<u32> = (0..m).map(|_| next(vocabulary)).collect();
            let peer: Vec<u32> = (0..n).map(|_| next(vocabulary)).collect();
            let oracle = marked_by_whole_table(&model, &peer);
            assert_eq!(
                marked(&model, &peer, ALL_CELLS),
                oracle,
                "{model:?} {peer:?}"
            );
            assert_eq!(
                marked(&model, &peer, 0),
                oracle,
                "blocks: {model:?} {peer:?}"
            );
        }
    }
}
