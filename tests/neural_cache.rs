//! `AESOP_NEURAL_CACHE` (docs/NEURAL.md, "Features"): an edited, nulled or torn entry is
//! recomputed with a warning naming it, never read as features; a cache that cannot be used is
//! named once and the run goes on; no temporary file is left. Also `AESOP_NEURAL_BATCH_TOKENS`,
//! whose error names the variable alone. Needs `aesop models fetch smollm2` (skips with a
//! notice without it, unless AESOP_REQUIRE_MODELS=1).

use crate::common;
use std::path::Path;

/// One small topic: the LM work stays a few seconds.
const SET: &str = r#"{"topic":"t1","documents":[{"id":"d","text":"The city council approved a new budget on Monday. It raises spending on schools."}],"summaries":[{"system":"a","text":"The council approved a budget."},{"system":"b","text":"Schools get more money."}]}"#;

/// `aesop features SET --classes neural --neural-references 0` with `env`; (status, CSV, stderr).
fn features(dir: &Path, env: &[(&str, &Path)]) -> (Option<i32>, String, String) {
    common::reference_free_lm_features(dir, SET, env)
}

/// The one entry of `cache`.
fn entry(cache: &Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(cache)
        .expect("cache dir")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn a_corrupt_cache_entry_is_recomputed_with_a_warning() {
    if !common::neural_model_or_skip("a_corrupt_cache_entry_is_recomputed_with_a_warning") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let env = [("AESOP_NEURAL_CACHE", cache.as_path())];
    let (code, cold, err) = features(dir.path(), &env);
    assert_eq!(code, Some(0), "{err}");
    let file = entry(&cache);
    let good = std::fs::read_to_string(&file).expect("entry");
    let mut edited: serde_json::Value = serde_json::from_str(&good).expect("JSON entry");
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 3] = [
        ("a value set to 99", |rows| rows[0][0] = 99.0.into()),
        ("every value nulled", |rows| {
            for row in rows.as_array_mut().expect("rows") {
                for v in row.as_array_mut().expect("row") {
                    *v = serde_json::Value::Null;
                }
            }
        }),
        ("the last value set to -5", |rows| {
            let last = rows[0].as_array().expect("row").len() - 1;
            rows[0][last] = (-5.0).into();
        }),
    ];
    for (what, edit) in edits {
        edit(&mut edited["rows"]);
        std::fs::write(&file, edited.to_string()).expect("edit");
        let (code, csv, err) = features(dir.path(), &env);
        assert_eq!(code, Some(0), "{what}: {err}");
        assert_eq!(csv, cold, "{what}: the edited entry was read");
        assert!(
            err.contains("AESOP_NEURAL_CACHE entry") && err.contains(&file.display().to_string()),
            "{what}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(&file).expect("entry"),
            good,
            "{what}: not rewritten"
        );
        edited = serde_json::from_str(&good).expect("JSON entry");
    }
    // A torn entry, and an entry of another topic under this one's name.
    for (what, text) in [
        ("torn", good[..good.len() / 2].to_string()),
        ("another key", good.replacen("\"key\":\"", "\"key\":\"0", 1)),
    ] {
        std::fs::write(&file, text).expect("edit");
        let (code, csv, err) = features(dir.path(), &env);
        assert_eq!(code, Some(0), "{what}: {err}");
        assert_eq!(csv, cold, "{what}");
        assert!(err.contains("recomputing it"), "{what}: {err}");
    }
    // The intact entry is read without a word.
    let (code, warm, err) = features(dir.path(), &env);
    assert_eq!((code, warm), (Some(0), cold));
    assert!(!err.contains("AESOP_NEURAL_CACHE"), "{err}");
}

#[test]
fn an_unusable_cache_is_named_and_the_run_goes_on() {
    if !common::neural_model_or_skip("an_unusable_cache_is_named_and_the_run_goes_on") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // A regular file where the directory should be.
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").expect("file");
    let (code, csv, err) = features(dir.path(), &[("AESOP_NEURAL_CACHE", file.as_path())]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert_eq!(
        err.matches("AESOP_NEURAL_CACHE=").count(),
        1,
        "said once: {err}"
    );
    assert!(
        err.contains(&file.display().to_string())
            && err.contains("not a directory")
            && err.contains("without the cache"),
        "{err}"
    );
    // An entry's name taken by a directory: said, and no temporary file left.
    let cache = dir.path().join("cache");
    let env = [("AESOP_NEURAL_CACHE", cache.as_path())];
    let (code, cold, err) = features(dir.path(), &env);
    assert_eq!(code, Some(0), "{err}");
    let name = entry(&cache);
    std::fs::remove_file(&name).expect("remove entry");
    std::fs::create_dir(&name).expect("a directory in its place");
    let (code, csv, err) = features(dir.path(), &env);
    assert_eq!((code, csv), (Some(0), cold), "{err}");
    assert!(err.contains(&name.display().to_string()), "{err}");
    assert_eq!(entry(&cache), name, "a temporary file was left");
}

#[test]
fn a_bad_batch_size_names_only_the_variable() {
    if !common::neural_model_or_skip("a_bad_batch_size_names_only_the_variable") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for bad in ["0", "abc"] {
        let value = Path::new(bad);
        let (code, csv, err) = features(dir.path(), &[("AESOP_NEURAL_BATCH_TOKENS", value)]);
        assert_eq!(code, Some(1), "{bad}: {err}");
        assert!(csv.is_empty(), "{bad}: output written");
        assert!(
            err.contains(&format!("AESOP_NEURAL_BATCH_TOKENS is '{bad}'")),
            "{bad}: {err}"
        );
        assert!(!err.contains("model file"), "{bad}: {err}");
    }
}
