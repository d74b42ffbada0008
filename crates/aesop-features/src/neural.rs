//! `neural`: per-token log-probabilities of each summary under a small neural language model
//! (SmolLM2-135M, [`aesop_neural`]), given the source and unconditionally, and BARTScore-style
//! against the references. `gemma3`: the same features under a second, larger LM (Gemma 3 270M,
//! a base model, so always with the plain prompt), whose errors differ from SmolLM2's: the two
//! together carry more than either (docs/NEURAL.md, "A second LM"). `neural_truecased`: the
//! `neural` features of each summary with its lowercase words cased as the source writes them
//! ([`aesop_text::truecase`]), so that a system's casing convention is not read as bad English
//! (docs/NEURAL.md, "Casing from the source").
//!
//! Why: an LM's surprise at a summary, given the article it summarizes, tracks fluency and
//! faithfulness far better than any lexical feature (issue 15: mean log-prob given the source
//! reaches summary-level τ .28 on SummEval fluency, .36 on consistency). PMI (given source minus
//! unconditional) removes how predictable the text is anyway; SLOR removes how rare its words are
//! (each word's unigram log-frequency, [`super::wordfreq`]), which is what keeps the LM's signal
//! pointing the same way on corpora that reward specific wording (docs/NEURAL.md, "SLOR").
//!
//! Cost is tokens through the network, so the prompt (SmolLM2-Instruct's chat template asking
//! for a summary of the source, or the plain `Article: <source>\n\nSummary of the article
//! above:`; [`NeuralPrompt`]) is run once per topic (first `source_tokens` tokens of the documents) and
//! every summary is scored on its cached keys and values; the unconditional prompt (the same
//! with an empty article) is run once per process. Reference features use at most
//! `max_references` references (0 turns them off); without references they are NaN. An empty
//! summary has no tokens: its log-prob features are NaN and `n_tokens` is 0.
//!
//! Classes that read the same model within one run share the topic's LM work ([`SharedLmWork`]):
//! `neural` and `neural_truecased` run the source prompt once, and a summary the recasing leaves
//! unchanged is scored once, so `score --neural`, whose built-ins use both, pays a second pass
//! only for the summaries written in lowercase.
//!
//! With `AESOP_NEURAL_CACHE=DIR` each topic's rows are stored in DIR under a hash of the
//! topic's texts and the options, so cross-validation and ablation runs over the same set
//! (every fold seed, every target) run the network once. Entries check themselves
//! ([`cache`]): a corrupt one is recomputed with a warning, never read as features.
//!
//! With `AESOP_NEURAL_TOKENS=FILE` every summary's per-token log-probabilities (given the source
//! and unconditionally, with each token's text) are appended to FILE as JSON lines, for looking
//! at where the LM is surprised and for trying other aggregates than the four above
//! (`scripts/experiments/neural-token-aggregates`). The cache is then bypassed (it holds only
//! the aggregates), so every topic runs the network.
//!
//! Files: this one holds the options, the shared LM work, the pass over a topic and the classes;
//! `neural/words.rs` the token statistics and word-level features, `neural/logs.rs` the two
//! JSON-lines logs, `neural/cache.rs` the feature cache.

use super::wordfreq::WordFrequencies;
use super::{ClassSpec, FeatureClass, FeatureRow, ReferenceUse, SharedKey, TopicContext};
use aesop_neural::llama::{Llama, Prefix, Stopped};
use anyhow::Result;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

mod cache;
mod logs;
mod words;

pub(crate) use logs::block_index;
use logs::{hidden_log_from_env, JsonLinesLog};
use words::{mean, mean_f64, slor, stats, unsupported_share, word_set, words};

/// The most source tokens a prompt may hold (`--neural-source-tokens`): the LM sees at most
/// `MAX_POSITIONS` (8,192) positions, of which a summary takes up to `max_scored_tokens` (512)
/// and the prompt's own words (the chat template) fewer than 128. A larger budget would leave a
/// summary fewer positions than it has tokens, and its features would score a cut summary.
pub const MAX_SOURCE_TOKENS: usize = aesop_neural::llama::MAX_POSITIONS - 512 - 128;

/// Options of the `neural` class.
#[derive(Debug, Clone)]
pub struct NeuralOptions {
    /// Tokens of the source placed in the prompt.
    pub source_tokens: usize,
    /// References used by the BARTScore-style features (0: none, features NaN).
    pub max_references: usize,
    /// Tokens of a summary or reference scored at most.
    pub max_scored_tokens: usize,
    /// The prompt the summary is scored after.
    pub prompt: NeuralPrompt,
}

