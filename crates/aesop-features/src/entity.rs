//! The `entity` feature class (reference-free): the entity grid of Barzilay & Lapata (2008),
//! built from the shared dependency parse ([`super::analyses::topic_analyses`]).
//!
//! # The grid
//! Rows are the summary's sentences (as split by the analyser, including sentences without any
//! entity), columns are entities in order of first mention.
//! * **Mentions.** Every NOUN or PROPN token is a mention, except the non-first parts of a name
//!   (`flat`, `fixed`, `goeswith`), which belong to their head. Nouns inside a compound
//!   (`compound` modifiers such as *police* in *police station*) are mentions too, as in B&L's
//!   noun-based grids.
//! * **Entity key.** The lowercase form, with simple English plural stripping for common nouns
//!   tagged NNS (*cities* → *city*, *boxes* → *box*, *cats* → *cat*; irregular plurals stay). A
//!   proper-noun head with `flat` parts is keyed by its last part, so *Barack Obama* and a later
//!   *Obama* are one entity. A later mention with the same key is the same entity.
//! * **Pronouns.** Third-person personal pronouns are linked to the most recent preceding
//!   mention (in text order, across sentences) of a compatible entity; without one they are
//!   not mentions. Compatibility, by the number of the entity's latest noun mention (NNS/NNPS =
//!   plural) and cheap animacy: *he/she* family (he, him, his, himself, she, her, hers, herself)
//!   → a singular proper-noun entity; *it/its/itself* → a singular entity that no he/she pronoun
//!   has been linked to, common nouns before names (the most recent common noun if there is
//!   one, else the most recent name); *they* family (they, them, their, theirs, themselves) → a plural
//!   entity. First and second person pronouns are not entities.
//! * **Roles.** S for a subject (`nsubj`, `nsubj:pass`, `csubj`, …: base relation nsubj or
//!   csubj), O for an object (`obj`, `iobj`), X for any other mention, − when the entity is not
//!   mentioned in the sentence. A conjunct (`conj`) of a nominal takes the role of the first
//!   conjunct (*John and Mary left*: both S). With several mentions in one sentence the cell
//!   keeps the highest role, S > O > X.
//!
//! # Features
//! For a set of columns C and a length n, the probability of a role sequence t is
//! count(t) / (|C| · (sentences − n + 1)): the number of times t occurs in a column, over all
//! columns of C, divided by the number of length-n windows in those columns (so the 4ⁿ
//! probabilities sum to 1). Sequences are named with `S`, `O`, `X` and **`n` for − (not
//! mentioned)**, in the order S, O, X, n: `entity.all_SS`, `entity.all_SO`, …, `entity.all_nn`
//! (16), then `entity.all_SSS` … `entity.all_nnn` (64), for C = all entities; then the same 80
//! for C = the salient entities (at least 2 mentions, pronouns included), `entity.salient_…`.
//! Three summary features follow: `entity.entities` (number of columns), `entity.salient_share`
//! (salient / all entities) and `entity.resolved_pronouns` (share of third-person pronouns
//! linked to an antecedent).
//!
//! Undefined values are NaN (the learners impute them): transitions of length n when the
//! summary has fewer than n sentences (a single-sentence summary has no transitions at all, a
//! two-sentence one none of length 3) or when C is empty; `salient_share` without entities;
//! `resolved_pronouns` without third-person pronouns.

use super::{ClassSpec, ParseFeatures, ReferenceUse};
use aesop_text::nlp::{Analysis, AnalyzedSentence};
use std::collections::HashMap;

/// The role of an entity in a sentence, ordered so that `max` keeps the most prominent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// Not mentioned (−).
    Absent,
    /// Mentioned in another position.
    X,
    /// Object.
    O,
    /// Subject.
    S,
}

/// Roles in feature-name order.
pub const ROLES: [Role; 4] = [Role::S, Role::O, Role::X, Role::Absent];

impl Role {
    /// The letter used in feature names (`n` for not mentioned).
    pub fn symbol(self) -> char {
        match self {
            Role::S => 'S',
            Role::O => 'O',
            Role::X => 'X',
            Role::Absent => 'n',
        }
    }

    /// Position in [`ROLES`].
    fn index(self) -> usize {
        match self {
            Role::S => 0,
            Role::O => 1,
            Role::X => 2,
            Role::Absent => 3,
        }
    }
}

/// An entity grid: `cells[sentence][entity]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntityGrid {
    /// Entity keys, in order of first mention (the columns).
    pub entities: Vec<String>,
    /// Mentions of each entity (nouns and linked pronouns).
    pub mentions: Vec<usize>,
    /// One row per sentence, one cell per entity.
    pub cells: Vec<Vec<Role>>,
    /// Third-person personal pronouns seen.
    pub pronouns: usize,
    /// Those linked to an antecedent.
    pub resolved_pronouns: usize,
}

impl EntityGrid {
    /// The column of entity `e`, top to bottom.
    pub fn column(&self, e: usize) -> Vec<Role> {
        self.cells.iter().map(|row| row[e]).collect()
    }

