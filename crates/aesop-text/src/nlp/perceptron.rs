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
        Model::from_rows_quantized(self.nclasses, averaged, PRUNE_FRACTION)
    }
}

/// Averaged weights for inference, as integers times one `scale` (the quantization of
/// [`Model::quantized`], which is also what the model file stores).
///
/// Why this layout: scoring is bound by memory, not arithmetic (the parser's table is tens of
/// megabytes, far beyond the caches), so every byte a lookup brings in counts. Weights are
/// 16-bit levels; a feature's slot in the index is 8 bytes and points straight at its weights.
/// Sums are exact in `i32`, so a score is `scale` times an exact integer whatever the order of
/// the features.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub nclasses: usize,
    index: FeatureIndex,
    /// Sparse rows, each a header `(number of pairs, 0)` then its (class, weight level) pairs
    /// sorted by class.
    entries: Vec<(u16, i16)>,
    /// Rows with many classes, as dense runs of `nclasses` levels (0 where absent), which
    /// [`Model::scores`] adds with vector instructions instead of scattering pairs: the parser's
    /// frequent features have weights for most of its transitions.
    dense: Vec<i16>,
    /// Weights are multiples of this.
    pub scale: f32,
}

/// Where a feature's weights are, as its index slot stores it: `DENSE_ROW | r` for the `r`-th
/// dense row (`dense[r * nclasses..]`), else the position of its header in `entries`.
type RowAt = u32;
const DENSE_ROW: RowAt = 1 << 31;
/// A free slot (no sparse row starts there: `entries` would need 4 billion pairs).
const FREE: RowAt = u32::MAX;
/// Rows with at least this share of the classes are stored dense.
const DENSE_SHARE: usize = 4;

/// Feature hash → [`RowAt`], by open addressing with linear probing. Why not a `HashMap`: the
/// key and where its weights are share one 8-byte slot, so a lookup usually costs one cache
/// miss instead of two (control bytes, then bucket), and the table is half the size.
#[derive(Clone, Debug, PartialEq)]
struct FeatureIndex {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: the slot of a key is the top bits of its multiplied hash.
    shift: u32,
    len: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Slot {
    key: u32,
    at: RowAt,
}

impl FeatureIndex {
    /// An index of `(key, where)` pairs with distinct keys, at most 2/3 full.
    fn new(pairs: &[(u32, RowAt)]) -> FeatureIndex {
        let capacity = (pairs.len() + pairs.len() / 2).max(2).next_power_of_two();
        let mut index = FeatureIndex {
            slots: vec![Slot { key: 0, at: FREE }; capacity],
            shift: 64 - capacity.trailing_zeros(),
            len: 0,
        };
        for &(key, at) in pairs {
            let mut i = index.home(key);
            while index.slots[i].at != FREE && index.slots[i].key != key {
                i = (i + 1) & (capacity - 1);
            }
            if index.slots[i].at == FREE {
                index.len += 1;
            }
            index.slots[i] = Slot { key, at };
        }
        index
    }

    fn home(&self, key: u32) -> usize {
        (u64::from(key).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn get(&self, key: u32) -> Option<RowAt> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            if slot.at == FREE {
                return None;
            }
            if slot.key == key {
                return Some(slot.at);
            }
            i = (i + 1) & mask;
        }
    }

    fn iter(&self) -> impl Iterator<Item = (u32, RowAt)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.at != FREE)
            .map(|s| (s.key, s.at))
    }
}

/// Asks the processor to bring `x`'s cache line in without waiting for it: the lookups and
/// weight rows of a batch are likely cache misses, and this way they overlap.
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it cannot fault and changes nothing observable. SSE,
    // which provides it, is part of every x86-64 processor.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Features looked up per batch before their weights are added (see [`Model::scores`]).
const LOOKUP_BATCH: usize = 32;
/// Classes whose scores are summed on the stack (more use the heap).
const STACK_CLASSES: usize = 128;

/// Quantization levels: weights are stored as integers in ±QUANT_LEVELS·scale.
const QUANT_LEVELS: f32 = 32767.0;
/// Default pruning: weights below this fraction of the largest are rounded to zero and dropped.
pub const PRUNE_FRACTION: f32 = 1.0 / 4096.0;

/// Rows of weight levels in three buffers instead of a vector per row: row `i` is feature
/// `keys[i]` with the (class, level) pairs `pairs[ends[i - 1]..ends[i]]` (from 0 for the first).
/// Reading the parser's 640,000 rows into a vector each made loading it slow.
#[derive(Default)]
pub struct LevelRows {
    keys: Vec<u32>,
    ends: Vec<usize>,
    pairs: Vec<(u16, i16)>,
}

