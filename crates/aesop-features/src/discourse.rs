//! The `discourse` feature class (reference-free): a discourse role matrix (Lin, Ng & Kan 2011)
//! with the two extra feature sources of DICOMER (Lin, Liu, Ng & Kan 2012 §4): Explicit /
//! Non-Explicit roles and intra-cell role bigrams.
//!
//! # Relations (a shallow, lexicon-based stand-in for a PDTB discourse parser)
//! * **Connectives** ([`find_connectives`]): the lexicon `features/connectives.tsv` (see
//!   `features/ATTRIBUTION-connectives.md`) is matched on the lowercased tokens of each sentence,
//!   left to right, longest match first, without overlaps. An occurrence counts as a discourse
//!   connective ([`is_discourse_use`]) when the string's `connective_rate` (how often it is
//!   annotated as a connective) is ≥ [`MIN_CONNECTIVE_RATE`] (0.5), or when it is ≥
//!   [`MIN_CLAUSAL_RATE`] (0.2) and the parse shows a clause-linking use (`mark` or `cc` of a
//!   clause head: a verb or a word with its own subject or copula). The second rule keeps
//!   *and*, *so*, *after*, *as* between clauses (rates 0.23–0.45) and drops them between nouns
//!   (*cats and dogs*, *after the war*). The sense is the connective's most probable level-1
//!   sense (ties: Temporal, Contingency, Comparison, Expansion order).
//! * **Arguments** ([`connective_args`]): the connective attaches (the word of the connective
//!   whose head lies outside it) to a head word h. Arg2 = the tokens after the connective up to
//!   the end of h's subtree (to the end of the sentence when the connective is the root or ends
//!   h's subtree). Arg1 = the rest of the sentence (before the connective and after Arg2) when
//!   that holds a content word (*X because Y*, *When Y, X*, *X and Y*); otherwise the previous
//!   sentence (*However, Y*, *He also Y*), and a first sentence gives no relation.
//! * **Non-Explicit relations**: adjacent sentences i, i+1 not linked by an explicit relation
//!   (one with Arg1 in i and Arg2 in i+1) get EntRel when they share a content stem, else
//!   Expansion (the most frequent implicit sense); Arg1 = sentence i, Arg2 = sentence i+1.
//!
//! # Matrix ([`role_matrix`])
//! Rows = sentences, columns = the summary's content stems (Porter stems of lowercased tokens
//! that start with a letter or digit and are not on the SMART stop list), in order of first
//! occurrence. Cell (s, t) = the set of [`Role`]s (explicit or not, sense, Arg1/Arg2) of the
//! relation arguments in sentence s that contain a token with stem t; connective tokens belong
//! to no argument. An empty cell is `nil`.
//!
//! # Features ([`feature_names`], [`matrix_features`])
//! A cell is mapped to a set of role names in a *view*; an empty set becomes {nil}:
//! * sense view (10): `Temp.Arg1 Temp.Arg2 Cont.Arg1 Cont.Arg2 Comp.Arg1 Comp.Arg2 Exp.Arg1
//!   Exp.Arg2 EntRel nil` (EntRel's two arguments are one role: the relation is symmetric);
//! * type view (6): `E.Arg1 E.Arg2 N.Exp.Arg1 N.Exp.Arg2 N.EntRel nil` (DICOMER's E./N. source;
//!   explicit senses are left to the sense view to keep the count manageable);
//! * argument view (4): `Arg1 Arg2 EntRel nil` (the collapsed roles for length-3 transitions).
//!
//! A transition of length n is a choice of one role from each of n vertically adjacent cells of
//! a column (all combinations when cells hold several roles, as Lin et al. count them); its
//! probability = its count / the count of all length-n transitions in the matrix.
//! * `discourse.t2.A_B`: length-2 transitions, sense view (100);
//! * `discourse.en2.A_B`: length-2 transitions, type view (36);
//! * `discourse.t3.A_B_C`: length-3 transitions, argument view (64);
//! * `discourse.cell.A_B` (A before B in the sense-view order): share of non-nil cells holding
//!   both roles (DICOMER's intra-cell bigrams; 36);
//! * `discourse.explicit_per_sentence`, `discourse.explicit_{temporal,contingency,comparison,
//!   expansion}_per_sentence`: explicit relations per sentence; `discourse.inter_explicit_share`
//!   and `discourse.entrel_share`: share of adjacent sentence pairs linked by an explicit
//!   relation / by EntRel.
//!
//! Undefined values are NaN: transitions of length n with fewer than n sentences or no content
//! stem, cell bigrams without any non-nil cell, the per-sentence rates of an empty summary and
//! the pair shares of a summary with fewer than two sentences.

