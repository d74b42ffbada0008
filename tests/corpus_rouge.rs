//! `aesop import rouge`: a ROUGE-1.5.5 evaluation configuration becomes a judgment set, its
//! summaries read as ROUGE reads them, so that the `rouge` class gives ROUGE's own numbers.

use crate::common;
use std::path::Path;

/// The README's example: two topics in SEE, the texts written for aesop.
fn example_config() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/rouge/settings.xml")
}

fn import(config: &Path, output: &Path) -> assert_cmd::assert::Assert {
    common::aesop()
        .args(["import", "rouge"])
        .arg(config)
        .arg("-o")
        .arg(output)
        .assert()
}

/// The message of a failed import (exit 1, nothing written).
fn import_error(config: &Path) -> String {
    let output = config.with_file_name("set.jsonl");
    let out = import(config, &output).code(1).get_output().clone();
    assert!(
        !output.exists(),
        "a failed import wrote {}",
        output.display()
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn import_rouge_reads_the_see_example_as_topics_of_sentences() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = dir.path().join("set.jsonl");
    import(&example_config(), &output)
        .success()
        .stderr(predicates::str::contains("wrote 2 topics, 3 summaries"));
    let topics = aesop::corpus::jsonl::read_set(&output).expect("the import reads as a set");
    // The commented-out EVAL D999 is not a topic.
    let ids: Vec<&str> = topics.iter().map(|t| t.topic.as_str()).collect();
    assert_eq!(ids, ["D001", "D002"]);
    let first = &topics[0];
    assert!(first.documents.is_empty());
    let references: Vec<&str> = first.references.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(references, ["A", "B"]);
    let systems: Vec<&str> = first.summaries.iter().map(|s| s.system.as_str()).collect();
    assert_eq!(systems, ["1", "2"]);
    // One sentence per line (ROUGE-L's units); the `size="10"` line read as ROUGE reads it.
    assert_eq!(
        first.summaries[0].text,
        "The river flooded the old town on Monday.\nHundreds of families left their homes."
    );
    assert!(first.summaries.iter().all(|s| s.scores.is_empty()));
}

/// Writes `articles` (SummEval JSON lines) as a ROUGE user keeps them, under `work`: each
/// summary and reference a file in the text format given for its article (SPL, SEE or ISI),
/// `sums/peers` and `sums/models`, and the configuration `conf/settings.xml`, whose relative
/// roots name directories under `work` (where aesop is run, as ROUGE resolves them). With
/// `split`, a text is one sentence per line (a break after each " . ", as
/// scripts/build/rouge155-fixture.py writes them); otherwise one line.
fn write_rouge_tree(work: &Path, articles: &[&str], formats: &[&str], split: bool) {
    std::fs::create_dir_all(work.join("sums/peers")).expect("mkdir");
    std::fs::create_dir_all(work.join("sums/models")).expect("mkdir");
    std::fs::create_dir_all(work.join("conf")).expect("mkdir");
    let mut evals = String::new();
    for (line, format) in articles.iter().zip(formats) {
        let article: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let doc_id = article["doc_id"].as_str().expect("doc_id");
        let write = |path: &Path, text: &str| {
            let text = text.trim();
            let text = match split {
                true => text.replace(" . ", " .\n"),
                false => text.to_string(),
            };
            let body: String = match *format {
                "SPL" => format!("{text}\n"),
                "SEE" => {
                    let lines: String = (1..)
                        .zip(text.lines())
                        .map(|(i, s)| {
                            format!("<a name=\"{i}\">[{i}]</a> <a href=\"#{i}\" id={i}>{s}</a>\n")
                        })
                        .collect();
                    format!("<html>\n<head>\n<title>x</title>\n</head>\n<body bgcolor=\"white\">\n{lines}</body>\n</html>\n")
                }
                _ => (1..)
                    .zip(text.lines())
                    .map(|(i, s)| format!("<S SNTNO=\"{i}\">{s}</S>\n"))
                    .collect(),
            };
            std::fs::write(path, body).expect("write a summary file");
        };
        let mut peers = String::new();
        for (system, summary) in article["sys_summs"].as_object().expect("sys_summs") {
            let name = format!("{doc_id}.{system}.txt");
            write(
                &work.join("sums/peers").join(&name),
                summary["sys_summ"].as_str().expect("sys_summ"),
            );
            peers += &format!("<P ID=\"{system}\">{name}</P>\n");
        }
        let mut models = String::new();
        let references = article["ref_summs"].as_array().expect("ref_summs");
        for (i, reference) in references.iter().enumerate() {
            let name = format!("{doc_id}.{i}.txt");
            write(
                &work.join("sums/models").join(&name),
                reference.as_str().expect("a reference"),
            );
            models += &format!("<M ID=\"{i}\">{name}</M>\n");
        }
        evals += &format!(
            "<EVAL ID=\"{doc_id}\">\n<PEER-ROOT>sums/peers</PEER-ROOT>\n<MODEL-ROOT>sums/models</MODEL-ROOT>\n\
             <INPUT-FORMAT TYPE=\"{format}\"></INPUT-FORMAT>\n<PEERS>\n{peers}</PEERS>\n<MODELS>\n{models}</MODELS>\n</EVAL>\n"
        );
    }
    std::fs::write(
        work.join("conf/settings.xml"),
        format!("<ROUGE-EVAL version=\"1.0\">\n{evals}</ROUGE-EVAL>\n"),
    )
    .expect("write the configuration");
}

/// (topic, system, ROUGE measure) → (recall, precision), as ROUGE prints them.
type Printed = std::collections::HashMap<(String, String, String), (String, String)>;

/// The measures of the `rouge` and `rouge_extended` classes: (class, column stem, ROUGE's name).
const MEASURES: &[(&str, &str, &str)] = &[
    ("rouge", "r1", "ROUGE-1"),
    ("rouge", "r2", "ROUGE-2"),
    ("rouge", "rl", "ROUGE-L"),
    ("rouge", "su4", "ROUGE-SU4"),
    ("rouge_extended", "r3", "ROUGE-3"),
    ("rouge_extended", "r4", "ROUGE-4"),
    ("rouge_extended", "w", "ROUGE-W-1.2"),
    ("rouge_extended", "s_star", "ROUGE-S*"),
    ("rouge_extended", "su_star", "ROUGE-SU*"),
];

/// `aesop import rouge conf/settings.xml` run in `work`, then `aesop features --classes
/// CLASSES` with `flags`: the values of those classes' measures as ROUGE prints them (5
/// decimals).
fn rouge_of_import(work: &Path, classes: &[&str], flags: &[&str]) -> Printed {
    common::aesop()
        .current_dir(work)
        .args(["import", "rouge", "conf/settings.xml", "-o", "set.jsonl"])
        .assert()
        .success();
    rouge_of_set(&work.join("set.jsonl"), classes, flags)
}

/// `aesop features --classes CLASSES` with `flags` on the judgment set `set`: the values of
/// those classes' measures as ROUGE prints them (5 decimals).
fn rouge_of_set(set: &Path, classes: &[&str], flags: &[&str]) -> Printed {
    let features = set.with_file_name("features.csv");
    common::aesop()
        .args(["features"])
        .arg(set)
        .args(["--classes", &classes.join(",")])
        .args(flags)
        .arg("-o")
        .arg(&features)
        .assert()
        .success();
    let mut reader = csv::Reader::from_path(&features).expect("read the features");
    let header = reader.headers().expect("a header").clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let mut printed = Printed::new();
    for row in reader.records() {
        let row = row.expect("a row");
        for (class, short, metric) in MEASURES.iter().filter(|m| classes.contains(&m.0)) {
            let value = |part: &str| {
                let value: f64 = row[column(&format!("{class}.{short}_{part}"))]
                    .parse()
                    .expect("a number");
                format!("{value:.5}")
            };
            let key = (row[0].to_string(), row[1].to_string(), metric.to_string());
            printed.insert(key, (value("recall"), value("precision")));
        }
    }
    printed
}

/// What the Perl ROUGE-1.5.5 printed for the sample's first three topics one sentence per line,
/// under `setting` (A, B, l30, b150, s): tests/fixtures/rouge155_sample.tsv, by
/// scripts/build/rouge155-fixture.py.
fn rouge155_sample(setting: &str) -> Printed {
    let table =
        std::fs::read_to_string(common::fixture("rouge155_sample.tsv")).expect("read the fixture");
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (f.len() == 6 && f[2] == setting).then(|| {
                let key = (f[0].into(), f[1].into(), f[3].into());
                (key, (f[4].into(), f[5].into()))
            })
        })
        .collect()
}

