//! CoNLL-U reading and writing.
//!
//! The reader keeps everything a round trip needs: comment lines, multiword-token ranges (`n-m`)
//! and empty nodes (`n.1`) are stored verbatim next to the syntactic words, which are the only
//! lines the tagger and parser look at.

use std::fmt::Write as _;

/// One syntactic word (a line whose ID is a plain integer).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Word {
    /// 1-based position in the sentence.
    pub id: usize,
    pub form: String,
    pub lemma: String,
    pub upos: String,
    pub xpos: String,
    pub feats: String,
    /// Head position (0 = root); `None` when the column is `_`.
    pub head: Option<usize>,
    pub deprel: String,
    pub deps: String,
    pub misc: String,
}

/// A line that is not a syntactic word but must survive a round trip.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra {
    /// A multiword token `first-last` with its surface form and the rest of the line.
    MultiwordToken {
        first: usize,
        last: usize,
        line: String,
    },
    /// An empty node `after.k` (enhanced dependencies), kept verbatim.
    EmptyNode { after: usize, line: String },
}

impl Extra {
    /// The word ID this line is printed before (multiword tokens) or after (empty nodes).
    fn anchor(&self) -> usize {
        match self {
            Extra::MultiwordToken { first, .. } => *first,
            Extra::EmptyNode { after, .. } => *after,
        }
    }
}

/// One sentence of a CoNLL-U file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sentence {
    /// Comment lines including the leading `#`.
    pub comments: Vec<String>,
    pub words: Vec<Word>,
    pub extras: Vec<Extra>,
}

/// A malformed line, with its 1-based line number.
#[derive(Debug, thiserror::Error)]
#[error("CoNLL-U line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

