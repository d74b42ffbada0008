//! The `rouge_extended` feature class: ROUGE-3, ROUGE-4, ROUGE-W-1.2, ROUGE-S* and ROUGE-SU*,
//! the rest of what ROUGE-1.5.5 prints when run as DUC ran it (`-n 4 -w 1.2 -2 4 -u`) or as
//! pyrouge runs it by default (`-n 4 -w 1.2 -2 -1 -U`); the `rouge` class has ROUGE-1, -2, -L
//! and -SU4.
//!
//! Why a class of its own: the `rouge` class's twelve columns are in every built-in model and
//! every feature file; these nine are asked for when a study reports DUC's full table or
//! compares with it, so they are computed only when named (`--classes rouge,rouge_extended`).
//! Both classes read the same `--rouge-…` options and share the topic's prepared texts.
//!
//! ROUGE-3 and -4 are ROUGE-1.5.5's n-gram scores (over the whole text, sentences joined, hits
//! clipped per reference; mode B picks by recall printed to 5 decimals). ROUGE-W is its weighted
//! LCS, reproduced with its quirks in `rouge/wlcs.rs`. ROUGE-S* counts every ordered pair of
//! tokens at any distance (`-2 -1`), ROUGE-SU* adds the unigrams of every token but the last,
//! as ROUGE-SU4 does; their pairs are counted only over the tokens the two texts share (a pair
//! with another token cannot hit), so memory grows with the shared tokens, not the whole texts.

use super::wlcs::{weight, weight_inverse, wlcs_counts, WlcsCounts};
use super::{
    combine, f_measure, jackknifed, measure_columns, prepared_references, prepared_summaries,
    ratio, values_of, Counts, Grams, MeasureKind, MultiRefMode, PreparedText, Prf, RougeOptions,
    OPTIONS,
};
use crate::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};
use rustc_hash::FxBuildHasher;
use std::collections::{HashMap, HashSet};

/// Measure names in output order; each gives `_recall`, `_precision` and `_f` columns.
pub const MEASURES: &[&str] = &["r3", "r4", "w", "s_star", "su_star"];

/// One text's 3-grams and 4-grams, four token ids packed in a key.
struct LongGrams {
    trigrams: Grams<u128>,
    fourgrams: Grams<u128>,
}

fn ngram_counts(ids: &[u32], n: usize) -> Grams<u128> {
    let mut grams = Grams::with_capacity(ids.len());
    for gram in ids.windows(n) {
        grams.add(
            gram.iter()
                .fold(0u128, |key, &id| key << 32 | u128::from(id)),
        );
    }
    grams
}

impl LongGrams {
    fn new(text: &PreparedText) -> LongGrams {
        LongGrams {
            trigrams: ngram_counts(&text.ids, 3),
            fourgrams: ngram_counts(&text.ids, 4),
        }
    }
}

/// The counts of the three measures for one peer/reference pair.
#[derive(Debug, Clone, Copy)]
struct ExtendedCounts {
    rouge3: Counts,
    rouge4: Counts,
    rouge_w: WlcsCounts,
    rouge_s_star: Counts,
    rouge_su_star: Counts,
}

fn ngram_pair(reference: &Grams<u128>, peer: &Grams<u128>) -> Counts {
    Counts {
        hits: reference.clipped_hits(peer),
        reference_total: reference.total,
        peer_total: peer.total,
    }
}

/// ROUGE-W of counts against several references, as `computeWLCSScore` combines them: mode A
/// sums hits, f(base) and f(peer tokens) over the references; mode B keeps the reference with
/// the best unrounded score, the first on ties.
fn combine_wlcs(counts: &[WlcsCounts], mode: MultiRefMode) -> Prf {
    let chosen: Vec<&WlcsCounts> = match mode {
        MultiRefMode::Average => counts.iter().collect(),
        MultiRefMode::Best => {
            let mut best: Option<&WlcsCounts> = None;
            let mut best_score = -1.0;
            for c in counts {
                let score = c.recall_against_this_reference();
                if score > best_score {
                    best_score = score;
                    best = Some(c);
                }
            }
            best.into_iter().collect()
        }
    };
    let (mut hits, mut reference_total, mut peer_total) = (0.0, 0.0, 0.0);
    for c in chosen {
        hits += c.hits;
        reference_total += weight(c.reference_base);
        peer_total += weight(f64::from(c.peer_tokens));
    }
    let recall = weight_inverse(ratio(hits, reference_total));
    let precision = weight_inverse(ratio(hits, peer_total));
    Prf {
        recall,
        precision,
        f: f_measure(recall, precision),
    }
}

