//! How aesop opens an input file, in one place: `-` names standard input (where a verb streams
//! its input), and a name ending in `.gz` is read decompressed, so large files may stay
//! compressed. Readers and content hashes all go through [`open`] (or [`read_bytes`]), so a file
//! and its gzip copy read, and hash, as the same text; [`crate::output::OutputFile`] writes a
//! `.gz` name compressed, so what one verb writes the next reads back. A compressed file's
//! format is its plain name's ([`plain_name`]): `features.csv.gz` is a CSV.

use anyhow::{bail, Context, Result};
use flate2::bufread::MultiGzDecoder;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// The most a gzip blob is trusted to expand when [`gunzip`] sizes its buffer from the trailer
/// (the embedded models and tables expand 1.4-2.8×; gzip allows about 1,000×).
const MAX_SIZED_EXPANSION: usize = 16;

/// A gzip blob (one member: the models and tables embedded in the binary), decompressed into a
/// buffer sized from its trailer, so that tens of megabytes are not copied as the buffer grows.
/// The trailer's size is only a hint: a damaged one costs a regrown buffer or a capped
/// reservation, and the decoder's own check still fails on it.
pub fn gunzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let hint = bytes.len().checked_sub(4).map_or(0, |at| {
        let size = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        (size as usize).min(bytes.len().saturating_mul(MAX_SIZED_EXPANSION))
    });
    let mut out = Vec::with_capacity(hint);
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// [`gunzip`] for UTF-8 text; other bytes are an `InvalidData` error, as `read_to_string`'s.
pub fn gunzip_text(bytes: &[u8]) -> std::io::Result<String> {
    String::from_utf8(gunzip(bytes)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// `text` without a leading UTF-8 byte-order mark, which Windows editors write at the start of a
/// file and RFC 8259 lets a JSON parser ignore. Every reader of text skips it the same way:
/// judgment sets, importers, predictions and features files, `train --report`, CoNLL-U, the
/// service's request bodies and its token file.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// [`without_bom`] for bytes not yet decoded.
pub fn without_bom_bytes(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

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
/// members allowed, as `cat a.gz b.gz` makes) or when its bytes start as gzip's do
/// ([`decompressed_if_gzip`]). Standard input is the caller's to open (it has no name to report,
/// and can be read once), through [`decompressed_if_gzip`] too.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    // A directory opens on Unix and fails only at the first read, as "d:1: read error".
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        bail!("{}: is a directory, not a file", path.display());
    }
    if is_gzip_name(path) {
        return Ok(Box::new(BufReader::new(Gunzip {
            stream: MultiGzDecoder::new(BufReader::new(file)),
            why: "a name ending in .gz is read decompressed",
        })));
    }
    decompressed_if_gzip(BufReader::new(file))
        .with_context(|| format!("{}: cannot read", path.display()))
}

/// [`open`] for a file that must be text (predictions, features): one whose first bytes say it is
/// UTF-16, a PDF or a ZIP archive ([`not_text_advice`]) is refused naming the file, where the
/// CSV and JSON readers would report a puzzle (`key must be a string`, or columns named
/// `t o p i c`, for a table Excel saved as "Unicode Text").
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let mut reader = open(path)?;
    let start = reader
        .fill_buf()
        .with_context(|| format!("{}: cannot read", path.display()))?;
    if let Some(advice) = not_text_advice(start) {
        bail!("{}: not UTF-8 text: {advice}", path.display());
    }
    Ok(reader)
}

/// `reader`, decompressed when its first bytes are gzip's magic number (1f 8b), which no UTF-8
/// text starts with: `cat set.jsonl.gz | aesop score -`, or a compressed file whose name lost
/// its `.gz`, was refused as "invalid UTF-8 at byte 2" with advice to re-encode it.
pub fn decompressed_if_gzip(
    mut reader: impl BufRead + Send + 'static,
) -> std::io::Result<Box<dyn BufRead + Send>> {
    let start = reader.fill_buf()?;
    Ok(if start.starts_with(&[0x1f, 0x8b]) {
        Box::new(BufReader::new(Gunzip {
            stream: MultiGzDecoder::new(reader),
            why: "it starts as gzip does, so it is read decompressed",
        }))
    } else {
        Box::new(reader)
    })
}

