//! The anchored ranking SVM (`--anchor FEATURE`): the dual solver with its penalty centred on a
//! prior, by hand; the prior's sign and scale; a ranker that starts as its anchor and moves
//! away from it as C grows; and the errors of a bad anchor, from the library and the CLI.

use crate::cli_verbs::imported_sample;
use crate::common;

use aesop::learn::cv::summary_level_tau;
use aesop::learn::learners::{rank_svm_dual_cd, rank_svm_dual_cd_from, Pair};
use aesop::learn::{anchor_prior, train_anchored, Dataset, Hyper, LearnerKind, RankerOptions, Rng};

fn anchored_on(name: &str) -> RankerOptions<'_> {
    RankerOptions {
        anchor: Some(name),
        ..Default::default()
    }
}

fn uniform(rng: &mut Rng) -> f64 {
    rng.next_f64() * 2.0 - 1.0
}

/// `topics` × 8 rows of two features; y = a − 2b, so `f.b` alone orders the rows in reverse.
fn two_feature_problem(topics: usize, seed: u64) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut data = common::empty_dataset(&["f.a", "f.b"]);
    for t in 0..topics {
        for s in 0..8 {
            let (a, b) = (uniform(&mut rng), uniform(&mut rng));
            data.rows.push(vec![a, b]);
            data.targets.push(a - 2.0 * b);
            data.topics.push(format!("t{t}"));
            data.systems.push(format!("s{s}"));
        }
    }
    data
}

#[test]
fn anchored_dual_matches_hand_solution() {
    // One pair with z = (1, 0) and the prior w₀ = (½, 0):
    // min ½(w₁ − ½)² + ½w₂² + C·max(0, 1 − w₁) gives w₂ = 0, w₁ = min(1, ½ + C), α = w₁ − ½.
    let rows = vec![vec![1.0, 0.0], vec![0.0, 0.0]];
    let pairs = [Pair {
        better: 0,
        worse: 1,
    }];
    for (c, w1, alpha) in [(0.1, 0.6, 0.1), (0.3, 0.8, 0.3), (10.0, 1.0, 0.5)] {
        let fit = rank_svm_dual_cd_from(&rows, &pairs, c, 1e-12, 10_000, 1, &[0.5, 0.0]);
        assert!(fit.converged, "C={c}");
        assert!(
            (fit.weights[0] - w1).abs() < 1e-9,
            "C={c}: {:?}",
            fit.weights
        );
        assert_eq!(fit.weights[1], 0.0, "C={c}");
        assert!(
            (fit.alpha[0] - alpha).abs() < 1e-9,
            "C={c}: {:?}",
            fit.alpha
        );
    }
    // A prior that already clears the margin is left alone: α = 0.
    let fit = rank_svm_dual_cd_from(&rows, &pairs, 1.0, 1e-12, 10_000, 1, &[2.0, 0.0]);
    assert_eq!(fit.weights, vec![2.0, 0.0]);
    assert_eq!(fit.alpha, vec![0.0]);
    // No prior is the plain solver.
    let plain = rank_svm_dual_cd(&rows, &pairs, 0.3, 1e-12, 10_000, 1);
    let empty = rank_svm_dual_cd_from(&rows, &pairs, 0.3, 1e-12, 10_000, 1, &[]);
    assert_eq!(plain, empty);
}

#[test]
fn prior_is_the_anchor_alone_signed_by_the_training_pairs() {
    let data = two_feature_problem(6, 3);
    let groups = data.topic_groups();
    // f.b orders the pairs in reverse (y = a − 2b): a negative weight of 1 / sd.
    let prior = anchor_prior(
        LearnerKind::RankSvm,
        "f.b",
        &data.names,
        &data.rows,
        &data.targets,
        &groups,
    )
    .expect("prior");
    let column: Vec<f64> = data.rows.iter().map(|r| r[1]).collect();
    let mean = column.iter().sum::<f64>() / column.len() as f64;
    let sd = (column.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / column.len() as f64).sqrt();
    assert_eq!(prior[0], 0.0);
    assert!((prior[1] + 1.0 / sd).abs() < 1e-12, "{prior:?}");
    let prior_a = anchor_prior(
        LearnerKind::RankSvm,
        "f.a",
        &data.names,
        &data.rows,
        &data.targets,
        &groups,
    )
    .expect("prior");
    assert!(prior_a[0] > 0.0 && prior_a[1] == 0.0, "{prior_a:?}");
}

