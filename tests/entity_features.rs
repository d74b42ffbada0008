//! The entity grid (Barzilay & Lapata 2008) from hand-built parses, with hand-computed
//! transition probabilities; the `entity` class through the real parser and on SummEval.

use crate::common;

use aesop::corpus::{Document, Topic};
use aesop::features::entity::{
    entity_features, entity_grid, sequence_names, singular, EntityClass, Role,
};
use aesop::features::{FeatureClass, TopicContext};
use aesop::nlp::Analysis;
use common::close_1e12;
use common::hand_analysis::sentence_with_xpos;

/// "John met the committee. He praised the reports of the committee. They were long.
/// Mary and John agreed."
fn four_sentences() -> Analysis {
    Analysis {
        sentences: vec![
            sentence_with_xpos(&[
                ("John", "PROPN", "NNP", 2, "nsubj"),
                ("met", "VERB", "VBD", 0, "root"),
                ("the", "DET", "DT", 4, "det"),
                ("committee", "NOUN", "NN", 2, "obj"),
                (".", "PUNCT", ".", 2, "punct"),
            ]),
            sentence_with_xpos(&[
                ("He", "PRON", "PRP", 2, "nsubj"),
                ("praised", "VERB", "VBD", 0, "root"),
                ("the", "DET", "DT", 4, "det"),
                ("reports", "NOUN", "NNS", 2, "obj"),
                ("of", "ADP", "IN", 7, "case"),
                ("the", "DET", "DT", 7, "det"),
                ("committee", "NOUN", "NN", 4, "nmod"),
                (".", "PUNCT", ".", 2, "punct"),
            ]),
            sentence_with_xpos(&[
                ("They", "PRON", "PRP", 3, "nsubj"),
                ("were", "AUX", "VBD", 3, "cop"),
                ("long", "ADJ", "JJ", 0, "root"),
                (".", "PUNCT", ".", 3, "punct"),
            ]),
            sentence_with_xpos(&[
                ("Mary", "PROPN", "NNP", 4, "nsubj"),
                ("and", "CCONJ", "CC", 3, "cc"),
                ("John", "PROPN", "NNP", 1, "conj"),
                ("agreed", "VERB", "VBD", 0, "root"),
                (".", "PUNCT", ".", 4, "punct"),
            ]),
        ],
    }
}

/// The value of feature `name` (without the `entity.` prefix) in a row.
fn value(row: &[f64], name: &str) -> f64 {
    let names = EntityClass::new().feature_names();
    let i = names
        .iter()
        .position(|n| n == &format!("entity.{name}"))
        .unwrap_or_else(|| panic!("no feature entity.{name}"));
    row[i]
}

use Role::{Absent as N, O, S, X};

#[test]
fn grid_of_a_hand_parsed_text() {
    let grid = entity_grid(&four_sentences());
    // Columns in order of first mention; "reports" is stripped to "report".
    assert_eq!(grid.entities, ["john", "committee", "report", "mary"]);
    // john: S1 subject; S2 "He" → John (the only singular name before it) subject; absent in
    // S3; S4 "John" is a conjunct of the subject "Mary", so S as well.
    assert_eq!(grid.column_of("john"), Some(vec![S, S, N, S]));
    // committee: object in S1, nmod (X) in S2.
    assert_eq!(grid.column_of("committee"), Some(vec![O, X, N, N]));
    // report: object in S2; "They" → the only plural entity, subject in S3.
    assert_eq!(grid.column_of("report"), Some(vec![N, O, S, N]));
    assert_eq!(grid.column_of("mary"), Some(vec![N, N, N, S]));
    assert_eq!(grid.mentions, [3, 2, 2, 1]);
    assert_eq!((grid.pronouns, grid.resolved_pronouns), (2, 2));
}

