//! TESLA-S: bags, weights, the exact-match optimum, F with α = 0.8, the transportation LP with
//! partial similarities, and the class rows. Expectations are computed by hand.

use crate::common;

use aesop::corpus::{Reference, Summary, Topic};
use aesop::features::surface::word_tokens;
use aesop::features::tesla::{
    exact_match, f_measure, max_similarity_transport, skip_bigram_bag, stem_match, unigram_bag,
    Bag, FunctionWords, Lexicon, StemView, Tesla, TeslaOptions,
};
use aesop::features::{FeatureClass, TopicContext};
use common::close;

fn tokens(text: &str) -> Vec<String> {
    word_tokens(text)
}

/// Weight 0.1 for the shipped function words (closed share ≥ 0.5) when `weighted`, else 1.
fn weigher(lexicon: &Lexicon, weighted: bool) -> impl Fn(u32) -> f64 + '_ {
    let fw = FunctionWords::shipped(0.5);
    move |id| {
        if weighted && fw.contains(lexicon.word(id).unwrap()) {
            0.1
        } else {
            1.0
        }
    }
}

fn uni(lexicon: &mut Lexicon, text: &str, weighted: bool) -> Bag {
    let ids = lexicon.ids(&tokens(text));
    unigram_bag(&ids, weigher(lexicon, weighted))
}

fn skip(lexicon: &mut Lexicon, text: &str, max_skip: usize, weighted: bool) -> Bag {
    let ids = lexicon.ids(&tokens(text));
    skip_bigram_bag(&ids, max_skip, weigher(lexicon, weighted))
}

fn identity(word: &str) -> String {
    word.to_string()
}

/// The weight of the n-gram written `ngram` in `bag`.
fn weight(bag: &Bag, lexicon: &Lexicon, ngram: &str) -> f64 {
    lexicon.key(ngram).map_or(0.0, |k| bag.weight(k))
}

#[test]
fn function_word_list() {
    let fw = FunctionWords::shipped(0.5);
    for w in ["the", "a", "of", "on", "and", "is", "s", "t", "ll", "down"] {
        assert!(fw.contains(w), "{w} should be a function word");
    }
    for w in ["cat", "mat", "sat", "said", "president"] {
        assert!(!fw.contains(w), "{w} should be a content word");
    }
    // "down" has closed share 0.534 and "as" 0.815: a 0.9 threshold drops them.
    let strict = FunctionWords::shipped(0.9);
    assert!(!strict.contains("down") && !strict.contains("as"));
    assert!(strict.contains("the"));
    assert!(strict.len() < fw.len());
    let custom =
        FunctionWords::from_tsv("word\tclosed_share\nfoo\t0.7\nbar\t0.2\nn't\t0.99\n", 0.5);
    assert!(custom.contains("foo") && !custom.contains("bar") && custom.contains("t"));
}

#[test]
fn tokenization_lowercases_and_drops_punctuation() {
    assert_eq!(
        tokens("The cat's 2 mats, don't!"),
        vec!["the", "cat", "s", "2", "mats", "don", "t"]
    );
}

