//! Extractive fragments (Grusky et al. 2018), novel and repeated n-grams, and the `surface`
//! class rows, with hand-computed expectations.

use crate::common;

use aesop::corpus::{Document, Summary, Topic};
use aesop::features::surface::{
    coverage, density, greedy_fragments, repeated_share, word_tokens, ArticleIndex, Surface,
    SurfaceOptions,
};
use aesop::features::{FeatureClass, TopicContext};
use common::close;

const ARTICLE: &str = "The quick brown fox jumps over the lazy dog.";
const SUMMARY: &str = "The lazy dog jumps over the quick cat!";

#[test]
fn fragments_coverage_density_grusky_style() {
    // A = the(0) quick(1) brown(2) fox(3) jumps(4) over(5) the(6) lazy(7) dog(8)
    // S = the lazy dog jumps over the quick cat (|S| = 8)
    // i=0 "the": A0 matches 1 token ("the" then quick≠lazy); A6 matches 3 ("the lazy dog")
    //   → fragment 3, i = 3.
    // i=3 "jumps": A4 matches "jumps over the" (A7 lazy ≠ quick) → 3, i = 6.
    // i=6 "quick": A1 matches 1 (brown ≠ cat) → 1, i = 7.
    // i=7 "cat": no match, i = 8.
    // Fragments [3, 3, 1]: coverage 7/8 = 0.875, density (9 + 9 + 1)/8 = 2.375.
    let a = word_tokens(ARTICLE);
    let s = word_tokens(SUMMARY);
    let fragments = greedy_fragments(&a, &s);
    assert_eq!(fragments, vec![3, 3, 1]);
    assert!(close(coverage(&fragments, s.len()), 0.875));
    assert!(close(density(&fragments, s.len()), 2.375));
    // A purely extractive summary is one fragment: coverage 1, density |S|.
    let copy = word_tokens("jumps over the lazy");
    let f = greedy_fragments(&a, &copy);
    assert_eq!(f, vec![4]);
    assert!(close(density(&f, 4), 4.0));
    // Empty summary: no fragments, coverage and density 0.
    let empty: Vec<String> = Vec::new();
    assert!(greedy_fragments(&a, &empty).is_empty());
    assert_eq!(coverage(&[], 0), 0.0);
    assert_eq!(density(&[], 0), 0.0);
}

#[test]
fn indexed_fragments_equal_the_plain_algorithm() {
    // Pseudo-random sequences over a small alphabet (many repeats), several documents.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |k: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % k) as u32
    };
    for _ in 0..300 {
        let docs: Vec<Vec<u32>> = (0..1 + next(3))
            .map(|_| (0..next(40)).map(|_| next(5)).collect())
            .collect();
        let summary: Vec<u32> = (0..next(25)).map(|_| next(6)).collect();
        let index = ArticleIndex::new(&docs);
        // The plain algorithm on the documents joined by a token no summary holds.
        let mut joined: Vec<u32> = Vec::new();
        for (k, d) in docs.iter().enumerate() {
            if k > 0 {
                joined.push(u32::MAX);
            }
            joined.extend(d);
        }
        assert_eq!(
            index.fragments(&summary),
            greedy_fragments(&joined, &summary)
        );
    }
    // Fragments never cross documents: "a b" split over two documents gives two fragments.
    let index = ArticleIndex::new(&[vec![1, 2, 3], vec![4, 5]]);
    assert_eq!(index.fragments(&[3, 4]), vec![1, 1]);
    assert_eq!(index.fragments(&[2, 3]), vec![2]);
}

#[test]
fn repeated_ngrams() {
    // "the cat saw the cat": unigrams the×2, cat×2, saw → 4 of 5 occurrences repeated = 0.8;
    // bigrams "the cat"×2, "cat saw", "saw the" → 2/4 = 0.5; trigrams all distinct → 0.
    let t = word_tokens("the cat saw the cat");
    assert!(close(repeated_share(&t, 1), 0.8));
    assert!(close(repeated_share(&t, 2), 0.5));
    assert_eq!(repeated_share(&t, 3), 0.0);
    assert_eq!(repeated_share(&t, 6), 0.0);
}

#[test]
fn surface_class_rows() {
    let class = Surface::new(SurfaceOptions::default());
    let names = class.feature_names();
    assert_eq!(
        names,
        vec![
            "surface.summary_tokens",
            "surface.summary_chars",
            "surface.compression",
            "surface.coverage",
            "surface.density",
            "surface.novel_1",
            "surface.novel_2",
            "surface.novel_3",
            "surface.novel_4",
            "surface.repeated_1",
            "surface.repeated_2",
            "surface.repeated_3",
        ]
    );
    assert!(!class.needs_references());
    let mut topic = Topic::new("t");
    topic.documents.push(Document::new("d", ARTICLE));
    topic.summaries.push(Summary::new("s", SUMMARY));
    topic.summaries.push(Summary::new("empty", "  "));
    let rows = class.extract(&TopicContext::new(&topic));
    let row = rows[0].as_ref().unwrap();
    // 8 tokens, 38 characters; compression 9/8.
    assert_eq!(row[0], 8.0);
    assert_eq!(row[1], SUMMARY.chars().count() as f64);
    assert!(close(row[2], 9.0 / 8.0));
    assert!(close(row[3], 0.875));
    assert!(close(row[4], 2.375));
    // Novel n-grams vs the input:
    // 1: only "cat" → 1/8.
    // 2: the-lazy, lazy-dog, dog-jumps*, jumps-over, over-the, the-quick, quick-cat* → 2/7.
    // 3: the-lazy-dog, lazy-dog-jumps*, dog-jumps-over*, jumps-over-the, over-the-quick*,
    //    the-quick-cat* → 4/6.
    // 4: none of the 5 occurs in the input → 1.
    assert!(close(row[5], 1.0 / 8.0));
    assert!(close(row[6], 2.0 / 7.0));
    assert!(close(row[7], 4.0 / 6.0));
    assert!(close(row[8], 1.0));
    // Repeated: "the" twice → 2/8; no repeated bigram or trigram.
    assert!(close(row[9], 0.25));
    assert_eq!(row[10], 0.0);
    assert_eq!(row[11], 0.0);

    // Empty summary: lengths 0, compression NaN, coverage/density 0, novel NaN, repeated 0.
    let empty = rows[1].as_ref().unwrap();
    assert_eq!(&empty[..2], &[0.0, 0.0]);
    assert!(empty[2].is_nan());
    assert_eq!(&empty[3..5], &[0.0, 0.0]);
    assert!(empty[5..9].iter().all(|v| v.is_nan()));
    assert_eq!(&empty[9..], &[0.0, 0.0, 0.0]);

    // No documents: input-based values NaN, the rest computed.
    topic.documents.clear();
    let rows = class.extract(&TopicContext::new(&topic));
    let row = rows[0].as_ref().unwrap();
    assert_eq!(row[0], 8.0);
    assert!(row[2..9].iter().all(|v| v.is_nan()));
    assert!(close(row[9], 0.25));
}
