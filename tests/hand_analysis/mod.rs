//! Building analyses by hand, so feature tests do not depend on the tagger's or parser's
//! accuracy.
#![allow(dead_code)]

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

/// An analysis from sentences.
pub fn analysis(sentences: Vec<AnalyzedSentence>) -> Analysis {
    Analysis { sentences }
}

/// `|a − b| < 1e-9`, or both NaN.
pub fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-9
}

#[macro_export]
macro_rules! assert_close {
    ($a:expr, $b:expr) => {{
        let (a, b): (f64, f64) = ($a, $b);
        assert!(
            hand_analysis::close(a, b),
            "{} = {a}, expected {b}",
            stringify!($a)
        );
    }};
}