use super::{ClassSpec, ParseFeatures, ReferenceUse};
use aesop_text::nlp::{Analysis, AnalyzedSentence, Token};
use aesop_text::{porter, stopwords};
use anyhow::{bail, Context};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::sync::LazyLock;

/// The derived connective lexicon (built by `scripts/build/build-connectives`).
const CONNECTIVES_TSV: &str = include_str!("../../../features/connectives.tsv");

/// A connective occurrence counts when the string is annotated as a connective at least this
/// often.
pub const MIN_CONNECTIVE_RATE: f64 = 0.5;
/// Lower bar for occurrences whose parse shows a clause-linking use (`mark`/`cc` of a clause).
pub const MIN_CLAUSAL_RATE: f64 = 0.2;

/// Level-1 PDTB senses plus EntRel (entity-based coherence without a discourse relation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sense {
    Temporal,
    Contingency,
    Comparison,
    Expansion,
    EntRel,
}

impl Sense {
    /// The four level-1 senses, in the lexicon's column order.
    pub const LEVEL1: [Sense; 4] = [
        Sense::Temporal,
        Sense::Contingency,
        Sense::Comparison,
        Sense::Expansion,
    ];

    /// Short name used in feature names (`Temp`, `Cont`, `Comp`, `Exp`, `EntRel`).
    pub fn short(self) -> &'static str {
        match self {
            Sense::Temporal => "Temp",
            Sense::Contingency => "Cont",
            Sense::Comparison => "Comp",
            Sense::Expansion => "Exp",
            Sense::EntRel => "EntRel",
        }
    }
}

/// One lexicon entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Connective {
    /// Lowercased words, e.g. `["as", "a", "result"]`.
    pub words: Vec<String>,
    /// Share of the string's occurrences annotated as a discourse connective.
    pub rate: f64,
    /// Probabilities of Temporal, Contingency, Comparison, Expansion.
    pub sense_probs: [f64; 4],
}

impl Connective {
    /// The most probable level-1 sense (ties go to the earlier sense in [`Sense::LEVEL1`]).
    pub fn sense(&self) -> Sense {
        let mut best = 0;
        for k in 1..4 {
            if self.sense_probs[k] > self.sense_probs[best] {
                best = k;
            }
        }
        Sense::LEVEL1[best]
    }
}

/// A connective lexicon indexed by first word.
#[derive(Debug, Clone, Default)]
pub struct Lexicon {
    entries: Vec<Connective>,
    /// Entry indices per first word, longest connective first.
    by_first: HashMap<String, Vec<usize>>,
}

static EMBEDDED_LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    // The embedded file is a build-time constant checked by a unit test.
    Lexicon::parse(CONNECTIVES_TSV).expect("features/connectives.tsv is well formed")
});

impl Lexicon {
    /// The lexicon shipped in `features/connectives.tsv`.
    pub fn embedded() -> &'static Lexicon {
        &EMBEDDED_LEXICON
    }

    /// Parse the TSV format of `features/connectives.tsv` (`#` comments, a header, then
    /// connective, n_explicit, connective_rate, p_Temporal, p_Contingency, p_Comparison,
    /// p_Expansion).
    pub fn parse(tsv: &str) -> anyhow::Result<Lexicon> {
        let mut entries = Vec::new();
        let mut header_seen = false;
        for (k, line) in tsv.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if !header_seen {
                header_seen = true;
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() < 7 {
                bail!("connective lexicon line {}: expected 7 columns", k + 1);
            }
            let number = |i: usize| -> anyhow::Result<f64> {
                fields[i]
                    .trim()
                    .parse::<f64>()
                    .with_context(|| format!("connective lexicon line {}, column {}", k + 1, i + 1))
            };
            let words: Vec<String> = fields[0]
                .split_whitespace()
                .map(str::to_lowercase)
                .collect();
            if words.is_empty() {
                bail!("connective lexicon line {}: empty connective", k + 1);
            }
            entries.push(Connective {
                words,
                rate: number(2)?,
                sense_probs: [number(3)?, number(4)?, number(5)?, number(6)?],
            });
        }
        Ok(Lexicon::new(entries))
    }

    /// A lexicon of the given entries.
    pub fn new(entries: Vec<Connective>) -> Lexicon {
        let mut by_first: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            by_first.entry(e.words[0].clone()).or_default().push(i);
        }
        for list in by_first.values_mut() {
            list.sort_by_key(|&i| std::cmp::Reverse(entries[i].words.len()));
        }
        Lexicon { entries, by_first }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry for an exact (lowercase, space-separated) string.
    pub fn get(&self, connective: &str) -> Option<&Connective> {
        let words: Vec<&str> = connective.split_whitespace().collect();
        let first = words.first()?;
        self.by_first
            .get(*first)?
            .iter()
            .map(|&i| &self.entries[i])
            .find(|e| e.words.iter().map(String::as_str).eq(words.iter().copied()))
    }

    /// The longest connective whose words equal `words[start..]`'s first words.
    pub fn longest_match(&self, words: &[String], start: usize) -> Option<&Connective> {
        let first = words.get(start)?;
        self.by_first.get(first)?.iter().find_map(|&i| {
            let e = &self.entries[i];
            let end = start + e.words.len();
            (end <= words.len() && words[start..end] == e.words[..]).then_some(e)
        })
    }
}

