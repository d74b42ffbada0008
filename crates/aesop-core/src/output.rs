//! Safe output files: the one way every verb writes a file.
//!
//! Why: a verb's output used to be written with `File::create`/`fs::write`, so `score set.jsonl
//! -o set.jsonl` destroyed its own input, `-o` onto a symlink replaced the link, a read-only file
//! or a device file was replaced, and a full disk left a truncated file behind with an error that
//! did not name it. [`OutputFile`] checks the destination before anything is written, writes to a
//! temporary file in the destination's directory, and only a successful [`OutputFile::commit`]
//! (flush, fsync, atomic rename) puts it in place. Dropping it uncommitted removes the temporary
//! file: there is never a partial output. A destination whose name ends in `.gz` is written
//! gzip-compressed, as [`crate::input::open`] reads such a name back.
//!
//! A character device or a pipe (`-o /dev/null`, `-o /dev/stdout`, a FIFO, bash's `-o >(gzip >
//! f.gz)`) has nothing to rename onto: it is written in place, as standard output is. Any other
//! file that is not a regular file (a directory, a block device, a socket) is refused.

use anyhow::{bail, Context, Result};
use flate2::write::GzEncoder;
use flate2::Compression;
use std::fs::Permissions;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// The run was stopped by the user (Ctrl-C) before its output was committed; nothing was
/// written. Verbs return it so the binary exits with 130.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; no output written")]
pub struct Interrupted;

impl Interrupted {
    /// `Err(Interrupted)` once the user has asked the run to stop (`cancel` set by Ctrl-C or a
    /// service time limit), `Ok(())` before. Every place that polls the flag goes through here,
    /// so the check reads, and fails, the same way in every verb.
    pub fn check(cancel: &std::sync::atomic::AtomicBool) -> Result<()> {
        if cancel.load(std::sync::atomic::Ordering::SeqCst) {
            Err(Interrupted.into())
        } else {
            Ok(())
        }
    }
}

/// The run was stopped by the user after part of its output had gone to standard output (or a
/// pipe), which cannot be taken back: [`Interrupted`]'s "no output written" would be false.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; the output written to standard output so far is incomplete")]
pub struct InterruptedIncomplete;

/// Temporary files of outputs not yet committed or dropped, so that a process that must exit
/// at once (a second Ctrl-C) can remove them first ([`remove_pending_outputs`]).
static PENDING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while the list was held leaves a list that is still right.
    PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Remove the temporary file of every output still being written. For an exit that skips the
/// destructors (`std::process::exit` on a second Ctrl-C): without it the partial temporary file
/// stayed beside the destination.
pub fn remove_pending_outputs() {
    for path in pending().drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

/// Whether `path` is `-`, which names standard output. Verbs whose output is optional write to
/// standard output for `-o -` as when `-o` is left out; [`OutputFile::create`] refuses it, so
/// the others (a model file, a report) never write a file named `-`.
pub fn names_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `output` unless it names standard output (`-`): the path a verb with an optional output
/// writes to, `None` for standard output.
pub fn file_or_stdout(output: Option<&Path>) -> Option<&Path> {
    output.filter(|path| !names_stdout(path))
}

/// Write `text` to standard output and flush it, as an error (not a panic, as `print!`'s) when
/// that fails: a closed pipe (`aesop models | head -1`) ends the run quietly in the binary.
/// Verbs that also write files write them first, so a reader that stops early loses none.
pub fn print_stdout(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .context("writing standard output")
}

/// How many symbolic links are followed before giving up (as the kernel's `ELOOP` limit).
const MAX_SYMLINKS: usize = 40;

/// An output being written; see the module documentation.
pub struct OutputFile {
    /// The path the user named (for messages).
    shown: PathBuf,
    /// The file that is replaced (`shown` with its symbolic links resolved).
    dest: PathBuf,
    /// Permissions of the existing destination, kept on the new file.
    keep_permissions: Option<Permissions>,
    temp: Option<Sink>,
}

/// The temporary file being written: as it is, or through a gzip encoder (a `.gz` name); or a
/// character device or pipe written in place.
enum Sink {
    Plain(BufWriter<TempWriter>),
    // Boxed: the encoder's state would make every output as large.
    Gzip(Box<GzEncoder<BufWriter<TempWriter>>>),
    Stream(BufWriter<std::fs::File>),
}

/// The temporary file, written as the plain file it is: `NamedTempFile`'s own writes add its
/// hidden name to every error (`No space left on device (os error 28) at path
/// "/data/.p.csv.eOkYgB.tmp"`), a file the user never named; errors name the output instead
/// ([`OutputFile::name_error`]).
struct TempWriter(NamedTempFile);

impl Write for TempWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.as_file_mut().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.as_file_mut().flush()
    }
}