impl LevelRows {
    /// Room for `rows` rows holding `pairs` (class, level) pairs in all.
    pub fn with_capacity(rows: usize, pairs: usize) -> LevelRows {
        LevelRows {
            keys: Vec::with_capacity(rows),
            ends: Vec::with_capacity(rows),
            pairs: Vec::with_capacity(pairs),
        }
    }

    /// Begins an empty row for [`LevelRows::push_pair`] to fill; keys must increase.
    pub fn begin(&mut self, key: u32) {
        debug_assert!(self.keys.last().is_none_or(|&last| last < key));
        self.keys.push(key);
        self.ends.push(self.pairs.len());
    }

    /// Appends a (class, level) pair to the last row begun; classes must increase within a
    /// row and levels be non-zero.
    pub fn push_pair(&mut self, class: u16, level: i16) {
        debug_assert!(level != 0);
        self.pairs.push((class, level));
        if let Some(end) = self.ends.last_mut() {
            *end = self.pairs.len();
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, &[(u16, i16)])> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        self.keys
            .iter()
            .zip(starts.zip(&self.ends))
            .map(|(&key, (start, &end))| (key, &self.pairs[start..end]))
    }
}

impl Model {
    /// A model of weight levels (`scale` times each integer is the weight). Zero levels are
    /// dropped; a key or class given twice keeps its first weight.
    pub fn from_levels(
        nclasses: usize,
        scale: f32,
        mut rows: Vec<(u32, Vec<(u16, i16)>)>,
    ) -> Model {
        rows.sort_by_key(|r| r.0);
        rows.dedup_by_key(|r| r.0);
        let mut flat = LevelRows::default();
        for (key, mut row) in rows {
            row.retain(|&(_, w)| w != 0);
            row.sort_by_key(|e| e.0);
            row.dedup_by_key(|e| e.0);
            if !row.is_empty() {
                flat.begin(key);
                for (class, level) in row {
                    flat.push_pair(class, level);
                }
            }
        }
        Model::from_level_rows(nclasses, scale, &flat)
    }

    /// A model of rows already in order: keys increasing, each row's classes increasing, no
    /// zero level and no empty row. The model reader checks all four in the file it reads
    /// straight into these rows, with no vector per row; [`LevelRows`] asserts the keys' order
    /// and the non-zero levels in debug builds.
    pub fn from_level_rows(nclasses: usize, scale: f32, rows: &LevelRows) -> Model {
        let is_dense = |row: &[(u16, i16)]| {
            nclasses >= 8
                && row.len() * DENSE_SHARE >= nclasses
                && row.iter().all(|&(c, _)| usize::from(c) < nclasses)
        };
        // Sized before they are filled: the parser's tables are tens of megabytes, and growing
        // them row by row copied them over and over.
        let (dense_rows, sparse_pairs) = rows.iter().fold((0, 0), |(dense, pairs), (_, row)| {
            if is_dense(row) {
                (dense + 1, pairs)
            } else {
                (dense, pairs + row.len() + 1)
            }
        });
        let mut index = Vec::with_capacity(rows.len());
        let mut entries = Vec::with_capacity(sparse_pairs);
        let mut dense = Vec::with_capacity(dense_rows * nclasses);
        for (key, row) in rows.iter() {
            let at = if is_dense(row) {
                let at = dense.len();
                dense.resize(at + nclasses, 0);
                for &(c, w) in row {
                    dense[at + usize::from(c)] = w;
                }
                DENSE_ROW | (at / nclasses) as u32
            } else {
                let at = entries.len() as u32;
                entries.push((row.len() as u16, 0));
                entries.extend_from_slice(row);
                at
            };
            index.push((key, at));
        }
        Model {
            nclasses,
            index: FeatureIndex::new(&index),
            entries,
            dense,
            scale,
        }
    }

    /// A model of real-valued weights, quantized to the finest levels (the largest weight at
    /// ±32767 levels); weights that round to 0 are dropped.
    pub fn from_rows(nclasses: usize, rows: Vec<(u32, Vec<(u16, f32)>)>) -> Model {
        Model::from_rows_quantized(nclasses, rows, 0.0)
    }

    fn quantize(nclasses: usize, rows: Vec<(u32, Vec<(u16, f32)>)>, scale: f32) -> Model {
        if !(scale > 0.0 && scale.is_finite()) {
            return Model::from_levels(nclasses, 1.0, Vec::new());
        }
        let levels = rows
            .into_iter()
            .map(|(key, row)| {
                let row = row
                    .into_iter()
                    .map(|(c, w)| {
                        let level = (w / scale).round().clamp(-QUANT_LEVELS, QUANT_LEVELS);
                        (c, level as i16)
                    })
                    .collect();
                (key, row)
            })
            .collect();
        Model::from_levels(nclasses, scale, levels)
    }

