//! Issue 13: several judgment sets in one training, within-topic normalization, calibrated
//! scores, and model files from before these changes.

use crate::common;

use aesop::corpus::{jsonl, Document, Reference, Summary, Topic};
use aesop::features::FeatureOptions;
use aesop::learn::commands::{train_command, LearnArgs, TrainArgs};
use aesop::learn::learners::within_group_pairs;
use aesop::learn::model_file::ModelFile;
use aesop::learn::transfer::{
    normalize_column, parse_set_spec, pool, Calibration, Normalization, PoolOptions, SetData,
    SetSpec,
};
use aesop::learn::Dataset;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// A small judgment set: `topics` topics of 5 summaries whose `quality` grows with their length.
/// Topic ids start with the file's stem (`a-t0`), so two sets never hold the same summaries
/// (sets that do are refused by `cross-validate` and `ablate`).
pub(crate) fn write_set(path: &Path, topics: usize, scale: f64) {
    let words = "the council approved the new budget for schools and roads after a long debate";
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let mut set = Vec::new();
    for t in 0..topics {
        let mut topic = Topic::new(format!("{stem}-t{t}"));
        topic.documents.push(Document::new(
            "d",
            format!("{words}. {words} again in topic {t}."),
        ));
        topic.references.push(Reference::new("r", words));
        for s in 0..5 {
            let text: Vec<&str> = words.split(' ').take(3 + 2 * s + t % 2).collect();
            let mut summary = Summary::new(format!("sys{s}"), text.join(" "));
            summary
                .scores
                .insert("quality".into(), scale * (s as f64 + 1.0) + t as f64 * 0.1);
            topic.summaries.push(summary);
        }
        set.push(topic);
    }
    let file = std::fs::File::create(path).expect("create set");
    jsonl::write_set(std::io::BufWriter::new(file), &set).expect("write set");
}

fn set_data(name: &str, column: &str, topics: &[&str], targets: &[f64]) -> SetData {
    SetData {
        spec: SetSpec::new(name, column),
        data: Dataset {
            names: vec!["f.x".into()],
            rows: targets.iter().map(|&t| vec![t]).collect(),
            targets: targets.to_vec(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
            systems: (0..targets.len()).map(|i| format!("s{i}")).collect(),
        },
    }
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
    let err = train_command(
        &TrainArgs {
            learn,
            output: dir.path().join("m.aesop"),
            report: None,
        },
        &FeatureOptions::default(),
        &AtomicBool::new(false),
    )
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
    let file = train_command(
        &TrainArgs {
            learn,
            output: model.clone(),
            report: None,
        },
        &FeatureOptions::default(),
        &AtomicBool::new(false),
    )
    .expect("train");
    let cal = file.transfer.calibration.expect("calibrated");
    assert!(cal.slope >= 0.0 && cal.min >= 1.0 && cal.max <= 5.5 + 1e-9);
    let loaded = ModelFile::load(&model).expect("load");
    assert_eq!(loaded.transfer, file.transfer);
    let bytes = std::fs::read(&model).expect("read");
    // Trained now: calibration and the features' training ranges (format 5).
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().expect("4")), 5);
    let ranges = loaded
        .feature_ranges
        .as_ref()
        .expect("training ranges stored");
    assert_eq!(ranges.len(), loaded.feature_names.len());
    assert!(ranges.iter().all(|r| r.min <= r.max));
    let out = dir.path().join("pred.jsonl");
    let scored = common_score(&set, &model, &out);
    assert_eq!(scored.len(), 30);
    for line in std::fs::read_to_string(&out).expect("read").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let score = v["score"].as_f64().expect("score");
        let raw = v["raw"].as_f64().expect("raw kept");
        assert!((cal.min..=cal.max).contains(&score), "{line}");
        assert!((cal.apply(raw) - score).abs() < 1e-9, "{line}");
    }
}

fn common_score(set: &Path, model: &Path, out: &Path) -> Vec<(String, f64)> {
    use aesop::learn::commands::{score_command, ScoreArgs};
    let args = ScoreArgs {
        set: Some(set.to_path_buf()),
        model: vec![model.display().to_string()],
        neural: false,
        documents: Vec::new(),
        summary: Vec::new(),
        reference: Vec::new(),
        output: Some(out.to_path_buf()),
        format: None,
    };
    score_command(&args, &AtomicBool::new(false)).expect("score")
}

