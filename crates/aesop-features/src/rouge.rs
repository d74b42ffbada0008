//! The `rouge` feature class: ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-SU4, computed exactly as
//! ROUGE-1.5.5 computes them (`-n 2 -2 4 -u`, SPL input: one sentence per line).
//!
//! The consensus class uses peers as pseudo-references through [`PooledNgrams`], which scores
//! every text of a pool against all the others in linear time. A text is tokenized and counted once ([`PreparedText`]); a peer/reference
//! pair is reduced to hit and total counts ([`pair_counts`]); counts against several references
//! are combined by the multi-reference mode ([`combine`]). The feature class scores peers
//! against a [`ReferenceSet`], which indexes a topic's references once so that one lookup per
//! peer unit serves every reference.
//!
//! [`ReferenceSet`] lives in `rouge/reference_set.rs`, [`PooledNgrams`] in `rouge/pooled.rs`,
//! ROUGE-L's LCS (the Perl procedure and the bit-parallel length) in `rouge/lcs.rs`; this file
//! keeps the options, the per-text units, the pair counts, their combination and the class.
//! The optional `rouge_extended` class (ROUGE-3, -4 and -W-1.2 on the same prepared texts) is
//! `rouge/extended.rs`, ROUGE-W's weighted LCS `rouge/wlcs.rs`.
//!
//! ROUGE-1.5.5 details reproduced here (checked against its Perl source and its outputs):
//! - n-grams and skip-bigrams are counted over the whole text (sentences joined), hits are
//!   clipped per reference (min of the two counts);
//! - ROUGE-SU4 counts, for every token but the LAST, its unigram and its skip-bigrams with the
//!   next 5 tokens (so a one-token text has no SU4 units at all);
//! - ROUGE-L is the summary-level union LCS: for each reference sentence, the positions on one
//!   LCS with each peer sentence are marked (ties broken as the Perl back-trace breaks them),
//!   and a marked token counts only while both texts still have an unused occurrence of it;
//!   its precision denominator is the peer's token count (when both texts are one line, as in
//!   SPL summaries, this is exactly the LCS length and a bit-parallel LCS computes it);
//! - mode A pools hits and totals over the references; mode B keeps the reference with the
//!   best recall (for ROUGE-N and -S recall as printed to 5 decimals, the first one on ties);
//! - ROUGE prints recall and precision to 5 decimals and computes F from those printed values
//!   ([`RougeScores::rouge155_printed`]); [`score`] itself returns unrounded values.

pub mod extended;
mod lcs;
mod length_limit;
mod pooled;
mod reference_set;
pub mod rouge_score;
mod wlcs;

pub use pooled::{NgramCounts, PooledNgrams};
pub use reference_set::ReferenceSet;

use lcs::{lcs_counts, TokenPositions};

use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, SharedKey, TopicContext};
use aesop_corpus::Topic;
use aesop_text::profile::{for_each_rouge155_token, Rouge155Options};
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// ROUGE's `-p` alpha: recall and precision weigh the same in F.
const ALPHA: f64 = 0.5;

/// ROUGE-S maximum gap (`-2 4`): at most 4 tokens between the two words of a skip-bigram.
const SKIP_DISTANCE: usize = 4;

/// How scores against several references are combined (ROUGE-1.5.5 `-f`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MultiRefMode {
    /// Model average (ROUGE default `-f A`): pooled hits over pooled counts.
    #[default]
    Average,
    /// Best single reference (`-f B`).
    Best,
}

/// Options of the `rouge` class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RougeOptions {
    pub mode: MultiRefMode,
    /// Score against each leave-one-out subset of the references and average (k ≥ 2).
    pub jackknife: bool,
    /// ROUGE `-m`: WordNet exceptions, then Porter, for tokens longer than 3 characters.
    pub stem: bool,
    /// ROUGE `-s`: drop SMART common words.
    pub remove_stopwords: bool,
    /// ROUGE `-l` / `-b`: only the first words or bytes of each text count (none: all).
    pub limit: Option<LengthLimit>,
}

/// ROUGE-1.5.5's length limits, applied to peers and references alike (`rouge/length_limit.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthLimit {
    /// `-l N`: the first N words (whitespace-separated fields, punctuation included).
    Words(usize),
    /// `-b N`: the first N bytes.
    Bytes(usize),
}

impl Default for RougeOptions {
    /// The feature class defaults: stemming on (as ROUGE is usually run), stopwords kept,
    /// model-average mode, no jackknifing.
    fn default() -> Self {
        RougeOptions {
            mode: MultiRefMode::Average,
            jackknife: false,
            stem: true,
            remove_stopwords: false,
            limit: None,
        }
    }
}

impl RougeOptions {
    fn profile(&self) -> Rouge155Options {
        Rouge155Options {
            remove_stopwords: self.remove_stopwords,
            stem: self.stem,
        }
    }
}

/// Recall, precision and F of one ROUGE measure.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Prf {
    pub recall: f64,
    pub precision: f64,
    pub f: f64,
}

