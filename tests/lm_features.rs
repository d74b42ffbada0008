//! The `lm` class: interpolated modified Kneser-Ney probabilities checked by hand on a tiny
//! corpus, normalization, the shipped model's preferences, and a run over SummEval.

use crate::common;

use aesop::features::lm::{
    lm_sentences, LanguageModel, LmCounts, TrainOptions, BOS, EOS, FEATURES, UNK,
};
use aesop::features::{build_classes, FeatureOptions, TopicContext};
use common::assert_close_1e12;

/// Four sentences: "a b", "a b", "b a", "a". Ids: <unk> 0, <s> 1, </s> 2, a 3 (4 tokens),
/// b 4 (3 tokens).
fn tiny_sentences() -> Vec<Vec<&'static str>> {
    vec![vec!["a", "b"], vec!["a", "b"], vec!["b", "a"], vec!["a"]]
}

fn tiny_model(min_bigram_count: u64, min_trigram_count: u64) -> LanguageModel {
    let opts = TrainOptions {
        min_word_count: 1,
        max_vocabulary: 100,
        min_bigram_count,
        min_trigram_count,
    };
    LanguageModel::from_counts(LmCounts::train(tiny_sentences(), &opts))
}

/// Σ over every predictable word of P(w | history).
fn total_probability(model: &LanguageModel, history: &[u32]) -> f64 {
    (0..model.vocabulary_size() as u32)
        .map(|w| model.prob(history, w))
        .sum()
}

