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
//!   [`max_similarity_transport`] (successive shortest paths). The stemmer is a parameter of
//!   the [`Lexicon`] (the class uses `aesop_text::porter::stem`).
//! * **Representation**: words and stems are interned per topic ([`Lexicon`]); an n-gram is a
//!   packed pair of ids and a bag is a vector sorted by it, so matching a summary against a
//!   reference is a linear merge with no string hashing.
//! * **Score**: P = S/Σ y^W (candidate), R = S/Σ x^W (reference),
//!   F = PR/(αP + (1−α)R) with α = 0.8 (F = 0 when S = 0); the TESLA-S score is the mean of the
//!   unigram and skip-bigram F; with several references, the maximum over references (each
//!   feature's maximum is taken independently).
//!
//! Features: `tesla.exact`, `tesla.stem` and their components `tesla.{exact,stem}_unigram`,
//! `tesla.{exact,stem}_skip_bigram`. Reference-based: `None` rows for topics without
//! references.

use super::graph::FastState;
use super::reference_runs::ReferenceRuns;
use super::surface::word_tokens;
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};
use std::collections::{HashMap, HashSet};

/// The shipped function-word list (CC BY-SA 4.0; see features/ATTRIBUTION-function-words.md).
pub(crate) const SHIPPED_FUNCTION_WORDS: &str =
    include_str!("../../../features/function_words_ud_en.tsv");

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
    words: HashSet<String, FastState>,
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
        let mut words = HashSet::default();
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

/// Word ids and stem ids for one topic: n-grams are compared as packed ids, never as strings.
#[derive(Debug, Clone)]
pub struct Lexicon {
    stemmer: fn(&str) -> String,
    word_ids: HashMap<String, u32, FastState>,
    words: Vec<String>,
    /// Stem id of each word id.
    stem_of: Vec<u32>,
    stem_ids: HashMap<String, u32, FastState>,
}

/// The second half of a unigram's key (no word id reaches it).
const NO_WORD: u32 = u32::MAX;

/// The key of the n-gram of one or two word (or stem) ids.
fn pack(first: u32, second: u32) -> u64 {
    (u64::from(first) << 32) | u64::from(second)
}

fn unpack(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

impl Lexicon {
    /// An empty lexicon stemming words with `stemmer`.
    pub fn new(stemmer: fn(&str) -> String) -> Lexicon {
        Lexicon {
            stemmer,
            word_ids: HashMap::default(),
            words: Vec::new(),
            stem_of: Vec::new(),
            stem_ids: HashMap::default(),
        }
    }
    /// The id of `word`, adding it (and its stem) when new.
    pub fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.word_ids.get(word) {
            return id;
        }
        let stem = (self.stemmer)(word);
        let next_stem = self.stem_ids.len() as u32;
        let stem_id = *self.stem_ids.entry(stem).or_insert(next_stem);
        let id = self.words.len() as u32;
        self.word_ids.insert(word.to_string(), id);
        self.words.push(word.to_string());
        self.stem_of.push(stem_id);
        id
    }
    /// Ids of `tokens`, interning new words.
    pub fn ids(&mut self, tokens: &[String]) -> Vec<u32> {
        tokens.iter().map(|t| self.intern(t)).collect()
    }
    /// Forget every word (and stem) interned after the lexicon had `words` words and `stems`
    /// stems ([`Lexicon::len`], [`Lexicon::stems`]).
    pub fn truncate(&mut self, words: usize, stems: usize) {
        for word in self.words.drain(words.min(self.words.len())..) {
            self.word_ids.remove(&word);
        }
        self.stem_of.truncate(words);
        if self.stem_ids.len() > stems {
            self.stem_ids.retain(|_, id| (*id as usize) < stems);
        }
    }
    /// The number of distinct stems interned so far.
    pub fn stems(&self) -> usize {
        self.stem_ids.len()
    }
    /// The number of words interned so far (ids are `0..len()`).
    pub fn len(&self) -> usize {
        self.words.len()
    }
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
    /// The word with id `id`.
    pub fn word(&self, id: u32) -> Option<&str> {
        self.words.get(id as usize).map(String::as_str)
    }
    /// The key of an n-gram given as one or two space-separated known words (`None` otherwise).
    pub fn key(&self, ngram: &str) -> Option<u64> {
        let mut words = ngram.split(' ');
        let first = *self.word_ids.get(words.next()?)?;
        let second = match words.next() {
            Some(w) => *self.word_ids.get(w)?,
            None => NO_WORD,
        };
        words.next().is_none().then_some(pack(first, second))
    }
    fn stem(&self, id: u32) -> u32 {
        if id == NO_WORD {
            NO_WORD
        } else {
            self.stem_of[id as usize]
        }
    }
    /// The stem-sequence key of an n-gram key.
    fn stem_key(&self, key: u64) -> u64 {
        let (first, second) = unpack(key);
        pack(self.stem(first), self.stem(second))
    }
}

