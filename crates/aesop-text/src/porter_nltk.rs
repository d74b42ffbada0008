//! NLTK's Porter stemmer, exactly as `nltk.stem.porter.PorterStemmer()` computes it in its
//! default mode (NLTK_EXTENSIONS, NLTK 3.10). Why it exists: Google's `rouge-score` package
//! stems with it under `use_stemmer=True`, so its ROUGE scores can only be reproduced with these
//! stems. It is neither the original Porter of [`crate::porter`] (what ROUGE-1.5.5 uses) nor
//! Porter2/Snowball.
//!
//! NLTK's departures from the paper, all honoured here: a short table of irregular forms is
//! looked up first; words of one or two letters are left alone; `-ies` and `-ied` keep their
//! `e` in four-letter words (`dies` → `die`, `died` → `die`); step 1c turns `y` into `i` only
//! after a consonant that is not the whole stem (`happy` → `happi`, `enjoy` and `by` stay);
//! step 2 tries `-alli` first and then step 2 again, uses `bli` → `ble`, and adds `fulli` →
//! `ful` and `logi` → `log` (the latter measured with the `l`); `*o` also holds for a
//! two-letter vowel-consonant stem.
//!
//! As in NLTK, a rule list is decided by the first rule whose suffix the word ends with: if that
//! rule's condition fails the word is left as it is, and no later rule is tried. A consonant is
//! any character other than `a e i o u`, and other than a `y` that follows a consonant; digits
//! are consonants. Words are handled as ASCII bytes; a word with any other character is returned
//! unchanged (NLTK would lowercase and stem it, but rouge-score never passes one).

use rustc_hash::FxHashMap;
use std::cell::RefCell;

thread_local! {
    /// Stems already computed on this thread. Why: the same words recur across the summaries,
    /// references and documents of every topic; a lookup costs less than running the rules.
    static STEMS: RefCell<FxHashMap<Box<str>, Box<str>>> = RefCell::new(FxHashMap::default());
}

/// The NLTK stem of one word (meant for lowercase ASCII; uppercase ASCII is lowercased first,
/// as NLTK does).
pub fn stem(word: &str) -> String {
    with_stem(word, str::to_string)
}

/// `use_stem(stem(word))`, without allocating when this thread has stemmed `word` before.
pub fn with_stem<R>(word: &str, use_stem: impl FnOnce(&str) -> R) -> R {
    crate::porter::memoized(&STEMS, word, stem_uncached, use_stem)
}

/// [`stem`] without the memo.
fn stem_uncached(word: &str) -> String {
    if !word.is_ascii() {
        return word.to_string();
    }
    let mut w = word.to_ascii_lowercase();
    if let Some(irregular) = irregular_form(&w) {
        return irregular.to_string();
    }
    if w.len() <= 2 {
        return w;
    }
    step1a(&mut w);
    step1b(&mut w);
    step1c(&mut w);
    step2(&mut w);
    apply_rule_list(&mut w, STEP3);
    apply_rule_list(&mut w, STEP4);
    step5a(&mut w);
    step5b(&mut w);
    w
}

/// NLTK's table of irregular forms, whose stems the rules would get wrong.
fn irregular_form(word: &str) -> Option<&'static str> {
    Some(match word {
        "sky" | "skies" => "sky",
        "dying" => "die",
        "lying" => "lie",
        "tying" => "tie",
        "news" => "news",
        "innings" | "inning" => "inning",
        "outings" | "outing" => "outing",
        "cannings" | "canning" => "canning",
        "howe" => "howe",
        "proceed" => "proceed",
        "exceed" => "exceed",
        "succeed" => "succeed",
        _ => return None,
    })
}