#[test]
fn unigram_and_skip_bigram_bags() {
    // "the cat saw the dog": the = 0.1 × 2 = 0.2; cat, saw, dog = 1 → total 3.2.
    let mut lex = Lexicon::new(identity);
    let bag = uni(&mut lex, "the cat saw the dog", true);
    assert_eq!(bag.len(), 4);
    assert!(close(weight(&bag, &lex, "the"), 0.2));
    assert!(close(weight(&bag, &lex, "cat"), 1.0));
    assert!(close(bag.total(), 3.2));

    // "the cat sat", max skip 4: (the,cat) (the,sat) (cat,sat); weights (0.1+1)/2 = 0.55,
    // 0.55, 1.0 → total 2.1.
    let bag = skip(&mut lex, "the cat sat", 4, true);
    assert_eq!(bag.len(), 3);
    assert!(close(weight(&bag, &lex, "the cat"), 0.55));
    assert!(close(weight(&bag, &lex, "the sat"), 0.55));
    assert!(close(weight(&bag, &lex, "cat sat"), 1.0));
    assert_eq!(
        weight(&bag, &lex, "sat cat"),
        0.0,
        "skip bigrams are ordered"
    );
    assert!(close(bag.total(), 2.1));

    // Skip distance: a b c d e f g with max skip 4 pairs a with b..f (0..4 words between),
    // not g (5 between). 7 tokens: Σ_i min(5, 6 − i) = 5+5+4+3+2+1 = 20 pairs.
    let seq = "a1 b1 c1 d1 e1 f1 g1";
    let bag = skip(&mut lex, seq, 4, false);
    assert_eq!(bag.len(), 20);
    assert!(close(weight(&bag, &lex, "a1 f1"), 1.0));
    assert_eq!(weight(&bag, &lex, "a1 g1"), 0.0);
    // max skip 0 = plain bigrams.
    assert_eq!(skip(&mut lex, seq, 0, false).len(), 6);
}

#[test]
fn exact_match_optimum_and_f_with_alpha_08() {
    // Reference X "the cat sat on the mat": the 0.2, cat 1, sat 1, on 0.1, mat 1 → Σx = 3.3.
    // Candidate Y "the cat": the 0.1, cat 1 → Σy = 1.1.
    // S = min(0.2, 0.1) + min(1, 1) = 1.1; P = 1.1/1.1 = 1, R = 1.1/3.3 = 1/3;
    // F = P·R / (0.8·P + 0.2·R) = (1/3) / (0.8 + 1/15) = (1/3)/(13/15) = 5/13.
    let mut lex = Lexicon::new(identity);
    let x = uni(&mut lex, "the cat sat on the mat", true);
    let y = uni(&mut lex, "the cat", true);
    assert!(close(x.total(), 3.3));
    let s = exact_match(&x, &y);
    assert!(close(s, 1.1));
    assert!(close(f_measure(s, x.total(), y.total(), 0.8), 5.0 / 13.0));
    // α = 0.8 favours recall: swapping roles (P = 1/3, R = 1) gives
    // (1/3)/(0.8/3 + 0.2) = (1/3)/(7/15) = 5/7.
    assert!(close(f_measure(s, y.total(), x.total(), 0.8), 5.0 / 7.0));
    // The LP solver agrees with the closed form when s is 0/1.
    let xs: Vec<(u64, f64)> = x.iter().collect();
    let ys: Vec<(u64, f64)> = y.iter().collect();
    let xw: Vec<f64> = xs.iter().map(|p| p.1).collect();
    let yw: Vec<f64> = ys.iter().map(|p| p.1).collect();
    let lp = max_similarity_transport(&xw, &yw, |i, j| f64::from(u8::from(xs[i].0 == ys[j].0)));
    assert!(close(lp, 1.1));
    // With an identity stemmer, stem matching is exact matching.
    let sm = stem_match(&StemView::new(&x, &lex), &StemView::new(&y, &lex), 0.5);
    assert!(close(sm, 1.1));
    // Nothing matched: F = 0, not NaN.
    assert_eq!(f_measure(0.0, 3.3, 0.0, 0.8), 0.0);
}

