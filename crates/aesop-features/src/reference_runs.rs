//! An index from a unit (an n-gram, a stem sequence: any `u64` key) to the references that hold
//! it, each with a value (a count, a weight, where it lies). Classes that score a summary
//! against every reference of a topic build one per topic, so each distinct summary unit is
//! looked up once for all references instead of once per reference (`rouge`, `tesla`).

use rustc_hash::FxBuildHasher;
use std::collections::HashMap;

/// Key → the run of (reference, value) entries of the references holding it, in reference
/// order.
#[derive(Debug, Clone)]
pub(crate) struct ReferenceRuns<V> {
    ranges: HashMap<u64, (u32, u32), FxBuildHasher>,
    entries: Vec<(u32, V)>,
}

impl<V> Default for ReferenceRuns<V> {
    fn default() -> Self {
        ReferenceRuns {
            ranges: HashMap::default(),
            entries: Vec::new(),
        }
    }
}

impl<V: Copy + Default> ReferenceRuns<V> {
    /// The index of (key, reference, value) triples; a key appears at most once per reference.
    /// Callers list the triples reference by reference, so grouping them by key in their own
    /// order (a counting sort: one hash pass numbers and counts the keys, then each triple goes
    /// to the next slot of its key's run) leaves each run in reference order without sorting
    /// the triples; a run that is not (triples given in another order) is sorted.
    pub(crate) fn new(triples: Vec<(u64, u32, V)>) -> ReferenceRuns<V> {
        // One hash pass gives each key a dense index (`.0`) and counts its triples (`.1`).
        let mut ranges: HashMap<u64, (u32, u32), FxBuildHasher> =
            HashMap::with_capacity_and_hasher(triples.len(), FxBuildHasher);
        let mut run_of = Vec::with_capacity(triples.len());
        for &(key, ..) in &triples {
            let next = ranges.len() as u32;
            let run = ranges.entry(key).or_insert((next, 0));
            run.1 += 1;
            run_of.push(run.0);
        }
        // Each run's start, by dense index; then each key's (start, end).
        let mut starts = vec![0u32; ranges.len()];
        for &(run, count) in ranges.values() {
            starts[run as usize] = count;
        }
        let mut next = 0;
        for start in &mut starts {
            let count = *start;
            *start = next;
            next += count;
        }
        for range in ranges.values_mut() {
            let (run, count) = *range;
            let start = starts[run as usize];
            *range = (start, start + count);
        }
        let mut cursors = starts.clone();
        let mut entries = vec![(0, V::default()); triples.len()];
        let mut in_order = true;
        for ((_, r, v), run) in triples.into_iter().zip(run_of) {
            let run = run as usize;
            let at = cursors[run] as usize;
            in_order &= at == starts[run] as usize || entries[at - 1].0 < r;
            entries[at] = (r, v);
            cursors[run] += 1;
        }
        if !in_order {
            for &(start, end) in ranges.values() {
                entries[start as usize..end as usize].sort_by_key(|e| e.0);
            }
        }
        ReferenceRuns { ranges, entries }
    }

    /// The (reference, value) entries of `key`; empty when no reference holds it.
    pub(crate) fn get(&self, key: u64) -> &[(u32, V)] {
        match self.ranges.get(&key) {
            Some(&(start, end)) => &self.entries[start as usize..end as usize],
            None => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ReferenceRuns;

    #[test]
    fn runs_list_the_references_of_a_key_in_reference_order() {
        let runs = ReferenceRuns::new(vec![(7, 2, 'c'), (5, 0, 'a'), (7, 0, 'b'), (9, 1, 'd')]);
        assert_eq!(runs.get(7), &[(0, 'b'), (2, 'c')]);
        assert_eq!(runs.get(5), &[(0, 'a')]);
        assert_eq!(runs.get(9), &[(1, 'd')]);
        assert!(runs.get(6).is_empty());
    }

    #[test]
    fn runs_match_a_sort_of_the_triples_given_reference_by_reference() {
        // Three references' keys, listed reference by reference as the classes build them.
        let references: [&[u64]; 3] = [&[4, 1, 9, 7], &[9, 2, 4], &[7, 4, 3, 1, 8]];
        let triples: Vec<(u64, u32, u32)> = references
            .iter()
            .enumerate()
            .flat_map(|(r, keys)| {
                keys.iter()
                    .map(move |&k| (k, r as u32, 10 * k as u32 + r as u32))
            })
            .collect();
        let mut sorted = triples.clone();
        sorted.sort_unstable_by_key(|t| (t.0, t.1));
        let runs = ReferenceRuns::new(triples);
        for key in 0..12 {
            let expected: Vec<(u32, u32)> = sorted
                .iter()
                .filter(|t| t.0 == key)
                .map(|t| (t.1, t.2))
                .collect();
            assert_eq!(runs.get(key), expected.as_slice(), "key {key}");
        }
    }
}
