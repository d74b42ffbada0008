//! `aesop score` with plain text files gives the same scores as with a judgment set, and refuses
//! a reference-based model when no reference is given.

use crate::common;

const ARTICLE: &str =
    "The city council approved a new budget on Monday. The budget raises spending on \
schools and parks. Council members said the plan would be paid for by a small tax increase. \
Critics argued that the tax increase would hurt small businesses.";

const SUMMARIES: [&str; 4] = [
    "The council approved a budget.",
    "The city council approved a new budget that raises spending on schools and parks.",
    "Critics argued the tax increase would hurt small businesses, but the council approved the budget.",
    "Weather was nice.",
];

/// `train` flags of a small reference-free ranker on the surface class.
const SURFACE_MODEL: [&str; 7] = [
    "--target",
    "relevance",
    "--learner",
    "rank-svm",
    "--classes",
    "surface",
    "--no-references",
];

fn set_line(topic: usize) -> String {
    let summaries: Vec<_> = SUMMARIES
        .iter()
        .enumerate()
        .map(|(i, text)| {
            // A human score that the surface features can learn: longer, more extractive is better.
            let score = text.split_whitespace().count() as f64 / 4.0 + topic as f64 * 0.01;
            serde_json::json!({"system": format!("s{i}"), "text": text, "scores": {"relevance": score}})
        })
        .collect();
    serde_json::json!({"topic": format!("t{topic}"), "documents": [{"id": "d", "text": ARTICLE}], "summaries": summaries})
        .to_string()
}

#[test]
fn text_files_score_like_the_judgment_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let lines: Vec<String> = (0..4).map(set_line).collect();
    std::fs::write(&set, lines.join("\n") + "\n").expect("write set");
    let model = dir.path().join("m.aesop");
    common::train(
        &set,
        &[
            "--target",
            "relevance",
            "--learner",
            "rank-svm",
            "--classes",
            "surface,content",
            "--no-references",
        ],
        &model,
    );

    let from_set = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(&model)
        .output()
        .expect("score set");
    assert!(
        from_set.status.success(),
        "{}",
        String::from_utf8_lossy(&from_set.stderr)
    );
    let set_scores: Vec<serde_json::Value> = String::from_utf8_lossy(&from_set.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("prediction line"))
        .collect();
    assert_eq!(set_scores.len(), 16);

    std::fs::write(dir.path().join("doc.txt"), ARTICLE).expect("doc");
    let mut cmd = common::aesop();
    cmd.arg("score")
        .arg("--model")
        .arg(&model)
        .arg("--documents")
        .arg(dir.path().join("doc.txt"))
        .arg("--summary");
    for (i, text) in SUMMARIES.iter().enumerate() {
        let path = dir.path().join(format!("s{i}"));
        std::fs::write(&path, text).expect("summary");
        cmd.arg(path);
    }
    let out = cmd.output().expect("score text");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text_scores: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("line"))
        .collect();
    assert_eq!(text_scores.len(), 4);
    for (i, line) in text_scores.iter().enumerate() {
        assert_eq!(line["system"], format!("s{i}"));
        // Same documents and summary as topic t0 of the set: the same features, so the same score.
        assert_eq!(line["score"], set_scores[i]["score"], "summary s{i}");
    }
    // The longest extractive summary scores above the off-topic one.
    assert!(text_scores[2]["score"].as_f64() > text_scores[3]["score"].as_f64());
}

