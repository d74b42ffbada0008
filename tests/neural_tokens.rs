//! `AESOP_NEURAL_TOKENS`: the per-token log of the `neural` class. Each summary's line holds
//! its tokens' texts and log-probabilities; the class's aggregates are functions of them; a
//! second run appends rather than replacing; an unwritable path is a clear error. Needs
//! `aesop models fetch smollm2` (skips with a notice without it, unless AESOP_REQUIRE_MODELS=1).

use crate::common;

const TOPIC: &str = r#"{"topic":"t1","documents":[{"id":"d","text":"The city council approved a new budget on Monday after a long debate. The plan raises spending on schools and parks by ten percent."}],"summaries":[{"system":"a","text":"The council approved a budget  that raises spending\non schools."},{"system":"b","text":"parks the budget council Monday ten a on."},{"system":"empty","text":""},{"system":"c","text":"The mayor vetoed the plan on Friday."}]}"#;

fn features(set: &std::path::Path, csv: &std::path::Path, log: &std::path::Path) -> String {
    features_with(set, csv, log, "chat")
}

fn features_with(
    set: &std::path::Path,
    csv: &std::path::Path,
    log: &std::path::Path,
    prompt: &str,
) -> String {
    features_of_class(
        set,
        csv,
        log,
        &["--classes", "neural", "--neural-prompt", prompt],
    )
}

/// `aesop features` with the token log on and `args` naming the class (and its options).
fn features_of_class(
    set: &std::path::Path,
    csv: &std::path::Path,
    log: &std::path::Path,
    args: &[&str],
) -> String {
    let run = common::aesop()
        .env("AESOP_NEURAL_TOKENS", log)
        .env_remove("AESOP_NEURAL_CACHE")
        .args(["features", set.to_str().expect("utf-8")])
        .args(args)
        .args([
            "--neural-references",
            "0",
            "-o",
            csv.to_str().expect("utf-8"),
        ])
        .output()
        .expect("runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(csv).expect("csv")
}

/// The topic written as a one-line judgment set in a fresh directory.
fn topic_set() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let set = dir.path().join("set.jsonl");
    std::fs::write(&set, format!("{TOPIC}\n")).expect("write");
    (dir, set)
}

/// The lines of a token log.
fn log_lines(log: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// The numbers of one field of a summary's line.
fn numbers(line: &serde_json::Value, field: &str) -> Vec<f64> {
    line[field]
        .as_array()
        .expect(field)
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect()
}

/// The topic's source text (as in TOPIC).
const SOURCE: &str = "The city council approved a new budget on Monday after a long debate. The plan raises spending on schools and parks by ten percent.";

/// `neural.unsupported_share` by its definition (docs/FEATURES.md), from a summary's logged
/// tokens: the share of its words (a word starts at a token that starts with whitespace) that
/// have a lowercased letter-or-digit run absent from the source and a negative PMI summed over
/// their tokens.
fn unsupported_share(tokens: &[&str], given: &[f64], unconditional: &[f64], source: &str) -> f64 {
    let parts = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|p| !p.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let source_words = parts(source);
    let mut words: Vec<(String, f64)> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let pmi = given[i] - unconditional[i];
        if words.is_empty() || token.starts_with(char::is_whitespace) {
            words.push((token.to_string(), pmi));
        } else if let Some(last) = words.last_mut() {
            last.0.push_str(token);
            last.1 += pmi;
        }
    }
    words.retain(|(w, _)| !w.trim().is_empty());
    let unsupported = words
        .iter()
        .filter(|(w, pmi)| *pmi < 0.0 && parts(w).iter().any(|p| !source_words.contains(p)))
        .count();
    unsupported as f64 / words.len() as f64
}

/// The shipped unigram table (features/wordfreq_en.tsv.gz), read independently of the class:
/// lowercased word -> natural-log frequency, and the rarest word's value (the floor).
fn wordfreq_table() -> (std::collections::HashMap<String, f64>, f64) {
    use std::io::Read;
    let gz = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/features/wordfreq_en.tsv.gz"
    ))
    .expect("features/wordfreq_en.tsv.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz.as_slice())
        .read_to_string(&mut text)
        .expect("gzip");
    let mut table = std::collections::HashMap::new();
    let mut floor = f64::INFINITY;
    for line in text.lines().skip(1) {
        let (word, centibels) = line.split_once('\t').expect("word<TAB>centibels");
        let lp = centibels.parse::<f64>().expect("centibels") / 100.0 * std::f64::consts::LN_10;
        floor = floor.min(lp);
        table.entry(word.to_string()).or_insert(lp);
    }
    (table, floor)
}

