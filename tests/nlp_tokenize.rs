//! Tokenizer cases following UD English-EWT conventions.

use aesop::nlp::tokenize::{sentence_spans, tokenize};

fn toks(s: &str) -> Vec<&str> {
    tokenize(s).iter().map(|t| t.text(s)).collect()
}

#[test]
fn clitics() {
    assert_eq!(
        toks("I'm sure they've seen what we'd do"),
        ["I", "'m", "sure", "they", "'ve", "seen", "what", "we", "'d", "do"]
    );
    assert_eq!(toks("John's dog isn't"), ["John", "'s", "dog", "is", "n't"]);
    assert_eq!(toks("CAN'T"), ["CA", "N'T"]);
    assert_eq!(
        toks("gonna wanna gotta"),
        ["gon", "na", "wan", "na", "got", "ta"]
    );
    assert_eq!(
        toks("the students' books"),
        ["the", "students", "'", "books"]
    );
}

#[test]
fn punctuation_runs_and_quotes() {
    assert_eq!(toks("Wait... what?!"), ["Wait", "...", "what", "?!"]);
    assert_eq!(
        toks("(see \"this\")."),
        ["(", "see", "\"", "this", "\"", ")", "."]
    );
    assert_eq!(toks("Hello, world;"), ["Hello", ",", "world", ";"]);
}

#[test]
fn hyphens_and_slashes_as_in_ewt() {
    assert_eq!(
        toks("a well-known al-Qaeda"),
        ["a", "well", "-", "known", "al", "-", "Qaeda"]
    );
    assert_eq!(
        toks("e-mail non-profit co-workers"),
        ["e-mail", "non-profit", "co-workers"]
    );
    assert_eq!(toks("call 713-853-3989"), ["call", "713-853-3989"]);
    assert_eq!(
        toks("and/or on 11/28/2000"),
        ["and", "/", "or", "on", "11/28/2000"]
    );
    assert_eq!(toks("this--that"), ["this", "--", "that"]);
}

#[test]
fn numbers_money_percent() {
    assert_eq!(
        toks("$3.5 million, 1,000 people, 20%."),
        ["$", "3.5", "million", ",", "1,000", "people", ",", "20", "%", "."]
    );
    assert_eq!(toks("at 10:30"), ["at", "10:30"]);
}

#[test]
fn urls_emails_abbreviations_emoticons() {
    assert_eq!(
        toks("See http://example.com/a?b=1."),
        ["See", "http://example.com/a?b=1", "."]
    );
    assert_eq!(toks("(www.enron.com)"), ["(", "www.enron.com", ")"]);
    assert_eq!(
        toks("mail john.doe@enron.com, now"),
        ["mail", "john.doe@enron.com", ",", "now"]
    );
    assert_eq!(
        toks("Mr. Smith of the U.S. left."),
        ["Mr.", "Smith", "of", "the", "U.S.", "left", "."]
    );
    assert_eq!(toks("great :) thanks"), ["great", ":)", "thanks"]);
}

#[test]
fn emoji_and_control_characters() {
    let s = "nice 👍🏽 job\u{0007}done 🎉!";
    let t = toks(s);
    assert_eq!(t, ["nice", "👍🏽", "job", "done", "🎉", "!"]);
    assert_eq!(toks("wow🎉"), ["wow", "🎉"]);
    assert_eq!(
        toks("family 👨\u{200D}👩\u{200D}👧 ❤\u{FE0F}"),
        ["family", "👨\u{200D}👩\u{200D}👧", "❤\u{FE0F}"]
    );
    assert_eq!(toks("hi👨\u{200D}👩"), ["hi", "👨\u{200D}👩"]);
    assert_eq!(toks("🎉🎉"), ["🎉", "🎉"]);
}

#[test]
fn offsets_are_exact_and_on_char_boundaries() {
    let s = "  Ünïcödé café’s “quote” — dash\tend.";
    let tokens = tokenize(s);
    assert!(!tokens.is_empty());
    let mut last_end = 0;
    for t in &tokens {
        assert!(s.is_char_boundary(t.start) && s.is_char_boundary(t.end));
        assert!(t.start >= last_end && t.start < t.end);
        assert_eq!(t.text(s).trim(), t.text(s), "tokens contain no whitespace");
        last_end = t.end;
    }
    assert_eq!(toks(s)[0], "Ünïcödé");
    assert_eq!(toks(s)[1..3], ["café", "’s"]);
}

