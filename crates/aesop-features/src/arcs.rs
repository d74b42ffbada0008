//! The `arcs` feature class (reference-free): dependency arcs of the summary that no sentence of
//! its source makes, a lexical stand-in for dependency-level entailment (Goyal & Durrett 2020).
//!
//! Why: the other consistency signals (`surface.novel_*`, `neural.unsupported_share`) see words
//! the source lacks. A summary that swaps roles ("Merson was brought on", where the source
//! brought on Townsend) uses only the source's words; its error is in how they are joined. On
//! the visible consistency columns the share of such arcs orders summaries one way on every set
//! (docs/PROBES.md, "Dependency arcs the source never makes"), where word novelty reverses on
//! SummEval-OP.
//!
//! # Features ([`FEATURES`])
//! An arc is (head word, relation without subtype, dependent word), words lowercased; arcs of
//! function relations (`punct det case cc aux cop mark dep discourse expl`) are left out. A
//! summary arc is *checkable* when both its words occur in the source (and differ), and
//! *unsupported* when no source sentence holds the same arc.
//! * `arcs.unsupported_share`: unsupported arcs / checkable arcs.
//! * `arcs.unsupported_pair_share`: the same with relation and direction ignored (the two words
//!   are joined by no source arc).
//! * `arcs.core_unsupported_share`: the first, over the checkable arcs of argument and modifier
//!   relations (`nsubj obj iobj obl nmod amod nummod compound flat appos ccomp xcomp conj`)
//!   between content words (UPOS `NOUN PROPN VERB ADJ NUM ADV`).
//! * `arcs.checkable_share`: checkable arcs / arcs.
//!
//! Each is NaN when its denominator is 0 (an empty summary, one of novel words only). The
//! summary is parsed with its lowercase words cased as the source writes them
//! ([`aesop_text::truecase`]): most of SummEval's systems write lowercase, which the tagger
//! reads badly, and the source is parsed as written.

use super::analyses::{input_analyses, rows_or_missing, topic_analyses};
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, SharedKey, TopicContext};
use aesop_text::nlp::{Analysis, Pipeline};
use aesop_text::truecase::SourceCasing;
use std::collections::HashSet;

/// Feature names without the class prefix, in output order.
pub const FEATURES: &[&str] = &[
    "unsupported_share",
    "unsupported_pair_share",
    "core_unsupported_share",
    "checkable_share",
];

/// Relations that join function words to content: not claims a source can support.
const FUNCTION_RELATIONS: &[&str] = &[
    "punct",
    "det",
    "case",
    "cc",
    "aux",
    "cop",
    "mark",
    "dep",
    "discourse",
    "expl",
];
/// Argument and modifier relations: who did what to whom, and which.
const CORE_RELATIONS: &[&str] = &[
    "nsubj", "obj", "iobj", "obl", "nmod", "amod", "nummod", "compound", "flat", "appos", "ccomp",
    "xcomp", "conj",
];
const CONTENT_UPOS: &[&str] = &["NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"];

/// One dependency arc: head word, relation (no subtype), dependent word, both lowercased.
#[derive(Debug, Clone, PartialEq)]
struct DependencyArc {
    head: String,
    relation: String,
    dependent: String,
    /// An argument or modifier relation between content words.
    core: bool,
}

impl DependencyArc {
    /// The arc as one key (a word holds no whitespace, so tabs cannot collide).
    fn labelled(&self) -> String {
        format!("{}\t{}\t{}", self.head, self.relation, self.dependent)
    }
    /// The two words in a fixed order, for the relation- and direction-free comparison.
    fn pair(&self) -> String {
        let (a, b) = if self.head <= self.dependent {
            (&self.head, &self.dependent)
        } else {
            (&self.dependent, &self.head)
        };
        format!("{a}\t{b}")
    }
}

/// The arcs of an analysis, function relations and the root left out.
fn arcs(analysis: &Analysis) -> Vec<DependencyArc> {
    let mut out = Vec::new();
    for sentence in &analysis.sentences {
        for token in &sentence.tokens {
            let relation = token.base_deprel();
            if token.head == 0 || FUNCTION_RELATIONS.contains(&relation) {
                continue;
            }
            let Some(head) = sentence.tokens.get(token.head - 1) else {
                continue;
            };
            let core = CORE_RELATIONS.contains(&relation)
                && CONTENT_UPOS.contains(&token.upos.as_str())
                && CONTENT_UPOS.contains(&head.upos.as_str());
            out.push(DependencyArc {
                head: head.form.to_lowercase(),
                relation: relation.to_string(),
                dependent: token.form.to_lowercase(),
                core,
            });
        }
    }
    out
}

