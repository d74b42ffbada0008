//! Records the git commit the `aesop` binary is built from as `AESOP_COMMIT`, so the model files
//! and reports it writes name it (`written_by`, docs/MODEL_FILE.md), marked `-dirty` when tracked
//! files differ from that commit. Outside a git checkout, or without git, it is empty and they
//! name the version alone.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

fn rerun_if_changed(path: &str) {
    // A path that does not exist would rerun this script on every build.
    if Path::new(path).exists() {
        println!("cargo:rerun-if-changed={path}");
    }
}

fn main() {
    // An edit of any source makes the tree dirty (or clean again), and a commit moves a ref.
    // Not the index: `git status` rewrites it, and each rewrite would rebuild the binary.
    for path in [
        "build.rs",
        "Cargo.toml",
        "Cargo.lock",
        "src",
        "crates",
        "features",
        "models",
    ] {
        rerun_if_changed(path);
    }
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) => {
            if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
                for file in ["HEAD", "packed-refs", "refs"] {
                    rerun_if_changed(&format!("{dir}/{file}"));
                }
            }
            // `--no-optional-locks`: a status that rewrote the index would rerun this script.
            let dirty = git(&[
                "--no-optional-locks",
                "status",
                "--porcelain",
                "--untracked-files=no",
            ])
            .is_some_and(|changes| !changes.is_empty());
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }
        None => String::new(),
    };
    println!("cargo:rustc-env=AESOP_COMMIT={commit}");
}
