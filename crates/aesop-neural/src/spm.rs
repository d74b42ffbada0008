//! SentencePiece BPE ("SPM") tokenizer from a GGUF's own vocabulary (`tokenizer.ggml.model =
//! "llama"`: token strings, scores and token types), as llama.cpp runs it; used for Gemma 3.
//!
//! What llama.cpp (`llama_vocab::impl::tokenize`, SPM branch, `parse_special = false`) does, and
//! so what [`SpmTokenizer::encode`] does:
//!
//! 1. **User-defined tokens are split off first**, even without `parse_special`
//!    (`tokenizer_st_partition`): every token of type 4 (user-defined) that is not also a control
//!    token, longest text first, cuts each remaining piece of raw text at each of its
//!    occurrences (left to right, non-overlapping) and stands for itself. Control and unknown
//!    tokens are not looked for. Gemma 3 has 165 such tokens: runs of 1–31 newlines, 2–31 spaces
//!    and 1–31 tabs, HTML tags (`<b>`, `<td>`, …), `[multimodal]`, `<start_of_image>`. So
//!    `"a  b"` is `a`, `"  "`, `b` and every newline is a token of its own run.
//! 2. Each remaining piece of text (no space is prepended: `add_space_prefix = false`) has every
//!    U+0020 replaced by `▁` (U+2581) and is cut into UTF-8 characters, the symbols of a linked
//!    list. Every adjacent pair whose concatenation is a vocabulary token (any type) goes into a
//!    max-priority queue: higher token score first, equal scores leftmost first. Popping a pair
//!    whose symbols have since changed is skipped; otherwise the right symbol joins the left one
//!    and the new pairs with its neighbours are queued.
//! 3. Each final symbol is its token if the vocabulary has it; else (never in practice: every
//!    merged symbol is a token) it is re-split by the recorded merge of its text; else each of
//!    its bytes is the byte-fallback token `<0xXX>`.
//!
//! Token attributes follow llama.cpp's loader, which overrides the GGUF types of a few tokens by
//! their text (see `apply_llama_cpp_overrides`): Gemma 3's user-defined `</s>` is made a
//! control token there, so `"</s>"` in a text is *not* split off and decodes to nothing.
//! Checked against llama.cpp's ids in tests/neural_spm.rs.

use anyhow::{anyhow, bail, Result};
use candle_core::quantized::gguf_file;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// llama.cpp's token attribute bits (`llama_token_attr`), those this tokenizer needs.
const ATTR_UNKNOWN: u32 = 1 << 0;
const ATTR_UNUSED: u32 = 1 << 1;
const ATTR_NORMAL: u32 = 1 << 2;
const ATTR_CONTROL: u32 = 1 << 3;
const ATTR_USER_DEFINED: u32 = 1 << 4;
const ATTR_BYTE: u32 = 1 << 5;

/// The attribute of a GGUF token type (`tokenizer.ggml.token_type`); unknown types are
/// "undefined" (no bit), as in llama.cpp.
fn attr_of_type(token_type: i32) -> u32 {
    match token_type {
        1 => ATTR_NORMAL,
        2 => ATTR_UNKNOWN,
        3 => ATTR_CONTROL,
        4 => ATTR_USER_DEFINED,
        5 => ATTR_UNUSED,
        6 => ATTR_BYTE,
        _ => 0,
    }
}

/// Texts llama.cpp's loader treats as end-of-generation tokens and forces to control type.
const EOG_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<｜end▁of▁sentence｜>",
    "[e~[",
];

/// Fill-in-the-middle markers llama.cpp's loader looks for by text, one role per slice; the
/// first one found of a role is forced to control type.
const FIM_TEXTS: &[&[&str]] = &[
    &[
        "<|fim_prefix|>",
        "<fim-prefix>",
        "<fim_prefix>",
        "<｜fim▁begin｜>",
        "<PRE>",
        "▁<PRE>",
        "<|code_prefix|>",
        "<|prefix|>",
    ],
    &[
        "<|fim_suffix|>",
        "<fim-suffix>",
        "<fim_suffix>",
        "<｜fim▁hole｜>",
        "<SUF>",
        "▁<SUF>",
        "<|code_suffix|>",
        "<|suffix|>",
    ],
    &[
        "<|fim_middle|>",
        "<fim-middle>",
        "<fim_middle>",
        "<｜fim▁end｜>",
        "<MID>",
        "▁<MID>",
        "<|code_middle|>",
        "<|middle|>",
    ],
    &["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"],
    &[
        "<|fim_repo|>",
        "<|repo_name|>",
        "<fim-repo>",
        "<REPO>",
        "<reponame>",
    ],
    &["<|file_sep|>"],
];