/// A gzip stream whose read errors say that decompressing failed, and why the input was taken
/// for gzip: a file named `.gz` that is not gzip, or was cut short, otherwise reads as
/// "unexpected end of file" at some line.
struct Gunzip<R> {
    stream: MultiGzDecoder<R>,
    why: &'static str,
}

impl<R: BufRead> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.read(buf).map_err(|e| {
            std::io::Error::new(e.kind(), format!("not valid gzip ({e}); {}", self.why))
        })
    }
}

/// `PATH:LINE: invalid UTF-8 at byte B of the line` for the first byte of `bytes` that is not
/// UTF-8 (`valid_up_to`, from the `Utf8Error`): every reader of text names a bad byte this way.
pub fn invalid_utf8_message(path: &Path, bytes: &[u8], valid_up_to: usize) -> String {
    byte_message(path, bytes, valid_up_to, "invalid UTF-8")
}

/// `PATH:LINE: WHAT at byte B of the line` for the byte of `bytes` at `at`.
fn byte_message(path: &Path, bytes: &[u8], at: usize, what: &str) -> String {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    format!(
        "{}:{line}: {what} at byte {} of the line",
        path.display(),
        before.len() - line_start + 1
    )
}

/// The first bytes of an aesop model file (what `aesop train` writes; `aesop_learn::model_file`
/// reads it), here so that every reader of text can name a model file given in a text's place.
pub const MODEL_FILE_MAGIC: &[u8; 8] = b"AESOPMDL";

/// What a file is when its first bytes say it is not UTF-8 text, and what to do, for the
/// message about its first bad byte (or NUL byte): an aesop model file, UTF-16, with its byte-order mark (what
/// Windows Notepad saves as "Unicode") or without one (told by a NUL byte beside each of its
/// first ASCII characters, which is valid UTF-8 and would otherwise be read as text of NULs),
/// a PDF, a ZIP archive (a .docx, .xlsx or .odt), or Parquet or Arrow (how the Hugging Face Hub
/// and pandas keep tables). `None` for anything else, whose message
/// keeps the plain advice to re-encode.
pub fn not_text_advice(start: &[u8]) -> Option<&'static str> {
    const UTF16: &str = "it is UTF-16 (as Windows Notepad saves \"Unicode\"); aesop reads \
        UTF-8: re-encode the file, e.g. with `iconv -f UTF-16 -t UTF-8`";
    const UTF16_BE: &str = "it looks like UTF-16 big-endian without a byte-order mark; aesop \
        reads UTF-8: re-encode the file, e.g. with `iconv -f UTF-16BE -t UTF-8`";
    const UTF16_LE: &str = "it looks like UTF-16 little-endian without a byte-order mark; aesop \
        reads UTF-8: re-encode the file, e.g. with `iconv -f UTF-16LE -t UTF-8`";
    if start.starts_with(MODEL_FILE_MAGIC) {
        return Some(
            "it is an aesop model file (what `aesop train` writes): give it to `--model` \
             (`aesop score SET --model FILE`), or `aesop models FILE` for its card",
        );
    }
    if start.starts_with(b"\xFF\xFE") || start.starts_with(b"\xFE\xFF") {
        return Some(UTF16);
    }
    if start.starts_with(b"%PDF-") {
        return Some("it is a PDF, not text: give its text (e.g. from `pdftotext FILE`)");
    }
    if start.starts_with(b"PAR1") || start.starts_with(b"ARROW1") {
        // How the Hugging Face Hub keeps datasets (and pandas' to_parquet / to_feather).
        return Some(
            "it is a Parquet or Arrow file (binary columns), not text: write it as JSON Lines or \
             CSV first, e.g. pandas: pd.read_parquet(PATH).to_json(OUT, orient=\"records\", \
             lines=True), which `aesop import table` and `aesop evaluate` read",
        );
    }
    if start.starts_with(b"PK\x03\x04") {
        return Some(
            "it is a ZIP archive (as .docx, .xlsx and .odt files are), not text: save the text as \
             plain UTF-8 text, or a spreadsheet's sheet as CSV (UTF-8), which `aesop evaluate` \
             and `aesop import table` read",
        );
    }
    // At least two characters, each an ASCII byte beside a NUL.
    let pairs: Vec<&[u8]> = start.chunks_exact(2).take(32).collect();
    let every = |f: fn(&[u8]) -> bool| pairs.len() >= 2 && pairs.iter().all(|p| f(p));
    if every(|p| p[0] == 0 && p[1] != 0 && p[1].is_ascii()) {
        Some(UTF16_BE)
    } else if every(|p| p[1] == 0 && p[0] != 0 && p[0].is_ascii()) {
        Some(UTF16_LE)
    } else {
        None
    }
}