#[test]
fn emphasis_marks_are_split_off_words_as_in_ewt() {
    assert_eq!(
        toks("the *new* and _old_ plan, __Smith__ said: **yes**."),
        [
            "the", "*", "new", "*", "and", "_", "old", "_", "plan", ",", "__", "Smith", "__",
            "said", ":", "**", "yes", "**", "."
        ]
    );
    // EWT: `Start of _The SOUND & the FURY_:`; underscores inside a word, a rule of them, the
    // `^_^` emoticon and URLs stay whole.
    assert_eq!(toks("of _The FURY_:"), ["of", "_", "The", "FURY", "_", ":"]);
    for whole in [
        "GCP_London",
        "Lisa_resume.doc",
        "_______",
        "^_^",
        "http://x.com/a_b_",
    ] {
        assert_eq!(toks(whole), [whole], "{whole}");
    }
}

#[test]
fn markdown_links_split_into_brackets_words_and_one_url() {
    // As language models and chat tools write links: the words alone for the tagger, the target
    // one URL token, the brackets punctuation.
    assert_eq!(
        toks("The council [approved](https://example.com/budget?id=3) it, as [Reuters reported](http://reuters.com)."),
        [
            "The", "council", "[", "approved", "]", "(", "https://example.com/budget?id=3", ")",
            "it", ",", "as", "[", "Reuters", "reported", "]", "(", "http://reuters.com", ")", "."
        ]
    );
    assert_eq!(
        toks("See [the notes](#notes) and <https://example.org/x>."),
        [
            "See",
            "[",
            "the",
            "notes",
            "]",
            "(",
            "#",
            "notes",
            ")",
            "and",
            "<",
            "https://example.org/x",
            ">",
            "."
        ]
    );
    // A bare URL, one in parentheses and a citation mark stay as they were.
    assert_eq!(
        toks("Visit https://example.com/a?x=1&y=2 (https://example.com/c) [1]."),
        [
            "Visit",
            "https://example.com/a?x=1&y=2",
            "(",
            "https://example.com/c",
            ")",
            "[",
            "1",
            "]",
            "."
        ]
    );
}

#[test]
fn sentence_spans_cover_the_text() {
    let s = "First one.  Second one!\nThird";
    let spans = sentence_spans(s);
    let texts: Vec<&str> = spans.iter().map(|r| &s[r.clone()]).collect();
    assert_eq!(texts, ["First one.", "Second one!", "Third"]);
    assert!(sentence_spans("").is_empty());
    assert!(sentence_spans("   \n ").is_empty());
}

/// Long chunks of marks, links and addresses (hostile input, or a text pasted without spaces)
/// are tokenized in one pass: no recursion per link (a thread with a small stack, as a
/// service's worker may have) and the same tokens as short ones.
#[test]
fn long_chunks_of_marks_links_and_addresses_are_tokenized_whole() {
    let counts = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let links = "a](".repeat(100_000);
            let marks = format!("word{}", ")]".repeat(50_000));
            let url = format!("http://x.com/a{}", ")]".repeat(1_000));
            let email = format!("bob@ex.com{}", ".)".repeat(1_000));
            [&links, &marks, &url, &email].map(|t| tokenize(t).len())
        })
        .expect("thread")
        .join()
        .expect("no stack overflow");
    // `a` `]`, then `(` `a` `]` for each joint but the last, then `(`.
    assert_eq!(counts, [300_000, 100_001, 2_001, 2_001]);
    assert_eq!(
        toks(&format!("bob@ex.com{}", ".)".repeat(2))),
        ["bob@ex.com", ".", ")", ".", ")"]
    );
    assert_eq!(
        toks(&format!("http://x.com/a{}", ")]".repeat(2))),
        ["http://x.com/a", ")", "]", ")", "]"]
    );
}
