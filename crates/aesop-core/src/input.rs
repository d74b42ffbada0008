//! How aesop opens an input file, in one place: `-` names standard input (where a verb streams
//! its input), and a name ending in `.gz` is read decompressed, so large files may stay
//! compressed. Readers and content hashes all go through [`open`] (or [`read_bytes`]), so a file
//! and its gzip copy read, and hash, as the same text; [`crate::output::OutputFile`] writes a
//! `.gz` name compressed, so what one verb writes the next reads back. A compressed file's
//! format is its plain name's ([`plain_name`]): `features.csv.gz` is a CSV.

use anyhow::{Context, Result};
use flate2::bufread::MultiGzDecoder;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Whether `path` is `-`, which names standard input where a verb reads its input.
pub fn names_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `path` names a gzip file (`.gz`, any case), read decompressed.
pub fn is_gzip_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// `path` without a trailing `.gz` (`x.csv.gz` → `x.csv`; other names as they are): the name
/// whose extension says the format of the text the file holds, and whose stem names it.
pub fn plain_name(path: &Path) -> PathBuf {
    if is_gzip_name(path) {
        path.with_extension("")
    } else {
        path.to_path_buf()
    }
}

/// The extension of [`plain_name`], in lower case: what a file name says its text is
/// (`Data.CSV.gz` → `csv`).
pub fn format_extension(path: &Path) -> Option<String> {
    plain_name(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// The whole content of the file at `path`, decompressed when its name ends in `.gz`; errors
/// name the file.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(bytes)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressed_name_has_its_plain_names_format() {
        assert_eq!(plain_name(Path::new("d/f.csv.gz")), Path::new("d/f.csv"));
        assert_eq!(plain_name(Path::new("f.csv")), Path::new("f.csv"));
        assert_eq!(plain_name(Path::new("m.GZ")), Path::new("m"));
        assert_eq!(
            format_extension(Path::new("P.JSONL.gz")).as_deref(),
            Some("jsonl")
        );
        assert_eq!(format_extension(Path::new("f.Csv")).as_deref(), Some("csv"));
        assert_eq!(format_extension(Path::new("m.gz")), None);
        // A hidden file named `.gz` has no extension: it is not compressed by name.
        assert!(!is_gzip_name(Path::new(".gz")));
    }
}
