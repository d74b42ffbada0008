//! Content hashes of input files, as model cards and reports record them: which bytes a figure
//! was measured on, whatever the file is called.

use anyhow::{bail, Context, Result};
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

/// Refuse standard input (`-`) as an input whose content hash a verb records beside its figures:
/// a pipe's bytes cannot be hashed before they are read and cannot be read again. Checked before
/// any work, so the error comes first rather than after a long run.
pub fn check_hashable(path: &Path) -> Result<()> {
    if path.as_os_str() == "-" {
        bail!(
            "-: this command records each input's content hash, so it reads its inputs from \
             files, not standard input (`aesop score -` and `aesop features -` stream a set \
             from it)"
        );
    }
    Ok(())
}

/// The content hash of the file at `path` ([`content_hash_of`] its bytes).
pub fn content_hash(path: &Path) -> Result<String> {
    check_hashable(path)?;
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(content_hash_of(&bytes))
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
}