impl Prf {
    /// Recall and precision from counts, F as ROUGE defines it (0 when both are 0).
    pub fn from_counts(hits: f64, reference_total: f64, peer_total: f64) -> Prf {
        let recall = ratio(hits, reference_total);
        let precision = ratio(hits, peer_total);
        Prf {
            recall,
            precision,
            f: f_measure(recall, precision),
        }
    }

    /// The values ROUGE-1.5.5 prints: recall and precision rounded to 5 decimals (as C's
    /// `%.5f` rounds), F computed from those rounded values and rounded in turn.
    pub fn rouge155_printed(&self) -> Prf {
        let recall = round5(self.recall);
        let precision = round5(self.precision);
        Prf {
            recall,
            precision,
            f: round5(f_measure(recall, precision)),
        }
    }
}

/// Recall, precision and F of each measure in turn: a class's feature row.
fn values_of(measures: &[Prf]) -> Vec<f64> {
    measures
        .iter()
        .flat_map(|m| [m.recall, m.precision, m.f])
        .collect()
}

fn ratio(numerator: f64, denominator: f64) -> f64 {
    if denominator != 0.0 {
        numerator / denominator
    } else {
        0.0
    }
}

/// ROUGE's F: `P·R / ((1-α)·P + α·R)`, evaluated in the same order as the Perl so that the
/// printed values agree to the last bit.
fn f_measure(recall: f64, precision: f64) -> f64 {
    let denominator = (1.0 - ALPHA) * precision + ALPHA * recall;
    if denominator > 0.0 {
        (precision * recall) / denominator
    } else {
        0.0
    }
}

/// `x` rounded to 5 decimals exactly as C's `printf("%.5f")` rounds (Rust's formatting rounds
/// the exact binary value the same way, ties to even).
pub fn round5(x: f64) -> f64 {
    format!("{x:.5}").parse().unwrap_or(x)
}

/// ROUGE-1, -2, -L and -SU4 of one summary.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RougeScores {
    pub rouge1: Prf,
    pub rouge2: Prf,
    pub rouge_l: Prf,
    pub rouge_su4: Prf,
}

impl RougeScores {
    /// Every measure as ROUGE-1.5.5 prints it (see [`Prf::rouge155_printed`]).
    pub fn rouge155_printed(&self) -> RougeScores {
        RougeScores {
            rouge1: self.rouge1.rouge155_printed(),
            rouge2: self.rouge2.rouge155_printed(),
            rouge_l: self.rouge_l.rouge155_printed(),
            rouge_su4: self.rouge_su4.rouge155_printed(),
        }
    }

    /// The four measures in feature order.
    fn measures(&self) -> [Prf; 4] {
        [self.rouge1, self.rouge2, self.rouge_l, self.rouge_su4]
    }

    fn from_measures([rouge1, rouge2, rouge_l, rouge_su4]: [Prf; 4]) -> RougeScores {
        RougeScores {
            rouge1,
            rouge2,
            rouge_l,
            rouge_su4,
        }
    }

    /// The 12 values in feature order: R, P, F of ROUGE-1, -2, -L, -SU4.
    pub fn to_vec(&self) -> Vec<f64> {
        values_of(&self.measures())
    }
}

// ---------------------------------------------------------------------------------------------
// Token interning and counting.

/// Token ids for texts that are compared with each other: one per topic ([`topic_vocabulary`]),
/// shared by its references and summaries and by every class that prepares them.
///
/// Why per topic, not per process: a process-wide vocabulary only grew, so a long-lived
/// service or Python process kept every distinct token it had ever seen (the service held 1.7
/// MB more after each request of 23,000 new words, and a request at the body limit could add
/// ~30 MB for good).
#[derive(Debug)]
pub struct Vocabulary {
    ids: RwLock<HashMap<Box<str>, u32, FxBuildHasher>>,
    /// Which vocabulary a [`PreparedText`] was interned with, so texts of two are never
    /// compared (their ids would mean different tokens).
    serial: u64,
}

impl Default for Vocabulary {
    fn default() -> Vocabulary {
        static SERIALS: AtomicU64 = AtomicU64::new(1);
        Vocabulary {
            ids: RwLock::default(),
            serial: SERIALS.fetch_add(1, Ordering::Relaxed),
        }
    }
}

