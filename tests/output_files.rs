//! Safe output files end to end (crates/aesop-core/src/output.rs): an output that is the input (by any path) is
//! refused and the input survives; symbolic links are written through; read-only and non-regular
//! files are never replaced, but devices and pipes are written in place; a write error leaves no
//! partial file and names the file.

use crate::common;

use std::path::{Path, PathBuf};

const ARTICLE: &str =
    "The city council approved a new budget on Monday. The budget raises spending \
on schools and parks. Critics argued that the tax increase would hurt small businesses.";

fn write_set(dir: &Path) -> PathBuf {
    let line = serde_json::json!({
        "topic": "t1",
        "documents": [{"id": "d1", "text": ARTICLE}],
        "references": [{"id": "A", "text": "The council approved a budget that raises school spending."}],
        "summaries": [
            {"system": "s1", "text": "The council approved a new budget.", "scores": {"relevance": 3.0}},
            {"system": "s2", "text": "Critics said taxes hurt businesses.", "scores": {"relevance": 2.0}}
        ]
    });
    let path = dir.join("set.jsonl");
    std::fs::write(&path, format!("{line}\n")).unwrap();
    path
}

fn features(set: &Path, output: &Path) -> std::process::Output {
    common::aesop()
        .arg("features")
        .arg(set)
        .args(["--classes", "surface", "-o"])
        .arg(output)
        .output()
        .unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn output_onto_its_input_is_refused_and_the_input_survives() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    let before = std::fs::read(&set).unwrap();
    for verb in [["features", "--classes"], ["score", "--model"]] {
        let value = if verb[0] == "features" {
            "surface"
        } else {
            "builtin:readability-noref"
        };
        let out = common::aesop()
            .arg(verb[0])
            .arg(&set)
            .args([verb[1], value, "-o"])
            .arg(&set)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{verb:?} onto its input succeeded");
        assert!(stderr(&out).contains("is the input"), "{}", stderr(&out));
        assert_eq!(
            std::fs::read(&set).unwrap(),
            before,
            "{verb:?} changed its input"
        );
    }
}

/// `train --report R -o R`: the report is an input, and survives.
#[test]
fn a_model_onto_its_report_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    let report = dir.path().join("report.json");
    let text = "{\"target\": \"relevance\", \"calibrated_mae\": 0.5}";
    std::fs::write(&report, text).unwrap();
    let report_arg = report.to_str().unwrap();
    let out = common::run_train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "surface",
            "--c",
            "0.01",
            "--report",
            report_arg,
        ],
        &report,
    );
    assert!(!out.status.success(), "train onto its report succeeded");
    assert!(stderr(&out).contains("is the input"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&report).unwrap(), text);
}

#[test]
fn output_onto_a_hard_link_or_symlink_of_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    let before = std::fs::read(&set).unwrap();
    let hard = dir.path().join("hard.jsonl");
    std::fs::hard_link(&set, &hard).unwrap();
    let soft = dir.path().join("soft.jsonl");
    std::os::unix::fs::symlink(&set, &soft).unwrap();
    let dotted = dir.path().join(".").join("set.jsonl");
    for output in [&hard, &soft, &dotted] {
        let out = features(&set, output);
        assert!(!out.status.success(), "{} accepted", output.display());
        assert!(stderr(&out).contains("is the input"), "{}", stderr(&out));
    }
    // The other direction: the input given through the link, the output by its real name.
    let out = features(&soft, &set);
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&set).unwrap(), before);
}

#[test]
fn symlinks_are_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    let target = dir.path().join("real.csv");
    std::fs::write(&target, "old\n").unwrap();
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    let out = features(&set, &link);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.starts_with("topic,"), "{written}");
}

#[test]
fn read_only_and_non_regular_outputs_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    let locked = dir.path().join("locked.csv");
    std::fs::write(&locked, "keep\n").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = features(&set, &locked);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), "keep\n");
    let mode = std::fs::metadata(&locked).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);

    let sub = dir.path().join("a-directory");
    std::fs::create_dir(&sub).unwrap();
    let out = features(&set, &sub);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    assert!(sub.is_dir());
}