/// A lexicon match in a sentence: tokens `start..end` (0-based).
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectiveMatch<'a> {
    pub start: usize,
    pub end: usize,
    pub connective: &'a Connective,
}

/// Lexicon matches in a sentence, left to right, longest first, non-overlapping (not yet
/// filtered by [`is_discourse_use`]).
pub fn find_connectives<'a>(
    lexicon: &'a Lexicon,
    sentence: &AnalyzedSentence,
) -> Vec<ConnectiveMatch<'a>> {
    let words: Vec<String> = sentence
        .tokens
        .iter()
        .map(|t| t.form.to_lowercase())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if let Some(c) = lexicon.longest_match(&words, i) {
            out.push(ConnectiveMatch {
                start: i,
                end: i + c.words.len(),
                connective: c,
            });
            i += c.words.len();
        } else {
            i += 1;
        }
    }
    out
}

/// The 0-based head of the connective (the head of its first word whose head lies outside the
/// connective); None when the connective is (or holds) the root.
fn attachment(sentence: &AnalyzedSentence, m: &ConnectiveMatch) -> Option<(usize, usize)> {
    for k in m.start..m.end.min(sentence.tokens.len()) {
        let head = sentence.tokens[k].head;
        if head == 0 {
            return None;
        }
        let h = head - 1;
        if !(m.start..m.end).contains(&h) && h < sentence.tokens.len() {
            return Some((k, h));
        }
    }
    None
}

/// Does this lexicon match act as a discourse connective? (See the module documentation; for
/// many connectives of one sentence, [`SentenceFacts::is_discourse_use`] finds the sentence's
/// facts once.)
pub fn is_discourse_use(sentence: &AnalyzedSentence, m: &ConnectiveMatch) -> bool {
    SentenceFacts::new(sentence).is_discourse_use(m)
}

/// The arguments of a connective within its sentence (token ranges).
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectiveArgs {
    pub arg2: Range<usize>,
    /// Arg1 when it lies in the same sentence (the tokens before the connective and after
    /// Arg2); None when it is the previous sentence.
    pub arg1_same_sentence: Option<Vec<Range<usize>>>,
}

/// What [`connective_args`] reads of a sentence, found once for all its connectives: a long
/// sentence may hold thousands of them (`if if if …`), and each search of the whole sentence
/// made the class quadratic in it (57 s and 10 GB for 96 kB).
pub struct SentenceFacts<'a> {
    sentence: &'a AnalyzedSentence,
    children: Vec<Vec<usize>>,
    /// The last token of each token's subtree, for the tokens a root reaches (all of them in
    /// a tree; a malformed parse's cycle is walked when asked).
    subtree_ends: Vec<Option<usize>>,
    /// `content_before[i]`: content tokens among the first `i`.
    content_before: Vec<usize>,
}

impl<'a> SentenceFacts<'a> {
    pub fn new(sentence: &'a AnalyzedSentence) -> SentenceFacts<'a> {
        let n = sentence.tokens.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, token) in sentence.tokens.iter().enumerate() {
            if (1..=n).contains(&token.head) {
                children[token.head - 1].push(i);
            }
        }
        let mut content_before = Vec::with_capacity(n + 1);
        content_before.push(0);
        for token in &sentence.tokens {
            let before = content_before.last().copied().unwrap_or(0);
            content_before.push(before + usize::from(non_stopword_stem(token).is_some()));
        }
        // Post-order from each root, so that a token's children are done before it.
        let mut subtree_ends: Vec<Option<usize>> = vec![None; n];
        let roots = (0..n).filter(|&i| !(1..=n).contains(&sentence.tokens[i].head));
        let mut stack: Vec<(usize, bool)> = roots.map(|r| (r, false)).collect();
        while let Some((x, children_done)) = stack.pop() {
            if children_done {
                let below = children[x].iter().filter_map(|&c| subtree_ends[c]).max();
                subtree_ends[x] = Some(below.map_or(x, |b| b.max(x)));
            } else if subtree_ends[x].is_none() {
                stack.push((x, true));
                stack.extend(children[x].iter().map(|&c| (c, false)));
            }
        }
        SentenceFacts {
            sentence,
            children,
            subtree_ends,
            content_before,
        }
    }

