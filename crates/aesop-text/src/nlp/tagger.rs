//! Averaged-perceptron part-of-speech tagger predicting UPOS and PTB XPOS jointly (one class per
//! (UPOS, XPOS) pair seen in training), greedy left to right, with a tag dictionary for frequent
//! unambiguous words.

use std::collections::HashMap;

use super::model_io::{Reader, Writer};
use super::perceptron::{argmax_where, Feature, Model, Trainer, XorShift};

/// A tagged training sentence: word forms and their (UPOS, XPOS).
#[derive(Debug, Clone)]
pub struct TaggedSentence {
    pub words: Vec<String>,
    pub tags: Vec<(String, String)>,
}

/// A trained tagger.
#[derive(Debug, Clone)]
pub struct Tagger {
    /// (UPOS, XPOS) of each class.
    classes: Vec<(String, String)>,
    model: Model,
    /// Words (exact form) that always carried one tag in training, with enough occurrences to trust it.
    tagdict: HashMap<String, u16>,
    /// Lower-cased word → hash of the set of classes it took in training ("ambiguity class"),
    /// which tells the tagger about the next words' possible tags before it reaches them.
    ambiguity: HashMap<String, u32>,
}

/// Training options.
#[derive(Debug, Clone, Copy)]
pub struct TaggerOptions {
    pub max_iterations: usize,
    pub seed: u64,
    /// A word enters the tag dictionary with at least this many occurrences…
    pub dict_min_count: usize,
    /// …and at least this share of them with its most frequent tag.
    pub dict_min_ratio: f64,
}

impl Default for TaggerOptions {
    fn default() -> Self {
        TaggerOptions {
            max_iterations: 8,
            seed: 1,
            dict_min_count: 20,
            dict_min_ratio: 0.995,
        }
    }
}

/// Per-word strings the feature templates use, computed once per sentence.
struct WordInfo {
    norm: String,
    shape: String,
    /// Ambiguity class of the lower-cased word; `UNKNOWN_AMBIGUITY` when unseen.
    amb: u32,
}

const UNKNOWN_AMBIGUITY: u32 = 0;
/// A word needs this many training occurrences for an ambiguity class (rarer ones look unseen, as at test time).
const AMBIGUITY_MIN_COUNT: usize = 3;
/// Classes below this share of a word's occurrences are left out of its ambiguity class.
const AMBIGUITY_MIN_SHARE: f64 = 0.02;

fn normalize(word: &str) -> String {
    if word.len() == 4 && word.chars().all(|c| c.is_ascii_digit()) {
        return "!YEAR".to_string();
    }
    if word.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return "!DIGITS".to_string();
    }
    word.to_lowercase()
}

/// Character classes with runs collapsed: "Apple" → "Xx", "3.50" → "d.d", "U.S." → "X.X.".
pub fn shape(word: &str) -> String {
    let mut out = String::new();
    let mut last = None;
    for c in word.chars() {
        let k = if c.is_uppercase() {
            'X'
        } else if c.is_lowercase() {
            'x'
        } else if c.is_numeric() {
            'd'
        } else if c.is_alphabetic() {
            'a'
        } else if c.is_ascii() {
            c
        } else {
            '*'
        };
        if last != Some(k) {
            out.push(k);
            last = Some(k);
        }
        if out.len() >= 8 {
            break;
        }
    }
    out
}

/// The last `n` characters (or the whole word).
fn suffix(s: &str, n: usize) -> &str {
    match s.char_indices().rev().nth(n.saturating_sub(1)) {
        Some((i, _)) if n > 0 => &s[i..],
        _ => s,
    }
}

/// The first `n` characters (or the whole word).
fn prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

const START: [&str; 2] = ["-START-", "-START2-"];
const END: [&str; 2] = ["-END-", "-END2-"];

fn word_infos(words: &[&str], ambiguity: &HashMap<String, u32>) -> Vec<WordInfo> {
    words
        .iter()
        .map(|w| {
            let lower = w.to_lowercase();
            let amb = ambiguity.get(&lower).copied().unwrap_or(UNKNOWN_AMBIGUITY);
            WordInfo {
                norm: normalize(w),
                shape: shape(w),
                amb,
            }
        })
        .collect()
}