/// A whole file as UTF-8 text, read as [`read_bytes`] reads it (`.gz` decompressed), without a
/// leading byte-order mark ([`without_bom`]); a byte that is not UTF-8 is an error naming the
/// file, line and byte ([`invalid_utf8_message`]). Text is never decoded lossily: a silently
/// altered text would change every feature.
pub fn read_text(path: &Path) -> Result<String> {
    let text = String::from_utf8(read_bytes(path)?).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        anyhow::anyhow!(
            "{} ({})",
            invalid_utf8_message(path, e.as_bytes(), at),
            not_text_advice(e.as_bytes())
                .unwrap_or("aesop reads UTF-8; re-encode the file, e.g. with iconv")
        )
    })?;
    // No text holds a NUL byte, though UTF-8 allows it: a file with one is UTF-16 without its
    // byte-order mark, or not text, and would otherwise be scored as text of NULs.
    if let Some(at) = text.bytes().position(|b| b == 0) {
        bail!(
            "{} ({})",
            byte_message(path, text.as_bytes(), at, "a NUL byte"),
            not_text_advice(text.as_bytes())
                .unwrap_or("text holds no NUL byte: give the file's text as plain UTF-8")
        );
    }
    Ok(match without_bom(&text).len() {
        len if len < text.len() => text[text.len() - len..].to_string(),
        _ => text,
    })
}

