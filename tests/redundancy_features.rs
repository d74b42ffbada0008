//! The `redundancy` class: cosine, repeated n-grams and the values of hand-built analyses
//! (hand-computed), then the real analyser end to end and a few SummEval topics.

use crate::common;

use aesop::features::redundancy::{
    cosine, longest_repeated_ngram, redundancy_values, repeated_ngram_share, Redundancy, FEATURES,
};
use aesop::features::{FeatureClass, TopicContext};
use common::hand_analysis::{analysis, sentence};
use std::collections::HashMap;

fn counts(pairs: &[(&str, usize)]) -> HashMap<String, usize> {
    pairs.iter().map(|&(w, c)| (w.to_string(), c)).collect()
}

#[test]
fn cosine_of_count_vectors() {
    // (cat 2, dog 1) · (cat 1, bird 1) = 2; norms √5 and √2 → 2/√10.
    let a = counts(&[("cat", 2), ("dog", 1)]);
    let b = counts(&[("cat", 1), ("bird", 1)]);
    assert_close!(cosine(&a, &b), 2.0 / 10f64.sqrt());
    assert_close!(cosine(&b, &a), 2.0 / 10f64.sqrt());
    assert_close!(cosine(&a, &a), 1.0);
    assert_close!(cosine(&a, &HashMap::new()), 0.0);
}

fn seqs(sentences: &[&str]) -> Vec<Vec<String>> {
    sentences
        .iter()
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn repeated_ngrams_within_sentences() {
    // Sentence 1 "a b c a b": bigrams a b ×2, b c, c a. Sentence 2 "c a": c a.
    // Distinct bigrams {a b, b c, c a}; repeated: a b (2), c a (2) → 2/3.
    let s = seqs(&["a b c a b", "c a"]);
    assert_close!(repeated_ngram_share(&s, 2), 2.0 / 3.0);
    // Trigrams (sentence 1 only): a b c, b c a, c a b, all once → 0.
    assert_close!(repeated_ngram_share(&s, 3), 0.0);
    // Longest repeated: "a b" (2); no trigram repeats.
    assert_eq!(longest_repeated_ngram(&s), 2);
    // n-grams never cross sentences: "x y" | "z" has no bigram "y z".
    let split = seqs(&["x y", "z"]);
    assert_close!(repeated_ngram_share(&split, 2), 0.0);
    assert!(repeated_ngram_share(&split, 3).is_nan()); // no trigram at all
                                                       // Overlapping occurrences count: "a a a" holds "a a" twice.
    assert_eq!(longest_repeated_ngram(&seqs(&["a a a"])), 2);
    // A whole sentence repeated: its full length.
    assert_eq!(longest_repeated_ngram(&seqs(&["p q r", "p q r"])), 3);
    assert_eq!(longest_repeated_ngram(&seqs(&["p q"])), 0);
    assert_eq!(longest_repeated_ngram::<String>(&[]), 0);
}

/// The longest repeated n-gram by trying every length, as the definition reads.
fn longest_repeated_by_every_length(sequences: &[Vec<u32>]) -> usize {
    let mut longest = 0;
    for n in 1..=sequences.iter().map(Vec::len).max().unwrap_or(0) {
        let mut seen = std::collections::HashSet::new();
        if sequences
            .iter()
            .filter(|s| s.len() >= n)
            .flat_map(|s| s.windows(n))
            .any(|w| !seen.insert(w))
        {
            longest = n;
        }
    }
    longest
}

#[test]
fn longest_repeated_ngram_equals_trying_every_length() {
    // Seeded random sequences over small alphabets, so repeats of every length occur.
    let mut state: u64 = 7;
    let mut next = |bound: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % bound
    };
    for case in 0..300 {
        let alphabet = 1 + case % 6;
        let sequences: Vec<Vec<u32>> = (0..1 + next(4))
            .map(|_| (0..next(30)).map(|_| next(alphabet) as u32).collect())
            .collect();
        assert_eq!(
            longest_repeated_ngram(&sequences),
            longest_repeated_by_every_length(&sequences),
            "{sequences:?}"
        );
    }
    // One 20,000-word sentence that is a 10,000-word passage twice (the quadratic case).
    let passage: Vec<u32> = (0..10_000).map(|_| next(1_000) as u32).collect();
    let twice = [passage.clone(), passage].concat();
    assert!(longest_repeated_ngram(&[twice]) >= 10_000);
}