    /// Round weights to multiples of a scale chosen from the largest weight, dropping weights below
    /// `prune_fraction` of the largest (the step size is at least that fraction).
    pub fn quantized(&self, prune_fraction: f32) -> Model {
        Model::from_rows_quantized(self.nclasses, self.rows().collect(), prune_fraction)
    }

    /// [`Model::from_rows`] at the levels [`Model::quantized`] would choose, rounding each
    /// weight once (rounding to the finest levels first could move a weight by one level).
    pub fn from_rows_quantized(
        nclasses: usize,
        rows: Vec<(u32, Vec<(u16, f32)>)>,
        prune_fraction: f32,
    ) -> Model {
        let max = rows
            .iter()
            .flat_map(|(_, row)| row.iter().map(|e| e.1.abs()))
            .fold(0.0f32, f32::max);
        Model::quantize(
            nclasses,
            rows,
            (max * prune_fraction).max(max / QUANT_LEVELS),
        )
    }

    /// The (class, weight level) pairs of the row at `at`, sorted by class.
    fn row_levels(&self, at: RowAt) -> Vec<(u16, i16)> {
        if at & DENSE_ROW != 0 {
            let start = (at & !DENSE_ROW) as usize * self.nclasses;
            (0u16..)
                .zip(&self.dense[start..start + self.nclasses])
                .filter(|&(_, &w)| w != 0)
                .map(|(c, &w)| (c, w))
                .collect()
        } else {
            self.sparse_row(at).to_vec()
        }
    }

    fn sparse_row(&self, at: RowAt) -> &[(u16, i16)] {
        let at = at as usize;
        let len = usize::from(self.entries[at].0);
        &self.entries[at + 1..at + 1 + len]
    }

