//! The `graph` feature class: character n-gram graphs, AutoSummENG, MeMoG and NPowER
//! (Giannakopoulos & Karkaletsis 2011).
//!
//! # What is implemented
//! * **Graph** ([`build`]): the vertices are the character n-grams of rank `rank` taken at every
//!   character position (Algorithm 1 of the paper: overlapping, shifted by one character, no
//!   preprocessing at all: case, spaces and punctuation are kept). Positions count Unicode
//!   scalar values. Two n-gram occurrences are neighbours when the distance between their first
//!   characters is between 1 and `window` (the paper's D_win). The graph is symmetric
//!   (undirected): every pair of occurrences at positions `i < j ≤ i + window` adds 1 to the
//!   weight of the edge {S_i, S_j}. An n-gram that recurs within the window gives a self-loop
//!   edge {S, S}. |G| is the number of edges.
//! * **Update** ([`update`]): W(e) = W1(e) + (W2(e) − W1(e))·l with an absent edge weighing 0,
//!   so merging graph i with l = 1/i ([`merge`]) gives the edge-wise mean over all merged
//!   graphs (the "centroid" of the paper); edges whose weight becomes 0 are dropped.
//! * **Similarities**: value similarity [`value_similarity`] (VS), size similarity
//!   [`size_similarity`] (SS) and normalized value similarity [`normalized_value_similarity`]
//!   (NVS = VS/SS). All three are 0 when either graph has no edge. Edges are hashed (two
//!   interned n-gram ids packed in a `u64`), and VS walks the smaller graph and looks each edge
//!   up in the larger one: O(min(|G1|, |G2|)).
//!
//! # Features
//! * `graph.autosummeng`: mean VS of the summary graph to each reference graph.
//! * `graph.memog`: VS to the merged graph of ALL references (update operator, l = 1/i) — not
//!   the widely used Java wrapper, which returns the similarity to the last reference only.
//! * `graph.npower`: (5.2905·AutoSummENG + 3.0053·MeMoG + 0.5866)/10.
//! * `graph.autosummeng_nvs`, `graph.memog_nvs`: the same with NVS.
//! * `graph.input_vs`, `graph.input_nvs`: VS and NVS to the merged graph of the input
//!   documents (reference-free; NaN when the topic has no documents).
//!
//! The class mixes reference-based and reference-free features, so it is declared reference-free
//! (`needs_references() == false`): for a topic without references the rows are still computed,
//! with the five reference-based values NaN and the input values real.
//!
//! Reference and document graphs are built once per topic and shared through
//! [`TopicContext::shared`]. The class puts all of a topic's comparison graphs into one edge
//! index (edge → weight in each graph), so each summary edge is looked up once for all
//! references, the merged references and the input; the sums are the same as
//! [`value_similarity`]'s.

use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, SharedKey, TopicContext};
use aesop_corpus::Topic;
use std::collections::HashMap;

/// NPowER weights (Giannakopoulos & Karkaletsis 2011): a linear model fit on TAC.
const NPOWER_AUTOSUMMENG: f64 = 5.2905;
const NPOWER_MEMOG: f64 = 3.0053;
const NPOWER_INTERCEPT: f64 = 0.5866;

/// Options of the `graph` class.
#[derive(Debug, Clone)]
pub struct GraphOptions {
    /// Character n-gram rank (the paper's Lmin = Lmax = 3).
    pub rank: usize,
    /// Neighbourhood window D_win: maximum distance between the first characters of two
    /// neighbouring n-grams (3 in the paper).
    pub window: usize,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions { rank: 3, window: 3 }
    }
}

/// Hash-map state for our own integer ids and short n-grams: FxHash, since these keys are not
/// attacker-controlled and SipHash would dominate the cost of VS.
pub type FastState = rustc_hash::FxBuildHasher;

/// Interned n-gram labels: the vertex ids of every graph built with it.
#[derive(Debug, Default, Clone)]
pub struct NGramVocabulary {
    ids: HashMap<String, u32, FastState>,
    labels: Vec<String>,
}