/// Clipped unigram hits of two token sequences.
fn clipped_unigram_hits(first: &[u32], second: &[u32]) -> u32 {
    let mut left: Grams<u32> = Grams::default();
    for &id in first {
        left.add(id);
    }
    let mut hits = 0;
    for id in second {
        if let Some(n) = left.counts.get_mut(id) {
            if *n > 0 {
                *n -= 1;
                hits += 1;
            }
        }
    }
    hits
}

/// Clipped hits of the skip-bigrams at any distance of two sequences over `types` token types
/// (ids 0..types): Σ over pairs (a, b) of min(count in `first`, count in `second`).
///
/// Why not a map of pairs: a text of n tokens has n(n − 1)/2 of them. For each first token a,
/// one pass over each sequence counts the pairs (a, b) for every b (at position j, the a's seen
/// before it), in arrays of `types` counts: time O(types · (n + m)), memory O(types).
fn skip_pair_hits(first: &[u32], second: &[u32], types: usize) -> u64 {
    let count_after = |sequence: &[u32], a: u32, counts: &mut [u64]| {
        let mut seen = 0u64;
        for &b in sequence {
            counts[b as usize] += seen;
            seen += u64::from(b == a);
        }
    };
    let (mut in_first, mut in_second) = (vec![0u64; types], vec![0u64; types]);
    let mut hits = 0;
    for a in (0..types).filter_map(|a| u32::try_from(a).ok()) {
        in_first.fill(0);
        in_second.fill(0);
        count_after(first, a, &mut in_first);
        count_after(second, a, &mut in_second);
        hits += in_first
            .iter()
            .zip(&in_second)
            .map(|(&x, &y)| x.min(y))
            .sum::<u64>();
    }
    hits
}

/// All tokens but the last: those that start a unit of ROUGE-1.5.5's skip-bigram loop.
fn but_last(ids: &[u32]) -> &[u32] {
    &ids[..ids.len().saturating_sub(1)]
}

/// ROUGE-S* and ROUGE-SU* counts of `peer` against `reference` (their n-gram token ids).
/// Totals past 2^32 − 1 units (a text of over 92,000 tokens) saturate.
fn skip_star_pair(peer: &[u32], reference: &[u32]) -> (Counts, Counts) {
    // A pair holding a token the other text lacks cannot hit: only the shared tokens are kept,
    // renumbered 0..types.
    let in_peer: HashSet<u32, FxBuildHasher> = peer.iter().copied().collect();
    let mut dense: HashMap<u32, u32, FxBuildHasher> = HashMap::default();
    for &id in reference {
        if in_peer.contains(&id) {
            let next = u32::try_from(dense.len()).unwrap_or(u32::MAX);
            dense.entry(id).or_insert(next);
        }
    }
    let shared =
        |ids: &[u32]| -> Vec<u32> { ids.iter().filter_map(|id| dense.get(id).copied()).collect() };
    let pair_hits = skip_pair_hits(&shared(peer), &shared(reference), dense.len());
    // SU*'s unigrams: every token but the last (ROUGE-1.5.5's loop stops before it).
    let unigram_hits = u64::from(clipped_unigram_hits(but_last(reference), but_last(peer)));
    let saturated = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    let pairs_of = |n: usize| (n as u64) * (n as u64).saturating_sub(1) / 2;
    let unigrams_of = |n: usize| (n as u64).saturating_sub(1);
    let (n_peer, n_reference) = (peer.len(), reference.len());
    let s_star = Counts {
        hits: saturated(pair_hits),
        reference_total: saturated(pairs_of(n_reference)),
        peer_total: saturated(pairs_of(n_peer)),
    };
    let su_star = Counts {
        hits: saturated(pair_hits + unigram_hits),
        reference_total: saturated(pairs_of(n_reference) + unigrams_of(n_reference)),
        peer_total: saturated(pairs_of(n_peer) + unigrams_of(n_peer)),
    };
    (s_star, su_star)
}

fn combine_extended(pairs: &[ExtendedCounts], mode: MultiRefMode) -> [Prf; 5] {
    let pick = |f: fn(&ExtendedCounts) -> Counts| pairs.iter().map(f).collect::<Vec<_>>();
    let wlcs: Vec<WlcsCounts> = pairs.iter().map(|p| p.rouge_w).collect();
    [
        combine(&pick(|p| p.rouge3), mode, MeasureKind::NGram),
        combine(&pick(|p| p.rouge4), mode, MeasureKind::NGram),
        combine_wlcs(&wlcs, mode),
        combine(&pick(|p| p.rouge_s_star), mode, MeasureKind::NGram),
        combine(&pick(|p| p.rouge_su_star), mode, MeasureKind::NGram),
    ]
}