fn is_vowel_letter(byte: u8) -> bool {
    matches!(byte, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Whether `word[i]` is a consonant. A `y` is one at the start or after a vowel, so along a run
/// of `y`s the answer alternates from the run's first `y`.
fn is_consonant(word: &[u8], i: usize) -> bool {
    match word[i] {
        b'y' => {
            let run_start = word[..i]
                .iter()
                .rposition(|&b| b != b'y')
                .map_or(0, |before| before + 1);
            let first_y_is_consonant = run_start == 0 || is_vowel_letter(word[run_start - 1]);
            first_y_is_consonant == (i - run_start).is_multiple_of(2)
        }
        byte => !is_vowel_letter(byte),
    }
}

/// Whether each byte of `word` is a consonant, in one pass.
fn consonant_flags(word: &[u8]) -> impl Iterator<Item = bool> + '_ {
    let mut previous_is_consonant = false;
    word.iter().enumerate().map(move |(i, &byte)| {
        let consonant = match byte {
            b'y' => i == 0 || !previous_is_consonant,
            _ => !is_vowel_letter(byte),
        };
        previous_is_consonant = consonant;
        consonant
    })
}

/// Porter's m: how many vowel→consonant changes `stem` has.
fn measure(stem: &[u8]) -> usize {
    let mut previous_is_consonant = true;
    let mut m = 0;
    for consonant in consonant_flags(stem) {
        if consonant && !previous_is_consonant {
            m += 1;
        }
        previous_is_consonant = consonant;
    }
    m
}

fn contains_vowel(stem: &[u8]) -> bool {
    consonant_flags(stem).any(|consonant| !consonant)
}

/// Porter's *d: the word ends with a doubled consonant.
fn ends_double_consonant(word: &[u8]) -> bool {
    let n = word.len();
    n >= 2 && word[n - 1] == word[n - 2] && is_consonant(word, n - 1)
}

/// Porter's *o: the word ends consonant-vowel-consonant, the last not `w`, `x` or `y`; NLTK
/// also counts a whole two-letter word vowel-consonant (with no exception for `w x y`).
fn ends_cvc(word: &[u8]) -> bool {
    let n = word.len();
    (n >= 3
        && is_consonant(word, n - 3)
        && !is_consonant(word, n - 2)
        && is_consonant(word, n - 1)
        && !matches!(word[n - 1], b'w' | b'x' | b'y'))
        || (n == 2 && !is_consonant(word, 0) && is_consonant(word, 1))
}

/// Whether a rule applies, given the whole word and the length of the stem left once the rule's
/// suffix is taken off (some NLTK conditions look past the stem).
type Condition = fn(word: &[u8], stem_len: usize) -> bool;

/// Replace `suffix` by `replacement` when `condition` holds.
struct Rule {
    suffix: &'static str,
    replacement: &'static str,
    condition: Condition,
}

const fn rule(suffix: &'static str, replacement: &'static str, condition: Condition) -> Rule {
    Rule {
        suffix,
        replacement,
        condition,
    }
}

fn measure_above_0(word: &[u8], stem_len: usize) -> bool {
    measure(&word[..stem_len]) > 0
}

fn measure_above_1(word: &[u8], stem_len: usize) -> bool {
    measure(&word[..stem_len]) > 1
}

/// Apply the first rule whose suffix `word` ends with, if its condition holds; either way no
/// later rule is tried.
fn apply_rule_list(word: &mut String, rules: &[Rule]) {
    let Some(rule) = rules.iter().find(|rule| word.ends_with(rule.suffix)) else {
        return;
    };
    let stem_len = word.len() - rule.suffix.len();
    if (rule.condition)(word.as_bytes(), stem_len) {
        word.truncate(stem_len);
        word.push_str(rule.replacement);
    }
}

/// Plurals: `sses` → `ss`, `ies` → `i` (`ie` in a four-letter word), `ss` stays, `s` goes.
fn step1a(word: &mut String) {
    let n = word.len();
    let cut = if word.ends_with("ies") && n == 4 {
        1
    } else if word.ends_with("sses") || word.ends_with("ies") {
        2
    } else if word.ends_with("ss") {
        0
    } else if word.ends_with('s') {
        1
    } else {
        0
    };
    word.truncate(n - cut);
}

/// Past tenses and gerunds: `ied` → `ie`/`i`, `eed` → `ee`, and `ed`/`ing` after a vowel, then
/// the tidying that puts back an `e` or undoubles a consonant.
fn step1b(word: &mut String) {
    let n = word.len();
    if word.ends_with("ied") {
        word.truncate(if n == 4 { n - 1 } else { n - 2 });
        return;
    }
    if word.ends_with("eed") {
        if measure(&word.as_bytes()[..n - 3]) > 0 {
            word.truncate(n - 1);
        }
        return;
    }
    let stem_len = if word.ends_with("ed") {
        n - 2
    } else if word.ends_with("ing") {
        n - 3
    } else {
        return;
    };
    if !contains_vowel(&word.as_bytes()[..stem_len]) {
        return;
    }
    word.truncate(stem_len);

    if word.ends_with("at") || word.ends_with("bl") || word.ends_with("iz") {
        word.push('e');
    } else if ends_double_consonant(word.as_bytes()) {
        // hopp → hop, but fall, hiss and fizz keep their pair.
        if !word.ends_with(['l', 's', 'z']) {
            word.truncate(stem_len - 1);
        }
    } else if measure(word.as_bytes()) == 1 && ends_cvc(word.as_bytes()) {
        word.push('e');
    }
}

/// `y` → `i` after a consonant, unless that consonant is the whole stem.
fn step1c(word: &mut String) {
    if !word.ends_with('y') {
        return;
    }
    let stem_len = word.len() - 1;
    if stem_len > 1 && is_consonant(word.as_bytes(), stem_len - 1) {
        word.truncate(stem_len);
        word.push('i');
    }
}

/// NLTK measures the `logi` stem with its `l`, so that `geologi` and `theologi` lose the `i`.
fn logi_condition(word: &[u8], stem_len: usize) -> bool {
    measure(&word[..stem_len + 1]) > 0
}

const STEP2: &[Rule] = &[
    rule("ational", "ate", measure_above_0),
    rule("tional", "tion", measure_above_0),
    rule("enci", "ence", measure_above_0),
    rule("anci", "ance", measure_above_0),
    rule("izer", "ize", measure_above_0),
    rule("bli", "ble", measure_above_0),
    rule("alli", "al", measure_above_0),
    rule("entli", "ent", measure_above_0),
    rule("eli", "e", measure_above_0),
    rule("ousli", "ous", measure_above_0),
    rule("ization", "ize", measure_above_0),
    rule("ation", "ate", measure_above_0),
    rule("ator", "ate", measure_above_0),
    rule("alism", "al", measure_above_0),
    rule("iveness", "ive", measure_above_0),
    rule("fulness", "ful", measure_above_0),
    rule("ousness", "ous", measure_above_0),
    rule("aliti", "al", measure_above_0),
    rule("iviti", "ive", measure_above_0),
    rule("biliti", "ble", measure_above_0),
    rule("fulli", "ful", measure_above_0),
    rule("logi", "log", logi_condition),
];

/// Double suffixes to single ones. NLTK tries `alli` → `al` first and, when it applies, runs
/// step 2 again on the result (which then ends in `al`, which no step-2 suffix but `ational`
/// and `tional` can match).
fn step2(word: &mut String) {
    let n = word.len();
    if word.ends_with("alli") && measure(&word.as_bytes()[..n - 4]) > 0 {
        word.truncate(n - 2);
    }
    apply_rule_list(word, STEP2);
}

const STEP3: &[Rule] = &[
    rule("icate", "ic", measure_above_0),
    rule("ative", "", measure_above_0),
    rule("alize", "al", measure_above_0),
    rule("iciti", "ic", measure_above_0),
    rule("ical", "ic", measure_above_0),
    rule("ful", "", measure_above_0),
    rule("ness", "", measure_above_0),
];

/// `ion` goes only after `s` or `t`.
fn ion_condition(word: &[u8], stem_len: usize) -> bool {
    measure_above_1(word, stem_len) && matches!(word[stem_len - 1], b's' | b't')
}

const STEP4: &[Rule] = &[
    rule("al", "", measure_above_1),
    rule("ance", "", measure_above_1),
    rule("ence", "", measure_above_1),
    rule("er", "", measure_above_1),
    rule("ic", "", measure_above_1),
    rule("able", "", measure_above_1),
    rule("ible", "", measure_above_1),
    rule("ant", "", measure_above_1),
    rule("ement", "", measure_above_1),
    rule("ment", "", measure_above_1),
    rule("ent", "", measure_above_1),
    rule("ion", "", ion_condition),
    rule("ou", "", measure_above_1),
    rule("ism", "", measure_above_1),
    rule("ate", "", measure_above_1),
    rule("iti", "", measure_above_1),
    rule("ous", "", measure_above_1),
    rule("ive", "", measure_above_1),
    rule("ize", "", measure_above_1),
];

/// A final `e` goes when m > 1, or when m = 1 and the stem does not end cvc. Both conditions
/// are tried (unlike a rule list), as in NLTK.
fn step5a(word: &mut String) {
    if !word.ends_with('e') {
        return;
    }
    let stem_len = word.len() - 1;
    let stem = &word.as_bytes()[..stem_len];
    let m = measure(stem);
    if m > 1 || (m == 1 && !ends_cvc(stem)) {
        word.truncate(stem_len);
    }
}

/// `ll` → `l` when the word without its last `l` has m > 1.
fn step5b(word: &mut String) {
    let n = word.len();
    if word.ends_with("ll") && measure(&word.as_bytes()[..n - 1]) > 1 {
        word.truncate(n - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::{consonant_flags, is_consonant, measure, stem, stem_uncached, with_stem};

    const FIXTURE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/nltk_porter_sample.tsv"
    );

    /// tests/fixtures/nltk_porter_sample.tsv holds NLTK's stems of the words of
    /// examples/data/summeval-sample.jsonl and of words chosen for NLTK's special rules
    /// (written by scripts/build/nltk-porter-fixture.py).
    #[test]
    fn stems_equal_nltk_on_the_fixture() {
        let table = std::fs::read_to_string(FIXTURE).expect("the NLTK fixture is readable");
        let mut lines = table.lines();
        assert_eq!(lines.next(), Some("word\tstem"));
        let mut rows = 0;
        let mut mismatches = Vec::new();
        for line in lines {
            let (word, nltk) = line.split_once('\t').expect("a word and its stem");
            rows += 1;
            let ours = stem_uncached(word);
            if ours != nltk {
                mismatches.push(format!("{word}: NLTK {nltk}, ours {ours}"));
            }
        }
        assert!(rows > 1000, "only {rows} rows");
        assert!(
            mismatches.is_empty(),
            "{} of {rows} stems differ from NLTK, first: {:?}",
            mismatches.len(),
            &mismatches[..mismatches.len().min(20)]
        );
    }

    #[test]
    fn nltk_specific_rules() {
        let cases = [
            // The irregular forms come first.
            ("skies", "sky"),
            ("dying", "die"),
            ("news", "news"),
            ("proceed", "proceed"),
            // One or two letters are left alone, y included.
            ("as", "as"),
            ("by", "by"),
            ("is", "is"),
            // Four-letter -ies/-ied keep the e.
            ("dies", "die"),
            ("died", "die"),
            ("flies", "fli"),
            ("spied", "spi"),
            // eed: m > 0, else the word stays (no -ed rule after it).
            ("agreed", "agre"),
            ("feed", "feed"),
            // y → i only after a consonant that is not the whole stem.
            ("happy", "happi"),
            ("enjoy", "enjoy"),
            ("spy", "spi"),
            // alli first then step 2 again; fulli; logi measured with its l.
            ("radically", "radic"),
            ("hopefully", "hope"),
            ("geology", "geolog"),
            // Step 1b tidying.
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("conflated", "conflat"),
            // ion only after s or t.
            ("adoption", "adopt"),
            ("controlling", "control"),
            ("1990s", "1990"),
        ];
        for (word, expected) in cases {
            assert_eq!(stem_uncached(word), expected, "{word}");
        }
    }

    #[test]
    fn y_is_a_consonant_at_the_start_and_after_a_vowel() {
        // TOY: c v c; SYZYGY: c v c v c v; YYYYY: c v c v c.
        assert_eq!(measure(b"toy"), 1);
        assert_eq!(measure(b"syzygy"), 2);
        assert_eq!(measure(b"yyyy"), 1);
        assert_eq!(measure(b"yyyyy"), 2);
        assert_eq!(measure(b"trees"), 1);
        assert_eq!(measure(b"tr"), 0);
        // The one-position test agrees with the one-pass flags.
        for word in ["syzygy", "yyyyy", "ayyy", "eyyyb", "toyyy", "by1y"] {
            let flags: Vec<bool> = consonant_flags(word.as_bytes()).collect();
            for (i, &flag) in flags.iter().enumerate() {
                assert_eq!(is_consonant(word.as_bytes(), i), flag, "{word}[{i}]");
            }
        }
    }

    #[test]
    fn other_inputs_are_handled_like_nltk_or_left_alone() {
        assert_eq!(stem_uncached("Running"), "run");
        assert_eq!(stem_uncached("café"), "café");
        assert_eq!(stem_uncached(""), "");
        assert_eq!(stem_uncached("y"), "y");
    }

    #[test]
    fn remembered_stems_equal_computed_ones() {
        for _ in 0..3 {
            for word in ["generalizations", "radically", "dies", "yyyy"] {
                assert_eq!(stem(word), stem_uncached(word));
                assert_eq!(with_stem(word, str::len), stem_uncached(word).len());
            }
        }
    }
}