impl NGramVocabulary {
    pub fn new() -> NGramVocabulary {
        NGramVocabulary::default()
    }
    /// The id of `ngram`, adding it when new.
    pub fn intern(&mut self, ngram: &str) -> u32 {
        if let Some(&id) = self.ids.get(ngram) {
            return id;
        }
        let id = self.labels.len() as u32;
        self.ids.insert(ngram.to_string(), id);
        self.labels.push(ngram.to_string());
        id
    }
    /// The id of `ngram` if it has been interned.
    pub fn get(&self, ngram: &str) -> Option<u32> {
        self.ids.get(ngram).copied()
    }
    /// The n-gram with id `id`.
    pub fn label(&self, id: u32) -> Option<&str> {
        self.labels.get(id as usize).map(String::as_str)
    }
    pub fn len(&self) -> usize {
        self.labels.len()
    }
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// An undirected, weighted n-gram graph. Only edges are stored: every vertex of a graph built
/// from text has at least one edge unless the text has a single n-gram, and the similarities
/// only look at edges.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct NGramGraph {
    edges: HashMap<u64, f64, FastState>,
}

/// The hash key of the undirected edge {a, b}: the smaller id in the high half.
fn edge_key(a: u32, b: u32) -> u64 {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    (u64::from(low) << 32) | u64::from(high)
}

impl NGramGraph {
    pub fn new() -> NGramGraph {
        NGramGraph::default()
    }
    /// |G|: the number of edges.
    pub fn len(&self) -> usize {
        self.edges.len()
    }
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }
    /// The weight of edge {a, b} (0 when absent).
    pub fn weight(&self, a: u32, b: u32) -> f64 {
        self.edges.get(&edge_key(a, b)).copied().unwrap_or(0.0)
    }
    /// Add `weight` to edge {a, b}.
    pub fn add(&mut self, a: u32, b: u32, weight: f64) {
        *self.edges.entry(edge_key(a, b)).or_insert(0.0) += weight;
    }
    /// Every edge as (smaller id, larger id, weight), in no particular order.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32, f64)> + '_ {
        self.edges
            .iter()
            .map(|(&key, &w)| ((key >> 32) as u32, key as u32, w))
    }
}

/// The n-gram graph of `text`: n-grams of `rank` characters at every position, an edge for
/// every pair of occurrences whose start positions differ by 1..=`window`, weighted by the
/// number of such pairs. `intern` maps an n-gram to its vertex id (the same n-gram must always
/// get the same id). Texts shorter than `rank` characters, `rank` 0 or `window` 0 give an
/// empty graph.
pub fn build<'t>(
    text: &'t str,
    rank: usize,
    window: usize,
    mut intern: impl FnMut(&'t str) -> u32,
) -> NGramGraph {
    let mut graph = NGramGraph::new();
    if rank == 0 || window == 0 {
        return graph;
    }
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = bounds.len() - 1;
    if chars < rank {
        return graph;
    }
    let ids: Vec<u32> = (0..=chars - rank)
        .map(|k| intern(&text[bounds[k]..bounds[k + rank]]))
        .collect();
    graph.edges.reserve(ids.len() * window);
    for (i, &a) in ids.iter().enumerate() {
        for &b in ids.iter().skip(i + 1).take(window) {
            graph.add(a, b, 1.0);
        }
    }
    graph
}

/// [`build`] with a vocabulary that grows with new n-grams.
pub fn build_with_vocabulary(
    text: &str,
    rank: usize,
    window: usize,
    vocabulary: &mut NGramVocabulary,
) -> NGramGraph {
    build(text, rank, window, |ngram| vocabulary.intern(ngram))
}

/// The update operator U(G1, G2, l): W(e) = W1(e) + (W2(e) − W1(e))·l over the union of the
/// edges (an absent edge weighs 0); edges left with weight 0 are dropped.
pub fn update(g1: &NGramGraph, g2: &NGramGraph, learning_factor: f64) -> NGramGraph {
    let mut merged = g1.clone();
    update_in_place(&mut merged, g2, learning_factor);
    merged
}

/// [`update`] that overwrites `g1` (no copy of the growing merged graph).
pub fn update_in_place(g1: &mut NGramGraph, g2: &NGramGraph, learning_factor: f64) {
    for (key, w1) in g1.edges.iter_mut() {
        let w2 = g2.edges.get(key).copied().unwrap_or(0.0);
        *w1 += (w2 - *w1) * learning_factor;
    }
    for (&key, &w2) in &g2.edges {
        // Edges already in g1 were updated above; only G2-only edges are left (W1 = 0).
        g1.edges.entry(key).or_insert(w2 * learning_factor);
    }
    g1.edges.retain(|_, w| *w != 0.0);
}

