//! `AESOP_NEURAL_CACHE=DIR`: a topic's LM rows stored in DIR, one file per topic and options.
//!
//! Each entry checks itself: `{"check": C, "key": K, "rows": R}`, K the entry's own name (the
//! hash of the options and texts) and C the SHA-256 of R as written. Why: the rows are read as
//! features with nothing else to check them against, so an edited, torn or copied entry would
//! give wrong features without a word; now it is recomputed and rewritten, with a warning. An
//! entry of an older aesop (a bare array, no checksum) is read as before, once, and rewritten
//! with its key and checksum.
//!
//! A cache that cannot be used (DIR a regular file, not creatable, an entry not writable) is
//! said once per run and the run goes on without it: the cache only saves time.

use crate::FeatureRow;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The variable naming the cache directory.
pub(crate) const CACHE_VAR: &str = "AESOP_NEURAL_CACHE";

/// Raised once an entry was found corrupt in this run (said once: a damaged cache would
/// otherwise warn for every topic).
static BAD_ENTRY_SAID: AtomicBool = AtomicBool::new(false);
/// Raised once the directory or an entry could not be written in this run.
static UNUSABLE_SAID: AtomicBool = AtomicBool::new(false);

fn warn_once(said: &AtomicBool, message: impl FnOnce() -> String) {
    if !said.swap(true, Ordering::Relaxed) {
        aesop_core::eprintln_quiet!("aesop: warning: {}", message());
    }
}

/// Hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// The cache directory, created if need be; None when the variable is unset or empty, or the
/// directory cannot be used (said once per run, naming the variable, the path and the cause).
pub(crate) fn dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(CACHE_VAR).filter(|d| !d.is_empty())?);
    // create_dir_all on a file says only "File exists".
    let created = match std::fs::metadata(&dir) {
        Ok(m) if !m.is_dir() => Err(std::io::Error::other("not a directory")),
        _ => std::fs::create_dir_all(&dir),
    };
    match created {
        Ok(()) => Some(dir),
        Err(e) => {
            warn_once(&UNUSABLE_SAID, || {
                format!(
                    "{CACHE_VAR}={}: not usable as a cache directory ({e}); going on without the cache",
                    dir.display()
                )
            });
            None
        }
    }
}

/// The checksum of `rows` as they are written.
fn checksum(rows: &[Vec<Option<f64>>]) -> String {
    sha256_hex(serde_json::to_string(rows).unwrap_or_default().as_bytes())
}

/// The rows of the entry `file` whose name is `key`, if it holds `summaries` rows of `width`
/// values (missing values as `null`, read back as NaN). An absent entry or one of another shape
/// (a build with other features) is computed again without a word; an unreadable or corrupt one
/// with a warning naming it; one of an older aesop is read and upgraded.
pub(crate) fn read(
    file: &Path,
    key: &str,
    (summaries, width): (usize, usize),
) -> Option<Vec<FeatureRow>> {
    let bad = |why: String| {
        warn_once(&BAD_ENTRY_SAID, || {
            format!(
                "{CACHE_VAR} entry {} {why}; recomputing it (further bad entries of this run \
                 are recomputed without a warning)",
                file.display()
            )
        });
        None
    };
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return bad(format!("cannot be read ({e})")),
    };
    if text.trim_start().starts_with('[') {
        // An entry of an aesop before the checksums (a bare array of rows): read as then, and
        // rewritten with its key and checksum, so a cache of hours of LM work stays usable.
        let rows = serde_json::from_str::<Vec<Vec<Option<f64>>>>(&text).ok()?;
        let rows = shaped(rows, (summaries, width))?;
        write(file, key, &rows);
        return Some(rows);
    }
    let entry = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(entry) => entry,
        Err(e) => return bad(format!("is not a whole entry ({e})")),
    };
    let field = |name: &str| entry.get(name).and_then(serde_json::Value::as_str);
    let rows = entry
        .get("rows")
        .and_then(|r| serde_json::from_value::<Vec<Vec<Option<f64>>>>(r.clone()).ok());
    let (Some(check), Some(stored_key), Some(rows)) = (field("check"), field("key"), rows) else {
        return bad("lacks its key, checksum or rows".to_string());
    };
    if stored_key != key {
        return bad(format!("holds the entry {stored_key}"));
    }
    if checksum(&rows) != check {
        return bad("does not match its checksum".to_string());
    }
    shaped(rows, (summaries, width))
}