#[test]
fn transition_probabilities_by_hand() {
    let row = entity_features(&four_sentences());
    assert_eq!(row.len(), EntityClass::new().feature_names().len());
    assert_eq!(row.len(), 2 * (16 + 64) + 3);

    // Length 2, all 4 columns × 3 windows = 12 transitions:
    //   john SS Sn nS; committee OX Xn nn; report nO OS Sn; mary nn nn nS
    //   SS 1, Sn 2, nS 2, OX 1, Xn 1, nn 3, nO 1, OS 1.
    let expected2 = [
        ("SS", 1.0),
        ("Sn", 2.0),
        ("nS", 2.0),
        ("OX", 1.0),
        ("Xn", 1.0),
        ("nn", 3.0),
        ("nO", 1.0),
        ("OS", 1.0),
    ];
    for name in sequence_names(2) {
        let count = expected2
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0.0, |(_, c)| *c);
        assert!(
            close_1e12(value(&row, &format!("all_{name}")), count / 12.0),
            "all_{name}"
        );
    }
    // Length 3, 4 columns × 2 windows = 8, all distinct:
    //   SSn SnS | OXn Xnn | nOS OSn | nnn nnS → each 1/8.
    for name in sequence_names(3) {
        let expected =
            if ["SSn", "SnS", "OXn", "Xnn", "nOS", "OSn", "nnn", "nnS"].contains(&name.as_str()) {
                1.0 / 8.0
            } else {
                0.0
            };
        assert!(
            close_1e12(value(&row, &format!("all_{name}")), expected),
            "all_{name}"
        );
    }
    // Salient (≥ 2 mentions): john, committee, report; 3 × 3 = 9 length-2 transitions:
    //   SS 1, Sn 2, nS 1, OX 1, Xn 1, nn 1, nO 1, OS 1.
    assert!(close_1e12(value(&row, "salient_Sn"), 2.0 / 9.0));
    assert!(close_1e12(value(&row, "salient_nS"), 1.0 / 9.0));
    assert!(close_1e12(value(&row, "salient_nn"), 1.0 / 9.0));
    assert!(close_1e12(value(&row, "salient_SO"), 0.0));
    // 3 × 2 = 6 length-3 transitions, each of SSn SnS OXn Xnn nOS OSn once.
    assert!(close_1e12(value(&row, "salient_SnS"), 1.0 / 6.0));
    assert!(close_1e12(value(&row, "salient_nnn"), 0.0));
    // Each group of probabilities sums to 1.
    let names = EntityClass::new().feature_names();
    for prefix in ["all_", "salient_"] {
        for n in [2, 3] {
            let sum: f64 = names
                .iter()
                .zip(&row)
                .filter(|(name, _)| {
                    name.strip_prefix("entity.")
                        .and_then(|s| s.strip_prefix(prefix))
                        .is_some_and(|s| s.len() == n)
                })
                .map(|(_, v)| v)
                .sum();
            assert!(close_1e12(sum, 1.0), "{prefix}{n}: {sum}");
        }
    }
    assert_eq!(value(&row, "entities"), 4.0);
    assert!(close_1e12(value(&row, "salient_share"), 0.75));
    assert_eq!(value(&row, "resolved_pronouns"), 1.0);
}

