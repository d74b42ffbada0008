//! Averaged multiclass perceptron over hashed sparse features, shared by the tagger and the parser.
//!
//! Features are 32-bit hashes of (template, strings). Training keeps, per feature, a short list of
//! the classes it has weights for; averaging uses the usual lazy timestamp trick so an update
//! costs O(features) rather than O(all weights).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hasher for keys that are already hashes: one multiply spreads the bits for the table.
#[derive(Default, Clone, Copy)]
pub struct PrehashedHasher(u64);

impl Hasher for PrehashedHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A `HashMap` keyed by feature hashes.
pub type FeatureMap<V> = HashMap<u32, V, BuildHasherDefault<PrehashedHasher>>;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x100_0000_01b3;

/// Builds a feature hash from a template number and string parts (FNV-1a, folded to 32 bits).
#[derive(Clone, Copy)]
pub struct Feature(u64);

impl Feature {
    pub fn new(template: u8) -> Feature {
        Feature((FNV_OFFSET ^ u64::from(template)).wrapping_mul(FNV_PRIME))
    }
    /// Append a string; a 0xff separator keeps ("ab","c") and ("a","bc") apart (0xff never occurs in UTF-8).
    pub fn str(mut self, s: &str) -> Feature {
        for &b in s.as_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
        self.0 = (self.0 ^ 0xff).wrapping_mul(FNV_PRIME);
        self
    }
    /// Append a small integer (tag or label index, distance).
    pub fn num(mut self, n: u32) -> Feature {
        for b in n.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
        self
    }
    pub fn key(self) -> u32 {
        (self.0 ^ (self.0 >> 32)) as u32
    }
}

/// Small deterministic RNG (xorshift64*) so training is reproducible without a dependency.
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

#[derive(Clone, Copy)]
struct Entry {
    class: u16,
    weight: i32,
    /// Sum of `weight` over all past steps up to `stamp`.
    total: i64,
    stamp: u64,
}

/// A perceptron being trained.
pub struct Trainer {
    nclasses: usize,
    weights: FeatureMap<Vec<Entry>>,
    step: u64,
    /// How often each feature occurred in the instances passed to [`Trainer::count`].
    counts: FeatureMap<u32>,
}

impl Trainer {
    pub fn new(nclasses: usize) -> Trainer {
        Trainer {
            nclasses,
            weights: FeatureMap::default(),
            step: 0,
            counts: FeatureMap::default(),
        }
    }

    pub fn nclasses(&self) -> usize {
        self.nclasses
    }

    /// Scores with the current (not averaged) weights, written into `out` (length `nclasses`).
    pub fn scores(&self, feats: &[u32], out: &mut [f32]) {
        out.iter_mut().for_each(|s| *s = 0.0);
        for f in feats {
            if let Some(entries) = self.weights.get(f) {
                for e in entries {
                    out[usize::from(e.class)] += e.weight as f32;
                }
            }
        }
    }

    /// Count one training instance (the averaging clock).
    pub fn tick(&mut self) {
        self.step += 1;
    }

    /// Standard perceptron update: +1 for the correct class, −1 for the predicted one.
    pub fn update(&mut self, truth: usize, guess: usize, feats: &[u32]) {
        if truth == guess {
            return;
        }
        let step = self.step;
        for &f in feats {
            let entries = self.weights.entry(f).or_default();
            for (class, delta) in [(truth, 1), (guess, -1)] {
                let class = class as u16;
                let entry = match entries.iter_mut().position(|e| e.class == class) {
                    Some(i) => &mut entries[i],
                    None => {
                        entries.push(Entry {
                            class,
                            weight: 0,
                            total: 0,
                            stamp: step,
                        });
                        let last = entries.len() - 1;
                        &mut entries[last]
                    }
                };
                entry.total += i64::from(entry.weight) * (step - entry.stamp) as i64;
                entry.stamp = step;
                entry.weight += delta;
            }
        }
    }

    /// Record the features of one instance for frequency pruning ([`Trainer::average_min_count`]).
    pub fn count(&mut self, feats: &[u32]) {
        for &f in feats {
            *self.counts.entry(f).or_default() += 1;
        }
    }

    /// Averaged weights as an inference model; weights whose quantized value is 0 are dropped.
    pub fn average(&self) -> Model {
        self.average_min_count(0)
    }

