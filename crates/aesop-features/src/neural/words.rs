//! What the `neural` classes make of a summary's per-token log-probabilities: the four
//! statistics of a token sequence, the summary's words (tokens joined at whitespace) with their
//! log-probs, and the two word-level features, `unsupported_share` and SLOR.

use crate::wordfreq::WordFrequencies;
use std::collections::HashSet;

pub(super) fn mean(x: &[f32]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    x.iter().map(|&v| f64::from(v)).sum::<f64>() / x.len() as f64
}

pub(super) fn mean_f64(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    x.iter().sum::<f64>() / x.len() as f64
}

/// The lowercased words (`\w+` runs) of `text`.
pub(super) fn word_set(text: &str) -> HashSet<String> {
    word_parts(text).collect()
}

/// The lowercased runs of word characters (letters, digits, `_`) in `text`.
pub(super) fn word_parts(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|part| !part.is_empty())
        .map(str::to_lowercase)
}

/// A word of a summary: its text (the pieces of its tokens, joined) and the sums of its
/// tokens' log-probs given the source and unconditionally.
pub(super) struct Word {
    text: String,
    given: f64,
    uncond: f64,
}

/// The summary's words: a word runs from a token that starts with whitespace (or the first
/// token) to the next such token; words of whitespace only are dropped.
pub(super) fn words(pieces: &[String], given: &[f32], uncond: &[f32]) -> Vec<Word> {
    let mut words: Vec<Word> = Vec::new();
    for ((piece, &g), &u) in pieces.iter().zip(given).zip(uncond) {
        let (g, u) = (f64::from(g), f64::from(u));
        match words.last_mut() {
            Some(w) if !piece.starts_with(char::is_whitespace) => {
                w.text.push_str(piece);
                w.given += g;
                w.uncond += u;
            }
            _ => words.push(Word {
                text: piece.clone(),
                given: g,
                uncond: u,
            }),
        }
    }
    words.retain(|w| !w.text.trim().is_empty());
    words
}

/// Share of a summary's words that the source does not support: words absent from the source
/// (some lowercased `\w+` part of the word is not a word of the source) that the source makes
/// less likely than no source at all (the word's PMI, summed over its tokens, below 0). NaN for
/// a summary without words.
///
/// Why: a hallucinated name or number is a new word the article argues against, while a
/// paraphrase's new words are ones the article makes likelier; on SummEval consistency this
/// share reaches summary-level τ −.405 against `src_mean`'s .362 (docs/NEURAL.md).
pub(super) fn unsupported_share(words: &[Word], source_words: &HashSet<String>) -> f64 {
    if words.is_empty() {
        return f64::NAN;
    }
    let unsupported = words
        .iter()
        .filter(|w| {
            w.given - w.uncond < 0.0 && word_parts(&w.text).any(|p| !source_words.contains(&p))
        })
        .count();
    unsupported as f64 / words.len() as f64
}

/// SLOR per word (Kann et al. 2018), given the source and unconditionally: the mean over the
/// summary's words of the word's log-prob minus its log unigram frequency (wordfreq; a word of
/// punctuation only has no unigram term). NaN for a summary without words.
///
/// Why: the LM's log-prob punishes rare words whether or not they are well used, so it ranks
/// plain summaries above specific ones; subtracting the unigram term removes that. The mean
/// log-prob given the source reverses sign on SummEval-OP (opinion summaries; τ −.13 on
/// coherence), SLOR given the source does not (+.27), and it stays level with it on news
/// (docs/NEURAL.md, "SLOR").
pub(super) fn slor(words: &[Word], unigram: &WordFrequencies) -> [f64; 2] {
    if words.is_empty() {
        return [f64::NAN; 2];
    }
    let (mut given, mut uncond) = (0.0, 0.0);
    for w in words {
        let u = unigram.log_prob(&w.text).unwrap_or(0.0);
        given += w.given - u;
        uncond += w.uncond - u;
    }
    let n = words.len() as f64;
    [given / n, uncond / n]
}