    /// The column of the entity with key `key`, if any.
    pub fn column_of(&self, key: &str) -> Option<Vec<Role>> {
        self.entities
            .iter()
            .position(|k| k == key)
            .map(|e| self.column(e))
    }

    /// Is entity `e` salient (at least two mentions)?
    pub fn is_salient(&self, e: usize) -> bool {
        self.mentions[e] >= SALIENT_MENTIONS
    }
}

/// Mentions that make an entity salient.
pub const SALIENT_MENTIONS: usize = 2;

/// Pronoun classes, by what they can refer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PronounClass {
    /// he/she family: a singular person.
    Person,
    /// it family: a singular non-person.
    Neuter,
    /// they family: a plural entity.
    Plural,
}

fn pronoun_class(lower: &str) -> Option<PronounClass> {
    match lower {
        "he" | "him" | "his" | "himself" | "she" | "her" | "hers" | "herself" => {
            Some(PronounClass::Person)
        }
        "it" | "its" | "itself" => Some(PronounClass::Neuter),
        "they" | "them" | "their" | "theirs" | "themselves" => Some(PronounClass::Plural),
        _ => None,
    }
}

/// What the grid builder knows about an entity while reading the text.
struct EntityState {
    plural: bool,
    proper: bool,
    /// A he/she pronoun has been linked to it.
    animate: bool,
    /// Text-order number of its latest mention.
    last_mention: usize,
}

impl EntityState {
    fn compatible(&self, class: PronounClass) -> bool {
        match class {
            PronounClass::Person => !self.plural && self.proper,
            PronounClass::Neuter => !self.plural && !self.animate,
            PronounClass::Plural => self.plural,
        }
    }
}

/// Simple English plural stripping for a lowercase common noun tagged plural.
pub fn singular(lower: &str) -> String {
    let n = lower.len();
    if n > 4 && lower.ends_with("ies") {
        return format!("{}y", &lower[..n - 3]);
    }
    for suffix in ["sses", "xes", "ches", "shes", "zzes"] {
        if lower.ends_with(suffix) {
            return lower[..n - 2].to_string();
        }
    }
    if n > 2 && lower.ends_with('s') && !lower.ends_with("ss") && !lower.ends_with("us") {
        return lower[..n - 1].to_string();
    }
    lower.to_string()
}

fn is_nominal(upos: &str) -> bool {
    matches!(upos, "NOUN" | "PROPN")
}

/// Relations that attach the non-first parts of a multi-word name or expression.
fn is_name_part(base_deprel: &str) -> bool {
    matches!(base_deprel, "flat" | "fixed" | "goeswith")
}

/// The entity key of the noun at 0-based `i`.
fn noun_key(sentence: &AnalyzedSentence, i: usize) -> String {
    let token = &sentence.tokens[i];
    if token.upos == "PROPN" {
        // A name is keyed by its last flat part (usually the surname).
        let last = sentence
            .children(i)
            .filter(|&c| sentence.tokens[c].base_deprel() == "flat")
            .max()
            .unwrap_or(i);
        return sentence.tokens[last.max(i)].form.to_lowercase();
    }
    let lower = token.form.to_lowercase();
    if token.xpos == "NNS" {
        singular(&lower)
    } else {
        lower
    }
}

/// The grid role of the mention at 0-based `i`: conjuncts of nominals inherit the role of the
/// first conjunct.
fn mention_role(sentence: &AnalyzedSentence, i: usize) -> Role {
    let mut k = i;
    // Bounded walk: a malformed (cyclic) head chain cannot loop forever.
    for _ in 0..=sentence.tokens.len() {
        let token = &sentence.tokens[k];
        match token.base_deprel() {
            "nsubj" | "csubj" => return Role::S,
            "obj" | "iobj" => return Role::O,
            "conj" if token.head > 0 && token.head <= sentence.tokens.len() => {
                let head = token.head - 1;
                let head_upos = sentence.tokens[head].upos.as_str();
                if head == k || !(is_nominal(head_upos) || head_upos == "PRON") {
                    return Role::X;
                }
                k = head;
            }
            _ => return Role::X,
        }
    }
    Role::X
}