    /// Like [`Trainer::average`], keeping only features counted at least `min_count` times: rare
    /// features make up most of a model's size and carry little.
    pub fn average_min_count(&self, min_count: u32) -> Model {
        let step = self.step.max(1);
        let mut averaged: Vec<(u32, Vec<(u16, f32)>)> = Vec::with_capacity(self.weights.len());
        for (&key, entries) in &self.weights {
            if min_count > 0 && self.counts.get(&key).copied().unwrap_or(0) < min_count {
                continue;
            }
            let row: Vec<(u16, f32)> = entries
                .iter()
                .map(|e| {
                    let total = e.total + i64::from(e.weight) * (step - e.stamp) as i64;
                    (e.class, (total as f64 / step as f64) as f32)
                })
                .filter(|&(_, w)| w != 0.0)
                .collect();
            if !row.is_empty() {
                averaged.push((key, row));
            }
        }
        Model::from_rows(self.nclasses, averaged).quantized(PRUNE_FRACTION)
    }
}

/// Averaged weights for inference: per feature, a run of (class, weight) pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub nclasses: usize,
    index: FeatureMap<Row>,
    entries: Vec<(u16, f32)>,
    /// Rows with many classes again as dense runs of `nclasses` weights (0 where absent), which
    /// [`Model::scores`] adds with vector instructions instead of scattering pairs: the parser's
    /// frequent features have weights for most of its transitions. Each class still receives
    /// its weights in feature order, so scores are bit for bit those of the sparse rows.
    dense: Vec<f32>,
    /// Weights are multiples of this (the file stores integers).
    pub scale: f32,
}

/// Where one feature's weights are: `entries[start..start + len]`, and `dense[dense..dense +
/// nclasses]` when the row is also kept dense (`NO_DENSE` otherwise).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Row {
    start: u32,
    len: u32,
    dense: u32,
}

const NO_DENSE: u32 = u32::MAX;

/// Rows with at least this share of the classes are also stored dense.
const DENSE_SHARE: usize = 4;

/// Quantization levels: weights are stored as integers in ±QUANT_LEVELS·scale.
const QUANT_LEVELS: f32 = 32767.0;
/// Default pruning: weights below this fraction of the largest are rounded to zero and dropped.
pub const PRUNE_FRACTION: f32 = 1.0 / 4096.0;

impl Model {
    pub fn from_rows(nclasses: usize, mut rows: Vec<(u32, Vec<(u16, f32)>)>) -> Model {
        rows.sort_by_key(|r| r.0);
        let mut index = FeatureMap::default();
        let mut entries = Vec::new();
        let mut dense = Vec::new();
        for (key, mut row) in rows {
            row.sort_by_key(|e| e.0);
            let dense_start = if nclasses >= 8
                && row.len() * DENSE_SHARE >= nclasses
                && row.iter().all(|&(c, _)| usize::from(c) < nclasses)
            {
                let at = dense.len();
                dense.resize(at + nclasses, 0.0f32);
                for &(c, w) in &row {
                    dense[at + usize::from(c)] = w;
                }
                at as u32
            } else {
                NO_DENSE
            };
            index.insert(
                key,
                Row {
                    start: entries.len() as u32,
                    len: row.len() as u32,
                    dense: dense_start,
                },
            );
            entries.extend(row);
        }
        Model {
            nclasses,
            index,
            entries,
            dense,
            scale: 1.0,
        }
    }

    /// Round weights to multiples of a scale chosen from the largest weight, dropping weights below
    /// `prune_fraction` of the largest (the step size is at least that fraction).
    pub fn quantized(&self, prune_fraction: f32) -> Model {
        let max = self
            .entries
            .iter()
            .map(|e| e.1.abs())
            .fold(0.0f32, f32::max);
        if max == 0.0 {
            return self.clone();
        }
        let scale = (max * prune_fraction).max(max / QUANT_LEVELS);
        let rows: Vec<(u32, Vec<(u16, f32)>)> = self
            .rows()
            .map(|(key, row)| {
                let row = row
                    .iter()
                    .filter_map(|&(c, w)| {
                        let q = (w / scale).round();
                        (q != 0.0).then_some((c, q * scale))
                    })
                    .collect::<Vec<_>>();
                (key, row)
            })
            .filter(|(_, row)| !row.is_empty())
            .collect();
        let mut m = Model::from_rows(self.nclasses, rows);
        m.scale = scale;
        m
    }