    /// Does this lexicon match act as a discourse connective? (See the module documentation.)
    pub fn is_discourse_use(&self, m: &ConnectiveMatch) -> bool {
        let rate = m.connective.rate;
        if rate >= MIN_CONNECTIVE_RATE {
            return true;
        }
        if rate < MIN_CLAUSAL_RATE {
            return false;
        }
        match attachment(self.sentence, m) {
            Some((k, h)) => {
                matches!(self.sentence.tokens[k].base_deprel(), "mark" | "cc")
                    && self.is_clause_head(h)
            }
            None => false,
        }
    }

    /// Is token `h` the head of a clause: a verb, or a word with its own subject or copula?
    fn is_clause_head(&self, h: usize) -> bool {
        let Some(t) = self.sentence.tokens.get(h) else {
            return false;
        };
        matches!(t.upos.as_str(), "VERB" | "AUX")
            || self.children[h].iter().any(|&c| {
                matches!(
                    self.sentence.tokens[c].base_deprel(),
                    "nsubj" | "csubj" | "cop" | "expl"
                )
            })
    }

    /// Last token index of the subtree of `root` (0-based): a walk down from `root`, linear in
    /// the subtree. A token counts once, so a malformed (cyclic) tree cannot loop forever.
    fn subtree_end(&self, root: usize) -> usize {
        if let Some(Some(end)) = self.subtree_ends.get(root) {
            return *end;
        }
        let n = self.children.len();
        let mut visited = vec![false; n];
        let (mut end, mut stack) = (root, vec![root]);
        while let Some(x) = stack.pop() {
            if x >= n || std::mem::replace(&mut visited[x], true) {
                continue;
            }
            end = end.max(x);
            stack.extend(&self.children[x]);
        }
        end
    }

    /// Content tokens in `range` (clamped to the sentence).
    fn content_in(&self, range: Range<usize>) -> usize {
        let n = self.children.len();
        let (start, end) = (range.start.min(n), range.end.min(n));
        self.content_before[end.max(start)] - self.content_before[start]
    }

    /// Arg2 and (if intra-sentential) Arg1 of a connective; see the module documentation.
    pub fn connective_args(&self, m: &ConnectiveMatch) -> ConnectiveArgs {
        let n = self.sentence.tokens.len();
        let last = n.saturating_sub(1);
        let hi = match attachment(self.sentence, m) {
            Some((_, h)) => {
                let end = self.subtree_end(h);
                if end < m.end {
                    last
                } else {
                    end
                }
            }
            None => last,
        };
        let arg2 = m.end.min(n)..(hi + 1).min(n).max(m.end.min(n));
        let before = 0..m.start.min(n);
        let after = (hi + 1).min(n)..n;
        let has_content = self.content_in(before.clone()) + self.content_in(after.clone()) > 0;
        ConnectiveArgs {
            arg2,
            arg1_same_sentence: has_content.then(|| {
                [before, after]
                    .into_iter()
                    .filter(|r| !r.is_empty())
                    .collect()
            }),
        }
    }
}

/// Arg2 and (if intra-sentential) Arg1 of a connective; see the module documentation. (For
/// many connectives of one sentence, [`SentenceFacts::connective_args`] finds the sentence's
/// facts once.)
pub fn connective_args(sentence: &AnalyzedSentence, m: &ConnectiveMatch) -> ConnectiveArgs {
    SentenceFacts::new(sentence).connective_args(m)
}

/// The Porter stem of a word that is not a stopword: lowercased, starting with a letter or
/// digit, not on the SMART stop list. Unlike `cohmetrix::content_stem` it reads no
/// part-of-speech tag: every word off the stop list counts, numbers included.
pub fn non_stopword_stem(token: &Token) -> Option<String> {
    let lower = token.form.to_lowercase();
    let first = lower.chars().next()?;
    if !first.is_alphanumeric() || stopwords::is_smart_common_word(&lower) {
        return None;
    }
    Some(porter::stem(&lower))
}

/// The non-stopword stems of a sentence.
pub fn sentence_stems(sentence: &AnalyzedSentence) -> Vec<String> {
    sentence
        .tokens
        .iter()
        .filter_map(non_stopword_stem)
        .collect()
}