fn ambiguity_classes(
    train: &[TaggedSentence],
    class_index: &HashMap<(String, String), u16>,
) -> HashMap<String, u32> {
    let mut counts: HashMap<String, HashMap<u16, usize>> = HashMap::new();
    for s in train {
        for (w, t) in s.words.iter().zip(&s.tags) {
            if let Some(&c) = class_index.get(t) {
                *counts
                    .entry(w.to_lowercase())
                    .or_default()
                    .entry(c)
                    .or_default() += 1;
            }
        }
    }
    let mut out = HashMap::new();
    for (w, by_class) in counts {
        let total: usize = by_class.values().sum();
        if total < AMBIGUITY_MIN_COUNT {
            continue;
        }
        let mut set: Vec<u16> = by_class
            .iter()
            .filter(|(_, &n)| n as f64 / total as f64 >= AMBIGUITY_MIN_SHARE)
            .map(|(&c, _)| c)
            .collect();
        set.sort_unstable();
        let mut f = Feature::new(255);
        for c in set {
            f = f.num(u32::from(c));
        }
        // Key 0 is reserved for unseen words.
        out.insert(w, f.key().max(1));
    }
    out
}

/// Feature hashes for word `i` given the two previous predicted classes (`u32::MAX` = sentence start).
fn features(
    words: &[&str],
    info: &[WordInfo],
    i: usize,
    prev: u32,
    prev2: u32,
    out: &mut Vec<u32>,
) {
    out.clear();
    let at = |j: isize| -> &str {
        if j < 0 {
            START[(-j - 1) as usize % 2]
        } else if j as usize >= info.len() {
            END[(j as usize - info.len()) % 2]
        } else {
            &info[j as usize].norm
        }
    };
    let i_s = i as isize;
    let w = &info[i].norm;
    let raw = words[i];
    let p1 = at(i_s - 1);
    let p2 = at(i_s - 2);
    let n1 = at(i_s + 1);
    let n2 = at(i_s + 2);
    let n1_shape = info.get(i + 1).map_or("-END-", |x| x.shape.as_str());
    let amb = |j: usize| info.get(j).map_or(u32::MAX, |x| x.amb);
    let (a0, a1, a2) = (info[i].amb, amb(i + 1), amb(i + 2));
    let p1_shape = if i > 0 {
        info[i - 1].shape.as_str()
    } else {
        "-START-"
    };
    let mut f = |feat: Feature| out.push(feat.key());
    f(Feature::new(0));
    f(Feature::new(1).str(w));
    f(Feature::new(2).str(raw));
    f(Feature::new(3).str(suffix(raw, 3)));
    f(Feature::new(4).str(suffix(raw, 2)));
    f(Feature::new(5).str(suffix(raw, 1)));
    f(Feature::new(6).str(suffix(raw, 4)));
    f(Feature::new(7).str(prefix(raw, 1)));
    f(Feature::new(8).str(prefix(w, 2)));
    f(Feature::new(9).str(prefix(w, 3)));
    f(Feature::new(10).str(&info[i].shape));
    f(Feature::new(11).num(prev));
    f(Feature::new(12).num(prev).num(prev2));
    f(Feature::new(13).num(prev).str(w));
    f(Feature::new(14).str(p1));
    f(Feature::new(15).str(suffix(p1, 3)));
    f(Feature::new(16).str(p2));
    f(Feature::new(17).str(n1));
    f(Feature::new(18).str(suffix(n1, 3)));
    f(Feature::new(19).str(n2));
    f(Feature::new(20).str(p1).str(w));
    f(Feature::new(21).str(w).str(n1));
    f(Feature::new(22).num(u32::from(i == 0)).str(&info[i].shape));
    f(Feature::new(23).num(prev).str(n1));
    f(Feature::new(24).str(n1_shape));
    f(Feature::new(25)
        .str(p1_shape)
        .str(&info[i].shape)
        .str(n1_shape));
    f(Feature::new(26).num(prev).str(suffix(raw, 3)));
    f(Feature::new(27).str(suffix(raw, 5)));
    f(Feature::new(28).str(w).str(n1).str(n2));
    f(Feature::new(29).str(p1).str(w).str(n1));
    f(Feature::new(30).num(a0));
    f(Feature::new(31).num(a1));
    f(Feature::new(32).num(a2));
    f(Feature::new(33).num(a0).num(a1));
    f(Feature::new(34).num(prev).num(a0).num(a1));
    f(Feature::new(35).str(w).num(a1));
    f(Feature::new(36).num(a1).num(a2));
}