/// Every row of `got` (48 summaries, `measures` each) equals ROUGE's, and ROUGE scored every
/// one.
fn assert_rouge_printed(label: &str, got: &Printed, expected: &Printed, measures: usize) {
    assert_eq!(got.len(), 48 * measures, "{label}");
    for (key, value) in got {
        let want = expected
            .get(key)
            .unwrap_or_else(|| panic!("{label}: ROUGE has no {key:?}"));
        assert_eq!(value, want, "{label}: {key:?}");
    }
}

/// SummEval's first three articles written as a ROUGE user keeps them, one in each text format
/// ROUGE reads (SPL, SEE, ISI), the configuration elsewhere than the directory aesop runs in:
/// the `rouge` class on the imported set gives the numbers the Perl ROUGE-1.5.5 printed for
/// those summaries (reference-outputs, `-n 2 -2 4 -u -m [-s]`).
#[test]
fn import_rouge_gives_rouge155_numbers() {
    let test = "import_rouge_gives_rouge155_numbers";
    let Some(summeval) = common::data_or_skip(test, "summeval/summeval.jsonl") else {
        return;
    };
    let Some(outputs) = common::data_or_skip(test, "reference-outputs") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let text = std::fs::read_to_string(&summeval).expect("read summeval.jsonl");
    let articles: Vec<&str> = text.lines().take(3).collect();
    write_rouge_tree(dir.path(), &articles, &["SPL", "SEE", "ISI"], false);
    for (table, flags) in [
        ("rouge155_summeval.tsv", &[][..]),
        (
            "rouge155_summeval_stop.tsv",
            &["--rouge-remove-stopwords"][..],
        ),
    ] {
        let expected: Printed = std::fs::read_to_string(outputs.join(table))
            .expect("read the TSV")
            .lines()
            .skip(1)
            .filter_map(|line| {
                let f: Vec<&str> = line.split('\t').collect();
                (f.len() == 6).then(|| {
                    let key = (f[0].into(), f[1].into(), f[2].into());
                    (key, (f[3].into(), f[4].into()))
                })
            })
            .collect();
        let got = rouge_of_import(dir.path(), &["rouge"], flags);
        assert_rouge_printed(table, &got, &expected, 4);
    }
}

