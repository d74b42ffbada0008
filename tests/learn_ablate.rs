//! `aesop ablate` on a synthetic judgment set where one class carries the signal.
//!
//! 8 topics × 6 systems. A summary with human score h copies 3h words of the document and
//! fills the rest with words found nowhere else, so `surface` (coverage, novel n-grams) follows
//! h. Each summary also holds a random number of reference words, so `rouge` follows noise.

use aesop::corpus::{jsonl, Document, Reference, Summary, Topic};
use aesop::features::FeatureOptions;
use aesop::learn::ablate::{ablate_command, AblateArgs, CSV_COLUMNS, CSV_COLUMNS_HELD_OUT};
use aesop::learn::commands::LearnArgs;
use aesop::learn::{LearnerKind, Rng};
use std::sync::atomic::AtomicBool;

/// A letters-only word (tokenizers keep it whole; never a stopword thanks to the "qx" prefix).
fn word(kind: char, topic: usize, n: usize) -> String {
    let mut s = format!("qx{kind}{}", (b'a' + topic as u8) as char);
    let mut n = n;
    loop {
        s.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    s
}

/// Words in sentences of ten.
fn text(words: &[String]) -> String {
    words
        .chunks(10)
        .map(|c| format!("{}.", c.join(" ")))
        .collect::<Vec<_>>()
        .join(" ")
}

fn synthetic_set() -> Vec<Topic> {
    let mut rng = Rng::new(42);
    (0..8)
        .map(|t| {
            let mut topic = Topic::new(format!("T{t}"));
            let document: Vec<String> = (0..60).map(|i| word('d', t, i)).collect();
            topic.documents.push(Document::new("d1", text(&document)));
            let reference: Vec<String> = (0..30).map(|i| word('r', t, i)).collect();
            topic.references.push(Reference::new("A", text(&reference)));
            let mut scores: Vec<usize> = (1..=6).collect();
            rng.shuffle(&mut scores);
            let mut junk = 0;
            for (s, &h) in scores.iter().enumerate() {
                let mut words: Vec<String> = document[..3 * h].to_vec();
                for _ in 3 * h..18 {
                    words.push(word('j', t, junk));
                    junk += 1;
                }
                // Noise for rouge: m reference words (random), the rest fresh junk.
                let m = rng.below(9);
                words.extend(reference[..m].iter().cloned());
                for _ in m..8 {
                    words.push(word('j', t, junk));
                    junk += 1;
                }
                let mut summary = Summary::new(format!("S{s}"), text(&words));
                summary.scores.insert("pyramid".into(), h as f64);
                topic.summaries.push(summary);
            }
            topic
        })
        .collect()
}

/// The models of an ablation of surface and rouge, in report order: the full model, then
/// only/without for each class.
const SURFACE_ROUGE_MODELS: [&str; 5] = [
    "full",
    "only surface",
    "without surface",
    "only rouge",
    "without rouge",
];

/// The synthetic set written to `dir/set.jsonl`, and an ablation of `classes` on its `pyramid`
/// column: 4×2 folds, no bootstrap, the Markdown table alone.
fn synthetic_ablation(dir: &std::path::Path, classes: &[&str]) -> (std::path::PathBuf, AblateArgs) {
    let set = dir.join("set.jsonl");
    let file = std::fs::File::create(&set).expect("create");
    jsonl::write_set(std::io::BufWriter::new(file), &synthetic_set()).expect("write set");
    let mut learn = LearnArgs::new(&set, "pyramid");
    learn.classes = classes.iter().map(|c| c.to_string()).collect();
    let args = AblateArgs {
        learn,
        topic_folds: 4,
        system_folds: 2,
        bootstrap: 0,
        length_tolerance: aesop::eval::levels::DEFAULT_LENGTH_TOLERANCE,
        output: dir.join("ablate.md"),
        csv: None,
        chart: None,
        leave_one_set_out: false,
    };
    (set, args)
}

#[test]
fn ablation_separates_the_informative_class() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (set, mut args) = synthetic_ablation(dir.path(), &["surface", "rouge"]);
    args.learn.hyper.c = Some(0.1);
    args.bootstrap = 200;
    args.csv = Some(dir.path().join("ablate.csv"));
    args.chart = Some(dir.path().join("ablate.svg"));
    let report =
        ablate_command(&args, &FeatureOptions::default(), &AtomicBool::new(false)).expect("ablate");

    // Which data the figures measured, whatever the file is called (stop 54).
    assert_eq!(
        report.set_hashes,
        vec![aesop::hash::content_hash(&set).expect("hash")]
    );
    // 1 full model + only/without for each of the 2 classes.
    let names: Vec<&str> = report.models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(names, SURFACE_ROUGE_MODELS);
    for m in &report.models {
        eprintln!(
            "{:16} summary {:.3} [{:.3}, {:.3}] system {:.3} vs full {:?}",
            m.model,
            m.summary_tau.value,
            m.summary_tau.lower,
            m.summary_tau.upper,
            m.system_tau.value,
            m.summary_vs_full
        );
    }
    let tau = |name: &str| {
        report
            .models
            .iter()
            .find(|m| m.model == name)
            .map(|m| m.summary_tau.value)
            .expect("model")
    };
    assert!(
        tau("only surface") > 0.8,
        "surface alone should order the summaries: {}",
        tau("only surface")
    );
    assert!(
        tau("without surface") < tau("only surface") - 0.3,
        "without the informative class: {} vs only it: {}",
        tau("without surface"),
        tau("only surface")
    );
    // The full model is not compared with itself; every other model is.
    assert!(report.models[0].summary_vs_full.is_none());
    let without = report.models[2]
        .summary_vs_full
        .expect("comparison with full");
    assert!(without.difference < 0.0);
    assert!(without.permutation_p > 0.0 && without.permutation_p <= 1.0);
    let only = report.models[1].summary_tau;
    assert!(only.lower <= only.value && only.value <= only.upper);

    // Markdown: header, separator, one line per model.
    let markdown = std::fs::read_to_string(&args.output).expect("markdown");
    let table: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), 2 + 5);
    assert!(table[0].contains("Summary τ-b [95% CI]") && table[0].contains("p system"));
    assert!(table.iter().all(|l| l.matches('|').count() == 12));
    assert!(table[0].ends_with("| Matched-length acc. [95% CI] |"));

    // CSV parses, has the columns and the same numbers.
    let (headers, records) = read_csv(&dir.path().join("ablate.csv"));
    assert_eq!(headers, CSV_COLUMNS);
    assert_eq!(records.len(), 5);
    for (record, model) in records.iter().zip(&report.models) {
        assert_eq!(&record[0], model.model);
        let value: f64 = record[4].parse().expect("summary_tau");
        assert!((value - model.summary_tau.value).abs() < 1e-12);
        // System-level Pearson r and pairwise accuracy with intervals (EVALUATION.md's
        // statistics; audit stop 54: ablate gave the two τ only).
        let pearson: f64 = record[16].parse().expect("system_pearson");
        assert!((pearson - model.system_pearson.value).abs() < 1e-12);
        let accuracy = model.system_pairwise_accuracy;
        assert!((0.0..=1.0).contains(&accuracy.value), "{accuracy:?}");
        assert!(accuracy.lower <= accuracy.value && accuracy.value <= accuracy.upper);
        assert_eq!(record[19].parse::<f64>().expect("accuracy"), accuracy.value);
        // Every summary has 26 words, so every pair is of matched length.
        let matched = model.length_matched_accuracy;
        assert!(matched.value.is_finite(), "{matched:?}");
        assert_eq!(record[22].parse::<f64>().expect("matched"), matched.value);
        assert!(matched.lower <= matched.value && matched.value <= matched.upper);
    }
    assert_eq!(&records[0][10], "", "full model has no comparison");
    assert!(records[2][12].parse::<f64>().is_ok());

    let svg = std::fs::read_to_string(dir.path().join("ablate.svg")).expect("svg");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<rect").count(),
        1 + 5,
        "background + one bar per model"
    );
}

