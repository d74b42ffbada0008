//! Building analyses by hand, so feature tests do not depend on the tagger's or parser's
//! accuracy (`common::hand_analysis`).

use aesop::nlp::{Analysis, AnalyzedSentence, Token};

/// One sentence from (form, UPOS, 1-based head, relation) tuples; byte offsets are left 0.
pub fn sentence(tokens: &[(&str, &str, usize, &str)]) -> AnalyzedSentence {
    AnalyzedSentence {
        start: 0,
        end: 0,
        tokens: tokens
            .iter()
            .map(|&(form, upos, head, deprel)| Token {
                form: form.to_string(),
                start: 0,
                end: 0,
                upos: upos.to_string(),
                xpos: "_".to_string(),
                head,
                deprel: deprel.to_string(),
            })
            .collect(),
    }
}

/// One sentence from (form, UPOS, XPOS, 1-based head, relation) tuples; byte offsets are left 0.
pub fn sentence_with_xpos(tokens: &[(&str, &str, &str, usize, &str)]) -> AnalyzedSentence {
    AnalyzedSentence {
        start: 0,
        end: 0,
        tokens: tokens
            .iter()
            .map(|&(form, upos, xpos, head, deprel)| Token {
                form: form.to_string(),
                start: 0,
                end: 0,
                upos: upos.to_string(),
                xpos: xpos.to_string(),
                head,
                deprel: deprel.to_string(),
            })
            .collect(),
    }
}

/// A token: form, UPOS, 1-based head (0 = root), relation; XPOS `NNP` for PROPN, else `_`.
pub fn tok(form: &str, upos: &str, head: usize, deprel: &str) -> Token {
    Token {
        form: form.to_string(),
        start: 0,
        end: 0,
        upos: upos.to_string(),
        xpos: if upos == "PROPN" { "NNP" } else { "_" }.to_string(),
        head,
        deprel: deprel.to_string(),
    }
}

/// One sentence from tokens made with `tok`; byte offsets are left 0.
pub fn sentence_of(tokens: Vec<Token>) -> AnalyzedSentence {
    AnalyzedSentence {
        start: 0,
        end: 0,
        tokens,
    }
}

/// An analysis from sentences.
pub fn analysis(sentences: Vec<AnalyzedSentence>) -> Analysis {
    Analysis { sentences }
}
