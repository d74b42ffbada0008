//! Arc-hybrid transition-based dependency parser: averaged perceptron, greedy decoding, trained
//! with a dynamic oracle (Goldberg & Nivre 2013) and exploration. Labels are full UD relations
//! (with subtypes such as `nsubj:pass`, `obl:tmod`).
//!
//! The artificial root sits at the bottom of the stack and may take a dependent only when the
//! buffer is empty and one word is left, so every parse has exactly one root word. Non-projective
//! training trees need no special case: the oracle picks the cheapest transitions, which recovers
//! the largest reachable (projective) part of the tree.

use std::collections::HashMap;

use super::model_io::{Reader, Writer};
use super::perceptron::{argmax_where, Feature, Model, Trainer, XorShift};

/// A training or evaluation sentence: words, their tags, gold heads (0 = root, 1-based) and relations.
#[derive(Debug, Clone)]
pub struct ParseSentence {
    pub words: Vec<String>,
    pub upos: Vec<String>,
    pub xpos: Vec<String>,
    pub heads: Vec<usize>,
    pub labels: Vec<String>,
}

/// Training options.
#[derive(Debug, Clone, Copy)]
pub struct ParserOptions {
    pub max_iterations: usize,
    pub seed: u64,
    /// From the second iteration on, follow the model's own (possibly wrong) transition with this probability.
    pub explore: f64,
}

impl Default for ParserOptions {
    fn default() -> Self {
        ParserOptions {
            max_iterations: 12,
            seed: 1,
            explore: 0.9,
        }
    }
}

/// A trained parser.
#[derive(Debug, Clone)]
pub struct Parser {
    labels: Vec<String>,
    model: Model,
}

const NONE: usize = usize::MAX;
/// Feature frequencies for pruning are counted over the first iterations (gold paths, then
/// the first explored ones).
const COUNT_ITERATIONS: usize = 2;
/// Candidate frequency thresholds, tried in increasing order.
const PRUNE_MIN_COUNTS: &[u32] = &[2, 3, 5, 8, 12];
/// Dev LAS a pruned model may lose.
const PRUNE_TOLERANCE: f64 = 0.002;
/// Parser weights are quantized more coarsely than the default (1/256 of the largest): it
/// shrinks the file by a sixth for about 0.02 points of dev LAS.
const PARSER_PRUNE_FRACTION: f32 = 1.0 / 256.0;
const SHIFT: usize = 0;

#[cfg(test)]
fn left(label: usize) -> usize {
    1 + 2 * label
}
fn right(label: usize) -> usize {
    2 + 2 * label
}
/// (is_left, label) of a non-shift transition.
fn arc_of(t: usize) -> (bool, usize) {
    ((t - 1).is_multiple_of(2), (t - 1) / 2)
}

/// Per-token feature atoms (hashes), index 0 is the root.
struct Atoms {
    word: Vec<u32>,
    upos: Vec<u32>,
    xpos: Vec<u32>,
}

impl Atoms {
    fn new(words: &[&str], upos: &[&str], xpos: &[&str]) -> Atoms {
        let n = words.len();
        let mut a = Atoms {
            word: Vec::with_capacity(n + 1),
            upos: Vec::with_capacity(n + 1),
            xpos: Vec::with_capacity(n + 1),
        };
        a.word.push(Feature::new(0).str("<root>").key());
        a.upos.push(Feature::new(1).str("<root>").key());
        a.xpos.push(Feature::new(2).str("<root>").key());
        for (i, word) in words.iter().enumerate() {
            a.word.push(Feature::new(0).str(&word.to_lowercase()).key());
            a.upos.push(
                Feature::new(1)
                    .str(upos.get(i).copied().unwrap_or("_"))
                    .key(),
            );
            a.xpos.push(
                Feature::new(2)
                    .str(xpos.get(i).copied().unwrap_or("_"))
                    .key(),
            );
        }
        a
    }
}

