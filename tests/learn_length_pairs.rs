//! The length-matched ranking SVM (`--pair-length-tolerance SHARE`): which pairs it keeps, what
//! it learns that the ranker on every pair does not, its errors from the library and the CLI,
//! and the tolerance kept in the model file, the reports and the built-ins' recipes.

use crate::cli_verbs::imported_sample;
use crate::common;

use aesop::learn::learners::{
    fit_ranking, tolerance_percent, within_group_pairs, LengthBand, Ranking,
};
use aesop::learn::{
    train_anchored, Dataset, Fitted, Hyper, LearnerKind, ModelFile, RankerOptions, Rng,
};

/// `topics` × 8 summaries: four short (40-44 words), four long (90-99). Each has a quality q
/// (`f.q`) and its word count (`f.len`); the score is q, plus 3 for a long summary. Between
/// the two lengths the score follows length; among summaries of one length only q.
fn length_bound_problem(topics: usize, seed: u64) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut data = common::empty_dataset(&["f.len", "f.q"]);
    for t in 0..topics {
        for s in 0..8 {
            let long = s >= 4;
            let words = if long {
                90 + (rng.next_f64() * 10.0) as usize
            } else {
                40 + (rng.next_f64() * 5.0) as usize
            };
            let q = rng.next_f64() * 2.0 - 1.0;
            data.rows.push(vec![words as f64, q]);
            data.targets.push(q + if long { 3.0 } else { 0.0 });
            data.topics.push(format!("t{t}"));
            data.systems.push(format!("s{s}"));
            data.words.push(Some(words));
        }
    }
    data
}

fn weights(data: &Dataset, tolerance: Option<f64>) -> Vec<f64> {
    let model = train_anchored(
        data,
        LearnerKind::RankSvm,
        Some(Hyper::RankSvm { c: 1.0 }),
        1,
        RankerOptions {
            anchor: None,
            pair_length_tolerance: tolerance,
        },
    )
    .expect("fit");
    match model.fitted {
        Fitted::Linear(m) => m.weights,
        other => panic!("a linear model, not {other:?}"),
    }
}

#[test]
fn matched_length_pairs_are_those_within_the_tolerance() {
    let words = [100, 80, 79, 120, 0, 0];
    let band = LengthBand {
        words: &words,
        tolerance: 0.2,
    };
    // 100 against 80: 20 words apart, 20% of the longer one: kept; 79 is 21% away.
    assert!(band.matches(0, 1) && band.matches(1, 0));
    assert!(!band.matches(0, 2));
    // 120 against 100: 20 words, 16.7% of 120.
    assert!(band.matches(0, 3));
    // Two empty summaries are of one length.
    assert!(band.matches(4, 5));
    assert!(!band.matches(0, 4));
    assert_eq!(band.percent(), "20%");
    assert_eq!(tolerance_percent(0.125), "12.5%");
    // In one topic of three rows (scores 3, 2, 1 and 100, 80, 79 words) every pair differs in
    // score; only 100 against 80 and 80 against 79 are of matched length.
    let pairs = within_group_pairs(&[3.0, 2.0, 1.0], &[0, 0, 0]);
    let kept: Vec<(usize, usize)> = pairs
        .iter()
        .filter(|p| band.matches(p.better, p.worse))
        .map(|p| (p.better, p.worse))
        .collect();
    assert_eq!(pairs.len(), 3);
    assert_eq!(kept, vec![(0, 1), (1, 2)]);
}

#[test]
fn a_length_matched_ranker_learns_what_orders_summaries_beyond_length() {
    let data = length_bound_problem(30, 5);
    // On every pair, length explains most of the order: it outweighs the quality.
    let every = weights(&data, None);
    assert!(every[0] > every[1], "every pair: {every:?}");
    // Among pairs of matched length only the quality orders them; length's weight is noise.
    let matched = weights(&data, Some(0.2));
    assert!(matched[1] > 0.0, "matched: {matched:?}");
    assert!(
        matched[0].abs() < 0.2 * matched[1],
        "matched pairs still weigh length: {matched:?}"
    );
    // C chosen by inner cross-validation: its folds pair only summaries of matched length too.
    let chosen = train_anchored(
        &data,
        LearnerKind::RankSvm,
        None,
        1,
        RankerOptions {
            anchor: None,
            pair_length_tolerance: Some(0.2),
        },
    )
    .expect("fit with inner cross-validation");
    let Fitted::Linear(chosen) = chosen.fitted else {
        panic!("a linear model");
    };
    assert!(
        chosen.weights[0].abs() < 0.2 * chosen.weights[1],
        "inner cross-validation: {:?}",
        chosen.weights
    );
    // At a tolerance wide enough to join the two lengths (99 against 40 words), it is the
    // ranker on every pair again.
    let wide = weights(&data, Some(0.7));
    assert_eq!(wide, every);
}

