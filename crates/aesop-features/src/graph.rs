//! The `graph` feature class: character n-gram graphs, AutoSummENG, MeMoG and NPowER
//! (Giannakopoulos & Karkaletsis 2011).
//!
//! # What is implemented
//! * **Graph** ([`build`]): the vertices are the character n-grams of rank `rank` taken at every
//!   character position (Algorithm 1 of the paper: overlapping, shifted by one character, no
//!   preprocessing: case, spaces and punctuation are kept). The text is read as every class
//!   reads it (`\n` line breaks, NFC, one space between words: `Topic::with_canonical_text`)
//!   and as one line ([`as_one_line`]): a line break is read as a space, so the layout of
//!   lines changes no graph. Positions count Unicode scalar values. Two n-gram occurrences
//!   are neighbours when the distance between their first characters is between 1 and `window`
//!   (the paper's D_win). The graph is symmetric
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
//! [`value_similarity`]'s. That index is filled in one pass over the topic's texts, keyed by the
//! n-grams themselves (for rank ≤ 3 their characters packed in an integer, so no string is
//! hashed), and the merged graphs' means are taken from its per-graph counts. A summary's
//! edge occurrences are looked up there one by one and counted per row.

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
    if window == 0 {
        return graph;
    }
    let ids: Vec<u32> = char_ngrams(text, rank)
        .into_iter()
        .map(&mut intern)
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

/// `text` as one line, the way the class reads it: each run of white space (a line break
/// among them) one space. Every class reads texts spaced as a reader sees them
/// ([`Topic::with_canonical_text`]); the graph also reads no line layout, so a summary written
/// one sentence per line has the graph of the same sentences as a paragraph (REALSumm writes
/// its summaries and references so, the other sets as paragraphs).
fn as_one_line(text: &str) -> std::borrow::Cow<'_, str> {
    let white = |b: &u8| char::from(*b).is_whitespace();
    let bytes = text.as_bytes();
    let one_line = text.is_ascii()
        && !bytes.first().is_some_and(white)
        && !bytes.last().is_some_and(white)
        && bytes.iter().all(|b| *b == b' ' || !white(b))
        && !text.contains("  ");
    if one_line {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut line = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    std::borrow::Cow::Owned(line)
}

/// Vertex keys of a text's n-grams, one per character position: the n-gram's characters packed
/// 21 bits each (a Unicode scalar value fits) when `rank` ≤ 3, so the key is the n-gram itself
/// and no string is hashed; else an id from `intern`. Empty when the text is shorter than
/// `rank` or `rank` is 0.
fn vertex_keys<'t>(text: &'t str, rank: usize, intern: impl FnMut(&'t str) -> u64) -> Vec<u64> {
    if rank == 0 {
        return Vec::new();
    }
    if rank <= PACKED_MAX_RANK {
        let mask = (1u64 << (CHAR_BITS * rank)) - 1;
        let mut key = 0u64;
        let mut keys = Vec::with_capacity(text.len());
        for (k, c) in text.chars().enumerate() {
            key = ((key << CHAR_BITS) | u64::from(u32::from(c))) & mask;
            if k + 1 >= rank {
                keys.push(key);
            }
        }
        return keys;
    }
    char_ngrams(text, rank).into_iter().map(intern).collect()
}

/// The n-grams of `rank` characters (Unicode scalar values) of `text`, one per start position;
/// none when the text is shorter than `rank` or `rank` is 0.
fn char_ngrams(text: &str, rank: usize) -> Vec<&str> {
    if rank == 0 {
        return Vec::new();
    }
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = bounds.len() - 1;
    if chars < rank {
        return Vec::new();
    }
    (0..=chars - rank)
        .map(|k| &text[bounds[k]..bounds[k + rank]])
        .collect()
}

/// Bits per packed character (Unicode scalar values are below 2^21).
const CHAR_BITS: usize = 21;
/// The largest rank whose n-grams pack into a `u64`.
const PACKED_MAX_RANK: usize = 3;

/// Calls `edge` with the key of every neighbouring pair of n-gram occurrences (start positions
/// 1..=`window` apart): the two vertex keys, smaller first, packed in a `u128`.
fn for_each_edge(vertices: &[u64], window: usize, mut edge: impl FnMut(u128)) {
    for (i, &a) in vertices.iter().enumerate() {
        for &b in vertices.iter().skip(i + 1).take(window) {
            let (low, high) = if a <= b { (a, b) } else { (b, a) };
            edge((u128::from(low) << 64) | u128::from(high));
        }
    }
}