/// Parser configuration.
struct State {
    n: usize,
    stack: Vec<usize>,
    /// Front of the buffer (1-based); `n + 1` when empty.
    b: usize,
    heads: Vec<usize>,
    labels: Vec<usize>,
    lc1: Vec<usize>,
    lc2: Vec<usize>,
    rc1: Vec<usize>,
    rc2: Vec<usize>,
    lval: Vec<u32>,
    rval: Vec<u32>,
    /// Bit set of the relations (mod 64) of left and right dependents.
    lset: Vec<u64>,
    rset: Vec<u64>,
}

impl State {
    fn new(n: usize) -> State {
        State {
            n,
            stack: vec![0],
            b: 1,
            heads: vec![NONE; n + 1],
            labels: vec![NONE; n + 1],
            lc1: vec![NONE; n + 1],
            lc2: vec![NONE; n + 1],
            rc1: vec![NONE; n + 1],
            rc2: vec![NONE; n + 1],
            lval: vec![0; n + 1],
            rval: vec![0; n + 1],
            lset: vec![0; n + 1],
            rset: vec![0; n + 1],
        }
    }

    fn terminal(&self) -> bool {
        self.b > self.n && self.stack.len() == 1
    }

    fn s(&self, k: usize) -> usize {
        if k < self.stack.len() {
            self.stack[self.stack.len() - 1 - k]
        } else {
            NONE
        }
    }

    fn buf(&self, k: usize) -> usize {
        if self.b + k <= self.n {
            self.b + k
        } else {
            NONE
        }
    }

    fn valid(&self, t: usize) -> bool {
        let depth = self.stack.len();
        let buffer_empty = self.b > self.n;
        if t == SHIFT {
            return !buffer_empty;
        }
        let (is_left, _) = arc_of(t);
        if is_left {
            depth >= 2 && !buffer_empty
        } else {
            depth > 2 || (depth == 2 && buffer_empty)
        }
    }

    fn add_arc(&mut self, h: usize, d: usize, label: usize) {
        self.heads[d] = h;
        self.labels[d] = label;
        let bit = 1u64 << (label % 64);
        if d < h {
            self.lval[h] += 1;
            self.lset[h] |= bit;
            if self.lc1[h] == NONE || d < self.lc1[h] {
                self.lc2[h] = self.lc1[h];
                self.lc1[h] = d;
            } else if self.lc2[h] == NONE || d < self.lc2[h] {
                self.lc2[h] = d;
            }
        } else {
            self.rval[h] += 1;
            self.rset[h] |= bit;
            if self.rc1[h] == NONE || d > self.rc1[h] {
                self.rc2[h] = self.rc1[h];
                self.rc1[h] = d;
            } else if self.rc2[h] == NONE || d > self.rc2[h] {
                self.rc2[h] = d;
            }
        }
    }

    fn apply(&mut self, t: usize) {
        if t == SHIFT {
            self.stack.push(self.b);
            self.b += 1;
            return;
        }
        let (is_left, label) = arc_of(t);
        let Some(s0) = self.stack.pop() else { return };
        let head = if is_left { self.b } else { self.s(0) };
        self.add_arc(head, s0, label);
    }

    /// Cost of every transition (`usize::MAX` when invalid): gold arcs it makes unreachable, plus 1
    /// for a wrong relation on a gold arc. Structural costs are computed once for the three moves.
    fn costs(
        &self,
        gold_heads: &[usize],
        gold_labels: &[usize],
        on_stack: &[bool],
        out: &mut [usize],
    ) {
        let s0 = self.s(0);
        let s1 = self.s(1);
        let b = self.b;
        let in_buffer = |i: usize| i != NONE && i >= b && i <= self.n;
        let shift = if b <= self.n {
            let h = gold_heads[b];
            let lost_head = usize::from(h < b && on_stack[h] && h != s0);
            let lost_deps = self
                .stack
                .iter()
                .filter(|&&d| d != 0 && gold_heads[d] == b)
                .count();
            lost_head + lost_deps
        } else {
            usize::MAX
        };
        // (structural cost, gold relation if the arc itself is gold) for LEFT and RIGHT.
        let (left_cost, right_cost) = if s0 != 0 && s0 != NONE {
            let h = gold_heads[s0];
            let deps = (b..=self.n).filter(|&d| gold_heads[d] == s0).count();
            let left = if h == b {
                (deps, Some(gold_labels[s0]))
            } else {
                (deps + usize::from(h == s1 || in_buffer(h)), None)
            };
            let right = if h == s1 {
                (deps, Some(gold_labels[s0]))
            } else {
                (deps + usize::from(in_buffer(h)), None)
            };
            (left, right)
        } else {
            ((usize::MAX, None), (usize::MAX, None))
        };
        for (t, c) in out.iter_mut().enumerate() {
            *c = if !self.valid(t) {
                usize::MAX
            } else if t == SHIFT {
                shift
            } else {
                let (is_left, label) = arc_of(t);
                let (base, gold) = if is_left { left_cost } else { right_cost };
                base + usize::from(gold.is_some_and(|g| g != label))
            };
        }
    }