/// What the topic's source holds, computed once per topic.
#[derive(Debug, Default)]
struct SourceArcs {
    words: HashSet<String>,
    arcs: HashSet<String>,
    pairs: HashSet<String>,
    casing: SourceCasing,
}

impl SourceArcs {
    fn build(documents: &[Analysis], source_text: &str) -> SourceArcs {
        let mut source = SourceArcs {
            casing: SourceCasing::from_text(source_text),
            ..SourceArcs::default()
        };
        for analysis in documents {
            for sentence in &analysis.sentences {
                source
                    .words
                    .extend(sentence.tokens.iter().map(|t| t.form.to_lowercase()));
            }
            for arc in arcs(analysis) {
                source.pairs.insert(arc.pair());
                source.arcs.insert(arc.labelled());
            }
        }
        source
    }

    fn holds(&self, arc: &DependencyArc) -> bool {
        self.arcs.contains(&arc.labelled())
    }

    /// The class's row for one summary's analysis.
    fn row(&self, summary: &Analysis) -> Vec<f64> {
        let all = arcs(summary);
        let checkable: Vec<&DependencyArc> = all
            .iter()
            .filter(|a| {
                a.head != a.dependent
                    && self.words.contains(&a.head)
                    && self.words.contains(&a.dependent)
            })
            .collect();
        let share = |part: usize, whole: usize| {
            if whole == 0 {
                f64::NAN
            } else {
                part as f64 / whole as f64
            }
        };
        let unsupported = checkable.iter().filter(|a| !self.holds(a)).count();
        let unpaired = checkable
            .iter()
            .filter(|a| !self.pairs.contains(&a.pair()))
            .count();
        let core: Vec<&&DependencyArc> = checkable.iter().filter(|a| a.core).collect();
        let core_unsupported = core.iter().filter(|a| !self.holds(a)).count();
        vec![
            share(unsupported, checkable.len()),
            share(unpaired, checkable.len()),
            share(core_unsupported, core.len()),
            share(checkable.len(), all.len()),
        ]
    }
}

/// The `arcs` class.
#[derive(Debug, Default)]
pub struct Arcs;

pub static CLASS: ClassSpec = ClassSpec {
    name: "arcs",
    about: "dependency arcs of the summary that the source never makes",
    // Opt-in: no built-in uses it, and it parses every source (docs/PROBES.md, "Dependency
    // arcs the source never makes").
    default: false,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(Arcs)),
};

impl FeatureClass for Arcs {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }
    fn feature_names(&self) -> Vec<String> {
        FEATURES.iter().map(|f| format!("arcs.{f}")).collect()
    }
    fn start_loading(&self) {
        aesop_text::nlp::Pipeline::decode_in_background();
    }
    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        rows_or_missing(CLASS.name, ctx, rows(ctx))
    }
}

fn rows(ctx: &TopicContext) -> anyhow::Result<Vec<Vec<f64>>> {
    let documents = input_analyses(ctx)?;
    let source = ctx.shared(SharedKey::new("arcs.source"), |topic| {
        let text: Vec<&str> = topic.documents.iter().map(|d| d.text.as_str()).collect();
        SourceArcs::build(&documents.documents, &text.join("\n"))
    });
    // A summary the recasing leaves as it is keeps the analysis the other parse classes share;
    // that analysis of every summary is asked for only when some summary keeps its casing.
    let recased: Vec<(String, bool)> = ctx
        .topic
        .summaries
        .iter()
        .map(|summary| {
            let recased = source.casing.apply(&summary.text);
            let as_written: Vec<&str> = summary.text.split_whitespace().collect();
            let unchanged = recased == as_written.join(" ");
            (recased, unchanged)
        })
        .collect();
    let shared = if recased.iter().any(|(_, unchanged)| *unchanged) {
        Some(topic_analyses(ctx)?)
    } else {
        None
    };
    let pipeline = Pipeline::embedded()?;
    Ok(recased
        .iter()
        .enumerate()
        .map(|(i, (text, unchanged))| {
            let as_shared = shared
                .as_ref()
                .filter(|_| *unchanged)
                .and_then(|shared| shared.summaries.get(i));
            match as_shared {
                Some(analysis) => source.row(analysis),
                None => source.row(&pipeline.analyze(text)),
            }
        })
        .collect())
}
