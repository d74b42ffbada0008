//! The `tesla` feature class: TESLA-S (Lin, Liu, Ng & Kan 2012, §3).
//!
//! # What is implemented
//! * **Tokens**: [`super::surface::word_tokens`]: lowercase runs of letters and digits;
//!   punctuation and other symbols are dropped (so "don't" gives "don" and "t").
//! * **Bags of n-grams** ([`unigram_bag`], [`skip_bigram_bag`]): one bag of unigrams and one of
//!   skip bigrams (ordered word pairs with at most `max_skip` = 4 words between them, as in
//!   ROUGE-SU4 which TESLA-S mimics). A word weighs 1, or 0.1 when it is a function word; a skip
//!   bigram weighs the mean of its two words' weights (the paper does not say how n-gram weights
//!   combine; the mean keeps a bigram of two content words at 1). Repeated n-grams add up.
//! * **Function words** ([`FunctionWords`]): word forms of the shipped UD-derived list
//!   (`features/function_words_ud_en.tsv`) whose closed-class share is at least
//!   `closed_share_threshold` (default 0.5: the form is used as a closed-class word (ADP, AUX,
//!   CCONJ, DET, PART, PRON, SCONJ) most of the time — the whole list). Listed forms are put
//!   through the same tokenizer: forms that give one token (e.g. "'s" → "s") count under that
//!   token, and "n't" counts as "t", the piece our tokenizer splits off "don't". Other
//!   multi-token forms ("b/c") are ignored.
//! * **Matching**: maximize Σ s(x,y)·w(x,y) subject to Σ_j w(x_i,y_j) ≤ x_i^W and
//!   Σ_i w(x_i,y_j) ≤ y_j^W. With exact matching (s = 1 for identical n-grams, else 0; the
//!   paper's TESLA-S) the optimum is Σ_shared min(x^W, y^W) ([`exact_match`]). With stem
//!   matching ([`stem_match`]) identical n-grams score 1 and n-grams whose words have the same
//!   stems but differ in form score partially: each word pair scores 1 if identical and
//!   `stem_similarity` (default 0.5) otherwise, and an n-gram pair scores the mean over its
//!   words. Lin et al. give no partial value (TESLA-S uses exact matching only); 0.5 is our
//!   choice. n-grams with different stem sequences score 0, so the LP splits into independent
//!   transportation problems, one per stem sequence, each solved exactly by
//!   [`max_similarity_transport`] (successive shortest paths).
//! * **Score**: P = S/Σ y^W (candidate), R = S/Σ x^W (reference),
//!   F = PR/(αP + (1−α)R) with α = 0.8 (F = 0 when S = 0); the TESLA-S score is the mean of the
//!   unigram and skip-bigram F; with several references, the maximum over references (each
//!   feature's maximum is taken independently).
//!
//! Features: `tesla.exact`, `tesla.stem` and their components `tesla.{exact,stem}_unigram`,
//! `tesla.{exact,stem}_skip_bigram`. Reference-based: `None` rows for topics without
//! references.

use super::surface::word_tokens;
use super::{FeatureClass, FeatureRow, TopicContext};
use crate::corpus::Topic;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The shipped function-word list (CC BY-SA 4.0; see features/ATTRIBUTION-function-words.md).
const SHIPPED_FUNCTION_WORDS: &str = include_str!("../../features/function_words_ud_en.tsv");

/// Options of the `tesla` class.
#[derive(Debug, Clone)]
pub struct TeslaOptions {
    /// F-measure α (0.8: recall weighs more).
    pub alpha: f64,
    /// Weight of a function word (content words weigh 1).
    pub function_word_weight: f64,
    /// Minimum closed-class share for a listed form to count as a function word.
    pub closed_share_threshold: f64,
    /// Maximum number of words between the two words of a skip bigram.
    pub max_skip: usize,
    /// Similarity of two different word forms with the same stem (stem matching only).
    pub stem_similarity: f64,
}