impl Tagger {
    /// Train on `train`; after each iteration the averaged model is scored on `dev` and the best one is kept.
    /// Returns the tagger and the dev accuracies per iteration (joint UPOS+XPOS).
    pub fn train(
        train: &[TaggedSentence],
        dev: &[TaggedSentence],
        opts: TaggerOptions,
        mut log: impl FnMut(&str),
    ) -> (Tagger, Vec<f64>) {
        let mut class_index: HashMap<(String, String), u16> = HashMap::new();
        let mut classes: Vec<(String, String)> = Vec::new();
        let mut counts: HashMap<&str, HashMap<u16, usize>> = HashMap::new();
        for s in train {
            for (w, t) in s.words.iter().zip(&s.tags) {
                let c = *class_index.entry(t.clone()).or_insert_with(|| {
                    classes.push(t.clone());
                    (classes.len() - 1) as u16
                });
                *counts.entry(w.as_str()).or_default().entry(c).or_default() += 1;
            }
        }
        let mut tagdict = HashMap::new();
        for (w, by_class) in &counts {
            let total: usize = by_class.values().sum();
            if let Some((&c, &n)) = by_class
                .iter()
                .max_by_key(|(c, n)| (**n, std::cmp::Reverse(**c)))
            {
                if total >= opts.dict_min_count && n as f64 / total as f64 >= opts.dict_min_ratio {
                    tagdict.insert(w.to_string(), c);
                }
            }
        }
        let ambiguity = ambiguity_classes(train, &class_index);
        let mut trainer = Trainer::new(classes.len());
        let mut order: Vec<usize> = (0..train.len()).collect();
        let mut rng = XorShift::new(opts.seed);
        let mut scores = vec![0.0f32; classes.len()];
        let mut feats = Vec::new();
        let mut best: Option<(f64, Tagger)> = None;
        let mut history = Vec::new();
        for iteration in 1..=opts.max_iterations {
            rng.shuffle(&mut order);
            for &si in &order {
                let s = &train[si];
                let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
                let info = word_infos(&words, &ambiguity);
                let (mut prev, mut prev2) = (u32::MAX, u32::MAX);
                for (i, tag) in s.tags.iter().enumerate() {
                    let truth = usize::from(class_index[tag]);
                    let guess = match tagdict.get(words[i]) {
                        Some(&c) => usize::from(c),
                        None => {
                            features(&words, &info, i, prev, prev2, &mut feats);
                            trainer.tick();
                            trainer.scores(&feats, &mut scores);
                            let guess = argmax_where(&scores, |_| true).unwrap_or(0);
                            trainer.update(truth, guess, &feats);
                            guess
                        }
                    };
                    prev2 = prev;
                    // Condition on the predicted tag, as at test time.
                    prev = guess as u32;
                }
            }
            let candidate = Tagger {
                classes: classes.clone(),
                model: trainer.average(),
                tagdict: tagdict.clone(),
                ambiguity: ambiguity.clone(),
            };
            let acc = candidate.accuracy(dev);
            log(&format!(
                "tagger iteration {iteration}: dev joint accuracy {:.4}",
                acc
            ));
            history.push(acc);
            // Ties go to the later iteration, so an empty dev set selects the last one.
            if best.as_ref().is_none_or(|(b, _)| acc >= *b) {
                best = Some((acc, candidate));
            }
        }
        let tagger = match best {
            Some((_, t)) => t,
            None => Tagger {
                classes,
                model: trainer.average(),
                tagdict,
                ambiguity,
            },
        };
        (tagger, history)
    }

    /// Fraction of words whose (UPOS, XPOS) pair is right (1.0 for no words).
    pub fn accuracy(&self, sentences: &[TaggedSentence]) -> f64 {
        let (mut right, mut n) = (0usize, 0usize);
        for s in sentences {
            let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
            for (c, gold) in self.tag(&words).into_iter().zip(&s.tags) {
                n += 1;
                right += usize::from(self.classes[usize::from(c)] == *gold);
            }
        }
        if n == 0 {
            1.0
        } else {
            right as f64 / n as f64
        }
    }

    /// (UPOS accuracy, XPOS accuracy) over `sentences` (1.0 for no words).
    pub fn upos_xpos_accuracy(&self, sentences: &[TaggedSentence]) -> (f64, f64) {
        let (mut upos, mut xpos, mut n) = (0usize, 0usize, 0usize);
        for s in sentences {
            let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
            for (c, gold) in self.tag(&words).into_iter().zip(&s.tags) {
                n += 1;
                upos += usize::from(self.upos(c) == gold.0);
                xpos += usize::from(self.xpos(c) == gold.1);
            }
        }
        if n == 0 {
            (1.0, 1.0)
        } else {
            (upos as f64 / n as f64, xpos as f64 / n as f64)
        }
    }

    /// Class index per word.
    pub fn tag(&self, words: &[&str]) -> Vec<u16> {
        let info = word_infos(words, &self.ambiguity);
        let mut out = Vec::with_capacity(words.len());
        let mut scores = vec![0.0f32; self.classes.len()];
        let mut feats = Vec::with_capacity(32);
        let (mut prev, mut prev2) = (u32::MAX, u32::MAX);
        for i in 0..words.len() {
            let c = match self.tagdict.get(words[i]) {
                Some(&c) => c,
                None => {
                    features(words, &info, i, prev, prev2, &mut feats);
                    self.model.scores(&feats, &mut scores);
                    argmax_where(&scores, |_| true).unwrap_or(0) as u16
                }
            };
            out.push(c);
            prev2 = prev;
            prev = u32::from(c);
        }
        out
    }