/// The prompt a summary is scored after (the same with an empty article for the
/// unconditional features).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NeuralPrompt {
    /// `Article: <source>\n\nSummary of the article above:`, the summary after one space: issue
    /// 15's measurement, and every model trained before the chat prompt (model format < 6).
    Plain,
    /// SmolLM2-Instruct's chat template: a user turn `Summarize the following article.\n\n<source>`
    /// and the assistant's turn, which the summary is. The default since it won under protocol 2
    /// (docs/NEURAL.md, "Prompt").
    Chat,
}

impl NeuralPrompt {
    pub fn name(self) -> &'static str {
        match self {
            NeuralPrompt::Plain => "plain",
            NeuralPrompt::Chat => "chat",
        }
    }

    pub fn from_name(name: &str) -> Option<NeuralPrompt> {
        [NeuralPrompt::Plain, NeuralPrompt::Chat]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

impl Default for NeuralOptions {
    fn default() -> Self {
        NeuralOptions {
            source_tokens: 1400,
            max_references: 2,
            max_scored_tokens: 512,
            prompt: NeuralPrompt::Chat,
        }
    }
}

const STATS: [&str; 4] = ["mean", "p10", "min", "sum"];

/// Which language model a [`Neural`] class instance scores with; each is its own class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LmChoice {
    /// SmolLM2-135M-Instruct: the `neural` class.
    Smollm2,
    /// Gemma 3 270M (pretrained, not instruction-tuned): the `gemma3` class.
    Gemma3,
    /// SmolLM2 reading each summary with its lowercase words cased as the source writes them
    /// ([`aesop_text::truecase`]): the `neural_truecased` class.
    Smollm2Truecased,
}

impl LmChoice {
    fn spec(self) -> &'static ClassSpec {
        match self {
            LmChoice::Smollm2 => &CLASS,
            LmChoice::Gemma3 => &GEMMA3_CLASS,
            LmChoice::Smollm2Truecased => &TRUECASED_CLASS,
        }
    }
}

/// A topic's LM work, shared by the classes that read the same model (held in the topic's
/// [`TopicContext`], so it lives while the topic's classes run): prompts already processed and
/// continuations already scored after them. A continuation's log-probabilities do not depend on
/// what else shares its batch (on the CPU, to the last digit: docs/NEURAL.md, "Models that use
/// it"; on a GPU, whose batches share one product, to a few millionths of a nat: "GPU"), so a
/// shared score is the one the class would compute itself.
#[derive(Default)]
struct SharedLmWork {
    /// Processed prompts, by their ids.
    prefixes: Mutex<HashMap<Vec<u32>, Arc<Prefix>>>,
    /// Per-token log-probabilities, by prompt ids, then continuation ids.
    scores: Mutex<HashMap<Vec<u32>, ScoresAfterPrompt>>,
}