impl Default for TeslaOptions {
    fn default() -> Self {
        TeslaOptions {
            alpha: 0.8,
            function_word_weight: 0.1,
            closed_share_threshold: 0.5,
            max_skip: 4,
            stem_similarity: 0.5,
        }
    }
}

/// A set of function (closed-class) word forms, in the form our tokenizer produces.
#[derive(Debug, Clone, Default)]
pub struct FunctionWords {
    words: HashSet<String>,
}

impl FunctionWords {
    /// The shipped UD-derived list, forms with `closed_share ≥ threshold`.
    pub fn shipped(threshold: f64) -> FunctionWords {
        FunctionWords::from_tsv(SHIPPED_FUNCTION_WORDS, threshold)
    }

    /// Forms from a TSV with columns `word` and `closed_share` (found by header name) whose
    /// share is at least `threshold`. Lines that cannot be read are skipped.
    pub fn from_tsv(tsv: &str, threshold: f64) -> FunctionWords {
        let mut lines = tsv.lines();
        let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
        let word_col = header.iter().position(|h| *h == "word").unwrap_or(0);
        let share_col = header.iter().position(|h| *h == "closed_share");
        let mut words = HashSet::new();
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            let Some(form) = fields.get(word_col) else {
                continue;
            };
            let share = share_col
                .and_then(|c| fields.get(c))
                .and_then(|s| s.trim().parse::<f64>().ok());
            if share.is_some_and(|s| s >= threshold) {
                let tokens = word_tokens(form);
                match tokens.as_slice() {
                    [token] => {
                        words.insert(token.clone());
                    }
                    // "n't" (any apostrophe): our tokenizer splits "don't" as "don" + "t".
                    [n, t] if n == "n" && t == "t" => {
                        words.insert("t".to_string());
                    }
                    _ => {}
                }
            }
        }
        FunctionWords { words }
    }

    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(word)
    }
    pub fn len(&self) -> usize {
        self.words.len()
    }
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// A weighted bag of n-grams: each distinct n-gram (words joined by one space) with the sum of
/// the weights of its occurrences.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bag {
    weights: HashMap<String, f64>,
}

impl Bag {
    /// The weight of `ngram` (0 when absent).
    pub fn weight(&self, ngram: &str) -> f64 {
        self.weights.get(ngram).copied().unwrap_or(0.0)
    }
    /// Σ of all weights.
    pub fn total(&self) -> f64 {
        self.weights.values().sum()
    }
    /// Number of distinct n-grams.
    pub fn len(&self) -> usize {
        self.weights.len()
    }
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.weights.iter().map(|(k, &w)| (k.as_str(), w))
    }
    fn add(&mut self, ngram: String, weight: f64) {
        *self.weights.entry(ngram).or_insert(0.0) += weight;
    }
}

/// The bag of unigrams of `tokens`, each occurrence weighing `word_weight(word)`.
pub fn unigram_bag(tokens: &[String], word_weight: impl Fn(&str) -> f64) -> Bag {
    let mut bag = Bag::default();
    for t in tokens {
        bag.add(t.clone(), word_weight(t));
    }
    bag
}

/// The bag of skip bigrams of `tokens`: pairs (tᵢ, tⱼ), i < j ≤ i + max_skip + 1, each weighing
/// the mean of its two words' weights.
pub fn skip_bigram_bag(
    tokens: &[String],
    max_skip: usize,
    word_weight: impl Fn(&str) -> f64,
) -> Bag {
    let weights: Vec<f64> = tokens.iter().map(|t| word_weight(t)).collect();
    let mut bag = Bag::default();
    for (i, first) in tokens.iter().enumerate() {
        for (j, second) in tokens.iter().enumerate().skip(i + 1).take(max_skip + 1) {
            bag.add(format!("{first} {second}"), (weights[i] + weights[j]) / 2.0);
        }
    }
    bag
}

/// The matching optimum with exact similarity: Σ over shared n-grams of min(x^W, y^W).
pub fn exact_match(x: &Bag, y: &Bag) -> f64 {
    let (small, large) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    small
        .iter()
        .map(|(ngram, w)| w.min(large.weight(ngram)))
        .sum()
}

