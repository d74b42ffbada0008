//! `neural_hidden`: what SmolLM2 "thinks" while reading a summary, not only how surprised it is.
//! Per summary, the output of the model's middle block (block 15 of 30), given the same source
//! prompt as the `neural` class, averaged over the summary's positions: 576 numbers.
//!
//! Why: the `neural` class reduces the LM to log-probabilities; the hidden states may carry more
//! (register, repetition, how the text hangs together). Measured (docs/NEURAL.md, "Hidden
//! states"): on SummEval fluency under protocol 1 they add .024 to a ridge probe on the log-prob
//! features but under .01 to aesop's best learner, and under leave-one-set-out at most .003 to a
//! built-in recipe, losing a held-out set in each. So the class is opt-in and no built-in uses
//! it. They are a dense representation with no meaning per column. The middle block was the
//! best of blocks 8, 15, 22 and the final state in the probe.
//!
//! It shares the `neural` class's model, source budget and prompt options and cache
//! (`AESOP_NEURAL_CACHE`), and costs about half of that class's time (one pass given the source,
//! no unconditional pass). A summary of fewer than two tokens has no position before its last
//! token: its row is NaN.

use super::neural::{Neural, NeuralOptions};
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, TopicContext};
use anyhow::Result;

/// The `neural_hidden` class.
pub struct NeuralHidden {
    lm: Neural,
    /// The block whose output is averaged: the middle one.
    block: usize,
    width: usize,
}

impl NeuralHidden {
    /// Load SmolLM2 (once per process); an absent or corrupt file is an error naming
    /// `aesop models fetch smollm2`.
    pub fn new(opts: NeuralOptions) -> Result<NeuralHidden> {
        let lm = Neural::new(opts)?;
        let (width, blocks) = lm.model_shape();
        Ok(NeuralHidden {
            lm,
            block: blocks / 2,
            width,
        })
    }
}

/// The `neural_hidden` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "neural_hidden",
    about: "SmolLM2-135M's middle-block hidden state averaged over the summary (576 features); needs `aesop models fetch smollm2`",
    default: false,
    references: ReferenceUse::None,
    batch_dependent: false,
    // The source prompt's options; the class reads no reference.
    options: &["neural_source_tokens", "neural_prompt"],
    partial_options: &[],
    build: |o| Ok(Box::new(NeuralHidden::new(o.neural.clone())?)),
};

impl FeatureClass for NeuralHidden {
    fn spec(&self) -> &'static ClassSpec {
        &CLASS
    }

    fn feature_names(&self) -> Vec<String> {
        (0..self.width)
            .map(|i| format!("{}.h{i:03}", CLASS.name))
            .collect()
    }

    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let rows = self.lm.hidden_rows(ctx, self.block, self.width);
        super::neural::lm_rows_or_missing(CLASS.name, ctx, rows)
    }
}