#[test]
fn transportation_lp_beats_greedy() {
    // Unit capacities, sim [[1.0, 0.9], [0.9, 0.0]]. Greedy by highest similarity takes
    // (0,0) = 1.0 and leaves only (1,1) = 0 → 1.0; the optimum is (0,1) + (1,0) = 1.8.
    let sim = [[1.0, 0.9], [0.9, 0.0]];
    let best = max_similarity_transport(&[1.0, 1.0], &[1.0, 1.0], |i, j| sim[i][j]);
    assert!(close(best, 1.8), "{best}");

    // Fractional capacities: x = [0.6, 1.0], y = [1.0, 0.5], sim [[1.0, 0.8], [0.7, 0.0]].
    // Greedy: (0,0) 0.6·1.0, then (1,0) 0.4·0.7 → 0.88.
    // Optimum: w01 = 0.5, w00 = 0.1, w10 = 0.9 → 0.1 + 0.4 + 0.63 = 1.13; the dual
    // u = (0.3, 0), v = (0.7, 0.5) is feasible (u_i + v_j ≥ sim) with value
    // 0.6·0.3 + 1.0·0.7 + 0.5·0.5 = 1.13, so 1.13 is optimal.
    let sim = [[1.0, 0.8], [0.7, 0.0]];
    let best = max_similarity_transport(&[0.6, 1.0], &[1.0, 0.5], |i, j| sim[i][j]);
    assert!(close(best, 1.13), "{best}");
}

/// All permutations of 0..n.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for k in 0..=p.len() {
            let mut q = p.clone();
            q.insert(k, n - 1);
            out.push(q);
        }
    }
    out
}

#[test]
fn transportation_lp_matches_brute_force_assignment() {
    // With unit capacities on a square problem the LP has an integral optimum (Birkhoff), and
    // with s ≥ 0 a full assignment is optimal: compare with the best permutation.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        // Similarities on a 0.1 grid, a third of them 0.
        let v = (state % 15) as f64 / 10.0;
        if v > 1.0 {
            0.0
        } else {
            v
        }
    };
    for n in 1..=4 {
        let perms = permutations(n);
        for _ in 0..50 {
            let sim: Vec<Vec<f64>> = (0..n).map(|_| (0..n).map(|_| next()).collect()).collect();
            let brute = perms
                .iter()
                .map(|p| (0..n).map(|i| sim[i][p[i]]).sum::<f64>())
                .fold(0.0, f64::max);
            let ones = vec![1.0; n];
            let lp = max_similarity_transport(&ones, &ones, |i, j| sim[i][j]);
            assert!(
                (lp - brute).abs() < 1e-9,
                "n={n} lp={lp} brute={brute} {sim:?}"
            );
        }
    }
}

/// A test stemmer: strips one final "s" ("runs" → "run", "cats" → "cat").
fn strip_s(word: &str) -> String {
    word.strip_suffix('s').unwrap_or(word).to_string()
}

/// Stem matching between two texts' bags (unigrams when `max_skip` is `None`).
fn stem_score(a: &str, b: &str, max_skip: Option<usize>) -> f64 {
    let mut lex = Lexicon::new(strip_s);
    let (x, y) = match max_skip {
        None => (uni(&mut lex, a, false), uni(&mut lex, b, false)),
        Some(k) => (skip(&mut lex, a, k, false), skip(&mut lex, b, k, false)),
    };
    stem_match(&StemView::new(&x, &lex), &StemView::new(&y, &lex), 0.5)
}

#[test]
fn stem_match_gives_partial_credit() {
    // X {runs: 1}, Y {run: 1, runs: 1}: runs–runs 1·1 = 1 uses all of X: S = 1 (a greedy in
    // listing order matching "run" first would get 0.5).
    assert!(close(stem_score("runs", "run runs", None), 1.0));
    // X {runs: 2}: 1 (exact) + 0.5·1 (run) = 1.5; exact matching gives only 1.
    assert!(close(stem_score("runs runs", "run runs", None), 1.5));
    let mut lex = Lexicon::new(strip_s);
    let (x, y) = (
        uni(&mut lex, "runs runs", false),
        uni(&mut lex, "run runs", false),
    );
    assert!(close(exact_match(&x, &y), 1.0));
    // Skip bigrams: "cats run" vs "cat runs": both words differ in form but share stems →
    // similarity (0.5 + 0.5)/2 = 0.5; "cats runs" vs "cats run" → (1 + 0.5)/2 = 0.75.
    assert!(close(stem_score("cats run", "cat runs", Some(4)), 0.5));
    assert!(close(stem_score("cats run", "cats runs", Some(4)), 0.75));
    // Different stems never match.
    assert_eq!(stem_score("cats run", "walk", None), 0.0);
}