#[test]
fn an_anchored_ranker_starts_as_its_anchor_and_moves_with_c() {
    let data = two_feature_problem(20, 5);
    let test = two_feature_problem(10, 6);
    let anchor_only: Vec<f64> = test.rows.iter().map(|r| -r[1]).collect();
    let anchor_tau = summary_level_tau(&anchor_only, &test.targets, &test.topics);
    assert!(
        anchor_tau < 0.95,
        "the anchor alone is imperfect: {anchor_tau}"
    );
    let tau_at = |c: f64| {
        let model = train_anchored(
            &data,
            LearnerKind::RankSvm,
            Some(Hyper::RankSvm { c }),
            1,
            anchored_on("f.b"),
        )
        .expect("fit");
        let pred = model.predict(&test.rows).expect("predict");
        (
            summary_level_tau(&pred, &anchor_only, &test.topics),
            summary_level_tau(&pred, &test.targets, &test.topics),
        )
    };
    // At a tiny C the model is its anchor: the same order as −f.b on unseen rows.
    let (with_anchor, _) = tau_at(1e-9);
    assert!(
        (with_anchor - 1.0).abs() < 1e-12,
        "τ with the anchor {with_anchor}"
    );
    // At a large C the other feature moves it: it orders the targets better than the anchor.
    let (_, with_targets) = tau_at(10.0);
    assert!(
        with_targets > anchor_tau + 0.05,
        "τ {with_targets} against the anchor's {anchor_tau}"
    );
    // Inner cross-validation (no C given) fits with the same prior and still runs.
    let chosen =
        train_anchored(&data, LearnerKind::RankSvm, None, 1, anchored_on("f.b")).expect("fit");
    assert!(matches!(chosen.hyper, Hyper::RankSvm { .. }));
}

#[test]
fn a_bad_anchor_is_an_error_naming_it() {
    let mut data = two_feature_problem(4, 7);
    let groups = data.topic_groups();
    let err = |learner, name: &str, data: &Dataset| {
        anchor_prior(
            learner,
            name,
            &data.names,
            &data.rows,
            &data.targets,
            &groups,
        )
        .expect_err("refused")
        .to_string()
    };
    let e = err(LearnerKind::Ols, "f.a", &data);
    assert!(e.contains("--anchor f.a") && e.contains("rank-svm"), "{e}");
    let e = err(LearnerKind::RankSvm, "f.nosuch", &data);
    assert!(
        e.contains("--anchor f.nosuch") && e.contains("no such feature"),
        "{e}"
    );
    for row in &mut data.rows {
        row[0] = 3.0;
    }
    let e = err(LearnerKind::RankSvm, "f.a", &data);
    assert!(e.contains("--anchor f.a") && e.contains("constant"), "{e}");
}

#[test]
fn the_cli_refuses_a_bad_anchor_before_computing_features() {
    let dir = tempfile::tempdir().expect("dir");
    let set = imported_sample(dir.path(), "sample.jsonl");
    let output = dir.path().join("out");
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "cross-validate",
            &["--classes", "surface", "--anchor", "content.js"],
            "--anchor content.js: not among the model's",
        ),
        (
            "train",
            &[
                "--classes",
                "content",
                "--learner",
                "ols",
                "--anchor",
                "content.js",
            ],
            "--anchor content.js: an anchor needs the rank-svm learner, not ols",
        ),
        (
            "train",
            &[
                "--classes",
                "content",
                "--features",
                "content.kl_input_summary",
                "--anchor",
                "content.js",
            ],
            "--features must keep it",
        ),
        (
            "ablate",
            &["--classes", "content,surface", "--anchor", "rouge.r1_r"],
            "--anchor rouge.r1_r: not among the model's",
        ),
    ];
    for (verb, flags, message) in cases {
        let out = common::aesop()
            .arg(verb)
            .arg(&set)
            .args(["--target", "relevance"])
            .args(flags)
            .arg("-o")
            .arg(&output)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A usage error (exit 2): found from the flags, before any set is read.
        assert_eq!(out.status.code(), Some(2), "{verb} {flags:?}: {stderr}");
        assert!(stderr.contains(message), "{verb} {flags:?}: {stderr}");
        assert!(
            !stderr.contains("features: "),
            "no features computed: {stderr}"
        );
        assert!(!output.exists());
    }
    // A good anchor trains, and says so.
    let model = dir.path().join("m.aesop");
    let stderr = common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--classes",
            "content,surface",
            "--anchor",
            "content.js",
            "--c",
            "0.001",
        ],
        &model,
    );
    assert!(stderr.contains("anchored on content.js"), "{stderr}");
    assert!(model.exists());
}