/// The `rouge_extended` feature class.
pub struct RougeExtended {
    opts: RougeOptions,
}

impl RougeExtended {
    pub fn new(opts: RougeOptions) -> RougeExtended {
        RougeExtended { opts }
    }
}

/// The `rouge_extended` class in the [registry](crate::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "rouge_extended",
    about: "ROUGE-1.5.5's ROUGE-3, -4, -W-1.2, -S* and -SU* against the references",
    default: false,
    references: ReferenceUse::All,
    batch_dependent: false,
    options: OPTIONS,
    partial_options: &[],
    build: |o| Ok(Box::new(RougeExtended::new(o.rouge.clone()))),
};

impl FeatureClass for RougeExtended {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }

    fn feature_names(&self) -> Vec<String> {
        measure_columns(CLASS.name, MEASURES)
    }

    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        if ctx.topic.references.is_empty() {
            return vec![None; ctx.topic.summaries.len()];
        }
        let references = prepared_references(ctx, &self.opts);
        let references = references.references();
        let reference_grams: Vec<LongGrams> = references.iter().map(LongGrams::new).collect();
        let summaries = prepared_summaries(ctx, &self.opts);
        // A human summary against the others of its references is already jackknifed.
        let jackknife = self.opts.jackknife && !ctx.references_left_out;
        summaries
            .iter()
            .map(|peer| {
                let peer_grams = LongGrams::new(peer);
                let pairs: Vec<ExtendedCounts> = references
                    .iter()
                    .zip(&reference_grams)
                    .map(|(reference, grams)| {
                        let (s_star, su_star) = skip_star_pair(&peer.ids, &reference.ids);
                        ExtendedCounts {
                            rouge3: ngram_pair(&grams.trigrams, &peer_grams.trigrams),
                            rouge4: ngram_pair(&grams.fourgrams, &peer_grams.fourgrams),
                            rouge_w: wlcs_counts(peer, reference),
                            rouge_s_star: s_star,
                            rouge_su_star: su_star,
                        }
                    })
                    .collect();
                let measures = if jackknife {
                    jackknifed(&pairs, |subset| combine_extended(subset, self.opts.mode))
                } else {
                    combine_extended(&pairs, self.opts.mode)
                };
                Some(values_of(&measures))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{close, plain, row_of};
    use super::*;
    use aesop_corpus::{Reference, Summary, Topic};

    fn row(reference: &str, summary: &str, opts: RougeOptions) -> Vec<f64> {
        row_of(&RougeExtended::new(opts), &[reference], summary)
    }

    #[test]
    fn feature_names_in_order() {
        let names = RougeExtended::new(RougeOptions::default()).feature_names();
        assert_eq!(names.len(), 15);
        assert_eq!(names[0], "rouge_extended.r3_recall");
        assert_eq!(names[5], "rouge_extended.r4_f");
        assert_eq!(names[8], "rouge_extended.w_f");
        assert_eq!(names[9], "rouge_extended.s_star_recall");
        assert_eq!(names[14], "rouge_extended.su_star_f");
    }

    #[test]
    fn trigrams_and_fourgrams_on_tiny_texts() {
        // Reference "a b c d e": trigrams abc bcd cde, 4-grams abcd bcde. Peer "a b c d x":
        // trigrams abc bcd cdx (2 hits), 4-grams abcd bcdx (1 hit).
        let values = row("a b c d e", "a b c d x", plain());
        assert!(close(values[0], 2.0 / 3.0) && close(values[1], 2.0 / 3.0));
        assert!(close(values[3], 0.5) && close(values[4], 0.5));
        // Shorter than n: no units, every value 0.
        let values = row("a b c d e", "a b", plain());
        assert_eq!(&values[..6], &[0.0; 6]);
    }

    #[test]
    fn rouge_w_by_hand() {
        // One sentence each. Reference "a b c d e" (5 tokens), peer "a b x d e" (5 tokens): the
        // WLCS marks a b (run 2) and d e (run 2): hits 2·2^1.2. Base 5^1.2, recall denominator
        // f(base) = 5^1.44; precision denominator 5^1.2.
        let values = row("a b c d e", "a b x d e", plain());
        let hits = 2.0 * 2f64.powf(1.2);
        let recall = (hits / 5f64.powf(1.2).powf(1.2)).powf(1.0 / 1.2);
        let precision = (hits / 5f64.powf(1.2)).powf(1.0 / 1.2);
        assert!(close(values[6], recall), "{} {recall}", values[6]);
        assert!(close(values[7], precision), "{} {precision}", values[7]);
        assert!(close(
            values[8],
            2.0 * recall * precision / (recall + precision)
        ));
    }

    #[test]
    fn skip_bigrams_at_any_distance_by_hand() {
        // Reference "a b c a" (4 tokens: 6 pairs ab ac aa bc ba ca), peer "a c b" (3 pairs ac ab
        // cb): hits ab, ac = 2. S*: recall 2/6, precision 2/3. SU* adds the unigrams of all
        // tokens but the last: reference a b c, peer a c: hits 2; recall 4/9, precision 4/5.
        let values = row("a b c a", "a c b", plain());
        assert!(close(values[9], 2.0 / 6.0) && close(values[10], 2.0 / 3.0));
        assert!(close(values[12], 4.0 / 9.0) && close(values[13], 4.0 / 5.0));
        // Repeated pairs clip: reference "a b a b" holds ab three times (0-1, 0-3, 2-3), peer
        // "a b" once.
        let values = row("a b a b", "a b", plain());
        assert!(close(values[9], 1.0 / 6.0) && close(values[10], 1.0));
    }

    #[test]
    fn a_clipped_token_does_not_end_its_run() {
        // Reference sentences "a b" and "c a d", peer "c a d b" (one "a"). The first sentence
        // marks a b (consecutive in the reference: a run of 2) and uses up the peer's "a"; the
        // second marks c a d, its "a" is clipped and skipped, and c d count as one run of 2
        // (as the Perl counts them), not two of 1. Hits 2·2^1.2, base 2^1.2 + 3^1.2.
        let values = row("a b\nc a d", "c a d b", plain());
        let hits = 2.0 * 2f64.powf(1.2);
        let base = 2f64.powf(1.2) + 3f64.powf(1.2);
        let recall = (hits / base.powf(1.2)).powf(1.0 / 1.2);
        let precision = (hits / 4f64.powf(1.2)).powf(1.0 / 1.2);
        assert!(close(values[6], recall), "{} {recall}", values[6]);
        assert!(close(values[7], precision), "{} {precision}", values[7]);
    }

    #[test]
    fn mode_b_takes_the_reference_with_the_best_weighted_score() {
        let mut topic = Topic::new("t");
        topic.summaries.push(Summary::new("s", "a b c d"));
        topic.references.push(Reference::new("r1", "x y z a"));
        topic.references.push(Reference::new("r2", "a b c q"));
        let ctx = TopicContext::new(&topic);
        let best = RougeOptions {
            mode: MultiRefMode::Best,
            ..plain()
        };
        let both = RougeExtended::new(best).extract(&ctx)[0]
            .clone()
            .expect("a row");
        let second = row("a b c q", "a b c d", plain());
        assert_eq!(both, second);
        let pooled = RougeExtended::new(plain()).extract(&ctx)[0]
            .clone()
            .expect("a row");
        assert!(pooled[6] < second[6]);
    }

    #[test]
    fn jackknife_averages_the_leave_one_out_subsets() {
        let mut topic = Topic::new("t");
        topic.summaries.push(Summary::new("s", "a b c d e"));
        for (id, text) in [("r1", "a b c d"), ("r2", "b c d e"), ("r3", "x a b c")] {
            topic.references.push(Reference::new(id, text));
        }
        let ctx = TopicContext::new(&topic);
        let jackknifed = RougeExtended::new(RougeOptions {
            jackknife: true,
            ..plain()
        })
        .extract(&ctx)[0]
            .clone()
            .expect("a row");
        let subset = |left_out: usize| {
            let mut t = Topic::new("t");
            t.summaries.push(topic.summaries[0].clone());
            for (i, r) in topic.references.iter().enumerate() {
                if i != left_out {
                    t.references.push(r.clone());
                }
            }
            let ctx = TopicContext::new(&t);
            RougeExtended::new(plain()).extract(&ctx)[0]
                .clone()
                .expect("a row")
        };
        let subsets: Vec<Vec<f64>> = (0..3).map(subset).collect();
        for (c, value) in jackknifed.iter().enumerate() {
            let mean = subsets.iter().map(|s| s[c]).sum::<f64>() / 3.0;
            assert!(close(*value, mean), "column {c}: {value} {mean}");
        }
    }

    #[test]
    fn rows_none_without_references_and_zero_for_an_empty_summary() {
        let mut topic = Topic::new("t");
        topic.summaries.push(Summary::new("s", "a b"));
        let ctx = TopicContext::new(&topic);
        assert_eq!(RougeExtended::new(plain()).extract(&ctx), vec![None]);
        assert_eq!(row("a b c d", "", plain()), vec![0.0; 15]);
        assert_eq!(row("", "a b c d", plain()), vec![0.0; 15]);
    }
}