#[test]
fn tesla_class_rows() {
    let class = Tesla::with_stemmer(TeslaOptions::default(), strip_s);
    assert_eq!(
        class.feature_names(),
        vec![
            "tesla.exact",
            "tesla.stem",
            "tesla.exact_unigram",
            "tesla.exact_skip_bigram",
            "tesla.stem_unigram",
            "tesla.stem_skip_bigram"
        ]
    );
    assert!(class.needs_references());
    let mut topic = Topic::new("t");
    topic.references.push(Reference::new("r1", "The cats sat."));
    topic
        .references
        .push(Reference::new("r2", "Dogs bark loudly"));
    topic
        .summaries
        .push(Summary::new("identical", "the cats sat"));
    topic.summaries.push(Summary::new("stemmed", "the cat sat"));
    topic.summaries.push(Summary::new("empty", ""));
    let rows = class.extract(&TopicContext::new(&topic));
    let identical = rows[0].as_ref().unwrap();
    assert!(identical.iter().all(|&v| close(v, 1.0)), "{identical:?}");
    let stemmed = rows[1].as_ref().unwrap();
    // Against r1: unigrams X = Y totals 2.1 (the 0.1, cats/cat 1, sat 1).
    // Exact: S = 0.1 + 1 = 1.1 → P = R = 1.1/2.1 → F = 11/21.
    // Stem: S = 1.1 + 0.5·1 = 1.6 → F = 16/21.
    assert!(close(stemmed[2], 11.0 / 21.0), "{stemmed:?}");
    assert!(close(stemmed[4], 16.0 / 21.0), "{stemmed:?}");
    // Skip bigrams (totals 0.55 + 0.55 + 1 = 2.1): exact shares only "the sat" (0.55) →
    // F = 0.55/2.1; stem: the cats~the cat (0.75·0.55) + the sat (0.55) + cats sat~cat sat
    // (0.75·1) = 0.4125 + 0.55 + 0.75 = 1.7125 → F = 1.7125/2.1.
    assert!(close(stemmed[3], 0.55 / 2.1), "{stemmed:?}");
    assert!(close(stemmed[5], 1.7125 / 2.1), "{stemmed:?}");
    assert!(close(stemmed[0], (stemmed[2] + stemmed[3]) / 2.0));
    let empty = rows[2].as_ref().unwrap();
    assert!(empty.iter().all(|&v| v == 0.0));

    topic.references.clear();
    let rows = class.extract(&TopicContext::new(&topic));
    assert!(rows.iter().all(Option::is_none));
}