/// Text saved with Windows line breaks (`\r\n`, or an old Mac's `\r`) scores as with `\n`, from
/// text files and in a set: the built-ins' `pyramid` moved (.5677 to .5676 on the example files)
/// and every `graph` feature and `surface.summary_chars` with it, as the `\r`s were read as
/// characters. Text with decomposed accents (NFD) scores as composed (NFC): every class read
/// them as other words.
#[test]
fn texts_saved_or_spaced_otherwise_score_as_the_plain_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    let score = |folder: &str, respace: &dyn Fn(&str) -> String| {
        let folder = dir.path().join(folder);
        std::fs::create_dir(&folder).expect("mkdir");
        let mut command = common::aesop();
        command.arg("score");
        for (flag, name) in [
            ("--documents", "article.txt"),
            ("--summary", "mine.txt"),
            ("--summary", "theirs.txt"),
            ("--reference", "ref.txt"),
        ] {
            let text = std::fs::read_to_string(examples.join(name)).expect("example");
            let path = folder.join(name);
            std::fs::write(&path, respace(&text)).expect("write");
            command.arg(flag).arg(path);
        }
        common::stdout_of_success(command.output().expect("score"))
    };
    let expected = score("lf", &|t| t.to_string());
    assert_eq!(score("crlf", &|t| t.replace('\n', "\r\n")), expected);
    assert_eq!(score("cr", &|t| t.replace('\n', "\r")), expected);
    // Spaced otherwise, as a reader sees it the same: two spaces after each period, no-break
    // and thin spaces, indented and padded lines, soft hyphens and zero-width spaces in words.
    assert_eq!(score("two-spaces", &|t| t.replace(". ", ".  ")), expected);
    assert_eq!(
        score("odd-spaces", &|t| t
            .replacen(' ', "\u{a0}", 5)
            .replacen(' ', "\t\u{2009}", 3)
            .replace('\n', "  \n\t")),
        expected
    );
    assert_eq!(
        score("invisible", &|t| format!(
            "\u{feff}  {}\n\n",
            t.replace("the ", "t\u{ad}he ").replace(" a", " \u{200b}a")
        )),
        expected
    );
    // Marks of bidirectional text between words (text copied from web pages, or beside a
    // right-to-left script) and control characters (an escape, a bell): not there for a reader.
    assert_eq!(
        score("bidi-and-controls", &|t| t
            .replacen(' ', "\u{200e} ", 9)
            .replacen(". ", ".\u{202c} \u{2067}", 2)
            .replacen(' ', "\u{1b} ", 2)
            .replacen(' ', " \u{7}", 2)),
        expected
    );

    let features = |breaks: &str| {
        let lines: Vec<String> = (0..2)
            .map(|topic| set_line(topic).replace(". ", &format!(".{}", breaks.escape_default())))
            .collect();
        let set = dir.path().join(format!("set{}.jsonl", breaks.len()));
        std::fs::write(&set, lines.join("\n") + "\n").expect("write set");
        let mut command = common::aesop();
        command.arg("features").arg(&set).args(["-o", "-"]);
        common::stdout_of_success(command.output().expect("features"))
    };
    assert_eq!(features("\r\n"), features("\n"));

    let accented = |form: &str, text: &str| match form {
        "nfd" => text
            .replace('\u{e9}', "e\u{301}")
            .replace('\u{fc}', "u\u{308}"),
        _ => text.to_string(),
    };
    let score_accented = |form: &str| {
        let folder = dir.path().join(form);
        std::fs::create_dir(&folder).expect("mkdir");
        let document = "The new caf\u{e9} in Z\u{fc}rich opened on Monday. Its owner, Jos\u{e9} \
            M\u{fc}ller, said the caf\u{e9} serves cr\u{e8}me br\u{fb}l\u{e9}e and coffee.";
        let mut command = common::aesop();
        command.arg("score");
        for (flag, name, text) in [
            ("--documents", "doc.txt", document),
            (
                "--summary",
                "a.txt",
                "Jos\u{e9} M\u{fc}ller opened a caf\u{e9} in Z\u{fc}rich.",
            ),
            (
                "--summary",
                "b.txt",
                "A caf\u{e9} opened in Z\u{fc}rich on Monday.",
            ),
        ] {
            let path = folder.join(name);
            std::fs::write(&path, accented(form, text)).expect("write");
            command.arg(flag).arg(path);
        }
        common::stdout_of_success(command.output().expect("score"))
    };
    assert_eq!(score_accented("nfd"), score_accented("nfc"));
}

