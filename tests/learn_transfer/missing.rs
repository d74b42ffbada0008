//! Features without a value on any summary (reference features on a set without references) are
//! named, not silently learned; features turned off by options are not warned about.

use super::*;

/// [`write_set`] with `topics` topics as `dir/refs.jsonl`, and the same set without its
/// references as `dir/norefs.jsonl`.
fn write_set_with_and_without_references(
    dir: &Path,
    topics: usize,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let with_refs = dir.join("refs.jsonl");
    write_set(&with_refs, topics, 1.0);
    let mut set = jsonl::read_set(&with_refs).expect("read");
    for t in &mut set {
        t.references.clear();
    }
    let no_refs = dir.join("norefs.jsonl");
    let file = std::fs::File::create(&no_refs).expect("create");
    jsonl::write_set(std::io::BufWriter::new(file), &set).expect("write");
    (with_refs, no_refs)
}

/// A set without references gives the reference features no value on any summary: learning
/// only from them is an error naming the set and the way out, and a model that also has
/// reference-free features is trained with a warning naming the missing ones.
#[test]
fn features_without_a_value_on_any_summary_are_named_not_silently_learned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (with_refs, no_refs) = write_set_with_and_without_references(dir.path(), 5);

    // `train SET --classes CLASSES -o OUT`: whether it succeeded, and its stderr.
    let train = |set: &Path, classes: &str, out: &Path| {
        let output = common::run_train(
            set,
            &["--target", "quality", "--classes", classes, "--c", "0.01"],
            out,
        );
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.success(), stderr)
    };

    let only_rouge = dir.path().join("rouge.aesop");
    let (ok, stderr) = train(&no_refs, "rouge", &only_rouge);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("norefs.jsonl") && stderr.contains("none of the model's 12 features"),
        "{stderr}"
    );
    assert!(stderr.contains("--no-references"), "{stderr}");
    assert!(!only_rouge.exists(), "no model file from an error");

    let mixed = dir.path().join("mixed.aesop");
    let (ok, stderr) = train(&no_refs, "rouge,surface", &mixed);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("warning: ")
            && stderr.contains("12 of ")
            && stderr.contains("rouge.r1_recall"),
        "{stderr}"
    );
    assert!(mixed.exists());
    // With references the same classes train without a warning.
    let (ok, stderr) = train(&with_refs, "rouge,surface", &dir.path().join("refs.aesop"));
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("no value on any summary"), "{stderr}");
}

/// `--neural-references 0` turns the LM's reference features off. Their columns stay in the
/// model (missing, as in every model trained before), but `train` no longer warns on every run
/// that they teach nothing; the warning is left for features the data lacks, such as the same
/// reference features on a set without references.
#[test]
fn features_turned_off_by_options_get_no_missing_value_warning() {
    if !common::neural_model_or_skip("features_turned_off_by_options_get_no_missing_value_warning")
    {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (with_refs, no_refs) = write_set_with_and_without_references(dir.path(), 3);

    for (set, references, warned) in [(&with_refs, "0", false), (&no_refs, "1", true)] {
        let out = dir.path().join(format!("m{references}.aesop"));
        let output = common::aesop()
            .env_remove("AESOP_NEURAL_CACHE")
            .arg("train")
            .arg(set)
            .args(["--target", "quality", "--classes", "surface,neural"])
            .args(["--neural-references", references, "--c", "0.01", "-o"])
            .arg(&out)
            .output()
            .expect("train");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert_eq!(
            stderr.contains("no value on any summary") && stderr.contains("neural.ref_precision"),
            warned,
            "--neural-references {references}: {stderr}"
        );
        let model = ModelFile::load(&out).expect("model");
        let reference_columns = model
            .feature_names
            .iter()
            .filter(|n| n.starts_with("neural.ref_"))
            .count();
        assert_eq!(reference_columns, 3, "{:?}", model.feature_names);
    }
}

/// The same check for each base of a stacked model: a base learning only from reference
/// features on a set without references is an error naming the base (it trained a model that
/// fed its meta learner a constant, exit 0), and in `cross-validate` too.
#[test]
fn a_stack_base_without_a_value_on_any_summary_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, no_refs) = write_set_with_and_without_references(dir.path(), 5);
    for verb in ["train", "cross-validate"] {
        let out = common::aesop()
            .arg(verb)
            .arg(&no_refs)
            .args(["--target", "quality"])
            .args([
                "--stack",
                "words=quality:surface",
                "--stack",
                "overlap=quality:rouge",
            ])
            .arg("-o")
            .arg(dir.path().join(format!("{verb}.out")))
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{verb}: {stderr}");
        assert!(
            stderr.contains("(--stack base 'overlap'): none of the model's")
                && stderr.contains("the set has no references"),
            "{verb}: {stderr}"
        );
        assert!(!dir.path().join(format!("{verb}.out")).exists());
    }
}
