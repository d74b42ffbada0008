//! Compact model files: a small varint-coded binary format, gzip-compressed.
//!
//! Perceptron weights are stored as integers times a per-model scale, feature keys as sorted
//! deltas, so the files stay a few MB without an extra serialization dependency.

use std::io::Write;

use anyhow::{bail, ensure, Context};
use flate2::{write::GzEncoder, Compression};

use super::perceptron::{LevelRows, Model};
use aesop_core::varint::VarintError;

const MAGIC: &[u8; 8] = b"AESOPNLP";
const VERSION: u8 = 1;

/// Builds a model file in memory.
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub fn new(kind: &str) -> Writer {
        let mut w = Writer { buf: Vec::new() };
        w.buf.extend_from_slice(MAGIC);
        w.buf.push(VERSION);
        w.str(kind);
        w
    }

    pub fn varint(&mut self, n: u64) {
        aesop_core::varint::put(&mut self.buf, n);
    }

    pub fn signed(&mut self, n: i64) {
        self.varint(((n << 1) ^ (n >> 63)) as u64);
    }

    pub fn f32(&mut self, x: f32) {
        self.buf.extend_from_slice(&x.to_le_bytes());
    }

    pub fn str(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }

    pub fn strings(&mut self, items: &[String]) {
        self.varint(items.len() as u64);
        for s in items {
            self.str(s);
        }
    }

    pub fn model(&mut self, m: &Model) {
        self.varint(m.nclasses as u64);
        self.f32(m.scale);
        self.varint(m.nfeatures() as u64);
        let mut prev_key = 0u64;
        for (key, row) in m.levels() {
            self.varint(u64::from(key) - prev_key);
            prev_key = u64::from(key);
            self.varint(row.len() as u64);
            let mut prev_class = 0u64;
            for (class, w) in row {
                self.varint(u64::from(class) - prev_class);
                prev_class = u64::from(class);
                self.signed(i64::from(w));
            }
        }
    }

    /// Gzip-compressed file contents.
    pub fn finish(self) -> anyhow::Result<Vec<u8>> {
        let mut enc = GzEncoder::new(Vec::new(), Compression::best());
        enc.write_all(&self.buf)?;
        Ok(enc.finish()?)
    }
}

/// Reads a model file produced by [`Writer`].
pub struct Reader {
    buf: Vec<u8>,
    pos: usize,
}

impl Reader {
    pub fn new(gzipped: &[u8], kind: &str) -> anyhow::Result<Reader> {
        ensure!(
            !gzipped.is_empty(),
            "the {kind} model is empty: run scripts/build/train-nlp and rebuild"
        );
        let buf = aesop_core::input::gunzip(gzipped).context("decompressing model")?;
        ensure!(
            buf.len() > MAGIC.len() && &buf[..MAGIC.len()] == MAGIC,
            "not an aesop NLP model file"
        );
        ensure!(
            buf[MAGIC.len()] == VERSION,
            "unsupported model version {}",
            buf[MAGIC.len()]
        );
        let mut r = Reader {
            buf,
            pos: MAGIC.len() + 1,
        };
        let found = r.str()?;
        ensure!(found == kind, "expected a {kind} model, found {found}");
        Ok(r)
    }

    pub fn varint(&mut self) -> anyhow::Result<u64> {
        match aesop_core::varint::get(&self.buf, &mut self.pos) {
            Ok(n) => Ok(n),
            Err(VarintError::Truncated) => bail!("model file truncated"),
            Err(VarintError::TooLong) => bail!("bad varint in model file"),
        }
    }