/// A relation argument: some tokens of one sentence, as ranges in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgSpan {
    pub sentence: usize,
    pub ranges: Vec<Range<usize>>,
}

impl ArgSpan {
    /// The whole of sentence `sentence`, of `len` tokens.
    fn whole(sentence: usize, len: usize) -> ArgSpan {
        ArgSpan {
            sentence,
            ranges: std::iter::once(0..len).collect(),
        }
    }

    /// The token indices, in order.
    pub fn tokens(&self) -> Vec<usize> {
        self.ranges.iter().flat_map(Range::clone).collect()
    }
}

/// A discourse relation between two argument spans.
#[derive(Debug, Clone, PartialEq)]
pub struct Relation {
    pub explicit: bool,
    pub sense: Sense,
    pub arg1: ArgSpan,
    pub arg2: ArgSpan,
}

impl Relation {
    /// Does the relation link sentence `s - 1` (Arg1) to sentence `s` (Arg2)?
    fn links_previous(&self, s: usize) -> bool {
        s > 0 && self.arg1.sentence == s - 1 && self.arg2.sentence == s
    }
}

/// Explicit relations of an analysis, in text order.
pub fn explicit_relations(analysis: &Analysis, lexicon: &Lexicon) -> Vec<Relation> {
    let mut out = Vec::new();
    for (s, sentence) in analysis.sentences.iter().enumerate() {
        let mut facts = None;
        for m in find_connectives(lexicon, sentence) {
            let facts = facts.get_or_insert_with(|| SentenceFacts::new(sentence));
            if !facts.is_discourse_use(&m) {
                continue;
            }
            let args = facts.connective_args(&m);
            let arg1 = match args.arg1_same_sentence {
                Some(ranges) => ArgSpan {
                    sentence: s,
                    ranges,
                },
                None if s > 0 => ArgSpan::whole(s - 1, analysis.sentences[s - 1].tokens.len()),
                // A first sentence's connective has nothing to link back to.
                None => continue,
            };
            out.push(Relation {
                explicit: true,
                sense: m.connective.sense(),
                arg1,
                arg2: ArgSpan {
                    sentence: s,
                    ranges: vec![args.arg2],
                },
            });
        }
    }
    out
}

/// Explicit relations plus a Non-Explicit one (EntRel or Expansion) for every adjacent pair of
/// sentences without an explicit link.
pub fn relations(analysis: &Analysis, lexicon: &Lexicon) -> Vec<Relation> {
    let mut out = explicit_relations(analysis, lexicon);
    let stems: Vec<HashSet<String>> = analysis
        .sentences
        .iter()
        .map(|s| sentence_stems(s).into_iter().collect())
        .collect();
    // Sentences whose explicit relation links them to the one before, found in one pass.
    let mut linked = vec![false; analysis.sentences.len()];
    for r in out.iter().filter(|r| r.explicit) {
        if r.arg2.sentence > 0 && r.links_previous(r.arg2.sentence) {
            linked[r.arg2.sentence] = true;
        }
    }
    for s in 1..analysis.sentences.len() {
        if linked[s] {
            continue;
        }
        let sense = if stems[s - 1].is_disjoint(&stems[s]) {
            Sense::Expansion
        } else {
            Sense::EntRel
        };
        out.push(Relation {
            explicit: false,
            sense,
            arg1: ArgSpan::whole(s - 1, analysis.sentences[s - 1].tokens.len()),
            arg2: ArgSpan::whole(s, analysis.sentences[s].tokens.len()),
        });
    }
    out
}

/// A discourse role: which kind of relation, which argument (1 or 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role {
    pub explicit: bool,
    pub sense: Sense,
    pub arg: u8,
}

impl Role {
    /// The sense-view name (`Comp.Arg2`, `EntRel`).
    pub fn name(&self) -> String {
        match self.sense {
            Sense::EntRel => "EntRel".to_string(),
            s => format!("{}.Arg{}", s.short(), self.arg),
        }
    }
}

/// Rows = sentences, columns = content stems, cells = role sets. Only the cells that hold a
/// role are kept: the matrix is mostly nil, and a long summary's whole one is large (8,000
/// sentences by 8,000 stems in 96 kB of one-word sentences: 1.3 GB).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoleMatrix {
    pub terms: Vec<String>,
    /// Rows: the number of sentences.
    pub sentences: usize,
    /// The cells holding a role, by (term, sentence), so that a column reads in row order.
    cells: BTreeMap<(usize, usize), BTreeSet<Role>>,
}