/// Similarity of two n-grams whose words have the same stems: the mean over word positions of
/// 1 (identical words) or `partial` (different forms).
fn same_stem_similarity(a: &str, b: &str, partial: f64) -> f64 {
    if a == b {
        return 1.0;
    }
    let (mut sum, mut n) = (0.0, 0usize);
    for (u, v) in a.split(' ').zip(b.split(' ')) {
        sum += if u == v { 1.0 } else { partial };
        n += 1;
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// A bag's n-grams grouped by their stem sequence (the stems of their words, in order), for
/// [`stem_match_groups`]. Build it once per text.
#[derive(Debug, Clone, Default)]
pub struct StemGroups {
    groups: HashMap<String, Vec<(String, f64)>>,
}

impl StemGroups {
    /// Group the n-grams of `bag`; `stem` maps one word to its stem.
    pub fn new(bag: &Bag, stem: impl Fn(&str) -> String) -> StemGroups {
        let mut stems: HashMap<&str, String> = HashMap::new();
        let mut groups: HashMap<String, Vec<(String, f64)>> = HashMap::new();
        for (ngram, w) in bag.iter() {
            let key = ngram
                .split(' ')
                .map(|word| stems.entry(word).or_insert_with(|| stem(word)).clone())
                .collect::<Vec<_>>()
                .join(" ");
            groups.entry(key).or_default().push((ngram.to_string(), w));
        }
        StemGroups { groups }
    }
}

/// The matching optimum with stem similarity between grouped bags: identical n-grams score 1,
/// n-grams with the same stem sequence score by [`same_stem_similarity`] with `partial`, others
/// 0, so each stem sequence is an independent transportation problem.
pub fn stem_match_groups(x: &StemGroups, y: &StemGroups, partial: f64) -> f64 {
    let mut total = 0.0;
    for (key, xs) in &x.groups {
        let Some(ys) = y.groups.get(key) else {
            continue;
        };
        // The common case: one form on each side, no LP needed.
        if let ([(a, wa)], [(b, wb)]) = (xs.as_slice(), ys.as_slice()) {
            total += same_stem_similarity(a, b, partial) * wa.min(*wb);
            continue;
        }
        let xw: Vec<f64> = xs.iter().map(|p| p.1).collect();
        let yw: Vec<f64> = ys.iter().map(|p| p.1).collect();
        total += max_similarity_transport(&xw, &yw, |i, j| {
            same_stem_similarity(&xs[i].0, &ys[j].0, partial)
        });
    }
    total
}

/// [`stem_match_groups`] on two bags, grouping them with `stem` (one word → its stem).
pub fn stem_match(x: &Bag, y: &Bag, stem: impl Fn(&str) -> String, partial: f64) -> f64 {
    stem_match_groups(
        &StemGroups::new(x, &stem),
        &StemGroups::new(y, &stem),
        partial,
    )
}

/// Residual capacities below this are treated as exhausted.
const CAPACITY_EPS: f64 = 1e-12;

/// The exact optimum of the transportation LP: maximize Σ sim(i,j)·w(i,j) subject to
/// Σ_j w(i,j) ≤ x[i], Σ_i w(i,j) ≤ y[j], w ≥ 0, for similarities in [0, 1].
///
/// Min-cost flow by successive shortest paths (Bellman-Ford, since costs −sim are negative):
/// source → xᵢ (capacity x[i]) → yⱼ (cost −sim(i,j)) → sink (capacity y[j]); augmenting stops
/// when the cheapest path no longer has negative cost, which is the maximum of the objective
/// because the min cost is convex in the amount of flow. Meant for small problems (one group
/// of n-grams sharing a stem sequence).
pub fn max_similarity_transport(x: &[f64], y: &[f64], sim: impl Fn(usize, usize) -> f64) -> f64 {
    struct Arc {
        to: usize,
        cap: f64,
        cost: f64,
    }
    let (n, m) = (x.len(), y.len());
    let source = n + m;
    let sink = n + m + 1;
    let nodes = n + m + 2;
    let mut arcs: Vec<Arc> = Vec::new();
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    let mut add_arc = |from: usize, to: usize, cap: f64, cost: f64| {
        out[from].push(arcs.len());
        arcs.push(Arc { to, cap, cost });
        out[to].push(arcs.len());
        arcs.push(Arc {
            to: from,
            cap: 0.0,
            cost: -cost,
        });
    };
    for (i, &xi) in x.iter().enumerate() {
        if xi > 0.0 {
            add_arc(source, i, xi, 0.0);
        }
    }
    for (j, &yj) in y.iter().enumerate() {
        if yj > 0.0 {
            add_arc(n + j, sink, yj, 0.0);
        }
    }
    for (i, &xi) in x.iter().enumerate() {
        for (j, &yj) in y.iter().enumerate() {
            let s = sim(i, j);
            if s > 0.0 && xi > 0.0 && yj > 0.0 {
                add_arc(i, n + j, xi.min(yj), -s);
            }
        }
    }

    let mut total = 0.0;
    // Each augmentation saturates an arc; the cap only guards against float cycling.
    let max_rounds = 4 * arcs.len() + 16;
    for _ in 0..max_rounds {
        let mut dist = vec![f64::INFINITY; nodes];
        let mut via: Vec<Option<usize>> = vec![None; nodes];
        dist[source] = 0.0;
        for _ in 0..nodes {
            let mut changed = false;
            for from in 0..nodes {
                if dist[from].is_infinite() {
                    continue;
                }
                for &a in &out[from] {
                    let arc = &arcs[a];
                    if arc.cap > CAPACITY_EPS && dist[from] + arc.cost < dist[arc.to] - 1e-15 {
                        dist[arc.to] = dist[from] + arc.cost;
                        via[arc.to] = Some(a);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        if dist[sink] >= -1e-12 {
            break;
        }
        // Bottleneck along the path, then augment.
        let mut bottleneck = f64::INFINITY;
        let mut node = sink;
        while let Some(a) = via[node] {
            bottleneck = bottleneck.min(arcs[a].cap);
            node = arcs[a ^ 1].to;
        }
        if node != source || !bottleneck.is_finite() || bottleneck <= CAPACITY_EPS {
            break;
        }
        let mut node = sink;
        while let Some(a) = via[node] {
            arcs[a].cap -= bottleneck;
            arcs[a ^ 1].cap += bottleneck;
            node = arcs[a ^ 1].to;
        }
        total += -dist[sink] * bottleneck;
    }
    total
}

/// F = PR/(αP + (1−α)R) with P = S/Σy^W (candidate) and R = S/Σx^W (reference); 0 when S = 0.
pub fn f_measure(matched: f64, reference_total: f64, candidate_total: f64, alpha: f64) -> f64 {
    if matched <= 0.0 || reference_total <= 0.0 || candidate_total <= 0.0 {
        return 0.0;
    }
    let precision = matched / candidate_total;
    let recall = matched / reference_total;
    precision * recall / (alpha * precision + (1.0 - alpha) * recall)
}

/// The unigram and skip-bigram bags of one text, with their stem groups.
struct Bags {
    unigrams: Bag,
    skip_bigrams: Bag,
    unigram_stems: StemGroups,
    skip_bigram_stems: StemGroups,
}

/// Per-topic reference bags.
struct ReferenceBags {
    /// The options the bags were built with (the cache key is fixed).
    max_skip: usize,
    function_word_weight: f64,
    threshold: f64,
    bags: Vec<Bags>,
}

const FEATURES: &[&str] = &[
    "exact",
    "stem",
    "exact_unigram",
    "exact_skip_bigram",
    "stem_unigram",
    "stem_skip_bigram",
];

/// The `tesla` feature class.
pub struct Tesla {
    opts: TeslaOptions,
    function_words: FunctionWords,
    stemmer: fn(&str) -> String,
}

impl Tesla {
    pub fn new(opts: TeslaOptions) -> Tesla {
        Tesla::with_stemmer(opts, crate::text::porter::stem)
    }

    /// A class with another stemmer (tests force stem equalities with it).
    pub fn with_stemmer(opts: TeslaOptions, stemmer: fn(&str) -> String) -> Tesla {
        let function_words = FunctionWords::shipped(opts.closed_share_threshold);
        Tesla {
            opts,
            function_words,
            stemmer,
        }
    }

    fn bags(&self, text: &str) -> Bags {
        let tokens = word_tokens(text);
        let weight = |w: &str| {
            if self.function_words.contains(w) {
                self.opts.function_word_weight
            } else {
                1.0
            }
        };
        let unigrams = unigram_bag(&tokens, weight);
        let skip_bigrams = skip_bigram_bag(&tokens, self.opts.max_skip, weight);
        // Stem each distinct word once for both bags.
        let stems: HashMap<&str, String> = tokens
            .iter()
            .map(|t| (t.as_str(), (self.stemmer)(t)))
            .collect();
        let stem = |w: &str| stems.get(w).cloned().unwrap_or_else(|| (self.stemmer)(w));
        Bags {
            unigram_stems: StemGroups::new(&unigrams, stem),
            skip_bigram_stems: StemGroups::new(&skip_bigrams, stem),
            unigrams,
            skip_bigrams,
        }
    }

    fn reference_bags(&self, topic: &Topic) -> ReferenceBags {
        ReferenceBags {
            max_skip: self.opts.max_skip,
            function_word_weight: self.opts.function_word_weight,
            threshold: self.opts.closed_share_threshold,
            bags: topic
                .references
                .iter()
                .map(|r| self.bags(&r.text))
                .collect(),
        }
    }

    /// [exact, stem, exact_unigram, exact_skip_bigram, stem_unigram, stem_skip_bigram] against
    /// one reference.
    fn scores(&self, reference: &Bags, candidate: &Bags) -> [f64; 6] {
        let alpha = self.opts.alpha;
        let f = |matched: f64, x: &Bag, y: &Bag| f_measure(matched, x.total(), y.total(), alpha);
        let (xu, yu) = (&reference.unigrams, &candidate.unigrams);
        let (xb, yb) = (&reference.skip_bigrams, &candidate.skip_bigrams);
        let exact_uni = f(exact_match(xu, yu), xu, yu);
        let exact_bi = f(exact_match(xb, yb), xb, yb);
        let partial = self.opts.stem_similarity;
        let stem_uni = f(
            stem_match_groups(&reference.unigram_stems, &candidate.unigram_stems, partial),
            xu,
            yu,
        );
        let stem_bi = f(
            stem_match_groups(
                &reference.skip_bigram_stems,
                &candidate.skip_bigram_stems,
                partial,
            ),
            xb,
            yb,
        );
        [
            (exact_uni + exact_bi) / 2.0,
            (stem_uni + stem_bi) / 2.0,
            exact_uni,
            exact_bi,
            stem_uni,
            stem_bi,
        ]
    }
}

impl FeatureClass for Tesla {
    fn name(&self) -> &'static str {
        "tesla"
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("tesla.{f}")).collect()
    }
    fn needs_references(&self) -> bool {
        true
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let topic = ctx.topic;
        if topic.references.is_empty() {
            return vec![None; topic.summaries.len()];
        }
        let shared = ctx.shared("tesla.reference_bags", |t| self.reference_bags(t));
        let matches_options = shared.max_skip == self.opts.max_skip
            && shared.function_word_weight == self.opts.function_word_weight
            && shared.threshold == self.opts.closed_share_threshold;
        let references = if matches_options {
            shared
        } else {
            Arc::new(self.reference_bags(topic))
        };
        topic
            .summaries
            .iter()
            .map(|summary| {
                let candidate = self.bags(&summary.text);
                let mut best = [f64::NEG_INFINITY; 6];
                for reference in &references.bags {
                    let scores = self.scores(reference, &candidate);
                    for (b, s) in best.iter_mut().zip(scores) {
                        *b = b.max(s);
                    }
                }
                Some(best.to_vec())
            })
            .collect()
    }
}