    fn features(&self, a: &Atoms, out: &mut Vec<u32>) {
        out.clear();
        const PAD: u32 = 0x5bd1_e995;
        let w = |i: usize| if i == NONE { PAD } else { a.word[i] };
        let t = |i: usize| if i == NONE { PAD } else { a.xpos[i] };
        let u = |i: usize| if i == NONE { PAD } else { a.upos[i] };
        let lab = |i: usize| {
            if i == NONE || self.labels[i] == NONE {
                u32::MAX
            } else {
                self.labels[i] as u32
            }
        };
        let get = |v: &Vec<usize>, i: usize| if i == NONE { NONE } else { v[i] };
        let (s0, s1, s2) = (self.s(0), self.s(1), self.s(2));
        let (b0, b1, b2) = (self.buf(0), self.buf(1), self.buf(2));
        let (s0l, s0r, s1r, s1l, b0l) = (
            get(&self.lc1, s0),
            get(&self.rc1, s0),
            get(&self.rc1, s1),
            get(&self.lc1, s1),
            get(&self.lc1, b0),
        );
        let (s0l2, s0r2, b0l2) = (get(&self.lc2, s0), get(&self.rc2, s0), get(&self.lc2, b0));
        let dist = |x: usize, y: usize| -> u32 {
            if x == NONE || y == NONE {
                u32::MAX
            } else {
                let d = y.abs_diff(x);
                if d < 5 {
                    d as u32
                } else if d < 10 {
                    5
                } else {
                    6
                }
            }
        };
        let d01 = dist(s0, b0);
        let d10 = dist(s1, s0);
        let val = |v: &Vec<u32>, i: usize| if i == NONE { u32::MAX } else { v[i].min(4) };
        let set = |v: &Vec<u64>, i: usize| if i == NONE { u64::MAX } else { v[i] };
        let mut k = 0u8;
        let mut f = |parts: &[u32]| {
            let mut h = Feature::new(k);
            for &p in parts {
                h = h.num(p);
            }
            out.push(h.key());
            k = k.wrapping_add(1);
        };
        f(&[]);
        // Single positions.
        f(&[w(s0)]);
        f(&[t(s0)]);
        f(&[w(s0), t(s0)]);
        f(&[u(s0)]);
        f(&[w(s1)]);
        f(&[t(s1)]);
        f(&[w(s1), t(s1)]);
        f(&[w(b0)]);
        f(&[t(b0)]);
        f(&[w(b0), t(b0)]);
        f(&[u(b0)]);
        f(&[w(b1)]);
        f(&[t(b1)]);
        f(&[w(b1), t(b1)]);
        f(&[t(b2)]);
        f(&[w(b2)]);
        f(&[t(s2)]);
        // Pairs around the two decisions (s0 with b0 for LEFT, s1 with s0 for RIGHT).
        f(&[w(s0), t(s0), w(b0), t(b0)]);
        f(&[w(s0), t(s0), w(b0)]);
        f(&[w(s0), w(b0), t(b0)]);
        f(&[w(s0), t(s0), t(b0)]);
        f(&[t(s0), w(b0), t(b0)]);
        f(&[w(s0), w(b0)]);
        f(&[t(s0), t(b0)]);
        f(&[t(b0), t(b1)]);
        f(&[w(s1), t(s1), w(s0), t(s0)]);
        f(&[w(s1), w(s0)]);
        f(&[t(s1), t(s0)]);
        f(&[w(s1), t(s0)]);
        f(&[t(s1), w(s0)]);
        f(&[w(s1), t(s1), t(s0)]);
        f(&[t(s1), w(s0), t(s0)]);
        // Triples.
        f(&[t(b0), t(b1), t(b2)]);
        f(&[t(s0), t(b0), t(b1)]);
        f(&[t(s1), t(s0), t(b0)]);
        f(&[t(s2), t(s1), t(s0)]);
        f(&[t(s1), t(s0), t(b0), t(b1)]);
        f(&[w(s0), t(b0), t(b1)]);
        f(&[t(s1), w(s0), t(b0)]);
        // Children.
        f(&[t(s0), t(s0l), t(b0)]);
        f(&[t(s0), t(s0r), t(b0)]);
        f(&[t(s0), t(b0), t(b0l)]);
        f(&[t(s1), t(s1r), t(s0)]);
        f(&[t(s1), t(s1l), t(s0)]);
        f(&[t(s1), t(s0), t(s0l)]);
        f(&[t(s1), t(s0), t(s0r)]);
        f(&[t(s0), t(s0l), t(s0l2)]);
        f(&[t(s0), t(s0r), t(s0r2)]);
        f(&[t(b0), t(b0l), t(b0l2)]);
        f(&[w(s0l), t(s0l)]);
        f(&[w(s0r), t(s0r)]);
        f(&[w(b0l), t(b0l)]);
        f(&[w(s1r), t(s1r)]);
        // Relations of children.
        f(&[lab(s0l), t(s0)]);
        f(&[lab(s0r), t(s0)]);
        f(&[lab(s1r), t(s1)]);
        f(&[lab(b0l), t(b0)]);
        f(&[lab(s0l), lab(s0r), w(s0)]);
        f(&[
            t(s0),
            (set(&self.lset, s0) ^ (set(&self.lset, s0) >> 32)) as u32,
        ]);
        f(&[
            t(s0),
            (set(&self.rset, s0) ^ (set(&self.rset, s0) >> 32)) as u32,
        ]);
        f(&[
            t(b0),
            (set(&self.lset, b0) ^ (set(&self.lset, b0) >> 32)) as u32,
        ]);
        f(&[
            t(s1),
            (set(&self.rset, s1) ^ (set(&self.rset, s1) >> 32)) as u32,
        ]);
        // Distance and valency.
        f(&[w(s0), d01]);
        f(&[t(s0), d01]);
        f(&[w(b0), d01]);
        f(&[t(b0), d01]);
        f(&[t(s0), t(b0), d01]);
        f(&[t(s1), t(s0), d10]);
        f(&[w(s1), d10]);
        f(&[w(s0), d10]);
        f(&[t(s0), val(&self.lval, s0), val(&self.rval, s0)]);
        f(&[w(s0), val(&self.rval, s0)]);
        f(&[t(b0), val(&self.lval, b0)]);
        f(&[w(b0), val(&self.lval, b0)]);
        f(&[t(s1), val(&self.rval, s1)]);
        f(&[u(s1), u(s0), u(b0)]);
        f(&[u(s0), u(b0), u(b1)]);
        f(&[w(b0), w(b1)]);
        f(&[t(s1), t(b0)]);
        f(&[w(s1), w(b0)]);
        f(&[w(s0), t(s0), t(b0), t(b1)]);
        f(&[t(s0), w(b0), t(b1)]);
        f(&[w(s2), t(s2)]);
        f(&[u(s0), u(s0l), u(s0r)]);
        f(&[t(b0), lab(b0l), lab(b0l2)]);
        f(&[t(s0), lab(s0l), lab(s0l2)]);
        // Is the buffer empty / how deep is the stack (root attachment and long sentences).
        f(&[u32::from(b0 == NONE), self.stack.len().min(4) as u32]);
    }
}