#[test]
fn non_utf8_summary_file_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, b"caf\xe9").expect("write");
    let doc = dir.path().join("doc.txt");
    std::fs::write(&doc, "The council approved the budget.\n").expect("write");
    let model = dir.path().join("missing.aesop");
    // The model is read first; give a real one so the text error is the one reported.
    let set = dir.path().join("set.jsonl");
    std::fs::write(
        &set,
        (0..4).map(set_line).collect::<Vec<_>>().join("\n") + "\n",
    )
    .expect("set");
    common::train(&set, &SURFACE_MODEL, &model);
    common::aesop()
        .arg("score")
        .arg("--model")
        .arg(&model)
        .arg("--documents")
        .arg(&doc)
        .arg("--summary")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "bad.txt:1: invalid UTF-8 at byte 4 of the line",
        ));
}

#[test]
fn score_names_a_model_given_as_name_equals_path() {
    // `score --model NAME=PATH` as `serve --model NAME=PATH` takes it; a bare PATH is named by
    // the file's stem.
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let lines: Vec<String> = (0..4).map(set_line).collect();
    std::fs::write(&set, lines.join("\n") + "\n").expect("write set");
    let model = dir.path().join("m.aesop");
    common::train(&set, &SURFACE_MODEL, &model);
    let names = |spec: String| -> Vec<String> {
        let out = common::aesop()
            .arg("score")
            .arg(&set)
            .arg("--model")
            .arg(spec)
            .output()
            .expect("score");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("line");
                v["model"].as_str().expect("model").to_string()
            })
            .collect()
    };
    let named = names(format!("mine={}", model.display()));
    assert_eq!(named.len(), 16);
    assert!(named.iter().all(|n| n == "mine"), "{named:?}");
    assert!(names(model.display().to_string()).iter().all(|n| n == "m"));
    common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(format!("=={}", model.display()))
        .assert()
        .failure();
    // Two models of one name are refused, naming both (the predictions could not tell them
    // apart); named apart they score.
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(&model)
        .arg("--model")
        .arg(format!("m={}", model.display()))
        .output()
        .expect("score");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A usage error (exit 2), found from the flags before any file is read.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("two models are named 'm'") && stderr.contains("NAME=PATH"),
        "{stderr}"
    );
    // A name that is a column of the predictions' table beside the models' is refused too.
    for name in aesop::eval::report::PREDICTION_TABLE_TEXT_COLUMNS {
        let out = common::aesop()
            .arg("score")
            .arg(&set)
            .arg("--model")
            .arg(format!("{name}={}", model.display()))
            .output()
            .expect("score");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("a model named '{name}'")),
            "{stderr}"
        );
    }
    // So is an unknown built-in, even beside a set that does not exist; a model file that does
    // not exist stays a failure (exit 1), as a missing set is.
    let out = common::aesop()
        .args(["score", "no-such-set.jsonl", "--model", "builtin:nope"])
        .output()
        .expect("score");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no built-in model 'nope'"), "{stderr}");
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(dir.path().join("absent.aesop"))
        .output()
        .expect("score");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("absent.aesop"), "{stderr}");
    common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(&model)
        .arg("--model")
        .arg(format!("m2={}", model.display()))
        .assert()
        .success();
    // A built-in's bare name is a file name; without such a file the error says how to name
    // the built-in.
    let out = common::aesop()
        .current_dir(dir.path())
        .arg("score")
        .arg(&set)
        .args(["--model", "readability"])
        .output()
        .expect("score");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains(
            "readability: no such model file; for the built-in model write builtin:readability"
        ),
        "{stderr}"
    );
}

