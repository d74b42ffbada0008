//! Word-distribution math shared by the `content` and `consensus` classes: word counts,
//! Lidstone smoothing, KL and Jensen-Shannon divergence, tf·idf cosine, the log-likelihood
//! ratio test for topic signatures, and summary likelihoods.
//!
//! Everything works on token counts, so it is independent of the tokenization profile.
//! All logarithms are natural unless a [`LogBase`] says otherwise.

/// A hash map keyed by words. FxHash: word tables are hashed millions of times and are not
/// exposed to adversarial keys, so SipHash's flooding resistance buys nothing here.
pub type WordMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Lidstone δ used by SIMetrix (`InputBasedEvaluation.java`: "the fractional count added … is
/// 0.005"). Note: the text of Louis & Nenkova (2013), §4.2.1, says 0.0005; we follow the
/// released tool and METHODS.md, and keep δ an option.
pub const SIMETRIX_DELTA: f64 = 0.005;

/// Number of smoothing bins as a multiple of the input vocabulary size (paper, eq. 3: B = 1.5·V).
pub const SIMETRIX_BINS_FACTOR: f64 = 1.5;

/// Word counts of a text or of a pool of texts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordCounts {
    counts: WordMap<String, u64>,
    total: u64,
}

impl WordCounts {
    /// No words.
    pub fn new() -> WordCounts {
        WordCounts::default()
    }

    /// Counts of a token sequence.
    pub fn from_tokens<S: AsRef<str>>(tokens: &[S]) -> WordCounts {
        let mut counts = WordCounts::new();
        // Most tokens of a short text are distinct: reserve once instead of rehashing.
        counts.counts.reserve(tokens.len());
        counts.add_tokens(tokens);
        counts
    }

    /// Add one occurrence of each token.
    pub fn add_tokens<S: AsRef<str>>(&mut self, tokens: &[S]) {
        for token in tokens {
            self.add(token.as_ref(), 1);
        }
    }

    /// Add `n` occurrences of `word`.
    pub fn add(&mut self, word: &str, n: u64) {
        if n == 0 {
            return;
        }
        match self.counts.get_mut(word) {
            Some(c) => *c += n,
            None => {
                self.counts.insert(word.to_string(), n);
            }
        }
        self.total += n;
    }

    /// Add all counts of `other` (pooling two texts).
    pub fn add_counts(&mut self, other: &WordCounts) {
        for (word, n) in other.iter() {
            self.add(word, n);
        }
    }

    /// Remove the counts of `other` (taking a text back out of a pool). Counts never go below
    /// zero, and words that reach zero leave the vocabulary.
    pub fn subtract_counts(&mut self, other: &WordCounts) {
        for (word, n) in other.iter() {
            if let Some(c) = self.counts.get_mut(word) {
                let removed = n.min(*c);
                *c -= removed;
                self.total -= removed;
                if *c == 0 {
                    self.counts.remove(word);
                }
            }
        }
    }

    /// Occurrences of `word` (0 when absent).
    pub fn count(&self, word: &str) -> u64 {
        self.counts.get(word).copied().unwrap_or(0)
    }

    /// Number of tokens N.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Number of distinct words V.
    pub fn vocabulary_size(&self) -> usize {
        self.counts.len()
    }

    /// No tokens at all.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `(word, count)` pairs in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.counts.iter().map(|(w, &c)| (w.as_str(), c))
    }

    /// Unsmoothed relative frequency c(w)/N (0 when there are no tokens).
    pub fn relative_frequency(&self, word: &str) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.count(word) as f64 / self.total as f64
        }
    }
}

/// Lidstone (additive) smoothing p(w) = (c(w) + δ) / (N + δ·B) (Louis & Nenkova 2013, eq. 3).
///
/// As in SIMetrix, both distributions of a comparison use the same `bins` B (1.5 × the input
/// vocabulary), and the divergences sum over the union of the two vocabularies only: the mass
/// δ·(B − |union|)/(N + δB) of the remaining hypothetical bins is not summed over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lidstone {
    pub delta: f64,
    pub bins: f64,
}