/// Build the entity grid of an analysed text (see the module documentation).
pub fn entity_grid(analysis: &Analysis) -> EntityGrid {
    let mut keys: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut states: Vec<EntityState> = Vec::new();
    let mut mentions: Vec<usize> = Vec::new();
    // (sentence, entity, role) of every mention.
    let mut placed: Vec<(usize, usize, Role)> = Vec::new();
    let (mut pronouns, mut resolved_pronouns) = (0, 0);
    let mut order = 0usize;

    for (si, sentence) in analysis.sentences.iter().enumerate() {
        for (ti, token) in sentence.tokens.iter().enumerate() {
            let entity = if is_nominal(&token.upos) && !is_name_part(token.base_deprel()) {
                let key = noun_key(sentence, ti);
                let plural = matches!(token.xpos.as_str(), "NNS" | "NNPS");
                let proper = token.upos == "PROPN";
                let e = *index.entry(key.clone()).or_insert_with(|| {
                    keys.push(key);
                    states.push(EntityState {
                        plural,
                        proper,
                        animate: false,
                        last_mention: 0,
                    });
                    mentions.push(0);
                    states.len() - 1
                });
                // Number and properness follow the latest noun mention.
                states[e].plural = plural;
                states[e].proper = proper;
                Some(e)
            } else if matches!(token.upos.as_str(), "PRON" | "DET") {
                match pronoun_class(&token.form.to_lowercase()) {
                    Some(class) => {
                        pronouns += 1;
                        let antecedent = states
                            .iter()
                            .enumerate()
                            .filter(|(_, s)| s.compatible(class))
                            // `it` prefers common nouns: a name is more often a person.
                            .max_by_key(|(_, s)| {
                                (class != PronounClass::Neuter || !s.proper, s.last_mention)
                            })
                            .map(|(e, _)| e);
                        if let Some(e) = antecedent {
                            resolved_pronouns += 1;
                            if class == PronounClass::Person {
                                states[e].animate = true;
                            }
                        }
                        antecedent
                    }
                    None => None,
                }
            } else {
                None
            };
            if let Some(e) = entity {
                order += 1;
                states[e].last_mention = order;
                mentions[e] += 1;
                placed.push((si, e, mention_role(sentence, ti)));
            }
        }
    }

    let mut cells = vec![vec![Role::Absent; keys.len()]; analysis.sentences.len()];
    for (si, e, role) in placed {
        let cell = &mut cells[si][e];
        *cell = (*cell).max(role);
    }
    EntityGrid {
        entities: keys,
        mentions,
        cells,
        pronouns,
        resolved_pronouns,
    }
}

/// Probabilities of the 4ⁿ role sequences of length `n` over the given columns, indexed in
/// base 4 with digits in [`ROLES`] order (first role most significant). All NaN when there
/// are no columns or the columns are shorter than `n`.
pub fn transition_probabilities(columns: &[Vec<Role>], n: usize) -> Vec<f64> {
    let size = 4usize.pow(n as u32);
    let mut counts = vec![0usize; size];
    let mut total = 0usize;
    for column in columns {
        for window in column.windows(n.max(1)) {
            let code = window.iter().fold(0, |acc, r| acc * 4 + r.index());
            counts[code] += 1;
            total += 1;
        }
    }
    if total == 0 || n == 0 {
        return vec![f64::NAN; size];
    }
    counts.iter().map(|&c| c as f64 / total as f64).collect()
}

/// Names of the role sequences of length `n`, in [`transition_probabilities`] order.
pub fn sequence_names(n: usize) -> Vec<String> {
    let mut names = vec![String::new()];
    for _ in 0..n {
        names = names
            .iter()
            .flat_map(|prefix| ROLES.iter().map(move |r| format!("{prefix}{}", r.symbol())))
            .collect();
    }
    names
}

/// Transition lengths.
const LENGTHS: [usize; 2] = [2, 3];

/// The feature values of a grid, in [`CLASS`]'s feature order.
pub fn grid_features(grid: &EntityGrid) -> Vec<f64> {
    let all: Vec<Vec<Role>> = (0..grid.entities.len()).map(|e| grid.column(e)).collect();
    let salient: Vec<Vec<Role>> = (0..grid.entities.len())
        .filter(|&e| grid.is_salient(e))
        .map(|e| grid.column(e))
        .collect();
    let mut row = Vec::with_capacity(163);
    for columns in [&all, &salient] {
        for n in LENGTHS {
            row.extend(transition_probabilities(columns, n));
        }
    }
    let entities = grid.entities.len();
    row.push(entities as f64);
    row.push(ratio(salient.len(), entities));
    row.push(ratio(grid.resolved_pronouns, grid.pronouns));
    row
}

/// a / b, NaN when b is 0.
fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// The `entity` feature values of one analysed summary.
pub fn entity_features(analysis: &Analysis) -> Vec<f64> {
    grid_features(&entity_grid(analysis))
}

/// The `entity` feature class.
#[derive(Debug, Clone, Default)]
pub struct EntityClass;

impl EntityClass {
    pub fn new() -> EntityClass {
        EntityClass
    }
}

/// The `entity` class in the [registry](super::registry).
pub static CLASS: ClassSpec = ClassSpec {
    name: "entity",
    about: "entity grid, Barzilay & Lapata",
    default: true,
    references: ReferenceUse::None,
    batch_dependent: false,
    options: &[],
    partial_options: &[],
    build: |_| Ok(Box::new(EntityClass::new())),
};

impl ParseFeatures for EntityClass {
    const SPEC: &'static ClassSpec = &CLASS;
    fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for group in ["all", "salient"] {
            for n in LENGTHS {
                names.extend(
                    sequence_names(n)
                        .into_iter()
                        .map(|s| format!("entity.{group}_{s}")),
                );
            }
        }
        names.extend(
            ["entities", "salient_share", "resolved_pronouns"]
                .iter()
                .map(|f| format!("entity.{f}")),
        );
        names
    }
    fn row(&self, analysis: &Analysis) -> Vec<f64> {
        entity_features(analysis)
    }
}
