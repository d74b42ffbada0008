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

impl<V> ReferenceRuns<V> {
    /// The index of (key, reference, value) triples, in any order; a key appears at most once
    /// per reference.
    pub(crate) fn new(mut triples: Vec<(u64, u32, V)>) -> ReferenceRuns<V> {
        triples.sort_unstable_by_key(|t| (t.0, t.1));
        let mut ranges: HashMap<u64, (u32, u32), FxBuildHasher> = HashMap::default();
        for (k, &(key, ..)) in triples.iter().enumerate() {
            ranges.entry(key).or_insert((k as u32, k as u32)).1 = k as u32 + 1;
        }
        ReferenceRuns {
            ranges,
            entries: triples.into_iter().map(|(_, r, v)| (r, v)).collect(),
        }
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
}