/// Per-topic graphs, built once and shared between calls. Every comparison graph (each
/// reference, the merged references, the merged input) is a column of one edge index, so a
/// summary edge is looked up once for all of them instead of once per graph. The index keeps
/// occurrence counts; the merged columns' weights are the edge-wise means that [`merge`]
/// computes (sum over graphs / number of graphs, which [`merge`]'s running update reaches up to
/// rounding).
struct TopicGraphs {
    rank: usize,
    window: usize,
    /// N-gram ids when `rank` is too large to pack (see [`vertex_keys`]).
    vocabulary: NGramVocabulary,
    /// Edge key → row. The first rows, one per row of `counts`, are the edges some reference
    /// has; the others are edges of the input alone (two in five on SummEval, whose topics
    /// have 11 references; more where a topic has fewer), counted in `input_only`.
    rows: HashMap<u128, u32, FastState>,
    /// Row-major occurrence counts, `columns` per row: one column per reference, then the sum
    /// over the references, then the sum over the input documents (0 = edge absent).
    counts: Vec<u32>,
    /// Occurrences in the input of each input-only edge (row `counts.len() / columns + i`).
    input_only: Vec<u32>,
    /// |G| of each column's graph.
    sizes: Vec<usize>,
    columns: usize,
    n_references: usize,
    n_documents: usize,
}

/// The most edges [`TopicGraphs::build`] reserves room for before it has seen them.
const MAX_RESERVED_EDGES: usize = 1 << 18;

/// min(1, c)/max(1, c) = 1/c for small counts c: the ratio of an edge the summary has once.
static UNIT_RATIOS: std::sync::LazyLock<[f64; 256]> = std::sync::LazyLock::new(|| {
    let mut ratios = [0.0; 256];
    for (c, r) in ratios.iter_mut().enumerate().skip(1) {
        *r = 1.0 / c as f64;
    }
    ratios
});

/// The value ratio min(w1, w2)/max(w1, w2) of an edge in both graphs.
fn value_ratio(w1: f64, w2: f64) -> f64 {
    w1.min(w2) / w1.max(w2)
}

impl TopicGraphs {
    fn build(topic: &Topic, rank: usize, window: usize) -> TopicGraphs {
        let n_references = topic.references.len();
        let n_documents = topic.documents.len();
        let columns = n_references + 2;
        let (reference_sum_column, input_column) = (n_references, n_references + 1);
        // Sized once from the number of edge occurrences (an upper bound on distinct edges; about
        // two in three are distinct in news text), so the index is not rebuilt as it grows.
        // Capped, so a huge document does not reserve memory it may not need.
        let reference_occurrences: usize =
            topic.references.iter().map(|r| r.text.len() * window).sum();
        let input_occurrences: usize = topic.documents.iter().map(|d| d.text.len() * window).sum();
        let expected_edges =
            ((reference_occurrences + input_occurrences) * 2 / 3).min(MAX_RESERVED_EDGES);
        let expected_reference_edges = (reference_occurrences * 2 / 3).min(MAX_RESERVED_EDGES);
        let mut rows: HashMap<u128, u32, FastState> =
            HashMap::with_capacity_and_hasher(expected_edges, FastState::default());
        let mut counts: Vec<u32> = Vec::with_capacity(expected_reference_edges * columns);
        let mut vocabulary = NGramVocabulary::new();
        // Each edge occurrence of `text` with the row of its key (a new key gets the next row).
        let mut rows_of = |text: &str, on_row: &mut dyn FnMut(usize, bool)| {
            let text = as_one_line(text);
            let vertices = vertex_keys(&text, rank, |ngram| u64::from(vocabulary.intern(ngram)));
            for_each_edge(&vertices, window, |key| {
                let next = rows.len() as u32;
                let row = *rows.entry(key).or_insert(next);
                on_row(row as usize, row == next);
            });
        };
        // The references first, so that every edge a reference has gets a full row.
        for (column, reference) in topic.references.iter().enumerate() {
            rows_of(&reference.text, &mut |row, new| {
                if new {
                    counts.resize(counts.len() + columns, 0);
                }
                counts[row * columns + column] += 1;
                counts[row * columns + reference_sum_column] += 1;
            });
        }
        let reference_rows = counts.len() / columns;
        let mut input_only: Vec<u32> = Vec::new();
        for document in &topic.documents {
            rows_of(&document.text, &mut |row, new| {
                if row < reference_rows {
                    counts[row * columns + input_column] += 1;
                } else if new {
                    input_only.push(1);
                } else {
                    input_only[row - reference_rows] += 1;
                }
            });
        }
        let mut sizes: Vec<usize> = (0..columns)
            .map(|c| {
                counts
                    .chunks_exact(columns)
                    .filter(|row| row[c] > 0)
                    .count()
            })
            .collect();
        sizes[input_column] += input_only.len();
        TopicGraphs {
            rank,
            window,
            vocabulary,
            rows,
            counts,
            input_only,
            sizes,
            columns,
            n_references,
            n_documents,
        }
    }

