//! Counting and smoothing: the trigram counts of a corpus, pruned, with Chen & Goodman's
//! modified Kneser-Ney discounts ([`LmCounts::train`]); the model's probabilities are derived
//! from them in [`super::LanguageModel::from_counts`].

use super::{BOS, EOS, ORDER, SPECIALS, UNK};
use rustc_hash::FxHashMap;

/// Training and pruning settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOptions {
    /// Words seen fewer times are `<unk>`.
    pub min_word_count: u64,
    /// At most this many words (the most frequent; ties by byte order), besides the specials.
    pub max_vocabulary: usize,
    /// Bigrams seen fewer times are pruned (their mass goes to the backoff weight).
    pub min_bigram_count: u64,
    /// Trigrams seen fewer times are pruned.
    pub min_trigram_count: u64,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            min_word_count: 2,
            max_vocabulary: 100_000,
            min_bigram_count: 1,
            min_trigram_count: 2,
        }
    }
}

/// The continuations kept for one context: the context's total adjusted count (over all
/// continuations, pruned ones included) and the kept `(word, adjusted count)` pairs, by word id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContextCounts {
    pub total: u64,
    pub entries: Vec<(u32, u64)>,
}

/// Everything the model file stores: the vocabulary, counts and discounts. Probabilities are
/// derived from it ([`super::LanguageModel::from_counts`]) the same way at build time and at load time.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LmCounts {
    /// Word of each id; ids 0, 1, 2 are `<unk>`, `<s>`, `</s>`, then words by falling count.
    pub words: Vec<String>,
    /// Raw token count of each id (`<s>`: number of sentences; `<unk>`: folded tokens).
    pub unigram_counts: Vec<u64>,
    /// Adjusted unigram count N1+(• w) of each id (0 for `<s>`).
    pub continuation_counts: Vec<u64>,
    /// Discounts D1, D2, D3+ of orders 1, 2, 3.
    pub discounts: [[f64; 3]; ORDER],
    /// Bigram contexts `v` with their kept continuations, sorted by `v`.
    pub bigrams: Vec<(u32, ContextCounts)>,
    /// Trigram contexts `(u, v)` with their kept continuations, sorted.
    pub trigrams: Vec<((u32, u32), ContextCounts)>,
    /// Build facts (`key`, `value`), e.g. training token count, held-out perplexity.
    pub metadata: Vec<(String, String)>,
}

/// Chen & Goodman's discounts D1, D2, D3+ from the counts of counts `n = [n1, n2, n3, n4]`.
/// Each is clamped to [0, k] (a discount never exceeds the count it applies to). When some n_k
/// is zero (tiny corpora) the formulas are undefined and absolute discounting is used instead:
/// all three discounts equal Y = n1/(n1 + 2 n2) if n1 and n2 are positive, else 0.5 (Y would be
/// 0 or 1, and a zero discount leaves no mass for unseen words).
pub fn estimate_discounts(n: [u64; 4]) -> [f64; 3] {
    let [n1, n2, n3, n4] = n.map(|x| x as f64);
    let y = if n1 > 0.0 && n2 > 0.0 {
        n1 / (n1 + 2.0 * n2)
    } else {
        0.5
    };
    if n.contains(&0) {
        return [y; 3];
    }
    [
        (1.0 - 2.0 * y * n2 / n1).clamp(0.0, 1.0),
        (2.0 - 3.0 * y * n3 / n2).clamp(0.0, 2.0),
        (3.0 - 4.0 * y * n4 / n3).clamp(0.0, 3.0),
    ]
}

fn count_of_counts<'a>(counts: impl Iterator<Item = &'a u64>) -> [u64; 4] {
    let mut n = [0u64; 4];
    for &c in counts {
        if (1..=4).contains(&c) {
            n[(c - 1) as usize] += 1;
        }
    }
    n
}

/// The discount for an n-gram with adjusted count `count`.
pub(super) fn discount(d: &[f64; 3], count: u64) -> f64 {
    match count {
        0 => 0.0,
        1 => d[0],
        2 => d[1],
        _ => d[2],
    }
}

