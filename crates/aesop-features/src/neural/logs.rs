//! The JSON-lines logs the `neural` class writes beside its features when asked by the
//! environment (`AESOP_NEURAL_TOKENS`, `AESOP_NEURAL_HIDDEN`), for looking into the LM's
//! tokens and hidden states outside aesop.

use anyhow::{Context, Result};
use std::io::Write;
use std::sync::Mutex;

/// A log of `AESOP_NEURAL_TOKENS` or `AESOP_NEURAL_HIDDEN`: one JSON line per summary, appended
/// (never truncated, so an earlier log is never lost), a topic's lines written together.
pub(super) struct JsonLinesLog {
    var: &'static str,
    path: std::path::PathBuf,
    file: Mutex<std::io::BufWriter<std::fs::File>>,
}

impl JsonLinesLog {
    pub(super) fn from_env(var: &'static str) -> Result<Option<JsonLinesLog>> {
        let Some(path) = std::env::var_os(var).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let path = std::path::PathBuf::from(path);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("{var}: cannot open {} for appending", path.display()))?;
        Ok(Some(JsonLinesLog {
            var,
            path,
            file: Mutex::new(std::io::BufWriter::new(file)),
        }))
    }

    pub(super) fn write(&self, lines: &[serde_json::Value]) -> Result<()> {
        // A poisoned lock only means another topic's write panicked; the file is still usable.
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        for line in lines {
            writeln!(f, "{line}")?;
        }
        f.flush()
            .with_context(|| format!("{}: writing {}", self.var, self.path.display()))
    }
}

/// `AESOP_NEURAL_HIDDEN` and the blocks `AESOP_NEURAL_HIDDEN_LAYERS` names (comma-separated
/// indices from 0; default the middle and three quarters of the network).
pub(super) fn hidden_log_from_env(n_blocks: usize) -> Result<Option<(JsonLinesLog, Vec<usize>)>> {
    let Some(log) = JsonLinesLog::from_env("AESOP_NEURAL_HIDDEN")? else {
        return Ok(None);
    };
    let layers = match std::env::var("AESOP_NEURAL_HIDDEN_LAYERS") {
        Ok(list) if !list.trim().is_empty() => list
            .split(',')
            .map(|l| block_index("AESOP_NEURAL_HIDDEN_LAYERS", l, n_blocks))
            .collect::<Result<Vec<_>>>()?,
        _ => vec![n_blocks / 2, n_blocks * 3 / 4],
    };
    Ok(Some((log, layers)))
}

/// `text` (from the environment variable `var`) as a block index below `n_blocks`, or an error
/// naming the variable.
pub(crate) fn block_index(var: &str, text: &str, n_blocks: usize) -> Result<usize> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|&b| b < n_blocks)
        .ok_or_else(|| anyhow::anyhow!("{var}: {text:?} is not a block index below {n_blocks}"))
}
