//! Property-based fuzz tests (proptest) for the readers of untrusted input: the judgment-set
//! reader, the model-file reader, the HTTP score-request parser, `evaluate`'s reader of
//! prediction records and saved service answers, and `import table`'s reader of tables (CSV and
//! JSON rows). Each must return `Ok` or an error for any
//! input, never panic. `cargo test` runs proptest's default number of cases
//! (256 per property, or `PROPTEST_CASES`); `scripts/experiments/fuzz` runs over a million.

use aesop::corpus::jsonl::SetReader;
use aesop::eval::report::{feature_columns_of_records, metric_of_records, Keywords};
use aesop::learn::model_file::{fnv1a64, ModelFile};
use aesop::serve::api::parse_score_request;
use aesop::serve::limits::Limits;
use proptest::prelude::*;

const VALID_TOPIC: &str = r#"{"topic": "t1", "documents": [{"id": "d1", "text": "The council approved the budget."}], "references": [{"id": "A", "text": "Budget approved."}], "summaries": [{"system": "s1", "text": "The budget passed.", "scores": {"relevance": 3.5}}]}"#;

/// Fragments that JSON-ish fuzz input is built from: structure, keys the readers look for, and
/// awkward values (BOM, NaN, huge numbers, escapes, duplicate keys).
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("\n".to_string()),
        Just("\u{feff}".to_string()),
        Just("\"topic\"".to_string()),
        Just("\"topics\"".to_string()),
        Just("\"documents\"".to_string()),
        Just("\"references\"".to_string()),
        Just("\"summaries\"".to_string()),
        Just("\"system\"".to_string()),
        Just("\"text\"".to_string()),
        Just("\"id\"".to_string()),
        Just("\"scores\"".to_string()),
        Just("\"models\"".to_string()),
        Just("\"features\"".to_string()),
        Just("\"results\"".to_string()),
        Just("\"score\"".to_string()),
        Just("\"raw\"".to_string()),
        Just("\"target\"".to_string()),
        Just("\"pyramid\"".to_string()),
        Just("NaN".to_string()),
        Just("1e999".to_string()),
        Just("-0".to_string()),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("\"\\ud800\"".to_string()),
        "\"[^\"\\\\]{0,12}\"".prop_map(|s| s),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        ".{0,8}".prop_map(|s| s),
    ]
}

fn json_like() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..40).prop_map(|v| v.concat())
}

/// A valid topic with a few characters replaced, inserted or deleted.
fn mutated(base: &'static str) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8).prop_map(
        move |edits| {
            let mut bytes = base.as_bytes().to_vec();
            for (at, byte, kind) in edits {
                if bytes.is_empty() {
                    bytes.push(byte);
                    continue;
                }
                let i = at.index(bytes.len());
                match kind {
                    0 => bytes[i] = byte,
                    1 => bytes.insert(i, byte),
                    _ => {
                        bytes.remove(i);
                    }
                }
            }
            bytes
        },
    )
}

fn read_set(bytes: &[u8]) {
    for topic in SetReader::new(std::io::Cursor::new(bytes), "fuzz.jsonl") {
        let _ = topic.map(|t| t.summaries.len());
    }
}

const VALID_ANSWER: &str = r#"{"results": [{"topic": "t1", "system": "s1", "scores": {"pyramid": 0.5, "readability": 3.1}, "raw": {"readability": 0.2}, "features": {"content.js": 0.3}}, {"topic": "t1", "system": "s2", "scores": {"pyramid": 0.2, "readability": null}, "features": {"content.js": 0.4}}], "models": [{"name": "pyramid", "version": "1", "target": "pyramid"}, {"name": "readability", "version": "1", "target": "readability"}]}"#;

