//! How many worker threads to start: `RAYON_NUM_THREADS`, checked.
//!
//! Why: rayon reads the variable itself, but it ignores a value that is not a number (`abc`
//! ran on every core, unsaid) and tries to start as many threads as asked. At 20,000 a
//! 160-summary `score` ran past a minute, and at 100,000 the process aborted with "fatal
//! runtime error: failed to initiate panic". The CLI checks the variable before any work and
//! starts the pool itself, so a failure is an error naming the variable. The Python package
//! checks it on every call and sizes a pool of its own per process by it (`worker_pool` in
//! `python/src/lib.rs`: a forked child cannot use its parent's threads).

use anyhow::{bail, Result};

/// The variable, as rayon (and candle's CPU kernels) read it.
pub const THREADS_VAR: &str = "RAYON_NUM_THREADS";

/// The most worker threads a run may ask for: 1,024, or 4 per core on a machine with more
/// than 256. More only slows the run (1,024 threads on 2 cores: 1.5 s for a 160-summary
/// `score`, 4,096: 7.9 s) until the threads cannot start.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    1024.max(4 * cores)
}

/// The number of worker threads `RAYON_NUM_THREADS` asks for: `None` when it is unset, empty or
/// 0 (one per core, as rayon reads it); an error naming the variable when it is not a whole
/// number or above [`max_threads`].
pub fn requested_threads() -> Result<Option<usize>> {
    let Some(value) = std::env::var_os(THREADS_VAR) else {
        return Ok(None);
    };
    parse_threads(&value.to_string_lossy(), max_threads())
}

fn parse_threads(value: &str, max: usize) -> Result<Option<usize>> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    match value.parse::<usize>() {
        Ok(0) => Ok(None),
        Ok(n) if n <= max => Ok(Some(n)),
        Ok(n) => bail!(
            "{THREADS_VAR} is {n}: at most {max} worker threads (this machine has {}; unset it, \
             or set 0, for one thread per core)",
            counted_cores()
        ),
        Err(_) => bail!(
            "{THREADS_VAR} is '{value}': expected a whole number of worker threads (unset it, or \
             set 0, for one thread per core)"
        ),
    }
}

/// This machine's cores, counted for a message (`2 cores`).
fn counted_cores() -> String {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    crate::counted(cores, "core", "cores")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_whole_numbers_up_to_the_limit() {
        assert_eq!(parse_threads("", 1024).unwrap(), None);
        assert_eq!(parse_threads("0", 1024).unwrap(), None);
        assert_eq!(parse_threads(" 8 ", 1024).unwrap(), Some(8));
        assert_eq!(parse_threads("1024", 1024).unwrap(), Some(1024));
        let e = parse_threads("1025", 1024).unwrap_err().to_string();
        assert!(
            e.starts_with("RAYON_NUM_THREADS is 1025: at most 1024 worker threads"),
            "{e}"
        );
        for bad in ["abc", "-1", "2.5", "1e3"] {
            let e = parse_threads(bad, 1024).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!(
                    "RAYON_NUM_THREADS is '{bad}': expected a whole number"
                )),
                "{e}"
            );
        }
        assert!(max_threads() >= 1024);
    }
}
