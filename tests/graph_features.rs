//! N-gram graph operators and the `graph` class, with hand-computed expectations; plus one
//! SummEval run of the `graph`, `tesla` and `surface` classes (values finite and in range, timing).

use crate::common;

use aesop::corpus::{Document, Reference, Summary, Topic};
use aesop::features::graph::{
    build_with_vocabulary, merge, normalized_value_similarity, npower, size_similarity, update,
    value_similarity, Graph, GraphOptions, NGramGraph, NGramVocabulary,
};
use aesop::features::surface::{Surface, SurfaceOptions};
use aesop::features::tesla::{Tesla, TeslaOptions};
use aesop::features::{FeatureClass, TopicContext};
use common::close;
use std::time::Instant;

/// The edges of `graph` as sorted (label, label, weight) with the labels of each edge sorted.
fn labelled_edges(graph: &NGramGraph, vocab: &NGramVocabulary) -> Vec<(String, String, f64)> {
    let mut edges: Vec<(String, String, f64)> = graph
        .edges()
        .map(|(a, b, w)| {
            let (la, lb) = (vocab.label(a).unwrap(), vocab.label(b).unwrap());
            let (x, y) = if la <= lb { (la, lb) } else { (lb, la) };
            (x.to_string(), y.to_string(), w)
        })
        .collect();
    edges.sort_by(|p, q| (&p.0, &p.1).cmp(&(&q.0, &q.1)));
    edges
}

fn e(a: &str, b: &str, w: f64) -> (String, String, f64) {
    (a.to_string(), b.to_string(), w)
}

#[test]
fn rank3_window3_graph_of_distinct_ngrams() {
    // "abcdef": 3-grams at positions 0..=3: abc, bcd, cde, def. Every pair of positions is
    // within distance 3 (max 3 − 0 = 3), so all C(4,2) = 6 pairs are edges of weight 1.
    let mut vocab = NGramVocabulary::new();
    let g = build_with_vocabulary("abcdef", 3, 3, &mut vocab);
    assert_eq!(
        labelled_edges(&g, &vocab),
        vec![
            e("abc", "bcd", 1.0),
            e("abc", "cde", 1.0),
            e("abc", "def", 1.0),
            e("bcd", "cde", 1.0),
            e("bcd", "def", 1.0),
            e("cde", "def", 1.0),
        ]
    );
}

#[test]
fn window_limits_edges_and_repeats_add_weight() {
    // "abcdefg", rank 3, window 3: 3-grams abc(0) bcd(1) cde(2) def(3) efg(4).
    // Pairs with distance ≤ 3: all but (0,4): 10 − 1 = 9 edges.
    let mut vocab = NGramVocabulary::new();
    let g = build_with_vocabulary("abcdefg", 3, 3, &mut vocab);
    assert_eq!(g.len(), 9);
    let abc = vocab.get("abc").unwrap();
    let efg = vocab.get("efg").unwrap();
    assert_eq!(g.weight(abc, efg), 0.0);

    // "ababa": aba(0) bab(1) aba(2). Pairs (0,1) {aba,bab}, (0,2) {aba,aba}, (1,2) {bab,aba}
    // → {aba,bab} = 2, self-loop {aba,aba} = 1.
    let mut vocab = NGramVocabulary::new();
    let g = build_with_vocabulary("ababa", 3, 3, &mut vocab);
    assert_eq!(
        labelled_edges(&g, &vocab),
        vec![e("aba", "aba", 1.0), e("aba", "bab", 2.0)]
    );

    // No preprocessing: case, spaces and punctuation are kept. "Ab c!" rank 2, window 1:
    // "Ab"(0) "b "(1) " c"(2) "c!"(3), neighbours only at distance 1 → 3 edges.
    let mut vocab = NGramVocabulary::new();
    let g = build_with_vocabulary("Ab c!", 2, 1, &mut vocab);
    assert_eq!(
        labelled_edges(&g, &vocab),
        vec![e(" c", "b ", 1.0), e(" c", "c!", 1.0), e("Ab", "b ", 1.0)]
    );

    // Shorter than the rank, or a single n-gram: no edges.
    let mut vocab = NGramVocabulary::new();
    assert!(build_with_vocabulary("ab", 3, 3, &mut vocab).is_empty());
    assert!(build_with_vocabulary("abc", 3, 3, &mut vocab).is_empty());
    assert!(build_with_vocabulary("", 3, 3, &mut vocab).is_empty());
    // Multi-byte characters are one position each: "ééé é" has 3-grams "ééé", "éé ", "é é".
    let g = build_with_vocabulary("ééé é", 3, 3, &mut vocab);
    assert_eq!(g.len(), 3);
}