/// The merged ("centroid") graph of `graphs`: the first graph updated by the i-th with
/// l = 1/i, so every edge weighs its mean over the graphs. Empty input gives an empty graph.
pub fn merge(graphs: &[NGramGraph]) -> NGramGraph {
    let mut iter = graphs.iter();
    let Some(first) = iter.next() else {
        return NGramGraph::new();
    };
    let mut merged = first.clone();
    for (k, graph) in iter.enumerate() {
        let i = k + 2; // the second graph is the 2nd: l = 1/2
        update_in_place(&mut merged, graph, 1.0 / i as f64);
    }
    merged
}

/// Value similarity VS = Σ_{e ∈ G1∩G2} min(w1, w2)/max(w1, w2) / max(|G1|, |G2|); 0 when either
/// graph is empty. Walks the smaller graph: O(min(|G1|, |G2|)).
pub fn value_similarity(g1: &NGramGraph, g2: &NGramGraph) -> f64 {
    let (small, large) = if g1.len() <= g2.len() {
        (g1, g2)
    } else {
        (g2, g1)
    };
    if small.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    for (key, &ws) in &small.edges {
        if let Some(&wl) = large.edges.get(key) {
            sum += ws.min(wl) / ws.max(wl);
        }
    }
    sum / large.len() as f64
}

/// Size similarity SS = min(|G1|, |G2|)/max(|G1|, |G2|); 0 when either graph is empty.
pub fn size_similarity(g1: &NGramGraph, g2: &NGramGraph) -> f64 {
    let (small, large) = (g1.len().min(g2.len()), g1.len().max(g2.len()));
    if small == 0 {
        0.0
    } else {
        small as f64 / large as f64
    }
}

/// Normalized value similarity NVS = VS/SS (= Σ VR / min(|G1|, |G2|)); 0 when either graph is
/// empty.
pub fn normalized_value_similarity(g1: &NGramGraph, g2: &NGramGraph) -> f64 {
    let ss = size_similarity(g1, g2);
    if ss == 0.0 {
        0.0
    } else {
        value_similarity(g1, g2) / ss
    }
}

/// NPowER from AutoSummENG and MeMoG.
pub fn npower(autosummeng: f64, memog: f64) -> f64 {
    (NPOWER_AUTOSUMMENG * autosummeng + NPOWER_MEMOG * memog + NPOWER_INTERCEPT) / 10.0
}

/// Per-topic graphs, built once and shared between calls. Every comparison graph (each
/// reference, the merged references, the merged input) is a column of one edge index, so a
/// summary edge is looked up once for all of them instead of once per graph.
struct TopicGraphs {
    rank: usize,
    window: usize,
    vocabulary: NGramVocabulary,
    /// Edge key → row of `weights`.
    rows: HashMap<u64, u32, FastState>,
    /// Row-major edge weights, `columns` per row (0 = edge absent from that graph).
    weights: Vec<f64>,
    /// |G| of each column's graph.
    sizes: Vec<usize>,
    columns: usize,
    n_references: usize,
    has_input: bool,
}

impl TopicGraphs {
    fn build(topic: &Topic, rank: usize, window: usize) -> TopicGraphs {
        let mut vocabulary = NGramVocabulary::new();
        let references: Vec<NGramGraph> = topic
            .references
            .iter()
            .map(|r| build_with_vocabulary(&r.text, rank, window, &mut vocabulary))
            .collect();
        let documents: Vec<NGramGraph> = topic
            .documents
            .iter()
            .map(|d| build_with_vocabulary(&d.text, rank, window, &mut vocabulary))
            .collect();
        // Columns: each reference, the merged references, the merged input documents.
        let mut graphs: Vec<NGramGraph> = Vec::with_capacity(references.len() + 2);
        let merged_references = merge(&references);
        graphs.extend(references);
        graphs.push(merged_references);
        graphs.push(merge(&documents));
        let columns = graphs.len();
        let mut rows: HashMap<u64, u32, FastState> = HashMap::default();
        let mut weights: Vec<f64> = Vec::new();
        for (column, graph) in graphs.iter().enumerate() {
            for (&key, &w) in &graph.edges {
                let next = rows.len() as u32;
                let row = *rows.entry(key).or_insert(next) as usize;
                if row * columns >= weights.len() {
                    weights.resize((row + 1) * columns, 0.0);
                }
                weights[row * columns + column] = w;
            }
        }
        TopicGraphs {
            rank,
            window,
            vocabulary,
            rows,
            weights,
            sizes: graphs.iter().map(NGramGraph::len).collect(),
            columns,
            n_references: topic.references.len(),
            has_input: !documents.is_empty(),
        }
    }

