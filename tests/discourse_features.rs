//! The `discourse` class: connective detection, argument spans, the discourse role matrix and
//! its transition / intra-cell features, on hand-built analyses (so parser accuracy does not
//! matter), plus one run through the real parser and a SummEval data test.

use crate::common;

use aesop::features::discourse::{
    connective_args, discourse_features, explicit_relations, feature_names, find_connectives,
    is_discourse_use, relations, role_matrix, Discourse, Lexicon, Sense,
};
use aesop::features::{build_classes, FeatureClass, TopicContext};
use aesop::nlp::Analysis;
use common::close_1e12;
use common::hand_analysis::{sentence_of, tok};
use common::topic_with_summaries;

/// S0 "Prices rose because demand grew ." / S1 "However , demand fell ." / S2 "Shops closed ."
fn prices_text() -> Analysis {
    Analysis {
        sentences: vec![
            sentence_of(vec![
                tok("Prices", "NOUN", 2, "nsubj"),
                tok("rose", "VERB", 0, "root"),
                tok("because", "SCONJ", 5, "mark"),
                tok("demand", "NOUN", 5, "nsubj"),
                tok("grew", "VERB", 2, "advcl"),
                tok(".", "PUNCT", 2, "punct"),
            ]),
            sentence_of(vec![
                tok("However", "ADV", 4, "advmod"),
                tok(",", "PUNCT", 4, "punct"),
                tok("demand", "NOUN", 4, "nsubj"),
                tok("fell", "VERB", 0, "root"),
                tok(".", "PUNCT", 4, "punct"),
            ]),
            sentence_of(vec![
                tok("Shops", "NOUN", 2, "nsubj"),
                tok("closed", "VERB", 0, "root"),
                tok(".", "PUNCT", 2, "punct"),
            ]),
        ],
    }
}

/// S0 "Cats sleep and dogs bark ." (clausal *and*) / S1 "Dogs like cats and mice ." (nominal *and*)
fn pets_text() -> Analysis {
    Analysis {
        sentences: vec![
            sentence_of(vec![
                tok("Cats", "NOUN", 2, "nsubj"),
                tok("sleep", "VERB", 0, "root"),
                tok("and", "CCONJ", 5, "cc"),
                tok("dogs", "NOUN", 5, "nsubj"),
                tok("bark", "VERB", 2, "conj"),
                tok(".", "PUNCT", 2, "punct"),
            ]),
            sentence_of(vec![
                tok("Dogs", "NOUN", 2, "nsubj"),
                tok("like", "VERB", 0, "root"),
                tok("cats", "NOUN", 2, "obj"),
                tok("and", "CCONJ", 5, "cc"),
                tok("mice", "NOUN", 3, "conj"),
                tok(".", "PUNCT", 2, "punct"),
            ]),
        ],
    }
}

/// The value of a named feature in a row.
fn value(row: &[f64], name: &str) -> f64 {
    let names = feature_names();
    let i = names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no feature {name}"));
    row[i]
}

/// Sum of the values of features whose name starts with `prefix`.
fn sum(row: &[f64], prefix: &str) -> f64 {
    feature_names()
        .iter()
        .zip(row)
        .filter(|(n, _)| n.starts_with(prefix))
        .map(|(_, v)| v)
        .sum()
}

#[test]
fn connectives_longest_match_and_use_test() {
    let lex = Lexicon::embedded();
    // "as a result" wins over "as"; matching is case-insensitive.
    let s = sentence_of(vec![
        tok("As", "ADP", 3, "case"),
        tok("a", "DET", 3, "det"),
        tok("result", "NOUN", 6, "obl"),
        tok(",", "PUNCT", 3, "punct"),
        tok("they", "PRON", 6, "nsubj"),
        tok("sold", "VERB", 0, "root"),
        tok("cats", "NOUN", 6, "obj"),
        tok("and", "CCONJ", 9, "cc"),
        tok("dogs", "NOUN", 7, "conj"),
        tok("after", "ADP", 12, "case"),
        tok("the", "DET", 12, "det"),
        tok("war", "NOUN", 6, "obl"),
        tok(".", "PUNCT", 6, "punct"),
    ]);
    let found = find_connectives(lex, &s);
    let spans: Vec<(usize, usize)> = found.iter().map(|m| (m.start, m.end)).collect();
    assert_eq!(spans, vec![(0, 3), (7, 8), (9, 10)]);
    // "as a result" (rate 0.636) is a connective; "and" (0.453) between nouns and the
    // preposition "after" (0.409) are not.
    let used: Vec<bool> = found.iter().map(|m| is_discourse_use(&s, m)).collect();
    assert_eq!(used, vec![true, false, false]);
    // "as a result" attaches to the root "sold": Arg2 = the rest of the sentence, and nothing
    // with content precedes it, so Arg1 is the previous sentence.
    let args = connective_args(&s, &found[0]);
    assert_eq!(args.arg2, 3..13);
    assert_eq!(args.arg1_same_sentence, None);
    assert_eq!(found[0].connective.sense(), Sense::Contingency);
}