/// Every multiword token of `sentence` spans words it has (`line`: where the sentence starts).
fn check_ranges(sentence: &Sentence, line: usize) -> Result<(), ParseError> {
    for extra in &sentence.extras {
        if let Extra::MultiwordToken { first, last, .. } = extra {
            if first > last || *first == 0 || *last > sentence.words.len() {
                return Err(ParseError {
                    line,
                    message: format!(
                        "multiword token {first}-{last} is not a range of the sentence's {} words",
                        sentence.words.len()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Parse CoNLL-U text. Sentences are separated by blank lines; a missing final blank line is fine,
/// and so is a leading byte-order mark. Every word, multiword-token and empty-node line has the
/// format's 10 tab-separated columns (a line of 9 or 11 was read with columns made up or
/// dropped), and a multiword token's range lies within its sentence.
pub fn parse(text: &str) -> Result<Vec<Sentence>, ParseError> {
    let text = aesop_core::input::without_bom(text);
    let mut sentences = Vec::new();
    let mut current = Sentence::default();
    // The first line of the current sentence, named when its multiword ranges are wrong.
    let mut sentence_start = 1;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() {
            if !current.words.is_empty() || !current.comments.is_empty() {
                check_ranges(&current, sentence_start)?;
                sentences.push(std::mem::take(&mut current));
            }
            sentence_start = line_no + 1;
            continue;
        }
        if line.starts_with('#') {
            current.comments.push(line.to_string());
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let err = |message: String| ParseError {
            line: line_no,
            message,
        };
        if cols.len() != 10 {
            return Err(err(format!(
                "expected 10 tab-separated columns, found {}",
                cols.len()
            )));
        }
        let id = cols[0];
        if let Some((a, b)) = id.split_once('-') {
            let first = a.parse().map_err(|_| err(format!("bad range ID {id:?}")))?;
            let last = b.parse().map_err(|_| err(format!("bad range ID {id:?}")))?;
            current.extras.push(Extra::MultiwordToken {
                first,
                last,
                line: line.to_string(),
            });
            continue;
        }
        if let Some((a, _)) = id.split_once('.') {
            let after = a
                .parse()
                .map_err(|_| err(format!("bad empty-node ID {id:?}")))?;
            current.extras.push(Extra::EmptyNode {
                after,
                line: line.to_string(),
            });
            continue;
        }
        let id: usize = id.parse().map_err(|_| err(format!("bad word ID {id:?}")))?;
        if id != current.words.len() + 1 {
            return Err(err(format!(
                "word ID {id} out of sequence (expected {})",
                current.words.len() + 1
            )));
        }
        let head = match cols.get(6).copied() {
            None | Some("_") => None,
            Some(h) => Some(h.parse().map_err(|_| err(format!("bad HEAD {h:?}")))?),
        };
        if cols[1].is_empty() {
            return Err(err(
                "empty FORM (write `_` for an underscore word)".to_string()
            ));
        }
        current.words.push(Word {
            id,
            form: cols[1].to_string(),
            lemma: cols[2].to_string(),
            upos: cols[3].to_string(),
            xpos: cols[4].to_string(),
            feats: cols[5].to_string(),
            head,
            deprel: cols[7].to_string(),
            deps: cols[8].to_string(),
            misc: cols[9].to_string(),
        });
    }
    if !current.words.is_empty() || !current.comments.is_empty() {
        check_ranges(&current, sentence_start)?;
        sentences.push(current);
    }
    // Heads pointing outside the sentence would make the evaluator and parser index out of range.
    for s in &sentences {
        let n = s.words.len();
        if let Some(w) = s.words.iter().find(|w| w.head.is_some_and(|h| h > n)) {
            return Err(ParseError {
                line: 0,
                message: format!(
                    "word {} ({:?}) has HEAD outside its sentence of {n} words",
                    w.id, w.form
                ),
            });
        }
    }
    Ok(sentences)
}

fn blank(s: &str) -> &str {
    if s.is_empty() {
        "_"
    } else {
        s
    }
}

/// Write sentences as CoNLL-U (each followed by a blank line).
pub fn write(sentences: &[Sentence]) -> String {
    let mut out = String::new();
    for s in sentences {
        for c in &s.comments {
            out.push_str(c);
            out.push('\n');
        }
        let mut extras: Vec<&Extra> = s.extras.iter().collect();
        extras.sort_by_key(|e| e.anchor());
        let mut next_extra = 0;
        // Empty nodes numbered 0.k come before word 1.
        while next_extra < extras.len()
            && matches!(extras[next_extra], Extra::EmptyNode { after: 0, .. })
        {
            push_extra(&mut out, extras[next_extra]);
            next_extra += 1;
        }
        for w in &s.words {
            while next_extra < extras.len()
                && matches!(extras[next_extra], Extra::MultiwordToken { first, .. } if *first <= w.id)
            {
                push_extra(&mut out, extras[next_extra]);
                next_extra += 1;
            }
            let head = w.head.map_or_else(|| "_".to_string(), |h| h.to_string());
            let _ = writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                w.id,
                blank(&w.form),
                blank(&w.lemma),
                blank(&w.upos),
                blank(&w.xpos),
                blank(&w.feats),
                head,
                blank(&w.deprel),
                blank(&w.deps),
                blank(&w.misc)
            );
            while next_extra < extras.len()
                && matches!(extras[next_extra], Extra::EmptyNode { after, .. } if *after <= w.id)
            {
                push_extra(&mut out, extras[next_extra]);
                next_extra += 1;
            }
        }
        for e in &extras[next_extra..] {
            push_extra(&mut out, e);
        }
        out.push('\n');
    }
    out
}

fn push_extra(out: &mut String, e: &Extra) {
    match e {
        Extra::MultiwordToken { line, .. } | Extra::EmptyNode { line, .. } => {
            out.push_str(line);
            out.push('\n');
        }
    }
}

/// Accuracy of `predicted` against `gold` (same sentences and words, e.g. from `--conllu`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scores {
    pub words: usize,
    pub upos: f64,
    pub xpos: f64,
    /// Unlabelled attachment score: fraction of words with the gold head.
    pub uas: f64,
    /// Labelled attachment score: gold head and gold relation (full relation with subtype).
    pub las: f64,
}

/// Compare two parses of the same words. Punctuation is scored like every other word (CoNLL 2018 style).
pub fn evaluate(gold: &[Sentence], predicted: &[Sentence]) -> anyhow::Result<Scores> {
    anyhow::ensure!(
        gold.len() == predicted.len(),
        "gold has {} sentences, prediction {}",
        gold.len(),
        predicted.len()
    );
    let (mut n, mut upos, mut xpos, mut uas, mut las) = (0usize, 0usize, 0usize, 0usize, 0usize);
    for (i, (g, p)) in gold.iter().zip(predicted).enumerate() {
        anyhow::ensure!(
            g.words.len() == p.words.len(),
            "sentence {} has a different number of words",
            i + 1
        );
        for (gw, pw) in g.words.iter().zip(&p.words) {
            n += 1;
            upos += usize::from(gw.upos == pw.upos);
            xpos += usize::from(gw.xpos == pw.xpos);
            if gw.head == pw.head {
                uas += 1;
                las += usize::from(gw.deprel == pw.deprel);
            }
        }
    }
    let frac = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    Ok(Scores {
        words: n,
        upos: frac(upos),
        xpos: frac(xpos),
        uas: frac(uas),
        las: frac(las),
    })
}