#[test]
fn a_model_file_from_before_calibration_still_loads_and_scores_raw() {
    let path = common::fixture("learn/responsiveness-noref-format1.aesop");
    let bytes = std::fs::read(&path).expect("fixture");
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4"));
    assert!(version <= 2, "the fixture predates format 3");
    let model = ModelFile::load(&path).expect("old model loads");
    assert_eq!(model.transfer.normalization, Normalization::None);
    assert!(model.transfer.calibration.is_none() && model.transfer.sets.is_empty());
    // Re-saved unchanged it stays in its old format version (older aesop builds can read it).
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().join("copy.aesop");
    model.save(&copy).expect("save");
    let again = std::fs::read(&copy).expect("read");
    assert_eq!(
        u32::from_le_bytes(again[8..12].try_into().expect("4")),
        version
    );
    // A truncated transfer trailer of a format-3 file is an error, not a silent default.
    let mut file = ModelFile::load(&path).expect("load");
    file.transfer.calibration = Some(Calibration {
        slope: 1.0,
        intercept: 0.0,
        min: 1.0,
        max: 5.0,
    });
    let mut v3 = file.to_bytes().expect("encode");
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([v3[12], v3[13]]) as usize;
    let len = u64::from_le_bytes(v3[len_at..len_at + 8].try_into().expect("8"));
    v3.truncate(v3.len() - 3);
    v3[len_at..len_at + 8].copy_from_slice(&(len - 3).to_le_bytes());
    let payload_start = len_at + 16;
    let checksum = aesop::learn::model_file::fnv1a64(&v3[payload_start..]);
    v3[len_at + 8..len_at + 16].copy_from_slice(&checksum.to_le_bytes());
    let err = ModelFile::from_bytes(&v3, "v3.aesop").expect_err("truncated trailer");
    assert!(err.to_string().contains("v3.aesop"), "{err}");
}

/// Re-seal `bytes` (a model file) after its payload was changed: length and checksum.
fn reseal(bytes: &mut Vec<u8>, payload: Vec<u8>) {
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
    bytes.truncate(len_at);
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&aesop::learn::model_file::fnv1a64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
}

#[test]
fn neural_options_are_recorded_in_format_4_and_old_readers_refuse_it() {
    use aesop::features::neural::NeuralPrompt;
    use aesop::learn::model_file::NeuralRecord;
    let path = common::fixture("learn/responsiveness-noref-format1.aesop");
    let mut model = ModelFile::load(&path).expect("old model loads");
    assert!(
        model.neural.is_none(),
        "files before format 4 have no neural options"
    );
    let record = NeuralRecord {
        source_tokens: 700,
        max_references: 0,
        max_scored_tokens: 256,
        prompt: NeuralPrompt::Plain,
    };
    model.neural = Some(record.clone());
    let bytes = model.to_bytes().expect("encode");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().expect("4")), 4);
    let back = ModelFile::from_bytes(&bytes, "v4.aesop").expect("decode");
    assert_eq!(back.neural, Some(record.clone()));
    // Without calibration the (default) transfer information is still written before it.
    assert_eq!(back.transfer, model.transfer);
    // A file that claims format 3 may not carry a third value.
    let mut v3 = bytes.clone();
    v3[8..12].copy_from_slice(&3u32.to_le_bytes());
    let err = ModelFile::from_bytes(&v3, "claims-v3.aesop").expect_err("extra value");
    assert!(err.to_string().contains("claims-v3.aesop"), "{err}");
    // A truncated neural record is an error naming the file.
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
    let payload = bytes[len_at + 16..bytes.len() - 1].to_vec();
    let mut cut = bytes.clone();
    reseal(&mut cut, payload);
    let err = ModelFile::from_bytes(&cut, "cut.aesop").expect_err("truncated");
    assert!(err.to_string().contains("cut.aesop"), "{err}");
    // Format 5: the neural options (here present, then absent) and the feature ranges.
    model.feature_ranges = Some(aesop::learn::model_file::feature_ranges(
        &[vec![1.0; model.feature_names.len()]],
        model.feature_names.len(),
    ));
    for neural in [Some(record.clone()), None] {
        model.neural = neural.clone();
        let bytes = model.to_bytes().expect("encode");
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().expect("4")), 5);
        let back = ModelFile::from_bytes(&bytes, "v5.aesop").expect("decode");
        assert_eq!(back.neural, neural);
        assert_eq!(back.feature_ranges, model.feature_ranges);
    }
    // Format 6: the chat prompt, appended after the feature ranges; a plain-prompt model stays
    // at format 5, which older builds read, and every older file decodes to the plain prompt.
    let chat = NeuralRecord {
        prompt: NeuralPrompt::Chat,
        ..record.clone()
    };
    model.neural = Some(chat.clone());
    let bytes = model.to_bytes().expect("encode");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().expect("4")), 6);
    let back = ModelFile::from_bytes(&bytes, "v6.aesop").expect("decode");
    assert_eq!(back.neural, Some(chat));
    // A file that claims format 5 may not carry the prompt.
    let mut v5 = bytes.clone();
    v5[8..12].copy_from_slice(&5u32.to_le_bytes());
    let err = ModelFile::from_bytes(&v5, "claims-v5.aesop").expect_err("extra value");
    assert!(err.to_string().contains("claims-v5.aesop"), "{err}");
    // An unknown prompt name is an error naming the file and the name.
    let len_at = 8 + 4 + 2 + u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
    let mut payload = bytes[len_at + 16..].to_vec();
    let at = payload.len() - 4;
    payload[at..].copy_from_slice(b"chit");
    let mut odd = bytes.clone();
    reseal(&mut odd, payload);
    let err = ModelFile::from_bytes(&odd, "odd.aesop").expect_err("unknown prompt");
    let msg = err.to_string();
    assert!(msg.contains("odd.aesop") && msg.contains("chit"), "{msg}");
}

