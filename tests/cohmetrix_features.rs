//! The `cohmetrix` class: syllable heuristic, TTR/MATTR, Flesch formulas, connectives and the
//! values of hand-built analyses (hand-computed), then the real analyser end to end and a few
//! SummEval topics.

use crate::common;

use aesop::features::cohmetrix::{
    cohmetrix_values, count_connectives, flesch_kincaid_grade, flesch_reading_ease, mattr,
    syllables, ttr, CohMetrix, FEATURES,
};
use aesop::features::{build_classes, is_reference_free, FeatureClass, TopicContext};
use common::hand_analysis::{analysis, sentence};

#[test]
fn syllable_heuristic_on_hand_counted_words() {
    // Hand counts (dictionary syllabification) that the heuristic gets right.
    let expected = [
        ("cat", 1),
        ("the", 1),
        ("a", 1),
        ("make", 1),      // silent final e
        ("table", 2),     // ta-ble: syllabic -le
        ("little", 2),    // lit-tle
        ("whale", 1),     // -le after a vowel is silent
        ("jumped", 1),    // silent -ed
        ("wanted", 2),    // want-ed after t
        ("boxes", 2),     // box-es after x
        ("names", 1),     // silent -es
        ("places", 2),    // pla-ces after c
        ("goes", 1),      // -es after a vowel stays in the vowel group
        ("played", 1),    // "aye" is one vowel group
        ("beautiful", 3), // eau-ti-ful
        ("however", 3),
        ("reading", 2),
        ("summarization", 5),
        ("people", 2),
        ("yes", 1),   // initial y is a consonant
        ("happy", 2), // final y is a vowel
        ("they", 1),
        ("queue", 1),
        ("Caught", 1), // case does not matter
        ("1990", 1),   // no letters: 1
        ("n't", 1),
    ];
    for (word, count) in expected {
        assert_eq!(syllables(word), count, "{word}");
    }
}

#[test]
fn type_token_ratios() {
    // a a b a: 2 types / 4 tokens.
    let words = ["a", "a", "b", "a"];
    assert_close!(ttr(&words), 0.5);
    // Window 2: [a a] 1/2, [a b] 2/2, [b a] 2/2 → (0.5 + 1 + 1)/3.
    assert_close!(mattr(&words, 2), 2.5 / 3.0);
    // Window 3: [a a b] 2/3, [a b a] 2/3 → 2/3.
    assert_close!(mattr(&words, 3), 2.0 / 3.0);
    // A window at least as long as the text: plain TTR.
    assert_close!(mattr(&words, 25), 0.5);
    let empty: [&str; 0] = [];
    assert!(ttr(&empty).is_nan() && mattr(&empty, 25).is_nan());
}

#[test]
fn flesch_formulas() {
    // 100 words, 5 sentences, 150 syllables:
    // FRE = 206.835 − 1.015·20 − 84.6·1.5 = 206.835 − 20.3 − 126.9 = 59.635
    // FKG = 0.39·20 + 11.8·1.5 − 15.59 = 7.8 + 17.7 − 15.59 = 9.91
    assert_close!(flesch_reading_ease(100, 5, 150), 59.635);
    assert_close!(flesch_kincaid_grade(100, 5, 150), 9.91);
    assert!(flesch_reading_ease(0, 0, 0).is_nan());
    assert!(flesch_kincaid_grade(0, 1, 0).is_nan());
}

#[test]
fn connectives_longest_match_by_category() {
    let tokens: Vec<String> =
        "as a result he left even though it rained and then he went on the other hand"
            .split(' ')
            .map(str::to_string)
            .collect();
    // additive: and; causal: as a result; adversative: even though, on the other hand
    // (not "though" alone); temporal: then.
    assert_eq!(count_connectives(&tokens), [1, 1, 2, 1]);
    assert_eq!(count_connectives(&[]), [0, 0, 0, 0]);
}