impl Sink {
    fn new(temp: NamedTempFile, gzip: bool) -> Sink {
        let file = BufWriter::with_capacity(1 << 16, TempWriter(temp));
        if gzip {
            Sink::Gzip(Box::new(GzEncoder::new(file, Compression::default())))
        } else {
            Sink::Plain(file)
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Plain(file) => file,
            Sink::Gzip(encoder) => &mut **encoder,
            Sink::Stream(file) => file,
        }
    }

    /// The temporary file (under the encoder, if any); `None` for a stream written in place.
    fn temp(&self) -> Option<&NamedTempFile> {
        match self {
            Sink::Plain(file) => Some(&file.get_ref().0),
            Sink::Gzip(encoder) => Some(&encoder.get_ref().get_ref().0),
            Sink::Stream(_) => None,
        }
    }

    /// Write what is buffered, the gzip trailer included, to the temporary file.
    fn flush_all(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Plain(file) => file.flush(),
            Sink::Gzip(encoder) => {
                encoder.try_finish()?;
                encoder.get_mut().flush()
            }
            Sink::Stream(file) => file.flush(),
        }
    }

    /// The temporary file, once [`Sink::flush_all`] has written everything; `None` for a
    /// stream.
    fn into_file(self) -> std::io::Result<Option<NamedTempFile>> {
        let file = match self {
            Sink::Plain(file) => file,
            Sink::Gzip(encoder) => encoder.finish()?,
            Sink::Stream(_) => return Ok(None),
        };
        file.into_inner()
            .map(|temp| Some(temp.0))
            .map_err(|e| e.into_error())
    }
}