fn anchored_file(data: &Dataset, anchor: &str) -> aesop::learn::ModelFile {
    use aesop::features::FeatureOptions;
    use aesop::learn::model_file::TrainingSet;
    aesop::learn::ModelFile {
        target: "relevance".into(),
        classes: vec!["f".into()],
        feature_names: data.names.clone(),
        feature_options: (&FeatureOptions::default()).into(),
        reference_free: true,
        model: train_anchored(
            data,
            LearnerKind::RankSvm,
            Some(Hyper::RankSvm { c: 0.01 }),
            1,
            anchored_on("f.b"),
        )
        .expect("fit"),
        training: TrainingSet {
            name: "synthetic.jsonl".into(),
            content_hash: "0".into(),
            topics: 6,
            summaries: data.len(),
            rows: data.len(),
        },
        report: None,
        transfer: Default::default(),
        neural: None,
        feature_ranges: None,
        anchor: Some(anchor.into()),
        settings: Default::default(),
        pair_length_tolerance: None,
        training_identities: None,
    }
}

#[test]
fn an_anchored_model_file_keeps_its_anchor() {
    use aesop::learn::model_file::{ModelFile, FORMAT_VERSION_ANCHOR};
    let data = two_feature_problem(6, 9);
    let file = anchored_file(&data, "f.b");
    // Version 7 even without the neural class (its prompt slot holds the plain prompt).
    assert_eq!(file.format_version(), FORMAT_VERSION_ANCHOR);
    let bytes = file.to_bytes().expect("bytes");
    let loaded = ModelFile::from_bytes(&bytes, "m.aesop").expect("load");
    assert_eq!(loaded.anchor.as_deref(), Some("f.b"));
    assert!(loaded.neural.is_none());
    assert_eq!(
        loaded.model.predict(&data.rows).expect("predict"),
        file.model.predict(&data.rows).expect("predict")
    );
    // Without an anchor the file stays at an older version that older builds read.
    let mut plain = anchored_file(&data, "f.b");
    plain.anchor = None;
    assert!(plain.format_version() < FORMAT_VERSION_ANCHOR);
    // An anchor that names no column is a corrupt file, named.
    let bad = anchored_file(&data, "f.nosuch").to_bytes().expect("bytes");
    let e = ModelFile::from_bytes(&bad, "bad.aesop")
        .expect_err("refused")
        .to_string();
    assert!(e.contains("bad.aesop") && e.contains("anchor"), "{e}");
}

#[test]
fn a_recipe_brings_the_builtins_anchor() {
    use aesop::features::FeatureOptions;
    use aesop::learn::commands::LearnArgs;
    use aesop::learn::recipe::apply_recipe;
    for (name, anchor) in [
        ("readability-lm", Some("neural.src_slor")),
        ("readability-lm-noref", Some("neural.src_slor")),
        ("responsiveness-lm", Some("content.js")),
        ("readability", Some("cohmetrix.flesch_kincaid_grade")),
        ("readability-noref", Some("cohmetrix.flesch_kincaid_grade")),
        ("responsiveness", None),
    ] {
        let mut learn = LearnArgs::new("set.jsonl", "quality");
        learn.recipe = Some(name.to_string());
        let mut options = FeatureOptions::default();
        apply_recipe(&mut learn, &mut options).expect("recipe");
        assert_eq!(learn.hyper.anchor.as_deref(), anchor, "{name}");
        if let Some(anchor) = anchor {
            assert!(learn.features.iter().any(|f| f == anchor), "{name}");
        }
    }
    // --anchor beside --recipe would change the recipe: refused, named.
    let mut learn = LearnArgs::new("set.jsonl", "quality");
    learn.recipe = Some("readability-lm".into());
    learn.hyper.anchor = Some("content.js".into());
    let e = apply_recipe(&mut learn, &mut FeatureOptions::default())
        .expect_err("refused")
        .to_string();
    assert!(e.contains("--anchor"), "{e}");
}
