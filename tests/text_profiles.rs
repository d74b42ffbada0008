//! The tokenization profiles through the public API: `rouge155` (ROUGE-1.5.5) and `simetrix`.

use crate::common;

use aesop::text::profile::rouge155_sentence_tokens;
use aesop::text::{porter, rouge155_tokens, simetrix_tokens, stopwords, wordnet, Rouge155Options};

const PLAIN: Rouge155Options = Rouge155Options {
    remove_stopwords: false,
    stem: false,
};
const STEM: Rouge155Options = Rouge155Options {
    remove_stopwords: false,
    stem: true,
};
const STEM_NOSTOP: Rouge155Options = Rouge155Options {
    remove_stopwords: true,
    stem: true,
};

#[test]
fn rouge155_tokenization_rules() {
    // Hyphens and apostrophes split words; digits stay; non-ASCII letters are separators
    // (ROUGE reads bytes and blanks each byte of a multi-byte character).
    assert_eq!(
        rouge155_tokens(
            "Chelsea's 2-1 win—over Man-Utd at Old Trafford… naïve",
            PLAIN
        ),
        [
            "chelsea", "s", "2", "1", "win", "over", "man", "utd", "at", "old", "trafford", "na",
            "ve"
        ]
    );
    assert!(rouge155_tokens("", STEM).is_empty());
    assert!(rouge155_tokens("--- !!! ...", STEM).is_empty());
}

#[test]
fn rouge155_stemming_rules() {
    // Short tokens (≤ 3 chars) are never stemmed: "was", "men", "ran" stay.
    // "children" → "child", "mice" → "mouse" and "hopping" → "hop" come from WordNet;
    // "rallies" → "ralli" from Porter.
    assert_eq!(
        rouge155_tokens("Children was men ran mice rallies hopping", STEM),
        ["child", "was", "men", "ran", "mouse", "ralli", "hop"]
    );
    // Stopwords are removed before stemming: "being" is on the list and goes, "beings" is not
    // and stems to "be" through Porter ("beings" → "being" → "be").
    assert_eq!(rouge155_tokens("being beings", STEM_NOSTOP), ["be"]);
    assert!(stopwords::is_smart_common_word("being"));
    assert!(!stopwords::is_smart_common_word("beings"));
    assert_eq!(wordnet::exception_base("mice"), Some("mouse"));
}

#[test]
fn rouge155_sentences_are_lines() {
    let text = "First line here.\nSecond, shorter.";
    let sentences = rouge155_sentence_tokens(text, STEM);
    assert_eq!(
        sentences,
        vec![vec!["first", "line", "here"], vec!["second", "shorter"]]
    );
    let joined: Vec<String> = sentences.concat();
    assert_eq!(joined, rouge155_tokens(text, STEM));
}

#[test]
fn simetrix_profile_rules() {
    // Stopwords always go; every remaining token is stemmed, short ones too ("cats" → "cat"),
    // with the reference Porter release ("agreement" keeps its suffix, unlike ROUGE's).
    assert_eq!(
        simetrix_tokens("The cats' agreement was signed in 2015."),
        ["cat", "agreement", "sign", "2015"]
    );
    assert_eq!(porter::stem("agreement"), "agreem");
    assert!(simetrix_tokens("the of and").is_empty());
}

#[test]
fn summeval_tokens_are_clean() {
    let Some(path) = common::data_or_skip("summeval_tokens_are_clean", "summeval/summeval.jsonl")
    else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("read summeval.jsonl");
    let mut texts = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let refs = v["ref_summs"].as_array().expect("ref_summs").iter();
        let sums = v["sys_summs"]
            .as_object()
            .expect("sys_summs")
            .values()
            .map(|s| &s["sys_summ"]);
        for t in refs.chain(sums) {
            let t = t.as_str().expect("text");
            texts += 1;
            for opts in [PLAIN, STEM, STEM_NOSTOP] {
                let tokens = rouge155_tokens(t, opts);
                assert!(
                    tokens.iter().all(|w| !w.is_empty()
                        && w.bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                    "{t}"
                );
                assert_eq!(rouge155_sentence_tokens(t, opts).concat(), tokens);
            }
            // Stemming maps tokens one to one; stopword removal only drops tokens.
            assert_eq!(
                rouge155_tokens(t, PLAIN).len(),
                rouge155_tokens(t, STEM).len()
            );
            assert!(rouge155_tokens(t, STEM_NOSTOP).len() <= rouge155_tokens(t, STEM).len());
        }
    }
    assert_eq!(texts, 100 * (11 + 16));
}