impl RoleMatrix {
    /// Sense-view names of a cell, sorted (`["nil"]` for an empty cell); for tests and debugging.
    pub fn cell_names(&self, sentence: usize, term: &str) -> Vec<String> {
        let Some(col) = self.terms.iter().position(|t| t == term) else {
            return Vec::new();
        };
        if sentence >= self.sentences {
            return Vec::new();
        }
        let empty = BTreeSet::new();
        let cell = self.cell(sentence, col).unwrap_or(&empty);
        let names: BTreeSet<String> = cell.iter().map(Role::name).collect();
        if names.is_empty() {
            vec!["nil".to_string()]
        } else {
            names.into_iter().collect()
        }
    }
}

impl RoleMatrix {
    /// The roles of cell (`sentence`, term `col`); `None` when it is nil.
    pub fn cell(&self, sentence: usize, col: usize) -> Option<&BTreeSet<Role>> {
        self.cells.get(&(col, sentence))
    }

    /// The cells of column `col` that hold a role, in sentence order.
    fn column(&self, col: usize) -> impl Iterator<Item = (usize, &BTreeSet<Role>)> {
        self.cells
            .range((col, 0)..(col + 1, 0))
            .map(|(&(_, sentence), roles)| (sentence, roles))
    }
}

/// The discourse role matrix of an analysis given its relations.
pub fn role_matrix(analysis: &Analysis, relations: &[Relation]) -> RoleMatrix {
    let mut terms: Vec<String> = Vec::new();
    let mut column: HashMap<String, usize> = HashMap::new();
    // Each token's column (None for a word that is no content stem), found once.
    let token_columns: Vec<Vec<Option<usize>>> = analysis
        .sentences
        .iter()
        .map(|sentence| {
            sentence
                .tokens
                .iter()
                .map(|token| {
                    let stem = non_stopword_stem(token)?;
                    let next = terms.len();
                    let col = *column.entry(stem.clone()).or_insert(next);
                    if col == next {
                        terms.push(stem);
                    }
                    Some(col)
                })
                .collect()
        })
        .collect();
    // The token ranges of each role in each sentence, merged, so that a token is visited once
    // per role however many relations cover it (thousands of connectives in one sentence).
    let mut spans: BTreeMap<(usize, Role), Vec<Range<usize>>> = BTreeMap::new();
    for r in relations {
        for (span, arg) in [(&r.arg1, 1u8), (&r.arg2, 2u8)] {
            let role = Role {
                explicit: r.explicit,
                sense: r.sense,
                arg,
            };
            spans
                .entry((span.sentence, role))
                .or_default()
                .extend(span.ranges.iter().cloned());
        }
    }
    let mut cells: BTreeMap<(usize, usize), BTreeSet<Role>> = BTreeMap::new();
    for ((sentence, role), mut ranges) in spans {
        let Some(columns) = token_columns.get(sentence) else {
            continue;
        };
        ranges.sort_by_key(|r| r.start);
        let mut covered_to = 0;
        for range in ranges {
            let start = range.start.max(covered_to);
            let end = range.end.min(columns.len());
            for col in columns.get(start..end).unwrap_or(&[]).iter().flatten() {
                cells.entry((*col, sentence)).or_default().insert(role);
            }
            covered_to = covered_to.max(end);
        }
    }
    RoleMatrix {
        terms,
        sentences: analysis.sentences.len(),
        cells,
    }
}

/// Sense-view role names, in feature order.
pub const SENSE_ROLES: [&str; 10] = [
    "Temp.Arg1",
    "Temp.Arg2",
    "Cont.Arg1",
    "Cont.Arg2",
    "Comp.Arg1",
    "Comp.Arg2",
    "Exp.Arg1",
    "Exp.Arg2",
    "EntRel",
    "nil",
];
/// Type-view (Explicit / Non-Explicit) role names.
pub const TYPE_ROLES: [&str; 6] = [
    "E.Arg1",
    "E.Arg2",
    "N.Exp.Arg1",
    "N.Exp.Arg2",
    "N.EntRel",
    "nil",
];
/// Argument-view role names.
pub const ARG_ROLES: [&str; 4] = ["Arg1", "Arg2", "EntRel", "nil"];

fn sense_index(r: &Role) -> usize {
    match r.sense {
        Sense::EntRel => 8,
        s => 2 * (s as usize) + usize::from(r.arg == 2),
    }
}

fn type_index(r: &Role) -> usize {
    match (r.explicit, r.sense) {
        (true, _) => usize::from(r.arg == 2),
        (false, Sense::EntRel) => 4,
        (false, _) => 2 + usize::from(r.arg == 2),
    }
}