/// `neural.src_slor` / `unc_slor` by their definition (docs/FEATURES.md): the mean over words
/// of the word's summed log-prob minus its unigram log-prob (none for punctuation). The test's
/// words are plain lowercase-able English, all in the table or at its floor.
fn slor(
    tokens: &[&str],
    log_probs: &[f64],
    table: &(std::collections::HashMap<String, f64>, f64),
) -> f64 {
    let mut words: Vec<(String, f64)> = Vec::new();
    for (token, lp) in tokens.iter().zip(log_probs) {
        if words.is_empty() || token.starts_with(char::is_whitespace) {
            words.push((token.to_string(), *lp));
        } else if let Some(last) = words.last_mut() {
            last.0.push_str(token);
            last.1 += lp;
        }
    }
    words.retain(|(w, _)| !w.trim().is_empty());
    let total: f64 = words
        .iter()
        .map(|(w, lp)| {
            let core = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            let unigram = if core.is_empty() {
                0.0
            } else {
                *table.0.get(&core).unwrap_or(&table.1)
            };
            lp - unigram
        })
        .sum();
    total / words.len() as f64
}

/// Mean log-prob given the source of one summary's line.
fn mean_given(line: &serde_json::Value) -> f64 {
    let g = numbers(line, "given_source");
    g.iter().sum::<f64>() / g.len() as f64
}

#[test]
fn token_log_holds_every_token_and_agrees_with_the_aggregates() {
    if !common::neural_model_or_skip("token_log_holds_every_token_and_agrees_with_the_aggregates") {
        return;
    }
    let (dir, set) = topic_set();
    let (csv, log) = (dir.path().join("f.csv"), dir.path().join("tokens.jsonl"));
    let table = features(&set, &csv, &log);
    let head: Vec<&str> = table.lines().next().expect("header").split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect(name);
    let row = |system: &str| -> Vec<String> {
        table
            .lines()
            .find(|l| l.split(',').nth(1) == Some(system))
            .expect(system)
            .split(',')
            .map(str::to_string)
            .collect()
    };
    let text = std::fs::read_to_string(&log).expect("log");
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 4, "one line per summary");
    let unigrams = wordfreq_table();
    // After the chat template's assistant turn the summary starts a line: no leading space.
    for (line, (system, summary)) in lines.iter().zip([
        (
            "a",
            "The council approved a budget that raises spending on schools.",
        ),
        ("b", "parks the budget council Monday ten a on."),
        ("empty", ""),
        ("c", "The mayor vetoed the plan on Friday."),
    ]) {
        assert_eq!(line["class"], "neural");
        assert_eq!(line["topic"], "t1");
        assert_eq!(line["system"], system);
        let tokens: Vec<&str> = line["tokens"]
            .as_array()
            .expect("tokens")
            .iter()
            .map(|t| t.as_str().expect("token text"))
            .collect();
        // The pieces are the scored text, whitespace collapsed.
        assert_eq!(tokens.concat(), summary, "{system}");
        let (given, unconditional) = (
            numbers(line, "given_source"),
            numbers(line, "unconditional"),
        );
        assert_eq!(given.len(), tokens.len());
        assert_eq!(unconditional.len(), tokens.len());
        assert!(given.iter().chain(&unconditional).all(|v| *v <= 0.0));
        let r = row(system);
        let n_tokens: f64 = r[col("neural.n_tokens")].parse().expect("n_tokens");
        assert_eq!(n_tokens as usize, tokens.len());
        if tokens.is_empty() {
            assert_eq!(r[col("neural.unsupported_share")], "", "no words: missing");
            assert_eq!(r[col("neural.src_slor")], "", "no words: missing");
            assert_eq!(r[col("neural.unc_slor")], "", "no words: missing");
            continue;
        }
        let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
        let min = given.iter().cloned().fold(f64::INFINITY, f64::min);
        let value = |name: &str| -> f64 { r[col(name)].parse().expect(name) };
        common::assert_within(value("neural.src_mean"), mean(&given), 1e-5);
        common::assert_within(value("neural.src_min"), min, 1e-5);
        common::assert_within(value("neural.unc_mean"), mean(&unconditional), 1e-5);
        common::assert_within(
            value("neural.pmi_mean"),
            mean(&given) - mean(&unconditional),
            1e-5,
        );
        common::assert_within(
            value("neural.unsupported_share"),
            unsupported_share(&tokens, &given, &unconditional, SOURCE),
            1e-9,
        );
        common::assert_within(
            value("neural.src_slor"),
            slor(&tokens, &given, &unigrams),
            1e-5,
        );
        common::assert_within(
            value("neural.unc_slor"),
            slor(&tokens, &unconditional, &unigrams),
            1e-5,
        );
    }
    // SLOR keeps the fluent summary above the word salad of the same words.
    let slor_of =
        |system: &str| -> f64 { row(system)[col("neural.src_slor")].parse().expect("slor") };
    assert!(
        slor_of("b") < slor_of("a"),
        "{} {}",
        slor_of("b"),
        slor_of("a")
    );
    let share = |system: &str| -> f64 {
        row(system)[col("neural.unsupported_share")]
            .parse()
            .expect("share")
    };
    // Every word of "b" is in the source, of "a" all but "that" (one word in ten); "c" invents
    // its mayor, veto and Friday (three words in seven).
    assert_eq!(share("b"), 0.0);
    assert!(share("a") <= 0.1 + 1e-12, "{}", share("a"));
    assert!(
        share("c") > 0.0 && share("c") <= 3.0 / 7.0,
        "{}",
        share("c")
    );
    // The word salad is less likely given the source than the fluent summary.
    assert!(mean_given(&lines[1]) < mean_given(&lines[0]));

    // A second run appends: the first run's lines are kept, unchanged.
    features(&set, &csv, &log);
    let again = std::fs::read_to_string(&log).expect("log");
    assert!(again.starts_with(&text));
    assert_eq!(again.lines().count(), 8);
}