/// "The cat chased the mouse. However, it caught a big cat. It slept."
fn three_sentences() -> aesop::nlp::Analysis {
    analysis(vec![
        sentence(&[
            ("The", "DET", 2, "det"),
            ("cat", "NOUN", 3, "nsubj"),
            ("chased", "VERB", 0, "root"),
            ("the", "DET", 5, "det"),
            ("mouse", "NOUN", 3, "obj"),
            (".", "PUNCT", 3, "punct"),
        ]),
        sentence(&[
            ("However", "ADV", 4, "advmod"),
            (",", "PUNCT", 4, "punct"),
            ("it", "PRON", 4, "nsubj"),
            ("caught", "VERB", 0, "root"),
            ("a", "DET", 7, "det"),
            ("big", "ADJ", 7, "amod"),
            ("cat", "NOUN", 4, "obj"),
            (".", "PUNCT", 4, "punct"),
        ]),
        sentence(&[
            ("It", "PRON", 2, "nsubj"),
            ("slept", "VERB", 0, "root"),
            (".", "PUNCT", 2, "punct"),
        ]),
    ])
}

#[test]
fn values_of_a_hand_built_analysis() {
    let v = cohmetrix_values(&three_sentences());
    // Words (punctuation dropped): 5 + 6 + 2 = 13 over 3 sentences.
    // Characters: the3 cat3 chased6 the3 mouse5 = 20; however7 it2 caught6 a1 big3 cat3 = 22;
    // it2 slept5 = 7 → 49.
    assert_close!(v.word_chars, 49.0 / 13.0);
    // Syllables: 1+1+1 (chased: silent -ed)+1+1 (mouse: silent e) = 5;
    // 3+1+1+1+1+1 = 8; 1+1 = 2 → 15.
    assert_close!(v.word_syllables, 15.0 / 13.0);
    assert_close!(v.sentence_words, 13.0 / 3.0);
    // Types: the cat chased mouse however it caught a big slept = 10 (It = it).
    assert_close!(v.ttr, 10.0 / 13.0);
    assert_close!(v.mattr, 10.0 / 13.0); // shorter than the 25-word window
                                         // FRE = 206.835 − 1.015·13/3 − 84.6·15/13 = 206.835 − 4.398333… − 97.615384… = 104.821282…
    assert_close!(
        v.flesch_reading_ease,
        206.835 - 1.015 * 13.0 / 3.0 - 84.6 * 15.0 / 13.0
    );
    assert!((v.flesch_reading_ease - 104.821282).abs() < 1e-5);
    // FKG = 0.39·13/3 + 11.8·15/13 − 15.59 = 1.69 + 13.615385 − 15.59 = −0.284615
    assert!((v.flesch_kincaid_grade - (-0.284615)).abs() < 1e-5);
    // One connective (However, adversative) in 13 words.
    assert_close!(v.connectives, 1.0 / 13.0);
    assert_eq!(v.connectives_by_category, [0.0, 0.0, 1.0 / 13.0, 0.0]);
    // Noun lemmas {cat, mous}, {cat}, {}: pairs (1,2) share cat, (2,3) nothing → 1/2.
    assert_close!(v.adjacent_noun_overlap, 0.5);
    // Content stems (SMART words such as "however" dropped): {cat, chase, mous},
    // {caught, big, cat}, {slept}. Pair 1: |{cat}| / |{cat chase mous caught big}| = 1/5;
    // pair 2: 0/4. Mean 0.1.
    assert_close!(v.adjacent_content_overlap, 0.1);
    // Content words: cat chased mouse however caught big cat slept = 8 of 13.
    assert_close!(v.content_word_share, 8.0 / 13.0);
    // Pronouns: it, It.
    assert_close!(v.pronoun_density, 2.0 / 13.0);
    assert_eq!(v.to_row().len(), FEATURES.len());
}

#[test]
fn empty_and_one_sentence_give_nan_not_panics() {
    let empty = cohmetrix_values(&analysis(vec![]));
    assert!(empty.to_row().iter().all(|x| x.is_nan()), "{empty:?}");
    // A sentence of punctuation only: one sentence, no words.
    let punct = cohmetrix_values(&analysis(vec![sentence(&[("...", "PUNCT", 0, "root")])]));
    assert!(punct.word_chars.is_nan() && punct.ttr.is_nan());
    assert_close!(punct.sentence_words, 0.0);
    let one = cohmetrix_values(&analysis(vec![sentence(&[
        ("Cats", "NOUN", 2, "nsubj"),
        ("sleep", "VERB", 0, "root"),
    ])]));
    assert!(one.adjacent_noun_overlap.is_nan() && one.adjacent_content_overlap.is_nan());
    assert_close!(one.sentence_words, 2.0);
    assert_close!(one.content_word_share, 1.0);
}