impl Parser {
    /// Train on `train` (gold or automatically tagged); after each iteration the averaged model is
    /// evaluated on `dev` and the best (by labelled attachment) is kept. Returns the parser and the
    /// dev (UAS, LAS) per iteration.
    pub fn train(
        train: &[ParseSentence],
        dev: &[ParseSentence],
        opts: ParserOptions,
        mut log: impl FnMut(&str),
    ) -> (Parser, Vec<(f64, f64)>) {
        let mut label_index: HashMap<String, usize> = HashMap::new();
        let mut labels: Vec<String> = Vec::new();
        let usable: Vec<&ParseSentence> = train
            .iter()
            .filter(|s| {
                let n = s.words.len();
                n > 0
                    && s.heads.len() == n
                    && s.labels.len() == n
                    && s.heads.iter().all(|&h| h <= n)
                    && s.heads.iter().filter(|&&h| h == 0).count() == 1
            })
            .collect();
        for s in &usable {
            for l in &s.labels {
                if !label_index.contains_key(l) {
                    label_index.insert(l.clone(), labels.len());
                    labels.push(l.clone());
                }
            }
        }
        let nclasses = 1 + 2 * labels.len();
        let mut trainer = Trainer::new(nclasses);
        let mut rng = XorShift::new(opts.seed);
        let mut order: Vec<usize> = (0..usable.len()).collect();
        let mut scores = vec![0.0f32; nclasses];
        let mut feats = Vec::with_capacity(96);
        let mut best: Option<(f64, Parser)> = None;
        let mut history = Vec::new();
        for iteration in 1..=opts.max_iterations {
            rng.shuffle(&mut order);
            for &si in &order {
                let s = usable[si];
                let n = s.words.len();
                let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
                let upos: Vec<&str> = s.upos.iter().map(String::as_str).collect();
                let xpos: Vec<&str> = s.xpos.iter().map(String::as_str).collect();
                let atoms = Atoms::new(&words, &upos, &xpos);
                let mut gold_heads = vec![NONE; n + 1];
                let mut gold_labels = vec![NONE; n + 1];
                for i in 0..n {
                    gold_heads[i + 1] = s.heads[i];
                    gold_labels[i + 1] = label_index[&s.labels[i]];
                }
                let mut state = State::new(n);
                let mut on_stack = vec![false; n + 2];
                on_stack[0] = true;
                let mut costs = vec![usize::MAX; nclasses];
                while !state.terminal() {
                    state.features(&atoms, &mut feats);
                    trainer.tick();
                    if iteration <= COUNT_ITERATIONS {
                        trainer.count(&feats);
                    }
                    trainer.scores(&feats, &mut scores);
                    state.costs(&gold_heads, &gold_labels, &on_stack, &mut costs);
                    let min_cost = costs.iter().copied().min().unwrap_or(usize::MAX);
                    let Some(predicted) = argmax_where(&scores, |t| costs[t] != usize::MAX) else {
                        break;
                    };
                    let Some(oracle) = argmax_where(&scores, |t| costs[t] == min_cost) else {
                        break;
                    };
                    let next = if costs[predicted] == min_cost {
                        predicted
                    } else {
                        trainer.update(oracle, predicted, &feats);
                        if iteration > 1 && rng.next_f64() < opts.explore {
                            predicted
                        } else {
                            oracle
                        }
                    };
                    if next == SHIFT {
                        on_stack[state.b] = true;
                    } else {
                        on_stack[state.s(0)] = false;
                    }
                    state.apply(next);
                }
            }
            let candidate = Parser {
                labels: labels.clone(),
                model: trainer.average(),
            };
            let (uas, las) = candidate.attachment(dev);
            log(&format!(
                "parser iteration {iteration}: dev UAS {uas:.4} LAS {las:.4}"
            ));
            history.push((uas, las));
            if best.as_ref().is_none_or(|(b, _)| las > *b) {
                // Keep the smallest frequency-pruned model that loses at most PRUNE_TOLERANCE LAS on dev.
                let mut chosen = candidate;
                for &min_count in PRUNE_MIN_COUNTS {
                    let pruned = Parser {
                        labels: labels.clone(),
                        model: trainer
                            .average_min_count(min_count)
                            .quantized(PARSER_PRUNE_FRACTION),
                    };
                    let (p_uas, p_las) = pruned.attachment(dev);
                    log(&format!(
                        "  features seen >= {min_count} times: {} weights, dev UAS {p_uas:.4} LAS {p_las:.4}",
                        pruned.model.nweights()
                    ));
                    if p_las + PRUNE_TOLERANCE >= las {
                        chosen = pruned;
                    } else {
                        break;
                    }
                }
                best = Some((las, chosen));
            }
        }
        let parser = match best {
            Some((_, p)) => p,
            None => Parser {
                labels,
                model: trainer.average(),
            },
        };
        (parser, history)
    }