fn arg_index(r: &Role) -> usize {
    match r.sense {
        Sense::EntRel => 2,
        _ => usize::from(r.arg == 2),
    }
}

/// A cell in a view: sorted distinct role indices, `[nil]` when empty.
fn view_cell(cell: &BTreeSet<Role>, index: fn(&Role) -> usize, nil: usize) -> Vec<usize> {
    let set: BTreeSet<usize> = cell.iter().map(index).collect();
    if set.is_empty() {
        vec![nil]
    } else {
        set.into_iter().collect()
    }
}

/// Probabilities of the length-`n` role transitions of the matrix in one view (`k` roles, the
/// last one nil), indexed by the roles read as base-`k` digits (first role most significant).
/// All NaN when the matrix has no transition of that length.
fn transition_probabilities(
    m: &RoleMatrix,
    index: fn(&Role) -> usize,
    k: usize,
    n: usize,
) -> Vec<f64> {
    let mut counts = vec![0.0; k.pow(n as u32)];
    let mut total = 0.0;
    let rows = m.sentences;
    let windows_per_column = (rows + 1).saturating_sub(n);
    let nil = vec![k - 1];
    // A window of nil cells only is the code of n nils; a column's other windows are those
    // that touch one of its cells holding a role, the only ones read one by one.
    let all_nil = counts.len() - 1;
    for col in 0..m.terms.len() {
        let held: BTreeMap<usize, Vec<usize>> = m
            .column(col)
            .map(|(row, cell)| (row, view_cell(cell, index, k - 1)))
            .collect();
        let mut read = 0usize;
        let mut next_window = 0usize;
        for &row in held.keys() {
            let first = (row + 1).saturating_sub(n).max(next_window);
            let last = row.min(windows_per_column.saturating_sub(1));
            if windows_per_column == 0 || first > last {
                continue;
            }
            for start in first..=last {
                // Every combination of one role per cell.
                let mut codes = vec![0usize];
                for r in start..start + n {
                    let cell = held.get(&r).unwrap_or(&nil);
                    codes = codes
                        .iter()
                        .flat_map(|&c| cell.iter().map(move |&role| c * k + role))
                        .collect();
                }
                for c in codes {
                    counts[c] += 1.0;
                    total += 1.0;
                }
            }
            read += last + 1 - first;
            next_window = last + 1;
        }
        let nil_windows = (windows_per_column - read) as f64;
        counts[all_nil] += nil_windows;
        total += nil_windows;
    }
    if total == 0.0 {
        return vec![f64::NAN; counts.len()];
    }
    counts.iter().map(|c| c / total).collect()
}

/// Share of non-nil cells holding each pair of distinct sense-view roles (a < b, nil excluded).
fn cell_bigrams(m: &RoleMatrix) -> Vec<f64> {
    let k = SENSE_ROLES.len() - 1;
    let mut counts = vec![0.0; k * (k - 1) / 2];
    let mut cells = 0.0;
    {
        for cell in m.cells.values() {
            cells += 1.0;
            let roles: BTreeSet<usize> = cell.iter().map(sense_index).collect();
            let roles: Vec<usize> = roles.into_iter().collect();
            for (x, &a) in roles.iter().enumerate() {
                for &b in &roles[x + 1..] {
                    counts[pair_index(a, b, k)] += 1.0;
                }
            }
        }
    }
    if cells == 0.0 {
        return vec![f64::NAN; counts.len()];
    }
    counts.iter().map(|c| c / cells).collect()
}

/// Position of the pair (a, b), a < b < k, in row-major order of the upper triangle.
fn pair_index(a: usize, b: usize, k: usize) -> usize {
    a * (2 * k - a - 1) / 2 + (b - a - 1)
}

/// Names of the `n`-role sequences of a view, in code order.
fn sequence_names(roles: &[&str], n: usize) -> Vec<String> {
    let mut names = vec![String::new()];
    for _ in 0..n {
        names = names
            .iter()
            .flat_map(|prefix| {
                roles.iter().map(move |r| {
                    if prefix.is_empty() {
                        r.to_string()
                    } else {
                        format!("{prefix}_{r}")
                    }
                })
            })
            .collect();
    }
    names
}