/// The attribute changes llama.cpp's vocabulary loader (`llama_vocab::impl::load`) makes by
/// token text, after reading the GGUF types: end-of-generation and fill-in-the-middle markers
/// become control tokens (so they are neither split off as user-defined tokens nor decoded),
/// gpt-oss's `<|channel|>`, `<|message|>`, `<|start|>`, `<|constrain|>` become user-defined,
/// `<|end|>` becomes user-defined in o200k-harmony-like vocabularies and `</s>` normal next to
/// Gemma 4's `<|tool_response>`.
///
/// Differences: llama.cpp skips the fill-in-the-middle search for a role whose id the GGUF sets
/// (`tokenizer.ggml.prefix_token_id`, …) and otherwise takes the first candidate in hash-map
/// order; here the lowest id of each role is always taken. The per-model-name strip attributes
/// (phi-3, jina, modern-bert) are not applied. None of this touches Gemma 3, whose only affected
/// tokens are `<end_of_turn>` (already control) and the user-defined `</s>`.
fn apply_llama_cpp_overrides(attrs: &mut [u32], ids: &FxHashMap<String, u32>) {
    let id = |text: &str| ids.get(text).map(|&i| i as usize);
    for role in FIM_TEXTS {
        if let Some(i) = role.iter().filter_map(|t| id(t)).min() {
            attrs[i] |= ATTR_CONTROL;
        }
    }
    for text in EOG_TEXTS {
        if let Some(i) = id(text) {
            attrs[i] |= ATTR_CONTROL;
        }
    }
    for text in ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"] {
        if let Some(i) = id(text) {
            attrs[i] = ATTR_USER_DEFINED;
        }
    }
    let has = |text: &str| ids.contains_key(text);
    let call = has("<|call|>") || has("<|calls|>");
    if has("<|end|>") && call && (has("<|return|>") || has("<|flush|>")) {
        if let Some(i) = id("<|end|>") {
            attrs[i] = ATTR_USER_DEFINED;
        }
    }
    if has("<|tool_response>") {
        if let Some(i) = id("</s>") {
            attrs[i] = ATTR_NORMAL;
        }
    }
}

/// A SentencePiece BPE tokenizer with llama.cpp's behaviour (module docs).
pub struct SpmTokenizer {
    /// Token strings by id (an empty string in the GGUF becomes `[EMPTY_<id>]`, as in llama.cpp).
    tokens: Vec<String>,
    scores: Vec<f32>,
    /// llama.cpp attribute bits by id, after [`apply_llama_cpp_overrides`].
    attrs: Vec<u32>,
    /// Exact text → id over the whole vocabulary.
    ids: FxHashMap<String, u32>,
    /// The byte-fallback token of each byte value.
    byte_ids: [u32; 256],
    /// Ids of the user-defined tokens split off before merging, longest text first (ties by id).
    split_ids: Vec<u32>,
}

/// A piece of the text after the user-defined tokens are split off.
enum Fragment {
    /// Byte range of the input still to be merged.
    Text(usize, usize),
    /// A user-defined token found in the text.
    Token(u32),
}

/// One symbol of the merge list: a byte range of the escaped text and its neighbours.
#[derive(Clone, Copy)]
struct Symbol {
    start: usize,
    /// Length in bytes; 0 once merged into its left neighbour.
    n: usize,
    prev: Option<usize>,
    next: Option<usize>,
}

/// A candidate merge of two adjacent symbols.
struct Bigram {
    score: f32,
    left: usize,
    right: usize,
    /// Byte length of the merged text when queued (detects stale entries).
    size: usize,
}

