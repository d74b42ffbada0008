//! The `continuity` class (Pitler et al. 2010): adjacent-sentence cosine, dangling pronouns and
//! connectives, first-sentence properties and quotes, on hand-built analyses, through the real
//! parser, and on SummEval.

use crate::common;

use aesop::features::continuity::{
    continuity_features, cosine, feature_names, quotes, starting_connective, Continuity,
};
use aesop::features::discourse::Lexicon;
use aesop::features::{build_classes, FeatureClass, TopicContext};
use aesop::nlp::Analysis;
use common::close_1e12;
use common::hand_analysis::{sentence_of, tok};
use common::topic_with_summaries;
use std::collections::BTreeMap;

fn value(row: &[f64], name: &str) -> f64 {
    let i = feature_names()
        .iter()
        .position(|n| n == &format!("continuity.{name}"))
        .unwrap_or_else(|| panic!("no feature {name}"));
    row[i]
}

/// S0 `He said prices rose .` / S1 `However , prices fell .` / S2 `They said " prices , prices matter .`
fn text() -> Analysis {
    Analysis {
        sentences: vec![
            sentence_of(vec![
                tok("He", "PRON", 2, "nsubj"),
                tok("said", "VERB", 0, "root"),
                tok("prices", "NOUN", 4, "nsubj"),
                tok("rose", "VERB", 2, "ccomp"),
                tok(".", "PUNCT", 2, "punct"),
            ]),
            sentence_of(vec![
                tok("However", "ADV", 4, "advmod"),
                tok(",", "PUNCT", 4, "punct"),
                tok("prices", "NOUN", 4, "nsubj"),
                tok("fell", "VERB", 0, "root"),
                tok(".", "PUNCT", 4, "punct"),
            ]),
            sentence_of(vec![
                tok("They", "PRON", 2, "nsubj"),
                tok("said", "VERB", 0, "root"),
                tok("\"", "PUNCT", 7, "punct"),
                tok("prices", "NOUN", 7, "nsubj"),
                tok(",", "PUNCT", 6, "punct"),
                tok("prices", "NOUN", 4, "conj"),
                tok("matter", "VERB", 2, "ccomp"),
                tok(".", "PUNCT", 2, "punct"),
            ]),
        ],
    }
}

#[test]
fn cosine_by_hand() {
    let v = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // (1,1,0)·(1,0,1) / (√2·√2) = 1/2.
    assert!(close_1e12(cosine(&v(&["a", "b"]), &v(&["a", "c"])), 0.5));
    // (2,1)·(1,0) over {a,b}: 2 / (√5·1).
    assert!(close_1e12(
        cosine(&v(&["a", "a", "b"]), &v(&["a"])),
        2.0 / 5f64.sqrt()
    ));
    assert_eq!(cosine(&v(&[]), &v(&["a"])), 0.0);
}

#[test]
fn features_by_hand() {
    let row = continuity_features(&text(), Lexicon::embedded());
    assert_eq!(row.len(), feature_names().len());
    // Content stems ("said" and "however" are stop words): S0 {price, rose}, S1 {price, fell},
    // S2 {price ×2, matter}. cos(S0,S1) = 1/2; cos(S1,S2) = 2/(√2·√5) = 2/√10.
    let c12 = 2.0 / 10f64.sqrt();
    assert!(close_1e12(value(&row, "cosine_mean"), (0.5 + c12) / 2.0));
    assert!(close_1e12(value(&row, "cosine_min"), 0.5));
    // "He" and "They" start sentences (2/3); "He" opens the text (dangling), "They" follows a
    // sentence with a noun (1/3 dangling).
    assert!(close_1e12(value(&row, "pronoun_start_share"), 2.0 / 3.0));
    assert!(close_1e12(value(&row, "dangling_pronoun_share"), 1.0 / 3.0));
    // "However" opens S1 (1/3); the first sentence has no connective.
    assert!(close_1e12(value(&row, "connective_start_share"), 1.0 / 3.0));
    assert_eq!(value(&row, "first_connective_dangling"), 0.0);
    // First sentence: 4 words, starts with a pronoun, no proper noun.
    assert_eq!(value(&row, "first_tokens"), 4.0);
    assert_eq!(value(&row, "first_pronoun_start"), 1.0);
    assert_eq!(value(&row, "first_has_proper_noun"), 0.0);
    // S2 has one straight quote: quoted and unbalanced.
    assert!(close_1e12(value(&row, "quote_share"), 1.0 / 3.0));
    assert!(close_1e12(value(&row, "unbalanced_quote_share"), 1.0 / 3.0));
}

