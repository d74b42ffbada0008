//! Tokenizers built from a GGUF's own vocabulary: GPT-2 byte-level BPE with merges (SmolLM2,
//! [`BpeTokenizer`], this module) or SentencePiece BPE with scores (Gemma 3,
//! [`super::spm::SpmTokenizer`]), behind one [`Tokenizer`].
//!
//! SmolLM2 declares the `smollm` pre-tokenizer: every digit is split off on its own, then the
//! GPT-2 pattern `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
//! splits each piece. The `regex` crate has no look-ahead, so the `\s+(?!\S)` rule is applied by
//! hand: a whitespace run followed by more text gives up its last character to the next word.
//! Each word is mapped byte-by-byte to GPT-2's printable byte alphabet and merged by rank.
//! Special tokens in the text are not parsed (they are plain text, as llama.cpp does without
//! `parse_special`). Checked against llama.cpp's tokenizer in tests/neural_fixture.rs.

use anyhow::{bail, Result};
use regex::Regex;
use rustc_hash::FxHashMap;
use std::sync::Mutex;

pub use super::spm::SpmTokenizer;

/// A model's tokenizer, of whichever kind its GGUF declares (`tokenizer.ggml.model`).
pub enum Tokenizer {
    /// `gpt2`: byte-level BPE with merges.
    Bpe(BpeTokenizer),
    /// `llama`: SentencePiece BPE with scores and byte fallback.
    Spm(SpmTokenizer),
}

impl Tokenizer {
    /// Vocabulary size.
    pub fn vocab_size(&self) -> usize {
        match self {
            Tokenizer::Bpe(t) => t.vocab_size(),
            Tokenizer::Spm(t) => t.vocab_size(),
        }
    }

    /// The token string of an id, as the vocabulary spells it, if any.
    pub fn token(&self, id: u32) -> Option<&str> {
        match self {
            Tokenizer::Bpe(t) => t.token(id),
            Tokenizer::Spm(t) => t.token(id),
        }
    }

    /// The id of a token string (e.g. a special token such as `<|im_start|>`), if in the vocabulary.
    pub fn id_of(&self, token: &str) -> Option<u32> {
        match self {
            Tokenizer::Bpe(t) => t.id_of(token),
            Tokenizer::Spm(t) => t.id_of(token),
        }
    }

    /// Token ids of `text` (no BOS, special tokens not parsed).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        match self {
            Tokenizer::Bpe(t) => t.encode(text),
            Tokenizer::Spm(t) => t.encode(text),
        }
    }

    /// The text of `ids` (invalid UTF-8 replaced).
    pub fn decode(&self, ids: &[u32]) -> String {
        match self {
            Tokenizer::Bpe(t) => t.decode(ids),
            Tokenizer::Spm(t) => t.decode(ids),
        }
    }
}

/// A byte-level BPE vocabulary with its merge ranks.
pub struct BpeTokenizer {
    tokens: Vec<String>,
    /// Token id of each byte's printable stand-in; [`NO_TOKEN`] where the vocabulary has
    /// none (SmolLM2 lacks a few control bytes: they are dropped, as the HF tokenizer does).
    byte_ids: [u32; 256],
    /// Byte of each printable stand-in: the inverse of GPT-2's table, for [`Tokenizer::decode`]
    /// (built once: the `neural` class decodes every scored token).
    byte_of: FxHashMap<char, u8>,
    /// (left id, right id) -> (rank, merged id).
    merges: FxHashMap<(u32, u32), (u32, u32)>,
    digits: Regex,
    words: Regex,
    /// Word -> ids, since the same words recur across a corpus.
    cache: Mutex<FxHashMap<String, Vec<u32>>>,
}

const NO_TOKEN: u32 = u32::MAX;

/// GPT-2's table from bytes to printable characters.
fn bytes_to_unicode() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut n = 0u32;
    for b in 0..256u32 {
        let printable =
            (0x21..=0x7e).contains(&b) || (0xa1..=0xac).contains(&b) || (0xae..=0xff).contains(&b);
        let c = if printable {
            b
        } else {
            n += 1;
            255 + n
        };
        table[b as usize] = char::from_u32(c).unwrap_or('\0');
    }
    table
}