impl Lidstone {
    /// Smoothing whose bins are `bins_factor` × the vocabulary size of `reference` (the input).
    pub fn for_reference(reference: &WordCounts, delta: f64, bins_factor: f64) -> Lidstone {
        Lidstone {
            delta,
            bins: bins_factor * reference.vocabulary_size() as f64,
        }
    }

    /// Smoothed probability of a word seen `count` times among `total` tokens. NaN when the
    /// denominator is 0 (no tokens and no bins).
    pub fn prob(&self, count: u64, total: u64) -> f64 {
        let denominator = total as f64 + self.delta * self.bins;
        if denominator <= 0.0 {
            return f64::NAN;
        }
        (count as f64 + self.delta) / denominator
    }
}

/// Two texts' counts over the union of their vocabularies: word i occurs `a[i]` times in the
/// first text and `b[i]` times in the second. Entries with both counts 0 must not occur (they
/// would receive smoothed mass). Which word is which is kept by whoever aligned them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AlignedCounts {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
}

/// KL both ways and JS, smoothed and unsmoothed, of one pair of texts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Divergences {
    /// KL(A‖B), both smoothed.
    pub kl_ab: f64,
    /// KL(B‖A), both smoothed.
    pub kl_ba: f64,
    /// Jensen-Shannon, unsmoothed (see [`js_divergence`]).
    pub js: f64,
    /// Jensen-Shannon, smoothed (see [`js_divergence_smoothed`]).
    pub js_smoothed: f64,
}

impl WordCounts {
    /// This text and `other` aligned over the union of their vocabularies, with the word of each
    /// entry: this text's words first, then the others, each group sorted, so that sums over
    /// the union are reproducible to the last bit.
    pub fn align<'a>(&'a self, other: &'a WordCounts) -> (Vec<&'a str>, AlignedCounts) {
        let mut words: Vec<&str> = self.counts.keys().map(String::as_str).collect();
        words.sort_unstable();
        let mut extra: Vec<&str> = other
            .counts
            .keys()
            .map(String::as_str)
            .filter(|w| !self.counts.contains_key(*w))
            .collect();
        extra.sort_unstable();
        words.extend(extra);
        let a = words.iter().map(|w| self.count(w)).collect();
        let b = words.iter().map(|w| other.count(w)).collect();
        (words, AlignedCounts { a, b })
    }
}

/// A fixed text (an input) indexed once, to be aligned with many others (its summaries)
/// without re-sorting or re-hashing its own vocabulary.
#[derive(Debug, Clone, Default)]
pub struct IndexedCounts {
    words: Vec<String>,
    counts: Vec<u64>,
    position: WordMap<String, usize>,
}

impl IndexedCounts {
    pub fn new(counts: &WordCounts) -> IndexedCounts {
        let mut words: Vec<String> = counts.counts.keys().cloned().collect();
        words.sort_unstable();
        let position = words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i))
            .collect();
        let counts = words.iter().map(|w| counts.count(w)).collect();
        IndexedCounts {
            words,
            counts,
            position,
        }
    }

    /// The words, sorted: entries `0..len()` of every alignment.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Counts in [`IndexedCounts::words`] order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Number of distinct words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// No words.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Align with `other` (this text as `a`): entries `0..len()` are this text's words, the
    /// rest are `other`'s words absent here, returned in entry order (sorted).
    pub fn align<'a>(&self, other: &'a WordCounts) -> (Vec<&'a str>, AlignedCounts) {
        let mut b = vec![0; self.words.len()];
        let mut extra: Vec<(&str, u64)> = Vec::new();
        for (word, n) in other.iter() {
            match self.position.get(word) {
                Some(&i) => b[i] = n,
                None => extra.push((word, n)),
            }
        }
        extra.sort_unstable();
        let mut a = self.counts.clone();
        a.resize(self.words.len() + extra.len(), 0);
        b.extend(extra.iter().map(|&(_, n)| n));
        let extra_words = extra.into_iter().map(|(w, _)| w).collect();
        (extra_words, AlignedCounts { a, b })
    }
}

