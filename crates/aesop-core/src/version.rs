//! Which aesop wrote a model file or report: its version, and the git commit when the running
//! binary knows it. The binary's build script reads the commit from git; the binary hands it
//! over once at start ([`set_commit`]), so no library crate needs a build script of its own
//! (one would rebuild that crate, and every crate above it, on each commit).

use std::sync::OnceLock;

static COMMIT: OnceLock<String> = OnceLock::new();

/// Record the commit the running binary was built from (`0123456789ab`, or with `-dirty` when
/// it was built from a modified tree). Empty, or a second call, changes nothing.
pub fn set_commit(commit: &str) {
    if !commit.is_empty() {
        let _ = COMMIT.set(commit.to_string());
    }
}

/// `0.1.0 (commit 0123456789ab)`, or `0.1.0` when the commit is unknown (the library used on
/// its own, the Python package, a build outside a git checkout).
pub fn version() -> String {
    match COMMIT.get() {
        Some(commit) => format!("{} (commit {commit})", env!("CARGO_PKG_VERSION")),
        None => env!("CARGO_PKG_VERSION").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_names_the_commit_once_it_is_set() {
        assert_eq!(version(), env!("CARGO_PKG_VERSION"));
        set_commit("");
        assert_eq!(version(), env!("CARGO_PKG_VERSION"), "empty is unknown");
        set_commit("0123456789ab-dirty");
        set_commit("ba9876543210");
        assert_eq!(
            version(),
            format!("{} (commit 0123456789ab-dirty)", env!("CARGO_PKG_VERSION")),
            "the first commit set stays"
        );
    }
}
