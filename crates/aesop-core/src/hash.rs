//! Content hashes of input files, as model cards and reports record them: which bytes a figure
//! was measured on, whatever the file is called.

use anyhow::{bail, Result};
use std::path::Path;

/// FNV-1a 64: a simple content hash for training-set identity and payload integrity
/// (not a defence against tampering).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// [`fnv1a64`] of `bytes` as 16 hex digits, the form cards and reports record.
pub fn content_hash_of(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

/// Refuse standard input (`-`), a pipe or a device (bash's `<(…)` is a pipe) as an input whose
/// content hash a verb records beside its figures: a pipe's bytes cannot be hashed before they
/// are read and cannot be read again (`train <(cat set.jsonl)` recorded the hash of nothing).
/// Checked before any work, so the error comes first rather than after a long run.
pub fn check_hashable(path: &Path) -> Result<()> {
    if crate::input::names_stdin(path) {
        bail!(
            "-: this command records each input's content hash, so it reads its inputs from \
             files, not standard input (`aesop score -` and `aesop features -` stream a set \
             from it)"
        );
    }
    if std::fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir()) {
        bail!(
            "{}: a pipe or device, not a file: this command records each input's content \
             hash, and reads its inputs more than once, which a pipe's bytes allow only once; \
             save them to a file first (`aesop score` and `aesop features` read a set from a \
             pipe)",
            path.display()
        );
    }
    Ok(())
}

/// The content hash of the file at `path` ([`content_hash_of`] its bytes), of the text it holds
/// as [`crate::input::open`] reads it: a `.gz` file hashes decompressed, so a set and its gzip
/// copy are one set in reports, model cards and the overlap checks, whatever the compression.
pub fn content_hash(path: &Path) -> Result<String> {
    check_hashable(path)?;
    Ok(content_hash_of(&crate::input::read_bytes(path)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        // From the FNV reference (Fowler, Noll, Vo): the empty string and "a".
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(content_hash_of(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn a_gzipped_file_hashes_as_its_text_and_standard_input_is_refused() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("temp dir");
        let plain = dir.path().join("set.jsonl");
        std::fs::write(&plain, b"{\"topic\": \"t\"}\n").expect("write");
        let gzipped = dir.path().join("set.jsonl.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(b"{\"topic\": \"t\"}\n").expect("gzip");
        std::fs::write(&gzipped, encoder.finish().expect("gzip")).expect("write");
        let hash = content_hash(&plain).expect("plain");
        assert_eq!(hash, content_hash_of(b"{\"topic\": \"t\"}\n"));
        assert_eq!(content_hash(&gzipped).expect("gzipped"), hash);
        // Named .gz but not gzip: an error naming the file.
        let fake = dir.path().join("fake.jsonl.gz");
        std::fs::write(&fake, b"{}").expect("write");
        let message = format!("{:#}", content_hash(&fake).expect_err("not gzip"));
        assert!(
            message.contains("fake.jsonl.gz: cannot read: not valid gzip"),
            "{message}"
        );
        let message = format!("{:#}", content_hash(Path::new("-")).expect_err("stdin"));
        assert!(message.starts_with("-: this command records"), "{message}");
        // A device (a pipe is the same kind of file to this check): refused, naming it.
        let message = format!(
            "{:#}",
            content_hash(Path::new("/dev/null")).expect_err("device")
        );
        assert!(
            message.starts_with("/dev/null: a pipe or device, not a file"),
            "{message}"
        );
    }
}
