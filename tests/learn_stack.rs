//! Stacked (CREMER-style) models: base-spec parsing, the out-of-fold meta training, a synthetic
//! problem whose target is a nonlinear function of two base targets, model-file round trips, and
//! SummEval end to end (train, save, score through the library API, cross-validate).

use crate::common;

use aesop::corpus::{jsonl, Summary, Topic};
use aesop::features::FeatureOptions;
use aesop::learn::commands::{cross_validate_command, CrossValidateArgs, LearnArgs};
use aesop::learn::cv::{cross_validate, summary_level_tau, system_level_tau, Protocol1};
use aesop::learn::model_file::{
    ModelFile, TrainingSet, FORMAT_VERSION_PLAIN, FORMAT_VERSION_STACKED,
};
use aesop::learn::scoring::NamedModel;
use aesop::learn::stack::{
    self, cross_validate_stacked, fit_base, inner_layout, out_of_fold_base_predictions,
    train_stacked, BaseSpec, PlannedBase, StackData, StackSettings,
};
use aesop::learn::{train, Dataset, Fitted, Hyper, LearnerKind, Rng};
use std::sync::atomic::AtomicBool;

const NAMES: [&str; 4] = ["f.a1", "f.a2", "f.b1", "f.noise"];

fn normal(rng: &mut Rng) -> f64 {
    // Box–Muller
    let u = rng.next_f64().max(1e-12);
    let v = rng.next_f64();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// `topics` × `systems` summaries with two latent qualities a and b (a system effect plus a
/// per-summary part). Features: a seen twice with noise, b once, and a pure-noise column. Base
/// targets: a (`content`) and b (`readability`); the meta target is min(a, b), which neither
/// alone nor any linear combination of the features ranks as well as a model of both.
fn min_problem(topics: usize, systems: usize, seed: u64) -> StackData {
    let mut rng = Rng::new(seed);
    let qa: Vec<f64> = (0..systems).map(|_| rng.next_f64()).collect();
    let qb: Vec<f64> = (0..systems).map(|_| rng.next_f64()).collect();
    let mut data = common::empty_dataset(&NAMES);
    let (mut ta, mut tb) = (vec![], vec![]);
    for t in 0..topics {
        for s in 0..systems {
            let a = 0.5 * qa[s] + 0.5 * rng.next_f64();
            let b = 0.5 * qb[s] + 0.5 * rng.next_f64();
            data.rows.push(vec![
                a + 0.05 * normal(&mut rng),
                -a + 0.1 * normal(&mut rng),
                b + 0.05 * normal(&mut rng),
                normal(&mut rng),
            ]);
            data.targets.push(a.min(b));
            data.topics.push(format!("t{t:02}"));
            data.systems.push(format!("s{s}"));
            ta.push(a);
            tb.push(b);
        }
    }
    StackData {
        data,
        base_targets: vec![ta, tb],
    }
}

fn base(name: &str, target: &str, columns: &[usize]) -> PlannedBase {
    PlannedBase {
        spec: BaseSpec {
            name: name.into(),
            target: target.into(),
            classes: vec!["f".into()],
            learner: LearnerKind::RankSvm,
            hyper: Some(Hyper::RankSvm { c: 0.1 }),
        },
        classes: vec!["f".into()],
        feature_names: columns.iter().map(|&c| NAMES[c].to_string()).collect(),
        columns: columns.to_vec(),
    }
}

fn bases() -> Vec<PlannedBase> {
    vec![
        base("content", "a", &[0, 1]),
        base("readability", "b", &[2, 3]),
    ]
}

fn settings(meta_hyper: Option<Hyper>) -> StackSettings {
    StackSettings {
        meta_learner: LearnerKind::SvrRbf,
        meta_hyper,
        inner_topic_folds: 3,
        inner_system_folds: 2,
        seed: 5,
    }
}

fn columns_of(data: &Dataset, columns: &[usize]) -> Dataset {
    Dataset {
        names: columns.iter().map(|&c| data.names[c].clone()).collect(),
        rows: data
            .rows
            .iter()
            .map(|r| columns.iter().map(|&c| r[c]).collect())
            .collect(),
        ..data.clone()
    }
}

#[test]
fn base_specs_parse_and_bad_ones_name_the_flag_and_the_part() {
    let spec = BaseSpec::parse("content=relevance:content,rouge:0.001").expect("parse");
    assert_eq!(spec.name, "content");
    assert_eq!(spec.target, "relevance");
    assert_eq!(spec.classes, vec!["content", "rouge"]);
    assert_eq!(spec.learner, LearnerKind::RankSvm);
    assert_eq!(spec.hyper, Some(Hyper::RankSvm { c: 0.001 }));
    assert_eq!(
        spec.to_string(),
        "content=relevance:content,rouge:0.001:rank-svm"
    );

    let all = BaseSpec::parse("readability=coherence:all:0.0001").expect("parse");
    assert!(all.classes.is_empty(), "`all` means every class");
    let bare = BaseSpec::parse("r=coherence").expect("parse");
    assert_eq!((bare.classes.len(), bare.hyper), (0, None));
    assert_eq!(bare.learner, LearnerKind::RankSvm);
    let svr = BaseSpec::parse("r=coherence::2:svr-rbf").expect("parse");
    assert_eq!(
        svr.hyper,
        Some(Hyper::Svr {
            c: 2.0,
            epsilon: 0.1,
            kernel: 0.5
        })
    );
    let inner_cv = BaseSpec::parse("r=coherence:all::forest").expect("parse");
    assert_eq!(
        (inner_cv.learner, inner_cv.hyper),
        (LearnerKind::Forest, None)
    );

    for (bad, part) in [
        ("relevance", "NAME=TARGET"),
        ("=relevance", "name ''"),
        ("my base=relevance", "name 'my base'"),
        ("c=", "no target"),
        ("c=rel:content:-1", "'-1'"),
        ("c=rel:content:abc", "'abc'"),
        ("c=rel:content:1:forest", "C does not apply to the forest"),
        ("c=rel:content:1:nope", "unknown learner 'nope'"),
        ("c=rel:content,,rouge", "empty class name"),
        ("c=rel:content:1:rank-svm:x", "too many"),
    ] {
        let e = BaseSpec::parse(bad).expect_err(bad).to_string();
        assert!(
            e.contains("--stack") && e.contains(&format!("'{bad}'")) && e.contains(part),
            "{bad}: {e}"
        );
    }

    let options = FeatureOptions::default();
    let twice = [bare.clone(), bare.clone()];
    let e = stack::plan(&twice, false, &options).expect_err("duplicate names");
    assert!(
        e.to_string().contains("two base models are named 'r'"),
        "{e}"
    );
    let unknown = BaseSpec::parse("x=rel:nosuchclass").expect("parse");
    let e = format!(
        "{:#}",
        stack::plan(&[unknown], false, &options).expect_err("unknown class")
    );
    assert!(e.contains("base 'x'") && e.contains("nosuchclass"), "{e}");
    assert!(stack::plan(&[], false, &options).is_err());

    // Two bases sharing classes share columns: the union has each feature once, and each base's
    // columns point at its own features in that union.
    let plan = stack::plan(
        &[
            BaseSpec::parse("a=x:surface,rouge").expect("parse"),
            BaseSpec::parse("b=y:rouge").expect("parse"),
        ],
        false,
        &options,
    )
    .expect("plan");
    assert_eq!(plan.classes, vec!["surface", "rouge"]);
    for b in &plan.bases {
        let picked: Vec<&String> = b.columns.iter().map(|&c| &plan.feature_names[c]).collect();
        assert_eq!(
            picked,
            b.feature_names.iter().collect::<Vec<_>>(),
            "{}",
            b.spec.name
        );
    }
    assert_eq!(
        plan.feature_names.len(),
        plan.bases[0].feature_names.len(),
        "b's rouge columns are a's"
    );
    // --no-references drops rouge (it needs references); a base left with nothing is an error.
    let e = format!(
        "{:#}",
        stack::plan(
            &[BaseSpec::parse("b=y:rouge").expect("parse")],
            true,
            &options
        )
        .expect_err("rouge only, no references")
    );
    assert!(e.contains("base 'b'"), "{e}");
}

#[test]
fn the_meta_learner_sees_only_out_of_fold_base_predictions() {
    let data = min_problem(12, 6, 3);
    let bases = bases();
    let settings = settings(Some(Hyper::Svr {
        c: 1.0,
        epsilon: 0.1,
        kernel: 0.5,
    }));
    let cancel = AtomicBool::new(false);
    let layout = inner_layout(&data, &settings).expect("layout");
    let oof = out_of_fold_base_predictions(&bases, &data, &layout, settings.seed, &cancel)
        .expect("out of fold");
    assert_eq!(oof.len(), data.len());

    // Every row's base predictions come from a model fit on rows that share neither its topic
    // nor its system: refit each cell's model here and compare bit for bit.
    let mut checked = 0;
    for a in 0..layout.topic_folds {
        for b in 0..layout.system_folds {
            let test = layout.test_rows(a, b);
            let train_rows = layout.train_rows(a, b);
            for &i in &test {
                for &j in &train_rows {
                    assert_ne!(data.data.topics[i], data.data.topics[j]);
                    assert_ne!(data.data.systems[i], data.data.systems[j]);
                }
            }
            let rows: Vec<Vec<f64>> = test.iter().map(|&i| data.data.rows[i].clone()).collect();
            for (k, planned) in bases.iter().enumerate() {
                let model = fit_base(planned, &data, k, &train_rows, settings.seed).expect("fit");
                let expected = model.predict(&rows).expect("predict");
                for (&i, e) in test.iter().zip(expected) {
                    assert_eq!(oof[i][k], e, "row {i}, base {k}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 2 * data.len());

    // The trained model's meta scaler was fit on exactly those predictions. In-sample base
    // predictions would have mean 0 and sd 1 (each base's output is standardized by its own
    // training predictions), so the scaler tells the two apart. The `stack.*` columns form one
    // feature class, so the class-balanced scaler divides each by √(number of bases) too.
    let model = train_stacked(&bases, &data, &settings, &cancel).expect("train");
    let n = oof.len() as f64;
    let class_root = (bases.len() as f64).sqrt();
    for k in 0..bases.len() {
        let mean = oof.iter().map(|r| r[k]).sum::<f64>() / n;
        let sd = (oof.iter().map(|r| (r[k] - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!((model.scaler.means[k] - mean).abs() < 1e-12, "base {k}");
        assert!(
            (model.scaler.stds[k] - sd * class_root).abs() < 1e-12,
            "base {k}"
        );
        assert!(
            mean.abs() > 1e-6 || (sd - 1.0).abs() > 1e-6,
            "base {k}: out-of-fold predictions look in-sample ({mean}, {sd})"
        );
    }
    // …and the bases it predicts with were refit on every row: standardized, their in-sample
    // predictions have mean 0 and sd 1.
    let refit = model.stack_bases().expect("stacked");
    assert_eq!(refit.len(), 2);
    for b in refit {
        let p = b.predict(&data.data.rows).expect("predict");
        let mean = p.iter().sum::<f64>() / n;
        let sd = (p.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!(
            mean.abs() < 1e-9 && (sd - 1.0).abs() < 1e-9,
            "{}: {mean} {sd}",
            b.name
        );
    }
    assert_eq!(model.learner, LearnerKind::SvrRbf);
}

#[test]
fn stacking_two_bases_beats_each_base_on_a_nonlinear_target() {
    let data = min_problem(40, 8, 11);
    let layout = Protocol1::new(&data.data.topics, &data.data.systems, 4, 2, 1).expect("layout");
    let cancel = AtomicBool::new(false);
    let (stacked, calibrated) =
        cross_validate_stacked(&bases(), &data, &settings(None), &layout, &cancel)
            .expect("stacked cv");
    // Each out-of-fold score mapped by its cell's calibration: monotone, so within a cell the
    // order is the raw one, and every row has one.
    assert!(calibrated.iter().all(|c| c.is_finite()));
    let d = &data.data;
    let tau = |p: &[f64]| summary_level_tau(p, &d.targets, &d.topics);
    let rank_svm = Some(Hyper::RankSvm { c: 0.1 });
    let content = cross_validate(
        &columns_of(d, &[0, 1]),
        LearnerKind::RankSvm,
        rank_svm,
        &layout,
        1,
    )
    .expect("content cv");
    let readability = cross_validate(
        &columns_of(d, &[2, 3]),
        LearnerKind::RankSvm,
        rank_svm,
        &layout,
        1,
    )
    .expect("readability cv");
    let direct = cross_validate(d, LearnerKind::RankSvm, rank_svm, &layout, 1).expect("direct cv");
    let (s, c, r, l) = (
        tau(&stacked),
        tau(&content),
        tau(&readability),
        tau(&direct),
    );
    eprintln!(
        "min(a, b): summary τ stacked {s:.3}, content base {c:.3}, readability base {r:.3}, \
         direct linear {l:.3}; system τ stacked {:.3}",
        system_level_tau(&stacked, &d.targets, &d.systems)
    );
    assert!(stacked.iter().all(|p| p.is_finite()));
    assert!(s > c + 0.1 && s > r + 0.1, "{s} vs {c}, {r}");
    // min is not linear: the RBF meta learner also beats one linear ranker over every feature.
    assert!(s > l + 0.03, "{s} vs {l}");
}

fn model_file(model: aesop::learn::Trained, data: &Dataset) -> ModelFile {
    ModelFile {
        target: "overall".into(),
        classes: vec!["f".into()],
        feature_names: data.names.clone(),
        feature_options: (&FeatureOptions::default()).into(),
        reference_free: true,
        model,
        training: TrainingSet {
            name: "synthetic.jsonl".into(),
            content_hash: "0".into(),
            topics: 10,
            summaries: data.len(),
            rows: data.len(),
        },
        report: None,
        transfer: Default::default(),
        neural: None,
        feature_ranges: None,
        anchor: None,
        settings: Default::default(),
        pair_length_tolerance: None,
        training_identities: None,
    }
}

#[test]
fn stacked_model_files_round_trip_and_old_files_still_load() {
    let data = min_problem(10, 6, 8);
    let cancel = AtomicBool::new(false);
    let model = train_stacked(&bases(), &data, &settings(None), &cancel).expect("train");
    let file = model_file(model, &data.data);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("stacked.aesop");
    file.save(&path).expect("save");
    let bytes = std::fs::read(&path).expect("read");
    assert_eq!(
        u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")),
        FORMAT_VERSION_STACKED
    );
    let loaded = ModelFile::load(&path).expect("load");
    // Columns in another order in the table: picked by name.
    let table = common::table_with_gaps(&data.data, data.data.names.clone(), 5);
    let mut reversed = table.clone();
    reversed.names.reverse();
    for r in &mut reversed.records {
        r.values.reverse();
    }
    let before = file.predict_table(&table).expect("predict");
    let after = loaded
        .predict_table(&reversed)
        .expect("predict after reload");
    assert_eq!(before, after);
    assert!(before.iter().all(|p| p.is_finite()));
    let (saved, reread) = (
        file.model.stack_bases().expect("stacked"),
        loaded.model.stack_bases().expect("stacked after reload"),
    );
    for (a, b) in saved.iter().zip(reread) {
        assert_eq!(
            (&a.name, &a.target, &a.feature_names, a.model.hyper),
            (&b.name, &b.target, &b.feature_names, b.model.hyper)
        );
    }
    assert_eq!(reread[0].target, "a");
    assert_eq!(reread[1].feature_names, vec!["f.b1", "f.noise"]);
    assert!(matches!(loaded.model.fitted, Fitted::Stacked { .. }));

    // A plain model is still written as version 1, which builds before stacking read.
    let plain = train(
        &data.data,
        LearnerKind::RankSvm,
        Some(Hyper::RankSvm { c: 0.1 }),
        1,
    )
    .expect("plain");
    let plain_bytes = model_file(plain, &data.data).to_bytes().expect("encode");
    assert_eq!(
        u32::from_le_bytes(plain_bytes[8..12].try_into().expect("4 bytes")),
        FORMAT_VERSION_PLAIN
    );
    // The built-ins are version-1 files written before stacking existed: they still load.
    for b in aesop::learn::builtin::BUILTINS {
        let m = NamedModel::from_builtin(b).expect("built-in loads");
        assert!(m.model.model.stack_bases().is_none(), "{}", b.name);
    }
}

/// A one-topic set on disk (for argument checks that fail before any feature is computed).
fn tiny_set(dir: &std::path::Path) -> std::path::PathBuf {
    let mut topic = Topic::new("t1");
    let mut s = Summary::new("s1", "A summary.");
    s.scores.insert("relevance".into(), 3.0);
    topic.summaries.push(s);
    let path = dir.join("tiny.jsonl");
    let file = std::fs::File::create(&path).expect("create");
    jsonl::write_set(std::io::BufWriter::new(file), &[topic]).expect("write");
    path
}

#[test]
fn classes_and_stack_together_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = tiny_set(dir.path());
    let mut learn = LearnArgs::new(&set, "relevance");
    learn.classes = vec!["surface".into()];
    learn.stack.bases = vec![BaseSpec::parse("r=relevance:surface").expect("parse")];
    let e = common::train_in_process(learn, &dir.path().join("m.aesop"))
        .expect_err("--classes with --stack");
    assert!(
        e.to_string()
            .contains("--classes cannot be combined with --stack"),
        "{e}"
    );
    assert!(!dir.path().join("m.aesop").exists());
}

#[test]
fn cli_reports_a_bad_stack_spec_as_a_usage_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_aesop"))
        .args([
            "train",
            "set.jsonl",
            "--target",
            "relevance",
            "--stack",
            "content=relevance:content:zero",
            "-o",
            "m.aesop",
        ])
        .output()
        .expect("run aesop");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--stack") && stderr.contains("'zero'"),
        "{stderr}"
    );
}

#[test]
fn summeval_stacked_model_trains_scores_and_cross_validates() {
    let Some(path) = common::data_or_skip(
        "summeval_stacked_model_trains_scores_and_cross_validates",
        "summeval/summeval.jsonl",
    ) else {
        return;
    };
    // 24 topics keep it quick; the full protocol-1 numbers are in scripts/experiments/eval-cremer.
    let topics: Vec<Topic> = common::load_summeval(&path).into_iter().take(24).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("summeval-24.jsonl");
    let file = std::fs::File::create(&set).expect("create set");
    jsonl::write_set(std::io::BufWriter::new(file), &topics).expect("write set");
    let cancel = AtomicBool::new(false);
    let options = FeatureOptions::default();
    let stacked_args = |no_references: bool| {
        let mut learn = LearnArgs::new(&set, "relevance");
        learn.learner = LearnerKind::SvrRbf;
        learn.no_references = no_references;
        learn.stack.bases = vec![
            BaseSpec::parse("content=relevance:content,rouge,surface:0.001").expect("parse"),
            BaseSpec::parse("readability=coherence:surface,redundancy,entity:0.0001")
                .expect("parse"),
        ];
        learn
    };

    let model_path = dir.path().join("cremer.aesop");
    let file = common::train_in_process(stacked_args(false), &model_path).expect("train stacked");
    let bases = file.model.stack_bases().expect("a stacked model");
    assert_eq!(
        bases.iter().map(|b| b.target.as_str()).collect::<Vec<_>>(),
        vec!["relevance", "coherence"]
    );
    assert_eq!(bases[0].model.hyper, Hyper::RankSvm { c: 0.001 });
    assert!(bases[1].classes.contains(&"entity".to_string()));
    assert!(file.needs_references());
    assert_eq!(file.training.rows, 24 * 16);

    // Score through the library API, as `aesop score --model FILE` and the service do.
    let named = NamedModel::from_file(&model_path, None).expect("load");
    assert_eq!(named.target, "relevance");
    let scores = common::score_set(&set, &model_path, &dir.path().join("pred.jsonl"));
    assert_eq!(scores.len(), 24 * 16);
    assert!(scores.iter().all(|(m, s)| m == "cremer" && s.is_finite()));
    let by_topic = aesop::learn::scoring::score_topics(&[&named], &topics, false, &cancel)
        .expect("score topics");
    let in_sample = summary_level_tau(
        &by_topic.scores[0],
        &topics
            .iter()
            .flat_map(|t| t.summaries.iter().map(|s| s.scores["relevance"]))
            .collect::<Vec<_>>(),
        &topics
            .iter()
            .flat_map(|t| t.summaries.iter().map(|_| t.topic.clone()))
            .collect::<Vec<_>>(),
    );
    eprintln!("SummEval 24 topics, stacked relevance model, in-sample summary τ {in_sample:.3}");
    assert!(in_sample > 0.1, "{in_sample}");

    // Reference-free: the model says so, and it scores topics without references.
    let noref_path = dir.path().join("cremer-noref.aesop");
    let noref =
        common::train_in_process(stacked_args(true), &noref_path).expect("train reference-free");
    assert!(!noref.needs_references());
    assert!(noref.classes.iter().all(|c| c != "rouge"));
    let mut bare: Vec<Topic> = topics[..2].to_vec();
    for t in &mut bare {
        t.references.clear();
    }
    let named = NamedModel::from_file(&noref_path, None).expect("load");
    let scored =
        aesop::learn::scoring::score_topics(&[&named], &bare, false, &cancel).expect("score");
    assert!(scored.scores[0].iter().all(|s| s.is_finite()));

    // Protocol 1 with the nesting (3 × 2 outer cells on this subset).
    let report = cross_validate_command(
        &CrossValidateArgs {
            learn: stacked_args(false),
            topic_folds: 3,
            system_folds: 2,
            output: dir.path().join("oof.jsonl"),
            report: None,
            leave_one_set_out: false,
            bootstrap: 1000,
            length_tolerance: aesop::eval::levels::DEFAULT_LENGTH_TOLERANCE,
        },
        &options,
        &cancel,
    )
    .expect("cross-validate stacked");
    eprintln!(
        "SummEval 24 topics, stacked, protocol 1 (3×2): summary τ {:.3}, system τ {:.3}",
        report.summary_kendall_tau, report.system_kendall_tau
    );
    assert_eq!(report.stack.len(), 2);
    assert_eq!(report.rows, 24 * 16);
    // Out-of-fold scores on relevance's 1-5 scale (they were the raw meta output, MAE NaN).
    assert!(
        report.calibrated_mae > 0.0 && report.calibrated_mae < 2.0,
        "{}",
        report.calibrated_mae
    );
    assert!(report.summary_kendall_tau.is_finite() && report.summary_kendall_tau > 0.0);
}
