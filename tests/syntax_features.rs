//! Sentence-fluency features from hand-built parses with hand-computed values; the `syntax`
//! class through the real parser and on SummEval.

use crate::common;

use aesop::features::syntax::{syntax_features, tree_depth, verbless_root, Syntax};
use aesop::features::{FeatureClass, TopicContext};
use aesop::nlp::Analysis;
use common::close_1e12;
use common::hand_analysis::sentence;

/// "The cat sat on the mat. A big dog Wow, it is great!"
fn three_sentences() -> Analysis {
    Analysis {
        sentences: vec![
            sentence(&[
                ("The", "DET", 2, "det"),
                ("cat", "NOUN", 3, "nsubj"),
                ("sat", "VERB", 0, "root"),
                ("on", "ADP", 6, "case"),
                ("the", "DET", 6, "det"),
                ("mat", "NOUN", 3, "obl"),
                (".", "PUNCT", 3, "punct"),
            ]),
            // A fragment without final punctuation.
            sentence(&[
                ("A", "DET", 3, "det"),
                ("big", "ADJ", 3, "amod"),
                ("dog", "NOUN", 0, "root"),
            ]),
            // Copular: the root is the adjective, but the clause is not verbless.
            sentence(&[
                ("Wow", "INTJ", 5, "discourse"),
                (",", "PUNCT", 5, "punct"),
                ("it", "PRON", 5, "nsubj"),
                ("is", "AUX", 5, "cop"),
                ("great", "ADJ", 0, "root"),
                ("!", "PUNCT", 5, "punct"),
            ]),
        ],
    }
}

fn value(row: &[f64], name: &str) -> f64 {
    let names = Syntax::new().feature_names();
    let i = names
        .iter()
        .position(|n| n == &format!("syntax.{name}"))
        .unwrap_or_else(|| panic!("no feature syntax.{name}"));
    row[i]
}

#[test]
fn features_by_hand() {
    let row = syntax_features(&three_sentences());
    assert_eq!(row.len(), Syntax::new().feature_names().len());
    assert_eq!(value(&row, "sentences"), 3.0);
    // Words (non-punctuation): 6, 3, 4 → mean 13/3, max 6.
    assert!(close_1e12(value(&row, "mean_sentence_words"), 13.0 / 3.0));
    assert_eq!(value(&row, "max_sentence_words"), 6.0);
    // Only "A big dog" has a nominal root without a copula; only it lacks a subject and final
    // punctuation.
    assert!(close_1e12(value(&row, "verbless_root_share"), 1.0 / 3.0));
    assert!(close_1e12(value(&row, "no_subject_share"), 1.0 / 3.0));
    assert!(close_1e12(value(&row, "unterminated_share"), 1.0 / 3.0));
    // Depths: sat → on → the... : sat(1) cat(2) The(3) mat(2) on(3) → 3; dog(1) A(2) → 2;
    // great(1) others(2) → 2. Mean 7/3, max 3.
    assert!(close_1e12(value(&row, "mean_depth"), 7.0 / 3.0));
    assert_eq!(value(&row, "max_depth"), 3.0);
    // Dependency lengths of non-root, non-punctuation tokens:
    //   The 1, cat 1, on 2, the 1, mat 3 | A 2, big 1 | Wow 4, it 2, is 1 → 18 / 10.
    assert!(close_1e12(value(&row, "mean_dependency_length"), 1.8));
    // 16 tokens in all.
    for (rel, count) in [
        ("nsubj", 2.0),
        ("det", 3.0),
        ("case", 1.0),
        ("obl", 1.0),
        ("punct", 3.0),
        ("amod", 1.0),
        ("cop", 1.0),
        ("obj", 0.0),
        ("dep", 0.0),
    ] {
        assert!(
            close_1e12(value(&row, &format!("rel_{rel}")), count / 16.0),
            "rel_{rel}"
        );
    }
    assert!(close_1e12(value(&row, "upos_intj"), 1.0 / 16.0));
    assert_eq!(value(&row, "upos_x"), 0.0);
    assert_eq!(value(&row, "upos_sym"), 0.0);
}

#[test]
fn subtypes_fold_into_base_relations() {
    // "It was eaten": nsubj:pass counts as nsubj, aux:pass as aux; the root is a verb.
    let analysis = Analysis {
        sentences: vec![sentence(&[
            ("It", "PRON", 3, "nsubj:pass"),
            ("was", "AUX", 3, "aux:pass"),
            ("eaten", "VERB", 0, "root"),
            (".", "PUNCT", 3, "punct"),
        ])],
    };
    let row = syntax_features(&analysis);
    assert!(close_1e12(value(&row, "rel_nsubj"), 0.25));
    assert!(close_1e12(value(&row, "rel_aux"), 0.25));
    assert_eq!(value(&row, "no_subject_share"), 0.0);
    assert_eq!(value(&row, "verbless_root_share"), 0.0);
    assert_eq!(value(&row, "unterminated_share"), 0.0);
}