#[test]
fn plain_and_chat_prompts_score_the_same_tokens_differently() {
    if !common::neural_model_or_skip("plain_and_chat_prompts_score_the_same_tokens_differently") {
        return;
    }
    let (dir, set) = topic_set();
    let mut by_prompt = Vec::new();
    for prompt in ["plain", "chat"] {
        let log = dir.path().join(format!("{prompt}.jsonl"));
        features_with(
            &set,
            &dir.path().join(format!("{prompt}.csv")),
            &log,
            prompt,
        );
        let lines = log_lines(&log);
        let text: String = lines[0]["tokens"]
            .as_array()
            .expect("tokens")
            .iter()
            .map(|t| t.as_str().expect("text"))
            .collect();
        // Under either prompt the word salad is less likely than the fluent summary.
        assert!(mean_given(&lines[1]) < mean_given(&lines[0]), "{prompt}");
        by_prompt.push((text, mean_given(&lines[0])));
    }
    // The plain prompt scores the summary after one space, the chat prompt at a line start.
    assert_eq!(by_prompt[0].0, format!(" {}", by_prompt[1].0));
    assert!(
        (by_prompt[0].1 - by_prompt[1].1).abs() > 1e-3,
        "{by_prompt:?}"
    );
}

#[test]
fn unwritable_token_log_is_a_clear_error() {
    if !common::neural_model_or_skip("unwritable_token_log_is_a_clear_error") {
        return;
    }
    let (dir, set) = topic_set();
    let log = dir.path().join("no-such-dir").join("tokens.jsonl");
    let csv = dir.path().join("f.csv");
    let run = common::aesop()
        .env("AESOP_NEURAL_TOKENS", &log)
        .args([
            "features",
            set.to_str().expect("utf-8"),
            "--classes",
            "neural",
            "-o",
            csv.to_str().expect("utf-8"),
        ])
        .output()
        .expect("runs");
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("AESOP_NEURAL_TOKENS"), "{err}");
    assert!(err.contains("no-such-dir"), "{err}");
    assert!(!csv.exists(), "no partial output");
}

/// The `gemma3` class: the same features under Gemma 3 (always the plain prompt, after a BOS
/// token), named `gemma3.*`, agreeing with its own token log.
#[test]
fn gemma3_class_scores_with_its_own_model_and_names() {
    if !common::lm_model_or_skip(
        "gemma3_class_scores_with_its_own_model_and_names",
        &aesop::neural::model::GEMMA3,
    ) {
        return;
    }
    let (dir, set) = topic_set();
    let (csv, log) = (dir.path().join("g.csv"), dir.path().join("g.jsonl"));
    let table = features_of_class(&set, &csv, &log, &["--classes", "gemma3"]);
    let head: Vec<&str> = table.lines().next().expect("header").split(',').collect();
    assert!(head.contains(&"gemma3.src_mean") && head.contains(&"gemma3.ref_f"));
    assert!(!head.iter().any(|h| h.starts_with("neural.")), "{head:?}");
    let col = |name: &str| head.iter().position(|h| *h == name).expect(name);
    let lines = log_lines(&log);
    assert_eq!(lines.len(), 4);
    for (line, row) in lines.iter().zip(table.lines().skip(1)) {
        let r: Vec<&str> = row.split(',').collect();
        let tokens: Vec<&str> = line["tokens"]
            .as_array()
            .expect("tokens")
            .iter()
            .map(|t| t.as_str().expect("token"))
            .collect();
        let system = line["system"].as_str().expect("system");
        assert_eq!(line["class"], "gemma3");
        let n: f64 = r[col("gemma3.n_tokens")].parse().expect("n_tokens");
        assert_eq!(n as usize, tokens.len(), "{system}");
        if tokens.is_empty() {
            assert_eq!(system, "empty");
            assert_eq!(r[col("gemma3.src_mean")], "");
            continue;
        }
        // The plain prompt: the summary follows "above:" after one space.
        assert!(tokens.concat().starts_with(' '), "{system}: {tokens:?}");
        let (given, unconditional) = (
            numbers(line, "given_source"),
            numbers(line, "unconditional"),
        );
        let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
        let value = |name: &str| -> f64 { r[col(name)].parse().expect(name) };
        common::assert_within(value("gemma3.src_mean"), mean(&given), 1e-5);
        common::assert_within(
            value("gemma3.pmi_mean"),
            mean(&given) - mean(&unconditional),
            1e-5,
        );
    }
    // The word salad is less likely given the source than the fluent summary.
    assert!(mean_given(&lines[1]) < mean_given(&lines[0]));
}