#[test]
fn ablation_rejects_a_single_class_and_c_for_other_learners() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, mut args) = synthetic_ablation(dir.path(), &["surface"]);
    let cancel = AtomicBool::new(false);
    let err = ablate_command(&args, &FeatureOptions::default(), &cancel).expect_err("one class");
    assert!(format!("{err:#}").contains("at least two"), "{err:#}");
    args.learn.classes = vec!["surface".into(), "rouge".into()];
    args.learn.learner = LearnerKind::Ols;
    args.learn.hyper.c = Some(1.0);
    let err = ablate_command(&args, &FeatureOptions::default(), &cancel).expect_err("--c");
    assert!(format!("{err:#}").contains("--c"), "{err:#}");
}

/// `--features` that keep no column of a class leave that class out of the ablation, as they
/// leave it out of `train` and `cross-validate` (it failed after computing every feature: "class
/// content has no columns in the data set"); one class left is the usual usage error.
#[test]
fn ablation_takes_the_classes_that_keep_a_column_under_features() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, mut args) = synthetic_ablation(dir.path(), &["surface", "content", "rouge"]);
    args.learn.features = vec!["surface.*".into(), "rouge.*".into()];
    args.learn.hyper.c = Some(0.1);
    let cancel = AtomicBool::new(false);
    let report = ablate_command(&args, &FeatureOptions::default(), &cancel).expect("ablate");
    let names: Vec<&str> = report.models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(names, SURFACE_ROUGE_MODELS);
    assert_eq!(report.classes, ["surface", "rouge"]);
    args.learn.features = vec!["surface.*".into()];
    let err = ablate_command(&args, &FeatureOptions::default(), &cancel).expect_err("one class");
    assert!(
        format!("{err:#}").contains("at least two feature classes (got surface)"),
        "{err:#}"
    );
}