/// "The cat chased the mouse. The cat chased the mouse. Dogs bark loudly."
fn duplicated() -> aesop::nlp::Analysis {
    let first = sentence(&[
        ("The", "DET", 2, "det"),
        ("cat", "NOUN", 3, "nsubj"),
        ("chased", "VERB", 0, "root"),
        ("the", "DET", 5, "det"),
        ("mouse", "NOUN", 3, "obj"),
        (".", "PUNCT", 3, "punct"),
    ]);
    analysis(vec![
        first.clone(),
        first,
        sentence(&[
            ("Dogs", "NOUN", 2, "nsubj"),
            ("bark", "VERB", 0, "root"),
            ("loudly", "ADV", 2, "advmod"),
            (".", "PUNCT", 2, "punct"),
        ]),
    ])
}

#[test]
fn values_of_a_duplicated_sentence() {
    let v = redundancy_values(&duplicated());
    // Vectors {cat, chase, mous}, the same, {dog, bark, loudli}: cosines 1, 0, 0.
    assert_close!(v.max_cosine, 1.0);
    assert_close!(v.mean_cosine, 1.0 / 3.0);
    // Sentences 1 and 2 are near-duplicates of each other, 3 is not → 2/3.
    assert_close!(v.near_duplicate_share, 2.0 / 3.0);
    // Bigrams: the cat, cat chased, chased the, the mouse (each twice) + dogs bark,
    // bark loudly → 4 of 6 distinct repeat.
    assert_close!(v.repeated_bigrams, 4.0 / 6.0);
    // Trigrams: 3 from the repeated sentence (twice each) + dogs bark loudly → 3/4.
    assert_close!(v.repeated_trigrams, 3.0 / 4.0);
    // The whole five-word sentence repeats.
    assert_close!(v.longest_repeated_ngram, 5.0);
    // Content stems: cat 2, chase 2, mous 2, dog 1, bark 1, loudli 1 → 6 of 9 occurrences.
    assert_close!(v.repeated_content_share, 6.0 / 9.0);
    assert_eq!(v.to_row().len(), FEATURES.len());
}

#[test]
fn values_of_partly_similar_sentences() {
    // "Cats chase cats. Cats eat birds."
    let a = analysis(vec![
        sentence(&[
            ("Cats", "NOUN", 2, "nsubj"),
            ("chase", "VERB", 0, "root"),
            ("cats", "NOUN", 2, "obj"),
            (".", "PUNCT", 2, "punct"),
        ]),
        sentence(&[
            ("Cats", "NOUN", 2, "nsubj"),
            ("eat", "VERB", 0, "root"),
            ("birds", "NOUN", 2, "obj"),
            (".", "PUNCT", 2, "punct"),
        ]),
    ]);
    let v = redundancy_values(&a);
    // (cat 2, chase 1) · (cat 1, eat 1, bird 1) = 2; norms √5, √3 → 2/√15 ≈ 0.516 < 0.8.
    assert_close!(v.max_cosine, 2.0 / 15f64.sqrt());
    assert_close!(v.mean_cosine, 2.0 / 15f64.sqrt());
    assert_close!(v.near_duplicate_share, 0.0);
    // Bigrams cats chase, chase cats, cats eat, eat birds: none repeats.
    assert_close!(v.repeated_bigrams, 0.0);
    assert_close!(v.repeated_trigrams, 0.0);
    // Only the word "cats" repeats.
    assert_close!(v.longest_repeated_ngram, 1.0);
    // Stems: cat 3, chase 1, eat 1, bird 1 → 3 of 6.
    assert_close!(v.repeated_content_share, 0.5);
}