#[test]
fn pronoun_compatibility_names_and_plurals() {
    // "The dog saw John. It barked. They ran. Barack Obama spoke. Obama smiled at the cities."
    let analysis = Analysis {
        sentences: vec![
            sentence_with_xpos(&[
                ("The", "DET", "DT", 2, "det"),
                ("dog", "NOUN", "NN", 3, "nsubj"),
                ("saw", "VERB", "VBD", 0, "root"),
                ("John", "PROPN", "NNP", 3, "obj"),
                (".", "PUNCT", ".", 3, "punct"),
            ]),
            sentence_with_xpos(&[
                ("It", "PRON", "PRP", 2, "nsubj"),
                ("barked", "VERB", "VBD", 0, "root"),
            ]),
            sentence_with_xpos(&[
                ("They", "PRON", "PRP", 2, "nsubj"),
                ("ran", "VERB", "VBD", 0, "root"),
            ]),
            sentence_with_xpos(&[
                ("Barack", "PROPN", "NNP", 3, "nsubj"),
                ("Obama", "PROPN", "NNP", 1, "flat"),
                ("spoke", "VERB", "VBD", 0, "root"),
            ]),
            sentence_with_xpos(&[
                ("Obama", "PROPN", "NNP", 2, "nsubj"),
                ("smiled", "VERB", "VBD", 0, "root"),
                ("at", "ADP", "IN", 5, "case"),
                ("the", "DET", "DT", 5, "det"),
                ("cities", "NOUN", "NNS", 2, "obl"),
            ]),
        ],
    };
    let grid = entity_grid(&analysis);
    // "It" skips the more recent name John for the common noun dog; "They" finds no plural
    // entity before it and is left out; "Barack Obama" and "Obama" are one entity.
    assert_eq!(grid.entities, ["dog", "john", "obama", "city"]);
    assert_eq!(grid.column_of("dog"), Some(vec![S, S, N, N, N]));
    assert_eq!(grid.column_of("john"), Some(vec![O, N, N, N, N]));
    assert_eq!(grid.column_of("obama"), Some(vec![N, N, N, S, S]));
    assert_eq!(grid.column_of("city"), Some(vec![N, N, N, N, X]));
    assert_eq!((grid.pronouns, grid.resolved_pronouns), (2, 1));
    let row = entity_features(&analysis);
    assert!(close_1e12(value(&row, "resolved_pronouns"), 0.5));
    // Salient: dog and obama, 2 × 4 = 8 length-2 windows:
    //   dog SS Sn nn nn; obama nn nn nS SS → SS 2/8, nn 4/8.
    assert!(close_1e12(value(&row, "salient_SS"), 0.25));
    assert!(close_1e12(value(&row, "salient_nn"), 0.5));
}

#[test]
fn several_mentions_in_one_sentence_keep_the_highest_role() {
    // "The bank said the bank's profits rose." — bank is subject (S) and a possessor (X) in the
    // same sentence: the cell is S; "it" in the second sentence then refers to bank (profit is
    // plural), as an object.
    let analysis = Analysis {
        sentences: vec![
            sentence_with_xpos(&[
                ("The", "DET", "DT", 2, "det"),
                ("bank", "NOUN", "NN", 3, "nsubj"),
                ("said", "VERB", "VBD", 0, "root"),
                ("the", "DET", "DT", 5, "det"),
                ("bank", "NOUN", "NN", 6, "nmod:poss"),
                ("profits", "NOUN", "NNS", 7, "nsubj"),
                ("rose", "VERB", "VBD", 3, "ccomp"),
            ]),
            sentence_with_xpos(&[
                ("Analysts", "NOUN", "NNS", 2, "nsubj"),
                ("praised", "VERB", "VBD", 0, "root"),
                ("it", "PRON", "PRP", 2, "obj"),
            ]),
        ],
    };
    let grid = entity_grid(&analysis);
    assert_eq!(grid.column_of("bank"), Some(vec![S, O]));
    assert_eq!(grid.column_of("profit"), Some(vec![S, N]));
    assert_eq!(grid.column_of("analyst"), Some(vec![N, S]));
    assert_eq!(grid.mentions[0], 3);
}