/// The synthetic set as another corpus shows it to `--set PATH:COLUMN`: topics renamed with
/// `prefix`, the score under `column` on another scale (`scale` of the 1-6 score).
fn renamed_set(prefix: &str, column: &str, scale: fn(f64) -> f64) -> Vec<Topic> {
    let mut topics = synthetic_set();
    for topic in &mut topics {
        topic.topic = format!("{prefix}{}", topic.topic);
        for summary in &mut topic.summaries {
            let h = summary.scores.remove("pyramid").expect("score");
            summary.scores.insert(column.into(), scale(h));
        }
    }
    topics
}

/// A second corpus: tenfold scale, column `quality`.
fn second_set() -> Vec<Topic> {
    renamed_set("U", "quality", |h| 10.0 * h)
}

/// Write `topics` as `name` in `dir`.
fn write_set(dir: &std::path::Path, name: &str, topics: &[Topic]) -> std::path::PathBuf {
    let path = dir.join(name);
    let file = std::fs::File::create(&path).expect("create");
    jsonl::write_set(std::io::BufWriter::new(file), topics).expect("write set");
    path
}

/// `aesop VERB --set S` for each of `sets`.
fn command_over_sets(verb: &str, sets: &[String]) -> assert_cmd::Command {
    let mut command = crate::common::aesop();
    command.arg(verb);
    for set in sets {
        command.arg("--set").arg(set);
    }
    command
}

/// A CSV file's header and records.
fn read_csv(path: &std::path::Path) -> (Vec<String>, Vec<csv::StringRecord>) {
    let mut reader = csv::Reader::from_path(path).expect("csv");
    let headers = reader
        .headers()
        .expect("headers")
        .iter()
        .map(String::from)
        .collect();
    let records = reader.records().map(|r| r.expect("record")).collect();
    (headers, records)
}

/// The summary τ of `model` in a protocol-1 ablation CSV.
fn protocol1_tau(records: &[csv::StringRecord], model: &str) -> f64 {
    records
        .iter()
        .find(|r| &r[0] == model)
        .unwrap_or_else(|| panic!("no row {model}"))[4]
        .parse()
        .expect("summary_tau")
}

/// Run a prepared `cross-validate` command with `--report` into `dir` and return the report's
/// summary τ.
fn cross_validated_tau(mut command: assert_cmd::Command, dir: &std::path::Path) -> f64 {
    let report = dir.join("cv.json");
    command
        .arg("-o")
        .arg(dir.join("cv.jsonl"))
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let report: serde_json::Value = crate::common::read_json(&report);
    report["summary_kendall_tau"].as_f64().expect("tau")
}

