//! CoNLL-U reader/writer and evaluation cases.

use aesop::nlp::conllu::{evaluate, parse, write, Extra};

const SAMPLE: &str = "# newdoc id = d1
# sent_id = s1
# text = I don't know.
1\tI\tI\tPRON\tPRP\t_\t4\tnsubj\t4:nsubj\t_
2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t4:aux\t_
3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_
4\tknow\tknow\tVERB\tVB\t_\t0\troot\t0:root\tSpaceAfter=No
4.1\tknows\t_\t_\t_\t_\t_\t_\t4:conj\t_
5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_

# sent_id = s2
1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t0:root\t_
";

#[test]
fn reads_multiword_tokens_empty_nodes_and_comments() {
    let s = parse(SAMPLE).expect("valid CoNLL-U");
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].comments.len(), 3);
    assert_eq!(s[0].comments[2], "# text = I don't know.");
    let forms: Vec<&str> = s[0].words.iter().map(|w| w.form.as_str()).collect();
    assert_eq!(forms, ["I", "do", "n't", "know", "."]);
    assert_eq!(s[0].words[1].head, Some(4));
    assert_eq!(s[0].words[3].head, Some(0));
    assert_eq!(s[0].words[2].deprel, "advmod");
    assert_eq!(s[0].extras.len(), 2);
    assert!(matches!(
        s[0].extras[0],
        Extra::MultiwordToken {
            first: 2,
            last: 3,
            ..
        }
    ));
    assert!(matches!(s[0].extras[1], Extra::EmptyNode { after: 4, .. }));
    // No blank line at the end of the file: the last sentence still counts.
    assert_eq!(s[1].words.len(), 1);
    assert_eq!(s[1].words[0].upos, "INTJ");
}

#[test]
fn round_trip_is_exact() {
    let s = parse(SAMPLE).expect("valid CoNLL-U");
    let text = write(&s);
    assert_eq!(text, format!("{SAMPLE}\n"));
    assert_eq!(parse(&text).expect("reparse"), s);
}

#[test]
fn rejects_malformed_lines() {
    assert!(parse("1\tA\n3\tB\n").is_err(), "IDs out of sequence");
    assert!(parse("x\tA\n").is_err(), "non-numeric ID");
    assert!(
        parse("1\tA\ta\tX\tX\t_\t5\tdep\t_\t_\n").is_err(),
        "head outside the sentence"
    );
    assert!(
        parse("1\tA\ta\tX\tX\t_\tq\tdep\t_\t_\n").is_err(),
        "non-numeric head"
    );
    assert_eq!(parse("").expect("empty input").len(), 0);
    assert_eq!(parse("\n\n\r\n").expect("blank lines").len(), 0);
}

#[test]
fn evaluation_counts_by_hand() {
    let gold = parse(SAMPLE).expect("valid");
    let mut pred = gold.clone();
    // Sentence 1: wrong UPOS on "I"; wrong label (right head) on "do"; wrong head on ".".
    pred[0].words[0].upos = "NOUN".into();
    pred[0].words[1].deprel = "nsubj".into();
    pred[0].words[4].head = Some(1);
    let sc = evaluate(&gold, &pred).expect("same words");
    assert_eq!(sc.words, 6);
    assert!((sc.upos - 5.0 / 6.0).abs() < 1e-12);
    assert!((sc.xpos - 1.0).abs() < 1e-12);
    assert!((sc.uas - 5.0 / 6.0).abs() < 1e-12);
    assert!((sc.las - 4.0 / 6.0).abs() < 1e-12);
    pred[1].words.clear();
    assert!(evaluate(&gold, &pred).is_err());
}
