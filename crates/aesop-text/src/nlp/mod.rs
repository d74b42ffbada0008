//! Linguistic analysis: tokenizer, part-of-speech tagger (UPOS + PTB XPOS) and labelled
//! dependency parser (UD relations), trained on UD English-EWT by `scripts/build/train-nlp`, with the
//! models embedded in the binary and loaded once on first use.
//!
//! Feature classes call [`analyze`] once per document (cache the [`Analysis`] per topic with
//! `TopicContext::shared`); `aesop analyze` ([`analyze_command`]) writes CoNLL-U.

pub mod conllu;
pub mod model_io;
pub mod parser;
pub mod perceptron;
pub mod tagger;
pub mod tokenize;

use rayon::prelude::*;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::Context;
use conllu::Sentence;
use parser::{ParseSentence, Parser};
use tagger::{TaggedSentence, Tagger};

/// The shipped tagger (see models/NLP_MODEL_CARD.md).
static TAGGER_BYTES: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../models/tagger.bin.gz"
));
/// The shipped parser.
static PARSER_BYTES: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../models/parser.bin.gz"
));

/// The embedded (tagger, parser) model files, gzip-compressed.
pub fn embedded_model_bytes() -> (&'static [u8], &'static [u8]) {
    (TAGGER_BYTES, PARSER_BYTES)
}

/// One analysed token.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub form: String,
    /// Byte range in the analysed text (for CoNLL-U input: in the reconstructed sentence text).
    pub start: usize,
    pub end: usize,
    pub upos: String,
    pub xpos: String,
    /// 1-based index of the head token in the sentence, 0 for the root.
    pub head: usize,
    /// UD relation, with subtype (`nsubj:pass`); use [`Token::base_deprel`] for the part before `:`.
    pub deprel: String,
}

impl Token {
    /// The relation without its subtype: `nsubj:pass` → `nsubj`.
    pub fn base_deprel(&self) -> &str {
        self.deprel.split(':').next().unwrap_or("")
    }
}

/// One analysed sentence.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnalyzedSentence {
    /// Byte range of the sentence in the text.
    pub start: usize,
    pub end: usize,
    pub tokens: Vec<Token>,
}

impl AnalyzedSentence {
    /// 0-based index of the root token (None for an empty sentence).
    pub fn root(&self) -> Option<usize> {
        self.tokens.iter().position(|t| t.head == 0)
    }

    /// 0-based indices of the dependents of 0-based token `i`.
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.tokens
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.head == i + 1)
            .map(|(k, _)| k)
    }
}

/// A document's analysis: sentences of tagged, parsed tokens.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Analysis {
    pub sentences: Vec<AnalyzedSentence>,
}

impl Analysis {
    pub fn ntokens(&self) -> usize {
        self.sentences.iter().map(|s| s.tokens.len()).sum()
    }
}

/// A tagger and a parser.
pub struct Pipeline {
    pub tagger: Tagger,
    pub parser: Parser,
}