#[test]
fn ablation_pools_several_sets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, topics: &[Topic]| write_set(dir.path(), name, topics);
    let a = write("a.jsonl", &synthetic_set());
    let b = write("b.jsonl", &second_set());
    // `aesop ablate` of surface and rouge over a with column `pyramid` and b with `column_b`.
    let ablate = |column_b: &str| {
        let sets = [
            format!("{}:pyramid", a.display()),
            format!("{}:{column_b}", b.display()),
        ];
        let mut command = command_over_sets("ablate", &sets);
        command.args([
            "--target",
            "pyramid",
            "--classes",
            "surface,rouge",
            "--c",
            "0.1",
        ]);
        command
    };
    // `-o output` and the other outputs (`--csv`, `--chart`) of one protocol-1 ablation.
    let run_to = |output: &std::path::Path, others: &[(&str, &std::path::Path)]| {
        let mut command = ablate("quality");
        command.args([
            "--topic-folds",
            "4",
            "--system-folds",
            "2",
            "--bootstrap",
            "100",
        ]);
        command.arg("-o").arg(output);
        for (flag, path) in others {
            command.arg(flag).arg(path);
        }
        command.assert().success();
        std::fs::read_to_string(output).expect("written")
    };
    let (md, csv_path) = (dir.path().join("ablate.md"), dir.path().join("ablate.csv"));
    let markdown = run_to(&md, &[("--csv", &csv_path)]);
    assert!(
        markdown.contains("a.jsonl:pyramid") && markdown.contains("b.jsonl:quality"),
        "the report names both sets: {markdown}"
    );
    let (_, records) = read_csv(&csv_path);
    let tau = |model: &str| protocol1_tau(&records, model);
    // Both sets order their summaries by surface alone (the scales differ tenfold, which
    // per-set standardization and within-topic pairs make irrelevant).
    assert!(
        tau("only surface") > 0.8,
        "only surface: {}",
        tau("only surface")
    );
    assert!(tau("without surface") < tau("only surface") - 0.3);
    // `-o` named .csv or .svg writes what --csv or --chart writes (it wrote Markdown).
    let chart = dir.path().join("chart.svg");
    let as_csv = run_to(&dir.path().join("table.csv"), &[("--chart", &chart)]);
    assert_eq!(as_csv, std::fs::read_to_string(&csv_path).expect("--csv"));
    let as_svg = run_to(&dir.path().join("table.svg"), &[]);
    assert!(as_svg.starts_with("<svg"), "{}", &as_svg[..40]);
    assert_eq!(as_svg, std::fs::read_to_string(&chart).expect("--chart"));
    // A `.tsv` name, for `-o` or `--csv`, gets the CSV with tabs (Markdown and commas before).
    let tsv_path = dir.path().join("also.tsv");
    let as_tsv = run_to(&dir.path().join("table.tsv"), &[("--csv", &tsv_path)]);
    assert!(as_tsv.starts_with("model\t"), "{}", &as_tsv[..40]);
    assert_eq!(as_tsv.replace('\t', ","), as_csv);
    assert_eq!(std::fs::read_to_string(&tsv_path).expect("--csv"), as_tsv);

    // A set without the named column: the error names the file and the column.
    ablate("pyramid")
        .arg("-o")
        .arg(dir.path().join("never.md"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("b.jsonl: column 'pyramid'"));
    assert!(!dir.path().join("never.md").exists());
}

/// A third corpus: scores in [0.5, 1], column `grade`.
fn third_set() -> Vec<Topic> {
    renamed_set("V", "grade", |h| 0.5 + h / 12.0)
}