/// A character device or a pipe (`-o /dev/null`, a FIFO, bash's `-o >(…)`) is written in place by
/// every verb, as `score` always did: `features -o /dev/null` (to fill the LM cache, or to time a
/// run) was refused as "not a regular file". The pipe's reader gets what a regular file gets.
#[test]
fn devices_and_pipes_are_written_in_place_by_every_verb() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    let verbs: Vec<Vec<String>> = vec![
        vec!["features".into(), "--classes".into(), "surface".into()],
        vec![
            "score".into(),
            "--model".into(),
            "builtin:readability-noref".into(),
        ],
        vec![
            "train".into(),
            "--target".into(),
            "relevance".into(),
            "--classes".into(),
            "surface".into(),
        ],
    ];
    let run = |verb: &[String], output: &Path| {
        let out = common::aesop()
            .arg(&verb[0])
            .arg(&set)
            .args(&verb[1..])
            .arg("-o")
            .arg(output)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{verb:?} -o {output:?}: {}",
            stderr(&out)
        );
    };
    for verb in &verbs {
        run(verb, Path::new("/dev/null"));
        let regular = dir.path().join(format!("{}.out", verb[0]));
        run(verb, &regular);
        let fifo = dir.path().join(format!("{}.fifo", verb[0]));
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        run(verb, &fifo);
        let through_pipe = reader.join().unwrap();
        if verb[0] == "train" {
            // A model file records when it was made: compare its size only.
            assert_eq!(
                through_pipe.len(),
                std::fs::metadata(&regular).unwrap().len() as usize
            );
        } else {
            assert_eq!(through_pipe, std::fs::read(&regular).unwrap(), "{verb:?}");
        }
        // The pipe is still a pipe: nothing was renamed onto it.
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }
}