impl Vocabulary {
    /// Ids of the tokens of `tokens` (one after another; `ends[i]` is where token i ends),
    /// adding unseen tokens.
    fn intern_all(&self, tokens: &str, ends: &[usize]) -> Vec<u32> {
        let token = |i: usize| &tokens[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
        let mut ids = vec![u32::MAX; ends.len()];
        let mut missing = false;
        {
            let known = self.ids.read().unwrap_or_else(|e| e.into_inner());
            for (i, id) in ids.iter_mut().enumerate() {
                match known.get(token(i)) {
                    Some(&found) => *id = found,
                    None => missing = true,
                }
            }
        }
        if missing {
            let mut known = self.ids.write().unwrap_or_else(|e| e.into_inner());
            for (i, id) in ids.iter_mut().enumerate() {
                if *id == u32::MAX {
                    // u32::MAX is reserved as the unigram tag of SU4 keys; 4 billion distinct
                    // tokens are out of reach, so the cap is only a guard against wrap-around.
                    let next = u32::try_from(known.len()).unwrap_or(u32::MAX - 1);
                    *id = *known.entry(token(i).into()).or_insert(next);
                }
            }
        }
        ids
    }
}

/// The topic's [`Vocabulary`], made once per topic.
pub fn topic_vocabulary(ctx: &TopicContext) -> Arc<Vocabulary> {
    ctx.shared(SharedKey::new("rouge.vocabulary"), |_: &Topic| {
        Vocabulary::default()
    })
}

/// n-gram keys come from our own interner, so FxHash is safe (no hash flooding) and fast.
/// Keys are u64 (a unigram or two ids packed) but for ROUGE-3 and -4's u128 (up to four ids).
type CountMap<K = u64> = HashMap<K, u32, FxBuildHasher>;

fn pair_key(first: u32, second: u32) -> u64 {
    (u64::from(first) << 32) | u64::from(second)
}

/// SU4 unigrams share a map with skip-bigrams; the tag keeps them apart (no token has id
/// u32::MAX).
fn su4_unigram_key(id: u32) -> u64 {
    pair_key(u32::MAX, id)
}

/// Unit counts of one text for one measure.
#[derive(Debug, Clone)]
struct Grams<K = u64> {
    counts: CountMap<K>,
    total: u32,
}

impl<K> Default for Grams<K> {
    fn default() -> Grams<K> {
        Grams {
            counts: CountMap::default(),
            total: 0,
        }
    }
}

impl<K: std::hash::Hash + Eq + Copy> Grams<K> {
    fn with_capacity(n: usize) -> Grams<K> {
        Grams {
            counts: CountMap::with_capacity_and_hasher(n, Default::default()),
            total: 0,
        }
    }

    fn add(&mut self, key: K) {
        *self.counts.entry(key).or_insert(0) += 1;
        self.total += 1;
    }

    fn count(&self, key: K) -> u32 {
        self.counts.get(&key).copied().unwrap_or(0)
    }

    /// Clipped hits: Σ over units of min(count here, count there).
    fn clipped_hits(&self, other: &Grams<K>) -> u32 {
        let (small, large) = if self.counts.len() <= other.counts.len() {
            (self, other)
        } else {
            (other, self)
        };
        small
            .counts
            .iter()
            .map(|(key, &n)| n.min(large.count(*key)))
            .sum()
    }
}

/// A text tokenized and counted once, to be scored many times (as peer or as reference).
#[derive(Debug, Clone, Default)]
pub struct PreparedText {
    /// The token ids n-grams are counted over (the whole text, sentences joined), for the
    /// longer n-grams of [`extended`].
    ids: Vec<u32>,
    unigrams: Grams,
    bigrams: Grams,
    su4: Grams,
    /// Token ids of each line (sentence), for ROUGE-L.
    sentences: Vec<Vec<u32>>,
    /// Tokens in `sentences`: ROUGE-L's recall denominator as a reference. The unigrams' total
    /// but under a byte limit, where ROUGE-L reads more of the text ([`LengthLimit`]).
    sentence_tokens: u32,
    /// Each sentence's tokens by position, for the bit-parallel LCS (see [`lcs`]).
    positions: Vec<TokenPositions>,
    /// The [`Vocabulary::serial`] of its ids.
    vocabulary: u64,
}

/// The interned tokens of `text` and the token count of each line (sentence).
fn token_ids(text: &str, opts: &RougeOptions, vocabulary: &Vocabulary) -> (Vec<u32>, Vec<usize>) {
    let profile = opts.profile();
    line_token_ids(text, vocabulary, |line, emit| {
        for_each_rouge155_token(line, profile, emit)
    })
}

/// The interned tokens of `text` and the token count of each line, `tokenize` giving a line's
/// tokens (ROUGE-1.5.5's here, rouge-score's in [`rouge_score`]).
fn line_token_ids(
    text: &str,
    vocabulary: &Vocabulary,
    mut tokenize: impl FnMut(&str, &mut dyn FnMut(&str)),
) -> (Vec<u32>, Vec<usize>) {
    let mut line_lengths = Vec::new();
    // The tokens one after another in one buffer (no allocation per token).
    let (mut tokens, mut ends) = (String::with_capacity(text.len()), Vec::new());
    for line in text.split('\n') {
        let before = ends.len();
        tokenize(line, &mut |t| {
            tokens.push_str(t);
            ends.push(tokens.len());
        });
        line_lengths.push(ends.len() - before);
    }
    (vocabulary.intern_all(&tokens, &ends), line_lengths)
}

fn unigram_counts(ids: &[u32]) -> Grams {
    let mut grams = Grams::with_capacity(ids.len());
    for &id in ids {
        grams.add(u64::from(id));
    }
    grams
}

/// Bigrams over the whole text (sentences joined), as ROUGE-1.5.5 counts them.
fn bigram_counts(ids: &[u32]) -> Grams {
    let mut grams = Grams::with_capacity(ids.len());
    for pair in ids.windows(2) {
        grams.add(pair_key(pair[0], pair[1]));
    }
    grams
}

impl PreparedText {
    /// `text` tokenized and counted, its tokens interned in `vocabulary`: only texts of one
    /// vocabulary can be compared.
    pub fn new(text: &str, opts: &RougeOptions, vocabulary: &Vocabulary) -> PreparedText {
        let Some(limit) = opts.limit else {
            let (ids, sentence_lengths) = token_ids(text, opts, vocabulary);
            return PreparedText::from_tokens(&ids, &ids, &sentence_lengths, vocabulary);
        };
        // ROUGE cuts the text before tokenizing it, for n-grams and (under -b, otherwise) for
        // ROUGE-L.
        let (ngram_text, lcs_text) = length_limit::truncated(text, limit);
        let (ids, sentence_lengths) = token_ids(&ngram_text, opts, vocabulary);
        match lcs_text {
            None => PreparedText::from_tokens(&ids, &ids, &sentence_lengths, vocabulary),
            Some(lcs_text) => {
                let (lcs_ids, sentence_lengths) = token_ids(&lcs_text, opts, vocabulary);
                PreparedText::from_tokens(&ids, &lcs_ids, &sentence_lengths, vocabulary)
            }
        }
    }