/// The class matches a candidate against all references at once through a per-topic index;
/// its rows must equal, bit for bit, the maximum over references of the pairwise
/// [`exact_match`] / [`stem_match`] scores (same terms, same order), including stem groups with
/// several forms on a side (the transportation LP) and repeated n-grams.
#[test]
fn class_rows_equal_the_pairwise_scores_over_many_references() {
    let references = [
        "The cats sat on the mat, and the cat sat again.",
        "Dogs bark at cats; a dog barks at the cat.",
        "Cats and dogs: the dogs sat while the cats barked.",
        "Nothing here matches anything else whatsoever.",
    ];
    let summaries = [
        "The cat sat on the mats while dogs barked at cats.",
        "cats cats cats dogs dogs",
        "A mat.",
        "",
    ];
    let opts = TeslaOptions::default();
    let class = Tesla::with_stemmer(opts.clone(), strip_s);
    let mut topic = Topic::new("t");
    for (k, r) in references.iter().enumerate() {
        topic.references.push(Reference::new(format!("r{k}"), *r));
    }
    for (k, s) in summaries.iter().enumerate() {
        topic.summaries.push(Summary::new(format!("s{k}"), *s));
    }
    let rows = class.extract(&TopicContext::new(&topic));

    let mut lexicon = Lexicon::new(strip_s);
    let bags = |lexicon: &mut Lexicon, text: &str| {
        let (u, s) = (
            uni(lexicon, text, true),
            skip(lexicon, text, opts.max_skip, true),
        );
        let (us, ss) = (StemView::new(&u, lexicon), StemView::new(&s, lexicon));
        (u, s, us, ss)
    };
    let reference_bags: Vec<_> = references.iter().map(|r| bags(&mut lexicon, r)).collect();
    let (words, stems) = (lexicon.len(), lexicon.stems());
    for (summary, row) in summaries.iter().zip(&rows) {
        // As the class does: each summary's own new words are forgotten after it.
        lexicon.truncate(words, stems);
        let (cu, cs, cus, css) = bags(&mut lexicon, summary);
        let mut best = [f64::NEG_INFINITY; 6];
        for (ru, rs, rus, rss) in &reference_bags {
            let f = |m: f64, x: &Bag, y: &Bag| f_measure(m, x.total(), y.total(), opts.alpha);
            let exact_uni = f(exact_match(ru, &cu), ru, &cu);
            let exact_bi = f(exact_match(rs, &cs), rs, &cs);
            let stem_uni = f(stem_match(rus, &cus, opts.stem_similarity), ru, &cu);
            let stem_bi = f(stem_match(rss, &css, opts.stem_similarity), rs, &cs);
            let scores = [
                (exact_uni + exact_bi) / 2.0,
                (stem_uni + stem_bi) / 2.0,
                exact_uni,
                exact_bi,
                stem_uni,
                stem_bi,
            ];
            for (b, s) in best.iter_mut().zip(scores) {
                *b = b.max(s);
            }
        }
        let row = row.as_ref().unwrap();
        assert_eq!(row.as_slice(), best.as_slice(), "summary {summary:?}");
    }
    // Not all trivially 0 or 1: the stem scores exceed the exact ones for the first summary.
    let first = rows[0].as_ref().unwrap();
    assert!(first[1] > first[0] && first[0] > 0.0, "{first:?}");
}

/// A summary's features do not depend on which other summaries were read before it (audit stop
/// 53: they moved in the last bit, 5.6e-17, because a topic's words were numbered in reading
/// order and the sums follow the numbers). Bit for bit, with the topic's summaries reversed.
#[test]
fn rows_do_not_depend_on_the_order_of_the_summaries() {
    let class = Tesla::new(TeslaOptions::default());
    let mut topic = Topic::new("t");
    topic.references.push(Reference::new(
        "r1",
        "The council approved the new budget after a long debate on taxes and schools.",
    ));
    topic.references.push(Reference::new(
        "r2",
        "After hours of debate, councillors passed a budget raising school spending.",
    ));
    let summaries = [
        "Councillors debated for hours; the budget passed with more money for schools.",
        "A budget was approved. Taxes rose, schooling improved, debating continued.",
        "The mayor vetoed nothing: spending on roads, parks and schools was agreed.",
        "Budget budgets budgeted; the councils approve approval of taxing taxes.",
        "Long debates, new taxes and approved schools marked the council's budget day.",
    ];
    for (k, text) in summaries.iter().enumerate() {
        topic.summaries.push(Summary::new(format!("s{k}"), *text));
    }
    let forward = class.extract(&TopicContext::new(&topic));
    topic.summaries.reverse();
    let mut backward = class.extract(&TopicContext::new(&topic));
    backward.reverse();
    for (k, (f, b)) in forward.iter().zip(&backward).enumerate() {
        let (f, b) = (f.as_ref().expect("row"), b.as_ref().expect("row"));
        let bits = |row: &[f64]| row.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(f), bits(b), "summary s{k}: {f:?} against {b:?}");
        assert!(f.iter().any(|&v| v > 0.0 && v < 1.0), "{f:?}");
    }
}