/// `x · ln(x / y)` with the convention 0 · ln(0/y) = 0.
fn x_ln_x_over_y(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * (x / y).ln()
    }
}

/// Largest count whose smoothed terms are memoised. Most union words are absent from the
/// summary, and their terms depend only on their input count, so a small table removes most
/// logarithms.
const MEMO_COUNTS: usize = 256;

/// [`AlignedCounts::divergences`] with the vocabulary given as groups `(count in A, count in
/// B, number of words with those counts)` and the totals of both sides: words with equal
/// counts contribute equally, so a caller that knows how many words share counts (the
/// consensus pool) need not visit every word.
pub fn grouped_divergences(
    groups: impl IntoIterator<Item = (u64, u64, u64)>,
    (na, nb): (u64, u64),
    smoothing: Lidstone,
) -> Divergences {
    let (fa, fb) = (na as f64, nb as f64);
    // (KL(A‖B), KL(B‖A), JS) terms of one smoothed entry.
    let smoothed_terms = |ca: u64, cb: u64| {
        let (pa, pb) = (smoothing.prob(ca, na), smoothing.prob(cb, nb));
        let mean = (pa + pb) / 2.0;
        (
            x_ln_x_over_y(pa, pb),
            x_ln_x_over_y(pb, pa),
            x_ln_x_over_y(pa, mean) + x_ln_x_over_y(pb, mean),
        )
    };
    let mut memo: Vec<Option<(f64, f64, f64)>> = vec![None; MEMO_COUNTS];
    let (mut kl_ab, mut kl_ba, mut js_smoothed, mut js) = (0.0, 0.0, 0.0, 0.0);
    for (ca, cb, words) in groups {
        let (t_ab, t_ba, t_js) = match (cb, memo.get_mut(ca as usize)) {
            (0, Some(slot)) => *slot.get_or_insert_with(|| smoothed_terms(ca, 0)),
            _ => smoothed_terms(ca, cb),
        };
        // Unsmoothed JS: a word on one side only contributes p·ln(p/(p/2)) = p·ln 2.
        let t_js_unsmoothed = match (ca, cb) {
            (0, _) => cb as f64 / fb * std::f64::consts::LN_2,
            (_, 0) => ca as f64 / fa * std::f64::consts::LN_2,
            _ => {
                let (pa, pb) = (ca as f64 / fa, cb as f64 / fb);
                let mean = (pa + pb) / 2.0;
                x_ln_x_over_y(pa, mean) + x_ln_x_over_y(pb, mean)
            }
        };
        // 1.0 · t is t exactly, so one word per group sums bit for bit as a plain loop would.
        let weight = words as f64;
        kl_ab += weight * t_ab;
        kl_ba += weight * t_ba;
        js_smoothed += weight * t_js;
        js += weight * t_js_unsmoothed;
    }
    let js = match (na == 0, nb == 0) {
        (true, true) => f64::NAN,
        (true, false) | (false, true) => std::f64::consts::LN_2,
        (false, false) => js / 2.0,
    };
    Divergences {
        kl_ab,
        kl_ba,
        js,
        js_smoothed: js_smoothed / 2.0,
    }
}

impl AlignedCounts {
    /// Aligned counts from two equally long vectors.
    pub fn new(a: Vec<u64>, b: Vec<u64>) -> AlignedCounts {
        debug_assert_eq!(a.len(), b.len());
        AlignedCounts { a, b }
    }

    /// Token totals of both sides.
    pub fn totals(&self) -> (u64, u64) {
        (self.a.iter().sum(), self.b.iter().sum())
    }