/// A file-size limit (`ulimit -f`, with SIGXFSZ ignored) makes writes fail with EFBIG, as a full
/// disk does with ENOSPC: the run fails, the error names the output, and nothing is left behind.
#[test]
fn a_write_error_leaves_no_partial_file_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    // Make the output large: many topics.
    let line = std::fs::read_to_string(&set).unwrap();
    let mut big = String::new();
    for i in 0..400 {
        big.push_str(&line.replacen("\"t1\"", &format!("\"t{i}\""), 1));
    }
    let big_set = dir.path().join("big.jsonl");
    std::fs::write(&big_set, big).unwrap();
    let output = dir.path().join("out.csv");
    let bin = assert_cmd::cargo::cargo_bin("aesop");
    let script = format!(
        "trap '' XFSZ; ulimit -f 8; exec '{}' features '{}' --classes surface -o '{}'",
        bin.display(),
        big_set.display(),
        output.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(!out.status.success(), "a 4 KiB limit did not stop the run");
    let message = stderr(&out);
    assert!(
        message.contains("out.csv") && message.contains("File too large"),
        "{message}"
    );
    // Not the hidden temporary file's name, which the user never gave (stop 91: `… at path
    // "/data/.out.csv.eOkYgB.tmp"`).
    assert!(
        !message.contains(".out.csv.") && !message.contains("at path"),
        "{message}"
    );
    assert!(!output.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn every_verb_names_an_output_it_cannot_write_once() {
    // Each verb's output under a file-size limit of zero, so its first write fails: the message
    // names the output the user gave, once (it read `writing model m.aesop: m.aesop: cannot
    // write: …`, `i.jsonl not written: cannot write topic …: i.jsonl: …`), and nothing is left.
    let dir = tempfile::tempdir().unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let set = dir.path().join("set.jsonl");
    let imported = common::aesop()
        .arg("import")
        .arg("summeval")
        .arg(examples.join("summeval-sample.jsonl"))
        .arg("-o")
        .arg(&set)
        .output()
        .unwrap();
    assert!(imported.status.success(), "{}", stderr(&imported));
    let features = dir.path().join("features.csv");
    let made = common::aesop()
        .args([
            "features",
            "set.jsonl",
            "--classes",
            "surface",
            "-o",
            "features.csv",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    let sample = examples.join("summeval-sample.jsonl");
    let sample = sample.display();
    let learn = "--set set.jsonl:readability --classes surface";
    let bin = assert_cmd::cargo::cargo_bin("aesop");
    for (command, output) in [
        (
            "features set.jsonl --classes surface -o o.csv".to_string(),
            "o.csv",
        ),
        (
            "features set.jsonl --classes surface -o o.jsonl.gz".to_string(),
            "o.jsonl.gz",
        ),
        ("score set.jsonl -o p.jsonl".to_string(), "p.jsonl"),
        (format!("train {learn} -o m.aesop"), "m.aesop"),
        (format!("cross-validate {learn} -o cv.jsonl"), "cv.jsonl"),
        (format!("ablate {learn},content -o ab.csv"), "ab.csv"),
        (format!("import summeval {sample} -o i.jsonl"), "i.jsonl"),
        ("analyze set.jsonl -o a.conllu".to_string(), "a.conllu"),
        (
            "evaluate features.csv --human set.jsonl --target readability \
             --feature surface.density --json e.json"
                .to_string(),
            "e.json",
        ),
        ("generate man -o pages".to_string(), "aesop.1"),
    ] {
        let script = format!(
            "trap '' XFSZ; ulimit -f 0; exec '{}' {command}",
            bin.display()
        );
        let out = std::process::Command::new("sh")
            .args(["-c", &script])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{command}: {message}");
        assert!(message.contains("File too large"), "{command}: {message}");
        let error = message
            .lines()
            .find(|line| line.starts_with("aesop: error:"))
            .unwrap_or_default();
        assert_eq!(
            error.matches(output).count(),
            1,
            "{command}: the output named other than once: {message}"
        );
        let mut left = common::file_names(dir.path());
        left.retain(|name| !["set.jsonl", "features.csv", "pages"].contains(&name.as_str()));
        assert!(left.is_empty(), "{command}: {left:?}");
    }
    // The man pages' directory is made before the pages are written; none is left in it.
    assert_eq!(
        common::file_names(&dir.path().join("pages")),
        Vec::<String>::new()
    );
    assert!(features.exists());
}

#[test]
fn a_dash_output_is_standard_output_where_the_output_is_optional_and_refused_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    // `features`, `score` and `analyze` write to standard output for `-o -`, as without `-o`.
    let out = common::aesop()
        .current_dir(dir.path())
        .arg("features")
        .arg(&set)
        .args(["--classes", "surface", "-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(csv.starts_with("topic,system,surface."), "{csv}");
    assert_eq!(csv.lines().count(), 3, "{csv}");
    let out = common::aesop()
        .current_dir(dir.path())
        .arg("score")
        .arg(&set)
        .args(["--model", "builtin:readability", "-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    assert!(
        stderr(&out).contains("to standard output"),
        "{}",
        stderr(&out)
    );
    let out = common::aesop()
        .current_dir(dir.path())
        .args(["analyze", "-o", "-"])
        .write_stdin("The cat sat.")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("# text = The cat sat."));
    // `import -o -` writes the set to standard output.
    let source = dir.path().join("summeval.jsonl");
    std::fs::write(
        &source,
        r#"{"doc_id": "d1", "src": "An article .", "ref_summ": "r0", "sys_summs": {"M0": {"sys_summ": "A summary .", "scores": {"coherence": 1, "consistency": 2, "fluency": 3, "relevance": 4}}}}"#,
    )
    .unwrap();
    let out = common::aesop()
        .current_dir(dir.path())
        .args(["import", "summeval"])
        .arg(&source)
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(r#"{"topic":"d1""#));
    // A model file or a report cannot go to standard output: refused, naming `-`.
    let out = common::aesop()
        .current_dir(dir.path())
        .arg("train")
        .arg(&set)
        .args(["--target", "relevance", "--classes", "surface", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`-` (standard output) cannot take this output; name a file"),
        "{}",
        stderr(&out)
    );
    // No file named `-` was written by any of them.
    assert!(!dir.path().join("-").exists());
}

#[test]
fn a_reader_that_closes_standard_output_early_ends_the_run_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    // The read end is closed before the run starts, so the first write fails with EPIPE: no
    // panic (`print!` panicked in `aesop models`), no error, exit 0 (as ripgrep).
    for args in [
        vec!["models".to_string()],
        vec![
            "features".to_string(),
            set.display().to_string(),
            "--classes".to_string(),
            "surface".to_string(),
        ],
        vec![
            "score".to_string(),
            set.display().to_string(),
            "--model".to_string(),
            "builtin:readability".to_string(),
        ],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("aesop"))
            .args(&args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("error"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn a_closed_standard_error_neither_panics_nor_changes_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let set = write_set(dir.path());
    let scores = dir.path().join("scores.jsonl");
    // `aesop score x 2>&1 | head -1` closes standard error once `head` has its line; the read end
    // is closed before the run here, so every message fails with EPIPE. `eprintln!` panicked
    // (exit 101) after the file was written; now the message is dropped and the outcome stands.
    let run = |args: Vec<String>| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        std::process::Command::new(assert_cmd::cargo::cargo_bin("aesop"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(writer)
            .status()
            .unwrap()
    };
    let scored = run(vec![
        "score".into(),
        set.display().to_string(),
        "--model".into(),
        "builtin:readability".into(),
        "-o".into(),
        scores.display().to_string(),
    ]);
    assert_eq!(scored.code(), Some(0));
    let written = std::fs::read_to_string(&scores).unwrap();
    assert!(written.lines().count() > 0, "{written}");
    // A failing run still says so by its exit code (1), not by a panic's 101.
    let failed = run(vec![
        "score".into(),
        dir.path().join("missing.jsonl").display().to_string(),
    ]);
    assert_eq!(failed.code(), Some(1));
}

/// `aesop ARGS…` that must succeed; its standard output.
fn run_ok(args: &[&std::ffi::OsStr]) -> String {
    let out = common::aesop().args(args).output().unwrap();
    assert!(out.status.success(), "aesop {args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Any output named `.gz` is written compressed and any input so named read decompressed
/// (docs/JUDGMENT_SETS.md): until only `import` compressed, `features -o f.csv.gz`, `score -o
/// p.jsonl.gz` and `train -o m.aesop.gz` wrote plain text under a gzip name, which the readers
/// (evaluate, `--model`) then refused as "not valid gzip". Each compressed output here holds
/// exactly the plain output's bytes, keeps the plain name's format, and reads back the same.
#[test]
fn outputs_named_gz_are_written_compressed_and_every_verb_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let set = crate::cli_verbs::imported_sample(dir.path(), "set.jsonl");
    let path = |name: &str| dir.path().join(name);
    let os = |p: &Path| p.as_os_str().to_owned();
    let (set_arg, human) = (os(&set), std::ffi::OsString::from("--human"));

    // Features: CSV by the plain name, the same bytes; evaluate reads either the same.
    for name in ["f.csv", "f.csv.gz"] {
        features(&set, &path(name));
    }
    assert_eq!(
        common::gunzip(&path("f.csv.gz")),
        std::fs::read(path("f.csv")).unwrap()
    );
    assert!(String::from_utf8(common::gunzip(&path("f.csv.gz")))
        .unwrap()
        .starts_with("topic,system,surface."));
    // `aesop evaluate FILE EXTRA… --human SET --target relevance`, the file's name masked.
    let evaluate = |file: &Path, extra: &[&str]| {
        let mut args = vec![std::ffi::OsString::from("evaluate"), os(file)];
        args.extend(extra.iter().map(std::ffi::OsString::from));
        args.extend([human.clone(), set_arg.clone()]);
        args.extend(["--target", "relevance", "--bootstrap", "0"].map(std::ffi::OsString::from));
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        run_ok(&args).replace(&file.display().to_string(), "FILE")
    };
    let evaluate_feature = |file: &Path| evaluate(file, &["--feature", "surface.summary_tokens"]);
    let plain = evaluate_feature(&path("f.csv"));
    assert!(plain.contains("summary"), "{plain}");
    assert_eq!(evaluate_feature(&path("f.csv.gz")), plain);

    // A model: the same bytes compressed; scored by name `m` either way, the same predictions.
    for name in ["m.aesop", "m.aesop.gz"] {
        common::train(
            &set,
            &["--target", "relevance", "--classes", "surface"],
            &path(name),
        );
    }
    assert_eq!(
        common::gunzip(&path("m.aesop.gz")),
        std::fs::read(path("m.aesop")).unwrap()
    );
    let card = run_ok(&["models".as_ref(), path("m.aesop.gz").as_os_str()]);
    assert!(card.contains("Predicts `relevance`"), "{card}");
    for (model, output) in [
        ("m.aesop", "p.jsonl"),
        ("m.aesop.gz", "p.jsonl.gz"),
        ("m.aesop.gz", "p.csv.gz"),
    ] {
        run_ok(&[
            "score".as_ref(),
            set_arg.as_os_str(),
            "--model".as_ref(),
            path(model).as_os_str(),
            "-o".as_ref(),
            path(output).as_os_str(),
        ]);
    }
    let predictions = std::fs::read(path("p.jsonl")).unwrap();
    assert!(String::from_utf8_lossy(&predictions).contains(r#""model":"m""#));
    assert_eq!(common::gunzip(&path("p.jsonl.gz")), predictions);
    assert!(String::from_utf8(common::gunzip(&path("p.csv.gz")))
        .unwrap()
        .starts_with("topic,system,m"));

    // Predictions read back by evaluate, compressed or not, give the same figures.
    assert_eq!(
        evaluate(&path("p.jsonl.gz"), &[]),
        evaluate(&path("p.jsonl"), &[])
    );

    // A protocol-1 report written compressed is stored by `train --report` from it.
    run_ok(&[
        "cross-validate".as_ref(),
        set_arg.as_os_str(),
        "--target".as_ref(),
        "relevance".as_ref(),
        "--classes".as_ref(),
        "surface".as_ref(),
        "-o".as_ref(),
        path("oof.jsonl.gz").as_os_str(),
        "--report".as_ref(),
        path("r.json.gz").as_os_str(),
    ]);
    let report: serde_json::Value =
        serde_json::from_slice(&common::gunzip(&path("r.json.gz"))).unwrap();
    assert!(report.is_object(), "{report}");
    assert!(!evaluate(&path("oof.jsonl.gz"), &[]).is_empty());
    let report_path = path("r.json.gz");
    let report_arg = report_path.to_str().unwrap();
    common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "surface",
            "--report",
            report_arg,
        ],
        &path("m-report.aesop"),
    );
    let card = run_ok(&["models".as_ref(), path("m-report.aesop").as_os_str()]);
    assert!(
        card.contains("Mean absolute error on held-out data"),
        "{card}"
    );
    // The sources of an import and the plain-text files of `score`, compressed by anyone.
    let compress = |from: &Path, to: &str| {
        std::fs::write(path(to), common::gzip(&std::fs::read(from).unwrap())).unwrap();
        path(to)
    };
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let sample = compress(&examples.join("summeval-sample.jsonl"), "sample.jsonl.gz");
    run_ok(&[
        "import".as_ref(),
        "summeval".as_ref(),
        sample.as_os_str(),
        "-o".as_ref(),
        path("again.jsonl").as_os_str(),
    ]);
    assert_eq!(
        std::fs::read(path("again.jsonl")).unwrap(),
        std::fs::read(&set).unwrap()
    );
    let score_texts = |article: &Path, summary: &Path| {
        run_ok(&[
            "score".as_ref(),
            "--documents".as_ref(),
            article.as_os_str(),
            "--summary".as_ref(),
            summary.as_os_str(),
            "--model".as_ref(),
            "builtin:readability".as_ref(),
            "--format".as_ref(),
            "csv".as_ref(),
        ])
    };
    let (article, mine) = (examples.join("article.txt"), examples.join("mine.txt"));
    let plain = score_texts(&article, &mine);
    assert!(plain.contains("mine.txt"), "{plain}");
    assert_eq!(
        score_texts(
            &compress(&article, "article.txt.gz"),
            &compress(&mine, "mine.txt.gz")
        )
        .replace("mine.txt.gz", "mine.txt"),
        plain
    );

    // A file named .gz that is not gzip is an error naming it, not a model read as garbage.
    std::fs::copy(path("m.aesop"), path("fake.aesop.gz")).unwrap();
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(path("fake.aesop.gz"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("fake.aesop.gz") && message.contains("not valid gzip"),
        "{message}"
    );
}