/// A graph from explicit edges over ids.
fn graph(edges: &[(u32, u32, f64)]) -> NGramGraph {
    let mut g = NGramGraph::new();
    for &(a, b, w) in edges {
        g.add(a, b, w);
    }
    g
}

#[test]
fn update_operator() {
    // G1 {x: 2, y: 1}, G2 {x: 4, z: 3}, l = 0.5:
    // x: 2 + (4 − 2)·0.5 = 3; y: 1 + (0 − 1)·0.5 = 0.5; z: 0 + (3 − 0)·0.5 = 1.5.
    let (x, y, z) = ((0, 1), (1, 2), (2, 3));
    let g1 = graph(&[(x.0, x.1, 2.0), (y.0, y.1, 1.0)]);
    let g2 = graph(&[(x.0, x.1, 4.0), (z.0, z.1, 3.0)]);
    let u = update(&g1, &g2, 0.5);
    assert_eq!(u.len(), 3);
    assert!(close(u.weight(x.0, x.1), 3.0));
    assert!(close(u.weight(y.0, y.1), 0.5));
    assert!(close(u.weight(z.0, z.1), 1.5));
    // Edges are undirected: {1,0} is {0,1}.
    assert!(close(u.weight(x.1, x.0), 3.0));
    // l = 1 takes G2's weights; G1-only edges drop to 0 and are removed.
    let u1 = update(&g1, &g2, 1.0);
    assert_eq!(u1, g2);
    // l = 0 ignores G2.
    assert_eq!(update(&g1, &g2, 0.0), g1);
}

#[test]
fn value_size_and_normalized_similarity() {
    // G1: e1 = 2, e2 = 1, e3 = 4 (|G1| = 3); G2: e1 = 1, e3 = 2, e4 = 5, e5 = 1 (|G2| = 4).
    // Shared e1: 1/2, e3: 2/4 → Σ VR = 1.0; VS = 1.0 / max(3, 4) = 0.25.
    // SS = 3/4; NVS = 0.25 / 0.75 = 1/3.
    let g1 = graph(&[(0, 1, 2.0), (1, 2, 1.0), (2, 3, 4.0)]);
    let g2 = graph(&[(1, 0, 1.0), (3, 2, 2.0), (4, 5, 5.0), (5, 6, 1.0)]);
    assert!(close(value_similarity(&g1, &g2), 0.25));
    assert!(close(value_similarity(&g2, &g1), 0.25));
    assert!(close(size_similarity(&g1, &g2), 0.75));
    assert!(close(normalized_value_similarity(&g1, &g2), 1.0 / 3.0));
    // Identical graphs: VS = NVS = 1.
    assert!(close(value_similarity(&g1, &g1), 1.0));
    assert!(close(normalized_value_similarity(&g2, &g2), 1.0));
    // An empty graph: all 0, never NaN.
    let empty = NGramGraph::new();
    assert_eq!(value_similarity(&g1, &empty), 0.0);
    assert_eq!(size_similarity(&empty, &empty), 0.0);
    assert_eq!(normalized_value_similarity(&empty, &g1), 0.0);
}