/// `cross-validate --leave-one-set-out` end to end: one table row per held-out set, each
/// trained on the other sets only; without bootstrap samples the intervals, the paired test and
/// an undefined MAE print as `—`, never `NaN`; the JSON report carries the same sets.
#[test]
fn leave_one_set_out_reports_every_held_out_set_without_nan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths: Vec<_> = ["a", "b", "c"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let path = dir.path().join(format!("{name}.jsonl"));
            write_set(&path, 4 + i, 1.0 + i as f64);
            path
        })
        .collect();
    let report = dir.path().join("loso.json");
    let mut cmd = common::aesop();
    cmd.arg("cross-validate");
    for p in &paths {
        cmd.arg("--set").arg(format!("{}:quality", p.display()));
    }
    let out = cmd
        .args(["--classes", "surface", "--c", "0.01", "--leave-one-set-out"])
        .args(["--bootstrap", "0", "-o"])
        .arg(dir.path().join("oof.jsonl"))
        .arg("--report")
        .arg(&report)
        .output()
        .expect("cross-validate");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("protocol 2 (leave one set out"), "{stdout}");
    assert!(!stdout.contains("NaN"), "{stdout}");
    assert!(stdout.contains("[—, —]"), "{stdout}");
    for name in ["a.jsonl:quality", "b.jsonl:quality", "c.jsonl:quality"] {
        assert_eq!(
            stdout
                .lines()
                .filter(|l| l.starts_with(&format!("| {name} |")))
                .count(),
            1,
            "{name}: {stdout}"
        );
    }
    let json: serde_json::Value = common::read_json(&report);
    let held = json["leave_one_set_out"].as_array().expect("held-out sets");
    assert_eq!(held.len(), 3);
    assert!(
        json.get("statistics").is_none(),
        "protocol 2 reports per held-out set"
    );
    // What reproduces the intervals (audit stop 53: the sample count was not recorded) and
    // which data they measured.
    assert_eq!(json["bootstrap"], 0, "{json}");
    let hashes = json["set_hashes"].as_array().expect("set_hashes");
    assert_eq!(hashes.len(), 3);
    assert!(hashes[0].as_str().is_some_and(|h| h.len() == 16), "{json}");
    assert!(json["written_by"]
        .as_str()
        .is_some_and(|w| w.starts_with("aesop ")));
    for h in held {
        let trained_on = h["trained_on"].as_array().expect("trained_on");
        assert_eq!(trained_on.len(), 2, "{h}");
        assert!(
            !trained_on.iter().any(|t| t
                .as_str()
                .expect("name")
                .starts_with(&format!("{}:", h["set"].as_str().expect("set")))),
            "{h}: trained on its own held-out set"
        );
        // Summary length orders every topic's summaries exactly as `quality` does.
        let tau = h["model"]["summary_kendall"]["value"]
            .as_f64()
            .expect("tau");
        assert!(tau > 0.9, "{h}");
    }
    // The report's own τ are the means over the held-out sets (audit stop 54: they were pooled
    // over every held-out row, so the system level compared three models' raw scales).
    for (field, statistic) in [
        ("summary_kendall_tau", "summary_kendall"),
        ("system_kendall_tau", "system_kendall"),
    ] {
        let mean = held
            .iter()
            .map(|h| h["model"][statistic]["value"].as_f64().expect("value"))
            .sum::<f64>()
            / held.len() as f64;
        let reported = json[field].as_f64().expect(field);
        assert!(
            (reported - mean).abs() < 1e-12,
            "{field}: {reported} vs {mean}"
        );
    }
    let mean_row = stdout
        .lines()
        .find(|l| l.starts_with("| mean over held-out sets |"))
        .unwrap_or_else(|| panic!("no mean row: {stdout}"));
    assert!(
        mean_row.contains(&format!(
            "| {:.3} |",
            json["summary_kendall_tau"].as_f64().expect("tau")
        )),
        "{mean_row}"
    );
}