    /// Counts of the n-gram tokens `ids`, and ROUGE-L's sentences: `lcs_ids` cut at
    /// `sentence_lengths`.
    fn from_tokens(
        ids: &[u32],
        lcs_ids: &[u32],
        sentence_lengths: &[usize],
        vocabulary: &Vocabulary,
    ) -> PreparedText {
        let mut prepared = PreparedText {
            ids: ids.to_vec(),
            unigrams: unigram_counts(ids),
            bigrams: bigram_counts(ids),
            su4: Grams::with_capacity(ids.len() * (SKIP_DISTANCE + 2)),
            vocabulary: vocabulary.serial,
            ..PreparedText::default()
        };
        let mut start = 0;
        for &len in sentence_lengths {
            if len > 0 {
                prepared
                    .sentences
                    .push(lcs_ids[start..start + len].to_vec());
            }
            start += len;
        }
        prepared.sentence_tokens = u32::try_from(lcs_ids.len()).unwrap_or(u32::MAX);
        // ROUGE-1.5.5 loops `for (i = 0; i < $#tokens; i++)`: the last token starts no unit.
        let n = ids.len();
        for i in 0..n.saturating_sub(1) {
            prepared.su4.add(su4_unigram_key(ids[i]));
            for j in i + 1..n.min(i + SKIP_DISTANCE + 2) {
                prepared.su4.add(pair_key(ids[i], ids[j]));
            }
        }
        prepared.positions = prepared
            .sentences
            .iter()
            .map(|s| TokenPositions::new(s))
            .collect();
        prepared
    }

    /// Number of tokens ROUGE counts in this text.
    pub fn token_count(&self) -> u32 {
        self.unigrams.total
    }
}

// ---------------------------------------------------------------------------------------------
// Pairwise counts and their combination.

/// Hits and unit totals of one measure for one peer/reference pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub hits: u32,
    pub reference_total: u32,
    pub peer_total: u32,
}

/// The counts of all four measures for one peer/reference pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairCounts {
    pub rouge1: Counts,
    pub rouge2: Counts,
    pub rouge_l: Counts,
    pub rouge_su4: Counts,
}

/// Count the matches of `peer` against one `reference`.
pub fn pair_counts(peer: &PreparedText, reference: &PreparedText) -> PairCounts {
    assert_same_vocabulary(peer, reference);
    let counts = |r: &Grams, p: &Grams| Counts {
        hits: r.clipped_hits(p),
        reference_total: r.total,
        peer_total: p.total,
    };
    PairCounts {
        rouge1: counts(&reference.unigrams, &peer.unigrams),
        rouge2: counts(&reference.bigrams, &peer.bigrams),
        rouge_l: lcs_counts(peer, reference),
        rouge_su4: counts(&reference.su4, &peer.su4),
    }
}

/// Texts interned in two vocabularies share ids that mean different tokens: comparing them
/// would give wrong scores without a word, so it is a bug to stop at.
fn assert_same_vocabulary(peer: &PreparedText, reference: &PreparedText) {
    assert_eq!(
        peer.vocabulary, reference.vocabulary,
        "ROUGE texts of two vocabularies compared"
    );
}

/// Which measure a combination is for: ROUGE-1.5.5 picks mode B's best reference by recall
/// printed to 5 decimals for n-grams and skip-bigrams, but by exact recall for LCS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeasureKind {
    NGram,
    Lcs,
}