impl BpeTokenizer {
    /// Build from the token strings and `"left right"` merge lines of a GGUF.
    pub fn new(tokens: Vec<String>, merges: &[String]) -> Result<BpeTokenizer> {
        let index: FxHashMap<&str, u32> = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i as u32))
            .collect();
        let table = bytes_to_unicode();
        let mut byte_ids = [NO_TOKEN; 256];
        for (b, c) in table.iter().enumerate() {
            if let Some(&id) = index.get(c.to_string().as_str()) {
                byte_ids[b] = id;
            }
        }
        let byte_of = table
            .iter()
            .enumerate()
            .map(|(b, &c)| (c, b as u8))
            .collect();
        if byte_ids.iter().filter(|&&id| id == NO_TOKEN).count() > 64 {
            bail!("tokenizer vocabulary lacks most byte tokens: not a byte-level BPE vocabulary");
        }
        let mut merge_map = FxHashMap::default();
        for (rank, line) in merges.iter().enumerate() {
            let Some((l, r)) = line.split_once(' ') else {
                bail!("tokenizer merge {rank} is not two tokens: {line:?}");
            };
            let (Some(&li), Some(&ri), Some(&mi)) = (
                index.get(l),
                index.get(r),
                index.get(format!("{l}{r}").as_str()),
            ) else {
                // llama.cpp ignores such merges too; they can never fire.
                continue;
            };
            merge_map.entry((li, ri)).or_insert((rank as u32, mi));
        }
        let words =
            Regex::new(r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+")?;
        Ok(BpeTokenizer {
            tokens,
            byte_ids,
            byte_of,
            merges: merge_map,
            digits: Regex::new(r"\p{N}")?,
            words,
            cache: Mutex::new(FxHashMap::default()),
        })
    }

    /// Vocabulary size.
    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    /// The token string of an id (GPT-2 byte alphabet), if any.
    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    /// The id of a token string (e.g. a special token such as `<|im_start|>`), if in the vocabulary.
    pub fn id_of(&self, token: &str) -> Option<u32> {
        self.tokens
            .iter()
            .position(|t| t == token)
            .map(|i| i as u32)
    }

    /// Token ids of `text` (no BOS, special tokens not parsed).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        let mut start = 0;
        for m in self.digits.find_iter(text) {
            self.encode_piece(&text[start..m.start()], &mut ids);
            self.encode_word(m.as_str(), &mut ids);
            start = m.end();
        }
        self.encode_piece(&text[start..], &mut ids);
        ids
    }

    /// The text of `ids` (bytes decoded from the byte alphabet; invalid UTF-8 replaced).
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            if let Some(t) = self.token(id) {
                for c in t.chars() {
                    match self.byte_of.get(&c) {
                        Some(&b) => bytes.push(b),
                        None => bytes.extend_from_slice(c.to_string().as_bytes()),
                    }
                }
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Split a digit-free piece with the GPT-2 pattern and encode each word.
    fn encode_piece(&self, piece: &str, ids: &mut Vec<u32>) {
        let mut pos = 0;
        while pos < piece.len() {
            let Some(m) = self.words.find_at(piece, pos) else {
                break;
            };
            let mut end = m.end();
            let word = m.as_str();
            // `\s+(?!\S)`: a whitespace run followed by text leaves its last character to it.
            if end < piece.len()
                && word.chars().all(char::is_whitespace)
                && word.chars().count() > 1
            {
                let last = word.chars().next_back().map_or(0, char::len_utf8);
                end -= last;
            }
            // The pattern matches every character, so `m` starts at `pos`; guard anyway.
            if m.start() > pos {
                self.encode_word(&piece[pos..m.start()], ids);
            }
            self.encode_word(&piece[m.start()..end], ids);
            pos = end;
        }
    }

    /// Byte-level BPE of one pre-tokenized word.
    fn encode_word(&self, word: &str, ids: &mut Vec<u32>) {
        if word.is_empty() {
            return;
        }
        if let Some(hit) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(word)
        {
            ids.extend_from_slice(hit);
            return;
        }
        let mut symbols: Vec<u32> = word
            .bytes()
            .map(|b| self.byte_ids[b as usize])
            .filter(|&id| id != NO_TOKEN)
            .collect();
        loop {
            let best = symbols
                .windows(2)
                .enumerate()
                .filter_map(|(i, w)| {
                    self.merges
                        .get(&(w[0], w[1]))
                        .map(|&(rank, id)| (rank, i, id))
                })
                .min();
            let Some((rank, _, _)) = best else { break };
            // Merge every occurrence of the best pair, left to right.
            let mut merged = Vec::with_capacity(symbols.len());
            let mut i = 0;
            while i < symbols.len() {
                if i + 1 < symbols.len() {
                    if let Some(&(r, id)) = self.merges.get(&(symbols[i], symbols[i + 1])) {
                        if r == rank {
                            merged.push(id);
                            i += 2;
                            continue;
                        }
                    }
                }
                merged.push(symbols[i]);
                i += 1;
            }
            symbols = merged;
        }
        if word.len() <= 64 {
            self.cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(word.to_string(), symbols.clone());
        }
        ids.extend_from_slice(&symbols);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy vocabulary: the 256 byte tokens plus a few merges.
    fn toy() -> BpeTokenizer {
        let table = bytes_to_unicode();
        let mut tokens: Vec<String> = table.iter().map(|c| c.to_string()).collect();
        for t in ["Ġt", "he", "Ġthe", "Ġa"] {
            tokens.push(t.to_string());
        }
        let merges = ["h e", "Ġ t", "Ġt he", "Ġ a"].map(String::from);
        BpeTokenizer::new(tokens, &merges).unwrap()
    }

    #[test]
    fn merges_by_rank_and_round_trips() {
        let t = toy();
        let ids = t.encode("the the a");
        let strs: Vec<&str> = ids.iter().map(|&i| t.token(i).unwrap()).collect();
        assert_eq!(strs, ["t", "he", "Ġthe", "Ġa"]);
        assert_eq!(t.decode(&ids), "the the a");
    }

    #[test]
    fn digits_split_and_whitespace_lookahead() {
        let t = toy();
        let ids = t.encode("in  2020\n");
        let strs: Vec<&str> = ids.iter().map(|&i| t.token(i).unwrap()).collect();
        // "in", "  " (run before digits ends the piece), then each digit, then the newline.
        assert_eq!(strs, ["i", "n", "Ġ", "Ġ", "2", "0", "2", "0", "Ċ"]);
        let ids = t.encode("a   the");
        let strs: Vec<&str> = ids.iter().map(|&i| t.token(i).unwrap()).collect();
        assert_eq!(strs, ["a", "Ġ", "Ġ", "Ġthe"]);
        assert_eq!(t.decode(&t.encode("héllo 😀 漢字")), "héllo 😀 漢字");
    }
}
