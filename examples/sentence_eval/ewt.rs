//! UD English-EWT as a sentence-boundary benchmark: rebuild plain text from the `# text =` lines of
//! a CoNLL-U file and score a splitter's boundaries against the treebank's sentence ends.
//! Shared by examples/sentence_eval.rs and tests/sentences.rs.
#![allow(dead_code)]

use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

/// One document: paragraphs of sentence texts, from `# newdoc`, `# newpar` and `# text =`.
#[derive(Debug, Clone, Default)]
pub struct Document {
    pub paragraphs: Vec<Vec<String>>,
}

/// Read the documents of a CoNLL-U file.
pub fn read_conllu(path: &Path) -> std::io::Result<Vec<Document>> {
    Ok(parse_conllu(&std::fs::read_to_string(path)?))
}

/// Parse CoNLL-U comments into documents. A `# newpar` or `# newdoc` line may come before or
/// after the `# sent_id` of the sentence it opens (EWT puts `newpar` after it); what matters is
/// that it precedes that sentence's `# text =`.
pub fn parse_conllu(source: &str) -> Vec<Document> {
    let mut documents: Vec<Document> = Vec::new();
    let mut new_paragraph = false;
    for line in source.lines() {
        if line.starts_with("# newdoc") {
            documents.push(Document::default());
            new_paragraph = true;
        } else if line.starts_with("# newpar") {
            new_paragraph = true;
        } else if let Some(text) = line.strip_prefix("# text = ") {
            if documents.is_empty() {
                documents.push(Document::default());
            }
            let Some(document) = documents.last_mut() else {
                continue;
            };
            if new_paragraph || document.paragraphs.is_empty() {
                document.paragraphs.push(Vec::new());
                new_paragraph = false;
            }
            if let Some(paragraph) = document.paragraphs.last_mut() {
                paragraph.push(text.trim().to_string());
            }
        }
    }
    documents.retain(|d| !d.paragraphs.is_empty());
    documents
}

/// How sentences and paragraphs are joined into one text per document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Every sentence and paragraph joined with one space: no layout cue at all.
    Flat,
    /// Sentences joined with a space, paragraphs with one newline.
    Paragraphs,
}

/// A rebuilt document text with its gold boundaries.
#[derive(Debug, Clone)]
pub struct GoldText {
    pub text: String,
    /// Byte offsets just after each sentence's last character, except the document's last
    /// sentence (the end of the text is a boundary for every splitter).
    pub boundaries: Vec<usize>,
    /// The subset of `boundaries` that end a paragraph.
    pub paragraph_ends: HashSet<usize>,
}

pub fn rebuild(document: &Document, layout: Layout) -> GoldText {
    let mut text = String::new();
    let mut boundaries = Vec::new();
    let mut paragraph_ends = HashSet::new();
    for (p, paragraph) in document.paragraphs.iter().enumerate() {
        if p > 0 {
            text.push(match layout {
                Layout::Flat => ' ',
                Layout::Paragraphs => '\n',
            });
        }
        for (s, sentence) in paragraph.iter().enumerate() {
            if s > 0 {
                text.push(' ');
            }
            text.push_str(sentence);
            boundaries.push(text.len());
            if s + 1 == paragraph.len() {
                paragraph_ends.insert(text.len());
            }
        }
    }
    let end = text.len();
    boundaries.retain(|&b| b != end);
    paragraph_ends.remove(&end);
    GoldText {
        text,
        boundaries,
        paragraph_ends,
    }
}

/// Predicted boundaries from sentence end offsets: moved back over whitespace (so a sentence that
/// keeps its trailing space still matches), without the end of the text, deduplicated.
pub fn predicted_boundaries(text: &str, ends: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let content_end = text.trim_end().len();
    let mut out: Vec<usize> = ends
        .into_iter()
        .filter_map(|end| text.get(..end).map(|head| head.trim_end().len()))
        .filter(|&b| b > 0 && b < content_end)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// True positives, predicted count and gold count; precision, recall and F1 derive from them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub correct: usize,
    pub predicted: usize,
    pub gold: usize,
}