/// Mean, 10th percentile (nearest rank), minimum and sum; NaN for no tokens.
pub(super) fn stats(x: &[f32]) -> [f64; 4] {
    if x.is_empty() {
        return [f64::NAN; 4];
    }
    let mut v: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
    v.sort_by(f64::total_cmp);
    let p10 = v[((v.len() as f64 * 0.1).ceil() as usize).saturating_sub(1)];
    [mean(x), p10, v[0], v.iter().sum()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_tokens() {
        let s = stats(&[-1.0, -3.0, -2.0]);
        assert_eq!(s, [-2.0, -3.0, -3.0, -6.0]);
        assert!(stats(&[]).iter().all(|v| v.is_nan()));
    }

    fn pieces(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    /// `unsupported_share` of the words of these tokens.
    fn share(p: &[&str], given: &[f32], uncond: &[f32], source: &HashSet<String>) -> f64 {
        unsupported_share(&words(&pieces(p), given, uncond), source)
    }

    #[test]
    fn unsupported_share_counts_new_words_the_source_makes_less_likely() {
        let source = word_set("The cat sat on the mat.");
        // Words: "The", "cat", "sat", "on", "Mars." (two tokens, PMI -1.0 + 0.5 < 0),
        // "Tuesday" (new, but PMI +1: supported).
        let p = ["The", " cat", " sat", " on", " Mar", "s.", " Tuesday"];
        let given = [-1.0, -2.0, -1.0, -1.0, -3.0, -0.5, -1.0];
        let uncond = [-1.0, -3.0, -2.0, -1.0, -2.0, -1.0, -2.0];
        let s = share(&p, &given, &uncond, &source);
        assert!((s - 1.0 / 6.0).abs() < 1e-12, "{s}");
        // A word of the source is supported whatever its PMI: "cat" at PMI -1.
        assert_eq!(
            share(&["The", " cat"], &[-1.0, -4.0], &[-1.0, -3.0], &source),
            0.0
        );
        // Case and punctuation do not make a word new; a whitespace-only word is not counted.
        let s = share(
            &["THE", " ", " Cat,", " on"],
            &[-5.0; 4],
            &[-1.0; 4],
            &source,
        );
        assert_eq!(s, 0.0);
        let s = share(&[" ", " dog"], &[-5.0; 2], &[-1.0; 2], &source);
        assert_eq!(s, 1.0, "one word, new and less likely given the source");
        // No words: missing, not zero.
        assert!(share(&[], &[], &[], &source).is_nan());
        assert!(share(&[" "], &[-1.0], &[-1.0], &source).is_nan());
    }

    #[test]
    fn slor_subtracts_each_words_unigram_log_prob() {
        let unigram = WordFrequencies::parse_tsv(
            "#aesop-wordfreq\t1\nthe\t-100\ncat\t-400\nsat\t-450\nzebra\t-600\n",
        )
        .unwrap();
        let ln = |cb: f64| cb / 100.0 * std::f64::consts::LN_10;
        // Words: "The" (-1 / -2), "cat" (-3 / -5), "sat." (two tokens: -2.5 / -3.5),
        // " —" (punctuation: no unigram term), "Xyzzy" (not in the table: the floor, zebra's).
        let p = pieces(&["The", " cat", " sat", ".", " —", " Xyzzy"]);
        let given = [-1.0, -3.0, -2.0, -0.5, -1.0, -9.0];
        let uncond = [-2.0, -5.0, -3.0, -0.5, -1.0, -12.0];
        let [g, u] = slor(&words(&p, &given, &uncond), &unigram);
        let unigrams = ln(-100.0) + ln(-400.0) + ln(-450.0) + ln(-600.0);
        assert!((g - (-16.5 - unigrams) / 5.0).abs() < 1e-9, "{g}");
        assert!((u - (-23.5 - unigrams) / 5.0).abs() < 1e-9, "{u}");
        // A rare word the LM finds as likely as a common one scores higher: that is the point.
        let [common, _] = slor(&words(&pieces(&["the"]), &[-5.0], &[-5.0]), &unigram);
        let [rare, _] = slor(&words(&pieces(&["zebra"]), &[-5.0], &[-5.0]), &unigram);
        assert!(rare > common);
        assert!(slor(&[], &unigram).iter().all(|v| v.is_nan()));
    }
}
