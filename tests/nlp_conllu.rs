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
    let word = |id: &str, form: &str| format!("{id}\t{form}\t_\tX\tX\t_\t_\t_\t_\t_\n");
    let message = |text: &str| parse(text).expect_err("malformed").to_string();
    assert!(
        message(&(word("1", "A") + &word("3", "B"))).contains("out of sequence"),
        "IDs out of sequence"
    );
    assert!(
        message(&word("x", "A")).contains("bad word ID"),
        "non-numeric ID"
    );
    // The format's 10 columns, no fewer and no more (they were made up or dropped), on the
    // line named.
    let nine = word("1", "A").replacen("\t_\n", "\n", 1);
    assert_eq!(
        message(&nine),
        "CoNLL-U line 1: expected 10 tab-separated columns, found 9"
    );
    let eleven = word("1", "A").replace('\n', "\t_\n");
    let e = message(&(word("1", "A") + &eleven.replacen('1', "2", 1)));
    assert_eq!(
        e,
        "CoNLL-U line 2: expected 10 tab-separated columns, found 11"
    );
    assert!(message("1\tA\n").contains("found 2"));
    assert!(message(&word("1", "")).contains("empty FORM"));
    // A multiword token must span words of its sentence.
    let range = "1-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n".to_string();
    let e = message(&(range + &word("1", "do") + &word("2", "n't")));
    assert!(e.contains("multiword token 1-3"), "{e}");
    // A byte-order mark before the first line is not part of the ID.
    let with_bom = format!("\u{feff}{}", word("1", "A"));
    assert_eq!(parse(&with_bom).expect("BOM").len(), 1);
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

/// `analyze --conllu` names the line of bytes that are not UTF-8 (it said only "stream did not
/// contain valid UTF-8").
#[test]
fn analyze_names_the_line_of_invalid_utf8() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.conllu");
    let mut bytes = b"1\tA\t_\tX\tX\t_\t_\t_\t_\t_\n".to_vec();
    bytes.extend_from_slice(b"2\tcaf\xe9\t_\tX\tX\t_\t_\t_\t_\t_\n");
    std::fs::write(&path, bytes).expect("write");
    crate::common::aesop()
        .arg("analyze")
        .arg("--conllu")
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "bad.conllu:2: invalid UTF-8 at byte 6 of the line",
        ));
}

/// `analyze` reads its text and its `--conllu` file through `aesop_core::input`, as every verb
/// does: a `.gz` name is read decompressed. It read the compressed bytes as text (analysing
/// gzip's header as words, exit 0) and refused a compressed CoNLL-U file as invalid UTF-8.
#[test]
fn analyze_reads_compressed_text_and_conllu_as_the_plain_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write_both = |name: &str, text: &str| {
        let plain = dir.path().join(name);
        std::fs::write(&plain, text).expect("write");
        let compressed = dir.path().join(format!("{name}.gz"));
        std::fs::write(&compressed, crate::common::gzip(text.as_bytes())).expect("write");
        (plain, compressed)
    };
    let analyze = |args: &[&std::path::Path]| {
        let out = crate::common::aesop()
            .arg("analyze")
            .args(args)
            .output()
            .expect("run");
        String::from_utf8(crate::common::stdout_of_success(out)).expect("UTF-8")
    };
    let (text, text_gz) = write_both("a.txt", "The cat sat on the mat. It slept.\n");
    let plain = analyze(&[&text]);
    assert!(plain.contains("# text = The cat sat on the mat.") && plain.contains("\tslept\t"));
    assert_eq!(analyze(&[&text_gz]), plain);

    let (conllu, conllu_gz) = write_both("s.conllu", SAMPLE);
    let flag = std::path::Path::new("--conllu");
    let plain = analyze(&[flag, &conllu]);
    assert!(plain.contains("\tknow\t"), "{plain}");
    assert_eq!(analyze(&[flag, &conllu_gz]), plain);
}