#[test]
fn empty_and_one_sentence() {
    let empty = redundancy_values(&analysis(vec![]));
    assert!(empty.max_cosine.is_nan() && empty.mean_cosine.is_nan());
    assert!(empty.near_duplicate_share.is_nan());
    assert!(empty.repeated_bigrams.is_nan() && empty.repeated_content_share.is_nan());
    assert_close!(empty.longest_repeated_ngram, 0.0);
    let one = redundancy_values(&analysis(vec![sentence(&[
        ("Dogs", "NOUN", 2, "nsubj"),
        ("bark", "VERB", 0, "root"),
    ])]));
    assert!(one.max_cosine.is_nan() && one.mean_cosine.is_nan());
    assert_close!(one.near_duplicate_share, 0.0);
    assert_close!(one.repeated_bigrams, 0.0);
    assert!(one.repeated_trigrams.is_nan());
    assert_close!(one.repeated_content_share, 0.0);
}

#[test]
fn end_to_end_through_the_analyser() {
    let topic = common::topic_with_summaries(&[
        "Barack Obama visited the factory. Obama said the factory would reopen.",
        "The plant closed. The plant closed.",
        "",
    ]);
    let rows = Redundancy::new().extract(&TopicContext::new(&topic));
    assert_eq!(rows.len(), 3);
    let get = |row: usize, name: &str| {
        rows[row].as_ref().expect("a row")[FEATURES.iter().position(|f| *f == name).expect(name)]
    };
    // Tokenizer-level: bigrams barack obama, obama visited, visited the, the factory |
    // obama said, said the, the factory, factory would, would reopen → 8 distinct, 1 repeated.
    assert_close!(get(0, "repeated_bigrams"), 1.0 / 8.0);
    assert_close!(get(0, "longest_repeated_ngram"), 2.0);
    // Sharing "factory" and "Obama": similar but not duplicates.
    assert!(get(0, "max_cosine") > 0.2 && get(0, "max_cosine") < 0.8);
    // A repeated sentence: cosine 1, both near-duplicates, three words repeat.
    assert_close!(get(1, "max_cosine"), 1.0);
    assert_close!(get(1, "near_duplicate_share"), 1.0);
    assert_close!(get(1, "longest_repeated_ngram"), 3.0);
    assert!(get(2, "max_cosine").is_nan());
}

#[test]
fn summeval_topics_give_finite_plausible_values() {
    let Some(path) = common::data_or_skip(
        "summeval_topics_give_finite_plausible_values",
        "summeval/summeval.jsonl",
    ) else {
        return;
    };
    let topics = common::load_summeval(&path);
    let class = Redundancy::new();
    let index = |name: &str| FEATURES.iter().position(|f| *f == name).expect(name);
    let mut rows = Vec::new();
    for topic in topics.iter().take(4) {
        let extracted = class.extract(&TopicContext::new(topic));
        assert_eq!(extracted.len(), topic.summaries.len());
        rows.extend(extracted.into_iter().map(|r| r.expect("a row")));
    }
    let mut with_pairs = 0;
    for row in &rows {
        assert_eq!(row.len(), FEATURES.len());
        let max = row[index("max_cosine")];
        if max.is_nan() {
            continue;
        }
        with_pairs += 1;
        let mean = row[index("mean_cosine")];
        assert!((0.0..=1.0 + 1e-9).contains(&max), "max_cosine {max}");
        assert!(mean <= max + 1e-12, "mean {mean} > max {max}");
        for name in [
            "repeated_bigrams",
            "repeated_content_share",
            "near_duplicate_share",
        ] {
            let x = row[index(name)];
            assert!((0.0..=1.0).contains(&x), "{name} = {x}");
        }
        assert!(row[index("longest_repeated_ngram")] >= 1.0);
    }
    assert!(
        with_pairs > rows.len() / 2,
        "{with_pairs} of {}",
        rows.len()
    );
    let mean = |name: &str| {
        let k = index(name);
        let v: Vec<f64> = rows
            .iter()
            .map(|r| r[k])
            .filter(|x| x.is_finite())
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    eprintln!(
        "SummEval, {} summaries: mean max cosine {:.3}, mean cosine {:.3}, near-duplicates {:.3}, repeated bigrams {:.3}, longest repeat {:.2}",
        rows.len(),
        mean("max_cosine"),
        mean("mean_cosine"),
        mean("near_duplicate_share"),
        mean("repeated_bigrams"),
        mean("longest_repeated_ngram"),
    );
}