#[test]
fn ablation_leaves_one_set_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, topics: &[Topic]| write_set(dir.path(), name, topics);
    let sets = [
        format!("{}:pyramid", write("a.jsonl", &synthetic_set()).display()),
        format!("{}:quality", write("b.jsonl", &second_set()).display()),
        format!("{}:grade", write("c.jsonl", &third_set()).display()),
    ];
    let common = [
        "--target",
        "pyramid",
        "--classes",
        "surface,rouge",
        "--c",
        "0.1",
    ];
    let (md, csv_path, svg) = (
        dir.path().join("ablate.md"),
        dir.path().join("ablate.csv"),
        dir.path().join("ablate.svg"),
    );
    command_over_sets("ablate", &sets)
        .args(common)
        .args(["--leave-one-set-out", "--bootstrap", "50"])
        .arg("-o")
        .arg(&md)
        .arg("--csv")
        .arg(&csv_path)
        .arg("--chart")
        .arg(&svg)
        .assert()
        .success();

    // The tolerance of the accuracy at matched length is the flag's, recorded and said.
    let strict = dir.path().join("strict.md");
    command_over_sets("ablate", &sets)
        .args(common)
        .args([
            "--leave-one-set-out",
            "--bootstrap",
            "0",
            "--length-tolerance",
            "0.05",
        ])
        .arg("-o")
        .arg(&strict)
        .assert()
        .success();
    let strict = std::fs::read_to_string(&strict).expect("markdown");
    assert!(
        strict.contains("of summaries within 5% of each other in words"),
        "{strict}"
    );

    // Markdown: one column per held-out set, the mean, its difference and the count.
    let markdown = std::fs::read_to_string(&md).expect("markdown");
    assert!(markdown.contains("leave one set out"), "{markdown}");
    let table: Vec<&str> = markdown.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), 2 + 5, "{markdown}");
    for label in ["a.jsonl:pyramid", "b.jsonl:quality", "c.jsonl:grade"] {
        assert!(table[0].contains(label), "{}", table[0]);
    }
    assert!(
        table.iter().all(|l| l.matches('|').count() == 10),
        "{markdown}"
    );
    assert!(
        table[4].starts_with("| without surface") && table[4].contains("| 0 of 3 | 0."),
        "{}",
        table[4]
    );

    // CSV: one row per model and held-out set, then the model's mean.
    let (headers, records) = read_csv(&csv_path);
    assert_eq!(headers, CSV_COLUMNS_HELD_OUT);
    assert_eq!(records.len(), 5 * (3 + 1));
    let cell = |model: &str, set: &str, column: usize| -> Option<f64> {
        let record = records
            .iter()
            .find(|r| &r[0] == model && r[4].starts_with(set))
            .unwrap_or_else(|| panic!("no row {model} / {set}"));
        record[column].parse().ok()
    };
    for set in ["a.jsonl", "b.jsonl", "c.jsonl"] {
        // Surface carries the signal in every set, rouge only noise.
        let only = cell("only surface", set, 5).expect("tau");
        let without = cell("without surface", set, 5).expect("tau");
        assert!(only > 0.8, "only surface on {set}: {only}");
        assert!(without < only - 0.3, "without surface on {set}: {without}");
        // The difference is against the full model on the same set.
        let full = cell("full", set, 5).expect("tau");
        let difference = cell("only surface", set, 11).expect("difference");
        assert!(
            (difference - (only - full)).abs() < 1e-9,
            "{difference} vs {only} - {full}"
        );
        assert!(
            cell("full", set, 11).is_none(),
            "the full model has no comparison"
        );
        let p = cell("only rouge", set, 13).expect("permutation p");
        assert!(p > 0.0 && p <= 1.0);
    }
    let mean = cell("only rouge", "mean", 5).expect("mean");
    let by_set: f64 = ["a.jsonl", "b.jsonl", "c.jsonl"]
        .iter()
        .map(|s| cell("only rouge", s, 5).expect("tau"))
        .sum::<f64>()
        / 3.0;
    assert!((mean - by_set).abs() < 1e-12, "{mean} vs {by_set}");

    // The full model's held-out figures are those of `cross-validate --leave-one-set-out`
    // with the same sets and options.
    let report = dir.path().join("cv.json");
    command_over_sets("cross-validate", &sets)
        .args(common)
        .args(["--leave-one-set-out", "--bootstrap", "0"])
        .arg("-o")
        .arg(dir.path().join("cv.jsonl"))
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let report: serde_json::Value = crate::common::read_json(&report);
    let held_out = report["leave_one_set_out"]
        .as_array()
        .expect("held-out sets");
    assert_eq!(held_out.len(), 3);
    for entry in held_out {
        let set = entry["set"].as_str().expect("set");
        let expected = entry["model"]["summary_kendall"]["value"]
            .as_f64()
            .expect("tau");
        let got = cell("full", set, 5).expect("tau");
        assert!(
            (got - expected).abs() < 1e-12,
            "{set}: ablate {got}, cross-validate {expected}"
        );
        // System-level Pearson r too (both report it since stop 54).
        let expected = entry["model"]["system_pearson"]["value"]
            .as_f64()
            .expect("pearson");
        let got = cell("full", set, 14).expect("pearson");
        assert!(
            (got - expected).abs() < 1e-12,
            "{set}: ablate {got}, cross-validate {expected}"
        );
        // And the accuracy at matched length (all pairs here: every summary has 26 words).
        let expected = entry["model"]["input_length_matched_accuracy"]["value"]
            .as_f64()
            .expect("matched");
        let got = cell("full", set, 20).expect("matched");
        assert!(
            (got - expected).abs() < 1e-12,
            "{set}: ablate {got}, cross-validate {expected}"
        );
        let all_pairs = entry["model"]["input_pairwise_accuracy"]["value"]
            .as_f64()
            .expect("input accuracy");
        assert!((got - all_pairs).abs() < 1e-12, "{got} vs {all_pairs}");
    }
    // The report's own τ is the mean over the held-out sets, as ablate's `mean` row.
    assert!(
        (report["summary_kendall_tau"].as_f64().expect("tau")
            - cell("full", "mean", 5).expect("mean"))
        .abs()
            < 1e-12
    );

    let chart = std::fs::read_to_string(&svg).expect("svg");
    assert!(chart.contains("mean over the held-out sets"));
    assert_eq!(chart.matches("<rect").count(), 1 + 5);

    // One set is not enough: a usage error (exit 2) before any set is read, from both verbs
    // (cross-validate said it with exit 1 after reading the set, until stop 74).
    for verb in ["ablate", "cross-validate"] {
        command_over_sets(verb, &sets[..1])
            .args(common)
            .arg("--leave-one-set-out")
            .arg("-o")
            .arg(dir.path().join("never.md"))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("at least two sets"));
        assert!(!dir.path().join("never.md").exists());
    }
}