pub(super) fn bigram_key(v: u32, w: u32) -> u64 {
    (u64::from(v) << 32) | u64::from(w)
}

/// Word ids are below 2^21 (the vocabulary cap is checked), so three fit in a u64.
const ID_BITS: u32 = 21;
pub(super) const MAX_IDS: usize = 1 << ID_BITS;

pub(super) fn trigram_key(u: u32, v: u32, w: u32) -> u64 {
    (u64::from(u) << (2 * ID_BITS)) | (u64::from(v) << ID_BITS) | u64::from(w)
}

impl LmCounts {
    /// Count 1..3-grams of tokenized sentences (as from [`super::lm_sentences`]), choose the
    /// vocabulary, estimate the discounts and prune.
    pub fn train<I, S>(sentences: I, opts: &TrainOptions) -> LmCounts
    where
        I: IntoIterator<Item = Vec<S>>,
        S: AsRef<str>,
    {
        // Intern every word first (ids in order of first sight), keeping sentences as ids.
        let mut interned: FxHashMap<String, u32> = FxHashMap::default();
        let mut raw_words: Vec<String> = Vec::new();
        let mut raw_counts: Vec<u64> = Vec::new();
        let mut sentences_ids: Vec<Vec<u32>> = Vec::new();
        for sentence in sentences {
            let ids: Vec<u32> = sentence
                .iter()
                .map(|w| {
                    let w = w.as_ref();
                    let id = match interned.get(w) {
                        Some(&id) => id,
                        None => {
                            let id = raw_words.len() as u32;
                            interned.insert(w.to_string(), id);
                            raw_words.push(w.to_string());
                            raw_counts.push(0);
                            id
                        }
                    };
                    raw_counts[id as usize] += 1;
                    id
                })
                .collect();
            if !ids.is_empty() {
                sentences_ids.push(ids);
            }
        }

        // Vocabulary: frequent words by falling count, then byte order (deterministic).
        let mut order: Vec<u32> = (0..raw_words.len() as u32)
            .filter(|&i| raw_counts[i as usize] >= opts.min_word_count.max(1))
            .collect();
        order.sort_by(|&a, &b| {
            raw_counts[b as usize]
                .cmp(&raw_counts[a as usize])
                .then_with(|| raw_words[a as usize].cmp(&raw_words[b as usize]))
        });
        order.truncate(opts.max_vocabulary.min(MAX_IDS - SPECIALS.len()));
        let mut remap = vec![UNK; raw_words.len()];
        let mut words: Vec<String> = SPECIALS.iter().map(|s| s.to_string()).collect();
        for &raw in &order {
            remap[raw as usize] = words.len() as u32;
            words.push(raw_words[raw as usize].clone());
        }
        let folded_types = raw_words.len() - order.len();

        // Raw n-gram counts over `<s> w1 … wn </s>`.
        let mut unigram_counts = vec![0u64; words.len()];
        let mut bigram_counts: FxHashMap<u64, u64> = FxHashMap::default();
        let mut trigram_counts: FxHashMap<u64, u64> = FxHashMap::default();
        let mut tokens = 0u64;
        let mut padded: Vec<u32> = Vec::new();
        for ids in &sentences_ids {
            padded.clear();
            padded.push(BOS);
            padded.extend(ids.iter().map(|&i| remap[i as usize]));
            padded.push(EOS);
            tokens += ids.len() as u64;
            for &w in &padded {
                unigram_counts[w as usize] += 1;
            }
            for pair in padded.windows(2) {
                *bigram_counts
                    .entry(bigram_key(pair[0], pair[1]))
                    .or_default() += 1;
            }
            for triple in padded.windows(3) {
                *trigram_counts
                    .entry(trigram_key(triple[0], triple[1], triple[2]))
                    .or_default() += 1;
            }
        }

        // Adjusted counts: continuation counts for bigrams (except after <s>) and unigrams.
        let mask = (1u64 << ID_BITS) - 1;
        let mut bigram_adjusted: FxHashMap<u64, u64> = FxHashMap::default();
        for (&key, &count) in &bigram_counts {
            if (key >> 32) as u32 == BOS {
                bigram_adjusted.insert(key, count);
            }
        }
        for &key in trigram_counts.keys() {
            let (v, w) = ((key >> ID_BITS) & mask, key & mask);
            if v as u32 != BOS {
                *bigram_adjusted
                    .entry(bigram_key(v as u32, w as u32))
                    .or_default() += 1;
            }
        }
        let mut continuation_counts = vec![0u64; words.len()];
        for &key in bigram_counts.keys() {
            continuation_counts[(key & 0xFFFF_FFFF) as usize] += 1;
        }

        let discounts = [
            estimate_discounts(count_of_counts(continuation_counts.iter())),
            estimate_discounts(count_of_counts(bigram_adjusted.values())),
            estimate_discounts(count_of_counts(trigram_counts.values())),
        ];

        // Bigram contexts: totals over all continuations, entries only for kept bigrams.
        let mut bigram_contexts: FxHashMap<u32, ContextCounts> = FxHashMap::default();
        for (&key, &adjusted) in &bigram_adjusted {
            let (v, w) = ((key >> 32) as u32, (key & 0xFFFF_FFFF) as u32);
            let context = bigram_contexts.entry(v).or_default();
            context.total += adjusted;
            if bigram_counts.get(&key).copied().unwrap_or(0) >= opts.min_bigram_count {
                context.entries.push((w, adjusted));
            }
        }
        let mut trigram_contexts: FxHashMap<(u32, u32), ContextCounts> = FxHashMap::default();
        for (&key, &count) in &trigram_counts {
            let u = (key >> (2 * ID_BITS)) as u32;
            let (v, w) = (((key >> ID_BITS) & mask) as u32, (key & mask) as u32);
            let context = trigram_contexts.entry((u, v)).or_default();
            context.total += count;
            if count >= opts.min_trigram_count {
                context.entries.push((w, count));
            }
        }
        // A context without kept entries backs off completely (γ = 1): no need to store it.
        let mut bigrams: Vec<(u32, ContextCounts)> = bigram_contexts
            .into_iter()
            .filter(|(_, c)| !c.entries.is_empty())
            .collect();
        let mut trigrams: Vec<((u32, u32), ContextCounts)> = trigram_contexts
            .into_iter()
            .filter(|(_, c)| !c.entries.is_empty())
            .collect();
        bigrams.sort_unstable_by_key(|(v, _)| *v);
        trigrams.sort_unstable_by_key(|(uv, _)| *uv);
        for (_, c) in bigrams.iter_mut() {
            c.entries.sort_unstable();
        }
        for (_, c) in trigrams.iter_mut() {
            c.entries.sort_unstable();
        }

        let metadata = vec![
            ("sentences".to_string(), sentences_ids.len().to_string()),
            ("training_tokens".to_string(), tokens.to_string()),
            ("training_types".to_string(), raw_words.len().to_string()),
            ("folded_types".to_string(), folded_types.to_string()),
            ("bigrams_seen".to_string(), bigram_counts.len().to_string()),
            (
                "trigrams_seen".to_string(),
                trigram_counts.len().to_string(),
            ),
            (
                "pruning".to_string(),
                format!(
                    "min_word_count={} max_vocabulary={} min_bigram_count={} min_trigram_count={}",
                    opts.min_word_count,
                    opts.max_vocabulary,
                    opts.min_bigram_count,
                    opts.min_trigram_count
                ),
            ),
        ];
        LmCounts {
            words,
            unigram_counts,
            continuation_counts,
            discounts,
            bigrams,
            trigrams,
            metadata,
        }
    }

    /// A metadata value.
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Set (or replace) a metadata value.
    pub fn set_metadata(&mut self, key: &str, value: String) {
        match self.metadata.iter_mut().find(|(k, _)| k == key) {
            Some(entry) => entry.1 = value,
            None => self.metadata.push((key.to_string(), value)),
        }
    }
}
