//! LEB128 varints, the integer coding of aesop's compact binary files (the embedded NLP models,
//! `nlp::model_io`, and the n-gram LM, `features::lm`): seven bits per byte, low bits first,
//! the high bit set on every byte but the last.

/// Append `x` to `out`.
pub fn put(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Why a varint could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarintError {
    /// The bytes ended inside the varint.
    Truncated,
    /// More than ten bytes: not a u64.
    TooLong,
}

/// Read the varint at `*pos` of `bytes`, moving `*pos` past it.
pub fn get(bytes: &[u8], pos: &mut usize) -> Result<u64, VarintError> {
    let mut x = 0u64;
    for shift in (0..64).step_by(7) {
        let Some(&byte) = bytes.get(*pos) else {
            return Err(VarintError::Truncated);
        };
        *pos += 1;
        x |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(x);
        }
    }
    Err(VarintError::TooLong)
}
