//! Several judgment sets in one training: `--set PATH:COLUMN` parsing and its errors, pairs that
//! never cross topics or sets, per-set target scaling, sets holding the same summaries refused,
//! figures independent of the sets' order.

use super::*;

fn set_data(name: &str, column: &str, topics: &[&str], targets: &[f64]) -> SetData {
    SetData {
        spec: SetSpec::new(name, column),
        data: Dataset {
            names: vec!["f.x".into()],
            rows: targets.iter().map(|&t| vec![t]).collect(),
            targets: targets.to_vec(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
            systems: (0..targets.len()).map(|i| format!("s{i}")).collect(),
            words: Vec::new(),
            fold_topics: Vec::new(),
            fold_systems: Vec::new(),
        },
        corpus: name.to_string(),
    }
}

#[test]
fn a_file_named_with_a_colon_and_no_column_is_said_to_lack_its_column() {
    // Split at its last ':', `a:b.jsonl` read as the set `a` and the column `b.jsonl`, and the
    // run failed with "a: cannot open".
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("a:b.jsonl");
    std::fs::write(&file, "").expect("write");
    let text = file.to_str().expect("utf-8 path");
    let err = parse_set_spec(text).expect_err("no column");
    assert!(err.contains("names no column"), "{err}");
    assert_eq!(
        parse_set_spec(format!("{text}:relevance")),
        Ok(SetSpec::new(&file, "relevance"))
    );
}

#[test]
fn set_flags_parse_and_a_missing_column_names_file_and_column() {
    assert_eq!(
        parse_set_spec("data/summeval.jsonl:relevance"),
        Ok(SetSpec::new("data/summeval.jsonl", "relevance"))
    );
    let e = parse_set_spec("summeval.jsonl").expect_err("no column");
    assert!(e.contains("PATH:COLUMN"), "{e}");

    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    write_set(&a, 4, 1.0);
    write_set(&b, 4, 0.1);
    let mut learn = LearnArgs::new(&a, "quality");
    learn.classes = vec!["surface".into()];
    learn.transfer.sets = vec![SetSpec::new(&b, "informativeness")];
    let err = common::train_in_process(learn, &dir.path().join("m.aesop"))
        .expect_err("b has no informativeness");
    let text = format!("{err:#}");
    assert!(
        text.contains("b.jsonl") && text.contains("informativeness"),
        "{text}"
    );

    // Through the command line: a --set without a column is refused by name.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_aesop"))
        .args(["train", "--set"])
        .arg(&a)
        .args(["-o"])
        .arg(dir.path().join("m.aesop"))
        .output()
        .expect("run aesop");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("PATH:COLUMN"));
}

#[test]
fn pooled_pairs_never_cross_topics_or_sets() {
    // Both sets use the topic names t1 and t2.
    let a = set_data(
        "a.jsonl",
        "y",
        &["t1", "t1", "t2", "t2"],
        &[1.0, 2.0, 3.0, 4.0],
    );
    let b = set_data("b.jsonl", "y", &["t1", "t1", "t2"], &[0.1, 0.5, 0.9]);
    let pooled = pool(&[a.clone(), b.clone()], &[0, 1], PoolOptions::default()).expect("pool");
    let original = |i: usize| {
        if pooled.set_of_row[i] == 0 {
            a.data.topics[i].clone()
        } else {
            b.data.topics[i - 4].clone()
        }
    };
    let pairs = within_group_pairs(&pooled.data.targets, &pooled.data.topic_groups());
    assert_eq!(pairs.len(), 3, "t1 and t2 of a, t1 of b");
    for p in &pairs {
        assert_eq!(pooled.set_of_row[p.better], pooled.set_of_row[p.worse]);
        assert_eq!(original(p.better), original(p.worse));
    }
    // With equal set weights the smaller set is repeated as new topics: still no crossing.
    let weighted = pool(
        &[a, b],
        &[0, 1],
        PoolOptions {
            equal_set_weights: true,
            ..PoolOptions::default()
        },
    )
    .expect("pool");
    let training = weighted.for_training();
    assert!(training.len() >= 7);
    let sets_of: Vec<&str> = training
        .topics
        .iter()
        .map(|t| t.split('/').next().unwrap_or(""))
        .collect();
    for p in within_group_pairs(&training.targets, &training.topic_groups()) {
        assert_eq!(sets_of[p.better], sets_of[p.worse]);
    }
}

#[test]
fn targets_are_standardized_per_set_when_sets_are_pooled() {
    let a = set_data("a.jsonl", "y", &["t", "t", "t"], &[1.0, 3.0, 5.0]);
    let b = set_data("b.jsonl", "y", &["t", "t"], &[0.2, 0.4]);
    let pooled = pool(&[a.clone(), b], &[0, 1], PoolOptions::default()).expect("pool");
    let root = (1.5f64).sqrt(); // population sd of 1, 3, 5 is √(8/3); z = ±2/√(8/3) = ±√1.5
    let expected = [-root, 0.0, root, -1.0, 1.0];
    for (got, want) in pooled.data.targets.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{:?}", pooled.data.targets);
    }
    assert_eq!(pooled.original_targets, vec![1.0, 3.0, 5.0, 0.2, 0.4]);
    // One set alone keeps its scale (the behaviour before several sets).
    let alone = pool(&[a], &[0], PoolOptions::default()).expect("pool");
    assert_eq!(alone.data.targets, vec![1.0, 3.0, 5.0]);
    assert_eq!(alone.data.topics, vec!["t", "t", "t"]);
}

