//! Utilities every layer of aesop shares: how inputs are opened ([`input`]), safe output files
//! ([`output`]), the syntax of feature patterns ([`patterns`]), content hashes of inputs
//! ([`hash`]), whether to draw progress ([`progress`]), the seeded random generator ([`rng`]),
//! how many worker threads to start ([`threads`]), the varint coding of the compact binary
//! files ([`varint`]), which aesop wrote a file
//! ([`version`]), and the messages on standard error ([`eprintln_quiet!`], [`counted`]).

pub mod hash;
pub mod input;
pub mod output;
pub mod patterns;
pub mod progress;
pub mod rng;
pub mod table;
pub mod threads;
pub mod varint;
pub mod version;

/// `n` and the noun in the number it takes: `counted(1, "summary", "summaries")` is
/// `1 summary`, `counted(3, …)` `3 summaries`. Every count in a message goes through it, so no
/// message says "1 summaries" or "topic(s)".
pub fn counted(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// `eprintln!` that never panics. `std`'s panics when standard error is gone (`aesop score x
/// 2>&1 | head -1` closes it once `head` has its line), which turned a finished run into exit
/// 101. A message that cannot be written is dropped instead, as ripgrep does: the run's outcome
/// is its files and its exit code, and files are committed before any summary is printed.
#[macro_export]
macro_rules! eprintln_quiet {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr().lock(), $($arg)*);
    }};
}

/// `eprint!` that never panics; see [`eprintln_quiet!`].
#[macro_export]
macro_rules! eprint_quiet {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::write!(::std::io::stderr().lock(), $($arg)*);
    }};
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn a_count_takes_the_noun_in_its_number() {
        assert_eq!(counted(0, "summary", "summaries"), "0 summaries");
        assert_eq!(counted(1, "summary", "summaries"), "1 summary");
        assert_eq!(counted(2, "topic", "topics"), "2 topics");
    }
}
