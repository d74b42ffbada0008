//! One corpus judged on several columns (`--set a.jsonl:coherence --set a.jsonl:fluency`): its
//! rows share their folds under protocol 1, are held out together under protocol 2, and keep
//! their ranking pairs within one column.

use super::*;

/// `write_set`'s set with a second column, `other`, that orders the summaries of odd topics
/// otherwise than `quality` does.
fn write_set_with_two_columns(path: &Path, topics: usize) {
    write_set(path, topics, 1.0);
    let mut set = jsonl::read_set(path).expect("read");
    for (t, topic) in set.iter_mut().enumerate() {
        for (s, summary) in topic.summaries.iter_mut().enumerate() {
            let quality = summary.scores["quality"];
            let other = if t % 2 == 1 { 6.0 - s as f64 } else { quality };
            summary.scores.insert("other".into(), other);
        }
    }
    let file = std::fs::File::create(path).expect("create set");
    jsonl::write_set(std::io::BufWriter::new(file), &set).expect("write set");
}

/// Raw predictions by (set, topic, system) from an out-of-fold file.
fn raw_by_row(path: &Path) -> std::collections::BTreeMap<(String, String, String), f64> {
    std::fs::read_to_string(path)
        .expect("read predictions")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("json line");
            let field = |k: &str| v[k].as_str().expect("string field").to_string();
            (
                (field("set"), field("topic"), field("system")),
                v["raw"].as_f64().expect("raw"),
            )
        })
        .collect()
}

fn cross_validate(sets: &[String], extra: &[&str], out: &Path) -> std::process::Output {
    let mut cmd = common::aesop();
    cmd.arg("cross-validate");
    for set in sets {
        cmd.arg("--set").arg(set);
    }
    cmd.args(["--classes", "surface", "--bootstrap", "0"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .output()
        .expect("cross-validate")
}

/// Protocol 1 deals a corpus's topics and systems to folds once: each summary's rows under both
/// columns fall in one cell, so one model scores both (dealt per column, as sets of their own
/// are, a summary could be tested under one column by a model trained on it under the other).
/// The same with C chosen by inner cross-validation, whose folds keep the columns together too.
#[test]
fn one_corpus_judged_on_two_columns_shares_its_folds_under_protocol_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    write_set_with_two_columns(&a, 8);
    let sets = [
        format!("{}:quality", a.display()),
        format!("{}:other", a.display()),
    ];
    for extra in [
        &["--target", "quality", "--c", "0.01"][..],
        &["--target", "quality"][..],
    ] {
        let oof = dir.path().join("oof.jsonl");
        let out = cross_validate(&sets, extra, &oof);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains("are one corpus judged on two columns"),
            "{stderr}"
        );
        // The corpus's topics and systems are counted once.
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("(80 rows, 8 topics, 5 systems"), "{stdout}");
        let raw = raw_by_row(&oof);
        // The lines name the set with its column, so evaluate can tell them apart.
        let of = |set: &str| raw.keys().filter(|k| k.0 == set).count();
        assert_eq!(of("a.jsonl:quality"), 40);
        assert_eq!(of("a.jsonl:other"), 40);
        for ((set, topic, system), value) in &raw {
            if set == "a.jsonl:quality" {
                let key = ("a.jsonl:other".to_string(), topic.clone(), system.clone());
                assert_eq!(Some(value), raw.get(&key), "{topic}/{system} {extra:?}");
            }
        }
    }
}