/// Every measure ROUGE-1.5.5 prints with `-n 4 -w 1.2 -2 4 -u` (ROUGE-1 to -4, -L, -W-1.2,
/// -SU4) and `-2 -1 -U` (ROUGE-S*, -SU*), on the sample's first three topics one sentence per
/// line (so ROUGE-L and -W read several sentences and the limits cut inside them): the `rouge` and `rouge_extended` classes
/// give what the Perl printed under the model average (`-f A`), the best model (`-f B`,
/// `--rouge-mode b`), the length limits `-l 30` and `-b 150` (where ROUGE-L and -W read past
/// the n-gram cut) and stopwords removed (`-s`): tests/fixtures/rouge155_sample.tsv, by
/// scripts/build/rouge155-fixture.py.
#[test]
fn rouge_classes_give_rouge155_numbers_on_the_sample() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/summeval-sample.jsonl");
    let text = std::fs::read_to_string(sample).expect("read the sample");
    let articles: Vec<&str> = text.lines().take(3).collect();
    let dir = tempfile::tempdir().expect("temp dir");
    write_rouge_tree(dir.path(), &articles, &["SPL", "SEE", "ISI"], true);
    let classes = ["rouge", "rouge_extended"];
    let whole = rouge_of_import(dir.path(), &classes, &[]);
    assert_rouge_printed("A", &whole, &rouge155_sample("A"), MEASURES.len());
    for (setting, flags) in [
        ("B", &["--rouge-mode", "b"][..]),
        ("l30", &["--rouge-length-limit", "30"][..]),
        ("b150", &["--rouge-byte-limit", "150"][..]),
        ("s", &["--rouge-remove-stopwords"][..]),
    ] {
        let got = rouge_of_import(dir.path(), &classes, flags);
        assert_rouge_printed(setting, &got, &rouge155_sample(setting), MEASURES.len());
        // The setting bites: most values differ from the default's.
        let changed = got.iter().filter(|(k, v)| whole[*k] != **v).count();
        assert!(changed > 250, "{setting}: only {changed} values changed");
    }
}