#[test]
fn first_sentence_connectives() {
    let lex = Lexicon::embedded();
    // "But Smith left ." — "But" reaches back to a previous sentence that does not exist.
    let but = sentence_of(vec![
        tok("But", "CCONJ", 3, "cc"),
        tok("Smith", "PROPN", 3, "nsubj"),
        tok("left", "VERB", 0, "root"),
        tok(".", "PUNCT", 3, "punct"),
    ]);
    assert_eq!(starting_connective(&but, lex), Some(true));
    let row = continuity_features(
        &Analysis {
            sentences: vec![but.clone()],
        },
        lex,
    );
    assert_eq!(value(&row, "first_connective_dangling"), 1.0);
    assert_eq!(value(&row, "connective_start_share"), 1.0);
    assert_eq!(value(&row, "first_has_proper_noun"), 1.0);
    assert_eq!(value(&row, "first_pronoun_start"), 0.0);
    assert_eq!(value(&row, "first_tokens"), 3.0);
    // One sentence: no adjacent pair.
    assert!(value(&row, "cosine_mean").is_nan());
    // "When prices rose , Smith left ." — the connective links within the sentence.
    let when = sentence_of(vec![
        tok("When", "SCONJ", 3, "mark"),
        tok("prices", "NOUN", 3, "nsubj"),
        tok("rose", "VERB", 6, "advcl"),
        tok(",", "PUNCT", 3, "punct"),
        tok("Smith", "PROPN", 6, "nsubj"),
        tok("left", "VERB", 0, "root"),
        tok(".", "PUNCT", 6, "punct"),
    ]);
    assert_eq!(starting_connective(&when, lex), Some(false));
    let row = continuity_features(
        &Analysis {
            sentences: vec![when],
        },
        lex,
    );
    assert_eq!(value(&row, "first_connective_dangling"), 0.0);
    assert_eq!(value(&row, "connective_start_share"), 1.0);
    // "This plan works ." — a determiner "This" is not a pronoun start; "This works ." is.
    let det = sentence_of(vec![
        tok("This", "DET", 2, "det"),
        tok("plan", "NOUN", 3, "nsubj"),
        tok("works", "VERB", 0, "root"),
    ]);
    let pron = sentence_of(vec![
        tok("This", "PRON", 2, "nsubj"),
        tok("works", "VERB", 0, "root"),
    ]);
    let row = continuity_features(
        &Analysis {
            sentences: vec![det, pron],
        },
        lex,
    );
    // S1 "This" follows a sentence with the noun "plan": not dangling.
    assert!(close_1e12(value(&row, "pronoun_start_share"), 0.5));
    assert!(close_1e12(value(&row, "dangling_pronoun_share"), 0.0));
}

#[test]
fn quote_balance() {
    let s =
        |forms: &[&str]| sentence_of(forms.iter().map(|f| tok(f, "PUNCT", 0, "root")).collect());
    assert_eq!(quotes(&s(&["``", "a", "''"])), (true, false));
    assert_eq!(quotes(&s(&["\"", "a", "\""])), (true, false));
    assert_eq!(quotes(&s(&["“", "a"])), (true, true));
    assert_eq!(quotes(&s(&["a", "'s"])), (false, false));
}

#[test]
fn empty_summary_is_nan() {
    let row = continuity_features(&Analysis::default(), Lexicon::embedded());
    assert_eq!(row.len(), feature_names().len());
    assert!(row.iter().all(|v| v.is_nan()));
}

#[test]
fn end_to_end_through_the_parser() {
    let topic = topic_with_summaries(&[
        "However, he left the company. The company said \"goodbye\" to him.",
        "Smith left the company on Monday. The company thanked Smith.",
    ]);
    let classes = build_classes(&["continuity".to_string()], &Default::default())
        .expect("the class is registered");
    assert_eq!(classes[0].feature_names(), feature_names());
    let rows = Continuity::new().extract(&TopicContext::new(&topic));
    let bad = rows[0].as_ref().expect("a row");
    let good = rows[1].as_ref().expect("a row");
    // The first text opens with a connective with nothing to connect to; the second does not.
    assert_eq!(value(bad, "first_connective_dangling"), 1.0);
    assert_eq!(value(good, "first_connective_dangling"), 0.0);
    assert!(close_1e12(value(bad, "connective_start_share"), 0.5));
    // Quotes: the balanced pair in the second sentence of the first text.
    assert!(close_1e12(value(bad, "quote_share"), 0.5));
    assert!(close_1e12(value(bad, "unbalanced_quote_share"), 0.0));
    assert_eq!(value(good, "quote_share"), 0.0);
    // Stems {left, compani} / {compani, thank, smith}... "left" and "company" recur, so both
    // texts have positive adjacent cosine.
    assert!(value(bad, "cosine_mean") > 0.0);
    assert!(value(good, "cosine_mean") > 0.0);
    assert_eq!(value(good, "first_tokens"), 6.0);
}

#[test]
fn summeval_continuity_features() {
    let Some(path) =
        common::data_or_skip("summeval_continuity_features", "summeval/summeval.jsonl")
    else {
        return;
    };
    let topics = common::load_summeval(&path);
    let class = Continuity::new();
    let mut per_system: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
    let start = std::time::Instant::now();
    for topic in topics.iter().take(10) {
        let rows = class.extract(&TopicContext::new(topic));
        assert_eq!(rows.len(), topic.summaries.len());
        for (summary, row) in topic.summaries.iter().zip(rows) {
            let row = row.expect("reference-free: always a row");
            let cos = value(&row, "cosine_mean");
            assert!(cos.is_nan() || (0.0..=1.0 + 1e-9).contains(&cos), "{cos}");
            for name in [
                "pronoun_start_share",
                "dangling_pronoun_share",
                "connective_start_share",
                "quote_share",
                "unbalanced_quote_share",
            ] {
                let v = value(&row, name);
                assert!((0.0..=1.0).contains(&v), "{name} = {v}");
            }
            assert!(value(&row, "first_tokens") >= 1.0);
            let e = per_system.entry(summary.system.clone()).or_default();
            if cos.is_finite() {
                e.0 += cos;
            }
            e.1 += summary.scores.get("coherence").copied().unwrap_or(f64::NAN);
            e.2 += 1.0;
        }
    }
    let cos: Vec<f64> = per_system.values().map(|e| e.0 / e.2).collect();
    let coherence: Vec<f64> = per_system.values().map(|e| e.1 / e.2).collect();
    let rho = common::spearman(&cos, &coherence);
    eprintln!(
        "continuity: 10 topics in {:.2} s; system-level Spearman(cosine_mean, coherence) = {rho:.3}",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(per_system.len(), 16);
    assert!(rho.is_finite());
}