/// `evaluate`'s reading of records in memory (a saved answer, or prediction rows) for its
/// predictions, for a feature's column, and for every column (`features=`, in each record's
/// own key order).
fn read_records(texts: &[String]) {
    let _ = feature_columns_of_records("fuzz", texts, |available| Ok(available.to_vec()));
    for text in texts {
        let _ = aesop::corpus::jsonl::object_keys_in_order(text);
    }
    for feature in [None, Some("content.js"), Some("-content.js")] {
        let _ = metric_of_records(
            "fuzz",
            texts,
            "pyramid",
            feature,
            None,
            None,
            Keywords::METRIC,
        );
    }
}

const VALID_JSON_ROWS: &str = "[{\"id\": 7, \"system\": \"a\", \"prediction\": [\"One.\", \"Two.\"], \"article\": \"Doc.\", \"highlights\": [\"R1.\", \"R2.\"], \"q\": 2.5},\n {\"id\": 7, \"system\": \"b\", \"prediction\": \"S.\", \"article\": \"Doc.\", \"highlights\": [\"R1.\", \"R2.\"], \"q\": null}]\n";
/// One row per topic, its summaries, systems and scores in lists.
const VALID_TOPIC_ROWS: &str = "{\"id\": 7, \"system\": [\"a\", 2], \"prediction\": [\"One.\", \"S.\"], \"article\": \"Doc.\", \"highlights\": [\"R1.\"], \"q\": [2.5, null]}\n";
const VALID_CSV: &str = "id;system;prediction;article;highlights;q\r\n7;a;\"One; two.\";Doc.;R1.;2,5\r\n7;b;S.;Doc.;R1.;\r\n";

/// The columns of the table seeds.
fn seed_columns() -> aesop::corpus::import::table::TableColumns {
    aesop::corpus::import::table::TableColumns {
        topic: "id".into(),
        summary: "prediction".into(),
        documents: vec!["article".into()],
        references: vec!["highlights".into()],
        ..Default::default()
    }
}

/// `import table` of `bytes`, written to a file of each name the importer tells formats by
/// (JSON rows and CSV are told by the first character, not the name, but a `.tsv` changes the
/// split), read with the seeds' columns.
fn import_table(bytes: &[u8]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let columns = seed_columns();
    for name in ["t.csv", "t.tsv"] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        let _ = aesop::corpus::import::import_tables(&[path], &columns);
    }
}

fn model_bytes() -> &'static [u8] {
    include_bytes!("../models/builtin/readability-noref.aesop")
}