/// Protocol 2 holds a corpus out with all its columns: each of its sets is scored by a model of
/// the other corpora only, the same model `train` on them saves; a run with no other corpus is
/// an error that says why.
#[test]
fn a_corpus_of_several_columns_is_held_out_whole_under_protocol_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    write_set_with_two_columns(&a, 6);
    let b = dir.path().join("b.jsonl");
    write_set(&b, 5, 2.0);
    let sets = [
        format!("{}:quality", a.display()),
        format!("{}:other", a.display()),
        format!("{}:quality", b.display()),
    ];
    let oof = dir.path().join("loso.jsonl");
    let report = dir.path().join("loso.json");
    let out = cross_validate(
        &sets,
        &[
            "--c",
            "0.01",
            "--target",
            "quality",
            "--leave-one-set-out",
            "--report",
            report.to_str().expect("utf-8 path"),
        ],
        &oof,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = common::read_json(&report);
    let held = json["leave_one_set_out"].as_array().expect("held-out sets");
    let trained_on = |set: &str, column: &str| -> Vec<String> {
        let h = held
            .iter()
            .find(|h| h["set"] == set && h["column"] == column)
            .unwrap_or_else(|| panic!("{set}:{column} held out: {json}"));
        h["trained_on"]
            .as_array()
            .expect("trained_on")
            .iter()
            .map(|t| t.as_str().expect("name").to_string())
            .collect()
    };
    assert_eq!(trained_on("a.jsonl", "quality"), ["b.jsonl:quality"]);
    assert_eq!(trained_on("a.jsonl", "other"), ["b.jsonl:quality"]);
    assert_eq!(
        trained_on("b.jsonl", "quality"),
        ["a.jsonl:quality", "a.jsonl:other"]
    );

    // a's held-out predictions are those of the model trained on b alone.
    let model = dir.path().join("b.model");
    common::train(
        &b,
        &["--target", "quality", "--classes", "surface", "--c", "0.01"],
        &model,
    );
    let scored = dir.path().join("a.scores.jsonl");
    common::stdout_of_success(
        common::aesop()
            .arg("score")
            .arg(&a)
            .arg("--model")
            .arg(&model)
            .arg("-o")
            .arg(&scored)
            .output()
            .expect("score"),
    );
    let loso = raw_by_row(&oof);
    let mut compared = 0;
    for line in std::fs::read_to_string(&scored).expect("scores").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json line");
        let (topic, system) = (
            v["topic"].as_str().expect("topic"),
            v["system"].as_str().expect("system"),
        );
        let saved = v["raw"].as_f64().expect("raw");
        for column in ["quality", "other"] {
            let key = (
                format!("a.jsonl:{column}"),
                topic.to_string(),
                system.to_string(),
            );
            let held_out = loso[&key];
            assert!(
                (held_out - saved).abs() < 1e-9,
                "{key:?}: {held_out} against {saved}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 60);

    // One corpus alone has nothing to be held out from.
    let out = cross_validate(
        &sets[..2],
        &["--c", "0.01", "--target", "quality", "--leave-one-set-out"],
        &dir.path().join("alone.jsonl"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("has no other corpus to train on"),
        "{stderr}"
    );
    assert!(!dir.path().join("alone.jsonl").exists());
}

/// Pooling: the rows of one summary under two columns of a corpus get one fold group and two
/// pair groups; with equal set weights the repeats of a row keep its fold group, so the inner
/// folds that choose C never test a row on a model that learned its copy.
#[test]
fn pooled_rows_of_one_summary_share_a_fold_group_and_copies_keep_theirs() {
    let set = |column: &str, corpus: &str, topics: usize| SetData {
        spec: SetSpec::new(format!("{corpus}.jsonl"), column),
        data: Dataset {
            names: vec!["f.x".into()],
            rows: (0..topics * 3).map(|i| vec![i as f64]).collect(),
            targets: (0..topics * 3).map(|i| (i % 3) as f64).collect(),
            topics: (0..topics * 3).map(|i| format!("t{}", i / 3)).collect(),
            systems: (0..topics * 3).map(|i| format!("s{}", i % 3)).collect(),
            words: Vec::new(),
            fold_topics: Vec::new(),
            fold_systems: Vec::new(),
        },
        corpus: corpus.to_string(),
    };
    let sets = [
        set("coherence", "a", 4),
        set("fluency", "a", 4),
        set("quality", "b", 2),
    ];
    let pooled = pool(&sets, &[0, 1, 2], PoolOptions::default()).expect("pool");
    let (pairs, folds) = (pooled.data.topic_groups(), pooled.data.fold_groups());
    for i in 0..12 {
        assert_ne!(
            pairs[i],
            pairs[12 + i],
            "row {i}: pairs stay within a column"
        );
        assert_eq!(
            folds[i],
            folds[12 + i],
            "row {i}: one fold group per summary"
        );
    }
    let b_folds: std::collections::BTreeSet<usize> = folds[24..].iter().copied().collect();
    assert!(
        b_folds.iter().all(|g| !folds[..24].contains(g)),
        "{folds:?}"
    );
    // Without a corpus of several columns the folds are dealt by the topic labels themselves.
    let apart = pool(&sets, &[0, 2], PoolOptions::default()).expect("pool");
    assert!(apart.data.fold_topics.is_empty());
    assert_eq!(apart.data.fold_groups(), apart.data.topic_groups());

    // Equal set weights repeat b's rows twice: new pair groups, the original's fold group.
    let options = PoolOptions {
        equal_set_weights: true,
        ..PoolOptions::default()
    };
    let training = pool(&sets, &[0, 2], options).expect("pool").for_training();
    assert_eq!(training.len(), 12 + 12);
    let (pairs, folds) = (training.topic_groups(), training.fold_groups());
    let mut pair_groups_of_b = std::collections::BTreeSet::new();
    let mut fold_groups_of_b = std::collections::BTreeSet::new();
    for i in 0..training.len() {
        if training.topics[i].starts_with("b.jsonl:quality/") {
            pair_groups_of_b.insert(pairs[i]);
            fold_groups_of_b.insert(folds[i]);
        }
    }
    assert_eq!(
        pair_groups_of_b.len(),
        4,
        "two topics, each with its repeat"
    );
    assert_eq!(
        fold_groups_of_b.len(),
        2,
        "the repeats fold with their topic"
    );
}