/// Per-token log-probabilities of continuations after one prompt, by continuation ids.
type ScoresAfterPrompt = HashMap<Vec<u32>, Vec<f32>>;

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SharedLmWork {
    /// How many prompts were processed and how many (prompt, continuation) pairs scored: what
    /// went through the network, for the test that sharing saves work.
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        let scored = locked(&self.scores).values().map(HashMap::len).sum();
        (locked(&self.prefixes).len(), scored)
    }

    /// The processed `prompt`, run through `lm` the first time it is asked for.
    fn prefix(&self, lm: &Llama, prompt: &[u32]) -> Result<Arc<Prefix>> {
        if let Some(p) = locked(&self.prefixes).get(prompt) {
            return Ok(Arc::clone(p));
        }
        let p = Arc::new(lm.prefix(prompt)?);
        locked(&self.prefixes).insert(prompt.to_vec(), Arc::clone(&p));
        Ok(p)
    }

    /// Each of `conts` scored after `prompt` (processed as `prefix`); only the continuations
    /// not yet scored after it go through the network, in batches of `batch` tokens.
    fn score_many(
        &self,
        lm: &Llama,
        (prompt, prefix): (&[u32], &Prefix),
        conts: &[Vec<u32>],
        batch: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<Vec<f32>>> {
        let missing: Vec<&[u32]> = {
            let scores = locked(&self.scores);
            let known = scores.get(prompt);
            let mut seen = HashSet::new();
            conts
                .iter()
                .map(Vec::as_slice)
                .filter(|c| !known.is_some_and(|k| k.contains_key(*c)) && seen.insert(*c))
                .collect()
        };
        let scored = if missing.is_empty() {
            Vec::new()
        } else {
            lm.score_many(prefix, &missing, batch, stop)?
        };
        let mut scores = locked(&self.scores);
        let known = scores.entry(prompt.to_vec()).or_default();
        for (c, lp) in missing.into_iter().zip(scored) {
            known.insert(c.to_vec(), lp);
        }
        Ok(conts
            .iter()
            .map(|c| known.get(c).cloned().unwrap_or_default())
            .collect())
    }

    /// Each of `conts` scored after each of `prompts` (`[prompt][continuation]`); only the
    /// prompts after which some continuation is not yet scored go through the network.
    fn score_each_prompt(
        &self,
        lm: &Llama,
        prompts: &[Vec<u32>],
        conts: &[&[u32]],
        batch: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<Vec<Vec<f32>>>> {
        let missing: Vec<&[u32]> = {
            let scores = locked(&self.scores);
            let mut seen = HashSet::new();
            prompts
                .iter()
                .map(Vec::as_slice)
                .filter(|p| {
                    let known = scores.get(*p);
                    conts
                        .iter()
                        .any(|c| !known.is_some_and(|k| k.contains_key(*c)))
                        && seen.insert(*p)
                })
                .collect()
        };
        let scored = if missing.is_empty() {
            Vec::new()
        } else {
            lm.score_each_prompt(&missing, conts, batch, stop)?
        };
        let mut scores = locked(&self.scores);
        for (p, by_cont) in missing.into_iter().zip(scored) {
            let known = scores.entry(p.to_vec()).or_default();
            for (c, lp) in conts.iter().zip(by_cont) {
                known.insert(c.to_vec(), lp);
            }
        }
        Ok(prompts
            .iter()
            .map(|p| {
                let known = scores.get(p);
                conts
                    .iter()
                    .map(|c| known.and_then(|k| k.get(*c)).cloned().unwrap_or_default())
                    .collect()
            })
            .collect())
    }
}

/// The `neural` class (and, with another model, `gemma3`).
pub struct Neural {
    opts: NeuralOptions,
    choice: LmChoice,
    /// The prompt actually used: `opts.prompt` for SmolLM2, always the plain prompt for Gemma 3
    /// (a base model, which has no chat turns to continue).
    prompt: NeuralPrompt,
    lm: Arc<Llama>,
    unconditional: OnceLock<std::result::Result<Prefix, String>>,
    /// The prompt's ids before and after the article's (built once from `opts.prompt`).
    prompt_around: (Vec<u32>, Vec<u32>),
    /// `AESOP_NEURAL_TOKENS`: where per-token log-probabilities are appended, if anywhere.
    token_log: Option<JsonLinesLog>,
    /// `AESOP_NEURAL_HIDDEN`: where pooled hidden states are appended, if anywhere, and the
    /// blocks tapped (`AESOP_NEURAL_HIDDEN_LAYERS`).
    hidden_log: Option<(JsonLinesLog, Vec<usize>)>,
}

impl Neural {
    /// Load SmolLM2 (once per process); an absent or corrupt file is an error naming
    /// `aesop models fetch smollm2`.
    pub fn new(opts: NeuralOptions) -> Result<Neural> {
        Neural::with_model(opts, LmChoice::Smollm2)
    }

    /// The class with the model `choice` (loaded once per process); an absent or corrupt file
    /// is an error naming its fetch command.
    pub fn with_model(opts: NeuralOptions, choice: LmChoice) -> Result<Neural> {
        let (lm, prompt) = match choice {
            LmChoice::Smollm2 | LmChoice::Smollm2Truecased => {
                (aesop_neural::model::smollm2()?, opts.prompt)
            }
            LmChoice::Gemma3 => (aesop_neural::model::gemma3()?, NeuralPrompt::Plain),
        };
        let mut prompt_around = prompt_around(&lm.tokenizer, prompt)?;
        if let Some(bos) = lm.config.bos {
            prompt_around.0.insert(0, bos);
        }
        Ok(Neural {
            opts,
            choice,
            prompt,
            unconditional: OnceLock::new(),
            prompt_around,
            token_log: JsonLinesLog::from_env("AESOP_NEURAL_TOKENS")?,
            hidden_log: hidden_log_from_env(lm.config.n_layer)?,
            lm,
        })
    }

    /// Token ids of the prompt whose continuation is a summary of `article` (ids).
    fn prompt(&self, article: &[u32]) -> Vec<u32> {
        let (before, after) = &self.prompt_around;
        let article = &article[..article.len().min(self.opts.source_tokens)];
        [before.as_slice(), article, after.as_slice()].concat()
    }

    /// Summary ids as they follow the prompt (leading space, as after "above:").
    fn continuation(&self, text: &str) -> Vec<u32> {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return Vec::new();
        }
        let mut ids = self.lm.tokenizer.encode(&match self.prompt {
            NeuralPrompt::Plain => format!(" {text}"),
            NeuralPrompt::Chat => text,
        });
        ids.truncate(self.opts.max_scored_tokens);
        ids
    }

    fn article_ids(&self, text: &str) -> Vec<u32> {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut ids = self.lm.tokenizer.encode(&text);
        ids.truncate(self.opts.source_tokens);
        ids
    }

    /// Cache entry of a topic's rows (its file and its name, the key): a hash of the options,
    /// `what` the rows hold (empty for the class's own features) and every text the rows
    /// depend on. None without a usable cache ([`cache::dir`]).
    fn cache_entry(
        &self,
        ctx: &TopicContext,
        what: &str,
        references: usize,
    ) -> Option<(std::path::PathBuf, String)> {
        std::env::var_os(cache::CACHE_VAR).filter(|d| !d.is_empty())?;
        if self.token_log.is_some() || self.hidden_log.is_some() {
            // The cache holds aggregates only; the logs need the network run.
            return None;
        }
        let dir = cache::dir()?;
        let o = &self.opts;
        // The precision too: int8 and f32 rows differ by a few hundredths of a nat. SmolLM2's
        // key has no model name, as before Gemma 3's class, so its cached rows stay valid.
        let model = match self.choice {
            LmChoice::Smollm2 => String::new(),
            LmChoice::Gemma3 => format!("{} ", aesop_neural::model::GEMMA3.name),
            LmChoice::Smollm2Truecased => "truecased ".to_string(),
        };
        // Rows are keyed by the references they read only (hidden states read none), so those
        // are shared by runs with any `--neural-references`.
        let mut keyed = format!(
            "v5 {model}{what}{} {} {} {} {}\0",
            self.lm.precision.name(),
            self.prompt.name(),
            o.source_tokens,
            references,
            o.max_scored_tokens
        )
        .into_bytes();
        let t = ctx.topic;
        for text in t
            .documents
            .iter()
            .map(|d| &d.text)
            .chain(std::iter::once(&String::new()))
            .chain(t.references.iter().take(references).map(|r| &r.text))
            .chain(std::iter::once(&String::new()))
            .chain(t.summaries.iter().map(|s| &s.text))
        {
            keyed.extend_from_slice(text.as_bytes());
            keyed.push(0);
        }
        let key = cache::sha256_hex(&keyed);
        Some((dir.join(format!("{key}.json")), key))
    }

    /// A topic's rows of `width` values, which read the topic's first `references` references,
    /// from the cache (`what`: see [`Neural::cache_entry`]), or from `compute`, then stored.
    pub(crate) fn cached(
        &self,
        ctx: &TopicContext,
        what: &str,
        (width, references): (usize, usize),
        compute: impl FnOnce() -> Result<Vec<FeatureRow>>,
    ) -> Result<Vec<FeatureRow>> {
        let entry = self.cache_entry(ctx, what, references);
        if let Some((file, key)) = &entry {
            if let Some(rows) = cache::read(file, key, (ctx.topic.summaries.len(), width)) {
                return Ok(rows);
            }
        }
        let rows = compute()?;
        if let Some((file, key)) = &entry {
            cache::write(file, key, &rows);
        }
        Ok(rows)
    }

    /// The topic's documents as one source text.
    fn source(ctx: &TopicContext) -> String {
        ctx.topic
            .documents
            .iter()
            .map(|d| d.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Rows of the `neural_hidden` class ([`super::neural_hidden`]): for each summary, the
    /// output of block `block` given the source prompt, averaged over the summary's positions
    /// (`width` values; NaN for a summary of fewer than two tokens, which has no position
    /// before its last token). Cached like the class's own rows.
    pub(crate) fn hidden_rows(
        &self,
        ctx: &TopicContext,
        block: usize,
        width: usize,
    ) -> Result<Vec<FeatureRow>> {
        self.cached(ctx, &format!("hidden{block} "), (width, 0), || {
            let source = Self::source(ctx);
            let (_, prefix) = self.source_prefix(&self.shared_work(ctx), &source)?;
            let conts = self.summary_ids(&self.summary_texts(ctx, &source));
            let slices: Vec<&[u32]> = conts.iter().map(Vec::as_slice).collect();
            let batch = self.lm.batch_tokens();
            let (_, pooled) =
                self.lm
                    .score_many_pooled(&prefix, &slices, batch, &[block], ctx.stop())?;
            Ok(pooled
                .into_iter()
                .map(|p| {
                    Some(match p.get(..width) {
                        Some(state) => state.iter().map(|&v| f64::from(v)).collect(),
                        None => vec![f64::NAN; width],
                    })
                })
                .collect())
        })
    }

    /// Each text's token states after block `block`, read as a summary after the prompt with
    /// no article (the unconditional prompt of the class's `unc_*` features): a row-major
    /// (tokens, width) matrix per text, empty for a text without tokens.
    pub(crate) fn unconditional_states(
        &self,
        texts: &[&str],
        block: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<Vec<f32>>> {
        let unc = self.unconditional_prefix()?;
        let ids: Vec<Vec<u32>> = texts.iter().map(|t| self.continuation(t)).collect();
        let slices: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        Ok(self
            .lm
            .token_states(unc, &slices, self.lm.batch_tokens(), &[block], stop)?
            .into_iter()
            .map(|mut taps| taps.pop().unwrap_or_default())
            .collect())
    }

    /// The prompt with no article, processed once per process.
    fn unconditional_prefix(&self) -> Result<&Prefix> {
        self.unconditional
            .get_or_init(|| {
                self.lm
                    .prefix(&self.prompt(&[]))
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// Each summary's ids as it follows the prompt, from [`Neural::summary_texts`].
    fn summary_ids(&self, texts: &[std::borrow::Cow<str>]) -> Vec<Vec<u32>> {
        texts.iter().map(|text| self.continuation(text)).collect()
    }

    /// The summaries as the LM reads them: as written, or for `neural_truecased` with their
    /// lowercase words cased as `source` (the topic's, [`Neural::source`]) writes them.
    fn summary_texts<'a>(
        &self,
        ctx: &'a TopicContext,
        source: &str,
    ) -> Vec<std::borrow::Cow<'a, str>> {
        let summaries = ctx.topic.summaries.iter();
        if self.choice != LmChoice::Smollm2Truecased {
            return summaries.map(|s| s.text.as_str().into()).collect();
        }
        let casing = aesop_text::truecase::SourceCasing::from_text(source);
        summaries.map(|s| casing.apply(&s.text).into()).collect()
    }

    /// The topic's LM work shared with the other classes reading this class's model.
    fn shared_work(&self, ctx: &TopicContext) -> Arc<SharedLmWork> {
        const SMOLLM2: SharedKey<SharedLmWork> = SharedKey::new("neural.smollm2_work");
        const GEMMA3: SharedKey<SharedLmWork> = SharedKey::new("neural.gemma3_work");
        let key = match self.choice {
            LmChoice::Smollm2 | LmChoice::Smollm2Truecased => SMOLLM2,
            LmChoice::Gemma3 => GEMMA3,
        };
        ctx.shared(key, |_| SharedLmWork::default())
    }

    /// The source prompt's ids and its processed prefix, shared within the topic.
    fn source_prefix(&self, work: &SharedLmWork, source: &str) -> Result<(Vec<u32>, Arc<Prefix>)> {
        let prompt = self.prompt(&self.article_ids(source));
        let prefix = work.prefix(&self.lm, &prompt)?;
        Ok((prompt, prefix))
    }

    /// The model's width (hidden-state size) and number of blocks.
    pub(crate) fn model_shape(&self) -> (usize, usize) {
        (self.lm.config.n_embd, self.lm.config.n_layer)
    }

    fn extract_topic(&self, ctx: &TopicContext) -> Result<Vec<FeatureRow>> {
        let topic = ctx.topic;
        let batch = self.lm.batch_tokens();
        let source = Self::source(ctx);
        let work = self.shared_work(ctx);
        let (src_prompt, src_prefix) = self.source_prefix(&work, &source)?;
        let unc = self.unconditional_prefix()?;
        let unc_prompt = self.prompt(&[]);
        let refs: Vec<&str> = ctx
            .reference_texts()
            .into_iter()
            .take(self.opts.max_references)
            .collect();
        let ref_prompts: Vec<Vec<u32>> = refs
            .iter()
            .map(|r| self.prompt(&self.article_ids(r)))
            .collect();
        let ref_prefixes = ref_prompts
            .iter()
            .map(|p| work.prefix(&self.lm, p))
            .collect::<Result<Vec<_>>>()?;
        let ref_conts: Vec<Vec<u32>> = refs.iter().map(|r| self.continuation(r)).collect();
        let texts = self.summary_texts(ctx, &source);
        let conts = self.summary_ids(&texts);
        let slices: Vec<&[u32]> = conts.iter().map(Vec::as_slice).collect();
        let given = match &self.hidden_log {
            None => work.score_many(
                &self.lm,
                (&src_prompt, &src_prefix),
                &conts,
                batch,
                ctx.stop(),
            )?,
            Some((log, layers)) => {
                let (given, hidden) =
                    self.lm
                        .score_many_pooled(&src_prefix, &slices, batch, layers, ctx.stop())?;
                let lines: Vec<serde_json::Value> = topic
                    .summaries
                    .iter()
                    .zip(&hidden)
                    .map(|(s, h)| {
                        serde_json::json!({
                            "class": self.name(),
                            "topic": topic.topic,
                            "system": s.system,
                            "layers": layers,
                            "hidden": h,
                        })
                    })
                    .collect();
                log.write(&lines)?;
                given
            }
        };
        let uncond = work.score_many(&self.lm, (&unc_prompt, unc), &conts, batch, ctx.stop())?;
        let by_ref = ref_prompts
            .iter()
            .zip(&ref_prefixes)
            .map(|(q, p)| work.score_many(&self.lm, (q, p), &conts, batch, ctx.stop()))
            .collect::<Result<Vec<_>>>()?;
        let ref_slices: Vec<&[u32]> = ref_conts.iter().map(Vec::as_slice).collect();
        // Each scored token's text, decoded alone: for the words of `unsupported_share` and
        // the token log.
        let pieces: Vec<Vec<String>> = conts
            .iter()
            .map(|ids| {
                ids.iter()
                    .map(|&id| self.lm.tokenizer.decode(&[id]))
                    .collect()
            })
            .collect();
        if let Some(log) = &self.token_log {
            let lines: Vec<serde_json::Value> = topic
                .summaries
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    serde_json::json!({
                        "class": self.name(),
                        "topic": topic.topic,
                        "system": s.system,
                        "tokens": pieces[k],
                        "given_source": given[k],
                        "unconditional": uncond[k],
                    })
                })
                .collect();
            log.write(&lines)?;
        }
        // BARTScore-style recall: each reference given each (non-empty) summary as the article.
        let recall = if ref_prefixes.is_empty() {
            Vec::new()
        } else {
            let own: Vec<Vec<u32>> = texts
                .iter()
                .zip(&conts)
                .filter(|(_, ids)| !ids.is_empty())
                .map(|(text, _)| self.prompt(&self.article_ids(text)))
                .collect();
            work.score_each_prompt(&self.lm, &own, &ref_slices, batch, ctx.stop())?
        };
        let mut recall = recall.into_iter();
        let source_words = word_set(&source);
        let unigram = WordFrequencies::shipped();
        let mut rows = Vec::with_capacity(topic.summaries.len());
        for (k, ids) in conts.iter().enumerate() {
            let (given, uncond) = (&given[k], &uncond[k]);
            let mut row = Vec::with_capacity(16);
            row.extend(stats(given));
            row.extend(stats(uncond));
            row.push(mean(given) - mean(uncond));
            let summary_words = words(&pieces[k], given, uncond);
            row.push(unsupported_share(&summary_words, &source_words));
            row.extend(slor(&summary_words, unigram));
            row.push(ids.len() as f64);
            let (mut prec, mut rec) = (Vec::new(), Vec::new());
            if !ids.is_empty() && !ref_prefixes.is_empty() {
                prec.extend(by_ref.iter().map(|r| mean(&r[k])));
                let by_summary = recall
                    .next()
                    .ok_or_else(|| anyhow::anyhow!("no recall scores for summary {k}"))?;
                rec.extend(by_summary.iter().map(|r| mean(r)));
            }
            let (p, r) = (mean_f64(&prec), mean_f64(&rec));
            row.extend([p, r, (p + r) / 2.0]);
            rows.push(Some(row));
        }
        Ok(rows)
    }
}

/// The ids of `prompt` before and after the article's.
fn prompt_around(
    t: &aesop_neural::tokenizer::Tokenizer,
    prompt: NeuralPrompt,
) -> Result<(Vec<u32>, Vec<u32>)> {
    Ok(match prompt {
        NeuralPrompt::Plain => (
            t.encode("Article: "),
            t.encode("\n\nSummary of the article above:"),
        ),
        NeuralPrompt::Chat => {
            // SmolLM2-Instruct's chat template with its default system line; the summary is
            // the assistant's turn.
            let (Some(start), Some(end)) = (t.id_of("<|im_start|>"), t.id_of("<|im_end|>")) else {
                anyhow::bail!("neural: the chat prompt needs <|im_start|> and <|im_end|> in the model's vocabulary; use --neural-prompt plain");
            };
            let turn = |role_and_text: &str, close: bool| {
                let mut ids = vec![start];
                ids.extend(t.encode(role_and_text));
                if close {
                    ids.push(end);
                    ids.extend(t.encode("\n"));
                }
                ids
            };
            let mut before = turn(
                "system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face",
                true,
            );
            before.extend(turn("user\nSummarize the following article.\n\n", false));
            let mut after = vec![end];
            after.extend(t.encode("\n"));
            after.extend(turn("assistant\n", false));
            (before, after)
        }
    })
}

/// The named options ([`crate::named_options`]) of the LM classes that read every field of
/// [`NeuralOptions`] a flag sets.
pub const NEURAL_OPTIONS: &[&str] = &["neural_source_tokens", "neural_references", "neural_prompt"];

/// The `neural` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "neural",
    about: "SmolLM2-135M log-probabilities; needs `aesop models fetch smollm2`",
    default: false,
    references: ReferenceUse::Some,
    batch_dependent: false,
    options: NEURAL_OPTIONS,
    partial_options: &[],
    build: |o| Ok(Box::new(Neural::new(o.neural.clone())?)),
};

/// Is `class` one of the LM classes (`neural`, `gemma3`, `neural_hidden`, `neural_match`), which share
/// [`NeuralOptions`]?
pub fn is_lm_class(class: &str) -> bool {
    [
        CLASS.name,
        GEMMA3_CLASS.name,
        TRUECASED_CLASS.name,
        super::neural_hidden::CLASS.name,
        super::neural_match::CLASS.name,
    ]
    .contains(&class)
}

/// The `gemma3` class in the [registry](super::registry): the `neural` features under Gemma 3
/// 270M, with the `neural` class's options (its prompt aside: always plain).
pub static GEMMA3_CLASS: ClassSpec = ClassSpec {
    name: "gemma3",
    about: "the neural class's features under Gemma 3 270M (plain prompt); needs `aesop models fetch gemma3-270m`",
    default: false,
    references: ReferenceUse::Some,
    batch_dependent: false,
    options: &["neural_source_tokens", "neural_references"],
    partial_options: &[],
    build: |o| Ok(Box::new(Neural::with_model(o.neural.clone(), LmChoice::Gemma3)?)),
};

/// The `neural_truecased` class in the [registry](super::registry): the `neural` features of
/// each summary with its lowercase words cased as the source writes them, for systems that write
/// lowercase (docs/NEURAL.md, "Casing from the source").
pub static TRUECASED_CLASS: ClassSpec = ClassSpec {
    name: "neural_truecased",
    about: "the neural class's features with each summary's lowercase words cased as its source writes them; needs `aesop models fetch smollm2`",
    default: false,
    references: ReferenceUse::Some,
    batch_dependent: false,
    options: NEURAL_OPTIONS,
    partial_options: &[],
    build: |o| {
        Ok(Box::new(Neural::with_model(
            o.neural.clone(),
            LmChoice::Smollm2Truecased,
        )?))
    },
};

impl FeatureClass for Neural {
    fn spec(&self) -> &'static ClassSpec {
        self.choice.spec()
    }

    fn feature_names(&self) -> Vec<String> {
        let class = self.name();
        let mut names = Vec::new();
        for cond in ["src", "unc"] {
            for s in STATS {
                names.push(format!("{class}.{cond}_{s}"));
            }
        }
        for n in [
            "pmi_mean",
            "unsupported_share",
            "src_slor",
            "unc_slor",
            "n_tokens",
            "ref_precision",
            "ref_recall",
            "ref_f",
        ] {
            names.push(format!("{class}.{n}"));
        }
        names
    }

    fn uses_references(&self) -> bool {
        self.opts.max_references > 0
    }

    /// The BARTScore-style `ref_*` features score against the references.
    fn is_reference_free_feature(&self, name: &str) -> bool {
        !name
            .strip_prefix(self.name())
            .is_some_and(|rest| rest.starts_with(".ref_"))
    }

    /// `--neural-references 0` turns the reference features off.
    fn is_feature_off(&self, name: &str) -> bool {
        self.opts.max_references == 0 && !self.is_reference_free_feature(name)
    }

    fn extract(&self, ctx: &TopicContext) -> Vec<FeatureRow> {
        let width = self.feature_names().len();
        let references = self.opts.max_references;
        let rows = self.cached(ctx, "", (width, references), || self.extract_topic(ctx));
        lm_rows_or_missing(self.name(), ctx, rows)
    }
}