/// Combine one measure's counts against several references.
pub fn combine(counts: &[Counts], mode: MultiRefMode, kind: MeasureKind) -> Prf {
    match mode {
        MultiRefMode::Average => {
            let sum = |f: fn(&Counts) -> u32| counts.iter().map(|c| f64::from(f(c))).sum::<f64>();
            Prf::from_counts(
                sum(|c| c.hits),
                sum(|c| c.reference_total),
                sum(|c| c.peer_total),
            )
        }
        MultiRefMode::Best => {
            let mut best: Option<&Counts> = None;
            let mut best_recall = -1.0;
            for c in counts {
                let mut recall = ratio(f64::from(c.hits), f64::from(c.reference_total));
                if kind == MeasureKind::NGram {
                    recall = round5(recall);
                }
                if recall > best_recall {
                    best_recall = recall;
                    best = Some(c);
                }
            }
            best.map_or_else(Prf::default, |c| {
                Prf::from_counts(
                    f64::from(c.hits),
                    f64::from(c.reference_total),
                    f64::from(c.peer_total),
                )
            })
        }
    }
}

/// Combine all four measures' counts against several references.
pub fn combine_pairs(pairs: &[PairCounts], mode: MultiRefMode) -> RougeScores {
    let pick = |f: fn(&PairCounts) -> Counts| pairs.iter().map(f).collect::<Vec<_>>();
    RougeScores {
        rouge1: combine(&pick(|p| p.rouge1), mode, MeasureKind::NGram),
        rouge2: combine(&pick(|p| p.rouge2), mode, MeasureKind::NGram),
        rouge_l: combine(&pick(|p| p.rouge_l), mode, MeasureKind::Lcs),
        rouge_su4: combine(&pick(|p| p.rouge_su4), mode, MeasureKind::NGram),
    }
}

/// Score `peer` against `references` (no jackknifing here: see [`jackknife_score`]).
/// With no references every score is 0.
pub fn score(
    peer: &PreparedText,
    references: &[&PreparedText],
    opts: &RougeOptions,
) -> RougeScores {
    let pairs: Vec<PairCounts> = references.iter().map(|r| pair_counts(peer, r)).collect();
    combine_pairs(&pairs, opts.mode)
}

/// Jackknifed scores: with k ≥ 2 references, the mean of the scores against each of the k
/// subsets that leave one reference out; with fewer, the plain score.
pub fn jackknife_score(
    peer: &PreparedText,
    references: &[&PreparedText],
    opts: &RougeOptions,
) -> RougeScores {
    let pairs: Vec<PairCounts> = references.iter().map(|r| pair_counts(peer, r)).collect();
    jackknife_pairs(&pairs, opts.mode)
}

/// [`jackknife_score`] from precomputed pair counts.
pub fn jackknife_pairs(pairs: &[PairCounts], mode: MultiRefMode) -> RougeScores {
    RougeScores::from_measures(jackknifed(pairs, |subset| {
        combine_pairs(subset, mode).measures()
    }))
}

/// ROUGE's jackknifing for any measures: with k ≥ 2 references, the mean of `score` over the k
/// subsets of `pairs` that leave one reference out; with fewer, `score` of them all.
fn jackknifed<P: Clone, const N: usize>(pairs: &[P], score: impl Fn(&[P]) -> [Prf; N]) -> [Prf; N] {
    let k = pairs.len();
    if k < 2 {
        return score(pairs);
    }
    let mut sum = [Prf::default(); N];
    let mut subset = Vec::with_capacity(k - 1);
    for left_out in 0..k {
        subset.clear();
        subset.extend(
            pairs
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != left_out)
                .map(|(_, p)| p.clone()),
        );
        for (total, measure) in sum.iter_mut().zip(score(&subset)) {
            total.recall += measure.recall;
            total.precision += measure.precision;
            total.f += measure.f;
        }
    }
    let k = k as f64;
    sum.map(|total| Prf {
        recall: total.recall / k,
        precision: total.precision / k,
        f: total.f / k,
    })
}

// ---------------------------------------------------------------------------------------------
// Topic-level sharing and the feature class.

/// `TopicContext` cache keys; preparation depends only on the tokenization options.
fn cache_keys(opts: &RougeOptions) -> (SharedKey<ReferenceSet>, SharedKey<Vec<PreparedText>>) {
    let (references, summaries) = match (opts.stem, opts.remove_stopwords) {
        (true, false) => ("rouge.references.stem", "rouge.summaries.stem"),
        (true, true) => (
            "rouge.references.stem.nostop",
            "rouge.summaries.stem.nostop",
        ),
        (false, false) => ("rouge.references.plain", "rouge.summaries.plain"),
        (false, true) => ("rouge.references.nostop", "rouge.summaries.nostop"),
    };
    (SharedKey::new(references), SharedKey::new(summaries))
}

/// The topic's references, prepared and indexed once per topic and tokenization options.
pub fn prepared_references(ctx: &TopicContext, opts: &RougeOptions) -> Arc<ReferenceSet> {
    let opts_for_compute = opts.clone();
    let vocabulary = topic_vocabulary(ctx);
    ctx.shared(cache_keys(opts).0, move |topic: &Topic| {
        ReferenceSet::from_texts(
            topic.references.iter().map(|r| r.text.as_str()),
            &opts_for_compute,
            &vocabulary,
        )
    })
}