    pub fn signed(&mut self) -> anyhow::Result<i64> {
        let z = self.varint()?;
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    /// A length or count, bounded by the bytes left so a corrupt file cannot request huge allocations.
    fn len(&mut self) -> anyhow::Result<usize> {
        let n = self.varint()? as usize;
        ensure!(
            n <= self.buf.len() - self.pos.min(self.buf.len()),
            "bad length in model file"
        );
        Ok(n)
    }

    pub fn f32(&mut self) -> anyhow::Result<f32> {
        let bytes = self
            .buf
            .get(self.pos..self.pos + 4)
            .context("model file truncated")?;
        self.pos += 4;
        Ok(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    pub fn str(&mut self) -> anyhow::Result<String> {
        let n = self.len()?;
        let bytes = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(std::str::from_utf8(bytes)
            .context("model string is not UTF-8")?
            .to_string())
    }

    pub fn strings(&mut self) -> anyhow::Result<Vec<String>> {
        let n = self.len()?;
        (0..n).map(|_| self.str()).collect()
    }

    pub fn model(&mut self) -> anyhow::Result<Model> {
        let nclasses = self.varint()? as usize;
        ensure!(nclasses <= usize::from(u16::MAX), "bad class count");
        let scale = self.f32()?;
        let nfeatures = self.len()?;
        // Straight into the model's row buffers: the writer gives keys and classes in
        // increasing order and no zero weight, and anything else is a damaged file.
        // Every pair takes at least two bytes, which bounds how many the rest of the file holds.
        let mut rows =
            LevelRows::with_capacity(nfeatures, self.buf.len().saturating_sub(self.pos) / 2);
        let mut key = 0u64;
        for row_number in 0..nfeatures {
            let step = self.varint()?;
            ensure!(
                row_number == 0 || step > 0,
                "feature keys out of order in model file"
            );
            key = key.saturating_add(step);
            rows.begin(u32::try_from(key).context("feature key out of range")?);
            let len = self.len()?;
            ensure!(len > 0, "empty weight row in model file");
            let mut class = 0u64;
            for k in 0..len {
                let step = self.varint()?;
                ensure!(k == 0 || step > 0, "classes out of order in model file");
                class = class.saturating_add(step);
                ensure!(
                    class < nclasses as u64,
                    "class index out of range in model file"
                );
                let level =
                    i16::try_from(self.signed()?).context("weight out of range in model file")?;
                ensure!(level != 0, "zero weight in model file");
                rows.push_pair(class as u16, level);
            }
        }
        Ok(Model::from_level_rows(nclasses, scale, &rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nlp::perceptron::Trainer;

    #[test]
    fn model_round_trip() -> anyhow::Result<()> {
        let mut t = Trainer::new(3);
        for i in 0..20u32 {
            t.tick();
            t.update(
                (i % 3) as usize,
                ((i + 1) % 3) as usize,
                &[i % 5, 100 + i % 7],
            );
        }
        let m = t.average();
        let mut w = Writer::new("test");
        w.strings(&["a".to_string(), "b".to_string()]);
        w.signed(-5);
        w.model(&m);
        let bytes = w.finish()?;
        let mut r = Reader::new(&bytes, "test")?;
        assert_eq!(r.strings()?, vec!["a", "b"]);
        assert_eq!(r.signed()?, -5);
        let back = r.model()?;
        assert_eq!(back.nfeatures(), m.nfeatures());
        let (mut s1, mut s2) = ([0.0; 3], [0.0; 3]);
        for f in [0, 1, 2, 3, 4, 100, 103, 106] {
            m.scores(&[f], &mut s1);
            back.scores(&[f], &mut s2);
            for (a, b) in s1.iter().zip(&s2) {
                assert!((a - b).abs() < 1e-5, "{s1:?} vs {s2:?}");
            }
        }
        assert!(Reader::new(&bytes, "other").is_err());
        assert!(Reader::new(&[], "test").is_err());
        assert!(Reader::new(&bytes[..bytes.len() / 2], "test").is_err());
        Ok(())
    }

    /// A model written by hand: `rows` as (key step, [(class step, level)]).
    fn hand_written(rows: &[(u64, &[(u64, i64)])]) -> anyhow::Result<Vec<u8>> {
        let mut w = Writer::new("test");
        w.varint(3); // classes
        w.f32(0.5); // scale
        w.varint(rows.len() as u64);
        for (key_step, pairs) in rows {
            w.varint(*key_step);
            w.varint(pairs.len() as u64);
            for &(class_step, level) in *pairs {
                w.varint(class_step);
                w.signed(level);
            }
        }
        w.finish()
    }

    #[test]
    fn rows_are_read_in_order_and_damaged_ones_refused() -> anyhow::Result<()> {
        // Keys 0 and 7; classes 0, 2 and 1.
        let good = hand_written(&[(0, &[(0, 4), (2, -2)]), (7, &[(1, 6)])])?;
        let model = Reader::new(&good, "test")?.model()?;
        let mut scores = [0.0; 3];
        model.scores(&[0, 7], &mut scores);
        assert_eq!(scores, [2.0, 3.0, -1.0]);
        let refused = [
            (
                hand_written(&[(5, &[(0, 1)]), (0, &[(0, 1)])])?,
                "keys out of order",
            ),
            (
                hand_written(&[(5, &[(1, 1), (0, 1)])])?,
                "classes out of order",
            ),
            (hand_written(&[(5, &[(0, 0)])])?, "zero weight"),
            (hand_written(&[(5, &[])])?, "empty weight row"),
            (hand_written(&[(5, &[(3, 1)])])?, "class index out of range"),
        ];
        for (bytes, why) in refused {
            let err = Reader::new(&bytes, "test")?.model().err();
            let message = err.map(|e| format!("{e:#}")).unwrap_or_default();
            assert!(message.contains(why), "{why}: got {message:?}");
        }
        Ok(())
    }

    #[test]
    fn a_trailer_claiming_a_huge_size_is_an_error_not_an_allocation() -> anyhow::Result<()> {
        let mut bytes = hand_written(&[(0, &[(0, 4)])])?;
        let at = bytes.len() - 4;
        bytes[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Reader::new(&bytes, "test").is_err());
        Ok(())
    }
}