/// An LM class's rows for a topic, or no row for any summary when they could not be computed,
/// with the reason on standard error; a run cancelled mid-topic ([`Stopped`]) is said once by
/// the run, not by each class. (The parse-based classes' counterpart is
/// [`super::analyses::rows_or_missing`].)
pub(crate) fn lm_rows_or_missing(
    class: &str,
    ctx: &TopicContext,
    rows: Result<Vec<FeatureRow>>,
) -> Vec<FeatureRow> {
    match rows {
        Ok(rows) => rows,
        Err(e) => {
            if !e.is::<Stopped>() {
                aesop_core::eprintln_quiet!("{class}: topic {}: {e:#}", ctx.topic.topic);
            }
            vec![None; ctx.topic.summaries.len()]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `neural` then `neural_truecased` on one topic: the second runs the source prompt again
    /// for nothing and scores only the summary its recasing changes, and its rows equal those it
    /// computes alone. Needs `aesop models fetch smollm2` (skips with a notice without it,
    /// unless AESOP_REQUIRE_MODELS=1).
    #[test]
    fn classes_reading_one_model_share_its_work() {
        if !aesop_neural::model::is_present(&aesop_neural::model::SMOLLM2) {
            assert!(
                std::env::var("AESOP_REQUIRE_MODELS").map_or(true, |v| v != "1"),
                "AESOP_REQUIRE_MODELS=1 but the SmolLM2 model is absent"
            );
            // Straight to standard error: the harness hides `eprintln!` of a passing test.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED classes_reading_one_model_share_its_work: no SmolLM2 model (aesop models fetch smollm2)"
            );
            return;
        }
        let mut topic = aesop_corpus::Topic::new("t");
        topic.documents.push(aesop_corpus::Document::new(
            "d",
            "Paul Merson has restarted his row with Andros Townsend after the Burnley game .",
        ));
        for (system, text) in [
            ("lower", "paul merson criticised andros townsend ."),
            ("cased", "Merson criticised Townsend after the game ."),
        ] {
            let s: aesop_corpus::Summary =
                serde_json::from_value(serde_json::json!({"system": system, "text": text}))
                    .expect("a summary");
            topic.summaries.push(s);
        }
        let opts = NeuralOptions {
            max_references: 0,
            ..NeuralOptions::default()
        };
        let neural = Neural::with_model(opts.clone(), LmChoice::Smollm2).expect("SmolLM2");
        let truecased = Neural::with_model(opts, LmChoice::Smollm2Truecased).expect("SmolLM2");
        let ctx = TopicContext::new(&topic);
        neural.extract_topic(&ctx).expect("neural rows");
        let work = neural.shared_work(&ctx);
        // The source prompt; two summaries given it and unconditionally.
        assert_eq!(work.counts(), (1, 4));
        let shared = truecased.extract_topic(&ctx).expect("truecased rows");
        // The recased lowercase summary is new, given the source and unconditionally.
        assert_eq!(work.counts(), (1, 6));
        let alone = truecased
            .extract_topic(&TopicContext::new(&topic))
            .expect("truecased rows");
        // Batches differ (the shared run scores one summary, the lone run two), which may
        // move a log-prob in its last digits.
        let close = |a: &f64, b: &f64| (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-4;
        let rows = |r: &[FeatureRow]| -> Vec<Vec<f64>> { r.iter().flatten().cloned().collect() };
        let (shared, alone) = (rows(&shared), rows(&alone));
        assert_eq!(shared.len(), 2);
        assert!(
            shared
                .iter()
                .flatten()
                .zip(alone.iter().flatten())
                .all(|(a, b)| close(a, b))
                && shared.concat().len() == alone.concat().len(),
            "{shared:?}\n{alone:?}"
        );
    }
}