#[test]
fn explicit_relations_and_arguments() {
    let lex = Lexicon::embedded();
    let rels = explicit_relations(&prices_text(), lex);
    assert_eq!(rels.len(), 2);
    // "because": Arg2 = "demand grew" (the subtree of "grew" after the connective), Arg1 = the
    // rest of the sentence, "Prices rose .".
    assert_eq!(rels[0].sense, Sense::Contingency);
    assert_eq!((rels[0].arg1.sentence, rels[0].arg2.sentence), (0, 0));
    assert_eq!(rels[0].arg1.tokens(), vec![0, 1, 5]);
    assert_eq!(rels[0].arg2.tokens(), vec![3, 4]);
    // "However": Arg2 = ", demand fell ."; nothing before it, so Arg1 = sentence 0.
    assert_eq!(rels[1].sense, Sense::Comparison);
    assert_eq!((rels[1].arg1.sentence, rels[1].arg2.sentence), (0, 1));
    assert_eq!(rels[1].arg1.tokens(), (0..6).collect::<Vec<_>>());
    assert_eq!(rels[1].arg2.tokens(), vec![1, 2, 3, 4]);
    // Non-explicit: only the pair (1, 2); no stem shared ({demand, fell} vs {shop, close}),
    // so Expansion.
    let all = relations(&prices_text(), lex);
    assert_eq!(all.len(), 3);
    assert!(!all[2].explicit);
    assert_eq!(all[2].sense, Sense::Expansion);
    assert_eq!((all[2].arg1.sentence, all[2].arg2.sentence), (1, 2));
    // A first sentence's "However" has nothing to link to: no relation.
    let single = Analysis {
        sentences: vec![prices_text().sentences[1].clone()],
    };
    assert!(relations(&single, lex).is_empty());
}

#[test]
fn role_matrix_by_hand() {
    let a = prices_text();
    let m = role_matrix(&a, &relations(&a, Lexicon::embedded()));
    // "however" is a stop word; the rest are Porter stems in order of first occurrence.
    assert_eq!(
        m.terms,
        vec!["price", "rose", "demand", "grew", "fell", "shop", "close"]
    );
    let cell = |s: usize, t: &str| m.cell_names(s, t);
    assert_eq!(cell(0, "price"), vec!["Comp.Arg1", "Cont.Arg1"]);
    assert_eq!(cell(0, "demand"), vec!["Comp.Arg1", "Cont.Arg2"]);
    assert_eq!(cell(1, "demand"), vec!["Comp.Arg2", "Exp.Arg1"]);
    assert_eq!(cell(1, "price"), vec!["nil"]);
    assert_eq!(cell(2, "shop"), vec!["Exp.Arg2"]);
    assert_eq!(cell(2, "demand"), vec!["nil"]);
    // Explicit / Non-Explicit is kept on the roles.
    let col = m.terms.iter().position(|t| t == "demand").unwrap_or(0);
    let explicit: Vec<bool> = m
        .cell(1, col)
        .map(|cell| cell.iter().map(|r| r.explicit).collect())
        .unwrap_or_default();
    assert_eq!(explicit.len(), 2);
    assert!(explicit.contains(&true) && explicit.contains(&false));
}