static EMBEDDED: OnceLock<Result<Pipeline, String>> = OnceLock::new();
/// Whether [`Pipeline::decode_in_background`] has started decoding [`EMBEDDED`].
static DECODING_STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Pipeline {
    /// The models embedded in the binary, decoded on first use.
    pub fn embedded() -> anyhow::Result<&'static Pipeline> {
        EMBEDDED
            .get_or_init(|| {
                Pipeline::from_bytes(TAGGER_BYTES, PARSER_BYTES).map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| anyhow::anyhow!("loading the embedded NLP models: {e}"))
    }

    /// Starts decoding the embedded models on another thread, unless they are decoded already,
    /// so that the decoding overlaps whatever the caller loads next; [`Pipeline::embedded`]
    /// then waits for it.
    pub fn decode_in_background() {
        if EMBEDDED.get().is_none() {
            DECODING_STARTED.store(true, std::sync::atomic::Ordering::Relaxed);
            std::thread::spawn(|| {
                let _ = Pipeline::embedded();
            });
        }
    }

    /// Waits for a decoding [`Pipeline::decode_in_background`] started, if any. For callers
    /// that return to code that may fork (the Python package's `Scorer`): a process forked
    /// mid-decoding inherits the unfinished decoding without the thread doing it, and its first
    /// parse waited forever.
    pub fn finish_background_decoding() {
        if DECODING_STARTED.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = Pipeline::embedded();
        }
    }

    /// Decodes the two models side by side: decoding is most of a one-off `score` or
    /// `analyze` call's time, and the two share nothing.
    pub fn from_bytes(tagger: &[u8], parser: &[u8]) -> anyhow::Result<Pipeline> {
        let (tagger, parser) = std::thread::scope(|scope| {
            let tagger = scope.spawn(|| Tagger::from_bytes(tagger));
            let parser = Parser::from_bytes(parser);
            let tagger = tagger
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (tagger, parser)
        });
        Ok(Pipeline {
            tagger: tagger.context("tagger model")?,
            parser: parser.context("parser model")?,
        })
    }

    /// Tokenize, split, tag and parse raw text, on the calling thread.
    pub fn analyze(&self, text: &str) -> Analysis {
        Analysis {
            sentences: tokenize::sentence_spans(text)
                .into_iter()
                .filter_map(|span| self.analyze_sentence(text, span))
                .collect(),
        }
    }

    /// As [`Pipeline::analyze`], the sentences spread over the rayon threads: for one long text
    /// (`aesop analyze`). Where texts are already analysed side by side (the topics of a set),
    /// [`Pipeline::analyze`] keeps each on its thread.
    pub fn analyze_parallel(&self, text: &str) -> Analysis {
        Analysis {
            sentences: tokenize::sentence_spans(text)
                .into_par_iter()
                .filter_map(|span| self.analyze_sentence(text, span))
                .collect(),
        }
    }

    /// The sentence of `text` at `span`, tokenized, tagged and parsed; none without tokens.
    fn analyze_sentence(&self, text: &str, span: Range<usize>) -> Option<AnalyzedSentence> {
        let tokens = tokenize::tokenize_with_base(&text[span.clone()], span.start);
        if tokens.is_empty() {
            return None;
        }
        let forms: Vec<&str> = tokens.iter().map(|t| t.text(text)).collect();
        let analysed = self.tag_and_parse(&forms);
        let tokens = tokens
            .iter()
            .zip(analysed)
            .map(|(t, (form_upos, xpos, head, deprel))| Token {
                form: t.text(text).to_string(),
                start: t.start,
                end: t.end,
                upos: form_upos,
                xpos,
                head,
                deprel,
            })
            .collect();
        Some(AnalyzedSentence {
            start: span.start,
            end: span.end,
            tokens,
        })
    }

    /// Tags only: (UPOS, XPOS) per word.
    pub fn tag(&self, words: &[&str]) -> Vec<(String, String)> {
        self.tagger
            .tag(words)
            .into_iter()
            .map(|c| {
                (
                    self.tagger.upos(c).to_string(),
                    self.tagger.xpos(c).to_string(),
                )
            })
            .collect()
    }

    /// (UPOS, XPOS, head, relation) per word of one sentence.
    pub fn tag_and_parse(&self, words: &[&str]) -> Vec<(String, String, usize, String)> {
        let classes = self.tagger.tag(words);
        let upos: Vec<&str> = classes.iter().map(|&c| self.tagger.upos(c)).collect();
        let xpos: Vec<&str> = classes.iter().map(|&c| self.tagger.xpos(c)).collect();
        let tree = self.parser.parse(words, &upos, &xpos);
        upos.iter()
            .zip(&xpos)
            .zip(tree)
            .map(|((u, x), (h, l))| {
                (
                    u.to_string(),
                    x.to_string(),
                    h,
                    self.parser.label(l).to_string(),
                )
            })
            .collect()
    }

    /// Fill in UPOS, XPOS, HEAD and DEPREL of CoNLL-U sentences, keeping their words, comments,
    /// multiword tokens and empty nodes; on the calling thread.
    pub fn annotate(&self, sentences: &mut [Sentence]) {
        sentences.iter_mut().for_each(|s| self.annotate_sentence(s));
    }

    /// As [`Pipeline::annotate`], the sentences spread over the rayon threads (`aesop analyze
    /// --conllu`).
    pub fn annotate_parallel(&self, sentences: &mut [Sentence]) {
        sentences
            .par_iter_mut()
            .for_each(|s| self.annotate_sentence(s));
    }

    fn annotate_sentence(&self, sentence: &mut Sentence) {
        let words: Vec<&str> = sentence.words.iter().map(|w| w.form.as_str()).collect();
        let analysed = self.tag_and_parse(&words);
        for (w, (upos, xpos, head, deprel)) in sentence.words.iter_mut().zip(analysed) {
            w.upos = upos;
            w.xpos = xpos;
            w.head = Some(head);
            w.deprel = deprel;
        }
    }
}

