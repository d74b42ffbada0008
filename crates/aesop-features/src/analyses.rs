//! The parses of a topic's texts, computed once per topic and shared by every parse-based
//! feature class through [`TopicContext::shared`]. Here rather than in `nlp/` so that the
//! tagger and parser know nothing of feature classes.

use super::{SharedKey, TopicContext};
use aesop_text::nlp::{Analysis, Pipeline};
use rayon::prelude::*;
use std::sync::Arc;

/// Analyses of the summaries of a topic, in the order of `Topic::summaries`. The input is
/// analysed separately ([`input_analyses`]) because most classes judge the summary alone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TopicAnalyses {
    pub summaries: Vec<Analysis>,
}

/// Analyses of a topic's documents, in corpus order. References are not analysed: no class
/// reads their parses, and eleven references per topic would cost as much as the documents.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputAnalyses {
    pub documents: Vec<Analysis>,
}

/// Key under which [`topic_analyses`] caches its result in the topic context.
pub const TOPIC_ANALYSES_KEY: SharedKey<TopicAnalyses> = SharedKey::new("nlp.analyses");
/// Key under which [`input_analyses`] caches its result in the topic context.
pub const INPUT_ANALYSES_KEY: SharedKey<InputAnalyses> = SharedKey::new("nlp.input_analyses");

// Per thread, so tests running in parallel (other classes analyse topics too) do not interfere;
// the analysis runs on the calling thread.
#[cfg(test)]
thread_local! {
    static TOPIC_ANALYSIS_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The topic's summaries, analysed once per topic and shared by every feature class that asks
/// (cached in the context under [`TOPIC_ANALYSES_KEY`]). Fails only if the embedded models
/// cannot be decoded.
pub fn topic_analyses(ctx: &TopicContext) -> anyhow::Result<Arc<TopicAnalyses>> {
    let pipeline = Pipeline::embedded()?;
    Ok(ctx.shared(TOPIC_ANALYSES_KEY, |topic| {
        #[cfg(test)]
        TOPIC_ANALYSIS_RUNS.with(|runs| runs.set(runs.get() + 1));
        let texts: Vec<&str> = topic.summaries.iter().map(|s| s.text.as_str()).collect();
        TopicAnalyses {
            summaries: analyze_all(pipeline, &texts, ctx.alone()),
        }
    }))
}

/// The analyses of `texts`, in order; `spread` (a topic worked on alone:
/// [`TopicContext::alone`]) spreads them over the threads.
fn analyze_all(pipeline: &Pipeline, texts: &[&str], spread: bool) -> Vec<Analysis> {
    if spread {
        texts.par_iter().map(|t| pipeline.analyze(t)).collect()
    } else {
        texts.iter().map(|t| pipeline.analyze(t)).collect()
    }
}

/// A parse-based class's rows for the topic, or, when the embedded NLP models cannot be loaded
/// (`rows` failed), every row missing after a note on stderr naming the class and the topic.
/// (The LM classes' counterpart is `neural::lm_rows_or_missing`.)
pub fn rows_or_missing(
    class: &str,
    ctx: &TopicContext,
    rows: anyhow::Result<Vec<Vec<f64>>>,
) -> Vec<super::FeatureRow> {
    match rows {
        Ok(rows) => rows.into_iter().map(Some).collect(),
        Err(e) => {
            aesop_core::eprintln_quiet!(
                "{class}: no analyses for topic {}: {e:#}",
                ctx.topic.topic
            );
            vec![None; ctx.topic.summaries.len()]
        }
    }
}

/// The topic's documents, analysed once per topic (cached under [`INPUT_ANALYSES_KEY`]).
pub fn input_analyses(ctx: &TopicContext) -> anyhow::Result<Arc<InputAnalyses>> {
    let pipeline = Pipeline::embedded()?;
    Ok(ctx.shared(INPUT_ANALYSES_KEY, |topic| {
        let texts: Vec<&str> = topic.documents.iter().map(|d| d.text.as_str()).collect();
        InputAnalyses {
            documents: analyze_all(pipeline, &texts, ctx.alone()),
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesop_corpus::{Document, Reference, Summary, Topic};

    fn topic() -> Topic {
        Topic {
            topic: "t1".to_string(),
            query: None,
            documents: vec![Document {
                id: "d1".to_string(),
                text: "The cat sat on the mat. It was happy.".to_string(),
                extra: Default::default(),
            }],
            references: vec![Reference {
                id: "A".to_string(),
                text: "A cat sat.".to_string(),
                extra: Default::default(),
            }],
            summaries: vec![
                Summary {
                    system: "1".to_string(),
                    text: "The cat was happy on the mat.".to_string(),
                    scores: Default::default(),
                    human: false,
                    extra: Default::default(),
                },
                Summary {
                    system: "2".to_string(),
                    text: String::new(),
                    scores: Default::default(),
                    human: false,
                    extra: Default::default(),
                },
            ],
            extra: Default::default(),
        }
    }

    #[test]
    fn topic_analyses_are_computed_once_and_shared() {
        let topic = topic();
        let ctx = TopicContext::new(&topic);
        let before = TOPIC_ANALYSIS_RUNS.with(std::cell::Cell::get);
        let first = topic_analyses(&ctx).expect("embedded models load");
        let second = topic_analyses(&ctx).expect("embedded models load");
        let after = TOPIC_ANALYSIS_RUNS.with(std::cell::Cell::get);
        assert_eq!(after - before, 1, "the topic was analysed more than once");
        assert!(Arc::ptr_eq(&first, &second));
        // One analysis per text, in corpus order; the document has two sentences, the empty
        // summary none.
        let inputs = input_analyses(&ctx).expect("embedded models load");
        assert!(Arc::ptr_eq(&inputs, &input_analyses(&ctx).expect("cached")));
        assert_eq!(inputs.documents.len(), 1);
        assert_eq!(inputs.documents[0].sentences.len(), 2);
        assert_eq!(inputs.documents[0].sentences[0].tokens[1].form, "cat");
        assert_eq!(first.summaries.len(), 2);
        assert_eq!(first.summaries[1], Analysis::default());
        assert_eq!(first.summaries[0].sentences[0].tokens.len(), 8);
    }

    #[test]
    fn spread_analyses_are_the_in_order_ones_in_order() {
        let pipeline = Pipeline::embedded().expect("embedded models load");
        // Texts of different lengths, so spread work finishes out of order.
        let owned: Vec<String> = (0..24)
            .map(|i| {
                let words = ["The cat sat on the mat.", "It was happy there!", ""];
                (0..=i % 5)
                    .map(|j| words[(i + j) % 3])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let in_order = analyze_all(pipeline, &texts, false);
        assert_eq!(in_order.len(), texts.len());
        assert_eq!(analyze_all(pipeline, &texts, true), in_order);
        assert!(analyze_all(pipeline, &[], true).is_empty());
    }

    #[test]
    fn a_topic_beside_another_is_not_alone() {
        // Other tests make contexts of their own meanwhile, so only the side that cannot
        // depend on them is asserted: with two live contexts neither is alone.
        let topic = topic();
        let first = TopicContext::new(&topic);
        let second = TopicContext::for_self_reference(&topic);
        assert!(!first.alone() && !second.alone());
        drop(second);
        let third = TopicContext::new(&topic);
        assert!(!first.alone() && !third.alone());
    }
}