/// A weighted bag of n-grams: each distinct n-gram (a [`Lexicon`] key) with the sum of the
/// weights of its occurrences, sorted by key so two bags are matched by a linear merge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bag {
    entries: Vec<(u64, f64)>,
    total: f64,
}

impl Bag {
    /// A bag of the n-gram occurrences `keys`, each weighing `weight(key)`. Only the keys are
    /// sorted (a weight is a function of its key), and each key's weight is added once per
    /// occurrence, so the sums are those of adding the occurrences one by one in key order.
    fn from_keys(mut keys: Vec<u64>, weight: impl Fn(u64) -> f64) -> Bag {
        keys.sort_unstable();
        let mut entries: Vec<(u64, f64)> = Vec::with_capacity(keys.len());
        let mut total = 0.0;
        for key in keys {
            let w = weight(key);
            total += w;
            match entries.last_mut() {
                Some(last) if last.0 == key => last.1 += w,
                _ => entries.push((key, w)),
            }
        }
        Bag { entries, total }
    }
    /// The weight of the n-gram `key` (0 when absent).
    pub fn weight(&self, key: u64) -> f64 {
        self.entries
            .binary_search_by_key(&key, |e| e.0)
            .map_or(0.0, |i| self.entries[i].1)
    }
    /// Σ of all weights.
    pub fn total(&self) -> f64 {
        self.total
    }
    /// Number of distinct n-grams.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// (key, weight) in key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        self.entries.iter().copied()
    }
}

/// The bag of unigrams of the word ids `ids`, each occurrence weighing `word_weight(id)`.
pub fn unigram_bag(ids: &[u32], word_weight: impl Fn(u32) -> f64) -> Bag {
    Bag::from_keys(ids.iter().map(|&id| pack(id, NO_WORD)).collect(), |key| {
        word_weight(unpack(key).0)
    })
}

/// The bag of skip bigrams of `ids`: pairs (tᵢ, tⱼ), i < j ≤ i + max_skip + 1, each weighing
/// the mean of its two words' weights.
pub fn skip_bigram_bag(ids: &[u32], max_skip: usize, word_weight: impl Fn(u32) -> f64) -> Bag {
    let mut keys = Vec::with_capacity(ids.len() * (max_skip + 1));
    for (i, &first) in ids.iter().enumerate() {
        for &second in ids.iter().skip(i + 1).take(max_skip + 1) {
            keys.push(pack(first, second));
        }
    }
    Bag::from_keys(keys, |key| {
        let (first, second) = unpack(key);
        (word_weight(first) + word_weight(second)) / 2.0
    })
}

/// The matching optimum with exact similarity: Σ over shared n-grams of min(x^W, y^W)
/// (a merge of the two sorted bags).
pub fn exact_match(x: &Bag, y: &Bag) -> f64 {
    let (mut i, mut j, mut total) = (0, 0, 0.0);
    while i < x.entries.len() && j < y.entries.len() {
        let (kx, wx) = x.entries[i];
        let (ky, wy) = y.entries[j];
        match kx.cmp(&ky) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                total += wx.min(wy);
                i += 1;
                j += 1;
            }
        }
    }
    total
}