#[test]
fn transition_probabilities_by_hand() {
    let row = discourse_features(&prices_text(), Lexicon::embedded());
    assert_eq!(row.len(), feature_names().len());
    // Sense view, columns over rows (0,1),(1,2), all role combinations:
    //   price  {Cont.Arg1,Comp.Arg1} nil nil      → C1→nil, P1→nil, nil→nil        (3)
    //   rose   same                                                                (3)
    //   demand {Cont.Arg2,Comp.Arg1} {Comp.Arg2,Exp.Arg1} nil
    //          → C2→P2, C2→E1, P1→P2, P1→E1, P2→nil, E1→nil                        (6)
    //   grew   {Cont.Arg2,Comp.Arg1} nil nil      → C2→nil, P1→nil, nil→nil        (3)
    //   fell   nil {Comp.Arg2,Exp.Arg1} nil       → nil→P2, nil→E1, P2→nil, E1→nil (4)
    //   shop, close  nil nil Exp.Arg2             → nil→nil, nil→E2                (2 each)
    // total 23.
    let t2 = |a: &str, b: &str| value(&row, &format!("discourse.t2.{a}_{b}"));
    assert!(close_1e12(t2("Comp.Arg1", "nil"), 3.0 / 23.0));
    assert!(close_1e12(t2("Cont.Arg1", "nil"), 2.0 / 23.0));
    assert!(close_1e12(t2("nil", "nil"), 5.0 / 23.0));
    assert!(close_1e12(t2("Cont.Arg2", "Comp.Arg2"), 1.0 / 23.0));
    assert!(close_1e12(t2("Comp.Arg2", "nil"), 2.0 / 23.0));
    assert!(close_1e12(t2("nil", "Exp.Arg2"), 2.0 / 23.0));
    assert!(close_1e12(t2("Exp.Arg2", "nil"), 0.0));
    assert!(close_1e12(sum(&row, "discourse.t2."), 1.0));
    // Type view: price {E.Arg1} nil nil (2), rose (2), demand {E.Arg1,E.Arg2}
    // {E.Arg2,N.Exp.Arg1} nil (6), grew {E.Arg1,E.Arg2} nil nil (3), fell (4), shop, close (2
    // each): total 21. E.Arg2→nil: demand, grew, fell = 3; N.Exp.Arg1→nil: demand, fell = 2.
    let en2 = |a: &str, b: &str| value(&row, &format!("discourse.en2.{a}_{b}"));
    assert!(close_1e12(en2("E.Arg1", "nil"), 3.0 / 21.0));
    assert!(close_1e12(en2("E.Arg2", "nil"), 3.0 / 21.0));
    assert!(close_1e12(en2("N.Exp.Arg1", "nil"), 2.0 / 21.0));
    assert!(close_1e12(en2("nil", "N.Exp.Arg2"), 2.0 / 21.0));
    assert!(close_1e12(en2("E.Arg1", "N.Exp.Arg1"), 1.0 / 21.0));
    // Argument view, one window per column: price, rose Arg1_nil_nil; demand {1,2}×{1,2}×nil
    // (4); grew {1,2}×nil×nil (2); fell nil×{1,2}×nil (2); shop, close nil_nil_Arg2: total 12.
    let t3 = |a: &str, b: &str, c: &str| value(&row, &format!("discourse.t3.{a}_{b}_{c}"));
    assert!(close_1e12(t3("Arg1", "nil", "nil"), 3.0 / 12.0));
    assert!(close_1e12(t3("nil", "nil", "Arg2"), 2.0 / 12.0));
    assert!(close_1e12(t3("Arg2", "Arg2", "nil"), 1.0 / 12.0));
    assert!(close_1e12(sum(&row, "discourse.t3."), 1.0));
    // Intra-cell bigrams over the 8 non-nil cells (4 in S0, 2 in S1, 2 in S2): price and rose
    // hold Cont.Arg1+Comp.Arg1, demand and grew (S0) Cont.Arg2+Comp.Arg1, demand and fell (S1)
    // Comp.Arg2+Exp.Arg1: 2/8 each.
    assert!(close_1e12(
        value(&row, "discourse.cell.Cont.Arg1_Comp.Arg1"),
        0.25
    ));
    assert!(close_1e12(
        value(&row, "discourse.cell.Cont.Arg2_Comp.Arg1"),
        0.25
    ));
    assert!(close_1e12(
        value(&row, "discourse.cell.Comp.Arg2_Exp.Arg1"),
        0.25
    ));
    assert!(close_1e12(sum(&row, "discourse.cell."), 0.75));
    // Two explicit relations (Contingency, Comparison) in 3 sentences; 1 of the 2 adjacent
    // pairs is linked explicitly, none by EntRel.
    assert!(close_1e12(
        value(&row, "discourse.explicit_per_sentence"),
        2.0 / 3.0
    ));
    assert!(close_1e12(
        value(&row, "discourse.explicit_contingency_per_sentence"),
        1.0 / 3.0
    ));
    assert!(close_1e12(
        value(&row, "discourse.explicit_temporal_per_sentence"),
        0.0
    ));
    assert!(close_1e12(
        value(&row, "discourse.inter_explicit_share"),
        0.5
    ));
    assert!(close_1e12(value(&row, "discourse.entrel_share"), 0.0));
}