#[test]
fn pairs_of_matched_length_need_word_counts_and_the_ranking_svm() {
    let mut data = length_bound_problem(4, 7);
    let options = RankerOptions {
        anchor: None,
        pair_length_tolerance: Some(0.2),
    };
    let hyper = Some(Hyper::RankSvm { c: 0.1 });
    // Rows built without their texts have no word counts.
    data.words.clear();
    let e = train_anchored(&data, LearnerKind::RankSvm, hyper, 1, options)
        .expect_err("no word counts")
        .to_string();
    assert!(
        e.contains("--pair-length-tolerance") && e.contains("word count"),
        "{e}"
    );
    // Word counts too far apart for any pair: the error says what was asked.
    data.words = (0..data.len()).map(|i| Some(10 * (i % 8 + 1))).collect();
    let e = train_anchored(
        &data,
        LearnerKind::RankSvm,
        hyper,
        1,
        RankerOptions {
            pair_length_tolerance: Some(0.05),
            ..options
        },
    )
    .expect_err("no matched pair")
    .to_string();
    assert!(
        e.contains("5%") && e.contains("--pair-length-tolerance"),
        "{e}"
    );
    // Only the ranking SVM has pairs.
    let words = vec![50; data.len()];
    let groups = data.topic_groups();
    let e = fit_ranking(
        LearnerKind::Ols,
        Hyper::None,
        &data.rows,
        &data.targets,
        &groups,
        1,
        Ranking {
            prior: None,
            band: Some(LengthBand {
                words: &words,
                tolerance: 0.2,
            }),
        },
    )
    .expect_err("ols has no pairs")
    .to_string();
    assert!(e.contains("rank-svm"), "{e}");
}