/// [`write_set`] with `topics` topics as `dir/refs.jsonl`, and the same set without its
/// references as `dir/norefs.jsonl`.
fn write_set_with_and_without_references(
    dir: &Path,
    topics: usize,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let with_refs = dir.join("refs.jsonl");
    write_set(&with_refs, topics, 1.0);
    let mut set = jsonl::read_set(&with_refs).expect("read");
    for t in &mut set {
        t.references.clear();
    }
    let no_refs = dir.join("norefs.jsonl");
    let file = std::fs::File::create(&no_refs).expect("create");
    jsonl::write_set(std::io::BufWriter::new(file), &set).expect("write");
    (with_refs, no_refs)
}

/// A set without references gives the reference features no value on any summary: learning
/// only from them is an error naming the set and the way out, and a model that also has
/// reference-free features is trained with a warning naming the missing ones.
#[test]
fn features_without_a_value_on_any_summary_are_named_not_silently_learned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (with_refs, no_refs) = write_set_with_and_without_references(dir.path(), 5);

    // `train SET --classes CLASSES -o OUT`: whether it succeeded, and its stderr.
    let train = |set: &Path, classes: &str, out: &Path| {
        let output = common::run_train(
            set,
            &["--target", "quality", "--classes", classes, "--c", "0.01"],
            out,
        );
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.success(), stderr)
    };

    let only_rouge = dir.path().join("rouge.aesop");
    let (ok, stderr) = train(&no_refs, "rouge", &only_rouge);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("norefs.jsonl") && stderr.contains("none of the model's 12 features"),
        "{stderr}"
    );
    assert!(stderr.contains("--no-references"), "{stderr}");
    assert!(!only_rouge.exists(), "no model file from an error");

    let mixed = dir.path().join("mixed.aesop");
    let (ok, stderr) = train(&no_refs, "rouge,surface", &mixed);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("warning: ")
            && stderr.contains("12 of ")
            && stderr.contains("rouge.r1_recall"),
        "{stderr}"
    );
    assert!(mixed.exists());
    // With references the same classes train without a warning.
    let (ok, stderr) = train(&with_refs, "rouge,surface", &dir.path().join("refs.aesop"));
    assert!(ok, "{stderr}");
    assert!(!stderr.contains("no value on any summary"), "{stderr}");
}