// Counts of the tiny corpus (padded: <s> a b </s> ×2, <s> b a </s>, <s> a </s>):
//   trigrams (raw = adjusted): <s>ab 2, ab</s> 2, <s>ba 1, ba</s> 1, <s>a</s> 1
//     n1 = 3, n2 = 2, n3 = 0 → fallback D = Y = 3/(3 + 2·2) = 3/7 for all counts.
//   bigrams, adjusted: <s>a 3 and <s>b 1 (raw, after <s>); ab 1 (only <s> precedes it),
//     b</s> 1 (a), ba 1 (<s>), a</s> 2 (b and <s>)
//     n1 = 4, n2 = 1, n3 = 1, n4 = 0 → fallback D = Y = 4/(4 + 2) = 2/3.
//   unigrams, continuation N1+(• w): a 2 (<s>, b), b 2 (<s>, a), </s> 2 (a, b), <unk> 0
//     n1 = 0 → fallback D = 0.5.
// Unigram: total 6; a, b, </s>: (2 − 0.5)/6 = 1/4 each; γ0 = 1/4 spread over the 4
//   predictable ids (<unk>, </s>, a, b): + 1/16. P1(a) = P1(b) = P1(</s>) = 5/16, P1(<unk>) = 1/16.
// Bigram context <s>: total 4; a: (3 − 2/3)/4 = 7/12, b: (1 − 2/3)/4 = 1/12, γ = 1/3.
//   P(a|<s>) = 7/12 + (1/3)(5/16) = 33/48 = 11/16; P(b|<s>) = 1/12 + 5/48 = 3/16;
//   P(</s>|<s>) = 5/48; P(<unk>|<s>) = 1/48.
// Bigram context a: total 3 (ab 1, a</s> 2); b: (1 − 2/3)/3 = 1/9, </s>: (2 − 2/3)/3 = 4/9,
//   γ = 4/9. P(b|a) = 1/9 + (4/9)(5/16) = 1/4; P(</s>|a) = 4/9 + 5/36 = 7/12; P(a|a) = 5/36;
//   P(<unk>|a) = 1/36.
// Bigram context b: total 2 (b</s> 1, ba 1); each (1 − 2/3)/2 = 1/6, γ = 2/3.
//   P(</s>|b) = P(a|b) = 1/6 + (2/3)(5/16) = 3/8.
// Trigram context (<s>, a): total 3 (b 2, </s> 1); b: (2 − 3/7)/3 = 11/21,
//   </s>: (1 − 3/7)/3 = 4/21, γ = 2/7. P(b|<s> a) = 11/21 + (2/7)(1/4) = 25/42;
//   P(</s>|<s> a) = 4/21 + (2/7)(7/12) = 15/42; P(a|<s> a) = (2/7)(5/36) = 5/126.
// Trigram context (a, b): total 2 (</s> 2): (2 − 3/7)/2 = 11/14, γ = 3/14.
//   P(</s>|a b) = 11/14 + (3/14)(3/8) = 97/112.
#[test]
fn tiny_model_matches_hand_computed_kneser_ney() {
    let model = tiny_model(1, 1);
    let counts = model.counts();
    assert_eq!(counts.words, ["<unk>", "<s>", "</s>", "a", "b"]);
    assert_eq!(counts.unigram_counts, [0, 4, 4, 4, 3]);
    assert_eq!(counts.continuation_counts, [0, 0, 2, 2, 2]);
    assert_eq!(counts.discounts[2], [3.0 / 7.0; 3]);
    assert_eq!(counts.discounts[1], [2.0 / 3.0; 3]);
    assert_eq!(counts.discounts[0], [0.5; 3]);

    let (a, b) = (3, 4);
    assert_close_1e12(model.prob(&[], a), 5.0 / 16.0, "P1(a)");
    assert_close_1e12(model.prob(&[], UNK), 1.0 / 16.0, "P1(<unk>)");
    assert_eq!(model.prob(&[], BOS), 0.0);
    assert_close_1e12(model.prob(&[BOS], a), 11.0 / 16.0, "P(a|<s>)");
    assert_close_1e12(model.prob(&[BOS], b), 3.0 / 16.0, "P(b|<s>)");
    assert_close_1e12(model.prob(&[BOS], EOS), 5.0 / 48.0, "P(</s>|<s>)");
    assert_close_1e12(model.prob(&[a], b), 0.25, "P(b|a)");
    assert_close_1e12(model.prob(&[a], EOS), 7.0 / 12.0, "P(</s>|a)");
    assert_close_1e12(model.prob(&[a], a), 5.0 / 36.0, "P(a|a)");
    assert_close_1e12(model.prob(&[b], a), 3.0 / 8.0, "P(a|b)");
    assert_close_1e12(model.prob(&[BOS, a], b), 25.0 / 42.0, "P(b|<s> a)");
    assert_close_1e12(model.prob(&[BOS, a], EOS), 15.0 / 42.0, "P(</s>|<s> a)");
    assert_close_1e12(model.prob(&[BOS, a], a), 5.0 / 126.0, "P(a|<s> a)");
    assert_close_1e12(model.prob(&[a, b], EOS), 97.0 / 112.0, "P(</s>|a b)");
    // An unseen trigram context (b, b) backs off to the bigram context b.
    assert_close_1e12(model.prob(&[b, b], a), 3.0 / 8.0, "P(a|b b)");

    // The sentence "a b": ln(11/16) + ln(25/42) + ln(97/112), by word string.
    let logprobs = model.sentence_logprobs(&["a", "b"]);
    let expected = [11.0 / 16.0, 25.0 / 42.0, 97.0 / 112.0].map(f64::ln);
    assert_eq!(logprobs.len(), 3);
    for (x, y) in logprobs.iter().zip(expected) {
        assert_close_1e12(*x, y, "ln P of \"a b\"");
    }
}

#[test]
fn tiny_model_distributions_sum_to_one_with_and_without_pruning() {
    for (min_bigram, min_trigram) in [(1, 1), (2, 2), (1, 2)] {
        let model = tiny_model(min_bigram, min_trigram);
        for history in [
            vec![],
            vec![BOS],
            vec![3],
            vec![4],
            vec![BOS, 3],
            vec![3, 4],
            vec![4, 3],
        ] {
            let total = total_probability(&model, &history);
            assert!(
                (total - 1.0).abs() < 1e-12,
                "pruning ({min_bigram}, {min_trigram}), history {history:?}: Σ P = {total}"
            );
        }
    }
}