    /// All four divergences in one pass, both sides smoothed with `smoothing` where smoothed.
    /// Natural log. See [`kl_divergence_smoothed`], [`js_divergence`], [`js_divergence_smoothed`]
    /// for the conventions.
    pub fn divergences(&self, smoothing: Lidstone) -> Divergences {
        grouped_divergences(
            self.a.iter().zip(&self.b).map(|(&ca, &cb)| (ca, cb, 1)),
            self.totals(),
            smoothing,
        )
    }

    /// ln-probability of text B as a unigram sample from the distribution of text A; see
    /// [`unigram_log_likelihood`] (A the input, B the summary).
    pub fn log_likelihood_of_b(&self, smoothing: Option<Lidstone>) -> f64 {
        let (na, _) = self.totals();
        self.a
            .iter()
            .zip(&self.b)
            .filter(|&(_, &cb)| cb > 0)
            .map(|(&ca, &cb)| {
                let p = match smoothing {
                    Some(s) => s.prob(ca, na),
                    None if ca == 0 => return 0.0,
                    None => ca as f64 / na as f64,
                };
                cb as f64 * p.ln()
            })
            .sum()
    }

    /// Cosine of the tf·idf vectors, `idf[i]` the weight of entry i; see [`tfidf_cosine`].
    /// Entries past the end of `idf` get weight 0.
    pub fn tfidf_cosine(&self, idf: &[f64]) -> f64 {
        let (mut dot, mut norm_a, mut norm_b) = (0.0, 0.0, 0.0);
        for ((&ca, &cb), &w) in self.a.iter().zip(&self.b).zip(idf) {
            let (wa, wb) = (ca as f64 * w, cb as f64 * w);
            dot += wa * wb;
            norm_a += wa * wa;
            norm_b += wb * wb;
        }
        if dot == 0.0 {
            0.0
        } else {
            dot / (norm_a.sqrt() * norm_b.sqrt())
        }
    }
}

/// KL(P‖Q) = Σ_w p(w) ln(p(w)/q(w)) with both P and Q Lidstone-smoothed by `smoothing`,
/// summed over the union of the two vocabularies (SIMetrix's convention). NaN when smoothing is
/// undefined (no tokens and no bins).
pub fn kl_divergence_smoothed(p: &WordCounts, q: &WordCounts, smoothing: Lidstone) -> f64 {
    p.align(q).1.divergences(smoothing).kl_ab
}

/// Jensen-Shannon divergence ½[KL(P‖A) + KL(Q‖A)], A = (P+Q)/2, of the unsmoothed relative
/// frequencies; natural log, so it lies in [0, ln 2].
///
/// When exactly one side has no tokens the value is ln 2, the divergence of two distributions
/// with disjoint support (an empty summary shares nothing with its input). NaN when both are
/// empty.
pub fn js_divergence(p: &WordCounts, q: &WordCounts) -> f64 {
    // The smoothing does not affect the unsmoothed value; any defined one will do.
    let any = Lidstone {
        delta: 1.0,
        bins: 1.0,
    };
    p.align(q).1.divergences(any).js
}

/// Jensen-Shannon divergence of the Lidstone-smoothed distributions (same union-vocabulary
/// convention as [`kl_divergence_smoothed`]). An empty side is smoothed like any other text
/// (every word gets δ/(δB) = 1/B). NaN when smoothing is undefined.
pub fn js_divergence_smoothed(p: &WordCounts, q: &WordCounts, smoothing: Lidstone) -> f64 {
    p.align(q).1.divergences(smoothing).js_smoothed
}

/// Cosine of the tf·idf vectors of two texts, tf = raw count, idf from `idf`.
/// 0 when the vectors share no weighted word (including when either is empty), as SIMetrix.
pub fn tfidf_cosine(a: &WordCounts, b: &WordCounts, idf: impl Fn(&str) -> f64) -> f64 {
    let (words, aligned) = a.align(b);
    let weights: Vec<f64> = words.iter().map(|w| idf(w)).collect();
    aligned.tfidf_cosine(&weights)
}

