//! Streaming reader and writer for judgment sets (JSON Lines, one topic per line).
//! STUB: to be written by the corpus work (validation naming file, line and field).

use super::Topic;
use anyhow::{Context, Result};
use std::io::{BufRead, Write};
use std::path::Path;

/// Read a whole judgment set.
pub fn read_set(path: &Path) -> Result<Vec<Topic>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let mut topics = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let topic: Topic = serde_json::from_str(&line)
            .with_context(|| format!("{}:{}: invalid topic", path.display(), i + 1))?;
        topics.push(topic);
    }
    Ok(topics)
}

/// Write topics as JSON Lines.
pub fn write_set<W: Write>(mut out: W, topics: &[Topic]) -> Result<()> {
    for t in topics {
        serde_json::to_writer(&mut out, t)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