    /// (UAS, LAS) on sentences with the tags they carry.
    pub fn attachment(&self, sentences: &[ParseSentence]) -> (f64, f64) {
        let (mut n, mut uas, mut las) = (0usize, 0usize, 0usize);
        for s in sentences {
            let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
            let upos: Vec<&str> = s.upos.iter().map(String::as_str).collect();
            let xpos: Vec<&str> = s.xpos.iter().map(String::as_str).collect();
            for (i, (h, l)) in self.parse(&words, &upos, &xpos).into_iter().enumerate() {
                n += 1;
                if s.heads.get(i) == Some(&h) {
                    uas += 1;
                    las += usize::from(s.labels.get(i).is_some_and(|g| g == self.label(l)));
                }
            }
        }
        if n == 0 {
            (1.0, 1.0)
        } else {
            (uas as f64 / n as f64, las as f64 / n as f64)
        }
    }

    /// (head, relation index) per word; heads are 1-based with 0 for the root.
    pub fn parse(&self, words: &[&str], upos: &[&str], xpos: &[&str]) -> Vec<(usize, usize)> {
        let n = words.len();
        if n == 0 {
            return Vec::new();
        }
        let atoms = Atoms::new(words, upos, xpos);
        let mut state = State::new(n);
        let mut scores = vec![0.0f32; self.model.nclasses];
        let mut feats = Vec::with_capacity(96);
        while !state.terminal() {
            state.features(&atoms, &mut feats);
            self.model.scores(&feats, &mut scores);
            // A valid transition always exists in a non-terminal state; SHIFT/RIGHT fallback keeps it total.
            let t = argmax_where(&scores, |t| state.valid(t)).unwrap_or(if state.b <= n {
                SHIFT
            } else {
                right(0)
            });
            state.apply(t);
        }
        let arcs: Vec<(usize, usize)> = (1..=n)
            .map(|i| {
                let h = if state.heads[i] == NONE {
                    0
                } else {
                    state.heads[i]
                };
                let l = if state.labels[i] == NONE {
                    0
                } else {
                    state.labels[i]
                };
                (h, l)
            })
            .collect();
        root_labels_consistent(&self.labels, arcs)
    }