/// `statistics.summary.kendall` of `aesop evaluate --json` for one feature of `features` against
/// the set `human`'s column.
fn feature_summary_tau(
    dir: &std::path::Path,
    features: &std::path::Path,
    feature: &str,
    human: &std::path::Path,
    column: &str,
) -> f64 {
    let json = dir.join("evaluate.json");
    crate::common::aesop()
        .arg("evaluate")
        .arg(features)
        .args(["--feature", feature, "--target", column, "--bootstrap", "0"])
        .arg("--human")
        .arg(human)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let report: serde_json::Value = crate::common::read_json(&json);
    report["statistics"]["summary"]["kendall"]
        .as_f64()
        .expect("summary kendall")
}

#[test]
fn an_anchored_ablation_keeps_the_anchor_in_every_model() {
    // The anchor `surface.coverage` follows the score; `rouge` alone is noise (the tests above).
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, topics: &[Topic]| write_set(dir.path(), name, topics);
    let paths = [
        (write("a.jsonl", &synthetic_set()), "pyramid"),
        (write("b.jsonl", &second_set()), "quality"),
        (write("c.jsonl", &third_set()), "grade"),
    ];
    let sets: Vec<String> = paths
        .iter()
        .map(|(p, column)| format!("{}:{column}", p.display()))
        .collect();
    let common = [
        "--target",
        "pyramid",
        "--classes",
        "surface,rouge",
        "--c",
        "0.1",
        "--anchor",
        "surface.coverage",
        "--bootstrap",
        "50",
    ];

    // Protocol 2.
    let (md, csv_path) = (dir.path().join("loso.md"), dir.path().join("loso.csv"));
    command_over_sets("ablate", &sets)
        .args(common)
        .arg("--leave-one-set-out")
        .arg("-o")
        .arg(&md)
        .arg("--csv")
        .arg(&csv_path)
        .assert()
        .success();
    let markdown = std::fs::read_to_string(&md).expect("markdown");
    assert!(
        markdown.contains("anchored on `surface.coverage`")
            && markdown.contains("Hyper-parameters: `c 0.1` for every model. Seed 1."),
        "{markdown}"
    );
    let (_, records) = read_csv(&csv_path);
    let models: Vec<&str> = records
        .iter()
        .filter(|r| &r[4] == "mean")
        .map(|r| r.get(0).expect("model"))
        .collect();
    assert_eq!(
        models,
        [
            "full",
            "anchor alone",
            "only surface",
            "without surface",
            "only rouge",
            "without rouge"
        ]
    );
    let row = |model: &str, set: &str| {
        records
            .iter()
            .find(|r| &r[0] == model && r[4].starts_with(set))
            .unwrap_or_else(|| panic!("no row {model} / {set}"))
            .clone()
    };
    let tau = |model: &str, set: &str| -> f64 { row(model, set)[5].parse().expect("tau") };
    let features = |model: &str| -> usize { row(model, "mean")[3].parse().expect("features") };
    assert_eq!(&row("anchor alone", "mean")[1], "anchor");
    assert_eq!(features("anchor alone"), 1);
    // The anchor is in every model: rouge with it is rouge's columns and one more, the same
    // columns as everything but the rest of surface.
    assert_eq!(features("only rouge"), features("without surface"));
    assert_eq!(
        features("only rouge") + features("only surface"),
        features("full") + 1
    );
    for (path, column) in &paths {
        let set = path.file_name().and_then(|n| n.to_str()).expect("name");
        // Rouge alone is noise; with the anchor it orders the summaries.
        assert!(
            tau("only rouge", set) > 0.8,
            "only rouge with the anchor on {set}: {}",
            tau("only rouge", set)
        );
        assert!((tau("only rouge", set) - tau("without surface", set)).abs() < 1e-12);
        // The anchor alone orders each held-out set as the feature itself does.
        let table = dir.path().join("features.csv");
        crate::common::aesop()
            .arg("features")
            .arg(path)
            .args(["--classes", "surface", "-o"])
            .arg(&table)
            .assert()
            .success();
        let expected = feature_summary_tau(dir.path(), &table, "surface.coverage", path, column);
        assert!(
            (tau("anchor alone", set) - expected).abs() < 1e-12,
            "{set}: anchor alone {} against the feature's {expected}",
            tau("anchor alone", set)
        );
    }

    // Protocol 1 on one set: the full model is `cross-validate --anchor`'s, and rouge with the
    // anchor orders the summaries there too.
    let p1_csv = dir.path().join("p1.csv");
    let a = &paths[0].0;
    let folds = ["--topic-folds", "4", "--system-folds", "2"];
    crate::common::aesop()
        .arg("ablate")
        .arg(a)
        .args(common)
        .args(folds)
        .arg("-o")
        .arg(dir.path().join("p1.md"))
        .arg("--csv")
        .arg(&p1_csv)
        .assert()
        .success();
    let mut command = crate::common::aesop();
    command
        .arg("cross-validate")
        .arg(a)
        .args(common)
        .args(folds);
    let expected = cross_validated_tau(command, dir.path());
    let (_, records) = read_csv(&p1_csv);
    let tau = |model: &str| protocol1_tau(&records, model);
    assert_eq!(records.len(), 6);
    assert!(
        (tau("full") - expected).abs() < 1e-12,
        "ablate {} against cross-validate {expected}",
        tau("full")
    );
    assert!(tau("only rouge") > 0.8, "only rouge: {}", tau("only rouge"));
}