fn small_limits() -> Limits {
    Limits {
        max_text_bytes: 1000,
        max_topics: 4,
        max_summaries: 8,
        ..Limits::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn set_reader_never_panics_on_json_like_text(text in json_like()) {
        read_set(text.as_bytes());
    }

    #[test]
    fn table_importer_never_panics_on_json_like_text(text in json_like()) {
        import_table(text.as_bytes());
    }

    #[test]
    fn table_importer_never_panics_on_mutated_json_rows(bytes in mutated(VALID_JSON_ROWS)) {
        import_table(&bytes);
    }

    #[test]
    fn table_importer_never_panics_on_mutated_topic_rows(bytes in mutated(VALID_TOPIC_ROWS)) {
        import_table(&bytes);
    }

    #[test]
    fn table_importer_never_panics_on_mutated_csv(bytes in mutated(VALID_CSV)) {
        import_table(&bytes);
    }

    #[test]
    fn set_reader_never_panics_on_mutated_topics(bytes in mutated(VALID_TOPIC)) {
        read_set(&bytes);
    }

    #[test]
    fn set_reader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        read_set(&bytes);
    }

    #[test]
    fn model_reader_never_panics_on_mutated_files(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = model_bytes().to_vec();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        let _ = ModelFile::from_bytes(&bytes, "fuzz.aesop");
    }

    #[test]
    fn model_reader_never_panics_on_header_mutations(
        edits in prop::collection::vec((0usize..64, any::<u8>()), 1..6),
    ) {
        // The header and the start of the payload, where lengths and versions live.
        let mut bytes = model_bytes().to_vec();
        for (i, byte) in edits {
            let last = bytes.len() - 1;
            bytes[i.min(last)] = byte;
        }
        let _ = ModelFile::from_bytes(&bytes, "fuzz.aesop");
    }

    #[test]
    fn model_reader_never_panics_on_payload_mutations_with_a_valid_checksum(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = model_bytes().to_vec();
        let writer_len = u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
        let payload_at = 14 + writer_len + 16;
        let checksum_at = payload_at - 8;
        for (at, byte) in edits {
            let i = payload_at + at.index(bytes.len() - payload_at);
            bytes[i] = byte;
        }
        let sum = fnv1a64(&bytes[payload_at..]).to_le_bytes();
        bytes[checksum_at..payload_at].copy_from_slice(&sum);
        let _ = ModelFile::from_bytes(&bytes, "fuzz.aesop");
    }

    #[test]
    fn model_reader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let mut with_magic = b"AESOPMDL".to_vec();
        with_magic.extend_from_slice(&bytes);
        let _ = ModelFile::from_bytes(&with_magic, "fuzz.aesop");
        let _ = ModelFile::from_bytes(&bytes, "fuzz.aesop");
    }

    #[test]
    fn record_reader_never_panics_on_json_like_text(text in json_like()) {
        read_records(std::slice::from_ref(&text));
        read_records(&text.lines().map(str::to_string).collect::<Vec<_>>());
    }

    #[test]
    fn record_reader_never_panics_on_mutated_answers(bytes in mutated(VALID_ANSWER)) {
        read_records(&[String::from_utf8_lossy(&bytes).into_owned()]);
    }

    #[test]
    fn request_parser_never_panics_on_json_like_text(text in json_like()) {
        let _ = parse_score_request(text.as_bytes(), &small_limits());
    }

    #[test]
    fn request_parser_never_panics_on_mutated_requests(
        bytes in mutated(r#"{"topics": [{"topic": "t1", "documents": [{"id": "d1", "text": "The council approved the budget."}], "summaries": [{"system": "s1", "text": "The budget passed."}]}], "models": ["pyramid-noref"], "features": true}"#),
    ) {
        let _ = parse_score_request(&bytes, &small_limits());
    }
}

/// The valid inputs the mutations start from are accepted (so the fuzzing starts from the
/// parsers' interesting paths, not from an early rejection).
#[test]
fn seeds_are_valid() {
    let topics: Vec<_> = SetReader::new(std::io::Cursor::new(VALID_TOPIC.as_bytes()), "seed")
        .collect::<Result<_, _>>()
        .expect("valid topic");
    assert_eq!(topics.len(), 1);
    for table in [VALID_JSON_ROWS, VALID_TOPIC_ROWS, VALID_CSV] {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("seed.csv");
        std::fs::write(&path, table).expect("write");
        let topics =
            aesop::corpus::import::import_tables(&[path], &seed_columns()).expect("valid table");
        assert_eq!((topics.len(), topics[0].summaries.len()), (1, 2), "{table}");
        assert_eq!(topics[0].summaries[0].scores["q"], 2.5);
    }
    let answer = metric_of_records(
        "seed",
        &[VALID_ANSWER.to_string()],
        "pyramid",
        None,
        None,
        None,
        Keywords::METRIC,
    )
    .expect("valid answer");
    assert_eq!(answer.rows.len(), 2);
    let (columns, scores) =
        feature_columns_of_records("seed", &[VALID_ANSWER.to_string()], |available| {
            Ok(available.to_vec())
        })
        .expect("the answer's features");
    assert_eq!(
        (columns, scores[0].rows.len()),
        (vec!["content.js".to_string()], 2)
    );
    let bytes = model_bytes();
    ModelFile::from_bytes(bytes, "seed").expect("valid model");
    // The layout the payload mutations assume.
    let writer_len = u16::from_le_bytes([bytes[12], bytes[13]]) as usize;
    let payload_at = 14 + writer_len + 16;
    let stored = u64::from_le_bytes(bytes[payload_at - 8..payload_at].try_into().unwrap());
    assert_eq!(stored, fnv1a64(&bytes[payload_at..]));
}