/// The topic's summaries, prepared once per topic and tokenization options (the consensus
/// class scores summaries against each other with these).
pub fn prepared_summaries(ctx: &TopicContext, opts: &RougeOptions) -> Arc<Vec<PreparedText>> {
    let opts_for_compute = opts.clone();
    let vocabulary = topic_vocabulary(ctx);
    ctx.shared(cache_keys(opts).1, move |topic: &Topic| {
        topic
            .summaries
            .iter()
            .map(|s| PreparedText::new(&s.text, &opts_for_compute, &vocabulary))
            .collect()
    })
}

/// The `rouge` feature class.
pub struct Rouge {
    opts: RougeOptions,
}

impl Rouge {
    pub fn new(opts: RougeOptions) -> Rouge {
        Rouge { opts }
    }
}

/// The named options of [`RougeOptions`], read by both ROUGE classes.
const OPTIONS: &[&str] = &[
    "rouge_mode",
    "rouge_jackknife",
    "rouge_no_stem",
    "rouge_remove_stopwords",
    "rouge_length_limit",
    "rouge_byte_limit",
];

/// A ROUGE class's columns: `class.measure_recall`, `_precision`, `_f` for each measure.
fn measure_columns(class: &str, measures: &[&str]) -> Vec<String> {
    measures
        .iter()
        .flat_map(|m| {
            ["recall", "precision", "f"]
                .iter()
                .map(move |v| format!("{class}.{m}_{v}"))
        })
        .collect()
}

/// The `rouge` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "rouge",
    about: "ROUGE-1.5.5 against the references",
    default: true,
    references: ReferenceUse::All,
    batch_dependent: false,
    options: OPTIONS,
    partial_options: &[],
    build: |o| Ok(Box::new(Rouge::new(o.rouge.clone()))),
};