/// A command-line argument split at the first (`from_end` false) or last ASCII `separator`,
/// both sides kept as given: the path in `NAME=PATH` or `PATH:COLUMN` may hold bytes that are
/// not UTF-8 (a Linux file name may hold any byte but `/` and NUL), which an argument read as a
/// `String` would have refused before aesop saw it. `None` when the separator is absent (or,
/// outside Unix, when the argument is not Unicode: those systems' file names nearly always are).
pub fn split_arg(text: &OsStr, separator: u8, from_end: bool) -> Option<(OsString, OsString)> {
    debug_assert!(separator.is_ascii());
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = text.as_bytes();
        let at = if from_end {
            bytes.iter().rposition(|&b| b == separator)?
        } else {
            bytes.iter().position(|&b| b == separator)?
        };
        let side = |part: &[u8]| OsStr::from_bytes(part).to_os_string();
        Some((side(&bytes[..at]), side(&bytes[at + 1..])))
    }
    #[cfg(not(unix))]
    {
        let text = text.to_str()?;
        let separator = char::from(separator);
        let (a, b) = if from_end {
            text.rsplit_once(separator)?
        } else {
            text.split_once(separator)?
        };
        Some((a.into(), b.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).expect("in memory");
        encoder.finish().expect("in memory")
    }

    #[test]
    fn only_a_leading_byte_order_mark_is_skipped() {
        assert_eq!(without_bom("\u{feff}{\"a\": 1}"), "{\"a\": 1}");
        assert_eq!(
            without_bom("{\"a\": \"\u{feff}\"}"),
            "{\"a\": \"\u{feff}\"}"
        );
        assert_eq!(without_bom("\u{feff}\u{feff}x"), "\u{feff}x");
        assert_eq!(without_bom(""), "");
        assert_eq!(without_bom_bytes(b"\xEF\xBB\xBFx"), b"x");
        assert_eq!(without_bom_bytes(b"\xEF\xBBx"), b"\xEF\xBBx");
    }

    #[test]
    fn gunzip_sizes_its_buffer_from_the_trailer_and_checks_it() {
        // Numbers from a simple generator: text that compresses about as the embedded tables do
        // (a blob more than 16 times smaller than its text gets a capped reservation).
        let mut state = 12345u64;
        let text: String = (0..4000)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!("{} ", state >> 40)
            })
            .collect();
        let packed = gzip(text.as_bytes());
        let out = gunzip(&packed).expect("valid gzip");
        assert_eq!(out, text.as_bytes());
        assert_eq!(out.capacity(), text.len(), "sized once from the trailer");
        assert_eq!(gunzip_text(&packed).expect("UTF-8"), text);
        // A trailer claiming 4 GiB: a capped reservation, then the decoder's size check fails.
        let mut lying = packed.clone();
        let at = lying.len() - 4;
        lying[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(gunzip(&lying).is_err());
        // Not UTF-8: an error, as read_to_string gives.
        let err = gunzip_text(&gzip(&[0xff, 0xfe])).expect_err("not UTF-8");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(gunzip(b"").is_err() && gunzip(b"ab").is_err());
    }

    #[test]
    fn a_directory_is_refused_at_open_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = open(dir.path()).err().expect("a directory is not an input");
        assert!(
            err.to_string().ends_with(": is a directory, not a file"),
            "{err}"
        );
        assert!(err.to_string().contains(&dir.path().display().to_string()));
    }

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
    #[cfg(unix)]
    #[test]
    fn an_argument_splits_at_its_first_or_last_separator_whatever_its_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let text = OsStr::from_bytes(b"a=b\xff:c=d:col");
        let (left, right) = split_arg(text, b'=', false).expect("has '='");
        assert_eq!(left, OsStr::new("a"));
        assert_eq!(right.as_bytes(), b"b\xff:c=d:col");
        let (left, right) = split_arg(text, b':', true).expect("has ':'");
        assert_eq!(left.as_bytes(), b"a=b\xff:c=d");
        assert_eq!(right, OsStr::new("col"));
        assert_eq!(split_arg(text, b'#', false), None);
        let (left, right) = split_arg(OsStr::new("=x"), b'=', false).expect("has '='");
        assert!(left.is_empty() && right == OsStr::new("x"));
    }
    #[test]
    fn a_byte_that_is_not_utf8_is_named_by_its_line_and_place_in_it() {
        // Latin-1 text: the first byte above ASCII is where UTF-8 decoding stops.
        let first_bad = |bytes: &[u8]| bytes.iter().position(|&b| b >= 0x80).expect("one");
        let bytes = b"first line\nsecond caf\xe9\n";
        assert_eq!(
            invalid_utf8_message(Path::new("a.txt"), bytes, first_bad(bytes)),
            "a.txt:2: invalid UTF-8 at byte 11 of the line"
        );
        assert_eq!(
            invalid_utf8_message(Path::new("b"), b"\xff", 0),
            "b:1: invalid UTF-8 at byte 1 of the line"
        );
    }
    #[test]
    fn files_that_are_not_utf8_text_are_named_for_what_they_are() {
        let utf16 = |text: &str, big: bool| -> Vec<u8> {
            text.encode_utf16()
                .flat_map(|u| {
                    if big {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    }
                })
                .collect()
        };
        let with_bom = [b"\xFF\xFE".as_slice(), &utf16("The text.", false)].concat();
        assert!(not_text_advice(&with_bom).is_some_and(|a| a.contains("it is UTF-16")));
        let be = not_text_advice(&utf16("The text.", true)).expect("UTF-16BE");
        assert!(
            be.contains("UTF-16 big-endian") && be.contains("-f UTF-16BE"),
            "{be}"
        );
        let le = not_text_advice(&utf16("The text.", false)).expect("UTF-16LE");
        assert!(
            le.contains("little-endian") && le.contains("-f UTF-16LE"),
            "{le}"
        );
        assert!(not_text_advice(b"%PDF-1.7\n").is_some_and(|a| a.contains("PDF")));
        assert!(not_text_advice(b"PK\x03\x04\x14\x00").is_some_and(|a| a.contains(".docx")));
        assert!(not_text_advice(b"PAR1\x15\x04").is_some_and(|a| a.contains("Parquet")));
        let model = [MODEL_FILE_MAGIC.as_slice(), b"\x0a\x00\x00\x00\x05\x00"].concat();
        assert!(not_text_advice(&model)
            .is_some_and(|a| a.contains("an aesop model file") && a.contains("--model")));
        // Text, Latin-1 text, and one character beside a NUL are none of these.
        for bytes in [b"The text.".as_slice(), b"caf\xe9", b"a\x00", b""] {
            assert_eq!(not_text_advice(bytes), None, "{bytes:?}");
        }
        // read_text names the line and byte of the first bad one, and what the file is.
        let dir = tempfile::tempdir().expect("tempdir");
        let read = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            format!("{:#}", read_text(&path).expect_err("not text"))
        };
        let message = read("bom.txt", &with_bom);
        assert!(
            message.ends_with(
                "bom.txt:1: invalid UTF-8 at byte 1 of the line (it is UTF-16 \
            (as Windows Notepad saves \"Unicode\"); aesop reads UTF-8: re-encode the file, e.g. \
            with `iconv -f UTF-16 -t UTF-8`)"
            ),
            "{message}"
        );
        let message = read("be.txt", &utf16("The text.", true));
        assert!(
            message.contains(
                "be.txt:1: a NUL byte at byte 1 of the line (it looks like \
            UTF-16 big-endian"
            ),
            "{message}"
        );
        let message = read("nul.txt", b"One line.\nA NUL\x00 here.\n");
        assert!(
            message.ends_with(
                "nul.txt:2: a NUL byte at byte 6 of the line (text holds no \
            NUL byte: give the file's text as plain UTF-8)"
            ),
            "{message}"
        );
        let message = read("latin1.txt", b"caf\xe9");
        assert!(message.ends_with("(aesop reads UTF-8; re-encode the file, e.g. with iconv)"));
    }
    #[test]
    fn gzip_bytes_are_read_decompressed_under_any_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = b"{\"topic\": \"t\"}\n";
        let misnamed = dir.path().join("set.jsonl");
        std::fs::write(&misnamed, gzip(text)).expect("write");
        assert_eq!(read_bytes(&misnamed).expect("gzip read"), text);
        // Cut short: an error saying why the file was taken for gzip.
        let mut cut = gzip(text);
        cut.truncate(cut.len() / 2);
        std::fs::write(&misnamed, cut).expect("write");
        let message = format!("{:#}", read_bytes(&misnamed).expect_err("truncated"));
        assert!(message.contains("it starts as gzip does"), "{message}");
        // Plain text, and text too short to hold the magic number, read as they are.
        for plain in [&text[..], b"{", b""] {
            std::fs::write(&misnamed, plain).expect("write");
            assert_eq!(read_bytes(&misnamed).expect("plain"), plain);
        }
    }
}