/// A model is reference-free when every column is, with or without --no-references, and a
/// model file records only the classes its columns come from (2026-11-28: `--classes
/// content,surface` without the flag refused plain text without a reference, and `--features
/// rouge.r1_recall` kept every default class, computed and warned about at scoring).
#[test]
fn reference_use_and_classes_follow_the_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let mut lines: Vec<String> = (0..4).map(set_line).collect();
    // References, so that reference classes have values to learn from.
    for line in &mut lines {
        let mut topic: serde_json::Value = serde_json::from_str(line).expect("topic");
        topic["references"] = serde_json::json!([{"id": "r", "text": SUMMARIES[1]}]);
        *line = topic.to_string();
    }
    std::fs::write(&set, lines.join("\n") + "\n").expect("write set");
    let train = |name: &str, extra: &[&str]| {
        let model = dir.path().join(name);
        common::train(
            &set,
            &[&["--target", "relevance"][..], extra].concat(),
            &model,
        );
        (
            model.clone(),
            aesop::learn::ModelFile::load(&model).expect("model"),
        )
    };
    let (free, model) = train("free.aesop", &["--classes", "content,surface"]);
    assert!(model.reference_free && !model.needs_references());
    let (_, model) = train(
        "js.aesop",
        &["--classes", "content,rouge", "--features", "content.js"],
    );
    assert_eq!(model.classes, vec!["content"]);
    assert!(model.reference_free);
    let (rouge, model) = train("r1.aesop", &["--features", "rouge.r1_recall"]);
    assert_eq!(model.classes, vec!["rouge"]);
    assert!(!model.reference_free && model.needs_references());

    std::fs::write(dir.path().join("doc.txt"), ARTICLE).expect("doc");
    std::fs::write(dir.path().join("s0"), SUMMARIES[0]).expect("summary");
    let score = |model: &std::path::Path| {
        common::aesop()
            .arg("score")
            .arg("--model")
            .arg(model)
            .arg("--documents")
            .arg(dir.path().join("doc.txt"))
            .arg("--summary")
            .arg(dir.path().join("s0"))
            .output()
            .expect("score")
    };
    let out = score(&free);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = score(&rouge);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("need references"));
    // Scoring the set with the one-feature model computes one class: no batch-dependence
    // warning about consensus, a default class the model does not use.
    let out = common::aesop()
        .arg("score")
        .arg(&set)
        .arg("--model")
        .arg(&rouge)
        .output()
        .expect("score set");
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("consensus"));

    // A file written before the rule (flag unset) whose columns are all reference-free, as the
    // built-in `readability`'s are, needs no references either.
    let mut readability = aesop::learn::builtin::find("readability")
        .and_then(|b| b.load())
        .expect("built-in");
    assert!(readability.reference_free);
    readability.reference_free = false;
    assert!(!readability.needs_references());
}

/// Models score together when the classes they share have the same options: a ROUGE model
/// trained without stopwords beside the built-in `readability` (no ROUGE) scores as it does
/// alone; two ROUGE models with different options are refused, naming the class.
#[test]
fn models_share_a_run_when_their_shared_classes_agree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    let lines: Vec<String> = (0..4)
        .map(|t| {
            let mut topic: serde_json::Value = serde_json::from_str(&set_line(t)).expect("topic");
            topic["references"] = serde_json::json!([{"id": "r", "text": SUMMARIES[1]}]);
            topic.to_string()
        })
        .collect();
    std::fs::write(&set, lines.join("\n") + "\n").expect("write set");
    let train = |name: &str, extra: &[&str]| {
        let model = dir.path().join(name);
        let rouge = ["--target", "relevance", "--classes", "rouge", "--c", "0.01"];
        common::train(&set, &[&rouge[..], extra].concat(), &model);
        model
    };
    let stop = train("stop.aesop", &["--rouge-remove-stopwords"]);
    let plain = train("plain.aesop", &[]);
    let scores = |models: &[String]| -> Result<Vec<f64>, String> {
        let mut command = common::aesop();
        command.arg("score").arg(&set);
        for m in models {
            command.arg("--model").arg(m);
        }
        let out = command.output().expect("score");
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("line"))
            .filter(|v| v["model"] == "stop")
            .map(|v| v["score"].as_f64().expect("score"))
            .collect())
    };
    let stop_spec = stop.display().to_string();
    let alone = scores(std::slice::from_ref(&stop_spec)).expect("alone");
    let beside = scores(&[stop_spec.clone(), "builtin:readability".into()]).expect("beside");
    assert_eq!(alone.len(), 16);
    assert_eq!(alone, beside);
    let e = scores(&[stop_spec, plain.display().to_string()]).expect_err("refused");
    assert!(e.contains("different options of the `rouge` class"), "{e}");
}