/// Base of the logarithm in the log-likelihood ratio statistic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LogBase {
    /// −2·ln λ, asymptotically χ² with 1 degree of freedom (10.83 ↔ p = 0.001).
    #[default]
    E,
    /// −2·log10 λ, as SIMetrix computes it (its cutoff 10 ≈ 23.03 on the ln scale).
    Ten,
}

impl LogBase {
    /// Logarithm of `x` in this base.
    pub fn log(self, x: f64) -> f64 {
        match self {
            LogBase::E => x.ln(),
            LogBase::Ten => x.log10(),
        }
    }
}

/// Log-likelihood ratio statistic −2 log λ (Dunning 1993; Lin & Hovy 2000) of the 2×2 table
///
/// ```text
///                 word w    other words
///   input          o11         o21
///   background     o12         o22
/// ```
///
/// comparing "w has the same rate in both" (p = (o11+o12)/N) against "different rates"
/// (p1 = o11/(o11+o21), p2 = o12/(o12+o22)), with binomial likelihoods and 0·log 0 = 0.
/// Returns 0 for an empty table.
pub fn log_likelihood_ratio(o11: f64, o12: f64, o21: f64, o22: f64, base: LogBase) -> f64 {
    // n·log(k/n) summed over the cells of one binomial, with 0·log 0 = 0.
    let term = |k: f64, n: f64| {
        if k <= 0.0 || n <= 0.0 {
            0.0
        } else {
            k * base.log(k / n)
        }
    };
    let n = o11 + o12 + o21 + o22;
    if n <= 0.0 {
        return 0.0;
    }
    let null = term(o11 + o12, n) + term(o21 + o22, n);
    let alternative =
        term(o11, o11 + o21) + term(o21, o11 + o21) + term(o12, o12 + o22) + term(o22, o12 + o22);
    // Rounding can make a zero statistic come out as -1e-13.
    (2.0 * (alternative - null)).max(0.0)
}

/// How to find an input's topic signatures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopicSignatureTest {
    /// A word is a topic word when −2 log λ exceeds this (in `log_base`).
    pub cutoff: f64,
    pub log_base: LogBase,
    /// Also require the word's input rate to exceed its background rate (Lin & Hovy select
    /// words *more* frequent in the input; SIMetrix omits this check).
    pub require_higher_input_rate: bool,
}

/// Topic signatures of `input` (Lin & Hovy 2000): input words whose log-likelihood ratio against
/// the background corpus exceeds the cutoff. The background is given as a count lookup and its
/// token total; the input is not part of it (as in SIMetrix). Sorted for reproducibility.
pub fn topic_signatures(
    input: &WordCounts,
    background_count: impl Fn(&str) -> u64,
    background_total: u64,
    test: TopicSignatureTest,
) -> Vec<String> {
    let n_input = input.total() as f64;
    let n_background = background_total as f64;
    let mut words: Vec<String> = input
        .iter()
        .filter(|&(word, c)| {
            let o11 = c as f64;
            let o12 = (background_count(word) as f64).min(n_background);
            if test.require_higher_input_rate
                && n_background > 0.0
                && o11 / n_input <= o12 / n_background
            {
                return false;
            }
            let llr =
                log_likelihood_ratio(o11, o12, n_input - o11, n_background - o12, test.log_base);
            llr > test.cutoff
        })
        .map(|(word, _)| word.to_string())
        .collect();
    words.sort_unstable();
    words
}

/// Share of the summary's tokens that are topic words (0 for an empty summary).
/// `topic_words` must not repeat a word.
pub fn topic_word_share<S: AsRef<str>>(summary: &WordCounts, topic_words: &[S]) -> f64 {
    if summary.is_empty() {
        return 0.0;
    }
    let hits: u64 = topic_words.iter().map(|w| summary.count(w.as_ref())).sum();
    hits as f64 / summary.total() as f64
}

/// Share of the topic words that occur in the summary (0 when there are no topic words).
pub fn topic_word_coverage<S: AsRef<str>>(summary: &WordCounts, topic_words: &[S]) -> f64 {
    if topic_words.is_empty() {
        return 0.0;
    }
    let present = topic_words
        .iter()
        .filter(|w| summary.count(w.as_ref()) > 0)
        .count();
    present as f64 / topic_words.len() as f64
}