#[test]
fn entrel_and_clausal_and() {
    let a = pets_text();
    let lex = Lexicon::embedded();
    let rels = relations(&a, lex);
    // Clausal "and" (a cc of the verb "bark") is kept although its rate is 0.453; nominal
    // "and" in S1 is not. S0 and S1 share "cat" and "dog": EntRel.
    assert_eq!(rels.len(), 2);
    assert!(rels[0].explicit && rels[0].sense == Sense::Expansion);
    assert_eq!(rels[0].arg2.tokens(), vec![3, 4]);
    assert!(!rels[1].explicit && rels[1].sense == Sense::EntRel);
    let m = role_matrix(&a, &rels);
    // "like" is a stop word.
    assert_eq!(m.terms, vec!["cat", "sleep", "dog", "bark", "mice"]);
    assert_eq!(m.cell_names(0, "cat"), vec!["EntRel", "Exp.Arg1"]);
    assert_eq!(m.cell_names(0, "bark"), vec!["EntRel", "Exp.Arg2"]);
    assert_eq!(m.cell_names(1, "mice"), vec!["EntRel"]);
    let row = discourse_features(&a, lex);
    // cat: Exp.Arg1→EntRel, EntRel→EntRel; sleep: Exp.Arg1→nil, EntRel→nil; dog:
    // Exp.Arg2→EntRel, EntRel→EntRel; bark: Exp.Arg2→nil, EntRel→nil; mice: nil→EntRel.
    // Total 9.
    let t2 = |a: &str, b: &str| value(&row, &format!("discourse.t2.{a}_{b}"));
    assert!(close_1e12(t2("EntRel", "EntRel"), 2.0 / 9.0));
    assert!(close_1e12(t2("EntRel", "nil"), 2.0 / 9.0));
    assert!(close_1e12(t2("Exp.Arg1", "EntRel"), 1.0 / 9.0));
    assert!(close_1e12(t2("nil", "EntRel"), 1.0 / 9.0));
    // Type view: the explicit "and" roles are E.*, the EntRel roles N.EntRel.
    let en2 = |a: &str, b: &str| value(&row, &format!("discourse.en2.{a}_{b}"));
    assert!(close_1e12(en2("E.Arg1", "N.EntRel"), 1.0 / 9.0));
    assert!(close_1e12(en2("N.EntRel", "N.EntRel"), 2.0 / 9.0));
    // Two sentences: no length-3 transition.
    assert!(value(&row, "discourse.t3.nil_nil_nil").is_nan());
    // 7 non-nil cells; cat and sleep hold Exp.Arg1+EntRel: 2/7.
    assert!(close_1e12(
        value(&row, "discourse.cell.Exp.Arg1_EntRel"),
        2.0 / 7.0
    ));
    assert!(close_1e12(
        value(&row, "discourse.cell.Exp.Arg2_EntRel"),
        2.0 / 7.0
    ));
    assert!(close_1e12(
        value(&row, "discourse.explicit_expansion_per_sentence"),
        0.5
    ));
    assert!(close_1e12(
        value(&row, "discourse.inter_explicit_share"),
        0.0
    ));
    assert!(close_1e12(value(&row, "discourse.entrel_share"), 1.0));
}

#[test]
fn undefined_values_are_nan() {
    let lex = Lexicon::embedded();
    let empty = discourse_features(&Analysis::default(), lex);
    assert!(empty.iter().all(|v| v.is_nan()));
    // One sentence, no relation: transitions and cell bigrams undefined, rates 0, pair shares
    // undefined.
    let single = Analysis {
        sentences: vec![prices_text().sentences[2].clone()],
    };
    let row = discourse_features(&single, lex);
    assert!(value(&row, "discourse.t2.nil_nil").is_nan());
    assert!(value(&row, "discourse.cell.Exp.Arg1_EntRel").is_nan());
    assert_eq!(value(&row, "discourse.explicit_per_sentence"), 0.0);
    assert!(value(&row, "discourse.entrel_share").is_nan());
}