// With singleton bigrams and trigrams pruned, <s> a </s> (raw 1) is dropped but still counts in
// the total of context (<s>, a): b keeps (2 − 3/7)/3 = 11/21, and γ = 1 − 11/21 = 10/21 takes
// the dropped mass. Context a keeps both bigrams (raw counts 2), so P(</s>|a) = 7/12 as before:
// P(</s>|<s> a) = (10/21)(7/12) = 5/18.
#[test]
fn pruned_mass_goes_to_the_backoff_weight() {
    let model = tiny_model(2, 2);
    assert_close_1e12(
        model.prob(&[BOS, 3], 2),
        5.0 / 18.0,
        "P(</s>|<s> a), pruned",
    );
    assert_close_1e12(
        model.prob(&[BOS, 3], 4),
        11.0 / 21.0 + 10.0 / 21.0 * 0.25,
        "P(b|<s> a), pruned",
    );
}

#[test]
fn tiny_model_features_by_hand() {
    let model = tiny_model(1, 1);
    // "A b." scores a, b, </s> with probabilities 11/16, 25/42, 97/112.
    let lp = [11.0 / 16.0, 25.0 / 42.0, 97.0 / 112.0].map(f64::ln);
    let mean = lp.iter().sum::<f64>() / 3.0;
    let std = (lp.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
    // Sorted: ln(25/42) < ln(11/16) < ln(97/112); position 0.1·2 = 0.2.
    let p10 = lp[1] + 0.2 * (lp[0] - lp[1]);
    let f = model.features("A b.");
    assert_eq!(f.len(), FEATURES.len());
    assert_close_1e12(f[0], mean, "mean_logprob");
    assert_close_1e12(f[1], lp[1], "min_logprob");
    assert_close_1e12(f[2], std, "std_logprob");
    assert_close_1e12(f[3], p10, "p10_logprob");
    assert_close_1e12(f[4], (-mean).exp(), "perplexity");
    assert_close_1e12(f[5], 0.0, "oov_rate");
    // Word frequencies: a 4/7, b 3/7 of the 7 word tokens.
    assert_close_1e12(
        f[6],
        ((4.0f64 / 7.0).ln() + (3.0f64 / 7.0).ln()) / 2.0,
        "unigram mean",
    );
    assert_close_1e12(f[7], 0.0, "low_prob_share");

    // "a zzz": zzz is <unk>; one OOV word of two.
    let f = model.features("a zzz");
    assert_close_1e12(f[5], 0.5, "oov_rate");
    // P(<unk>|<s> a) = (2/7)·P(<unk>|a) = (2/7)(1/36) = 1/126.
    assert_close_1e12(f[1], (1.0f64 / 126.0).ln(), "min_logprob with <unk>");

    for empty in ["", "   ", "?!", "..."] {
        let f = model.features(empty);
        assert_eq!(f.len(), FEATURES.len());
        assert!(f.iter().all(|x| x.is_nan()), "{empty:?}: {f:?}");
    }
}

fn shipped() -> &'static LanguageModel {
    LanguageModel::shipped().unwrap_or_else(|e| panic!("{e:#}"))
}

#[test]
fn shipped_model_distributions_sum_to_one() {
    let model = shipped();
    let ids = |words: &[&str]| -> Vec<u32> {
        std::iter::once(BOS)
            .chain(words.iter().map(|w| model.id_or_unk(w)))
            .collect()
    };
    for history in [
        ids(&[]),
        ids(&["the"]),
        ids(&["the", "president"]),
        ids(&["in", "the"]),
        ids(&["economic", "growth"]),
        ids(&["qqxqq", "zzqzz"]),
    ] {
        let total = total_probability(model, &history);
        assert!(
            (total - 1.0).abs() < 1e-9,
            "history {history:?}: Σ P = {total}"
        );
    }
}

