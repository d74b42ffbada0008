//! Within-topic normalization against hand-computed values, calibration monotone and within the
//! target's range, a target too large to standardize.

use super::*;

#[test]
fn within_topic_normalization_matches_hand_computed_values() {
    let values = [Some(2.0), None, Some(4.0), Some(6.0), Some(4.0)];
    // mean 4, population sd √2.
    let z = normalize_column(&values, Normalization::TopicZ);
    let s = 2f64.sqrt();
    let want = [Some(-2.0 / s), None, Some(0.0), Some(2.0 / s), Some(0.0)];
    for (g, w) in z.iter().zip(want) {
        match (g, w) {
            (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{z:?}"),
            (None, None) => {}
            _ => panic!("{z:?}"),
        }
    }
    // ranks 1, 2.5, 4, 2.5 among 4 values → (r − 1) / 3.
    let r = normalize_column(&values, Normalization::TopicRank);
    assert_eq!(r, vec![Some(0.0), None, Some(0.5), Some(1.0), Some(0.5)]);
    // A constant column and a single summary.
    assert_eq!(
        normalize_column(&[Some(3.0), Some(3.0)], Normalization::TopicZ),
        vec![Some(0.0), Some(0.0)]
    );
    assert_eq!(
        normalize_column(&[Some(3.0)], Normalization::TopicRank),
        vec![Some(0.5)]
    );
}

#[test]
fn calibration_is_monotone_and_within_the_targets_range() {
    let raw: Vec<f64> = (0..50)
        .map(|i| ((i * 37) % 50) as f64 / 7.0 - 3.0)
        .collect();
    let targets: Vec<f64> = raw
        .iter()
        .map(|r| (3.0 + 0.4 * r).clamp(1.0, 5.0))
        .collect();
    let c = Calibration::fit(&raw, &targets).expect("fit");
    let (lo, hi) = (
        targets.iter().copied().fold(f64::INFINITY, f64::min),
        targets.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let mut previous = f64::NEG_INFINITY;
    for i in -100..100 {
        let v = c.apply(i as f64 / 5.0);
        assert!(v >= previous && (lo..=hi).contains(&v), "{v}");
        previous = v;
    }

    // End to end: a trained model's scores lie in the training targets' range, raw kept.
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("s.jsonl");
    write_set(&set, 6, 1.0);
    let mut learn = LearnArgs::new(&set, "quality");
    learn.classes = vec!["surface".into()];
    let model = dir.path().join("m.aesop");
    let file = common::train_in_process(learn, &model).expect("train");
    let cal = file.transfer.calibration.expect("calibrated");
    assert!(cal.slope >= 0.0 && cal.min >= 1.0 && cal.max <= 5.5 + 1e-9);
    let loaded = ModelFile::load(&model).expect("load");
    assert_eq!(loaded.transfer, file.transfer);
    let bytes = std::fs::read(&model).expect("read");
    // Trained now: calibration, the features' training ranges (format 5) and the training
    // summaries' identities (format 11).
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().expect("4")),
        aesop::learn::model_file::FORMAT_VERSION
    );
    assert!(loaded.training_identities.is_some());
    let ranges = loaded
        .feature_ranges
        .as_ref()
        .expect("training ranges stored");
    assert_eq!(ranges.len(), loaded.feature_names.len());
    assert!(ranges.iter().all(|r| r.min <= r.max));
    let out = dir.path().join("pred.jsonl");
    let scored = common::score_set(&set, &model, &out);
    assert_eq!(scored.len(), 30);
    for line in std::fs::read_to_string(&out).expect("read").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let score = v["score"].as_f64().expect("score");
        let raw = v["raw"].as_f64().expect("raw kept");
        assert!((cal.min..=cal.max).contains(&score), "{line}");
        assert!((cal.apply(raw) - score).abs() < 1e-9, "{line}");
    }
}

/// A score of 1e308 among Likert scores overflowed the target's mean and spread: the model
/// written scored every summary `null` (OLS) or about 1e305 (ranking SVM), exit 0. Refused,
/// naming the file, the column and the summary.
#[test]
fn a_target_too_large_to_standardize_is_refused_naming_the_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("huge.jsonl");
    write_set(&path, 3, 1.0);
    let mut set = jsonl::read_set(&path).expect("read");
    set[1].summaries[2].scores.insert("quality".into(), 1e308);
    let file = std::fs::File::create(&path).expect("create");
    jsonl::write_set(std::io::BufWriter::new(file), &set).expect("write");
    for learner in ["ols", "rank-svm"] {
        let out = common::run_train(
            &path,
            &[
                "--target",
                "quality",
                "--classes",
                "surface",
                "--learner",
                learner,
            ],
            &dir.path().join("m.aesop"),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{learner}: {stderr}");
        assert!(
            stderr.contains("huge.jsonl: column 'quality': score 'quality' cannot be learned from: its values are too large to standardize (e.g. 1e308 for huge-t1/sys2)"),
            "{learner}: {stderr}"
        );
        assert!(!dir.path().join("m.aesop").exists());
    }
}
