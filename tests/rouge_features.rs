//! Parity with the Perl ROUGE-1.5.5 on SummEval: every summary against its 11 references,
//! flags `-n 2 -2 4 -u -m -c 95 -r 1 -a -d` (and the same plus `-s`), compared as ROUGE prints
//! the values (5 decimals, F from the printed recall and precision).

use crate::common;

use aesop::features::rouge::{
    score, PreparedText, ReferenceSet, RougeOptions, RougeScores, Vocabulary,
};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// One SummEval article: its references and (system, summary) pairs, texts stripped as the
/// reference run stripped them.
struct Article {
    doc_id: String,
    references: Vec<String>,
    summaries: Vec<(String, String)>,
}

fn read_summeval(path: &Path) -> Vec<Article> {
    let text = std::fs::read_to_string(path).expect("read summeval.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("valid JSON line");
            let doc_id = v["doc_id"].as_str().expect("doc_id").to_string();
            let references = v["ref_summs"]
                .as_array()
                .expect("ref_summs")
                .iter()
                .map(|r| r.as_str().expect("reference text").trim().to_string())
                .collect();
            let summaries = v["sys_summs"]
                .as_object()
                .expect("sys_summs")
                .iter()
                .map(|(system, s)| {
                    let text = s["sys_summ"].as_str().expect("sys_summ").trim().to_string();
                    (system.clone(), text)
                })
                .collect();
            Article {
                doc_id,
                references,
                summaries,
            }
        })
        .collect()
}

/// (doc_id, system, metric) → [recall, precision, f] as printed.
type Expected = HashMap<(String, String, String), [String; 3]>;

fn read_expected(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path).expect("read reference TSV");
    text.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 6, "bad TSV line {line}");
            (
                (f[0].to_string(), f[1].to_string(), f[2].to_string()),
                [f[3].to_string(), f[4].to_string(), f[5].to_string()],
            )
        })
        .collect()
}

/// CPU seconds this thread has run (Linux), to time the scoring without the noise of other
/// processes sharing the machine.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(nanos / 1e9)
}

/// Score every summary of every article as the feature class does (references prepared and
/// indexed once per article); returns (doc_id, system, scores) and the seconds the
/// tokenization and scoring took.
fn score_all(
    articles: &[Article],
    opts: &RougeOptions,
) -> (Vec<(String, String, RougeScores)>, f64) {
    let start = Instant::now();
    let cpu_start = thread_cpu_seconds();
    let mut out = Vec::new();
    for article in articles {
        // One vocabulary per topic, as the feature class interns them.
        let vocabulary = Vocabulary::default();
        let references = ReferenceSet::from_texts(
            article.references.iter().map(String::as_str),
            opts,
            &vocabulary,
        );
        for (system, text) in &article.summaries {
            let peer = PreparedText::new(text, opts, &vocabulary);
            out.push((
                article.doc_id.clone(),
                system.clone(),
                references.score(&peer, opts),
            ));
        }
    }
    if let (Some(a), Some(b)) = (cpu_start, thread_cpu_seconds()) {
        eprintln!("  (thread CPU time {:.3} s)", b - a);
    }
    (out, start.elapsed().as_secs_f64())
}

/// The plain pairwise API ([`score`]) must give the same values as the indexed one.
fn assert_pairwise_agrees(
    articles: &[Article],
    scored: &[(String, String, RougeScores)],
    opts: &RougeOptions,
) {
    let mut row = 0;
    for article in articles {
        let vocabulary = Vocabulary::default();
        let references: Vec<PreparedText> = article
            .references
            .iter()
            .map(|r| PreparedText::new(r, opts, &vocabulary))
            .collect();
        let references: Vec<&PreparedText> = references.iter().collect();
        for (system, text) in &article.summaries {
            let peer = PreparedText::new(text, opts, &vocabulary);
            let pairwise = score(&peer, &references, opts);
            assert_eq!(pairwise, scored[row].2, "{} {system}", article.doc_id);
            row += 1;
        }
    }
}

/// Compare with the reference table; returns (matching rows, total rows).
fn compare(
    label: &str,
    scored: &[(String, String, RougeScores)],
    expected: &Expected,
) -> (usize, usize) {
    let mut matching = 0;
    let mut compared = 0;
    let mut shown = 0;
    for (doc_id, system, scores) in scored {
        let printed = scores.rouge155_printed();
        for (metric, prf) in [
            ("ROUGE-1", printed.rouge1),
            ("ROUGE-2", printed.rouge2),
            ("ROUGE-L", printed.rouge_l),
            ("ROUGE-SU4", printed.rouge_su4),
        ] {
            let key = (doc_id.clone(), system.clone(), metric.to_string());
            let Some(want) = expected.get(&key) else {
                continue;
            };
            compared += 1;
            let got = [
                format!("{:.5}", prf.recall),
                format!("{:.5}", prf.precision),
                format!("{:.5}", prf.f),
            ];
            if &got == want {
                matching += 1;
            } else if shown < 20 {
                shown += 1;
                eprintln!(
                    "{label} MISMATCH {doc_id} {system} {metric}: got {got:?}, want {want:?}"
                );
            }
        }
    }
    eprintln!(
        "{label}: {matching} of {compared} rows match ({} expected)",
        expected.len()
    );
    (matching, compared)
}