    /// (VS, NVS) of the graph of summary `text` to every column graph; the same values as
    /// [`value_similarity`] and [`normalized_value_similarity`]. Each edge occurrence is looked
    /// up in the topic index once: matched edges are counted per index row, edges the topic
    /// lacks are kept aside only to count them towards |G|. N-grams the topic never uses get
    /// fresh ids above its vocabulary (when ids are used at all).
    fn similarities(&self, text: &str, scratch: &mut SummaryScratch) -> Vec<(f64, f64)> {
        let base = self.vocabulary.len() as u64;
        let text = as_one_line(text);
        let mut unseen_ngrams: HashMap<&str, u64, FastState> = HashMap::default();
        let vertices = vertex_keys(&text, self.rank, |ngram| {
            self.vocabulary
                .get(ngram)
                .map(u64::from)
                .unwrap_or_else(|| {
                    let next = base + unseen_ngrams.len() as u64;
                    *unseen_ngrams.entry(ngram).or_insert(next)
                })
        });
        let SummaryScratch {
            counts,
            touched,
            unseen,
        } = scratch;
        counts.resize(self.rows.len(), 0);
        if self.window > 0 {
            for_each_edge(&vertices, self.window, |key| match self.rows.get(&key) {
                Some(&row) => {
                    let count = &mut counts[row as usize];
                    if *count == 0 {
                        touched.push(row);
                    }
                    *count += 1;
                }
                None => unseen.push(key),
            });
        }
        unseen.sort_unstable();
        unseen.dedup();
        let summary_size = touched.len() + unseen.len();
        unseen.clear();

        let (columns, n_references) = (self.columns, self.n_references);
        let mut ratio_sums = vec![0.0; columns];
        let unit_ratios = &*UNIT_RATIOS;
        let reference_rows = self.counts.len() / columns;
        for &row in touched.iter() {
            let row = row as usize;
            let ws = std::mem::take(&mut counts[row]);
            if row >= reference_rows {
                // An edge of the input alone: no reference (nor their merge) has it.
                let input = f64::from(self.input_only[row - reference_rows]);
                ratio_sums[n_references + 1] +=
                    value_ratio(f64::from(ws), input / self.n_documents as f64);
                continue;
            }
            let start = row * columns;
            let topic_counts = &self.counts[start..start + columns];
            let (per_reference, sums) = topic_counts.split_at(n_references);
            if ws == 1 {
                // The common case: 1/c for a reference's count c, from the table.
                for (sum, &c) in ratio_sums.iter_mut().zip(per_reference) {
                    *sum += match unit_ratios.get(c as usize) {
                        Some(&r) => r,
                        None => 1.0 / f64::from(c),
                    };
                }
            } else {
                let ws = f64::from(ws);
                for (sum, &c) in ratio_sums.iter_mut().zip(per_reference) {
                    if c > 0 {
                        *sum += value_ratio(ws, f64::from(c));
                    }
                }
            }
            let ws = f64::from(ws);
            if sums[0] > 0 {
                let merged = f64::from(sums[0]) / n_references as f64;
                ratio_sums[n_references] += value_ratio(ws, merged);
            }
            if sums[1] > 0 {
                let input = f64::from(sums[1]) / self.n_documents as f64;
                ratio_sums[n_references + 1] += value_ratio(ws, input);
            }
        }
        touched.clear();
        ratio_sums
            .iter()
            .zip(&self.sizes)
            .map(|(&sum, &size)| {
                let (small, large) = (summary_size.min(size), summary_size.max(size));
                if small == 0 {
                    (0.0, 0.0)
                } else {
                    (sum / large as f64, sum / small as f64)
                }
            })
            .collect()
    }
}

/// Buffers for [`TopicGraphs::similarities`], reused across a topic's summaries.
#[derive(Default)]
struct SummaryScratch {
    /// Occurrences of each topic edge in the summary (all 0 between calls).
    counts: Vec<u32>,
    /// Rows with a non-zero count, in first-seen order.
    touched: Vec<u32>,
    /// Keys of the summary edges the topic lacks.
    unseen: Vec<u128>,
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

    fn summary_row(
        &self,
        graphs: &TopicGraphs,
        text: &str,
        scratch: &mut SummaryScratch,
    ) -> Vec<f64> {
        let sims = graphs.similarities(text, scratch);
        let n = graphs.n_references;
        let (autosummeng, memog, autosummeng_nvs, memog_nvs) = if n == 0 {
            (f64::NAN, f64::NAN, f64::NAN, f64::NAN)
        } else {
            let vs_sum: f64 = sims[..n].iter().map(|p| p.0).sum();
            let nvs_sum: f64 = sims[..n].iter().map(|p| p.1).sum();
            (vs_sum / n as f64, sims[n].0, nvs_sum / n as f64, sims[n].1)
        };
        let (input_vs, input_nvs) = if graphs.n_documents > 0 {
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
    options: &["graph_rank", "graph_window"],
    partial_options: &[],
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
        let mut scratch = SummaryScratch::default();
        ctx.topic
            .summaries
            .iter()
            .map(|s| Some(self.summary_row(&graphs, &s.text, &mut scratch)))
            .collect()
    }
}