/// `--neural-references 0` turns the LM's reference features off. Their columns stay in the
/// model (missing, as in every model trained before), but `train` no longer warns on every run
/// that they teach nothing; the warning is left for features the data lacks, such as the same
/// reference features on a set without references.
#[test]
fn features_turned_off_by_options_get_no_missing_value_warning() {
    if !common::neural_model_or_skip("features_turned_off_by_options_get_no_missing_value_warning")
    {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let (with_refs, no_refs) = write_set_with_and_without_references(dir.path(), 3);

    for (set, references, warned) in [(&with_refs, "0", false), (&no_refs, "1", true)] {
        let out = dir.path().join(format!("m{references}.aesop"));
        let output = common::aesop()
            .env_remove("AESOP_NEURAL_CACHE")
            .arg("train")
            .arg(set)
            .args(["--target", "quality", "--classes", "surface,neural"])
            .args(["--neural-references", references, "--c", "0.01", "-o"])
            .arg(&out)
            .output()
            .expect("train");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert_eq!(
            stderr.contains("no value on any summary") && stderr.contains("neural.ref_precision"),
            warned,
            "--neural-references {references}: {stderr}"
        );
        let model = ModelFile::load(&out).expect("model");
        let reference_columns = model
            .feature_names
            .iter()
            .filter(|n| n.starts_with("neural.ref_"))
            .count();
        assert_eq!(reference_columns, 3, "{:?}", model.feature_names);
    }
}

/// Protocol 1's report carries every statistic of `aesop evaluate` on its own out-of-fold
/// file (Pearson, Spearman, the pairwise accuracies with the model's ties), equal to what
/// `evaluate` computes from that file, and its τ-b fields agree with them.
#[test]
fn protocol_one_report_has_evaluates_statistics_of_its_out_of_fold_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    write_set(&set, 10, 1.0);
    let (oof, report) = (dir.path().join("oof.jsonl"), dir.path().join("r.json"));
    let out = common::aesop()
        .arg("cross-validate")
        .arg(&set)
        .args([
            "--target",
            "quality",
            "--classes",
            "surface",
            "--c",
            "0.01",
            "-o",
        ])
        .arg(&oof)
        .arg("--report")
        .arg(&report)
        .output()
        .expect("cross-validate");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("summary-level Pearson r"), "{stdout}");
    assert!(stdout.contains("input-level pairwise accuracy"), "{stdout}");
    let json: serde_json::Value = common::read_json(&report);
    let stats = &json["statistics"];
    let number = |v: &serde_json::Value| v.as_f64().expect("number");
    common::assert_within(
        number(&stats["summary"]["kendall"]),
        number(&json["summary_kendall_tau"]),
        1e-12,
    );
    common::assert_within(
        number(&stats["system"]["kendall"]),
        number(&json["system_kendall_tau"]),
        1e-12,
    );
    let input = &stats["input_pairwise"];
    let pairs = input["pairs"].as_u64().expect("pairs");
    assert!(pairs > 0 && input["correct"].as_u64().expect("correct") <= pairs);

    let evaluated = dir.path().join("e.json");
    let run = common::aesop()
        .arg("evaluate")
        .arg(&oof)
        .arg("--human")
        .arg(&set)
        .args(["--target", "quality", "--bootstrap", "0", "--json"])
        .arg(&evaluated)
        .output()
        .expect("evaluate");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let evaluated: serde_json::Value = common::read_json(&evaluated);
    let theirs = &evaluated["statistics"];
    for (level, statistic) in [
        ("summary", "pearson"),
        ("summary", "spearman"),
        ("summary", "kendall"),
        ("system", "pearson"),
        ("system_pairwise", "accuracy"),
        ("input_pairwise", "accuracy"),
    ] {
        common::assert_within(
            number(&stats[level][statistic]),
            number(&theirs[level][statistic]),
            1e-12,
        );
    }
    assert_eq!(
        input["metric_ties"],
        theirs["input_pairwise"]["metric_ties"]
    );
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