impl PartialEq for Bigram {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Bigram {}
impl PartialOrd for Bigram {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Bigram {
    /// Greater = popped first: higher score, then smaller left index (llama.cpp's comparator).
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .partial_cmp(&other.score)
            .unwrap_or(Ordering::Equal)
            .then_with(|| other.left.cmp(&self.left))
    }
}

/// One merge run over one piece of text (llama.cpp's `llm_tokenizer_spm_session`).
struct Session<'a> {
    vocab: &'a SpmTokenizer,
    /// The piece with spaces replaced by `▁`.
    text: &'a str,
    symbols: Vec<Symbol>,
    queue: BinaryHeap<Bigram>,
    /// Text of every queued merge → the (left, right) symbols it was queued for (last one wins).
    rev_merge: FxHashMap<&'a str, (usize, usize)>,
}

impl<'a> Session<'a> {
    fn new(vocab: &'a SpmTokenizer, text: &'a str) -> Session<'a> {
        let mut symbols = Vec::with_capacity(text.len());
        let mut chars = text.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            let index = symbols.len();
            symbols.push(Symbol {
                start,
                n: c.len_utf8(),
                prev: index.checked_sub(1),
                next: chars.peek().map(|_| index + 1),
            });
        }
        Session {
            vocab,
            text,
            symbols,
            queue: BinaryHeap::new(),
            rev_merge: FxHashMap::default(),
        }
    }

    fn tokenize(mut self, out: &mut Vec<u32>) {
        for i in 1..self.symbols.len() {
            self.try_add_bigram(Some(i - 1), Some(i));
        }
        while let Some(bigram) = self.queue.pop() {
            let (left, right) = (self.symbols[bigram.left], self.symbols[bigram.right]);
            if left.n == 0 || right.n == 0 || left.n + right.n != bigram.size {
                continue; // one of them was merged since
            }
            self.symbols[bigram.left].n += right.n;
            self.symbols[bigram.right].n = 0;
            self.symbols[bigram.left].next = right.next;
            if let Some(next) = right.next {
                self.symbols[next].prev = Some(bigram.left);
            }
            self.try_add_bigram(left.prev, Some(bigram.left));
            self.try_add_bigram(Some(bigram.left), right.next);
        }
        // Symbol 0 is never merged into a left neighbour, so it heads the list.
        let mut i = if self.symbols.is_empty() {
            None
        } else {
            Some(0)
        };
        while let Some(s) = i {
            self.resegment(s, out);
            i = self.symbols[s].next;
        }
    }

    fn symbol_text(&self, s: usize) -> &'a str {
        let sym = self.symbols[s];
        &self.text[sym.start..sym.start + sym.n]
    }

    fn try_add_bigram(&mut self, left: Option<usize>, right: Option<usize>) {
        let (Some(left), Some(right)) = (left, right) else {
            return;
        };
        let start = self.symbols[left].start;
        let size = self.symbols[left].n + self.symbols[right].n;
        let text = &self.text[start..start + size];
        let Some(&id) = self.vocab.ids.get(text) else {
            return;
        };
        self.queue.push(Bigram {
            score: self.vocab.scores[id as usize],
            left,
            right,
            size,
        });
        self.rev_merge.insert(text, (left, right));
    }

    /// The final tokens of symbol `s` (its current extent, as llama.cpp reads it).
    fn resegment(&self, s: usize, out: &mut Vec<u32>) {
        let text = self.symbol_text(s);
        if let Some(&id) = self.vocab.ids.get(text) {
            out.push(id);
        } else if let Some(&(left, right)) = self.rev_merge.get(text) {
            self.resegment(left, out);
            self.resegment(right, out);
        } else {
            out.extend(text.bytes().map(|b| self.vocab.byte_ids[b as usize]));
        }
    }
}