#[test]
fn end_to_end_through_the_parser() {
    let topic = topic_with_summaries(&[
        "The company lost money. However, the company survived because sales recovered.",
        "",
    ]);
    let classes = build_classes(&["discourse".to_string()], &Default::default())
        .expect("the class is registered");
    assert_eq!(classes[0].name(), "discourse");
    assert!(!classes[0].needs_references());
    let rows = Discourse::new().extract(&TopicContext::new(&topic));
    assert_eq!(rows.len(), 2);
    let row = rows[0].as_ref().expect("a row");
    assert_eq!(row.len(), feature_names().len());
    // Whatever the parse: "However" opens sentence 2 with nothing before it (an explicit
    // Comparison linking the two sentences) and "because" is a connective (rate 0.84).
    assert!(close_1e12(
        value(row, "discourse.inter_explicit_share"),
        1.0
    ));
    assert!(close_1e12(
        value(row, "discourse.explicit_comparison_per_sentence"),
        0.5
    ));
    assert!(close_1e12(
        value(row, "discourse.explicit_contingency_per_sentence"),
        0.5
    ));
    assert!(close_1e12(sum(row, "discourse.t2."), 1.0));
    // "compani" occurs in both sentences: S1 is in Arg1 of the Comparison.
    assert!(value(row, "discourse.t2.Comp.Arg1_Comp.Arg2") > 0.0);
    let empty = rows[1].as_ref().expect("a row for the empty summary");
    assert!(empty.iter().all(|v| v.is_nan()));
}

#[test]
fn summeval_discourse_features() {
    let Some(path) = common::data_or_skip("summeval_discourse_features", "summeval/summeval.jsonl")
    else {
        return;
    };
    let topics = common::load_summeval(&path);
    let class = Discourse::new();
    let names = feature_names();
    let start = std::time::Instant::now();
    let mut summaries = 0usize;
    let mut with_explicit = 0usize;
    for topic in topics.iter().take(5) {
        let rows = class.extract(&TopicContext::new(topic));
        assert_eq!(rows.len(), topic.summaries.len());
        for row in rows {
            let row = row.expect("reference-free: always a row");
            assert_eq!(row.len(), names.len());
            summaries += 1;
            let t2 = sum(&row, "discourse.t2.");
            // Every SummEval summary has at least two sentences with content words.
            if !t2.is_nan() {
                assert!(close_1e12(t2, 1.0), "{}: t2 sums to {t2}", topic.topic);
            }
            assert!(row.iter().all(|v| v.is_nan() || (0.0..=10.0).contains(v)));
            if value(&row, "discourse.explicit_per_sentence") > 0.0 {
                with_explicit += 1;
            }
        }
    }
    eprintln!(
        "discourse: {summaries} summaries in {:.2} s; {with_explicit} with an explicit relation",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(summaries, 5 * 16);
    // News summaries use connectives (but, after, when, because …), though not all of them.
    assert!(
        with_explicit > 10 && with_explicit < summaries,
        "{with_explicit}"
    );
}

/// One sentence holding thousands of connectives (`Prices rose because demand grew because
/// demand grew …`, each clause the advcl of the one before): every relation's arguments are
/// ranges found from facts of the sentence read once, and the role matrix holds what the short
/// sentence's holds.
#[test]
fn a_sentence_of_thousands_of_connectives_is_read_whole() {
    let k = 3_000;
    let mut tokens = vec![
        tok("Prices", "NOUN", 2, "nsubj"),
        tok("rose", "VERB", 0, "root"),
    ];
    let mut clause_head = 2;
    for _ in 0..k {
        let at = tokens.len();
        // because (at+1) → grew (at+3); demand (at+2) → grew; grew → the previous head.
        tokens.push(tok("because", "SCONJ", at + 3, "mark"));
        tokens.push(tok("demand", "NOUN", at + 3, "nsubj"));
        tokens.push(tok("grew", "VERB", clause_head, "advcl"));
        clause_head = at + 3;
    }
    let n = tokens.len();
    let analysis = Analysis {
        sentences: vec![sentence_of(tokens)],
    };
    let rels = explicit_relations(&analysis, Lexicon::embedded());
    assert_eq!(rels.len(), k);
    for (j, r) in rels.iter().enumerate() {
        let because = 2 + 3 * j;
        assert_eq!(r.sense, Sense::Contingency);
        // Arg2: the nested clauses to the end; Arg1: what comes before the connective.
        assert_eq!(r.arg2.tokens(), (because + 1..n).collect::<Vec<_>>());
        assert_eq!(r.arg1.tokens(), (0..because).collect::<Vec<_>>());
        assert_eq!((r.arg1.ranges.len(), r.arg2.ranges.len()), (1, 1));
    }
    let m = role_matrix(&analysis, &rels);
    assert_eq!(m.terms, vec!["price", "rose", "demand", "grew"]);
    assert_eq!(m.cell_names(0, "price"), vec!["Cont.Arg1"]);
    assert_eq!(m.cell_names(0, "demand"), vec!["Cont.Arg1", "Cont.Arg2"]);
    let row = discourse_features(&analysis, Lexicon::embedded());
    assert_eq!(row.len(), feature_names().len());
}