    /// Name of relation index `l`.
    pub fn label(&self, l: usize) -> &str {
        self.labels.get(l).map_or("dep", String::as_str)
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The same parser with weights re-quantized at a coarser pruning threshold (smaller file).
    pub fn pruned(&self, prune_fraction: f32) -> Parser {
        Parser {
            labels: self.labels.clone(),
            model: self.model.quantized(prune_fraction),
        }
    }

    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        let mut w = Writer::new("parser");
        w.strings(&self.labels);
        w.model(&self.model);
        w.finish()
    }

    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Parser> {
        let mut r = Reader::new(bytes, "parser")?;
        let labels = r.strings()?;
        anyhow::ensure!(!labels.is_empty(), "parser model has no relations");
        let model = r.model()?;
        anyhow::ensure!(
            model.nclasses == 1 + 2 * labels.len(),
            "parser model class count mismatch"
        );
        Ok(Parser { labels, model })
    }
}

/// `root` exactly on the words headed by 0: the relation is scored with the arc, and in
/// sentences of tens of thousands of words the parser gave a few words `root` under another
/// head (invalid CoNLL-U). Such a word gets `dep`, UD's unspecified relation.
fn root_labels_consistent(labels: &[String], mut arcs: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let index_of = |name: &str| labels.iter().position(|l| l == name);
    let (Some(root), Some(dep)) = (index_of("root"), index_of("dep")) else {
        return arcs;
    };
    for (head, label) in &mut arcs {
        if *head == 0 {
            *label = root;
        } else if *label == root {
            *label = dep;
        }
    }
    arcs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_the_label_of_exactly_the_words_headed_by_zero() {
        let labels: Vec<String> = ["nsubj", "root", "dep"].map(String::from).to_vec();
        // Word 2 is headed by 0 but labelled nsubj; word 3 is labelled root under word 2.
        let arcs = vec![(2, 0), (0, 0), (2, 1), (2, 0)];
        assert_eq!(
            root_labels_consistent(&labels, arcs),
            vec![(2, 0), (0, 1), (2, 2), (2, 0)]
        );
    }

    /// Following the cheapest transition from the start rebuilds a projective gold tree exactly.
    #[test]
    fn oracle_reproduces_projective_tree() {
        // "She gave him books today": gave is the root; she, him, books, today depend on it.
        let gold_heads = [NONE, 2, 0, 2, 2, 2];
        let gold_labels = [NONE, 0, 1, 2, 3, 4];
        let n = 5;
        let mut state = State::new(n);
        let mut on_stack = vec![false; n + 2];
        on_stack[0] = true;
        let nclasses = 1 + 2 * 5;
        let mut costs = vec![0; nclasses];
        let mut steps = 0;
        while !state.terminal() {
            state.costs(&gold_heads, &gold_labels, &on_stack, &mut costs);
            let t = (0..nclasses)
                .min_by_key(|&t| costs[t])
                .expect("a transition");
            assert_eq!(costs[t], 0);
            if t == SHIFT {
                on_stack[state.b] = true;
            } else {
                on_stack[state.s(0)] = false;
            }
            state.apply(t);
            steps += 1;
            assert!(steps <= 2 * n, "too many transitions");
        }
        assert_eq!(&state.heads[1..], &gold_heads[1..]);
        assert_eq!(&state.labels[1..], &gold_labels[1..]);
        assert_eq!(steps, 2 * n);
    }

    #[test]
    fn costs_count_lost_arcs() {
        // Gold: 1 <- 2 (word 2 heads word 1), 2 <- root, 3 <- 2.
        let gold_heads = [NONE, 2, 0, 2];
        let gold_labels = [NONE, 0, 1, 0];
        let mut state = State::new(3);
        let mut on_stack = vec![false; 5];
        on_stack[0] = true;
        state.apply(SHIFT); // stack [0, 1], buffer [2, 3]
        on_stack[1] = true;
        let mut costs = vec![0; 1 + 2 * 2];
        state.costs(&gold_heads, &gold_labels, &on_stack, &mut costs);
        // SHIFT pushes 2 above 1: 1 can no longer get head 2, and 2 can no longer reach the root
        // below 1 → cost 2.
        assert_eq!(costs[SHIFT], 2);
        // LEFT with the right label attaches 1 to 2: cost 0; with a wrong label: 1.
        assert_eq!(costs[left(0)], 0);
        assert_eq!(costs[left(1)], 1);
        // RIGHT is not valid here (root may only take a dependent at the end).
        assert_eq!(costs[right(0)], usize::MAX);
        state.apply(left(0)); // stack [0], buffer [2, 3]
        state.apply(SHIFT); // stack [0, 2], buffer [3]
        on_stack[1] = false;
        on_stack[2] = true;
        state.costs(&gold_heads, &gold_labels, &on_stack, &mut costs);
        // LEFT would attach 2 to 3: its gold head (root) is lost and so is its dependent 3 → 2.
        assert_eq!(costs[left(0)], 2);
        assert_eq!(costs[SHIFT], 0);
    }
}