#[test]
fn the_cli_keeps_the_tolerance_in_the_model_and_its_reports() {
    use aesop::learn::model_file::{FORMAT_VERSION, FORMAT_VERSION_PAIRS};
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "set.jsonl");
    let model = dir.path().join("m.aesop");
    let args = [
        "--target",
        "coherence",
        "--classes",
        "surface,cohmetrix",
        "--c",
        "0.01",
        "--pair-length-tolerance",
        "0.3",
    ];
    let stderr = common::train(&set, &args, &model);
    assert!(stderr.contains("pairs within 30% in length"), "{stderr}");
    let file = ModelFile::load(&model).expect("load");
    assert_eq!(file.pair_length_tolerance, Some(0.3));
    assert_eq!(file.format_version(), FORMAT_VERSION);
    let card = common::aesop()
        .args(["models"])
        .arg(&model)
        .output()
        .expect("models");
    let card = String::from_utf8_lossy(&card.stdout).into_owned();
    assert!(
        card.contains("within 30% of the longer one's (`--pair-length-tolerance 0.3`)"),
        "{card}"
    );
    // Another model than the ranker on every pair.
    let plain = dir.path().join("plain.aesop");
    common::train(&set, &args[..6], &plain);
    let plain = ModelFile::load(&plain).expect("load");
    assert_eq!(plain.pair_length_tolerance, None);
    // Without the training summaries' identities (version 11), the tolerance alone asks for
    // version 10, which the model without it does not need.
    let (mut file_v10, mut plain_v10) = (ModelFile::load(&model).expect("load"), plain);
    file_v10.training_identities = None;
    plain_v10.training_identities = None;
    assert_eq!(file_v10.format_version(), FORMAT_VERSION_PAIRS);
    assert!(plain_v10.format_version() < FORMAT_VERSION_PAIRS);
    let plain = plain_v10;
    match (&plain.model.fitted, &file.model.fitted) {
        (Fitted::Linear(a), Fitted::Linear(b)) => assert_ne!(a.weights, b.weights),
        other => panic!("two linear models, not {other:?}"),
    }

    // cross-validate records it; `train --report` refuses a report of the other pairs.
    let report = dir.path().join("cv.json");
    common::aesop()
        .arg("cross-validate")
        .arg(&set)
        .args(args)
        .args(["--bootstrap", "0", "-o"])
        .arg(dir.path().join("oof.jsonl"))
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("json");
    assert_eq!(recorded["pair_length_tolerance"], 0.3);
    let out = common::run_train(
        &set,
        &[&args[..6], &["--report", report.to_str().expect("utf-8")]].concat(),
        &dir.path().join("mismatch.aesop"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("pair_length_tolerance") && stderr.contains("every pair"),
        "{stderr}"
    );

    // ablate says it under its table.
    let table = dir.path().join("ablate.md");
    common::aesop()
        .arg("ablate")
        .arg(&set)
        .args(args)
        .args(["--bootstrap", "0", "-o"])
        .arg(&table)
        .assert()
        .success();
    let table = std::fs::read_to_string(&table).expect("table");
    assert!(
        table.contains("within 30% of the longer one's (`--pair-length-tolerance 0.3`)"),
        "{table}"
    );

    // Usage errors, before any set is read: a share outside (0, 1), another learner.
    for bad in ["0", "1", "-0.2", "x"] {
        let out = common::run_train(
            &set,
            &["--target", "coherence", "--pair-length-tolerance", bad],
            &dir.path().join("bad.aesop"),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("above 0 and below 1"), "{bad}: {stderr}");
    }
    let out = common::run_train(
        &set,
        &[
            "--target",
            "coherence",
            "--learner",
            "ols",
            "--pair-length-tolerance",
            "0.2",
        ],
        &dir.path().join("ols.aesop"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("rank-svm"), "{stderr}");
    assert!(!dir.path().join("ols.aesop").exists());
}

#[test]
fn a_model_file_keeps_its_pair_length_tolerance_and_refuses_a_bad_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = imported_sample(dir.path(), "set.jsonl");
    let path = dir.path().join("m.aesop");
    common::train(
        &set,
        &[
            "--target",
            "coherence",
            "--classes",
            "surface",
            "--c",
            "0.01",
            "--pair-length-tolerance",
            "0.25",
        ],
        &path,
    );
    let mut file = ModelFile::load(&path).expect("load");
    let back = ModelFile::from_bytes(&file.to_bytes().expect("bytes"), "m.aesop").expect("load");
    assert_eq!(back.pair_length_tolerance, Some(0.25));
    // A tolerance no run could have given is a corrupt file, named.
    file.pair_length_tolerance = Some(1.5);
    let e = ModelFile::from_bytes(&file.to_bytes().expect("bytes"), "bad.aesop")
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("bad.aesop") && e.contains("pair length tolerance"),
        "{e}"
    );
}

#[test]
fn the_readability_builtins_bring_their_pairs_to_a_recipe() {
    use aesop::features::FeatureOptions;
    use aesop::learn::commands::LearnArgs;
    use aesop::learn::recipe::apply_recipe;
    for (name, tolerance) in [
        ("readability", Some(0.2)),
        ("readability-noref", Some(0.2)),
        ("readability-lm", Some(0.2)),
        ("readability-lm-noref", Some(0.2)),
        ("responsiveness", None),
        ("faithfulness", None),
    ] {
        let mut learn = LearnArgs::new("set.jsonl", "quality");
        learn.recipe = Some(name.to_string());
        apply_recipe(&mut learn, &mut FeatureOptions::default()).expect("recipe");
        assert_eq!(learn.hyper.pair_length_tolerance, tolerance, "{name}");
    }
    // The flag beside --recipe would change the recipe: refused, named.
    let mut learn = LearnArgs::new("set.jsonl", "quality");
    learn.recipe = Some("responsiveness".into());
    learn.hyper.pair_length_tolerance = Some(0.2);
    let e = apply_recipe(&mut learn, &mut FeatureOptions::default())
        .expect_err("refused")
        .to_string();
    assert!(e.contains("--pair-length-tolerance"), "{e}");
}