#[test]
fn a_pooled_ablation_weighs_the_sets_as_cross_validate_does() {
    // A set of 8 topics and one of 3 whose scores run the other way: with --equal-set-weights
    // the small set's rows are repeated in training, so its weight (and the full model) grows.
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, topics: &[Topic]| write_set(dir.path(), name, topics);
    let small: Vec<Topic> = renamed_set("U", "quality", |h| 7.0 - h)
        .into_iter()
        .take(3)
        .collect();
    let sets = [
        format!("{}:pyramid", write("a.jsonl", &synthetic_set()).display()),
        format!("{}:quality", write("b.jsonl", &small).display()),
    ];
    let common = [
        "--target",
        "pyramid",
        "--classes",
        "surface,rouge",
        "--c",
        "0.1",
        "--topic-folds",
        "3",
        "--system-folds",
        "2",
        "--bootstrap",
        "0",
    ];
    let mut taus = Vec::new();
    for weights in [&[][..], &["--equal-set-weights"][..]] {
        let csv_path = dir.path().join("ablate.csv");
        command_over_sets("ablate", &sets)
            .args(common)
            .args(weights)
            .arg("-o")
            .arg(dir.path().join("ablate.md"))
            .arg("--csv")
            .arg(&csv_path)
            .assert()
            .success();
        let (_, records) = read_csv(&csv_path);
        let full = protocol1_tau(&records, "full");
        let mut command = command_over_sets("cross-validate", &sets);
        command.args(common).args(weights);
        let expected = cross_validated_tau(command, dir.path());
        assert!(
            (full - expected).abs() < 1e-12,
            "{weights:?}: ablate {full}, cross-validate {expected}"
        );
        taus.push(full);
    }
    assert!(
        (taus[0] - taus[1]).abs() > 1e-9,
        "equal set weights change the full model: {taus:?}"
    );
}