#[test]
fn empty_and_malformed_analyses() {
    let row = syntax_features(&Analysis::default());
    assert_eq!(value(&row, "sentences"), 0.0);
    assert!(row[1..].iter().all(|v| v.is_nan()));

    // A head cycle (1 → 2 → 1) and no root: the depth walk stops, the sentence is a fragment.
    let cyclic = sentence(&[("a", "NOUN", 2, "dep"), ("b", "NOUN", 1, "dep")]);
    assert_eq!(tree_depth(&cyclic), 2);
    assert!(verbless_root(&cyclic));
    let row = syntax_features(&Analysis {
        sentences: vec![cyclic],
    });
    assert!(close_1e12(value(&row, "rel_dep"), 1.0));
    assert!(close_1e12(value(&row, "mean_dependency_length"), 1.0));
}

#[test]
fn class_through_the_parser() {
    let text = "The committee approved the plan on Tuesday. Critics said it would cost too much. \
                A new hope for the city";
    let topic = common::topic_with_summaries(&[text, ""]);
    let class = Syntax::new();
    let rows = class.extract(&TopicContext::new(&topic));
    assert_eq!(rows.len(), 2);
    let row = rows[0].as_ref().expect("row");
    assert_eq!(row.len(), class.feature_names().len());
    assert!(row.iter().all(|v| v.is_finite()), "{row:?}");
    assert_eq!(value(row, "sentences"), 3.0);
    // The last "sentence" has no final punctuation.
    assert!(value(row, "unterminated_share") > 0.3);
    assert!(value(row, "max_depth") >= 3.0);
    let empty = rows[1].as_ref().expect("row for the empty summary");
    assert_eq!(value(empty, "sentences"), 0.0);
}

#[test]
fn summeval_topics() {
    let Some(path) = common::data_or_skip("syntax summeval_topics", "summeval/summeval.jsonl")
    else {
        return;
    };
    let topics = common::load_summeval(&path);
    let class = Syntax::new();
    let width = class.feature_names().len();
    for topic in topics.iter().take(3) {
        let rows = class.extract(&TopicContext::new(topic));
        assert_eq!(rows.len(), 16);
        for row in &rows {
            let row = row.as_ref().expect("every SummEval summary gets a row");
            assert_eq!(row.len(), width);
            assert!(value(row, "sentences") >= 1.0);
            assert!(row.iter().all(|v| v.is_finite()), "{row:?}");
            let shares: f64 = (0..width)
                .filter(|&i| class.feature_names()[i].starts_with("syntax.rel_"))
                .map(|i| row[i])
                .sum();
            assert!(shares <= 1.0 + 1e-9 && shares > 0.3, "{shares}");
        }
    }
}

/// The depth of chains, branches, heads outside the sentence and cycles that hang below a
/// token: a chain of 20,000 tokens (a parse of a long unpunctuated text can be one) is walked
/// once, not once per token.
#[test]
fn tree_depth_counts_the_longest_path_of_any_shape() {
    let n = 20_000;
    let words: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
    // Token i+1's head is token i+2; the last is the root.
    let chain: Vec<(&str, &str, usize, &str)> = (0..n)
        .map(|i| {
            let head = if i + 1 == n { 0 } else { i + 2 };
            (words[i].as_str(), "NOUN", head, "dep")
        })
        .collect();
    assert_eq!(tree_depth(&sentence(&chain)), n);
    // A root with two branches, of two tokens and of one.
    let branches = sentence(&[
        ("a", "NOUN", 2, "dep"),
        ("b", "NOUN", 3, "dep"),
        ("c", "VERB", 0, "root"),
        ("d", "NOUN", 3, "dep"),
    ]);
    assert_eq!(tree_depth(&branches), 3);
    // A head past the end ends the path where it points.
    let outside = sentence(&[("a", "NOUN", 9, "dep"), ("b", "NOUN", 1, "dep")]);
    assert_eq!(tree_depth(&outside), 2);
    // A token hanging below a cycle (3 → 1 → 2 → 1): a path through every token.
    let below_cycle = sentence(&[
        ("a", "NOUN", 2, "dep"),
        ("b", "NOUN", 1, "dep"),
        ("c", "NOUN", 1, "dep"),
    ]);
    assert_eq!(tree_depth(&below_cycle), 3);
    assert_eq!(tree_depth(&sentence(&[])), 0);
}
