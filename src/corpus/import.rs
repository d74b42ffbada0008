//! Importers: one per source format, each turning a public or NIST layout into topics.
//! STUB: to be written by the corpus work.

use super::Topic;
use anyhow::{bail, Result};
use std::path::Path;

/// The formats `aesop import` understands.
pub const FORMATS: &[&str] = &[
    "summeval",
    "realsumm",
    "newsroom",
    "summeval-op",
    "dialsummeval",
    "tac",
    "duc",
];

/// Import `path` (a file or directory, depending on the format) into topics.
pub fn import(format: &str, path: &Path) -> Result<Vec<Topic>> {
    bail!(
        "import of {format} from {} is not implemented yet",
        path.display()
    )
}