/// Analyse raw text with the embedded models. Cheap enough to call once per document; cache the
/// result per topic (`TopicContext::shared`) when several feature classes need it.
pub fn analyze(text: &str) -> anyhow::Result<Analysis> {
    Ok(Pipeline::embedded()?.analyze(text))
}

/// CoNLL-U for an analysis of raw text: `# text`, `SpaceAfter=No` and `TokenRange=start:end` in MISC.
pub fn analysis_to_conllu(text: &str, analysis: &Analysis) -> Vec<Sentence> {
    analysis
        .sentences
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let sentence_text: String = text
                .get(s.start..s.end)
                .unwrap_or("")
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            let words = s
                .tokens
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let next_start = s.tokens.get(i + 1).map(|n| n.start);
                    let mut misc = Vec::new();
                    if next_start == Some(t.end) {
                        misc.push("SpaceAfter=No".to_string());
                    }
                    misc.push(format!("TokenRange={}:{}", t.start, t.end));
                    conllu::Word {
                        id: i + 1,
                        form: t.form.clone(),
                        lemma: "_".to_string(),
                        upos: t.upos.clone(),
                        xpos: t.xpos.clone(),
                        feats: "_".to_string(),
                        head: Some(t.head),
                        deprel: t.deprel.clone(),
                        deps: "_".to_string(),
                        misc: misc.join("|"),
                    }
                })
                .collect();
            Sentence {
                comments: vec![
                    format!("# sent_id = {}", k + 1),
                    format!("# text = {}", sentence_text.trim()),
                ],
                words,
                extras: Vec::new(),
            }
        })
        .collect()
}

/// `aesop analyze`: raw text or CoNLL-U in, CoNLL-U out.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AnalyzeArgs {
    /// Raw text file to analyse (`-` or nothing: standard input).
    pub input: Option<PathBuf>,
    /// Read this CoNLL-U file instead, keep its tokenization and sentences, and fill in UPOS,
    /// XPOS, HEAD and DEPREL (for measuring accuracy on gold tokens).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE", conflicts_with = "input")
    )]
    pub conllu: Option<PathBuf>,
    /// Write CoNLL-U here instead of standard output (`-`: standard output).
    #[cfg_attr(feature = "cli", arg(short, long, value_name = "FILE"))]
    pub output: Option<PathBuf>,
}

/// Run `aesop analyze`.
pub fn analyze_command(args: AnalyzeArgs) -> anyhow::Result<()> {
    let spinner = aesop_core::progress::spinner("tagging and parsing");
    let out = analyze_to_conllu(&args);
    spinner.finish_and_clear();
    let out = out?;
    match aesop_core::output::file_or_stdout(args.output.as_deref()) {
        Some(p) => {
            let inputs: Vec<&std::path::Path> = args
                .input
                .iter()
                .chain(&args.conllu)
                .map(|i| i.as_path())
                .collect();
            aesop_core::output::OutputFile::write_all_to(p, &inputs, out.as_bytes())?
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            lock.write_all(out.as_bytes())
                .context("writing standard output")?;
        }
    }
    Ok(())
}

