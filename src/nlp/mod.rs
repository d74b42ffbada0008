//! Linguistic analysis: tokenizer, part-of-speech tagger and dependency parser trained on
//! UD English-EWT, with models embedded in the binary.

pub mod conllu;
pub mod model_io;
pub mod perceptron;
pub mod tagger;

use conllu::Sentence;
use tagger::TaggedSentence;

/// Words and gold (UPOS, XPOS) of CoNLL-U sentences, for tagger training.
pub fn tagged_sentences(sentences: &[Sentence]) -> Vec<TaggedSentence> {
    sentences
        .iter()
        .map(|s| TaggedSentence {
            words: s.words.iter().map(|w| w.form.clone()).collect(),
            tags: s.words.iter().map(|w| (w.upos.clone(), w.xpos.clone())).collect(),
        })
        .collect()
}
