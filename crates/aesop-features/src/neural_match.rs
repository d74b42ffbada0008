//! `neural_match`: BERTScore-style matching of a summary's tokens to the references', in
//! SmolLM2's contextual token states rather than in surface words.
//!
//! Each summary and each reference is read by the LM after the `neural` class's prompt with no
//! article (the unconditional prompt). A token's state is the output of an early block; every
//! summary token is matched to its most similar reference token by cosine (precision) and every
//! reference token to its most similar summary token (recall), as BERTScore does (Zhang et al.
//! 2020), with F1 their harmonic mean. Several references: the mean of each over them.
//!
//! Why: ROUGE counts a paraphrase as a miss and the classic classes have no other way to see
//! that two texts say the same thing; contextual states match "quake" to "earthquake". Why an
//! early block: in the probe (docs/NEURAL.md, "Token matching") blocks 2-11 matched the
//! annotators best and later blocks drifted towards predicting the next token. Only the blocks
//! up to the tapped one run, so the class costs a fifth of one pass over the summaries and
//! references, with no source.
//!
//! It shares the `neural` class's model, prompt option and cache (`AESOP_NEURAL_CACHE`); its
//! rows are keyed by every reference of the topic. A summary or a topic without tokens or
//! references gets NaN.

use super::neural::{block_index, Neural, NeuralOptions};
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};
use anyhow::Result;

/// The block whose output is matched (0-based), chosen by the probe; `AESOP_NEURAL_MATCH_BLOCK`
/// overrides it for probing other blocks (`scripts/experiments/neural-match-blocks`).
const BLOCK: usize = 5;

const FEATURES: [&str; 3] = ["precision", "recall", "f1"];

/// The `neural_match` class.
pub struct NeuralMatch {
    lm: Neural,
    width: usize,
    block: usize,
}

impl NeuralMatch {
    /// Load SmolLM2 (once per process); an absent or corrupt file is an error naming
    /// `aesop models fetch smollm2`.
    pub fn new(opts: NeuralOptions) -> Result<NeuralMatch> {
        let lm = Neural::new(opts)?;
        let (width, blocks) = lm.model_shape();
        let block = match std::env::var("AESOP_NEURAL_MATCH_BLOCK") {
            Ok(b) if !b.trim().is_empty() => block_index("AESOP_NEURAL_MATCH_BLOCK", &b, blocks)?,
            _ => BLOCK,
        };
        Ok(NeuralMatch { lm, width, block })
    }

    fn rows(&self, ctx: &TopicContext) -> Result<Vec<FeatureRow>> {
        let n = ctx.topic.summaries.len();
        let references = ctx.reference_texts();
        if references.is_empty() {
            return Ok(vec![None; n]);
        }
        let what = format!("match{} ", self.block);
        self.lm
            .cached(ctx, &what, (FEATURES.len(), references.len()), || {
                let unit = |m: Vec<f32>| unit_rows(&m, self.width);
                let refs: Vec<Vec<Vec<f32>>> = self
                    .lm
                    .unconditional_states(&references, self.block, ctx.stop())?
                    .into_iter()
                    .map(unit)
                    .collect();
                let texts: Vec<&str> = ctx
                    .topic
                    .summaries
                    .iter()
                    .map(|s| s.text.as_str())
                    .collect();
                let summaries = self
                    .lm
                    .unconditional_states(&texts, self.block, ctx.stop())?;
                Ok(summaries
                    .into_iter()
                    .map(|m| Some(match_references(&unit(m), &refs).to_vec()))
                    .collect())
            })
    }
}

/// The rows of a row-major (rows, width) matrix, each scaled to unit length (a zero row stays
/// zero).
fn unit_rows(m: &[f32], width: usize) -> Vec<Vec<f32>> {
    m.chunks_exact(width)
        .map(|row| {
            let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                row.iter().map(|x| x / norm).collect()
            } else {
                row.to_vec()
            }
        })
        .collect()
}

/// Precision, recall and F1 of greedy cosine matching between a summary's unit token vectors
/// and each reference's, averaged over the references that have tokens; NaN when the summary
/// or every reference has none.
fn match_references(summary: &[Vec<f32>], references: &[Vec<Vec<f32>>]) -> [f64; 3] {
    let mut sum = [0.0; 3];
    let mut n = 0;
    for reference in references.iter().filter(|r| !r.is_empty()) {
        if summary.is_empty() {
            break;
        }
        let sim: Vec<Vec<f32>> = summary
            .iter()
            .map(|a| reference.iter().map(|b| dot(a, b)).collect())
            .collect();
        let best = |it: &mut dyn Iterator<Item = f32>| it.fold(f32::NEG_INFINITY, f32::max);
        let precision = sim
            .iter()
            .map(|row| f64::from(best(&mut row.iter().copied())))
            .sum::<f64>()
            / summary.len() as f64;
        let recall = (0..reference.len())
            .map(|j| f64::from(best(&mut sim.iter().map(|row| row[j]))))
            .sum::<f64>()
            / reference.len() as f64;
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        for (s, v) in sum.iter_mut().zip([precision, recall, f1]) {
            *s += v;
        }
        n += 1;
    }
    if n == 0 {
        return [f64::NAN; 3];
    }
    sum.map(|s| s / n as f64)
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The `neural_match` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "neural_match",
    about: "BERTScore-style matching of the summary's tokens to the references' in SmolLM2-135M's token states; needs `aesop models fetch smollm2`",
    default: false,
    references: ReferenceUse::All,
    batch_dependent: false,
    // Only the prompt: the states are read with no article, and every reference is matched
    // (`--neural-references` is the `neural` class's count).
    options: &["neural_prompt"],
    partial_options: &[],
    build: |o| Ok(Box::new(NeuralMatch::new(o.neural.clone())?)),
};

impl FeatureClass for NeuralMatch {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }

    fn feature_names(&self) -> Vec<String> {
        FEATURES
            .iter()
            .map(|f| format!("{}.{f}", CLASS.name))
            .collect()
    }

    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        super::neural::lm_rows_or_missing(CLASS.name, ctx, self.rows(ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_matching_of_unit_vectors() {
        let v = |x: &[f32]| unit_rows(x, 2);
        // Summary tokens along x and y; the reference's along x only: every reference token is
        // matched exactly (recall 1), half the summary's are (precision (1 + 0) / 2).
        let summary = v(&[1.0, 0.0, 0.0, 2.0]);
        let reference = v(&[3.0, 0.0]);
        let [p, r, f] = match_references(&summary, std::slice::from_ref(&reference));
        assert!((p - 0.5).abs() < 1e-9 && (r - 1.0).abs() < 1e-9);
        assert!((f - 2.0 / 3.0).abs() < 1e-9);
        // Two references: the mean over them.
        let other = v(&[0.0, 1.0]);
        let [p2, r2, _] = match_references(&summary, &[reference, other]);
        assert!((p2 - 0.5).abs() < 1e-9 && (r2 - 1.0).abs() < 1e-9);
        // Nothing to match: NaN.
        assert!(match_references(&[], &[v(&[1.0, 0.0])])[0].is_nan());
        assert!(match_references(&summary, &[Vec::new()])[1].is_nan());
    }
}