#[test]
fn memog_uses_all_references_unlike_autosummeng() {
    // Edges a = {0,1}, b = {1,2}, c = {2,3}. S {a: 1, b: 1}; R1 {a, b}, R2 {a, c}, R3 {a, b},
    // all weights 1.
    // AutoSummENG: VS(S,R1) = 2/2 = 1, VS(S,R2) = 1/2, VS(S,R3) = 1 → mean 2.5/3 = 5/6.
    // Merged: after R2 (l = 1/2) a 1, b 0.5, c 0.5; after R3 (l = 1/3)
    // a 1, b 0.5 + 0.5/3 = 2/3, c 0.5 − 0.5/3 = 1/3 (the edge-wise mean). |M| = 3.
    // MeMoG = (1/1 + (2/3)/1) / 3 = 5/9. (The buggy wrapper would give VS(S,R3) = 1.)
    // NPowER = (5.2905·5/6 + 3.0053·5/9 + 0.5866)/10
    //        = (4.408750 + 1.669611 + 0.5866)/10 = 0.6664961.
    let (a, b, c) = ((0, 1), (1, 2), (2, 3));
    let s = graph(&[(a.0, a.1, 1.0), (b.0, b.1, 1.0)]);
    let r1 = graph(&[(a.0, a.1, 1.0), (b.0, b.1, 1.0)]);
    let r2 = graph(&[(a.0, a.1, 1.0), (c.0, c.1, 1.0)]);
    let r3 = r1.clone();
    let refs = [r1, r2, r3];
    let autosummeng: f64 =
        refs.iter().map(|r| value_similarity(&s, r)).sum::<f64>() / refs.len() as f64;
    assert!(close(autosummeng, 5.0 / 6.0));
    let merged = merge(&refs);
    assert_eq!(merged.len(), 3);
    assert!(close(merged.weight(b.0, b.1), 2.0 / 3.0));
    assert!(close(merged.weight(c.0, c.1), 1.0 / 3.0));
    let memog = value_similarity(&s, &merged);
    assert!(close(memog, 5.0 / 9.0));
    assert!((npower(autosummeng, memog) - 0.6664961).abs() < 1e-6);
}

fn toy_topic() -> Topic {
    let mut topic = Topic::new("t1");
    topic.documents.push(Document::new("d1", "the cat sat"));
    topic.references.push(Reference::new("r1", "the cat sat"));
    topic
        .references
        .push(Reference::new("r2", "a cat sat down"));
    topic.summaries.push(Summary::new("s1", "the cat sat"));
    topic.summaries.push(Summary::new("s2", "zzzz"));
    topic.summaries.push(Summary::new("s3", ""));
    topic
}

#[test]
fn graph_class_rows() {
    let class = Graph::new(GraphOptions::default());
    let names = class.feature_names();
    assert_eq!(names[0], "graph.autosummeng");
    assert_eq!(names.len(), 7);
    assert!(!class.needs_references());
    let topic = toy_topic();
    let rows = class.extract(&TopicContext::new(&topic));
    assert_eq!(rows.len(), 3);
    let s1 = rows[0].as_ref().unwrap();
    // s1 equals r1, so its VS to r1 is 1 and its mean over two references lies in (0.5, 1).
    assert!(s1[0] > 0.5 && s1[0] < 1.0, "autosummeng {}", s1[0]);
    // s1 is the input itself: VS = NVS = 1.
    assert!(close(s1[5], 1.0), "input_vs {}", s1[5]);
    assert!(close(s1[6], 1.0), "input_nvs {}", s1[6]);
    assert!(close(s1[2], npower(s1[0], s1[1])));
    // s2 shares nothing; s3 is empty: all 0, not NaN.
    for row in [&rows[1], &rows[2]] {
        let row = row.as_ref().unwrap();
        assert!(row[0] == 0.0 && row[1] == 0.0 && row[5] == 0.0 && row[6] == 0.0);
    }

    // The class (one shared edge index for all references) agrees with the pairwise operators.
    let mut vocab = NGramVocabulary::new();
    let g = |t: &str, v: &mut NGramVocabulary| build_with_vocabulary(t, 3, 3, v);
    let s = g("the cat sat", &mut vocab);
    let refs = [
        g("the cat sat", &mut vocab),
        g("a cat sat down", &mut vocab),
    ];
    let mean_vs = (value_similarity(&s, &refs[0]) + value_similarity(&s, &refs[1])) / 2.0;
    let mean_nvs = (normalized_value_similarity(&s, &refs[0])
        + normalized_value_similarity(&s, &refs[1]))
        / 2.0;
    let merged = merge(&refs);
    assert!(close(s1[0], mean_vs));
    assert!(close(s1[1], value_similarity(&s, &merged)));
    assert!(close(s1[3], mean_nvs));
    assert!(close(s1[4], normalized_value_similarity(&s, &merged)));
    assert!(
        s1[1] < s1[0],
        "the merged graph is larger, so MeMoG < AutoSummENG here"
    );

    // Without references: reference-based values NaN, input values real.
    let mut no_refs = toy_topic();
    no_refs.references.clear();
    let rows = class.extract(&TopicContext::new(&no_refs));
    let s1 = rows[0].as_ref().unwrap();
    assert!(s1[..5].iter().all(|v| v.is_nan()));
    assert!(close(s1[6], 1.0));
}