/// The CoNLL-U text `aesop analyze` writes for `args`' input.
fn analyze_to_conllu(args: &AnalyzeArgs) -> anyhow::Result<String> {
    let pipeline = Pipeline::embedded()?;
    Ok(if let Some(path) = &args.conllu {
        // Through aesop_core::input, as every verb reads: a `.gz` file decompressed.
        let text = aesop_core::input::read_text(path)?;
        let mut sentences =
            conllu::parse(&text).with_context(|| format!("parsing {}", path.display()))?;
        pipeline.annotate_parallel(&mut sentences);
        conllu::write(&sentences)
    } else {
        let (bytes, name) = match &args.input {
            Some(p) if !aesop_core::input::names_stdin(p) => {
                (aesop_core::input::read_bytes(p)?, p.as_path())
            }
            _ => {
                let mut bytes = Vec::new();
                aesop_core::input::decompressed_if_gzip(std::io::BufReader::new(std::io::stdin()))
                    .and_then(|mut input| input.read_to_end(&mut bytes))
                    .context("reading standard input")?;
                (bytes, std::path::Path::new("standard input"))
            }
        };
        // Invalid UTF-8 is replaced rather than rejected, since analysis is best effort on any
        // text, but said: the other verbs refuse such text, so this is not what they would read.
        // UTF-16 without a byte-order mark is valid UTF-8 (NULs beside ASCII), so it is told apart.
        let not_text = aesop_core::input::not_text_advice(&bytes);
        if let Err(e) = std::str::from_utf8(&bytes) {
            aesop_core::eprintln_quiet!(
                "aesop: warning: {}; such bytes are read as U+FFFD here (the other verbs refuse them: {})",
                aesop_core::input::invalid_utf8_message(name, &bytes, e.valid_up_to()),
                not_text.unwrap_or("re-encode the text as UTF-8, e.g. with iconv")
            );
        } else if let Some(advice) = not_text {
            aesop_core::eprintln_quiet!(
                "aesop: warning: {}: {advice}; analyzed as it is (the other verbs refuse it)",
                name.display()
            );
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        conllu::write(&analysis_to_conllu(
            &text,
            &pipeline.analyze_parallel(&text),
        ))
    })
}

/// Words and gold (UPOS, XPOS) of CoNLL-U sentences, for tagger training.
pub fn tagged_sentences(sentences: &[Sentence]) -> Vec<TaggedSentence> {
    sentences
        .iter()
        .map(|s| TaggedSentence {
            words: s.words.iter().map(|w| w.form.clone()).collect(),
            tags: s
                .words
                .iter()
                .map(|w| (w.upos.clone(), w.xpos.clone()))
                .collect(),
        })
        .collect()
}

/// Gold trees of CoNLL-U sentences, for parser training. Missing heads become 0 (the trainer skips
/// sentences that are not single-rooted trees).
pub fn parse_sentences(sentences: &[Sentence]) -> Vec<ParseSentence> {
    sentences
        .iter()
        .map(|s| ParseSentence {
            words: s.words.iter().map(|w| w.form.clone()).collect(),
            upos: s.words.iter().map(|w| w.upos.clone()).collect(),
            xpos: s.words.iter().map(|w| w.xpos.clone()).collect(),
            heads: s.words.iter().map(|w| w.head.unwrap_or(0)).collect(),
            labels: s.words.iter().map(|w| w.deprel.clone()).collect(),
        })
        .collect()
}

/// Replace the tags of parser sentences with the tagger's predictions (as the parser sees at run time).
pub fn retag(tagger: &Tagger, sentences: &mut [ParseSentence]) {
    for s in sentences {
        let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
        let classes = tagger.tag(&words);
        s.upos = classes
            .iter()
            .map(|&c| tagger.upos(c).to_string())
            .collect();
        s.xpos = classes
            .iter()
            .map(|&c| tagger.xpos(c).to_string())
            .collect();
    }
}

/// Parser training sentences with tags predicted by taggers trained on the other folds
/// ("jackknifing"), so the parser learns from the kind of tag errors it will see at run time.
pub fn jackknife_tags(
    train: &[Sentence],
    folds: usize,
    opts: tagger::TaggerOptions,
    mut log: impl FnMut(&str),
) -> Vec<ParseSentence> {
    let mut out = parse_sentences(train);
    let folds = folds.max(2);
    for k in 0..folds {
        let rest: Vec<Sentence> = train
            .iter()
            .enumerate()
            .filter(|(i, _)| i % folds != k)
            .map(|(_, s)| s.clone())
            .collect();
        let (fold_tagger, _) = Tagger::train(&tagged_sentences(&rest), &[], opts, |_| {});
        let mut held: Vec<(usize, ParseSentence)> = out
            .iter()
            .enumerate()
            .filter(|(i, _)| i % folds == k)
            .map(|(i, s)| (i, s.clone()))
            .collect();
        for (_, s) in held.iter_mut() {
            retag(&fold_tagger, std::slice::from_mut(s));
        }
        for (i, s) in held {
            out[i] = s;
        }
        log(&format!("jackknife fold {}/{folds} tagged", k + 1));
    }
    out
}