/// Similarity of two n-grams whose words have the same stems: the mean over word positions of
/// 1 (identical words) or `partial` (different forms).
fn same_stem_similarity(a: u64, b: u64, partial: f64) -> f64 {
    if a == b {
        return 1.0;
    }
    let ((a1, a2), (b1, b2)) = (unpack(a), unpack(b));
    let word = |u: u32, v: u32| if u == v { 1.0 } else { partial };
    if a2 == NO_WORD {
        word(a1, b1)
    } else {
        (word(a1, b1) + word(a2, b2)) / 2.0
    }
}

/// A bag's n-grams sorted by stem sequence, for [`stem_match`]. Build it once per text.
#[derive(Debug, Clone, Default)]
pub struct StemView {
    /// (stem key, n-gram key, weight), sorted.
    entries: Vec<(u64, u64, f64)>,
}

impl StemView {
    pub fn new(bag: &Bag, lexicon: &Lexicon) -> StemView {
        let mut entries: Vec<(u64, u64, f64)> = bag
            .iter()
            .map(|(key, w)| (lexicon.stem_key(key), key, w))
            .collect();
        entries.sort_unstable_by_key(|e| (e.0, e.1));
        StemView { entries }
    }
}

/// The end of the run of entries sharing `entries[start]`'s stem key.
fn stem_run_end(entries: &[(u64, u64, f64)], start: usize) -> usize {
    let stem = entries[start].0;
    start + entries[start..].iter().take_while(|e| e.0 == stem).count()
}

/// The matching optimum with stem similarity: identical n-grams score 1, n-grams with the same
/// stem sequence score by the mean word similarity (1 identical, `partial` otherwise), others
/// 0, so each stem sequence is an independent transportation problem.
pub fn stem_match(x: &StemView, y: &StemView, partial: f64) -> f64 {
    let (xe, ye) = (&x.entries, &y.entries);
    let (mut i, mut j, mut total) = (0, 0, 0.0);
    while i < xe.len() && j < ye.len() {
        match xe[i].0.cmp(&ye[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let (xi_end, yj_end) = (stem_run_end(xe, i), stem_run_end(ye, j));
                total += stem_run_match(&xe[i..xi_end], &ye[j..yj_end], partial);
                i = xi_end;
                j = yj_end;
            }
        }
    }
    total
}

/// The matched weight of the n-grams of one stem sequence: `xs` from the reference's view, `ys`
/// from the candidate's.
fn stem_run_match(xs: &[(u64, u64, f64)], ys: &[(u64, u64, f64)], partial: f64) -> f64 {
    if let ([a], [b]) = (xs, ys) {
        // The common case: one form on each side, no LP needed.
        same_stem_similarity(a.1, b.1, partial) * a.2.min(b.2)
    } else {
        let xw: Vec<f64> = xs.iter().map(|e| e.2).collect();
        let yw: Vec<f64> = ys.iter().map(|e| e.2).collect();
        max_similarity_transport(&xw, &yw, |p, q| {
            same_stem_similarity(xs[p].1, ys[q].1, partial)
        })
    }
}

/// Residual capacities below this are treated as exhausted.
const CAPACITY_EPS: f64 = 1e-12;

/// The exact optimum of the transportation LP: maximize Σ sim(i,j)·w(i,j) subject to
/// Σ_j w(i,j) ≤ `x[i]`, Σ_i w(i,j) ≤ `y[j]`, w ≥ 0, for similarities in [0, 1].
///
/// Min-cost flow by successive shortest paths (Bellman-Ford, since costs −sim are negative):
/// source → xᵢ (capacity `x[i]`) → yⱼ (cost −sim(i,j)) → sink (capacity `y[j]`); augmenting stops
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

/// The unigram and skip-bigram bags of one text, with their stem views.
struct Bags {
    unigrams: Bag,
    skip_bigrams: Bag,
    unigram_stems: StemView,
    skip_bigram_stems: StemView,
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
        Tesla::with_stemmer(opts, aesop_text::porter::stem)
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