/// `rows` as feature rows (null read back as NaN) if they are `summaries` rows of `width`
/// values; `None` for another shape (a build with other features: computed again).
fn shaped(
    rows: Vec<Vec<Option<f64>>>,
    (summaries, width): (usize, usize),
) -> Option<Vec<FeatureRow>> {
    if rows.len() != summaries || rows.iter().any(|r| r.len() != width) {
        return None;
    }
    Some(
        rows.into_iter()
            .map(|r| Some(r.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect()))
            .collect(),
    )
}

/// Store `rows` as the entry `file` named `key`: written to a temporary file and renamed, so a
/// reader never sees half an entry. A failure is said once per run and leaves no file behind.
pub(crate) fn write(file: &Path, key: &str, rows: &[FeatureRow]) {
    // A row without values is stored empty, so it never matches the expected width and is
    // computed again, as before.
    let plain: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .flatten()
                .map(|v| v.is_finite().then_some(*v))
                .collect()
        })
        .collect();
    let entry = serde_json::json!({"key": key, "check": checksum(&plain), "rows": plain});
    // Topics run in parallel and two may be the same topic: each write has a name of its own.
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let tmp = file.with_extension(format!(
        "tmp{}-{}",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let written =
        std::fs::write(&tmp, entry.to_string()).and_then(|()| std::fs::rename(&tmp, file));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        warn_once(&UNUSABLE_SAID, || {
            format!(
                "{CACHE_VAR}: cannot write {} ({e}); going on without storing rows",
                file.display()
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry_file(dir: &Path) -> (PathBuf, &'static str) {
        let key = "0123abcd";
        (dir.join(format!("{key}.json")), key)
    }

    #[test]
    fn an_entry_reads_back_with_its_missing_values() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (file, key) = entry_file(dir.path());
        write(
            &file,
            key,
            &[Some(vec![1.5, f64::NAN, -0.25]), Some(vec![0.0; 3])],
        );
        let rows = read(&file, key, (2, 3)).expect("a fresh entry reads");
        let first = rows[0].as_ref().expect("row");
        assert_eq!((first[0], first[2]), (1.5, -0.25));
        assert!(first[1].is_nan(), "a missing value stays missing");
        assert!(read(&file, key, (2, 2)).is_none(), "another width");
        assert!(read(&file, key, (3, 3)).is_none(), "another count");
        let left: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
        assert_eq!(left.len(), 1, "no temporary file left");
    }

    #[test]
    fn an_edited_torn_or_misplaced_entry_is_not_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (file, key) = entry_file(dir.path());
        write(&file, key, &[Some(vec![-2.5, 7.0])]);
        let good = std::fs::read_to_string(&file).expect("entry");
        let cases = [
            ("a value edited", good.replace("-2.5", "99.0")),
            ("a value nulled", good.replace("-2.5", "null")),
            ("a count edited", good.replace("7.0", "-5.0")),
            ("torn", good[..good.len() / 2].to_string()),
            ("no checksum", good.replace("\"check\"", "\"chek\"")),
            (
                "not JSON rows",
                good.replace("[[", "[{").replace("]]", "}]"),
            ),
        ];
        for (what, text) in cases {
            std::fs::write(&file, &text).expect("write");
            assert!(read(&file, key, (1, 2)).is_none(), "{what}: {text}");
        }
        std::fs::write(&file, &good).expect("write");
        assert!(
            read(&file, "another", (1, 2)).is_none(),
            "another entry's key"
        );
        assert!(read(&file, key, (1, 2)).is_some(), "the intact entry");
        assert!(read(&dir.path().join("absent.json"), key, (1, 2)).is_none());
    }

    #[test]
    fn an_older_entry_is_read_once_and_upgraded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (file, key) = entry_file(dir.path());
        // What aesop wrote before the checksums: a bare array of rows.
        std::fs::write(&file, "[[-2.5,null]]").expect("write");
        assert!(read(&file, key, (1, 3)).is_none(), "another shape");
        let rows = read(&file, key, (1, 2)).expect("the old entry reads");
        let row = rows[0].as_ref().expect("row");
        assert!(row[0] == -2.5 && row[1].is_nan());
        let upgraded = std::fs::read_to_string(&file).expect("entry");
        assert!(
            upgraded.contains("\"check\"") && upgraded.contains(key),
            "{upgraded}"
        );
        // Once upgraded, an edit is caught like any other.
        std::fs::write(&file, upgraded.replace("-2.5", "99.0")).expect("write");
        assert!(read(&file, key, (1, 2)).is_none());
    }

    #[test]
    fn an_entry_that_cannot_be_written_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (file, key) = entry_file(dir.path());
        std::fs::create_dir(&file).expect("a directory in the entry's place");
        write(&file, key, &[Some(vec![1.0])]);
        assert!(read(&file, key, (1, 1)).is_none());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, [file.file_name().expect("name")], "{names:?}");
    }
}