/// Every feature name of the class, in output order.
pub fn feature_names() -> Vec<String> {
    let mut names = Vec::new();
    for s in sequence_names(&SENSE_ROLES, 2) {
        names.push(format!("discourse.t2.{s}"));
    }
    for s in sequence_names(&TYPE_ROLES, 2) {
        names.push(format!("discourse.en2.{s}"));
    }
    for s in sequence_names(&ARG_ROLES, 3) {
        names.push(format!("discourse.t3.{s}"));
    }
    let non_nil = &SENSE_ROLES[..SENSE_ROLES.len() - 1];
    for (x, a) in non_nil.iter().enumerate() {
        for b in &non_nil[x + 1..] {
            names.push(format!("discourse.cell.{a}_{b}"));
        }
    }
    names.push("discourse.explicit_per_sentence".to_string());
    for s in ["temporal", "contingency", "comparison", "expansion"] {
        names.push(format!("discourse.explicit_{s}_per_sentence"));
    }
    names.push("discourse.inter_explicit_share".to_string());
    names.push("discourse.entrel_share".to_string());
    names
}

/// The matrix features (transitions and cell bigrams), in [`feature_names`] order.
pub fn matrix_features(m: &RoleMatrix) -> Vec<f64> {
    let mut row = transition_probabilities(m, sense_index, SENSE_ROLES.len(), 2);
    row.extend(transition_probabilities(m, type_index, TYPE_ROLES.len(), 2));
    row.extend(transition_probabilities(m, arg_index, ARG_ROLES.len(), 3));
    row.extend(cell_bigrams(m));
    row
}

/// Relation counts: explicit relations per sentence (all, then per level-1 sense), and the
/// shares of adjacent pairs linked explicitly / by EntRel.
pub fn relation_features(n_sentences: usize, relations: &[Relation]) -> Vec<f64> {
    let per_sentence = |count: usize| {
        if n_sentences == 0 {
            f64::NAN
        } else {
            count as f64 / n_sentences as f64
        }
    };
    let explicit: Vec<&Relation> = relations.iter().filter(|r| r.explicit).collect();
    let mut row = vec![per_sentence(explicit.len())];
    for sense in Sense::LEVEL1 {
        row.push(per_sentence(
            explicit.iter().filter(|r| r.sense == sense).count(),
        ));
    }
    let pairs = n_sentences.saturating_sub(1);
    let linked = (1..n_sentences)
        .filter(|&s| explicit.iter().any(|r| r.links_previous(s)))
        .count();
    let entrel = relations
        .iter()
        .filter(|r| !r.explicit && r.sense == Sense::EntRel)
        .count();
    let share = |count: usize| {
        if pairs == 0 {
            f64::NAN
        } else {
            count as f64 / pairs as f64
        }
    };
    row.push(share(linked));
    row.push(share(entrel));
    row
}

/// Every feature of one analysed summary, in [`feature_names`] order.
pub fn discourse_features(analysis: &Analysis, lexicon: &Lexicon) -> Vec<f64> {
    let rels = relations(analysis, lexicon);
    let matrix = role_matrix(analysis, &rels);
    let mut row = matrix_features(&matrix);
    row.extend(relation_features(analysis.sentences.len(), &rels));
    row
}

/// The `discourse` class.
#[derive(Debug, Clone, Default)]
pub struct Discourse;

impl Discourse {
    pub fn new() -> Discourse {
        Discourse
    }
}

/// The `discourse` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "discourse",
    about: "discourse role matrix, DICOMER",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(Discourse::new())),
};

impl ParseFeatures for Discourse {
    const SPEC: &'static ClassSpec = &CLASS;
    fn names(&self) -> Vec<String> {
        feature_names()
    }
    fn row(&self, analysis: &Analysis) -> Vec<f64> {
        discourse_features(analysis, Lexicon::embedded())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_lexicon_parses() {
        let lex = Lexicon::embedded();
        assert_eq!(lex.len(), 81);
        let but = lex.get("but").expect("but");
        assert_eq!(but.sense(), Sense::Comparison);
        assert!((but.rate - 0.875).abs() < 1e-12);
        assert_eq!(
            lex.get("as a result").map(Connective::sense),
            Some(Sense::Contingency)
        );
        assert!(
            lex.get("if then").is_none(),
            "discontinuous forms are dropped"
        );
    }

    #[test]
    fn names_match_values() {
        let names = feature_names();
        assert_eq!(names.len(), 100 + 36 + 64 + 36 + 7);
        let unique: HashSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        assert!(names.iter().all(|n| n.is_ascii()));
        let row = discourse_features(&Analysis::default(), Lexicon::embedded());
        assert_eq!(row.len(), names.len());
        assert_eq!(pair_index(7, 8, 9), 35);
        assert_eq!(pair_index(0, 1, 9), 0);
        assert_eq!(pair_index(1, 2, 9), 8);
    }
}