impl SpmTokenizer {
    /// A tokenizer from the vocabulary as the GGUF stores it: token strings, scores and token
    /// types (1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte). Errors on
    /// lengths that differ, a duplicate token, a NaN score, more than 2³² tokens, or a byte
    /// value with neither a `<0xXX>` token nor a one-byte token of its own.
    pub fn new(tokens: Vec<String>, scores: Vec<f32>, types: Vec<i32>) -> Result<SpmTokenizer> {
        if tokens.len() != scores.len() || tokens.len() != types.len() {
            bail!(
                "SPM vocabulary: {} tokens, {} scores, {} token types",
                tokens.len(),
                scores.len(),
                types.len()
            );
        }
        if u32::try_from(tokens.len()).is_err() {
            bail!("SPM vocabulary: {} tokens is too many", tokens.len());
        }
        if let Some(i) = scores.iter().position(|s| s.is_nan()) {
            bail!("SPM vocabulary: token {i} has a NaN score");
        }
        let tokens: Vec<String> = tokens
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                if t.is_empty() {
                    format!("[EMPTY_{i}]")
                } else {
                    t
                }
            })
            .collect();
        let mut ids = FxHashMap::with_capacity_and_hasher(tokens.len(), Default::default());
        for (i, t) in tokens.iter().enumerate() {
            if let Some(first) = ids.insert(t.clone(), i as u32) {
                bail!("SPM vocabulary: duplicate token {t:?} (ids {first} and {i})");
            }
        }
        let mut attrs: Vec<u32> = types.iter().map(|&t| attr_of_type(t)).collect();
        apply_llama_cpp_overrides(&mut attrs, &ids);

        let mut byte_ids = [0u32; 256];
        for (b, slot) in byte_ids.iter_mut().enumerate() {
            let hex = format!("<0x{b:02X}>");
            let single = char::from_u32(b as u32)
                .filter(|c| c.is_ascii())
                .map(String::from);
            *slot = ids
                .get(&hex)
                .or_else(|| single.and_then(|s| ids.get(&s)))
                .copied()
                .ok_or_else(|| anyhow!("SPM vocabulary: no byte-fallback token {hex}"))?;
        }

        let mut split_ids: Vec<u32> = (0..tokens.len() as u32)
            .filter(|&i| {
                let a = attrs[i as usize];
                a & ATTR_USER_DEFINED != 0 && a & (ATTR_CONTROL | ATTR_UNKNOWN) == 0
            })
            .collect();
        split_ids.sort_by_key(|&i| (std::cmp::Reverse(tokens[i as usize].len()), i));

        Ok(SpmTokenizer {
            tokens,
            scores,
            attrs,
            ids,
            byte_ids,
            split_ids,
        })
    }

    /// The tokenizer of a GGUF whose `tokenizer.ggml.model` is `llama`, from its
    /// `tokenizer.ggml.tokens`, `.scores` (f32 or i32; all 0 when absent) and `.token_type` (all
    /// normal when absent). Only `add_space_prefix = false` is supported (Gemma 3); a file that
    /// leaves it out means true to llama.cpp, and is an error here.
    pub fn from_gguf(content: &gguf_file::Content) -> Result<SpmTokenizer> {
        let md = |key: &str| content.metadata.get(key);
        let err = |key: &str, e: candle_core::Error| anyhow!("GGUF metadata '{key}': {e}");
        let model_key = "tokenizer.ggml.model";
        let model = md(model_key)
            .ok_or_else(|| anyhow!("GGUF metadata '{model_key}' is missing"))?
            .to_string()
            .map_err(|e| err(model_key, e))?;
        if model != "llama" {
            bail!("GGUF tokenizer model is '{model}', not 'llama' (SentencePiece)");
        }
        let prefix_key = "tokenizer.ggml.add_space_prefix";
        let add_space_prefix = match md(prefix_key) {
            Some(v) => v.to_bool().map_err(|e| err(prefix_key, e))?,
            None => true,
        };
        if add_space_prefix {
            bail!("GGUF '{prefix_key}' is true or absent: only false is supported");
        }
        let array = |key: &str| -> Result<Option<&Vec<gguf_file::Value>>> {
            md(key)
                .map(|v| v.to_vec().map_err(|e| err(key, e)))
                .transpose()
        };
        let tokens_key = "tokenizer.ggml.tokens";
        let tokens = array(tokens_key)?
            .ok_or_else(|| anyhow!("GGUF metadata '{tokens_key}' is missing"))?
            .iter()
            .map(|v| v.to_string().cloned().map_err(|e| err(tokens_key, e)))
            .collect::<Result<Vec<String>>>()?;
        let scores_key = "tokenizer.ggml.scores";
        let scores = match array(scores_key)? {
            Some(values) => values
                .iter()
                .map(|v| match v {
                    gguf_file::Value::I32(i) => Ok(*i as f32),
                    v => v.to_f32().map_err(|e| err(scores_key, e)),
                })
                .collect::<Result<Vec<f32>>>()?,
            None => vec![0.0; tokens.len()],
        };
        let types_key = "tokenizer.ggml.token_type";
        let types = match array(types_key)? {
            Some(values) => values
                .iter()
                .map(|v| v.to_i32().map_err(|e| err(types_key, e)))
                .collect::<Result<Vec<i32>>>()?,
            None => vec![1; tokens.len()],
        };
        SpmTokenizer::new(tokens, scores, types)
    }

    /// Number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    /// The raw token string of an id (spaces as `▁`, byte tokens as `<0xXX>`).
    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    /// The id of a token string, looked up exactly (e.g. `"<start_of_turn>"`, `"▁the"`).
    pub fn id_of(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// Token ids of a text: no BOS, special (control) tokens written in the text are plain text;
    /// user-defined tokens are split off first, as llama.cpp does (module docs).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let mut escaped = String::new();
        for fragment in self.split_user_defined(text) {
            match fragment {
                Fragment::Token(id) => out.push(id),
                Fragment::Text(start, end) => {
                    escaped.clear();
                    for c in text[start..end].chars() {
                        escaped.push(if c == ' ' { '\u{2581}' } else { c });
                    }
                    Session::new(self, &escaped).tokenize(&mut out);
                }
            }
        }
        out
    }

    /// The text cut at every occurrence of a user-defined token, longest tokens first
    /// (llama.cpp's `tokenizer_st_partition` without `parse_special`).
    fn split_user_defined(&self, text: &str) -> Vec<Fragment> {
        let mut fragments = Vec::new();
        if !text.is_empty() {
            fragments.push(Fragment::Text(0, text.len()));
        }
        for &id in &self.split_ids {
            let pattern = self.tokens[id as usize].as_str();
            let found = fragments.iter().any(|f| match *f {
                Fragment::Text(s, e) => text[s..e].contains(pattern),
                Fragment::Token(_) => false,
            });
            if !found {
                continue;
            }
            let mut next = Vec::with_capacity(fragments.len() + 2);
            for f in fragments {
                let Fragment::Text(mut s, e) = f else {
                    next.push(f);
                    continue;
                };
                while let Some(at) = text[s..e].find(pattern) {
                    if at > 0 {
                        next.push(Fragment::Text(s, s + at));
                    }
                    next.push(Fragment::Token(id));
                    s += at + pattern.len();
                }
                if s < e {
                    next.push(Fragment::Text(s, e));
                }
            }
            fragments = next;
        }
        fragments
    }

    /// The text of token ids, as llama.cpp's detokenizer without special tokens: `▁` becomes a
    /// space in normal tokens, user-defined tokens are their text, `<0xXX>` tokens are their
    /// byte, control, unknown and unused tokens (and ids outside the vocabulary) are nothing;
    /// bytes that are not valid UTF-8 become U+FFFD.
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            let (Some(text), Some(&attr)) =
                (self.tokens.get(id as usize), self.attrs.get(id as usize))
            else {
                continue;
            };
            if attr & (ATTR_CONTROL | ATTR_UNKNOWN) != 0 {
                continue;
            }
            if attr & ATTR_USER_DEFINED != 0 {
                bytes.extend_from_slice(text.as_bytes());
            } else if attr & ATTR_NORMAL != 0 {
                bytes.extend_from_slice(text.replace('\u{2581}', " ").as_bytes());
            } else if attr & ATTR_BYTE != 0 {
                if let Some(b) = byte_of_token(text) {
                    bytes.push(b);
                }
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// The byte of a byte token `<0xXX>`: the hexadecimal digits from its 4th character, as
/// llama.cpp's `strtol(text.substr(3, 2), 16)` reads them (0 when there are none); None when the
/// text is shorter than 3 bytes (llama.cpp throws there).
fn byte_of_token(text: &str) -> Option<u8> {
    let digits = text.as_bytes().get(3..)?;
    let mut value = 0u8;
    for &d in digits.iter().take(2) {
        let Some(v) = (d as char).to_digit(16) else {
            break;
        };
        value = value * 16 + v as u8;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy vocabulary: control `<unk>`, the 256 byte tokens, then `extra` (text, score, type).
    fn toy(extra: &[(&str, f32, i32)]) -> SpmTokenizer {
        let mut tokens = vec!["<unk>".to_string()];
        let mut scores = vec![0.0];
        let mut types = vec![3];
        for b in 0..=255u8 {
            tokens.push(format!("<0x{b:02X}>"));
            scores.push(0.0);
            types.push(6);
        }
        for &(t, s, ty) in extra {
            tokens.push(t.to_string());
            scores.push(s);
            types.push(ty);
        }
        SpmTokenizer::new(tokens, scores, types).unwrap()
    }

    fn ids(t: &SpmTokenizer, pieces: &[&str]) -> Vec<u32> {
        pieces.iter().map(|p| t.id_of(p).unwrap()).collect()
    }

    #[test]
    fn merges_highest_score_first() {
        // "abc": "ab" (-2) and "bc" (-1) compete; "bc" wins, and "a" + "bc" is no token.
        let t = toy(&[
            ("a", -10.0, 1),
            ("b", -10.0, 1),
            ("c", -10.0, 1),
            ("ab", -2.0, 1),
            ("bc", -1.0, 1),
        ]);
        assert_eq!(t.encode("abc"), ids(&t, &["a", "bc"]));
        // Without "bc" the merges go a+b, then ab+c.
        let t = toy(&[
            ("a", -10.0, 1),
            ("b", -10.0, 1),
            ("c", -10.0, 1),
            ("ab", -2.0, 1),
            ("abc", -0.5, 1),
        ]);
        assert_eq!(t.encode("abc"), ids(&t, &["abc"]));
    }

    #[test]
    fn equal_scores_merge_leftmost_first() {
        // "aaa": the pairs (0,1) and (1,2) both make "aa" at the same score: the left one wins.
        let t = toy(&[("a", -10.0, 1), ("aa", -1.0, 1)]);
        assert_eq!(t.encode("aaa"), ids(&t, &["aa", "a"]));
        // Distinct tokens at equal score: "xy" (left) beats "yz".
        let t = toy(&[
            ("x", -10.0, 1),
            ("y", -10.0, 1),
            ("z", -10.0, 1),
            ("xy", -3.0, 1),
            ("yz", -3.0, 1),
        ]);
        assert_eq!(t.encode("xyz"), ids(&t, &["xy", "z"]));
    }

    #[test]
    fn spaces_become_the_word_boundary_mark() {
        let t = toy(&[
            ("▁", -5.0, 1),
            ("h", -5.0, 1),
            ("i", -5.0, 1),
            ("hi", -2.0, 1),
            ("▁hi", -1.0, 1),
        ]);
        assert_eq!(t.encode(" hi hi"), ids(&t, &["▁hi", "▁hi"]));
        assert_eq!(t.encode("hi "), ids(&t, &["hi", "▁"]));
        assert_eq!(t.decode(&t.encode(" hi hi")), " hi hi");
    }

    #[test]
    fn unknown_characters_fall_back_to_bytes() {
        let t = toy(&[("a", -1.0, 1)]);
        // é is C3 A9 in UTF-8 and not in the vocabulary.
        assert_eq!(t.encode("aé"), ids(&t, &["a", "<0xC3>", "<0xA9>"]));
        assert_eq!(t.decode(&t.encode("aé")), "aé");
        // A lone continuation byte decodes lossily.
        assert_eq!(t.decode(&ids(&t, &["a", "<0xA9>"])), "a\u{FFFD}");
        assert_eq!(t.encode(""), Vec::<u32>::new());
    }

    #[test]
    fn user_defined_tokens_are_split_off_longest_first() {
        let t = toy(&[
            ("a", -1.0, 1),
            ("b", -1.0, 1),
            ("▁", -1.0, 1),
            ("\n", -1000.0, 4),
            ("\n\n", -1000.0, 4),
            ("  ", -1000.0, 4),
            ("<b>", -1000.0, 4),
            ("<ctl>", -1000.0, 3),
            ("</s>", -1000.0, 4),
        ]);
        assert_eq!(
            t.encode("a\n\n\nb"),
            ids(&t, &["a", "\n\n", "\n", "b"]),
            "longest token first, left to right"
        );
        assert_eq!(t.encode("a  b"), ids(&t, &["a", "  ", "b"]));
        assert_eq!(t.encode("a   b"), ids(&t, &["a", "  ", "▁", "b"]));
        assert_eq!(t.encode("<b>a"), ids(&t, &["<b>", "a"]));
        // Control tokens are not parsed; `</s>` is user-defined here but llama.cpp makes it
        // control (an end-of-generation text), so it is not split off either.
        let ctl = t.encode("<ctl>");
        assert!(!ctl.contains(&t.id_of("<ctl>").unwrap()), "{ctl:?}");
        let eos = t.encode("</s>");
        assert!(!eos.contains(&t.id_of("</s>").unwrap()), "{eos:?}");
        assert_eq!(t.decode(&t.encode("a\n\n\nb  a<b>")), "a\n\n\nb  a<b>");
        // Control tokens decode to nothing, user-defined ones to their text.
        assert_eq!(
            t.decode(&ids(&t, &["<ctl>", "</s>", "<unk>", "<b>"])),
            "<b>"
        );
    }

    #[test]
    fn control_tokens_can_be_formed_by_merges() {
        // llama.cpp looks merges up in the whole vocabulary, control tokens included.
        let t = toy(&[
            ("<", -9.0, 1),
            ("x", -9.0, 1),
            (">", -9.0, 1),
            ("<x", -5.0, 1),
            ("<x>", -1.0, 3),
        ]);
        assert_eq!(t.encode("<x>"), ids(&t, &["<x>"]));
    }

    #[test]
    fn resegment_splits_by_the_recorded_merge() {
        // Unreachable through `encode` (every merged symbol is a token), so the session state is
        // built by hand: "ab" is one symbol that is not a token, recorded as the merge of
        // symbols 0 ("a") and 1 ("b", a token); "a" has no token and falls back to a byte.
        let t = toy(&[("b", -1.0, 1)]);
        let text = "ab";
        let mut session = Session::new(&t, text);
        session.symbols[0].n = 1;
        session.symbols[1].n = 1;
        session.rev_merge.insert("ab", (0, 1));
        let whole = Symbol {
            start: 0,
            n: 2,
            prev: None,
            next: None,
        };
        session.symbols.push(whole);
        let mut out = Vec::new();
        session.resegment(2, &mut out);
        assert_eq!(out, ids(&t, &["<0x61>", "b"]));
    }

    #[test]
    fn bad_vocabularies_are_errors() {
        let tokens = || vec!["a".to_string(), "b".to_string()];
        assert!(SpmTokenizer::new(tokens(), vec![0.0], vec![1, 1]).is_err());
        assert!(SpmTokenizer::new(tokens(), vec![0.0; 2], vec![1]).is_err());
        let err = SpmTokenizer::new(tokens(), vec![0.0; 2], vec![1; 2]);
        assert!(err.is_err_and(|e| e.to_string().contains("<0x00>")));
        let mut dup: Vec<String> = (0..=255u8).map(|b| format!("<0x{b:02X}>")).collect();
        dup.push("<0x00>".to_string());
        assert!(SpmTokenizer::new(dup, vec![0.0; 257], vec![6; 257]).is_err());
        let mut nan: Vec<String> = (0..=255u8).map(|b| format!("<0x{b:02X}>")).collect();
        nan.push("x".to_string());
        let mut scores = vec![0.0; 257];
        scores[256] = f32::NAN;
        assert!(SpmTokenizer::new(nan, scores, vec![6; 257]).is_err());
    }

    #[test]
    fn lookups_and_out_of_range_ids() {
        let t = toy(&[("", -1.0, 1), ("a", -1.0, 1)]);
        assert_eq!(t.vocab_size(), 259);
        assert_eq!(t.token(1), Some("<0x00>"));
        assert_eq!(t.token(257), Some("[EMPTY_257]"));
        assert_eq!(t.token(9999), None);
        assert_eq!(t.id_of("a"), Some(258));
        assert_eq!(t.id_of("zz"), None);
        assert_eq!(t.decode(&[258, 9999, u32::MAX]), "a");
    }

    /// A long text (180,000 characters; speed is `scripts/bench`'s to measure, not a test's):
    /// each `aaaa` one token, each `▁aaa` three, and the text back whole.
    #[test]
    fn long_texts_merge_and_round_trip() {
        let t = toy(&[
            ("a", -1.0, 1),
            ("aa", -0.5, 1),
            ("aaaa", -0.25, 1),
            ("▁", -1.0, 1),
        ]);
        let text = "aaaa aaa ".repeat(20_000);
        let out = t.encode(&text);
        let aaaa = t.id_of("aaaa").expect("aaaa");
        assert_eq!(out.iter().filter(|&&id| id == aaaa).count(), 20_000);
        assert_eq!(t.decode(&out), text);
    }
}