#[test]
fn registered_as_a_reference_free_class() {
    let classes = build_classes(
        &[
            "cohmetrix".to_string(),
            "redundancy".to_string(),
            "npsyntax".to_string(),
        ],
        &Default::default(),
    )
    .expect("known classes");
    let names: Vec<&str> = classes.iter().map(|c| c.name()).collect();
    assert_eq!(names, ["cohmetrix", "redundancy", "npsyntax"]);
    for c in &classes {
        assert!(!c.needs_references());
        assert!(is_reference_free(c.name()));
        assert!(aesop::features::default_class_names().contains(&c.name()));
    }
    assert_eq!(classes[0].feature_names()[0], "cohmetrix.word_chars");
}

#[test]
fn end_to_end_through_the_analyser() {
    let topic = common::topic_with_summaries(&[
        "Barack Obama visited the factory. However, Obama said the factory would reopen.",
        "",
    ]);
    let class = CohMetrix::new();
    let rows = class.extract(&TopicContext::new(&topic));
    assert_eq!(rows.len(), 2);
    let row = rows[0].as_ref().expect("a row");
    assert_eq!(row.len(), class.feature_names().len());
    let get = |name: &str| row[FEATURES.iter().position(|f| *f == name).expect(name)];
    // Tokenizer-level values (no tagging involved): 5 + 7 words in 2 sentences; types
    // barack obama visited the factory however said would reopen = 9 of 12.
    assert_close!(get("sentence_words"), 6.0);
    assert_close!(get("ttr"), 9.0 / 12.0);
    assert_close!(get("connectives_adversative"), 1.0 / 12.0);
    // Both sentences mention the factory (and Obama): the nouns overlap.
    assert_close!(get("adjacent_noun_overlap"), 1.0);
    assert!(get("content_word_share") > 0.3 && get("content_word_share") < 0.9);
    // The empty summary: a row of NaN.
    let empty = rows[1].as_ref().expect("a row");
    assert!(empty.iter().all(|x| x.is_nan()));
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
    let class = CohMetrix::new();
    let index = |name: &str| FEATURES.iter().position(|f| *f == name).expect(name);
    let mut rows = Vec::new();
    for topic in topics.iter().take(4) {
        let extracted = class.extract(&TopicContext::new(topic));
        assert_eq!(extracted.len(), topic.summaries.len());
        rows.extend(extracted.into_iter().map(|r| r.expect("a row")));
    }
    // SummEval has no empty summary, but a summary without words would be a row of NaN.
    rows.retain(|r| !r[index("ttr")].is_nan());
    assert!(rows.len() >= 60, "{} summaries with words", rows.len());
    let mut multi_sentence = 0;
    for row in &rows {
        assert_eq!(row.len(), FEATURES.len());
        for name in [
            "ttr",
            "mattr",
            "content_word_share",
            "pronoun_density",
            "connectives",
        ] {
            let x = row[index(name)];
            assert!((0.0..=1.0).contains(&x), "{name} = {x}");
        }
        let chars = row[index("word_chars")];
        assert!((2.5..8.0).contains(&chars), "word_chars = {chars}");
        let syl = row[index("word_syllables")];
        assert!((1.0..2.5).contains(&syl), "word_syllables = {syl}");
        if !row[index("adjacent_noun_overlap")].is_nan() {
            multi_sentence += 1;
        }
    }
    assert!(
        multi_sentence > rows.len() / 2,
        "{multi_sentence} of {}",
        rows.len()
    );
    let mean = |name: &str| {
        let k = index(name);
        rows.iter().map(|r| r[k]).sum::<f64>() / rows.len() as f64
    };
    eprintln!(
        "SummEval, {} summaries: mean FRE {:.1}, FKG {:.1}, words/sentence {:.1}, noun overlap {:.2}",
        rows.len(),
        mean("flesch_reading_ease"),
        mean("flesch_kincaid_grade"),
        mean("sentence_words"),
        rows.iter()
            .map(|r| r[index("adjacent_noun_overlap")])
            .filter(|x| !x.is_nan())
            .sum::<f64>()
            / multi_sentence as f64
    );
    // News summaries: a grade level between primary school and graduate school.
    let grade = mean("flesch_kincaid_grade");
    assert!((4.0..20.0).contains(&grade), "mean FKG {grade}");
}