/// Leave-one-set-out figures do not depend on the order of `--set` (2026-11-28: inner
/// cross-validation numbered topics by first appearance and labelled them by the set's
/// position, so `--set a --set b --set c` and `--set c --set b --set a` chose different C and
/// held out b at τ .381 and .385).
#[test]
fn held_out_figures_do_not_depend_on_the_order_of_the_sets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let text = std::fs::read_to_string(&sample).expect("sample");
    let topics: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("topic"))
        .collect();
    let write = |name: &str, range: std::ops::Range<usize>, prefix: &str| {
        let lines: Vec<String> = topics[range]
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t["topic"] = format!("{prefix}{}", t["topic"].as_str().expect("id")).into();
                t.to_string()
            })
            .collect();
        let path = dir.path().join(name);
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        path
    };
    let a = format!("{}:relevance", write("a.jsonl", 0..5, "").display());
    let b = format!("{}:relevance", write("b.jsonl", 5..10, "").display());
    let c = format!("{}:coherence", write("c.jsonl", 7..10, "c-").display());
    let held_out = |order: [&String; 3]| -> Vec<(String, f64)> {
        let report = dir.path().join("report.json");
        let mut command = common::aesop();
        command.arg("cross-validate");
        for set in order {
            command.arg("--set").arg(set);
        }
        command
            .args([
                "--target",
                "relevance",
                "--classes",
                "content,rouge,surface",
            ])
            .args(["--leave-one-set-out", "--bootstrap", "0", "-o"])
            .arg(dir.path().join("oof.jsonl"))
            .arg("--report")
            .arg(&report)
            .assert()
            .success();
        let json: serde_json::Value = common::read_json(&report);
        let mut taus: Vec<(String, f64)> = json["leave_one_set_out"]
            .as_array()
            .expect("held out")
            .iter()
            .map(|h| {
                (
                    h["set"].as_str().expect("set").to_string(),
                    h["model"]["summary_kendall"]["value"]
                        .as_f64()
                        .expect("tau"),
                )
            })
            .collect();
        taus.sort_by(|x, y| x.0.cmp(&y.0));
        taus
    };
    let forward = held_out([&a, &b, &c]);
    assert_eq!(forward.len(), 3);
    assert_eq!(forward, held_out([&c, &b, &a]));
    assert_eq!(forward, held_out([&b, &a, &c]));
}

#[test]
fn sets_holding_the_same_summaries_are_refused_where_they_would_inflate_figures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    write_set(&a, 4, 1.0);
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&a, &copy).expect("copy");
    // A gzipped copy is the same set: content hashes are of the text the verbs read.
    let gzipped = dir.path().join("gzipped.jsonl.gz");
    std::fs::write(&gzipped, common::gzip(&std::fs::read(&a).expect("read"))).expect("write");
    // The first two topics of `a` (10 summaries), with another column's scale.
    let part = dir.path().join("part.jsonl");
    let text = std::fs::read_to_string(&a).expect("read");
    let head: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(&part, head.join("\n") + "\n").expect("write");
    let spec = |p: &Path| format!("{}:quality", p.display());
    let run = |verb: &str, sets: &[&Path], extra: &[&str]| {
        let mut command = common::aesop();
        command.arg(verb);
        for set in sets {
            command.arg("--set").arg(spec(set));
        }
        command
            .args(["--classes", "surface,content"])
            .args(if verb == "train" {
                &[][..]
            } else {
                &["--bootstrap", "0"][..]
            })
            .args(extra)
            .arg("-o")
            .arg(dir.path().join(format!("{verb}.out")))
            .output()
            .expect("run")
    };
    let stderr = |out: &std::process::Output| String::from_utf8_lossy(&out.stderr).into_owned();

    // Protocol 1 and 2 would test what they trained on: refused, naming both sets.
    for (sets, extra, says) in [
        (
            vec![&*a, &*a],
            vec![],
            "are the same set (identical content)",
        ),
        (
            vec![&*a, &*copy],
            vec!["--leave-one-set-out"],
            "are the same set (identical content)",
        ),
        (
            vec![&*a, &*gzipped],
            vec!["--leave-one-set-out"],
            "are the same set (identical content)",
        ),
        (vec![&*a, &*part], vec![], "share 10 summaries"),
    ] {
        let out = run("cross-validate", &sets, &extra);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(stderr(&out).contains(&spec(&a)), "{}", stderr(&out));
        assert!(!dir.path().join("cross-validate.out").exists());
    }
    let out = run("ablate", &[&a, &part], &["--target", "quality"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("share 10 summaries"),
        "{}",
        stderr(&out)
    );

    // Training: one set twice with its column is refused; a partial overlap only counts twice.
    let out = run("train", &[&a, &copy], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("every summary would count twice"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("train.out").exists());
    let out = run("train", &[&a, &part], &["--target", "quality"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: ")
            && stderr(&out)
                .contains("share 10 summaries (same topic id and text; e.g. topic 'a-t0')"),
        "{}",
        stderr(&out)
    );
    // Sets of their own topics pass without a word.
    let b = dir.path().join("b.jsonl");
    write_set(&b, 4, 2.0);
    let out = run("cross-validate", &[&a, &b], &["--leave-one-set-out"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("share"), "{}", stderr(&out));
}
