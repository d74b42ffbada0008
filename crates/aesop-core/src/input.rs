//! How aesop opens an input file, in one place: `-` names standard input (where a verb streams
//! its input), and a name ending in `.gz` is read decompressed, so large sets may stay
//! compressed. Readers and content hashes both go through [`open`], so a set and its gzip copy
//! read, and hash, as the same text.

use anyhow::{Context, Result};
use flate2::bufread::MultiGzDecoder;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Whether `path` is `-`, which names standard input where a verb reads its input.
pub fn names_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `path` names a gzip file (`.gz`, any case), read decompressed.
pub fn is_gzip_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// The text of the file at `path`, decompressed when its name ends in `.gz` (gzip, several
/// members allowed, as `cat a.gz b.gz` makes). Standard input is the caller's to open (it has no
/// name to report, and can be read once).
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    Ok(if is_gzip_name(path) {
        Box::new(BufReader::new(Gunzip(MultiGzDecoder::new(BufReader::new(
            file,
        )))))
    } else {
        Box::new(BufReader::new(file))
    })
}

/// A gzip stream whose read errors say that decompressing failed: a file named `.gz` that is not
/// gzip, or was cut short, otherwise reads as "unexpected end of file" at some line.
struct Gunzip<R>(MultiGzDecoder<R>);

impl<R: BufRead> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("not valid gzip ({e}); a name ending in .gz is read decompressed"),
            )
        })
    }
}
