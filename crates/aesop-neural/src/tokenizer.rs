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
use std::cmp::Reverse;
use std::collections::BinaryHeap;
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
        let symbols: Vec<u32> = word
            .bytes()
            .map(|b| self.byte_ids[b as usize])
            .filter(|&id| id != NO_TOKEN)
            .collect();
        let symbols = self.merge_by_rank(symbols);
        if word.len() <= 64 {
            self.cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(word.to_string(), symbols.clone());
        }
        ids.extend_from_slice(&symbols);
    }

    /// Merge `symbols` pair by pair, the lowest-ranked pair first and the leftmost of equal
    /// ranks (as llama.cpp and Hugging Face's tokenizers do). The candidate pairs wait in a
    /// heap over a linked list of symbols, so a word of n bytes takes O(n log n): a pass over
    /// the word per merge rank took a 192 kB word without spaces some 20 s.
    fn merge_by_rank(&self, mut symbols: Vec<u32>) -> Vec<u32> {
        const NONE: usize = usize::MAX;
        let n = symbols.len();
        if n < 2 {
            return symbols;
        }
        let mut next: Vec<usize> = (1..=n).map(|i| if i < n { i } else { NONE }).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.checked_sub(1).unwrap_or(NONE)).collect();
        // (rank, left slot, left id, right id, merged id), smallest first.
        let mut heap = BinaryHeap::new();
        let candidate = |left: usize, a: u32, b: u32| {
            self.merges
                .get(&(a, b))
                .map(|&(rank, merged)| Reverse((rank, left, a, b, merged)))
        };
        heap.extend((0..n - 1).filter_map(|i| candidate(i, symbols[i], symbols[i + 1])));
        while let Some(Reverse((_, left, a, b, merged))) = heap.pop() {
            // An entry is stale when either symbol has been merged since it was queued.
            let right = next[left];
            if symbols[left] != a || right == NONE || symbols[right] != b || prev[right] != left {
                continue;
            }
            symbols[left] = merged;
            symbols[right] = NO_TOKEN;
            next[left] = next[right];
            if next[left] != NONE {
                prev[next[left]] = left;
            }
            prev[right] = NONE;
            if prev[left] != NONE {
                heap.extend(candidate(prev[left], symbols[prev[left]], merged));
            }
            if next[left] != NONE {
                heap.extend(candidate(left, merged, symbols[next[left]]));
            }
        }
        // Slot 0 is never the right of a pair, so it heads the list.
        let mut out = Vec::with_capacity(n);
        let mut slot = 0;
        while slot != NONE {
            out.push(symbols[slot]);
            slot = next[slot];
        }
        out
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

    /// The merge loop as it was written first: find the lowest rank among all adjacent
    /// pairs, merge every occurrence of it left to right, repeat. The oracle for
    /// [`BpeTokenizer::merge_by_rank`].
    fn merge_by_passes(t: &BpeTokenizer, mut symbols: Vec<u32>) -> Vec<u32> {
        loop {
            let best = symbols
                .windows(2)
                .filter_map(|w| t.merges.get(&(w[0], w[1])).map(|&(rank, _)| rank))
                .min();
            let Some(rank) = best else {
                return symbols;
            };
            let mut merged = Vec::with_capacity(symbols.len());
            let mut i = 0;
            while i < symbols.len() {
                if let Some(&(r, id)) = symbols
                    .get(i + 1)
                    .and_then(|&b| t.merges.get(&(symbols[i], b)))
                {
                    if r == rank {
                        merged.push(id);
                        i += 2;
                        continue;
                    }
                }
                merged.push(symbols[i]);
                i += 1;
            }
            symbols = merged;
        }
    }

    /// A vocabulary as BPE training grows one: the 256 byte tokens, then 400 merges, each of
    /// two tokens that exist already (xorshift-chosen among the letters a-f and the merges
    /// so far, shorter ones more often, so runs like `aaaa` and overlapping pairs are common).
    fn trained_toy(seed: &mut u64) -> BpeTokenizer {
        let table = bytes_to_unicode();
        let mut tokens: Vec<String> = table.iter().map(|c| c.to_string()).collect();
        let mut pool: Vec<String> = "abcdef".chars().map(String::from).collect();
        let mut merges = Vec::new();
        while merges.len() < 400 {
            // The lesser of two draws: earlier (shorter) tokens are merged more often.
            let mut draw = || {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                (*seed % pool.len() as u64) as usize
            };
            let mut pick = || pool[draw().min(draw())].clone();
            let (l, r) = (pick(), pick());
            let joined = format!("{l}{r}");
            if joined.len() > 12 || pool.contains(&joined) {
                continue;
            }
            merges.push(format!("{l} {r}"));
            tokens.push(joined.clone());
            pool.push(joined);
        }
        BpeTokenizer::new(tokens, &merges).expect("a valid toy vocabulary")
    }

    /// The heap merges exactly as the passes do: 2,000 random words of the letters a-f (1 to
    /// 300 bytes) under a vocabulary of 400 trained merges, and a word of 100,000 bytes.
    #[test]
    fn merging_by_heap_equals_merging_by_passes() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let t = trained_toy(&mut seed);
        let mut random_word = |len: usize| -> Vec<u32> {
            (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    t.byte_ids[usize::from(b'a') + (seed % 6) as usize]
                })
                .collect()
        };
        let words: Vec<Vec<u32>> = (0..2_000).map(|i| random_word(1 + i % 300)).collect();
        let long = random_word(100_000);
        for (i, word) in words.iter().chain(std::iter::once(&long)).enumerate() {
            let want = merge_by_passes(&t, word.clone());
            assert_eq!(t.merge_by_rank(word.clone()), want, "word {i}");
        }
        let merged = t.merge_by_rank(long).len();
        assert!(merged < 80_000, "merges fired: {merged} symbols");
        assert_eq!(t.merge_by_rank(Vec::new()), Vec::<u32>::new());
    }
}
