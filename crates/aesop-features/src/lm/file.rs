//! The model file: magic `AESOPLM\n`, then LEB128 varints (see [`LmCounts::to_bytes`]), shipped
//! gzip-compressed. Reading checks every count and id, so a damaged file is an error, never a
//! wrong model.

use super::kneser_ney::{ContextCounts, LmCounts, MAX_IDS};
use super::{format_error, LmError, ORDER, SPECIALS};
use aesop_core::varint::{put as put_varint, VarintError};
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;

const MAGIC: &[u8; 8] = b"AESOPLM\n";
const FORMAT_VERSION: u64 = 1;

impl LmCounts {
    /// The binary file format (uncompressed): magic `AESOPLM\n`, then LEB128 varints:
    /// version, order, metadata (count, then key/value strings), words (count, strings; a
    /// string is its byte length and UTF-8 bytes), raw unigram counts, continuation counts, the
    /// 3×3 discounts as little-endian f64, bigram contexts (count; per context: v as a delta
    /// from the previous v, total, number of entries, entries as (word delta, count)), trigram
    /// contexts (count; per context: u delta, v (delta when u repeats), total, entries).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put_varint(&mut out, FORMAT_VERSION);
        put_varint(&mut out, ORDER as u64);
        put_varint(&mut out, self.metadata.len() as u64);
        for (k, v) in &self.metadata {
            put_string(&mut out, k);
            put_string(&mut out, v);
        }
        put_varint(&mut out, self.words.len() as u64);
        for w in &self.words {
            put_string(&mut out, w);
        }
        for &c in self.unigram_counts.iter().chain(&self.continuation_counts) {
            put_varint(&mut out, c);
        }
        for d in self.discounts.iter().flatten() {
            out.extend_from_slice(&d.to_le_bytes());
        }
        put_varint(&mut out, self.bigrams.len() as u64);
        let mut previous_v = 0u32;
        for (v, context) in &self.bigrams {
            put_varint(&mut out, u64::from(v - previous_v));
            previous_v = *v;
            put_context(&mut out, context);
        }
        put_varint(&mut out, self.trigrams.len() as u64);
        let (mut previous_u, mut previous_v) = (0u32, 0u32);
        for ((u, v), context) in &self.trigrams {
            put_varint(&mut out, u64::from(u - previous_u));
            if *u != previous_u {
                previous_v = 0;
            }
            put_varint(&mut out, u64::from(v - previous_v));
            (previous_u, previous_v) = (*u, *v);
            put_context(&mut out, context);
        }
        out
    }

    /// Parse [`LmCounts::to_bytes`]' format, checking ids and sort order.
    pub fn from_bytes(bytes: &[u8]) -> Result<LmCounts, LmError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(MAGIC.len())? != MAGIC {
            return Err(format_error("not an aesop language model (bad magic)"));
        }
        let version = r.varint()?;
        if version != FORMAT_VERSION {
            return Err(format_error(format!(
                "format version {version}, this build reads {FORMAT_VERSION}"
            )));
        }
        let order = r.varint()?;
        if order != ORDER as u64 {
            return Err(format_error(format!("order {order}, expected {ORDER}")));
        }
        let metadata_len = r.length()?;
        let mut metadata = Vec::with_capacity(metadata_len.min(1024));
        for _ in 0..metadata_len {
            metadata.push((r.string()?, r.string()?));
        }
        let vocabulary = r.length()?;
        if !(SPECIALS.len()..=MAX_IDS).contains(&vocabulary) {
            return Err(format_error(format!("vocabulary of {vocabulary} words")));
        }
        let mut words = Vec::with_capacity(vocabulary);
        for _ in 0..vocabulary {
            words.push(r.string()?);
        }
        if words[..SPECIALS.len()] != SPECIALS {
            return Err(format_error("the first words must be <unk>, <s>, </s>"));
        }
        let mut counts = || {
            (0..vocabulary)
                .map(|_| r.varint())
                .collect::<Result<Vec<_>, _>>()
        };
        let unigram_counts = counts()?;
        let continuation_counts = counts()?;
        let mut discounts = [[0.0; 3]; ORDER];
        for d in discounts.iter_mut().flatten() {
            let raw = r.take(8)?;
            let mut le = [0u8; 8];
            le.copy_from_slice(raw);
            *d = f64::from_le_bytes(le);
            if !(0.0..=3.0).contains(d) {
                return Err(format_error(format!("discount {d} out of range")));
            }
        }
        let id = |x: u64| -> Result<u32, LmError> {
            if x < vocabulary as u64 {
                Ok(x as u32)
            } else {
                Err(format_error(format!("word id {x} out of range")))
            }
        };
        let n_bigram_contexts = r.length()?;
        let mut bigrams = Vec::with_capacity(n_bigram_contexts.min(MAX_IDS));
        let mut v = 0u64;
        for _ in 0..n_bigram_contexts {
            v += r.varint()?;
            bigrams.push((id(v)?, r.context(vocabulary)?));
        }
        let n_trigram_contexts = r.length()?;
        let mut trigrams = Vec::with_capacity(n_trigram_contexts.min(1 << 24));
        let (mut u, mut v) = (0u64, 0u64);
        for _ in 0..n_trigram_contexts {
            let du = r.varint()?;
            if du > 0 {
                v = 0;
            }
            u += du;
            v += r.varint()?;
            trigrams.push(((id(u)?, id(v)?), r.context(vocabulary)?));
        }
        if r.pos != bytes.len() {
            return Err(format_error("trailing bytes"));
        }
        Ok(LmCounts {
            words,
            unigram_counts,
            continuation_counts,
            discounts,
            bigrams,
            trigrams,
            metadata,
        })
    }

    /// Gzip-compressed [`LmCounts::to_bytes`]. Deterministic (no time stamp or name in the header).
    pub fn to_gzip(&self) -> std::io::Result<Vec<u8>> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(&self.to_bytes())?;
        encoder.finish()
    }

    /// Parse a gzip-compressed model file.
    pub fn from_gzip(bytes: &[u8]) -> Result<LmCounts, LmError> {
        LmCounts::from_bytes(&aesop_core::input::gunzip(bytes)?)
    }
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_context(out: &mut Vec<u8>, context: &ContextCounts) {
    put_varint(out, context.total);
    put_varint(out, context.entries.len() as u64);
    let mut previous = 0u32;
    for &(w, count) in &context.entries {
        put_varint(out, u64::from(w - previous));
        previous = w;
        put_varint(out, count);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], LmError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format_error("truncated file"))?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn varint(&mut self) -> Result<u64, LmError> {
        aesop_core::varint::get(self.bytes, &mut self.pos).map_err(|e| match e {
            VarintError::Truncated => format_error("truncated file"),
            VarintError::TooLong => format_error("varint too long"),
        })
    }

    /// A count of following items, bounded by the remaining bytes (each takes at least one).
    fn length(&mut self) -> Result<usize, LmError> {
        let n = self.varint()?;
        if n > (self.bytes.len() - self.pos) as u64 {
            return Err(format_error(format!("length {n} exceeds the file")));
        }
        Ok(n as usize)
    }

    fn string(&mut self) -> Result<String, LmError> {
        let n = self.length()?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| format_error("invalid UTF-8"))
    }

    fn context(&mut self, vocabulary: usize) -> Result<ContextCounts, LmError> {
        let total = self.varint()?;
        let n = self.length()?;
        let mut entries = Vec::with_capacity(n);
        let mut w = 0u64;
        let mut sum = 0u64;
        for i in 0..n {
            let delta = self.varint()?;
            if i > 0 && delta == 0 {
                return Err(format_error("context entries not sorted"));
            }
            w += delta;
            if w >= vocabulary as u64 {
                return Err(format_error(format!("word id {w} out of range")));
            }
            let count = self.varint()?;
            sum = sum.saturating_add(count);
            entries.push((w as u32, count));
        }
        if sum > total || total == 0 {
            return Err(format_error("context total smaller than its entries"));
        }
        Ok(ContextCounts { total, entries })
    }
}