    /// UPOS of a class index.
    pub fn upos(&self, class: u16) -> &str {
        self.classes
            .get(usize::from(class))
            .map_or("X", |c| c.0.as_str())
    }

    /// XPOS of a class index.
    pub fn xpos(&self, class: u16) -> &str {
        self.classes
            .get(usize::from(class))
            .map_or("_", |c| c.1.as_str())
    }

    pub fn nclasses(&self) -> usize {
        self.classes.len()
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The same tagger with weights re-quantized at a coarser pruning threshold (smaller file).
    pub fn pruned(&self, prune_fraction: f32) -> Tagger {
        Tagger {
            model: self.model.quantized(prune_fraction),
            ..self.clone()
        }
    }

    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        let mut w = Writer::new("tagger");
        let upos: Vec<String> = self.classes.iter().map(|c| c.0.clone()).collect();
        let xpos: Vec<String> = self.classes.iter().map(|c| c.1.clone()).collect();
        w.strings(&upos);
        w.strings(&xpos);
        let mut dict: Vec<(&String, &u16)> = self.tagdict.iter().collect();
        dict.sort();
        w.varint(dict.len() as u64);
        for (word, &c) in dict {
            w.str(word);
            w.varint(u64::from(c));
        }
        let mut amb: Vec<(&String, &u32)> = self.ambiguity.iter().collect();
        amb.sort();
        w.varint(amb.len() as u64);
        for (word, &key) in amb {
            w.str(word);
            w.varint(u64::from(key));
        }
        w.model(&self.model);
        w.finish()
    }

    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Tagger> {
        let mut r = Reader::new(bytes, "tagger")?;
        let upos = r.strings()?;
        let xpos = r.strings()?;
        anyhow::ensure!(
            upos.len() == xpos.len() && !upos.is_empty(),
            "bad tag list in tagger model"
        );
        let classes: Vec<(String, String)> = upos.into_iter().zip(xpos).collect();
        let n = r.varint()?;
        let mut tagdict = HashMap::new();
        for _ in 0..n {
            let word = r.str()?;
            let c = r.varint()?;
            anyhow::ensure!((c as usize) < classes.len(), "bad tag-dictionary entry");
            tagdict.insert(word, c as u16);
        }
        let n = r.varint()?;
        let mut ambiguity = HashMap::new();
        for _ in 0..n {
            let word = r.str()?;
            let key = u32::try_from(r.varint()?)?;
            ambiguity.insert(word, key);
        }
        let model = r.model()?;
        anyhow::ensure!(
            model.nclasses == classes.len(),
            "tagger model class count mismatch"
        );
        Ok(Tagger {
            classes,
            model,
            tagdict,
            ambiguity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_affixes() {
        assert_eq!(shape("Apple"), "Xx");
        assert_eq!(shape("3.50"), "d.d");
        assert_eq!(shape("U.S."), "X.X.");
        assert_eq!(suffix("héllo", 3), "llo");
        assert_eq!(suffix("ab", 3), "ab");
        assert_eq!(prefix("éa", 1), "é");
        assert_eq!(normalize("1999"), "!YEAR");
        assert_eq!(normalize("3.5"), "!DIGITS");
        assert_eq!(normalize("The"), "the");
    }

    fn sent(pairs: &[(&str, &str)]) -> TaggedSentence {
        TaggedSentence {
            words: pairs.iter().map(|p| p.0.to_string()).collect(),
            tags: pairs
                .iter()
                .map(|p| (p.1.to_string(), p.1.to_string()))
                .collect(),
        }
    }

    #[test]
    fn learns_a_toy_language_and_round_trips() -> anyhow::Result<()> {
        let train: Vec<TaggedSentence> = (0..30)
            .map(|i| {
                if i % 2 == 0 {
                    sent(&[("the", "DET"), ("dog", "NOUN"), ("runs", "VERB")])
                } else {
                    sent(&[("a", "DET"), ("cat", "NOUN"), ("sleeps", "VERB")])
                }
            })
            .collect();
        let opts = TaggerOptions {
            max_iterations: 5,
            dict_min_count: 1000,
            ..Default::default()
        };
        let (tagger, history) = Tagger::train(&train, &train, opts, |_| {});
        assert_eq!(history.len(), 5);
        let tags = tagger.tag(&["the", "cat", "runs"]);
        let names: Vec<&str> = tags.iter().map(|&c| tagger.upos(c)).collect();
        assert_eq!(names, ["DET", "NOUN", "VERB"]);
        let back = Tagger::from_bytes(&tagger.to_bytes()?)?;
        assert_eq!(
            back.tag(&["a", "dog", "sleeps"]),
            tagger.tag(&["a", "dog", "sleeps"])
        );
        assert!(tagger.tag(&[]).is_empty());
        Ok(())
    }
}