impl OutputFile {
    /// Checks `path` (refused: the same file as any of `inputs`, also via another path, a hard
    /// link or a symbolic link — device and inode are compared; an existing file that is not a
    /// regular file, a character device or a pipe; a read-only file), resolves symbolic links
    /// (the output is written through them), and opens a temporary file in the destination's
    /// directory. A `path` ending in `.gz` is written gzip-compressed. A character device or a
    /// pipe is opened and written in place (see the module documentation).
    pub fn create(path: &Path, inputs: &[&Path]) -> Result<OutputFile> {
        if names_stdout(path) {
            bail!("`-` (standard output) cannot take this output; name a file");
        }
        // Checked through the kernel's view of the links: `/dev/stdout` links to
        // `/proc/self/fd/1`, which links to `pipe:[…]`, no path at all.
        if std::fs::metadata(path).is_ok_and(|meta| is_stream(&meta)) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("{}: cannot open", path.display()))?;
            return Ok(OutputFile {
                shown: path.to_path_buf(),
                dest: path.to_path_buf(),
                keep_permissions: None,
                temp: Some(Sink::Stream(BufWriter::new(file))),
            });
        }
        refuse_foreign_format(path)?;
        let dest = resolve_links(path)?;
        let shown = path.to_path_buf();
        let mut keep_permissions = None;
        match std::fs::metadata(&dest) {
            Ok(meta) => {
                if !meta.is_file() {
                    bail!(
                        "{}: not a regular file; refusing to replace it with output",
                        shown.display()
                    );
                }
                if meta.permissions().readonly() {
                    bail!(
                        "{}: the file is read-only; refusing to replace it (remove it or make it writable)",
                        shown.display()
                    );
                }
                for input in inputs {
                    if let Ok(input_meta) = std::fs::metadata(input) {
                        if same_file(&meta, &input_meta) {
                            bail!(
                                "{}: the output is the input {} (the same file); refusing to overwrite it",
                                shown.display(),
                                input.display()
                            );
                        }
                    }
                }
                keep_permissions = Some(meta.permissions());
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => {
                return Err(err)
                    .with_context(|| format!("{}: cannot check output", shown.display()))
            }
        }
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .with_context(|| format!("{}: output path has no file name", shown.display()))?
            .to_string_lossy()
            .into_owned();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            // A new output gets the usual 0666 less the umask, not the temporary file's 0600.
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(Permissions::from_mode(0o666));
        }
        // A directory the verb reads (`import tac DIR -o DIR/x`) holds its inputs: writing there
        // overwrote the source files it had just read.
        for input in inputs {
            if let (true, Ok(input_dir), Ok(out_dir)) = (
                input.is_dir(),
                input.canonicalize(),
                Path::new(&dir).canonicalize(),
            ) {
                if out_dir.starts_with(&input_dir) {
                    bail!(
                        "{}: inside the input directory {}, whose files are read; write the output elsewhere",
                        shown.display(),
                        input.display()
                    );
                }
            }
        }
        if !dir.is_dir() {
            bail!(
                "{}: no such directory {}; create it first or write the output elsewhere",
                shown.display(),
                dir.display()
            );
        }
        let temp = builder.tempfile_in(&dir).with_context(|| {
            format!(
                "{}: cannot create a temporary file in {}",
                shown.display(),
                dir.display()
            )
        })?;
        pending().push(temp.path().to_path_buf());
        Ok(OutputFile {
            shown,
            dest,
            keep_permissions,
            temp: Some(Sink::new(temp, crate::input::is_gzip_name(path))),
        })
    }

    /// The path as the user gave it.
    pub fn path(&self) -> &Path {
        &self.shown
    }

    /// Flush, fsync and atomically rename onto the destination (keeping its permissions).
    /// Errors name the file.
    pub fn commit(mut self) -> Result<()> {
        self.finish()?;
        self.persist()
    }

    /// Flush and fsync the temporary file (with the destination's permissions); the first half
    /// of [`OutputFile::commit`], where writing can still fail.
    fn finish(&mut self) -> Result<()> {
        let shown = self.shown.display().to_string();
        let sink = self.temp.as_mut().context("output already committed")?;
        sink.flush_all()
            .with_context(|| format!("{shown}: cannot write"))?;
        let Some(temp) = sink.temp() else {
            return Ok(());
        };
        if let Some(perms) = &self.keep_permissions {
            std::fs::set_permissions(temp.path(), perms.clone())
                .with_context(|| format!("{shown}: cannot set permissions"))?;
        }
        temp.as_file()
            .sync_all()
            .with_context(|| format!("{shown}: cannot write (sync)"))
    }

    /// Rename the finished temporary file onto the destination.
    fn persist(mut self) -> Result<()> {
        let shown = self.shown.display().to_string();
        let sink = self.temp.take().context("output already committed")?;
        let Some(temp) = sink
            .into_file()
            .with_context(|| format!("{shown}: cannot write"))?
        else {
            return Ok(());
        };
        forget_pending(temp.path());
        temp.persist(&self.dest)
            .map_err(|e| e.error)
            .with_context(|| format!("{shown}: cannot move the finished output into place"))?;
        Ok(())
    }

    /// The outputs of one run, each with the flag that names it (`("-o", path)`): refused when
    /// two name the same file ([`check_distinct_outputs`]), then each created before any is
    /// written, so a destination that cannot take its output fails the run before anything is
    /// written. Write them, then [`OutputFile::commit_all`]: a run writes all its outputs or none.
    pub fn create_all(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Result<Vec<OutputFile>> {
        check_distinct_outputs(outputs)?;
        outputs
            .iter()
            .map(|(_, path)| OutputFile::create(path, inputs))
            .collect()
    }

    /// Commit every output of a run: all are flushed and synced (where a full disk shows) before
    /// the first is moved into place, so a failure there leaves every destination as it was.
    pub fn commit_all(mut outputs: Vec<OutputFile>) -> Result<()> {
        for output in &mut outputs {
            output.finish()?;
        }
        for output in outputs {
            output.persist()?;
        }
        Ok(())
    }

    /// Write the whole output with `write` and commit it; on any error nothing is left behind.
    pub fn write_with(
        path: &Path,
        inputs: &[&Path],
        write: impl FnOnce(&mut OutputFile) -> Result<()>,
    ) -> Result<()> {
        let mut out = OutputFile::create(path, inputs)?;
        // "OUT not written", not "writing OUT": the closure's errors are often about the input
        // it reads while writing (a bad line of a set read as "writing features.csv:
        // set.jsonl:3: …"), and either way nothing was written. A write error of the output
        // names it already.
        write(&mut out).map_err(|err| {
            if names_an_output(&err) {
                err
            } else {
                err.context(format!("{} not written", path.display()))
            }
        })?;
        out.commit()
    }

    /// Write `bytes` as the whole output (the safe replacement of `std::fs::write`).
    pub fn write_all_to(path: &Path, inputs: &[&Path], bytes: &[u8]) -> Result<()> {
        Self::write_with(path, inputs, |out| {
            out.write_all(bytes)?;
            Ok(())
        })
    }

    fn writer(&mut self) -> std::io::Result<&mut dyn Write> {
        self.temp
            .as_mut()
            .map(Sink::writer)
            .ok_or_else(|| std::io::Error::other("output already committed"))
    }

    fn name_error(&self, err: std::io::Error) -> std::io::Error {
        let kind = err.kind();
        std::io::Error::new(
            kind,
            OutputError {
                shown: self.shown.clone(),
                err,
            },
        )
    }
}