/// Fold counts protocol 1 cannot use (fewer than 2 topic folds or 1 system fold, outer or a
/// stacked model's inner split) are usage errors (exit 2) found from the flags alone: the set
/// named here does not exist, so a check made after reading it would say "cannot open" instead.
/// They exited 1 once the set was read and its features computed, until stop 75.
#[test]
fn fold_counts_protocol_1_cannot_use_are_usage_errors_before_any_set_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.jsonl");
    let output = dir.path().join("never.md");
    let stack = [
        "--stack",
        "a=relevance:surface:0.001",
        "--stack",
        "b=coherence:surface:0.001",
    ];
    let cases: [(&str, Vec<&str>, &str); 6] = [
        (
            "cross-validate",
            vec!["--classes", "surface", "--topic-folds", "1"],
            "got 1 and 4",
        ),
        (
            "cross-validate",
            vec!["--classes", "surface", "--system-folds", "0"],
            "got 5 and 0",
        ),
        (
            "ablate",
            vec!["--classes", "surface,rouge", "--topic-folds", "0"],
            "got 0 and 4",
        ),
        (
            "ablate",
            vec!["--classes", "surface,rouge", "--system-folds", "0"],
            "got 5 and 0",
        ),
        (
            "train",
            [&stack[..], &["--stack-topic-folds", "1"]].concat(),
            "got 1 and 2",
        ),
        (
            "cross-validate",
            [&stack[..], &["--stack-system-folds", "0"]].concat(),
            "got 3 and 0",
        ),
    ];
    for (verb, flags, counts) in cases {
        let assert = crate::common::aesop()
            .arg(verb)
            .arg(&missing)
            .args(["--target", "relevance"])
            .args(&flags)
            .arg("-o")
            .arg(&output)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(
            stderr.contains("at least 2 topic folds and 1 system fold") && stderr.contains(counts),
            "{verb} {flags:?}: {stderr}"
        );
        let flag = if flags.iter().any(|f| f.starts_with("--stack-")) {
            "--stack-topic-folds, --stack-system-folds"
        } else {
            "--topic-folds, --system-folds"
        };
        assert!(stderr.contains(flag), "{verb} {flags:?}: {stderr}");
        assert!(
            !stderr.contains("cannot open") && !output.exists(),
            "{stderr}"
        );
    }
}

/// One corpus judged on two columns counts its topics and systems once, under protocol 1 and
/// under protocol 2 beside another corpus (they were counted once per column).
#[test]
fn ablation_counts_a_corpus_of_several_columns_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut topics = synthetic_set();
    for topic in &mut topics {
        for summary in &mut topic.summaries {
            let h = summary.scores["pyramid"];
            summary.scores.insert("grade".into(), 0.5 + h / 12.0);
        }
    }
    let a = write_set(dir.path(), "a.jsonl", &topics);
    let b = write_set(dir.path(), "b.jsonl", &second_set());
    let (_, mut args) = synthetic_ablation(dir.path(), &["surface", "rouge"]);
    args.learn.set = None;
    args.learn.hyper.c = Some(0.1);
    let spec =
        |path: &std::path::Path, column: &str| aesop::learn::transfer::SetSpec::new(path, column);
    args.learn.transfer.sets = vec![spec(&a, "pyramid"), spec(&a, "grade")];
    let cancel = AtomicBool::new(false);
    let report = ablate_command(&args, &FeatureOptions::default(), &cancel).expect("protocol 1");
    assert_eq!((report.topics, report.systems), (8, 6));
    args.learn.transfer.sets.push(spec(&b, "quality"));
    args.leave_one_set_out = true;
    // Protocol 2 takes no fold counts (the defaults are what the command line leaves).
    args.topic_folds = aesop::learn::commands::DEFAULT_TOPIC_FOLDS;
    args.system_folds = aesop::learn::commands::DEFAULT_SYSTEM_FOLDS;
    let report = ablate_command(&args, &FeatureOptions::default(), &cancel).expect("protocol 2");
    assert_eq!(report.held_out_sets.len(), 3);
    assert_eq!((report.topics, report.systems), (16, 12));
}