#[test]
fn summeval_graph_tesla_surface_values_finite_and_in_range() {
    let Some(path) = common::data_or_skip(
        "summeval_graph_tesla_surface_values_finite_and_in_range",
        "summeval/summeval.jsonl",
    ) else {
        return;
    };
    let topics = common::load_summeval(&path);
    assert_eq!(topics.len(), 100);
    let n_summaries: usize = topics.iter().map(|t| t.summaries.len()).sum();
    assert_eq!(n_summaries, 1600);
    let classes: Vec<Box<dyn FeatureClass>> = vec![
        Box::new(Graph::new(GraphOptions::default())),
        Box::new(Tesla::new(TeslaOptions::default())),
        Box::new(Surface::new(SurfaceOptions::default())),
    ];
    for class in &classes {
        let names = class.feature_names();
        let start = Instant::now();
        let mut rows = Vec::new();
        for topic in &topics {
            rows.extend(class.extract(&TopicContext::new(topic)));
        }
        let elapsed = start.elapsed();
        println!(
            "{}: {} summaries × {} features in {:.3} s",
            class.name(),
            rows.len(),
            names.len(),
            elapsed.as_secs_f64()
        );
        assert_eq!(rows.len(), n_summaries);
        let mut means = vec![0.0; names.len()];
        for row in &rows {
            let row = row.as_ref().expect("SummEval has references: no None rows");
            assert_eq!(row.len(), names.len());
            for ((name, &v), mean) in names.iter().zip(row).zip(means.iter_mut()) {
                assert!(v.is_finite(), "{name} = {v}");
                let unbounded = name.ends_with("_tokens")
                    || name.ends_with("_chars")
                    || name.ends_with("compression")
                    || name.ends_with("density");
                if unbounded {
                    assert!(v >= 0.0, "{name} = {v}");
                } else {
                    assert!((0.0..=1.0 + 1e-9).contains(&v), "{name} = {v}");
                }
                *mean += v / rows.len() as f64;
            }
        }
        for (name, mean) in names.iter().zip(&means) {
            println!("  mean {name} = {mean:.4}");
        }
    }
}