/// A write error of an output, naming the file the user gave. Typed, so that a caller's context
/// can tell that the message names the file already ([`names_an_output`]).
#[derive(Debug)]
struct OutputError {
    shown: PathBuf,
    err: std::io::Error,
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.shown.display(), self.err)
    }
}

// No `source`: the message holds the underlying error already, and a chain would print it twice.
impl std::error::Error for OutputError {}

/// Whether `err` is, or was caused by, a write error of an [`OutputFile`], whose message names
/// the output: a context that names it again reads `writing m.aesop: m.aesop: …`.
pub fn names_an_output(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
            .is_some_and(|inner| inner.is::<OutputError>())
    })
}

/// Refuse an output whose name says a format aesop never writes (a spreadsheet, a data-frame or
/// array store, a document, another compression than gzip), so that no file hides another format
/// under it: `score -o p.xlsx` wrote JSON Lines, which Excel refuses to open, and `features -o
/// f.csv.xz` an uncompressed CSV. Checked where every output file is opened, before any work.
fn refuse_foreign_format(path: &Path) -> Result<()> {
    let Some(ext) = crate::input::format_extension(path) else {
        return Ok(());
    };
    let what = match ext.as_str() {
        "xlsx" | "xls" | "xlsm" | "xlsb" | "ods" => "a spreadsheet workbook",
        "parquet" | "feather" | "arrow" | "orc" | "avro" => "a columnar data file",
        "pkl" | "pickle" | "npy" | "npz" | "h5" | "hdf5" | "rds" | "rdata" | "rda" => {
            "a binary data file"
        }
        "sqlite" | "sqlite3" | "db" => "a database",
        "pdf" | "docx" | "doc" | "odt" | "rtf" => "a document",
        "zip" | "7z" | "tar" | "rar" => "an archive",
        "bz2" | "xz" | "zst" | "lz4" | "lzma" => {
            bail!(
                "{}: a name ending in .{ext} asks for a compression aesop does not write; aesop \
                 compresses with gzip: end the name in .gz",
                path.display()
            )
        }
        _ => return Ok(()),
    };
    bail!(
        "{}: a name ending in .{ext} says {what}, a format aesop does not write; name the output \
         for what aesop writes there (a table .csv, .tsv or .jsonl, which spreadsheets and pandas \
         read; a model .aesop; a report .json; a chart .svg)",
        path.display()
    )
}

/// The field delimiter of a table written to `path`: a tab for a `.tsv` name (also `.tsv.gz`),
/// a comma otherwise. Every verb that writes CSV asks this, so a `.tsv` output is tab-separated
/// whichever verb wrote it.
pub fn field_delimiter(path: &Path) -> u8 {
    match crate::input::format_extension(path).as_deref() {
        Some("tsv") => b'\t',
        _ => b',',
    }
}

/// Refuse two outputs of one run that name the same file, also through another spelling of the
/// path or a link: the later would replace the earlier (`cross-validate -o r.json --report
/// r.json` kept only the report). `outputs` pairs each path with the flag that names it.
pub fn check_distinct_outputs(outputs: &[(&str, &Path)]) -> Result<()> {
    for (i, (flag, path)) in outputs.iter().enumerate() {
        if let Some((earlier, _)) = outputs[..i]
            .iter()
            .find(|(_, other)| same_destination(path, other))
        {
            bail!(
                "{earlier} and {flag} name the same file {}: one output would replace the other; \
                 name a file for each",
                path.display()
            );
        }
    }
    Ok(())
}

/// Whether outputs at `a` and `b` would land in the same file.
fn same_destination(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    // The destination with its directory canonicalized (the file may not exist yet).
    let resolved = |path: &Path| -> Option<PathBuf> {
        let dest = resolve_links(path).ok()?;
        let dir = match dest.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        Some(dir.canonicalize().ok()?.join(dest.file_name()?))
    };
    if let (Some(x), Some(y)) = (resolved(a), resolved(b)) {
        if x == y {
            return true;
        }
    }
    // Hard links to one existing file.
    matches!(
        (std::fs::metadata(a), std::fs::metadata(b)),
        (Ok(x), Ok(y)) if same_file(&x, &y)
    )
}