/// Fold flags say what runs: more folds than topics use one per topic and the report says so
/// (it gave the number asked for); protocol 1's folds beside --leave-one-set-out, and a stacked
/// model's inner split without --stack, are refused (they were accepted and ignored).
#[test]
fn fold_flags_are_checked_and_reported_as_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = crate::cli_verbs::imported_sample(dir.path(), "sample.jsonl");
    let report = dir.path().join("report.json");
    let cv = || {
        let mut command = common::aesop();
        command
            .arg("cross-validate")
            .arg(&sample)
            .args([
                "--target",
                "relevance",
                "--classes",
                "surface",
                "--c",
                "0.01",
            ])
            .args(["--bootstrap", "0", "-o"])
            .arg(dir.path().join("oof.jsonl"))
            .arg("--report")
            .arg(&report);
        command
    };
    let out = cv()
        .args(["--topic-folds", "50"])
        .output()
        .expect("cross-validate");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("50×4 folds asked for, 10×4 used"));
    let json: serde_json::Value = common::read_json(&report);
    assert_eq!(
        (&json["topic_folds"], &json["system_folds"]),
        (&10.into(), &4.into())
    );
    // The report records what reproduces it: hyper-parameters, columns, options.
    assert_eq!(json["hyper"], "RankSvm { c: 0.01 }");
    assert_eq!(
        json["feature_names"].as_array().map(Vec::len),
        json["features"].as_u64().map(|n| n as usize)
    );
    assert_eq!(json["feature_options_changed"], serde_json::json!({}));

    let set = format!("{}:relevance", sample.display());
    let out = common::aesop()
        .arg("cross-validate")
        .args([
            "--set",
            &set,
            "--set",
            &set.replace("relevance", "coherence"),
        ])
        .args([
            "--target",
            "relevance",
            "--leave-one-set-out",
            "--topic-folds",
            "3",
            "-o",
        ])
        .arg(dir.path().join("loso.jsonl"))
        .output()
        .expect("cross-validate");
    // A usage error (exit 2), as in `ablate`.
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--topic-folds and --system-folds are protocol 1's"));

    let out = cv()
        .args(["--stack-topic-folds", "2"])
        .output()
        .expect("cross-validate");
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --stack too"));
}

#[test]
fn sets_holding_the_same_summaries_are_refused_where_they_would_inflate_figures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    write_set(&a, 4, 1.0);
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&a, &copy).expect("copy");
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

/// The same check for each base of a stacked model: a base learning only from reference
/// features on a set without references is an error naming the base (it trained a model that
/// fed its meta learner a constant, exit 0), and in `cross-validate` too.
#[test]
fn a_stack_base_without_a_value_on_any_summary_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, no_refs) = write_set_with_and_without_references(dir.path(), 5);
    for verb in ["train", "cross-validate"] {
        let out = common::aesop()
            .arg(verb)
            .arg(&no_refs)
            .args(["--target", "quality"])
            .args([
                "--stack",
                "words=quality:surface",
                "--stack",
                "overlap=quality:rouge",
            ])
            .arg("-o")
            .arg(dir.path().join(format!("{verb}.out")))
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{verb}: {stderr}");
        assert!(
            stderr.contains("(--stack base 'overlap'): none of the model's")
                && stderr.contains("the set has no references"),
            "{verb}: {stderr}"
        );
        assert!(!dir.path().join(format!("{verb}.out")).exists());
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

/// "Nothing to learn" errors say which training data had nothing: a protocol-1 cell (two
/// systems in two system folds leave one system to train on) or the sets left when one is held
/// out. They read as if the set itself had no pairs.
#[test]
fn nothing_to_learn_names_the_cell_or_the_held_out_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let two = dir.path().join("two.jsonl");
    write_set(&two, 4, 1.0);
    let mut set = jsonl::read_set(&two).expect("read");
    for t in &mut set {
        t.summaries.truncate(2);
    }
    jsonl::write_set(
        std::io::BufWriter::new(std::fs::File::create(&two).expect("create")),
        &set,
    )
    .expect("write");
    let flat = dir.path().join("flat.jsonl");
    for t in &mut set {
        for s in &mut t.summaries {
            s.scores.insert("quality".into(), 3.0);
        }
    }
    jsonl::write_set(
        std::io::BufWriter::new(std::fs::File::create(&flat).expect("create")),
        &set,
    )
    .expect("write");
    let a = dir.path().join("a.jsonl");
    write_set(&a, 4, 1.0);

    let out = common::aesop()
        .arg("cross-validate")
        .arg(&two)
        .args(["--target", "quality", "--classes", "surface", "-o"])
        .arg(dir.path().join("o.jsonl"))
        .output()
        .expect("cross-validate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("protocol-1 cell (topic fold 1, system fold 1), trained on")
            && stderr.contains("no topic has two summaries with different scores"),
        "{stderr}"
    );
    let out = common::aesop()
        .arg("cross-validate")
        .arg("--set")
        .arg(format!("{}:quality", a.display()))
        .arg("--set")
        .arg(format!("{}:quality", flat.display()))
        .args(["--classes", "surface", "--leave-one-set-out", "-o"])
        .arg(dir.path().join("l.jsonl"))
        .output()
        .expect("cross-validate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "training on every set but {}:quality (to score it held out)",
            a.display()
        )),
        "{stderr}"
    );
}