    /// Rows sorted by feature key.
    pub fn rows(&self) -> impl Iterator<Item = (u32, &[(u16, f32)])> {
        let mut keys: Vec<(&u32, &Row)> = self.index.iter().collect();
        keys.sort_by_key(|k| *k.0);
        keys.into_iter().map(|(&k, r)| {
            (
                k,
                &self.entries[r.start as usize..(r.start + r.len) as usize],
            )
        })
    }

    pub fn nfeatures(&self) -> usize {
        self.index.len()
    }

    pub fn nweights(&self) -> usize {
        self.entries.len()
    }

    /// Class scores for a feature set, written into `out` (length `nclasses`).
    pub fn scores(&self, feats: &[u32], out: &mut [f32]) {
        out.iter_mut().for_each(|s| *s = 0.0);
        let n = self.nclasses.min(out.len());
        for f in feats {
            if let Some(r) = self.index.get(f) {
                if r.dense != NO_DENSE && n == self.nclasses {
                    let row = &self.dense[r.dense as usize..r.dense as usize + n];
                    for (s, &w) in out[..n].iter_mut().zip(row) {
                        *s += w;
                    }
                    continue;
                }
                for &(class, w) in &self.entries[r.start as usize..(r.start + r.len) as usize] {
                    if let Some(s) = out.get_mut(usize::from(class)) {
                        *s += w;
                    }
                }
            }
        }
    }
}

/// Index of the highest score among `allowed` classes (ties go to the lowest index), or `None` if none allowed.
pub fn argmax_where(scores: &[f32], allowed: impl Fn(usize) -> bool) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, &s) in scores.iter().enumerate() {
        if allowed(i) && best.is_none_or(|(_, b)| s > b) {
            best = Some((i, s));
        }
    }
    best.map(|b| b.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averaging_matches_hand_computation() {
        // Two classes, one feature. Step 1: update truth 0 / guess 1 → w0=+1, w1=-1.
        // Then 3 more steps without updates. Average over 4 steps: w0 = 4·1/4 = 1… but the update happened
        // at step 1 (after one tick), so weights were 0 for step 0→1: total w0 = 0·1 + 1·3 = 3, avg 0.75.
        let mut t = Trainer::new(2);
        t.tick();
        t.update(0, 1, &[7]);
        t.tick();
        t.tick();
        t.tick();
        let m = t.average();
        let mut s = [0.0; 2];
        m.scores(&[7], &mut s);
        assert!((s[0] - 0.75).abs() < 1e-3, "{s:?}");
        assert!((s[1] + 0.75).abs() < 1e-3, "{s:?}");
    }

    #[test]
    fn dense_rows_score_bit_for_bit_like_sparse_pairs() {
        // 20 classes; rows from 1 to 20 classes, so some are stored dense and some are not.
        let mut rng = XorShift::new(7);
        let rows: Vec<(u32, Vec<(u16, f32)>)> = (0..200u32)
            .map(|key| {
                let len = 1 + (rng.next_u64() % 20) as usize;
                let mut classes: Vec<u16> = (0..20).collect();
                rng.shuffle(&mut classes);
                let row = classes[..len]
                    .iter()
                    .map(|&c| (c, (rng.next_f64() as f32 - 0.5) * 3.0))
                    .collect();
                (key, row)
            })
            .collect();
        let model = Model::from_rows(20, rows.clone());
        assert!(!model.dense.is_empty(), "some rows are dense");
        let by_key: HashMap<u32, Vec<(u16, f32)>> = rows.into_iter().collect();
        for trial in 0..50u64 {
            let feats: Vec<u32> = (0..40)
                .map(|i| ((i * 37 + trial * 11) % 230) as u32)
                .collect();
            let mut expected = vec![0.0f32; 20];
            for f in &feats {
                let mut row = by_key.get(f).cloned().unwrap_or_default();
                row.sort_by_key(|e| e.0);
                for (c, w) in row {
                    expected[usize::from(c)] += w;
                }
            }
            let mut got = vec![0.0f32; 20];
            model.scores(&feats, &mut got);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&expected));
        }
    }

    #[test]
    fn feature_hash_separates_parts() {
        let a = Feature::new(1).str("ab").str("c").key();
        let b = Feature::new(1).str("a").str("bc").key();
        let c = Feature::new(2).str("ab").str("c").key();
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn shuffle_is_deterministic_permutation() {
        let mut v: Vec<u32> = (0..50).collect();
        let mut w = v.clone();
        XorShift::new(42).shuffle(&mut v);
        XorShift::new(42).shuffle(&mut w);
        assert_eq!(v, w);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}