impl FeatureClass for Rouge {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }

    fn feature_names(&self) -> Vec<String> {
        measure_columns(CLASS.name, &["r1", "r2", "rl", "su4"])
    }

    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        if ctx.topic.references.is_empty() {
            return vec![None; ctx.topic.summaries.len()];
        }
        let references = prepared_references(ctx, &self.opts);
        let summaries = prepared_summaries(ctx, &self.opts);
        // A human summary against the others of its references is already jackknifed.
        let opts = RougeOptions {
            jackknife: self.opts.jackknife && !ctx.references_left_out,
            ..self.opts.clone()
        };
        summaries
            .iter()
            .map(|peer| Some(references.score(peer, &opts).to_vec()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The class options without stemming: tiny texts score as written.
    pub(super) fn plain() -> RougeOptions {
        RougeOptions {
            stem: false,
            ..RougeOptions::default()
        }
    }

    /// One vocabulary for the module's tests, as one topic's texts share one.
    static VOCABULARY: std::sync::LazyLock<Vocabulary> =
        std::sync::LazyLock::new(Vocabulary::default);

    fn prep(text: &str) -> PreparedText {
        PreparedText::new(text, &plain(), &VOCABULARY)
    }

    pub(super) fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// The row `class` gives `summary` against `references`, alone in a topic.
    pub(super) fn row_of(class: &dyn FeatureClass, references: &[&str], summary: &str) -> Vec<f64> {
        let mut topic = Topic::new("t");
        topic
            .summaries
            .push(aesop_corpus::Summary::new("s", summary));
        for (i, &text) in references.iter().enumerate() {
            topic
                .references
                .push(aesop_corpus::Reference::new(format!("r{i}"), text));
        }
        let ctx = TopicContext::new(&topic);
        class.extract(&ctx)[0].clone().expect("a row")
    }

    fn assert_prf(actual: Prf, recall: f64, precision: f64, f: f64) {
        assert!(
            close(actual.recall, recall)
                && close(actual.precision, precision)
                && close(actual.f, f),
            "got {actual:?}, expected R {recall} P {precision} F {f}"
        );
    }

    #[test]
    fn rouge_n_on_tiny_texts() {
        // Reference: the cat sat on the mat (6 unigrams, 5 bigrams).
        // Peer: the cat lay on the mat the end (8 unigrams, 7 bigrams).
        // Unigram hits: the min(3,2)=2, cat 1, on 1, mat 1 → 5.
        // Bigram hits: "the cat", "on the", "the mat" → 3.
        let reference = prep("the cat sat on the mat");
        let peer = prep("The cat lay on the mat, the end.");
        let s = score(&peer, &[&reference], &plain());
        assert_prf(
            s.rouge1,
            5.0 / 6.0,
            5.0 / 8.0,
            2.0 * (5.0 / 6.0) * (5.0 / 8.0) / (5.0 / 6.0 + 5.0 / 8.0),
        );
        assert_prf(
            s.rouge2,
            3.0 / 5.0,
            3.0 / 7.0,
            2.0 * 0.6 * (3.0 / 7.0) / (0.6 + 3.0 / 7.0),
        );
    }

    #[test]
    fn rouge_l_single_sentence() {
        // LCS of "a b c d e" and "a x c y e b": a c e → 3.
        let s = score(&prep("a x c y e b"), &[&prep("a b c d e")], &plain());
        assert_prf(s.rouge_l, 3.0 / 5.0, 3.0 / 6.0, 2.0 * 0.6 * 0.5 / 1.1);
    }

    #[test]
    fn rouge_l_union_over_sentences_with_clipping() {
        // Reference sentence "w1 w2 w3 w4 w5"; peer sentences "w1 w2 w6 w7" and "w8 w3 w5".
        // LCS with the first: w1 w2; with the second: w3 w5; union = 4 of 5 tokens.
        let reference = prep("w1 w2 w3 w4 w5");
        let peer = prep("w1 w2 w6 w7\nw8 w3 w5");
        let s = score(&peer, &[&reference], &plain());
        assert_prf(
            s.rouge_l,
            4.0 / 5.0,
            4.0 / 7.0,
            2.0 * 0.8 * (4.0 / 7.0) / (0.8 + 4.0 / 7.0),
        );

        // Clipping: reference sentences "a b" and "a c", peer "a b c" has one "a", so only the
        // first reference sentence may use it: hits = a b (sentence 1) + c (sentence 2) = 3.
        let reference = prep("a b\na c");
        let peer = prep("a b c");
        let counts = pair_counts(&peer, &reference);
        assert_eq!(
            counts.rouge_l,
            Counts {
                hits: 3,
                reference_total: 4,
                peer_total: 3
            }
        );
    }

    /// Each topic interns its tokens in a vocabulary of its own, dropped with the topic: a
    /// process-wide one kept every token a long-lived service had seen.
    #[test]
    fn a_topics_vocabulary_is_its_own_and_goes_with_it() {
        let topic = |text: &str| {
            let mut topic = Topic::new("t");
            topic
                .references
                .push(aesop_corpus::Reference::new("r", text));
            topic
        };
        let (first, second) = (topic("zebra crossing"), topic("crossing zebra"));
        let (a, b) = (TopicContext::new(&first), TopicContext::new(&second));
        let (va, vb) = (topic_vocabulary(&a), topic_vocabulary(&b));
        assert!(Arc::ptr_eq(&va, &topic_vocabulary(&a)));
        assert_ne!(va.serial, vb.serial);
        let opts = plain();
        prepared_references(&a, &opts);
        prepared_references(&b, &opts);
        // Ids from 0 in each, in each text's order.
        assert_eq!(va.intern_all("zebra", &[5]), [0]);
        assert_eq!(vb.intern_all("zebra", &[5]), [1]);
        let weak = Arc::downgrade(&va);
        drop((va, a));
        assert!(
            weak.upgrade().is_none(),
            "the vocabulary outlived its topic"
        );
    }

    #[test]
    #[should_panic(expected = "ROUGE texts of two vocabularies compared")]
    fn texts_of_two_vocabularies_are_never_compared() {
        let other = Vocabulary::default();
        score(
            &prep("a b"),
            &[&PreparedText::new("a b", &plain(), &other)],
            &plain(),
        );
    }

    #[test]
    fn reference_set_matches_pairwise_counts() {
        let texts = [
            "the cat sat on the mat",
            "a cat on a mat\nand a hat",
            "",
            "mat mat mat",
        ];
        let set = ReferenceSet::from_texts(texts, &plain(), &VOCABULARY);
        let peer = prep("the mat sat on a cat hat");
        let pairs = set.pair_counts(&peer);
        assert_eq!(pairs.len(), 4);
        for (text, from_set) in texts.iter().zip(&pairs) {
            assert_eq!(*from_set, pair_counts(&peer, &prep(text)), "{text:?}");
        }
        let refs: Vec<&PreparedText> = set.references().iter().collect();
        assert_eq!(set.score(&peer, &plain()), score(&peer, &refs, &plain()));
        let jk = RougeOptions {
            jackknife: true,
            ..plain()
        };
        assert_eq!(set.score(&peer, &jk), jackknife_score(&peer, &refs, &jk));
    }

    #[test]
    fn su4_counts_skip_bigrams_and_unigrams_except_the_last_token() {
        // Tokens a b c d e f g (7). For i = 0..5: unigram + skip-bigrams to i+1..min(6, i+5).
        // i=0: 1+5, i=1: 1+5, i=2: 1+4, i=3: 1+3, i=4: 1+2, i=5: 1+1 → 6+6+5+4+3+2 = 26.
        let text = prep("a b c d e f g");
        assert_eq!(text.su4.total, 26);
        assert_eq!(text.su4.count(pair_key(id("a"), id("f"))), 1);
        assert_eq!(text.su4.count(pair_key(id("a"), id("g"))), 0);
        assert_eq!(text.su4.count(su4_unigram_key(id("g"))), 0);
        assert_eq!(prep("alone").su4.total, 0);

        // Peer "a c b": units a, "a c", "a b", c, "c b" (5). Reference "a b c": a, "a b",
        // "a c", b, "b c" (5). Hits: a, "a c", "a b" → 3.
        let s = score(&prep("a c b"), &[&prep("a b c")], &plain());
        assert_prf(s.rouge_su4, 0.6, 0.6, 0.6);
    }

    fn id(token: &str) -> u32 {
        VOCABULARY.intern_all(token, &[token.len()])[0]
    }

    #[test]
    fn mode_a_pools_and_mode_b_takes_the_best_reference() {
        let peer = prep("a b c d");
        let r1 = prep("a b x y"); // 2 of 4 unigrams
        let r2 = prep("a b c z z z"); // 3 of 6 unigrams
        let a = score(&peer, &[&r1, &r2], &plain());
        // Pooled: hits 5, reference units 10, peer units 2 × 4 = 8.
        assert_prf(a.rouge1, 0.5, 5.0 / 8.0, 2.0 * 0.5 * 0.625 / 1.125);
        let best = RougeOptions {
            mode: MultiRefMode::Best,
            ..plain()
        };
        // Equal recall (0.5): the first reference wins the tie.
        let b = score(&peer, &[&r1, &r2], &best);
        assert_prf(b.rouge1, 0.5, 0.5, 0.5);
        // "a q" (recall 1/2) ties with r2 and comes first: precision 1/4.
        let b = score(&peer, &[&prep("a q"), &r2], &best);
        assert_prf(b.rouge1, 0.5, 0.25, 2.0 * 0.5 * 0.25 / 0.75);
        let b = score(&peer, &[&r2, &prep("a b c")], &best);
        assert_prf(b.rouge1, 1.0, 0.75, 2.0 * 0.75 / 1.75);
    }

    #[test]
    fn jackknife_averages_leave_one_out_subsets() {
        let peer = prep("a b c d");
        let refs = [prep("a b x y"), prep("a z"), prep("c d")];
        let refs: Vec<&PreparedText> = refs.iter().collect();
        // Unigram hits / totals: (2,4), (1,2), (2,2); peer total 4.
        // Without r1: 3/4 R, 3/8 P. Without r2: 4/6 R, 4/8 P. Without r3: 3/6 R, 3/8 P.
        let s = jackknife_score(&peer, &refs, &plain());
        let f = |r: f64, p: f64| 2.0 * r * p / (r + p);
        let (r, p) = ([0.75, 4.0 / 6.0, 0.5], [0.375, 0.5, 0.375]);
        assert_prf(
            s.rouge1,
            r.iter().sum::<f64>() / 3.0,
            p.iter().sum::<f64>() / 3.0,
            (f(r[0], p[0]) + f(r[1], p[1]) + f(r[2], p[2])) / 3.0,
        );
        // One reference: jackknifing is the plain score.
        assert_eq!(
            jackknife_score(&peer, &refs[..1], &plain()),
            score(&peer, &refs[..1], &plain())
        );
    }

    #[test]
    fn empty_summary_scores_zero() {
        let s = score(&prep(""), &[&prep("a b c")], &plain());
        assert_eq!(s, RougeScores::default());
        let s = score(&prep("a b"), &[], &plain());
        assert_eq!(s, RougeScores::default());
    }

    #[test]
    fn printed_values_round_like_rouge() {
        // R = 1/64 = 0.015625 rounds to even (0.01562); F from the rounded R and P.
        let p = Prf::from_counts(1.0, 64.0, 3.0).rouge155_printed();
        assert_eq!(p.recall, 0.01562);
        assert_eq!(p.precision, 0.33333);
        let f = (0.33333 * 0.01562) / (0.5 * 0.33333 + 0.5 * 0.01562);
        assert_eq!(p.f, round5(f));
        assert_eq!(format!("{:.5}", p.f), "0.02984");
    }

    #[test]
    fn feature_names_and_defaults() {
        let class = Rouge::new(RougeOptions::default());
        let names = class.feature_names();
        assert_eq!(names.len(), 12);
        assert_eq!(names[0], "rouge.r1_recall");
        assert_eq!(names[8], "rouge.rl_f");
        assert_eq!(names[11], "rouge.su4_f");
        let d = RougeOptions::default();
        assert!(d.stem && !d.remove_stopwords && !d.jackknife);
        assert_eq!(d.mode, MultiRefMode::Average);
    }

    #[test]
    fn class_rows_none_without_references() {
        let mut topic = Topic::new("t");
        topic
            .summaries
            .push(aesop_corpus::Summary::new("s1", "a b"));
        let ctx = TopicContext::new(&topic);
        assert_eq!(
            Rouge::new(RougeOptions::default()).extract(&ctx),
            vec![None]
        );

        topic
            .references
            .push(aesop_corpus::Reference::new("r1", "a b c"));
        let ctx = TopicContext::new(&topic);
        let rows = Rouge::new(plain()).extract(&ctx);
        let row = rows[0].as_ref().expect("a row");
        // ROUGE-1: 2 of 3 reference unigrams, 2 of 2 peer unigrams.
        assert!(close(row[0], 2.0 / 3.0) && close(row[1], 1.0) && close(row[2], 0.8));
    }
}
