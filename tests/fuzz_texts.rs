//! Property-based fuzz test (proptest) of what every reader hands on: the texts. Topics of
//! random text, built from the awkward pieces users' texts hold (markup, controls, bidi marks,
//! mojibake, combining marks, other scripts, emoji, long tokens, bare punctuation) and from any
//! characters at all, go through the whole classic pipeline: the canonical form, the tokenizer,
//! sentence splitter, tagger and parser, every classic feature class, and the default built-in
//! models. Nothing may panic; every summary gets a score or is named degenerate (null), and the
//! same score whether it is scored with the topic's other summaries, after them, or alone. The same
//! for the LMs on shorter texts, when they are installed. `cargo test` runs
//! `AESOP_FUZZ_TEXT_CASES` topics (default 24: each through all sixteen classic classes) and
//! `AESOP_FUZZ_NEURAL_CASES` (default 2); `scripts/experiments/fuzz` runs thousands.

use aesop::corpus::{Document, Reference, Summary, Topic};
use aesop::features::{build_classes, FeatureOptions, CLASSES};
use aesop::learn::score_stream::ModelGroups;
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

/// Pieces of text: words and numbers as written, punctuation, spacing, markup, controls and
/// marks, mojibake, other scripts, and any character.
fn piece() -> impl Strategy<Value = String> {
    let fixed: Vec<&'static str> = vec![
        "the",
        "council",
        "approved",
        "Budget",
        "Mr.",
        "U.S.",
        "don't",
        "3.5",
        "1,000",
        "e.g.",
        "It",
        "said",
        "on",
        "Monday",
        "Smith's",
        "co-operate",
        "NASA",
        "i",
        ".",
        ",",
        "!",
        "?",
        "...",
        "…",
        "—",
        "–",
        "“",
        "”",
        "'",
        "\"",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ";",
        ":",
        "-",
        "--",
        "/",
        "@",
        "%",
        "$",
        " ",
        " ",
        " ",
        "\n",
        "\n\n",
        "\t",
        "\r\n",
        "\r",
        "\u{a0}",
        "\u{200b}",
        "\u{ad}",
        "- ",
        "* ",
        "• ",
        "1. ",
        "2) ",
        "#",
        "## ",
        "**",
        "_",
        "`",
        "```",
        "[a](http://x.y/z?q=1)",
        "<https://a.b>",
        "---",
        "| a | b |",
        "&amp;",
        "-lrb-",
        "\u{0}",
        "\u{7}",
        "\u{1b}",
        "\u{7f}",
        "\u{85}",
        "\u{9d}",
        "\u{200e}",
        "\u{202e}",
        "\u{2066}",
        "\u{feff}",
        "\u{fffd}",
        "â\u{80}\u{99}",
        "Ã©",
        "â€™",
        "Ã",
        "中文",
        "日本語。",
        "العربية",
        "עברית",
        "русский",
        "ελληνικά",
        "हिन्दी",
        "😀",
        "👩\u{200d}👩\u{200d}👧",
        "e\u{301}",
        "\u{301}",
        "ﬁ",
        "Ⅳ",
        "𝔘",
        "Summary:",
    ];
    prop_oneof![
        8 => prop::sample::select(fixed).prop_map(String::from),
        2 => any::<char>().prop_map(String::from),
        1 => ("[a-z.)(]{1,3}", 20usize..400).prop_map(|(unit, n)| unit.repeat(n)),
    ]
}

fn text(max_pieces: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..max_pieces).prop_map(|v| v.join(""))
}

/// A text that reads as English now and then, so the classes see sentences as well as noise.
fn some_text(max_pieces: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => text(max_pieces),
        1 => text(max_pieces).prop_map(|t| format!(
            "The council approved the budget on Monday. {t} Critics said it cuts road repairs."
        )),
    ]
}

fn topic() -> impl Strategy<Value = Topic> {
    topic_of(60, 30)
}

