//! The shipped models on awkward input: nothing may crash or hang.

use std::time::{Duration, Instant};

use aesop::nlp::{analysis_to_conllu, analyze, conllu, Pipeline};

fn check_well_formed(text: &str) -> aesop::nlp::Analysis {
    let start = Instant::now();
    let a = analyze(text).expect("embedded models load");
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "analysis took {:?}",
        start.elapsed()
    );
    for s in &a.sentences {
        let n = s.tokens.len();
        assert!(n > 0);
        assert_eq!(
            s.tokens.iter().filter(|t| t.head == 0).count(),
            1,
            "exactly one root"
        );
        for t in &s.tokens {
            assert!(t.head <= n);
            assert!(!t.upos.is_empty() && !t.xpos.is_empty() && !t.deprel.is_empty());
            assert_eq!(&text[t.start..t.end], t.form);
        }
    }
    // The CoNLL-U output must parse back.
    let back = conllu::parse(&conllu::write(&analysis_to_conllu(text, &a))).expect("valid CoNLL-U");
    assert_eq!(back.len(), a.sentences.len());
    a
}

#[test]
fn empty_and_blank_input() {
    assert_eq!(check_well_formed("").sentences.len(), 0);
    assert_eq!(check_well_formed(" \n\t\r\n ").sentences.len(), 0);
    let p = Pipeline::embedded().expect("models");
    assert!(p.tag_and_parse(&[]).is_empty());
}

#[test]
fn ten_thousand_token_sentence() {
    // Ten tokens per repeat, no sentence-final punctuation.
    let text = "the cat , which sat on a mat and then ".repeat(1000);
    let a = check_well_formed(&text);
    assert_eq!(a.ntokens(), 10_000);
    assert_eq!(a.sentences.len(), 1);
}

#[test]
fn non_english_emoji_and_control_characters() {
    check_well_formed("Der schnelle braune Fuchs springt über den faulen Hund. 東京は日本の首都です。 Москва — столица России.");
    check_well_formed("🎉🎉🎉 👍🏽 ❤️ 👨‍👩‍👧 ok!!! :) ;-)");
    check_well_formed(
        "bell\u{0007} nul\u{0000} esc\u{001b}[31m red \u{feff}bom \u{200b}zw \u{202e}rtl",
    );
    check_well_formed(". , ; ! ? ... -- / \\ | ( ) [ ] { }");
    check_well_formed(&"a".repeat(5000));
}

#[test]
fn a_plain_sentence_gets_a_sensible_parse() {
    let a = check_well_formed("The committee approved the new budget on Monday.");
    assert_eq!(a.sentences.len(), 1);
    let s = &a.sentences[0];
    let forms: Vec<&str> = s.tokens.iter().map(|t| t.form.as_str()).collect();
    assert_eq!(
        forms,
        [
            "The",
            "committee",
            "approved",
            "the",
            "new",
            "budget",
            "on",
            "Monday",
            "."
        ]
    );
    let upos: Vec<&str> = s.tokens.iter().map(|t| t.upos.as_str()).collect();
    assert_eq!(
        upos,
        ["DET", "NOUN", "VERB", "DET", "ADJ", "NOUN", "ADP", "PROPN", "PUNCT"]
    );
    assert_eq!(s.root(), Some(2), "approved is the root");
    assert_eq!(s.tokens[1].deprel, "nsubj");
    assert_eq!(s.tokens[1].head, 3);
    assert_eq!(s.tokens[5].deprel, "obj");
    assert_eq!(s.tokens[5].head, 3);
}

#[test]
fn spread_over_threads_the_analysis_is_the_same_in_the_same_order() {
    // `aesop analyze` spreads a text's sentences (or a CoNLL-U file's) over the threads; the
    // sentences come back in text order, each as the one-thread analysis gives it. Sentences of
    // different lengths and blank stretches, so spread work finishes out of order.
    let pieces = [
        "The committee approved the new budget on Monday.",
        "Why?",
        "   \n\n  ",
        "It said the plan , which had been debated for months , would cut costs by 5 % next year.",
        "🎉🎉 ok!!!",
        "Dogs bark.",
    ];
    let text: String = (0..60)
        .map(|i| pieces[i % pieces.len()])
        .collect::<Vec<_>>()
        .join(" ");
    let p = Pipeline::embedded().expect("models");
    let in_order = p.analyze(&text);
    assert!(
        in_order.sentences.len() > 40,
        "{} sentences",
        in_order.sentences.len()
    );
    assert_eq!(p.analyze_parallel(&text), in_order);
    assert_eq!(p.analyze_parallel(""), p.analyze(""));

    let gold =
        conllu::parse(&conllu::write(&analysis_to_conllu(&text, &in_order))).expect("CoNLL-U");
    let (mut one, mut spread) = (gold.clone(), gold);
    for s in one.iter_mut().chain(spread.iter_mut()) {
        for w in &mut s.words {
            w.upos = "_".into();
            w.head = None;
        }
    }
    p.annotate(&mut one);
    p.annotate_parallel(&mut spread);
    assert_eq!(conllu::write(&spread), conllu::write(&one));
    assert!(one
        .iter()
        .all(|s| s.words.iter().all(|w| w.head.is_some() && w.upos != "_")));
}