/// The class builds one edge index per topic (n-grams packed as integers for rank ≤ 3, interned
/// above) and counts summary edges per index row; its rows must equal the pairwise operators
/// for other ranks and windows too, with several references, several input documents (merged)
/// and summaries that repeat edges or use n-grams the topic never does.
#[test]
fn class_rows_equal_the_pairwise_operators_for_any_rank_and_window() {
    let mut topic = Topic::new("t");
    topic
        .documents
        .push(Document::new("d1", "the cat sat on the mat. the cat sat."));
    topic
        .documents
        .push(Document::new("d2", "a dog barked at the cat on the mat"));
    for (k, r) in [
        "the cat sat on the mat",
        "a cat sat down",
        "dogs bark; cats sit",
        "ééé é",
    ]
    .iter()
    .enumerate()
    {
        topic.references.push(Reference::new(format!("r{k}"), *r));
    }
    let summaries = [
        "the cat sat on the mat",
        "cat cat cat cat",
        "qqqq xyz ééé",
        "ab",
        "",
    ];
    for (k, s) in summaries.iter().enumerate() {
        topic.summaries.push(Summary::new(format!("s{k}"), *s));
    }
    for (rank, window) in [(3, 3), (1, 2), (2, 1), (4, 3), (5, 4)] {
        let class = Graph::new(GraphOptions { rank, window });
        let rows = class.extract(&TopicContext::new(&topic));
        let mut vocab = NGramVocabulary::new();
        let mut g = |t: &str| build_with_vocabulary(t, rank, window, &mut vocab);
        let refs: Vec<NGramGraph> = topic.references.iter().map(|r| g(&r.text)).collect();
        let docs: Vec<NGramGraph> = topic.documents.iter().map(|d| g(&d.text)).collect();
        let (merged_refs, merged_docs) = (merge(&refs), merge(&docs));
        for (summary, row) in summaries.iter().zip(&rows) {
            let s = g(summary);
            let n = refs.len() as f64;
            let autosummeng = refs.iter().map(|r| value_similarity(&s, r)).sum::<f64>() / n;
            let autosummeng_nvs = refs
                .iter()
                .map(|r| normalized_value_similarity(&s, r))
                .sum::<f64>()
                / n;
            let memog = value_similarity(&s, &merged_refs);
            let expected = [
                autosummeng,
                memog,
                npower(autosummeng, memog),
                autosummeng_nvs,
                normalized_value_similarity(&s, &merged_refs),
                value_similarity(&s, &merged_docs),
                normalized_value_similarity(&s, &merged_docs),
            ];
            let row = row.as_ref().unwrap();
            for (k, (&got, want)) in row.iter().zip(expected).enumerate() {
                assert!(
                    (got - want).abs() < 1e-12,
                    "rank {rank} window {window} summary {summary:?} feature {k}: {got} vs {want}"
                );
            }
        }
        // The first summary equals a reference: its values are far from 0.
        assert!(
            rows[0].as_ref().unwrap()[0] > 0.2,
            "rank {rank} window {window}"
        );
    }
}

#[test]
fn the_graph_reads_no_line_layout() {
    // One text laid out four ways: as a paragraph, a sentence per line, with blank lines and
    // indents, with tabs and doubled spaces. The graph reads each as the paragraph.
    let layouts = [
        "The council met. It approved the budget.",
        "The council met.\nIt approved the budget.",
        "\n  The council met.\n\n  It approved the budget.\n",
        "The\tcouncil  met.   It approved the budget. ",
    ];
    let mut topic = Topic::new("t");
    topic.documents.push(Document::new(
        "d",
        "The council met on Monday.\nIt approved the budget after a long debate.",
    ));
    topic.references.push(Reference::new(
        "r",
        "The council approved\nthe budget on Monday.",
    ));
    for (k, text) in layouts.iter().enumerate() {
        topic.summaries.push(Summary::new(format!("s{k}"), *text));
    }
    let mut paragraph_topic = topic.clone();
    for summary in &mut paragraph_topic.summaries {
        summary.text = layouts[0].to_string();
    }
    paragraph_topic.documents[0].text = topic.documents[0].text.replace('\n', " ");
    paragraph_topic.references[0].text = topic.references[0].text.replace('\n', " ");
    for (rank, window) in [(3, 3), (5, 4)] {
        let class = Graph::new(GraphOptions { rank, window });
        let rows = class.extract(&TopicContext::new(&topic));
        let paragraph = class.extract(&TopicContext::new(&paragraph_topic));
        for (k, (row, want)) in rows.iter().zip(&paragraph).enumerate() {
            let (row, want) = (row.as_ref().unwrap(), want.as_ref().unwrap());
            assert!(want[0] > 0.1 && want[5] > 0.1, "{want:?}");
            for (got, want) in row.iter().zip(want) {
                assert!(
                    (got - want).abs() < 1e-12,
                    "rank {rank} layout {:?}: {row:?} vs {want:?}",
                    layouts[k]
                );
            }
        }
    }
}
