//! `--recipe NAME`: a built-in model's recipe (classes, columns, learner, C, reference use,
//! feature-class options) applied to the user's own judgment sets.

use crate::common;

use crate::learn_transfer::write_set;
use aesop::features::FeatureOptions;
use aesop::learn::builtin;
use aesop::learn::commands::LearnArgs;
use aesop::learn::model_file::ModelFile;
use aesop::learn::recipe::apply_recipe;
use aesop::learn::{Hyper, LearnerKind};

fn with_recipe(name: &str) -> LearnArgs {
    let mut learn = LearnArgs::new("set.jsonl", "quality");
    learn.recipe = Some(name.to_string());
    learn
}

#[test]
fn a_recipe_is_the_builtins_classes_columns_learner_and_options() {
    for name in ["responsiveness", "readability-noref", "faithfulness"] {
        let model = builtin::find(name).expect("built-in").load().expect("load");
        let mut learn = with_recipe(name);
        let mut options = FeatureOptions::default();
        apply_recipe(&mut learn, &mut options).expect("recipe");
        assert_eq!(learn.classes, model.classes, "{name}");
        assert_eq!(learn.features, model.feature_names, "{name}");
        assert_eq!(learn.no_references, model.reference_free, "{name}");
        assert_eq!(learn.learner, model.model.learner, "{name}");
        let Hyper::RankSvm { c } = model.model.hyper else {
            panic!("{name}: {:?}", model.model.hyper);
        };
        assert_eq!(learn.hyper.c, Some(c), "{name}");
        assert_eq!(
            learn.hyper.fixed(learn.learner).expect("hyper"),
            Some(model.model.hyper),
            "{name}"
        );
        // The sets, target and seed stay the user's.
        assert_eq!(learn.target.as_deref(), Some("quality"));
        assert_eq!(learn.seed, 1);
        // A neural recipe brings the LM options it was trained with (no reference features).
        if let Some(neural) = &model.neural {
            assert_eq!(
                options.neural.max_references, neural.max_references,
                "{name}"
            );
            assert_eq!(options.neural.max_references, 0, "{name}");
            assert_eq!(options.neural.prompt, neural.prompt, "{name}");
        }
    }
    // Without --recipe nothing changes.
    let mut learn = LearnArgs::new("set.jsonl", "quality");
    let mut options = FeatureOptions::default();
    apply_recipe(&mut learn, &mut options).expect("no recipe");
    assert!(learn.classes.is_empty() && learn.features.is_empty());
    assert_eq!(learn.learner, LearnerKind::RankSvm);
    assert_eq!(learn.hyper.c, None);
}

#[test]
fn sets_naming_different_columns_learn_the_recipes_target() {
    use aesop::learn::transfer::SetSpec;
    let sets = |columns: &[&str]| -> LearnArgs {
        let mut learn = LearnArgs::new("unused.jsonl", "unused");
        learn.set = None;
        learn.target = None;
        learn.transfer.sets = columns
            .iter()
            .enumerate()
            .map(|(i, c)| SetSpec::new(format!("set{i}.jsonl"), c))
            .collect();
        learn
    };
    // Without a recipe, the model's target must be named.
    let plain = sets(&["relevance", "litepyramid_recall"]);
    let e = plain.model_target().expect_err("ambiguous target");
    assert!(e.to_string().contains("--target"), "{e}");
    // With one, it is the built-in's own.
    let mut learn = sets(&["relevance", "litepyramid_recall"]);
    learn.recipe = Some("responsiveness".into());
    apply_recipe(&mut learn, &mut FeatureOptions::default()).expect("recipe");
    assert_eq!(learn.model_target().expect("target"), "responsiveness");
    // Sets that agree keep their column; --target keeps the user's name.
    let mut learn = sets(&["relevance", "relevance"]);
    learn.recipe = Some("responsiveness".into());
    apply_recipe(&mut learn, &mut FeatureOptions::default()).expect("recipe");
    assert_eq!(learn.model_target().expect("target"), "relevance");
    let mut learn = sets(&["relevance", "litepyramid_recall"]);
    learn.target = Some("quality".into());
    learn.recipe = Some("pyramid".into());
    apply_recipe(&mut learn, &mut FeatureOptions::default()).expect("recipe");
    assert_eq!(learn.model_target().expect("target"), "quality");
}