/// Whether `meta` is a character device (`/dev/null`, a terminal) or a pipe: written in place.
fn is_stream(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_char_device() || meta.file_type().is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// `path` is no longer a pending output's temporary file.
fn forget_pending(path: &Path) {
    pending().retain(|p| p != path);
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        // Uncommitted: `NamedTempFile` removes the file as it drops.
        if let Some(temp) = self.temp.as_ref().and_then(Sink::temp) {
            forget_pending(temp.path());
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let result = self.writer().and_then(|w| w.write(buf));
        result.map_err(|e| self.name_error(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let result = self.writer().and_then(|w| w.write_all(buf));
        result.map_err(|e| self.name_error(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let result = self.writer().and_then(|w| w.flush());
        result.map_err(|e| self.name_error(e))
    }
}

/// `path` with every symbolic link in its last component resolved (a dangling link resolves to
/// where it points, so the output is created there).
fn resolve_links(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)
                    .with_context(|| format!("{}: cannot read the link", path.display()))?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    bail!("{}: too many levels of symbolic links", path.display())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len()
        && a.modified().ok() == b.modified().ok()
        && a.created().ok() == b.created().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interrupt_check_fails_only_once_the_flag_is_set() {
        let cancel = std::sync::atomic::AtomicBool::new(false);
        assert!(Interrupted::check(&cancel).is_ok());
        cancel.store(true, std::sync::atomic::Ordering::SeqCst);
        let err = Interrupted::check(&cancel).unwrap_err();
        assert!(err.is::<Interrupted>(), "{err}");
    }

    #[test]
    fn drop_without_commit_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        {
            let mut out = OutputFile::create(&path, &[]).unwrap();
            out.write_all(b"partial").unwrap();
        }
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn commit_replaces_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        OutputFile::write_all_to(&path, &[], b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn outputs_naming_one_file_are_refused_and_all_or_none_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let again = dir.path().join(".").join("a.txt");
        let err = OutputFile::create_all(&[("-o", &a), ("--report", &again)], &[])
            .err()
            .expect("the same file twice");
        let message = format!("{err:#}");
        assert!(
            message.contains("-o and --report name the same file"),
            "{message}"
        );
        #[cfg(unix)]
        {
            let link = dir.path().join("link.txt");
            std::os::unix::fs::symlink(&a, &link).unwrap();
            assert!(check_distinct_outputs(&[("-o", &a), ("--csv", &link)]).is_err());
        }
        // A destination that cannot be created fails before anything is written.
        let missing = dir.path().join("no-such-dir").join("r.json");
        assert!(OutputFile::create_all(&[("-o", &a), ("--report", &missing)], &[]).is_err());
        assert!(!a.exists());
        let b = dir.path().join("b.txt");
        let mut outputs = OutputFile::create_all(&[("-o", &a), ("--csv", &b)], &[]).unwrap();
        for output in &mut outputs {
            output.write_all(b"done").unwrap();
        }
        OutputFile::commit_all(outputs).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "done");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "done");
    }

    #[test]
    fn failing_writer_leaves_no_file_and_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let err = OutputFile::write_with(&path, &[], |out| {
            out.write_all(b"half")?;
            anyhow::bail!("disk full (injected)")
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("out.txt"), "{err:#}");
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_gz_name_is_written_compressed_and_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl.gz");
        OutputFile::write_all_to(&path, &[], b"{\"a\": 1}\n").unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip magic");
        assert_eq!(crate::input::read_bytes(&path).unwrap(), b"{\"a\": 1}\n");
        // Uncommitted, a compressed output leaves nothing either.
        let other = dir.path().join("other.csv.gz");
        {
            let mut out = OutputFile::create(&other, &[]).unwrap();
            out.write_all(b"partial").unwrap();
        }
        assert!(!other.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn names_of_formats_aesop_does_not_write_are_refused() {
        for (name, says) in [
            ("p.xlsx", "says a spreadsheet workbook"),
            ("P.XLS", "says a spreadsheet workbook"),
            ("f.parquet", "says a columnar data file"),
            ("f.parquet.gz", "says a columnar data file"),
            ("m.pkl", "says a binary data file"),
            ("r.pdf", "says a document"),
            ("t.zip", "says an archive"),
            (
                "f.csv.xz",
                "aesop compresses with gzip: end the name in .gz",
            ),
            ("f.jsonl.zst", "aesop compresses with gzip"),
        ] {
            let message = format!(
                "{:#}",
                refuse_foreign_format(Path::new(name)).expect_err(name)
            );
            assert!(
                message.starts_with(&format!("{name}: a name ending in .")),
                "{message}"
            );
            assert!(message.contains(says), "{name}: {message}");
        }
        for name in [
            "p.jsonl", "f.csv.gz", "t.tsv", "m.aesop", "r.json", "c.svg", "t.md", "out", "x.txt",
        ] {
            assert!(refuse_foreign_format(Path::new(name)).is_ok(), "{name}");
        }
    }
}