#[test]
fn rouge155_summeval_parity() {
    let Some(summeval) =
        common::data_or_skip("rouge155_summeval_parity", "summeval/summeval.jsonl")
    else {
        return;
    };
    let Some(outputs) = common::data_or_skip("rouge155_summeval_parity", "reference-outputs")
    else {
        return;
    };
    let read_start = Instant::now();
    let articles = read_summeval(&summeval);
    eprintln!(
        "read {} articles in {:.3} s",
        articles.len(),
        read_start.elapsed().as_secs_f64()
    );

    let mut total_seconds = 0.0;
    for (file, remove_stopwords) in [
        ("rouge155_summeval.tsv", false),
        ("rouge155_summeval_stop.tsv", true),
    ] {
        let opts = RougeOptions {
            stem: true,
            remove_stopwords,
            ..RougeOptions::default()
        };
        let expected = read_expected(&outputs.join(file));
        let (scored, seconds) = score_all(&articles, &opts);
        total_seconds += seconds;
        // A second pass shows the cost without one-time work (lazy tables, vocabulary, stems).
        let (_, warm_seconds) = score_all(&articles, &opts);
        eprintln!("{file}: warm pass {warm_seconds:.3} s");
        eprintln!(
            "{file}: scored {} summaries × 11 references, 4 measures, in {seconds:.3} s",
            scored.len()
        );
        let (matching, compared) = compare(file, &scored, &expected);
        assert_pairwise_agrees(&articles, &scored, &opts);
        assert_eq!(
            compared,
            expected.len(),
            "{file}: every reference row must be compared"
        );
        assert_eq!(compared, 6400);
        assert_eq!(
            matching, compared,
            "{file}: rows differing from ROUGE-1.5.5"
        );
    }
    eprintln!("both settings: {total_seconds:.3} s");
}

/// With `--rouge-jackknife`, a human summary that is one of the k references is scored once
/// against the k − 1 others (as NIST scores model summaries), not as the mean over subsets of
/// k − 2 (jackknifing again inside its own jackknife); peers keep the mean over the k subsets.
#[test]
fn a_self_reference_is_jackknifed_once() {
    use aesop::corpus::{Document, Reference, Summary, Topic};
    use aesop::features::{build_classes, FeatureOptions};
    let texts = [
        "the council approved a new budget for the schools on monday",
        "on monday the council passed the budget after a long debate",
        "critics said the new budget ignores the cost of transport",
    ];
    let topic_with = |references: &[usize], summaries: &[(&str, &str, bool)]| {
        let mut topic = Topic::new("t");
        topic.documents.push(Document::new("d", texts.join(". ")));
        for &r in references {
            topic
                .references
                .push(Reference::new(format!("r{r}"), texts[r]));
        }
        for &(system, text, human) in summaries {
            let mut summary = Summary::new(system, text);
            summary.human = human;
            topic.summaries.push(summary);
        }
        topic
    };
    let peer = "the council approved the budget on monday";
    let r1_recall = |topic: &Topic, jackknife: bool, system: &str| {
        let mut options = FeatureOptions::default();
        options.rouge.jackknife = jackknife;
        let classes = build_classes(&["rouge".to_string()], &options).expect("rouge");
        let table = aesop::features::run::extract_features(
            std::slice::from_ref(topic),
            &classes,
            false,
            &std::sync::atomic::AtomicBool::new(false),
        )
        .expect("features");
        let column = table
            .names
            .iter()
            .position(|n| n == "rouge.r1_recall")
            .expect("column");
        let record = table
            .records
            .iter()
            .find(|r| r.system == system)
            .expect("record");
        record.values[column].expect("value")
    };
    let topic = topic_with(&[0, 1, 2], &[("peer", peer, false), ("r0", texts[0], true)]);
    // The human summary r0 against r1 and r2 pooled, no jackknife.
    let against_others = r1_recall(&topic_with(&[1, 2], &[("x", texts[0], false)]), false, "x");
    let jackknifed = r1_recall(&topic, true, "r0");
    assert!(
        (jackknifed - against_others).abs() < 1e-12,
        "{jackknifed} vs {against_others}"
    );
    // Without the option the human summary gets the same (it is left out of its references).
    assert!((r1_recall(&topic, false, "r0") - against_others).abs() < 1e-12);
    // The peer: the mean over the three leave-one-out subsets.
    let subsets = [[1, 2], [0, 2], [0, 1]]
        .iter()
        .map(|s| r1_recall(&topic_with(s, &[("peer", peer, false)]), false, "peer"))
        .sum::<f64>()
        / 3.0;
    assert!((r1_recall(&topic, true, "peer") - subsets).abs() < 1e-12);
}
