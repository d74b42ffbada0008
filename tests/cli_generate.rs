//! `aesop generate`: shell completion scripts and man pages made from the command line's own
//! declarations, so they list every verb and flag there is; written as every output is (a file
//! that cannot take them is refused and left as it was).

use crate::common;

use std::path::Path;
use std::process::Command;

/// Every verb of the command line (a verb missing from a script or the pages fails a test).
const VERBS: &[&str] = &[
    "import",
    "analyze",
    "train",
    "score",
    "models",
    "cross-validate",
    "ablate",
    "evaluate",
    "serve",
    "features",
    "generate",
];

fn generated(kind: &str) -> String {
    let out = common::aesop().args(["generate", kind]).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).expect("UTF-8")
}

/// What bash offers after `words` (the last one being completed), from the generated script.
fn bash_completions(script: &Path, words: &[&str]) -> Vec<String> {
    let current = words.len() - 1;
    let previous = words[current.saturating_sub(1)];
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={current}; _aesop aesop '{}' '{previous}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words[current],
    );
    let out = Command::new("bash")
        .args(["-c", &program])
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_bash_script_is_valid_and_completes_verbs_flags_and_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("aesop.bash");
    common::aesop()
        .args(["generate", "complete-bash", "-o"])
        .arg(&script)
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&script).expect("script"),
        generated("complete-bash"),
        "-o writes what standard output gets"
    );
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("bash");
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
    );

    let verbs = bash_completions(&script, &["aesop", ""]);
    for verb in VERBS {
        assert!(
            verbs.iter().any(|v| v == verb),
            "{verb} not offered: {verbs:?}"
        );
    }
    assert_eq!(
        bash_completions(&script, &["aesop", "cross-validate", "--leave"]),
        ["--leave-one-set-out"]
    );
    // A flag's possible values (clap's value enums).
    let formats = bash_completions(&script, &["aesop", "score", "x.jsonl", "--format", ""]);
    assert_eq!(formats, ["jsonl", "csv", "tsv"]);
    // Feature classes, from the registry.
    let classes = bash_completions(&script, &["aesop", "train", "--classes", ""]);
    for class in ["content", "rouge", "neural", "arcs"] {
        assert!(
            classes.iter().any(|c| c == class),
            "{class} not offered: {classes:?}"
        );
    }
}

#[test]
fn every_shell_gets_a_script_naming_every_verb() {
    for shell in [
        "complete-bash",
        "complete-zsh",
        "complete-fish",
        "complete-powershell",
        "complete-elvish",
    ] {
        let script = generated(shell);
        for word in VERBS
            .iter()
            .chain(&["leave-one-set-out", "neural-source-tokens"])
        {
            assert!(script.contains(word), "{shell}: {word} missing");
        }
    }
}

#[test]
fn man_pages_are_one_per_verb_with_their_examples_and_the_same_every_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let man = dir.path().join("man");
    common::aesop()
        .args(["generate", "man", "-o"])
        .arg(&man)
        .assert()
        .success()
        .stderr(predicates::str::contains("wrote 12 man pages"));
    let mut names: Vec<String> = std::fs::read_dir(&man)
        .expect("man dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = VERBS.iter().map(|v| format!("aesop-{v}.1")).collect();
    expected.push("aesop.1".to_string());
    expected.sort();
    assert_eq!(names, expected);

    let page = |name: &str| std::fs::read_to_string(man.join(name)).expect("page");
    let main = page("aesop.1");
    assert!(main.contains(".TH aesop 1"), "{main}");
    for section in ["EXIT STATUS", "ENVIRONMENT", "SUBCOMMANDS"] {
        assert!(
            main.contains(&format!(".SH \"{section}\""))
                || main.contains(&format!(".SH {section}")),
            "{section} missing"
        );
    }
    assert!(main.contains("AESOP_NEURAL_PRECISION"));
    for verb in VERBS {
        // roff writes a hyphen as `\-`.
        let listed = format!("aesop-{verb}(1)").replace('-', "\\-");
        assert!(main.contains(&listed), "aesop.1 does not list {verb}");
        let text = page(&format!("aesop-{verb}.1"));
        assert!(
            text.contains(&format!(".TH aesop-{verb} 1")),
            "{verb}: {text}"
        );
        // Every verb's --help has examples; the page has them as a section, line by line.
        assert!(
            text.contains(".SH EXAMPLES\n.nf\n"),
            "{verb}: no EXAMPLES section"
        );
    }
    assert!(page("aesop-train.1").contains("\\-\\-recipe"));

    // The main page alone on standard output is the file's page; a second run writes the same.
    assert_eq!(generated("man"), main);
    let again = dir.path().join("again");
    common::aesop()
        .args(["generate", "man", "-o"])
        .arg(&again)
        .assert()
        .success();
    for name in &expected {
        assert_eq!(
            std::fs::read(again.join(name)).expect("page"),
            std::fs::read(man.join(name)).expect("page"),
            "{name} differs between runs"
        );
    }
}

#[test]
fn an_output_that_cannot_take_the_pages_or_script_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").expect("write");
    common::aesop()
        .args(["generate", "man", "-o"])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("notes.txt: not a directory"));
    assert_eq!(std::fs::read_to_string(&file).expect("read"), "keep me");

    common::aesop()
        .args(["generate", "complete-zsh", "-o"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicates::str::contains("not a regular file"));

    common::aesop()
        .args(["generate", "complete-ksh"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("possible values"));
}