/// `ablate --leave-one-set-out` took fold flags and ignored them; a usage error now (exit 2),
/// before any set is read.
#[test]
fn ablate_refuses_fold_flags_under_leave_one_set_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    write_set(&a, 4, 1.0);
    write_set(&b, 4, 2.0);
    let out = common::aesop()
        .arg("ablate")
        .arg("--set")
        .arg(format!("{}:quality", a.display()))
        .arg("--set")
        .arg(format!("{}:quality", b.display()))
        .args(["--classes", "surface,content", "--leave-one-set-out"])
        .args(["--topic-folds", "3", "-o"])
        .arg(dir.path().join("ab.md"))
        .output()
        .expect("ablate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--topic-folds and --system-folds are protocol 1's"),
        "{stderr}"
    );
    assert!(!dir.path().join("ab.md").exists());
}

/// `evaluate` reads protocol 2's predictions file as written: the lines of the --human file's
/// set (the file holds every held-out set), and with `--predicted` the lines of a model whose
/// target is not the held-out set's column (audit stop 54: a responsiveness model's lines for
/// REALSumm could not be judged against its pyramid column).
#[test]
fn evaluate_reads_the_held_out_lines_of_one_set_of_a_leave_one_set_out_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = common::aesop();
    cmd.arg("cross-validate");
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let path = dir.path().join(format!("{name}.jsonl"));
        write_set(&path, 4 + i, 1.0 + i as f64);
        cmd.arg("--set").arg(format!("{}:quality", path.display()));
    }
    let oof = dir.path().join("oof.jsonl");
    let report = dir.path().join("loso.json");
    cmd.args(["--target", "responsiveness", "--classes", "surface"])
        .args([
            "--c",
            "0.01",
            "--leave-one-set-out",
            "--bootstrap",
            "0",
            "-o",
        ])
        .arg(&oof)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let json: serde_json::Value = common::read_json(&report);
    let held_b = json["leave_one_set_out"]
        .as_array()
        .expect("held-out sets")
        .iter()
        .find(|h| h["set"] == "b.jsonl")
        .expect("b held out")
        .clone();

    let evaluate = |extra: &[&str]| {
        let out = common::aesop()
            .arg("evaluate")
            .arg(&oof)
            .arg("--human")
            .arg(dir.path().join("b.jsonl"))
            .args(["--target", "quality", "--bootstrap", "0"])
            .args(extra)
            .output()
            .expect("evaluate");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, _, stderr) = evaluate(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("no prediction for target 'quality' (targets in the file: responsiveness; --predicted TARGET"),
        "{stderr}"
    );
    let (code, stdout, stderr) = evaluate(&["--predicted", "responsiveness"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("[set b.jsonl] [predicts responsiveness]"),
        "{stdout}"
    );
    // b's 5 topics of 5 summaries only, not the 35 rows of the three sets.
    assert!(
        stdout.contains("rows: 25 matched (25 metric, 25 human;"),
        "{stdout}"
    );
    let tau = format!(
        "{:.3}",
        held_b["model"]["summary_kendall"]["value"]
            .as_f64()
            .expect("tau")
    );
    let summary_line = stdout
        .lines()
        .find(|l| l.starts_with("summary"))
        .expect("summary row");
    assert!(summary_line.contains(&tau), "{summary_line} vs {tau}");

    let (code, _, stderr) = evaluate(&["--predicted", "responsiveness", "--set", "d.jsonl"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("no line of set 'd.jsonl' (sets in the file: a.jsonl, b.jsonl, c.jsonl); choose one with --set NAME"),
        "{stderr}"
    );
}