#[test]
fn flags_that_would_change_a_recipe_are_refused_by_name() {
    let mut options = FeatureOptions::default();
    let mut learn = with_recipe("responsiveness");
    learn.classes = vec!["content".into()];
    learn.hyper.c = Some(0.1);
    let e = apply_recipe(&mut learn, &mut options).expect_err("conflict");
    let message = e.to_string();
    assert!(
        message.contains("--recipe responsiveness")
            && message.contains("--classes")
            && message.contains("--c"),
        "{message}"
    );
    let mut learn = with_recipe("responsiveness");
    options.rouge.stem = false;
    let e = apply_recipe(&mut learn, &mut options).expect_err("feature options");
    assert!(e.to_string().contains("feature-class options"), "{e}");
    let mut learn = with_recipe("no-such-model");
    let e = apply_recipe(&mut learn, &mut FeatureOptions::default()).expect_err("unknown");
    assert!(e.to_string().contains("pyramid-noref"), "{e}");
}

#[test]
fn train_with_a_recipe_writes_the_builtins_recipe_learned_on_the_users_sets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("mine.jsonl");
    write_set(&set, 6, 1.0);
    let out = dir.path().join("mine.aesop");
    common::train(
        &set,
        &["--target", "quality", "--recipe", "responsiveness-noref"],
        &out,
    );
    let mine = ModelFile::load(&out).expect("trained model");
    let builtin = builtin::find("responsiveness-noref")
        .expect("built-in")
        .load()
        .expect("load");
    assert_eq!(mine.classes, builtin.classes);
    assert_eq!(mine.feature_names, builtin.feature_names);
    assert_eq!(mine.model.hyper, builtin.model.hyper);
    assert!(mine.reference_free);
    assert_eq!(mine.target, "quality");
    assert_eq!(mine.feature_options, builtin.feature_options);
    // Learned from the user's rows, not copied: the training set is this one.
    assert_eq!(mine.training.rows, 30);
    // The CLI refuses a recipe beside flags that would change it.
    let refused = common::run_train(
        &set,
        &[
            "--target",
            "quality",
            "--recipe",
            "responsiveness-noref",
            "--learner",
            "ols",
        ],
        &dir.path().join("refused.aesop"),
    );
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    assert!(!dir.path().join("refused.aesop").exists());
    // `aesop models` tells users the option exists.
    let listing = builtin::describe(None, false).expect("models");
    assert!(listing.contains("--recipe NAME"), "{listing}");
}

#[test]
fn ablate_takes_the_recipe_of_an_anchored_builtin() {
    // `readability-noref` is anchored on the Flesch-Kincaid grade, which grows with the
    // summaries' length in these sets.
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    write_set(&a, 6, 1.0);
    write_set(&b, 6, 10.0);
    let (md, csv_path) = (
        dir.path().join("ablation.md"),
        dir.path().join("ablation.csv"),
    );
    common::aesop()
        .arg("ablate")
        .arg("--set")
        .arg(format!("{}:quality", a.display()))
        .arg("--set")
        .arg(format!("{}:quality", b.display()))
        .args([
            "--target",
            "quality",
            "--recipe",
            "readability-noref",
            "--leave-one-set-out",
            "--bootstrap",
            "0",
            "-o",
        ])
        .arg(&md)
        .arg("--csv")
        .arg(&csv_path)
        .assert()
        .success();
    let builtin = builtin::find("readability-noref")
        .expect("built-in")
        .load()
        .expect("load");
    let anchor = builtin.anchor.clone().expect("an anchored built-in");
    let markdown = std::fs::read_to_string(&md).expect("markdown");
    assert!(
        markdown.contains(&format!("anchored on `{anchor}`"))
            && markdown.contains(&format!(
                "`{}` for every model",
                aesop::learn::card::hyper_text(&builtin.model.hyper)
            )),
        "{markdown}"
    );
    // The full model, the anchor alone, then each of the recipe's classes alone and left out,
    // each on both held-out sets and on their mean.
    let mut reader = csv::Reader::from_path(&csv_path).expect("csv");
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("record")).collect();
    assert_eq!(records.len(), (2 + 2 * builtin.classes.len()) * 3);
    let full = records.iter().find(|r| &r[0] == "full").expect("full");
    assert_eq!(&full[3], builtin.feature_names.len().to_string());
    let alone = records
        .iter()
        .find(|r| &r[0] == "anchor alone")
        .expect("anchor alone");
    assert_eq!((&alone[1], &alone[3]), ("anchor", "1"));
}