impl Counts {
    pub fn add(&mut self, other: Counts) {
        self.correct += other.correct;
        self.predicted += other.predicted;
        self.gold += other.gold;
    }
    pub fn precision(&self) -> f64 {
        ratio(self.correct, self.predicted)
    }
    pub fn recall(&self) -> f64 {
        ratio(self.correct, self.gold)
    }
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn ratio(numerator: usize, denominator: usize) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

/// Score predicted boundaries against gold; with `intra_paragraph`, boundaries at paragraph
/// ends are left out on both sides (they are given away by the layout).
pub fn score(gold: &GoldText, predicted: &[usize], intra_paragraph: bool) -> Counts {
    let keep = |b: &usize| !intra_paragraph || !gold.paragraph_ends.contains(b);
    let gold_set: HashSet<usize> = gold.boundaries.iter().copied().filter(keep).collect();
    let predicted: Vec<usize> = predicted.iter().copied().filter(keep).collect();
    Counts {
        correct: predicted.iter().filter(|b| gold_set.contains(b)).count(),
        predicted: predicted.len(),
        gold: gold_set.len(),
    }
}

/// A splitter under evaluation: sentence end offsets (bytes) of a text.
pub type Splitter = fn(&str) -> Vec<usize>;

pub fn ours(text: &str) -> Vec<usize> {
    aesop::text::sentences::sentence_spans(text)
        .into_iter()
        .map(|span| span.end)
        .collect()
}

pub fn ours_newlines(text: &str) -> Vec<usize> {
    let options = aesop::text::sentences::SplitOptions {
        newline_ends_sentence: true,
    };
    aesop::text::sentences::sentence_spans_with(text, options)
        .into_iter()
        .map(|span| span.end)
        .collect()
}

pub fn sentencex_en(text: &str) -> Vec<usize> {
    sentencex::get_sentence_boundaries("en", text)
        .into_iter()
        .map(|b| b.end_byte)
        .collect()
}

/// Score `splitter` on every document under `layout`.
pub fn evaluate(
    documents: &[Document],
    layout: Layout,
    splitter: Splitter,
    intra_paragraph: bool,
) -> Counts {
    let mut total = Counts::default();
    for document in documents {
        let gold = rebuild(document, layout);
        let predicted = predicted_boundaries(&gold.text, splitter(&gold.text));
        total.add(score(&gold, &predicted, intra_paragraph));
    }
    total
}

/// Errors of `splitter` under `layout`: (missed, spurious) boundaries as "left ‖ right" contexts.
pub fn errors(
    documents: &[Document],
    layout: Layout,
    splitter: Splitter,
) -> (Vec<String>, Vec<String>) {
    let (mut missed, mut spurious) = (Vec::new(), Vec::new());
    for document in documents {
        let gold = rebuild(document, layout);
        let predicted = predicted_boundaries(&gold.text, splitter(&gold.text));
        let predicted_set: HashSet<usize> = predicted.iter().copied().collect();
        let gold_set: HashSet<usize> = gold.boundaries.iter().copied().collect();
        for &b in &gold.boundaries {
            if !predicted_set.contains(&b) {
                missed.push(context(&gold.text, b));
            }
        }
        for &b in &predicted {
            if !gold_set.contains(&b) {
                spurious.push(context(&gold.text, b));
            }
        }
    }
    (missed, spurious)
}

fn context(text: &str, at: usize) -> String {
    let left: String = text[..at]
        .chars()
        .rev()
        .take(40)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let right: String = text[at..].chars().take(40).collect();
    format!("{left} ‖ {right}").replace('\n', "⏎")
}

pub fn range_ends(spans: &[Range<usize>]) -> Vec<usize> {
    spans.iter().map(|s| s.end).collect()
}
