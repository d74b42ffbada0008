//! End to end on SummEval: protocol-1 cross-validation of the ranking SVM on `relevance` with all
//! feature classes, then train → save → score on the same set. Prints the τ values; the anchors
//! (EVALUATION.md) are .303 / .417 for the learned pairwise ranker and .253 / .583 for ROUGE-1 F.

use crate::common;

use aesop::features::FeatureOptions;
use aesop::learn::commands::{cross_validate_command, CrossValidateArgs, LearnArgs};
use aesop::learn::LearnerKind;
use std::sync::atomic::AtomicBool;

#[test]
fn summeval_rank_svm_relevance_protocol1() {
    let Some(path) = common::data_or_skip(
        "summeval_rank_svm_relevance_protocol1",
        "summeval/summeval.jsonl",
    ) else {
        return;
    };
    let topics = common::load_summeval(&path);
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("summeval-set.jsonl");
    let file = std::fs::File::create(&set).expect("create set");
    aesop::corpus::jsonl::write_set(std::io::BufWriter::new(file), &topics).expect("write set");
    let cancel = AtomicBool::new(false);
    let options = FeatureOptions::default();

    let started = std::time::Instant::now();
    let args = CrossValidateArgs {
        learn: LearnArgs::new(&set, "relevance"),
        topic_folds: 5,
        system_folds: 4,
        output: dir.path().join("oof.jsonl"),
        report: None,
        leave_one_set_out: false,
        bootstrap: 1000,
        length_tolerance: aesop::eval::levels::DEFAULT_LENGTH_TOLERANCE,
    };
    let report = cross_validate_command(&args, &options, &cancel).expect("cross-validate");
    eprintln!(
        "SummEval relevance, rank-svm, all classes, protocol 1: summary τ {:.3}, system τ {:.3} ({} features, {:.0?})",
        report.summary_kendall_tau,
        report.system_kendall_tau,
        report.features,
        started.elapsed()
    );
    assert_eq!(report.rows, 1600);
    assert_eq!((report.topics, report.systems), (100, 16));
    // Loose floors: well above chance; the comparison with the anchors is reported, not asserted.
    assert!(report.summary_kendall_tau > 0.15, "{report:?}");
    assert!(report.system_kendall_tau > 0.2, "{report:?}");
    let lines = std::fs::read_to_string(&args.output).expect("read predictions");
    assert_eq!(lines.lines().count(), 1600);

    // train → score on the same set: predictions come back for every summary
    let model = dir.path().join("relevance.aesop");
    common::train_in_process(LearnArgs::new(&set, "relevance"), &model).expect("train");
    let scores = common::score_set(&set, &model, &dir.path().join("pred.jsonl"));
    assert_eq!(scores.len(), 1600);
    assert!(scores.iter().all(|(_, s)| s.is_finite()));
}

/// Every learner under protocol 1 on SummEval relevance, with and without references (features
/// extracted once). Slow (minutes): `cargo test --test learn_summeval -- --ignored --nocapture`.
#[test]
#[ignore]
fn summeval_learner_comparison() {
    use aesop::features::feature_plan;
    use aesop::learn::cv::{cross_validate, summary_level_tau, system_level_tau, Protocol1};
    use aesop::learn::{Dataset, Hyper};
    let Some(path) = common::data_or_skip("summeval_learner_comparison", "summeval/summeval.jsonl")
    else {
        return;
    };
    let topics = common::load_summeval(&path);
    let options = FeatureOptions::default();
    let (classes, _) = feature_plan(&[], false, &options).expect("plan");
    let built = aesop::features::build_classes(&classes, &options).expect("classes");
    let table =
        aesop::features::run::extract_features(&topics, &built, false, &AtomicBool::new(false))
            .expect("features");
    for target in ["relevance", "coherence"] {
        for reference_free in [false, true] {
            let (_, names) = feature_plan(&[], reference_free, &options).expect("plan");
            let data = Dataset::from_table(&table, &topics, target, &names).expect("dataset");
            let layout = Protocol1::new(&data.topics, &data.systems, 5, 4, 1).expect("layout");
            let mut runs: Vec<(String, LearnerKind, Option<Hyper>)> = LearnerKind::ALL
                .iter()
                .map(|&k| (k.name().to_string(), k, None))
                .collect();
            for c in [0.001, 0.01, 0.1, 1.0, 10.0] {
                runs.push((
                    format!("rank-svm C={c}"),
                    LearnerKind::RankSvm,
                    Some(Hyper::RankSvm { c }),
                ));
            }
            // AESOP_CMP_LEARNERS=rank-svm,forest limits the runs (labels starting with a name;
            // a name ending in '$' must match the whole label, e.g. 'rank-svm$' for inner CV only).
            let only: Vec<String> = std::env::var("AESOP_CMP_LEARNERS")
                .map(|v| v.split(',').map(str::to_string).collect())
                .unwrap_or_default();
            runs.retain(|(label, _, _)| {
                only.is_empty()
                    || only.iter().any(|o| match o.strip_suffix('$') {
                        Some(exact) => label == exact,
                        None => label.starts_with(o.as_str()),
                    })
            });
            for (label, kind, hyper) in runs {
                let started = std::time::Instant::now();
                let pred = cross_validate(&data, kind, hyper, &layout, 1).expect("cv");
                eprintln!(
                    "{target:10} {:8} {label:18} summary τ {:.3}  system τ {:.3}  ({:.0?})",
                    if reference_free { "noref" } else { "with-ref" },
                    summary_level_tau(&pred, &data.targets, &data.topics),
                    system_level_tau(&pred, &data.targets, &data.systems),
                    started.elapsed()
                );
            }
        }
    }
}