#[test]
fn short_summaries_have_undefined_transitions() {
    let one = Analysis {
        sentences: vec![sentence_with_xpos(&[
            ("Dogs", "NOUN", "NNS", 2, "nsubj"),
            ("bark", "VERB", "VBP", 0, "root"),
        ])],
    };
    let row = entity_features(&one);
    // One sentence: no transition of any length; the entity count is still defined.
    assert!(row[..160].iter().all(|v| v.is_nan()));
    assert_eq!(value(&row, "entities"), 1.0);
    assert_eq!(value(&row, "salient_share"), 0.0);
    assert!(value(&row, "resolved_pronouns").is_nan());

    let mut two = one.clone();
    two.sentences.push(sentence_with_xpos(&[
        ("Dogs", "NOUN", "NNS", 2, "nsubj"),
        ("bite", "VERB", "VBP", 0, "root"),
    ]));
    let row = entity_features(&two);
    // Two sentences: one length-2 window (SS), no length-3 window.
    assert_eq!(value(&row, "all_SS"), 1.0);
    assert!(value(&row, "all_SSS").is_nan());
    assert_eq!(value(&row, "salient_SS"), 1.0);

    let empty = entity_features(&Analysis::default());
    assert!(empty[..160].iter().all(|v| v.is_nan()));
    assert_eq!(value(&empty, "entities"), 0.0);
    assert!(value(&empty, "salient_share").is_nan());
}

#[test]
fn plural_stripping() {
    for (plural, single) in [
        ("cities", "city"),
        ("boxes", "box"),
        ("glasses", "glass"),
        ("churches", "church"),
        ("cats", "cat"),
        ("glass", "glass"),
        ("men", "men"),
    ] {
        assert_eq!(singular(plural), single, "{plural}");
    }
}

#[test]
fn feature_names_are_ascii_and_unique() {
    let names = EntityClass::new().feature_names();
    assert_eq!(names.len(), 163);
    assert_eq!(names[0], "entity.all_SS");
    assert_eq!(names[15], "entity.all_nn");
    assert_eq!(names[16], "entity.all_SSS");
    assert_eq!(names[80], "entity.salient_SS");
    let unique: std::collections::HashSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len());
    assert!(names.iter().all(|n| n.is_ascii()));
}

fn topic_with(summaries: &[&str]) -> Topic {
    let mut topic = common::topic_with_summaries(summaries);
    topic.documents.push(Document::new(
        "d",
        "The mayor opened the bridge. It cost ten million dollars.",
    ));
    topic
}

#[test]
fn class_through_the_parser() {
    let topic = topic_with(&[
        "The mayor opened the new bridge on Monday. The bridge cost ten million dollars. \
         Residents said it was worth the money.",
        "",
    ]);
    let class = EntityClass::new();
    let rows = class.extract(&TopicContext::new(&topic));
    assert_eq!(rows.len(), 2);
    let row = rows[0].as_ref().expect("row for the first summary");
    assert_eq!(row.len(), class.feature_names().len());
    // Three sentences: every all_* transition is defined and the length-2 ones sum to 1;
    // bridge is mentioned twice, so the salient ones are defined too.
    assert!(row[..160].iter().all(|v| v.is_finite()), "{row:?}");
    let sum2: f64 = row[..16].iter().sum();
    assert!(close_1e12(sum2, 1.0), "{sum2}");
    assert!(value(row, "entities") >= 4.0, "{row:?}");
    // The empty summary has a row, with no entity.
    let empty = rows[1].as_ref().expect("row for the empty summary");
    assert_eq!(value(empty, "entities"), 0.0);
}

#[test]
fn summeval_topics() {
    let Some(path) = common::data_or_skip("entity summeval_topics", "summeval/summeval.jsonl")
    else {
        return;
    };
    let topics = common::load_summeval(&path);
    let class = EntityClass::new();
    let width = class.feature_names().len();
    let mut multi_sentence = 0;
    for topic in topics.iter().take(3) {
        let rows = class.extract(&TopicContext::new(topic));
        assert_eq!(rows.len(), topic.summaries.len());
        assert_eq!(rows.len(), 16);
        for row in &rows {
            let row = row.as_ref().expect("every SummEval summary gets a row");
            assert_eq!(row.len(), width);
            assert!(value(row, "entities") >= 1.0);
            if row[0].is_finite() {
                multi_sentence += 1;
                let sum2: f64 = row[..16].iter().sum();
                assert!(close_1e12(sum2, 1.0));
            }
        }
    }
    // Most SummEval summaries have several sentences.
    assert!(multi_sentence >= 40, "{multi_sentence} of 48");
}