    /// The bags of `text`. `word_weights` holds the weight of every word id of `lexicon`
    /// (function words weigh less) and grows with it, so a word is looked up in the
    /// function-word list once per topic.
    fn bags(&self, text: &str, lexicon: &mut Lexicon, word_weights: &mut Vec<f64>) -> Bags {
        let ids = lexicon.ids(&word_tokens(text));
        for id in word_weights.len()..lexicon.len() {
            let function = lexicon
                .word(id as u32)
                .is_some_and(|w| self.function_words.contains(w));
            word_weights.push(if function {
                self.opts.function_word_weight
            } else {
                1.0
            });
        }
        let weight = |id: u32| word_weights[id as usize];
        let unigrams = unigram_bag(&ids, weight);
        let skip_bigrams = skip_bigram_bag(&ids, self.opts.max_skip, weight);
        Bags {
            unigram_stems: StemView::new(&unigrams, lexicon),
            skip_bigram_stems: StemView::new(&skip_bigrams, lexicon),
            unigrams,
            skip_bigrams,
        }
    }

    /// [exact, stem, exact_unigram, exact_skip_bigram, stem_unigram, stem_skip_bigram] of
    /// `candidate` against one reference, from the four matched weights
    /// [`ReferenceIndex::matches`] gives for it.
    fn scores(&self, matched: [f64; 4], reference: &Bags, candidate: &Bags) -> [f64; 6] {
        let alpha = self.opts.alpha;
        let f = |matched: f64, x: &Bag, y: &Bag| f_measure(matched, x.total(), y.total(), alpha);
        let (xu, yu) = (&reference.unigrams, &candidate.unigrams);
        let (xb, yb) = (&reference.skip_bigrams, &candidate.skip_bigrams);
        let exact_uni = f(matched[0], xu, yu);
        let exact_bi = f(matched[1], xb, yb);
        let stem_uni = f(matched[2], xu, yu);
        let stem_bi = f(matched[3], xb, yb);
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

/// Where each n-gram (or stem sequence) of a topic's references occurs: key → a run of
/// (reference, weight) or (reference, stem-view run) entries, so a candidate is matched against
/// all references in one walk over its own bag instead of one merge per reference. Candidate
/// keys are visited in sorted order, so each reference's sum adds the same terms in the same
/// order as [`exact_match`] and [`stem_match`].
struct ReferenceIndex {
    unigrams: KeyIndex,
    skip_bigrams: KeyIndex,
    unigram_stems: StemIndex,
    skip_bigram_stems: StemIndex,
}

/// N-gram key → (reference, weight) of each reference holding it.
struct KeyIndex(ReferenceRuns<f64>);

impl KeyIndex {
    fn new<'b>(bags: impl Iterator<Item = &'b Bag>) -> KeyIndex {
        let triples = bags
            .enumerate()
            .flat_map(|(r, bag)| bag.iter().map(move |(key, w)| (key, r as u32, w)))
            .collect();
        KeyIndex(ReferenceRuns::new(triples))
    }

    /// Σ min(x^W, y^W) over the shared keys, per reference: [`exact_match`] of every reference
    /// with `candidate`.
    fn matches(&self, candidate: &Bag, totals: &mut [f64]) {
        for (key, wy) in candidate.iter() {
            for &(r, wx) in self.0.get(key) {
                totals[r as usize] += wx.min(wy);
            }
        }
    }
}

/// Stem key → (reference, (start, end)) of the entries with that stem key in each reference's
/// [`StemView`].
struct StemIndex(ReferenceRuns<(u32, u32)>);

impl StemIndex {
    fn new<'v>(views: impl Iterator<Item = &'v StemView>) -> StemIndex {
        let mut triples = Vec::new();
        for (r, view) in views.enumerate() {
            let mut start = 0;
            while start < view.entries.len() {
                let end = stem_run_end(&view.entries, start);
                triples.push((view.entries[start].0, r as u32, (start as u32, end as u32)));
                start = end;
            }
        }
        StemIndex(ReferenceRuns::new(triples))
    }

    /// [`stem_match`] of every reference view in `views` with `candidate`, per reference.
    fn matches(&self, views: &[&StemView], candidate: &StemView, partial: f64, totals: &mut [f64]) {
        let ye = &candidate.entries;
        let mut j = 0;
        while j < ye.len() {
            let yj_end = stem_run_end(ye, j);
            let ys = &ye[j..yj_end];
            for &(r, (start, end)) in self.0.get(ye[j].0) {
                let xs = &views[r as usize].entries[start as usize..end as usize];
                totals[r as usize] += stem_run_match(xs, ys, partial);
            }
            j = yj_end;
        }
    }
}