/// Log of the unigram summary probability Π_w p_inp(w)^{n_w} (paper eq. 6), natural log, not
/// normalized by length (as in the paper and SIMetrix).
///
/// With `Some(smoothing)` every word is scored with the Lidstone-smoothed input probability, so
/// summary words absent from the input are penalised rather than making the value −∞. With
/// `None` the unsmoothed input frequency is used and absent words are skipped, which is what
/// SIMetrix does. An empty summary has log-probability 0 (probability 1). NaN when the input
/// is empty and smoothing is undefined.
pub fn unigram_log_likelihood(
    summary: &WordCounts,
    input: &WordCounts,
    smoothing: Option<Lidstone>,
) -> f64 {
    input.align(summary).1.log_likelihood_of_b(smoothing)
}

/// ln n! as a sum of logs (exact for summary lengths; std has no log-gamma). Values up to
/// 1023 come from a table built on first use.
pub fn ln_factorial(n: u64) -> f64 {
    static TABLE: std::sync::LazyLock<Vec<f64>> = std::sync::LazyLock::new(|| {
        let mut table = vec![0.0; 1024];
        for i in 2..table.len() {
            table[i] = table[i - 1] + (i as f64).ln();
        }
        table
    });
    match TABLE.get(n as usize) {
        Some(&v) => v,
        None => {
            TABLE[TABLE.len() - 1]
                + (TABLE.len() as u64..=n)
                    .map(|i| (i as f64).ln())
                    .sum::<f64>()
        }
    }
}

/// ln of the multinomial coefficient N! / (n_1! ⋯ n_r!) of the summary's counts.
pub fn ln_multinomial_coefficient(summary: &WordCounts) -> f64 {
    ln_factorial(summary.total()) - summary.iter().map(|(_, n)| ln_factorial(n)).sum::<f64>()
}

/// Log of the multinomial summary probability (paper eq. 7): the multinomial coefficient plus
/// [`unigram_log_likelihood`] (same smoothing convention).
pub fn multinomial_log_likelihood(
    summary: &WordCounts,
    input: &WordCounts,
    smoothing: Option<Lidstone>,
) -> f64 {
    ln_multinomial_coefficient(summary) + unigram_log_likelihood(summary, input, smoothing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(text: &str) -> WordCounts {
        let tokens: Vec<&str> = text.split_whitespace().collect();
        WordCounts::from_tokens(&tokens)
    }

    #[test]
    fn counts_pool_and_unpool() {
        let mut pool = counts("a b a");
        pool.add_counts(&counts("b c"));
        assert_eq!(
            (pool.count("a"), pool.count("b"), pool.count("c")),
            (2, 2, 1)
        );
        assert_eq!(pool.total(), 5);
        pool.subtract_counts(&counts("b c c"));
        assert_eq!((pool.count("b"), pool.count("c"), pool.total()), (1, 0, 3));
        assert_eq!(pool.vocabulary_size(), 2);
    }

    #[test]
    fn ln_factorial_table_and_beyond() {
        assert_eq!(ln_factorial(0), 0.0);
        assert_eq!(ln_factorial(1), 0.0);
        assert!((ln_factorial(5) - 120f64.ln()).abs() < 1e-12);
        // Past the table: the same sum of logs.
        let direct: f64 = (2..=1030u64).map(|i| (i as f64).ln()).sum();
        assert!((ln_factorial(1030) - direct).abs() < 1e-9 * direct);
    }

    #[test]
    fn log_base_ten_scales_llr() {
        let ln = log_likelihood_ratio(10.0, 5.0, 90.0, 995.0, LogBase::E);
        let log10 = log_likelihood_ratio(10.0, 5.0, 90.0, 995.0, LogBase::Ten);
        assert!((ln / log10 - std::f64::consts::LN_10).abs() < 1e-9);
    }
}