/// A topic of one or two documents of up to `document_pieces` pieces, up to two references and
/// one to four summaries of up to `summary_pieces`.
fn topic_of(document_pieces: usize, summary_pieces: usize) -> impl Strategy<Value = Topic> {
    (
        prop::collection::vec(some_text(document_pieces), 1..3),
        prop::collection::vec(some_text(summary_pieces), 0..3),
        prop::collection::vec(some_text(summary_pieces), 1..5),
    )
        .prop_map(|(documents, references, summaries)| {
            let mut topic = Topic::new("fuzz");
            for (i, text) in documents.into_iter().enumerate() {
                // The readers refuse an empty document; the texts may still be empty once
                // read as a reader sees them (controls and marks only).
                let text = if text.trim().is_empty() {
                    "x".to_string()
                } else {
                    text
                };
                topic.documents.push(Document::new(format!("d{i}"), text));
            }
            for (i, text) in references.into_iter().enumerate() {
                if !text.trim().is_empty() {
                    topic.references.push(Reference::new(format!("r{i}"), text));
                }
            }
            for (i, text) in summaries.into_iter().enumerate() {
                topic.summaries.push(Summary::new(format!("s{i}"), text));
            }
            topic
        })
}

/// Cases per property: the environment variable `name`, else `default`.
fn cases(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `classes` compute for `topic`, and `groups` score every summary (a number, or NaN for a
/// degenerate one) the same, to the bit, in each of `arrangements` of the topic's summaries
/// (each a list of topics holding some of them, and other topics, whose predictions are not
/// compared).
fn check_topic(
    topic: &Topic,
    class_names: &[String],
    groups: &ModelGroups,
    arrangements: &[Vec<Topic>],
) -> Result<(), TestCaseError> {
    let cancel = AtomicBool::new(false);
    let classes = build_classes(class_names, &FeatureOptions::default()).expect("classes");
    let table = aesop::features::run::extract_features(
        std::slice::from_ref(topic),
        &classes,
        false,
        &cancel,
    );
    prop_assert!(table.is_ok(), "{:?}", table.err());
    // The features of the classes that read no other summary (all but `consensus`), likewise.
    let features = |table: &aesop::features::run::FeatureTable| {
        let kept: Vec<usize> = (0..table.names.len())
            .filter(|&i| {
                let class = table.names[i].split('.').next().unwrap_or("");
                !aesop::features::is_batch_dependent(class)
            })
            .collect();
        let mut rows: Vec<(String, Vec<Option<u64>>)> = table
            .records
            .iter()
            .filter(|r| r.topic == topic.topic)
            .map(|r| {
                let values = kept
                    .iter()
                    .map(|&i| r.values[i].map(f64::to_bits))
                    .collect();
                (r.system.clone(), values)
            })
            .collect();
        rows.sort();
        rows
    };
    let expected_features = features(&table.expect("checked"));
    for topics in arrangements {
        let again = aesop::features::run::extract_features(topics, &classes, false, &cancel)
            .expect("features");
        prop_assert_eq!(&features(&again), &expected_features);
    }
    let (predictions, _, _) = groups
        .predict(std::slice::from_ref(topic), &cancel)
        .expect("scored");
    let models = groups.names()[0].len();
    prop_assert_eq!(predictions.len(), topic.summaries.len() * models);
    for p in &predictions {
        prop_assert!(p.score.is_nan() || p.score.is_finite(), "{:?}", p);
    }
    let bits = |predictions: &[aesop::learn::score_stream::Prediction]| {
        let mut bits: Vec<_> = predictions
            .iter()
            .filter(|p| p.topic == topic.topic)
            .map(|p| (p.system.clone(), p.model.clone(), p.score.to_bits()))
            .collect();
        bits.sort();
        bits
    };
    let expected = bits(&predictions);
    for topics in arrangements {
        let (again, _, _) = groups.predict(topics, &cancel).expect("scored");
        prop_assert_eq!(&bits(&again), &expected);
    }
    Ok(())
}

/// Each summary of `topic` in a topic of its own.
fn alone(topic: &Topic) -> Vec<Topic> {
    topic
        .summaries
        .iter()
        .map(|summary| {
            let mut one = topic.clone();
            one.summaries = vec![summary.clone()];
            one
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases("AESOP_FUZZ_TEXT_CASES", 24),
        ..ProptestConfig::default()
    })]

    #[test]
    fn scoring_never_panics_on_any_text(topic in topic(), other in topic()) {
        // Every classic class, the optional ones too.
        let names: Vec<String> = CLASSES
            .iter()
            .filter(|c| !c.name.starts_with("neural") && c.name != "gemma3")
            .map(|c| c.name.to_string())
            .collect();
        prop_assert_eq!(names.len(), 18);
        let groups = ModelGroups::load(&[] as &[&str]).expect("built-ins");
        // The default built-ins read no other summary of the topic (their cards say so): a
        // summary scored alone, or after the others, scores the same; and a topic scores the
        // same beside another topic in one run (a set) as alone (a service request).
        let mut reversed = topic.clone();
        reversed.summaries.reverse();
        let mut other = other;
        other.topic = "another".to_string();
        check_topic(
            &topic,
            &names,
            &groups,
            &[vec![other.clone(), reversed], alone(&topic), vec![topic.clone(), other]],
        )?;
    }
}

/// Whether the LMs are installed (asked once: a missing one is a printed notice, or a failure
/// under AESOP_REQUIRE_MODELS=1).
fn language_models_present() -> bool {
    static PRESENT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PRESENT.get_or_init(|| {
        crate::common::neural_model_or_skip("fuzz_texts::neural_scoring_never_panics_on_any_text")
            && crate::common::lm_model_or_skip(
                "fuzz_texts::neural_scoring_never_panics_on_any_text",
                &aesop::neural::model::GEMMA3,
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases("AESOP_FUZZ_NEURAL_CASES", 2),
        ..ProptestConfig::default()
    })]

    /// The same for the LMs (both tokenizers: SmolLM2's byte-level BPE through the neural
    /// built-ins of `aesop score --neural`, Gemma's SentencePiece through its class), on
    /// shorter texts, since every token goes through a network; each summary scored alone too.
    #[test]
    fn neural_scoring_never_panics_on_any_text(topic in topic_of(16, 8)) {
        if !language_models_present() {
            return Ok(());
        }
        let groups = ModelGroups::load_family(
            &[] as &[&str],
            Some(aesop::learn::builtin::Family::Neural),
        )
        .expect("built-ins");
        check_topic(&topic, &["gemma3".to_string()], &groups, &[alone(&topic)])?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases("AESOP_FUZZ_TEXT_CASES", 24) * 4,
        ..ProptestConfig::default()
    })]

    /// `aesop analyze` on the same texts: every token is the text it points to, every sentence
    /// has one root and heads within it, and the CoNLL-U written reads back with the same
    /// sentences and words.
    #[test]
    fn analysis_is_well_formed_on_any_text(text in some_text(80)) {
        let analysis = aesop::nlp::analyze(&text).expect("embedded models");
        for sentence in &analysis.sentences {
            prop_assert!(!sentence.tokens.is_empty());
            let roots = sentence.tokens.iter().filter(|t| t.head == 0).count();
            prop_assert_eq!(roots, 1);
            for token in &sentence.tokens {
                prop_assert!(token.head <= sentence.tokens.len());
                prop_assert_eq!(text.get(token.start..token.end), Some(token.form.as_str()));
            }
        }
        let sentences = aesop::nlp::analysis_to_conllu(&text, &analysis);
        let written = aesop::nlp::conllu::write(&sentences);
        let back = aesop::nlp::conllu::parse(&written);
        prop_assert!(back.is_ok(), "{:?}\n{written}", back.err());
        let back = back.expect("checked");
        prop_assert_eq!(back.len(), analysis.sentences.len());
        for (read, sentence) in back.iter().zip(&analysis.sentences) {
            prop_assert_eq!(read.words.len(), sentence.tokens.len());
        }
    }
}