impl ReferenceIndex {
    fn new(references: &[Bags]) -> ReferenceIndex {
        ReferenceIndex {
            unigrams: KeyIndex::new(references.iter().map(|b| &b.unigrams)),
            skip_bigrams: KeyIndex::new(references.iter().map(|b| &b.skip_bigrams)),
            unigram_stems: StemIndex::new(references.iter().map(|b| &b.unigram_stems)),
            skip_bigram_stems: StemIndex::new(references.iter().map(|b| &b.skip_bigram_stems)),
        }
    }

    /// Per reference: [exact unigram, exact skip-bigram, stem unigram, stem skip-bigram]
    /// matched weight of `candidate`.
    fn matches(&self, references: &[Bags], candidate: &Bags, partial: f64) -> Vec<[f64; 4]> {
        let n = references.len();
        let mut totals = vec![0.0; 4 * n];
        let (exact_uni, rest) = totals.split_at_mut(n);
        let (exact_bi, rest) = rest.split_at_mut(n);
        let (stem_uni, stem_bi) = rest.split_at_mut(n);
        self.unigrams.matches(&candidate.unigrams, exact_uni);
        self.skip_bigrams.matches(&candidate.skip_bigrams, exact_bi);
        let views: Vec<&StemView> = references.iter().map(|b| &b.unigram_stems).collect();
        self.unigram_stems
            .matches(&views, &candidate.unigram_stems, partial, stem_uni);
        let views: Vec<&StemView> = references.iter().map(|b| &b.skip_bigram_stems).collect();
        self.skip_bigram_stems
            .matches(&views, &candidate.skip_bigram_stems, partial, stem_bi);
        (0..n)
            .map(|r| {
                [
                    totals[r],
                    totals[n + r],
                    totals[2 * n + r],
                    totals[3 * n + r],
                ]
            })
            .collect()
    }
}

/// The `tesla` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "tesla",
    about: "TESLA-S against the references",
    default: true,
    references: ReferenceUse::All,
    batch_dependent: false,
    options: &["tesla_alpha", "tesla_stem_similarity"],
    // Partial stem matches score only the stem features; the exact ones match words as written.
    partial_options: &[(
        "tesla_stem_similarity",
        &["stem", "stem_unigram", "stem_skip_bigram"],
    )],
    build: |o| Ok(Box::new(Tesla::new(o.tesla.clone()))),
};

impl FeatureClass for Tesla {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("tesla.{f}")).collect()
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let topic = ctx.topic;
        if topic.references.is_empty() {
            return vec![None; topic.summaries.len()];
        }
        // Reference bags are built once per topic; no other class uses them, so they live
        // here rather than in the topic cache. Each summary's own new words are forgotten after
        // it: their ids (which order the sums) then depend on that summary alone, so its
        // features do not move in the last bit with the order of the topic's summaries.
        let mut lexicon = Lexicon::new(self.stemmer);
        let mut word_weights = Vec::new();
        let references: Vec<Bags> = topic
            .references
            .iter()
            .map(|r| self.bags(&r.text, &mut lexicon, &mut word_weights))
            .collect();
        let (reference_words, reference_stems) = (lexicon.len(), lexicon.stems());
        let index = ReferenceIndex::new(&references);
        topic
            .summaries
            .iter()
            .map(|summary| {
                lexicon.truncate(reference_words, reference_stems);
                word_weights.truncate(reference_words);
                let candidate = self.bags(&summary.text, &mut lexicon, &mut word_weights);
                let matched = index.matches(&references, &candidate, self.opts.stem_similarity);
                let mut best = [f64::NEG_INFINITY; 6];
                for (reference, matched) in references.iter().zip(matched) {
                    let scores = self.scores(matched, reference, &candidate);
                    for (b, s) in best.iter_mut().zip(scores) {
                        *b = b.max(s);
                    }
                }
                Some(best.to_vec())
            })
            .collect()
    }
}
