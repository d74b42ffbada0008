//! The LMs in a process forked from one that ran them.
//!
//! Why: candle runs large element-wise operations on worker threads it starts once per process,
//! on first use. A process forked after that (Python's `multiprocessing` on Linux, a
//! `ProcessPoolExecutor`, a pre-fork web server) inherits candle's record of those workers but
//! not the threads, and its first LM pass waited for them forever. candle cannot be told to
//! start them again, so such a pass is refused with what to do instead. Where candle starts no
//! workers (`CANDLE_NUM_THREADS=1`, the Python package's default), a forked process runs the LMs
//! as its parent did.

use anyhow::{bail, Result};
use std::sync::atomic::{AtomicU32, Ordering};

/// candle's variable for its element-wise workers (it falls back to `RAYON_NUM_THREADS`, then
/// to the physical cores); 1 starts none, and runs those operations on the calling thread.
pub const CANDLE_THREADS_VAR: &str = "CANDLE_NUM_THREADS";

/// The process in which candle's element-wise workers may have started (0: none yet).
static WORKERS_STARTED_IN: AtomicU32 = AtomicU32::new(0);

/// Called before every use of candle (a model's load, each pass): refuses the use in a process
/// forked after candle's workers started in its parent, and otherwise notes this process as
/// the one whose workers exist.
pub(crate) fn check_candle_workers() -> Result<()> {
    let this = std::process::id();
    let started_in = WORKERS_STARTED_IN.load(Ordering::Relaxed);
    if let Some(refusal) = forked_refusal(started_in, this) {
        bail!(refusal);
    }
    if started_in == 0 && candle_starts_workers() {
        WORKERS_STARTED_IN.store(this, Ordering::Relaxed);
    }
    Ok(())
}

/// Why process `this` may not use candle, when its workers started in process `started_in`.
fn forked_refusal(started_in: u32, this: u32) -> Option<String> {
    (started_in != 0 && started_in != this).then(|| {
        format!(
            "this process ({this}) was forked from process {started_in} after the latter ran the \
             language model, and candle's worker threads do not survive a fork, so the LM cannot \
             run here; start worker processes with multiprocessing's 'spawn' or 'forkserver' \
             method (multiprocessing.get_context(\"spawn\")), or set {CANDLE_THREADS_VAR}=1 \
             before the first LM pass (the Python package's default), which starts no such \
             threads"
        )
    })
}

/// Whether candle will start element-wise workers, by the rule it reads its variables with.
fn candle_starts_workers() -> bool {
    let threads = |var: &str| {
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    threads(CANDLE_THREADS_VAR)
        .or_else(|| threads("RAYON_NUM_THREADS"))
        .unwrap_or_else(num_cpus::get_physical)
        > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forked_process_is_refused_only_after_its_parent_started_workers() {
        assert_eq!(forked_refusal(0, 7), None);
        assert_eq!(forked_refusal(7, 7), None);
        let e = forked_refusal(7, 8).unwrap();
        assert!(
            e.starts_with("this process (8) was forked from process 7 after"),
            "{e}"
        );
        assert!(
            e.contains("'spawn'") && e.contains("CANDLE_NUM_THREADS=1"),
            "{e}"
        );
    }
}