/// A fixed word shuffle: the words at odd positions, then those at even positions, reversed.
fn shuffled(sentence: &str) -> String {
    let words: Vec<&str> = sentence.trim_end_matches('.').split(' ').collect();
    let mut out: Vec<&str> = words.iter().skip(1).step_by(2).copied().collect();
    out.extend(words.iter().step_by(2).rev());
    out.join(" ") + "."
}

#[test]
fn shipped_model_prefers_fluent_sentences_to_shuffled_ones() {
    let model = shipped();
    let sentences = [
        "The president said that the new law would help small businesses.",
        "Prices rose sharply in the first quarter of the year.",
        "The police arrested two men after the attack on Monday.",
        "Many people in the United States work in the service sector.",
        "The government announced a plan to reduce taxes for families.",
        "She was elected to the Senate in 2004 and served two terms.",
    ];
    for sentence in sentences {
        let scrambled = shuffled(sentence);
        assert_ne!(scrambled, sentence);
        let fluent = model.features(sentence)[0];
        let broken = model.features(&scrambled)[0];
        eprintln!("{fluent:.3} {sentence}\n{broken:.3} {scrambled}");
        assert!(
            fluent > broken + 0.5,
            "{sentence:?} {fluent} vs {scrambled:?} {broken}"
        );
    }
    // Same words, so the word-frequency feature does not change.
    let f = model.features(sentences[0]);
    let g = model.features(&shuffled(sentences[0]));
    assert!((f[6] - g[6]).abs() < 1e-12);
    // Tokenization matches the builder's: the corpus is lowercased the same way.
    assert_eq!(lm_sentences("THE Economy.")[0], ["the", "economy"]);
    assert!(model.word_id("economy").is_some());
}

#[test]
fn lm_class_on_summeval_topics() {
    let Some(path) = common::data_or_skip("lm_class_on_summeval_topics", "summeval/summeval.jsonl")
    else {
        return;
    };
    let topics = common::load_summeval(&path);
    let classes = build_classes(&["lm".to_string()], &FeatureOptions::default())
        .unwrap_or_else(|e| panic!("{e:#}"));
    let lm = &classes[0];
    assert!(!lm.needs_references());
    let names = lm.feature_names();
    assert_eq!(names.len(), FEATURES.len());
    assert_eq!(names[0], "lm.mean_logprob");

    let mut mean_logprob = Vec::new();
    let mut fluency = Vec::new();
    for topic in topics.iter().take(10) {
        let rows = lm.extract(&TopicContext::new(topic));
        assert_eq!(rows.len(), topic.summaries.len());
        for (row, summary) in rows.iter().zip(&topic.summaries) {
            let row = row
                .as_ref()
                .unwrap_or_else(|| panic!("no row for {}", summary.system));
            assert!(
                row.iter().all(|x| x.is_finite()),
                "{}: {row:?}",
                summary.system
            );
            let [mean, min, std, p10, ppl, oov, unigram, low] = row[..] else {
                panic!("{row:?}");
            };
            assert!(min <= p10 && p10 <= mean && mean < 0.0, "{row:?}");
            assert!(std >= 0.0 && ppl > 1.0 && (0.0..=1.0).contains(&low));
            assert!((0.0..0.5).contains(&oov), "{}: oov {oov}", summary.system);
            assert!(unigram < 0.0);
            mean_logprob.push(mean);
            if let Some(&f) = summary.scores.get("fluency") {
                fluency.push((mean, f));
            }
        }
    }
    let average = mean_logprob.iter().sum::<f64>() / mean_logprob.len() as f64;
    eprintln!(
        "{} summaries: average mean ln p {average:.3} (perplexity {:.1})",
        mean_logprob.len(),
        (-average).exp()
    );
    // News summaries under a news/textbook model: perplexity in the hundreds, not thousands.
    assert!((-average).exp() < 2000.0, "{average}");
    if !fluency.is_empty() {
        let (x, y): (Vec<f64>, Vec<f64>) = fluency.into_iter().unzip();
        eprintln!(
            "Spearman(mean ln p, fluency), pooled: {:.3}",
            common::spearman(&x, &y)
        );
    }
}