    /// Rows sorted by feature key, as (class, weight level) pairs sorted by class.
    pub fn levels(&self) -> impl Iterator<Item = (u32, Vec<(u16, i16)>)> + '_ {
        let mut keys: Vec<(u32, RowAt)> = self.index.iter().collect();
        keys.sort_by_key(|k| k.0);
        keys.into_iter().map(|(k, at)| (k, self.row_levels(at)))
    }

    /// Rows sorted by feature key, as (class, weight) pairs sorted by class.
    pub fn rows(&self) -> impl Iterator<Item = (u32, Vec<(u16, f32)>)> + '_ {
        self.levels().map(|(k, row)| {
            let row = row
                .into_iter()
                .map(|(c, w)| (c, f32::from(w) * self.scale))
                .collect();
            (k, row)
        })
    }

    pub fn nfeatures(&self) -> usize {
        self.index.len
    }

    /// Number of non-zero weights.
    pub fn nweights(&self) -> usize {
        let dense = self.dense.iter().filter(|&&w| w != 0).count();
        dense + self.entries.len() - (self.index.len - self.dense.len() / self.nclasses.max(1))
    }

    /// Class scores for a feature set, written into `out`: `scale` times the exact integer sum
    /// of the features' weight levels for each class (classes past `nclasses` get 0).
    ///
    /// The rows of a batch of features are found first and their weights added after, and
    /// before each step the memory it needs is prefetched: each lookup
    /// is a likely cache miss, and this way the processor overlaps them.
    pub fn scores(&self, feats: &[u32], out: &mut [f32]) {
        let n = self.nclasses.min(out.len());
        let mut on_stack = [0i32; STACK_CLASSES];
        let mut on_heap = Vec::new();
        let sums: &mut [i32] = if self.nclasses <= STACK_CLASSES {
            &mut on_stack[..self.nclasses]
        } else {
            on_heap.resize(self.nclasses, 0);
            &mut on_heap
        };
        let mut found_rows = [FREE; LOOKUP_BATCH];
        for batch in feats.chunks(LOOKUP_BATCH) {
            for &f in batch {
                prefetch(&self.index.slots[self.index.home(f)]);
            }
            let mut found = 0;
            for &f in batch {
                if let Some(at) = self.index.get(f) {
                    found_rows[found] = at;
                    found += 1;
                }
            }
            let rows = &found_rows[..found];
            for &at in rows {
                if at & DENSE_ROW != 0 {
                    let start = (at & !DENSE_ROW) as usize * self.nclasses;
                    for i in (start..start + self.nclasses).step_by(32) {
                        prefetch(&self.dense[i]);
                    }
                } else {
                    prefetch(&self.entries[at as usize]);
                }
            }
            for &at in rows {
                if at & DENSE_ROW != 0 {
                    let start = (at & !DENSE_ROW) as usize * self.nclasses;
                    let row = &self.dense[start..start + self.nclasses];
                    for (s, &w) in sums.iter_mut().zip(row) {
                        *s += i32::from(w);
                    }
                } else {
                    for &(class, w) in self.sparse_row(at) {
                        if let Some(s) = sums.get_mut(usize::from(class)) {
                            *s += i32::from(w);
                        }
                    }
                }
            }
        }
        for (o, &s) in out[..n].iter_mut().zip(sums.iter()) {
            *o = s as f32 * self.scale;
        }
        out[n..].iter_mut().for_each(|o| *o = 0.0);
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
    fn level_rows_build_what_from_levels_builds() {
        // Unsorted keys, a key twice (the first kept), unsorted classes, a zero level and a row
        // of zeros: `from_levels` cleans them up, the rows in order give the same model.
        let messy = vec![
            (9, vec![(2, 5), (0, -1), (1, 0)]),
            (3, vec![(1, 7)]),
            (9, vec![(0, 100)]),
            (4, vec![(0, 0)]),
        ];
        let mut clean = LevelRows::default();
        for (key, pairs) in [(3, vec![(1, 7)]), (9, vec![(0, -1), (2, 5)])] {
            clean.begin(key);
            for (class, level) in pairs {
                clean.push_pair(class, level);
            }
        }
        assert_eq!(clean.len(), 2);
        let rows: Vec<(u32, Vec<(u16, i16)>)> =
            clean.iter().map(|(k, row)| (k, row.to_vec())).collect();
        assert_eq!(rows, vec![(3, vec![(1, 7)]), (9, vec![(0, -1), (2, 5)])]);
        // With three classes every row is sparse; with eight the row of key 9 (two classes,
        // a quarter of them) is dense.
        for nclasses in [3, 8] {
            assert_eq!(
                Model::from_levels(nclasses, 0.5, messy.clone()),
                Model::from_level_rows(nclasses, 0.5, &clean)
            );
        }
        assert_eq!(Model::from_level_rows(8, 0.5, &clean).dense.len(), 8);
        let model = Model::from_level_rows(3, 0.5, &clean);
        let mut scores = [0.0; 3];
        model.scores(&[9, 3, 4], &mut scores);
        assert_eq!(scores, [-0.5, 3.5, 2.5]);
    }

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
    fn scores_are_the_exact_sums_of_the_quantized_weights() {
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
                (key * 7919, row)
            })
            .collect();
        let model = Model::from_rows(20, rows.clone());
        assert!(!model.dense.is_empty() && !model.entries.is_empty());
        assert_eq!(model.nfeatures(), 200);
        assert_eq!(
            model.nweights(),
            rows.iter().map(|r| r.1.len()).sum::<usize>()
        );
        let levels: HashMap<u32, Vec<(u16, i16)>> = model.levels().collect();
        let by_key: HashMap<u32, Vec<(u16, f32)>> = rows.into_iter().collect();
        for trial in 0..50u64 {
            // Keys in and out of the model, some repeated.
            let feats: Vec<u32> = (0..70)
                .map(|i| (((i * 37 + trial * 11) % 230) * 7919) as u32)
                .collect();
            let mut exact = [0i64; 20];
            let mut real = [0.0f64; 20];
            for f in &feats {
                for &(c, w) in levels.get(f).map_or(&[][..], Vec::as_slice) {
                    exact[usize::from(c)] += i64::from(w);
                }
                for &(c, w) in by_key.get(f).map_or(&[][..], Vec::as_slice) {
                    real[usize::from(c)] += f64::from(w);
                }
            }
            let mut got = vec![0.0f32; 22];
            model.scores(&feats, &mut got);
            for c in 0..20 {
                assert_eq!(got[c], exact[c] as f32 * model.scale, "class {c}");
                // Each weight is within half a level of the real one.
                assert!((f64::from(got[c]) - real[c]).abs() <= 70.0 * f64::from(model.scale));
            }
            assert_eq!(&got[20..], &[0.0, 0.0], "classes past nclasses score 0");
        }
    }

    #[test]
    fn requantizing_keeps_weights_at_the_coarser_levels() {
        let rows = vec![
            (1u32, vec![(0u16, 1.0f32), (1, -0.5), (2, 0.0001)]),
            (2, vec![(1, 0.25)]),
        ];
        let model = Model::from_rows(3, rows).quantized(1.0 / 8.0);
        assert_eq!(model.scale, 1.0 / 8.0);
        let levels: Vec<(u32, Vec<(u16, i16)>)> = model.levels().collect();
        // 0.0001 is below 1/8 of the largest weight: dropped.
        assert_eq!(levels, vec![(1, vec![(0, 8), (1, -4)]), (2, vec![(1, 2)])]);
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