    /// The graph of a summary over the topic vocabulary; n-grams the topic never uses get
    /// fresh ids above it (they cannot match, but still count towards |G|).
    fn summary_graph(&self, text: &str) -> NGramGraph {
        let base = self.vocabulary.len() as u32;
        let mut unseen: HashMap<&str, u32, FastState> = HashMap::default();
        build(text, self.rank, self.window, |ngram| {
            self.vocabulary.get(ngram).unwrap_or_else(|| {
                let next = base + unseen.len() as u32;
                *unseen.entry(ngram).or_insert(next)
            })
        })
    }

    /// (VS, NVS) of `summary` to every column graph; the same values as
    /// [`value_similarity`] and [`normalized_value_similarity`].
    fn similarities(&self, summary: &NGramGraph) -> Vec<(f64, f64)> {
        let mut ratio_sums = vec![0.0; self.columns];
        for (key, &ws) in &summary.edges {
            let Some(&row) = self.rows.get(key) else {
                continue;
            };
            let start = row as usize * self.columns;
            for (sum, &w) in ratio_sums
                .iter_mut()
                .zip(&self.weights[start..start + self.columns])
            {
                if w > 0.0 {
                    *sum += ws.min(w) / ws.max(w);
                }
            }
        }
        ratio_sums
            .iter()
            .zip(&self.sizes)
            .map(|(&sum, &size)| {
                let (small, large) = (summary.len().min(size), summary.len().max(size));
                if small == 0 {
                    (0.0, 0.0)
                } else {
                    (sum / large as f64, sum / small as f64)
                }
            })
            .collect()
    }
}

const FEATURES: &[&str] = &[
    "autosummeng",
    "memog",
    "npower",
    "autosummeng_nvs",
    "memog_nvs",
    "input_vs",
    "input_nvs",
];

/// The `graph` feature class.
pub struct Graph {
    opts: GraphOptions,
}

impl Graph {
    pub fn new(opts: GraphOptions) -> Graph {
        Graph { opts }
    }

    fn summary_row(&self, graphs: &TopicGraphs, text: &str) -> Vec<f64> {
        let summary = graphs.summary_graph(text);
        let sims = graphs.similarities(&summary);
        let n = graphs.n_references;
        let (autosummeng, memog, autosummeng_nvs, memog_nvs) = if n == 0 {
            (f64::NAN, f64::NAN, f64::NAN, f64::NAN)
        } else {
            let vs_sum: f64 = sims[..n].iter().map(|p| p.0).sum();
            let nvs_sum: f64 = sims[..n].iter().map(|p| p.1).sum();
            (vs_sum / n as f64, sims[n].0, nvs_sum / n as f64, sims[n].1)
        };
        let (input_vs, input_nvs) = if graphs.has_input {
            sims[n + 1]
        } else {
            (f64::NAN, f64::NAN)
        };
        vec![
            autosummeng,
            memog,
            npower(autosummeng, memog),
            autosummeng_nvs,
            memog_nvs,
            input_vs,
            input_nvs,
        ]
    }
}

/// The `graph` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "graph",
    about: "character n-gram graphs: AutoSummENG, MeMoG, NPowER",
    default: true,
    references: ReferenceUse::Some,
    batch_dependent: false,
    build: |o| Ok(Box::new(Graph::new(o.graph.clone()))),
};

impl FeatureClass for Graph {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("graph.{f}")).collect()
    }
    /// The input features need no references; the reference-based values are NaN for topics
    /// without references (see the module documentation).
    fn is_reference_free_feature(&self, name: &str) -> bool {
        name.starts_with("graph.input_")
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let (rank, window) = (self.opts.rank, self.opts.window);
        let shared = ctx.shared(SharedKey::new("graph.topic_graphs"), |topic| {
            TopicGraphs::build(topic, rank, window)
        });
        // The cache key is fixed; a second `graph` instance with other options in the same
        // context must not reuse graphs of the wrong rank or window.
        let graphs = if shared.rank == rank && shared.window == window {
            shared
        } else {
            std::sync::Arc::new(TopicGraphs::build(ctx.topic, rank, window))
        };
        ctx.topic
            .summaries
            .iter()
            .map(|s| Some(self.summary_row(&graphs, &s.text)))
            .collect()
    }
}