/// The learning verbs refuse the limits (a model file cannot carry them), and the two limits
/// together are refused as ROUGE refuses `-l` with `-b`: usage errors, before any set is read.
#[test]
fn rouge_length_limits_are_for_features_only() {
    let missing = "no-such-set.jsonl";
    for verb in ["train", "cross-validate", "ablate"] {
        let out = common::aesop()
            .args([
                verb,
                missing,
                "--target",
                "relevance",
                "--rouge-length-limit",
                "100",
            ])
            .args(["-o", "out"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("--rouge-length-limit reproduces ROUGE-1.5.5's length limit"),
            "{verb}: {message}"
        );
    }
    common::aesop()
        .args([
            "features",
            missing,
            "--rouge-length-limit",
            "100",
            "--rouge-byte-limit",
            "665",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot be used with"));
}

/// A small configuration in `dir` with one EVAL whose parts can be replaced.
fn write_config(dir: &Path, eval: &str) -> std::path::PathBuf {
    let config = dir.join("settings.xml");
    std::fs::write(
        &config,
        format!("<ROUGE-EVAL version=\"1.0\">\n{eval}\n</ROUGE-EVAL>\n"),
    )
    .expect("write");
    config
}

const PEERS_AND_MODELS: &str = "<PEERS>\n<P ID=\"1\">p1.txt</P>\n</PEERS>\n\
                                <MODELS>\n<M ID=\"A\">mA.txt</M>\n</MODELS>";

#[test]
fn import_rouge_names_what_is_wrong_in_a_configuration() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::fs::write(d.join("p1.txt"), "A plain sentence.\n").expect("write");
    std::fs::write(d.join("mA.txt"), "Another plain sentence.\n").expect("write");

    // Not a configuration at all.
    let config = write_config(d, "<something/>");
    let message = import_error(&config);
    assert!(message.contains("no <EVAL ID=…> element"), "{message}");

    // No INPUT-FORMAT; SIMPLE (Basic Elements) and an unknown TYPE.
    let config = write_config(d, &format!("<EVAL ID=\"t\">\n{PEERS_AND_MODELS}\n</EVAL>"));
    let message = import_error(&config);
    assert!(
        message.contains("settings.xml:2: EVAL \"t\": no <INPUT-FORMAT"),
        "{message}"
    );
    for (kind, says) in [("SIMPLE", "Basic Elements"), ("HTML", "SPL, SEE and ISI")] {
        let config = write_config(
            d,
            &format!(
                "<EVAL ID=\"t\">\n<INPUT-FORMAT TYPE=\"{kind}\"/>\n{PEERS_AND_MODELS}\n</EVAL>"
            ),
        );
        let message = import_error(&config);
        assert!(message.contains(says), "{kind}: {message}");
    }

    // The same EVAL ID twice, and a peer ID twice.
    let eval =
        format!("<EVAL ID=\"t\">\n<INPUT-FORMAT TYPE=\"SPL\"/>\n{PEERS_AND_MODELS}\n</EVAL>");
    let config = write_config(d, &format!("{eval}\n{eval}"));
    let message = import_error(&config);
    assert!(
        message.contains("EVAL \"t\": again (first at line 2)"),
        "{message}"
    );
    let config = write_config(
        d,
        "<EVAL ID=\"t\">\n<INPUT-FORMAT TYPE=\"SPL\"/>\n<PEERS>\n<P ID=\"1\">p1.txt</P>\n\
         <P ID=\"1\">mA.txt</P>\n</PEERS>\n</EVAL>",
    );
    let message = import_error(&config);
    assert!(
        message.contains("settings.xml:6: EVAL \"t\": <P ID=\"1\"> again (first at line 5)"),
        "{message}"
    );

    // A file in neither the current directory nor beside the configuration: both named.
    let config = write_config(
        d,
        "<EVAL ID=\"t\">\n<PEER-ROOT>peers</PEER-ROOT>\n<INPUT-FORMAT TYPE=\"SPL\"/>\n\
         <PEERS>\n<P ID=\"7\">gone.txt</P>\n</PEERS>\n</EVAL>",
    );
    let message = import_error(&config);
    assert!(
        message.contains("settings.xml:6: EVAL \"t\": peer \"7\": peers/gone.txt: no such file")
            && message.contains("beside the configuration"),
        "{message}"
    );

    // Plain-text files named in a SEE configuration: ROUGE would score them as empty.
    let config = write_config(
        d,
        &format!("<EVAL ID=\"t\">\n<INPUT-FORMAT TYPE=\"SEE\"/>\n{PEERS_AND_MODELS}\n</EVAL>"),
    );
    let message = import_error(&config);
    assert!(
        message.contains("mA.txt: no line in ROUGE's SEE layout")
            && message.contains("plain text, one sentence per line (TYPE=\"SPL\")?"),
        "{message}"
    );

    // SEE files named in an SPL configuration: ROUGE would count the tags as words.
    std::fs::write(
        d.join("see.html"),
        "<html>\n<body bgcolor=\"white\">\n<a name=\"1\">[1]</a> <a href=\"#1\" id=1>A sentence.</a>\n</body>\n</html>\n",
    )
    .expect("write");
    let config = write_config(
        d,
        "<EVAL ID=\"t\">\n<INPUT-FORMAT TYPE=\"SPL\"/>\n<PEERS>\n<P ID=\"1\">see.html</P>\n</PEERS>\n</EVAL>",
    );
    let message = import_error(&config);
    assert!(
        message.contains("see.html: lines in ROUGE's SEE layout")
            && message.contains("is it TYPE=\"SEE\"?"),
        "{message}"
    );

    // An empty model file: a reference needs its text.
    std::fs::write(d.join("empty.txt"), "\n\n").expect("write");
    let config = write_config(
        d,
        "<EVAL ID=\"t\">\n<INPUT-FORMAT TYPE=\"SPL\"/>\n<PEERS>\n<P ID=\"1\">p1.txt</P>\n</PEERS>\n\
         <MODELS>\n<M ID=\"A\">empty.txt</M>\n</MODELS>\n</EVAL>",
    );
    let message = import_error(&config);
    assert!(
        message.contains("model \"A\"") && message.contains("holds no sentence"),
        "{message}"
    );
}

#[test]
fn import_rouge_reads_an_spl_configuration_beside_its_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    // Windows line ends and a blank line: two sentences.
    std::fs::write(d.join("p1.txt"), "First sentence.\r\n\r\nSecond one.\r\n").expect("write");
    std::fs::write(d.join("mA.txt"), "The reference.\n").expect("write");
    let config = write_config(
        d,
        &format!("<EVAL ID=\"t\">\n<INPUT-FORMAT TYPE=\"spl\"/>\n{PEERS_AND_MODELS}\n</EVAL>"),
    );
    let output = d.join("set.jsonl");
    // Run from elsewhere: the files are found beside the configuration.
    common::aesop()
        .current_dir(std::env::temp_dir())
        .args(["import", "rouge"])
        .arg(&config)
        .arg("-o")
        .arg(&output)
        .assert()
        .success();
    let topics = aesop::corpus::jsonl::read_set(&output).expect("read");
    assert_eq!(topics[0].summaries[0].text, "First sentence.\nSecond one.");
    assert_eq!(topics[0].references[0].text, "The reference.");
    // The set never replaces a summary file the configuration names.
    let peer = d.join("p1.txt");
    let before = std::fs::read(&peer).expect("read");
    import(&config, &peer)
        .code(1)
        .stderr(predicates::str::contains("refusing to overwrite it"));
    assert_eq!(std::fs::read(&peer).expect("read"), before);
}

#[test]
fn the_table_flags_are_a_usage_error_with_import_rouge() {
    common::aesop()
        .args(["import", "rouge"])
        .arg(example_config())
        .args(["-o", "-", "--summary-column", "text"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--summary-column"));
}

/// The sample's first three topics laid out as pyrouge reads them: one directory per system of
/// `text.DOC.txt` files, the references `text.A.DOC.txt`… in a model directory, one sentence per
/// line. `aesop import rouge DIR… --model-dir --system-pattern --model-pattern` pairs them as
/// pyrouge does, and the ROUGE classes give what the Perl printed for the same files.
#[test]
fn import_rouge_reads_directories_laid_out_for_pyrouge() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/summeval-sample.jsonl");
    let text = std::fs::read_to_string(sample).expect("read the sample");
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path();
    let mut systems = std::collections::BTreeSet::new();
    for line in text.lines().take(3) {
        let article: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let doc_id = article["doc_id"].as_str().expect("doc_id");
        let split = |text: &str| text.trim().replace(" . ", " .\n") + "\n";
        for (system, summary) in article["sys_summs"].as_object().expect("sys_summs") {
            let folder = work.join("out").join(system);
            std::fs::create_dir_all(&folder).expect("mkdir");
            let summary = summary["sys_summ"].as_str().expect("sys_summ");
            std::fs::write(folder.join(format!("text.{doc_id}.txt")), split(summary))
                .expect("write");
            systems.insert(system.clone());
        }
        std::fs::create_dir_all(work.join("refs")).expect("mkdir");
        let references = article["ref_summs"].as_array().expect("ref_summs");
        for (i, reference) in references.iter().enumerate() {
            let letter = char::from(b'A' + u8::try_from(i).expect("few references"));
            let name = format!("text.{letter}.{doc_id}.txt");
            let reference = reference.as_str().expect("a reference");
            std::fs::write(work.join("refs").join(name), split(reference)).expect("write");
        }
    }
    // A file the system pattern does not match is not a summary.
    std::fs::write(work.join("out/M11/README"), "outputs of M11\n").expect("write");
    let mut import = common::aesop();
    import.current_dir(work).args(["import", "rouge"]);
    for system in &systems {
        import.arg(format!("out/{system}"));
    }
    import
        .args(["--model-dir", "refs"])
        .args(["--system-pattern", r"text\.(.+)\.txt"])
        .args(["--model-pattern", r"text\.[A-Z]\.#ID#\.txt"])
        .args(["-o", "set.jsonl"])
        .assert()
        .success()
        .stderr(predicates::str::contains("wrote 3 topics, 48 summaries"));
    let topics = aesop::corpus::jsonl::read_set(&work.join("set.jsonl")).expect("a set");
    assert!(topics.iter().all(|t| t.references.len() == 11));
    let got = rouge_of_set(&work.join("set.jsonl"), &["rouge", "rouge_extended"], &[]);
    assert_rouge_printed("pyrouge", &got, &rouge155_sample("A"), MEASURES.len());
}

/// The pyrouge layout's usage errors: its flags with another format or with a configuration,
/// a directory without them, several paths where one is read.
#[test]
fn pyrouge_flags_are_usage_errors_where_they_do_not_apply() {
    let dir = tempfile::tempdir().expect("temp dir");
    let usage = |args: &[&str]| {
        let out = common::aesop()
            .current_dir(dir.path())
            .args(args)
            .args(["-o", "set.jsonl"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    std::fs::create_dir_all(dir.path().join("sys")).expect("mkdir");
    let config = example_config();
    let config = config.to_str().expect("a UTF-8 path");
    let cases: [(&[&str], &str); 5] = [
        (
            &["import", "rouge", "sys"],
            "need --model-dir, --system-pattern, --model-pattern",
        ),
        (
            &["import", "rouge", "sys", "--model-dir", "refs"],
            "need --system-pattern, --model-pattern",
        ),
        (
            &["import", "rouge", config, "--model-dir", "refs"],
            "a ROUGE configuration is imported alone",
        ),
        (
            &["import", "summeval", "x.jsonl", "--system-pattern", "(.+)"],
            "the summeval importer reads its own layout",
        ),
        (
            &["import", "summeval", "a.jsonl", "b.jsonl"],
            "2 paths given",
        ),
    ];
    for (args, expected) in cases {
        let message = usage(args);
        assert!(message.contains(expected), "{args:?}: {message}");
    }
    assert!(!dir.path().join("set.jsonl").exists());
}

/// A ROUGE configuration given where a judgment set belongs, or to another importer, is named
/// for what it is, with the command that reads it.
#[test]
fn a_rouge_configuration_given_elsewhere_is_pointed_to_import_rouge() {
    let config = example_config();
    let dir = tempfile::tempdir().expect("temp dir");
    // `verb` given the configuration: exit 1, and its message.
    let message_of = |verb: &[&str], output: &str| {
        let out = common::aesop()
            .args(verb)
            .arg(&config)
            .arg("-o")
            .arg(dir.path().join(output))
            .assert()
            .code(1)
            .get_output()
            .clone();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let message = message_of(&["score"], "p.jsonl");
    assert!(
        message.contains("looks like a ROUGE-1.5.5 evaluation configuration")
            && message.contains("aesop import rouge"),
        "{message}"
    );
    let message = message_of(&["import", "summeval"], "s.jsonl");
    assert!(
        message.contains("ROUGE-1.5.5 evaluation configuration (import it with `rouge`)"),
        "{message}"
    );
}

/// The `rouge_score` class gives what Google's rouge-score package (`RougeScorer.score_multi`,
/// rouge1, rouge2, rougeL, rougeLsum) gives, to the last bit, with `use_stemmer=True` (the
/// default) and `False` (`--rouge-no-stem`): the sample's first three topics one sentence per
/// line and a topic of texts that tell tokenizers apart (tests/fixtures/rouge_score_sample.*,
/// by scripts/build/rouge-score-fixture.py).
#[test]
fn rouge_score_class_gives_the_rouge_score_packages_numbers() {
    let table = std::fs::read_to_string(common::fixture("rouge_score_sample.tsv"))
        .expect("read the fixture");
    let expected: std::collections::HashMap<(String, String, String), Vec<f64>> = table
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 15, "{line}");
            let values = f[3..]
                .iter()
                .map(|v| v.parse().expect("a number"))
                .collect();
            ((f[0].into(), f[1].into(), f[2].into()), values)
        })
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut by_setting = Vec::new();
    for (setting, flags) in [("stem", &[][..]), ("plain", &["--rouge-no-stem"][..])] {
        let features = dir.path().join(format!("{setting}.csv"));
        common::aesop()
            .args(["features"])
            .arg(common::fixture("rouge_score_sample.jsonl"))
            .args(["--classes", "rouge_score"])
            .args(flags)
            .arg("-o")
            .arg(&features)
            .assert()
            .success();
        let mut reader = csv::Reader::from_path(&features).expect("read the features");
        let mut values = Vec::new();
        for row in reader.records() {
            let row = row.expect("a row");
            let key = (row[0].to_string(), row[1].to_string(), setting.to_string());
            let want = expected
                .get(&key)
                .unwrap_or_else(|| panic!("rouge-score has no {key:?}"));
            let got: Vec<f64> = (2..14).map(|i| row[i].parse().expect("a number")).collect();
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                assert_eq!(
                    g.to_bits(),
                    w.to_bits(),
                    "{key:?} column {i}: {g} against {w}"
                );
            }
            values.extend(got);
        }
        assert_eq!(values.len(), 56 * 12, "{setting}: every summary scored");
        by_setting.push(values);
    }
    // Stemming bites: many values differ between the settings.
    let changed = by_setting[0]
        .iter()
        .zip(&by_setting[1])
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 200, "only {changed} values changed with stemming");
    // ROUGE-1.5.5's other options do not apply to the class: alone, it refuses them.
    for flag in [
        &["--rouge-mode", "b"][..],
        &["--rouge-remove-stopwords"],
        &["--rouge-jackknife"],
    ] {
        let out = common::aesop()
            .args(["features"])
            .arg(common::fixture("rouge_score_sample.jsonl"))
            .args(["--classes", "rouge_score"])
            .args(flag)
            .arg("-o")
            .arg(dir.path().join("refused.csv"))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("changes only the rouge, rouge_extended classes"),
            "{flag:?}: {message}"
        );
    }
}
