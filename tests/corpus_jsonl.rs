//! The judgment-set rules of docs/JUDGMENT_SETS.md, one test each.

use aesop::corpus::jsonl::{open_set, read_set, topic_from_value, write_set, SetReader};
use aesop::corpus::Topic;
use std::io::Write;
use std::path::PathBuf;

/// Write `content` to `set.jsonl` in a fresh temp dir.
fn set_file(content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("set.jsonl");
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(content))
        .expect("write set");
    (dir, path)
}

fn error_of(content: &str) -> String {
    let (_dir, path) = set_file(content.as_bytes());
    let error = read_set(&path).expect_err("should fail");
    let message = format!("{error:#}");
    // Every message starts with the file name and a line number.
    assert!(message.contains("set.jsonl:"), "{message}");
    message
}

const GOOD: &str = r#"{"topic": "t1", "documents": [{"id": "d1", "text": "Doc one."}], "summaries": [{"system": "s1", "text": "Sum.", "scores": {"relevance": 3.5}}]}"#;

#[test]
fn reads_a_minimal_topic_with_optional_fields_missing() {
    let (_dir, path) = set_file(format!("{GOOD}\n").as_bytes());
    let topics = read_set(&path).expect("read");
    assert_eq!(topics.len(), 1);
    let topic = &topics[0];
    assert_eq!(topic.topic, "t1");
    assert!(topic.query.is_none());
    assert!(topic.references.is_empty());
    assert_eq!(topic.summaries[0].scores["relevance"], 3.5);
    // A topic with no documents, references or summaries at all is valid.
    let (_dir, path) = set_file(b"{\"topic\": \"bare\"}\n");
    let bare = read_set(&path).expect("read");
    assert!(bare[0].documents.is_empty() && bare[0].summaries.is_empty());
    // A summary without scores.
    let (_dir, path) =
        set_file(b"{\"topic\": \"t\", \"summaries\": [{\"system\": \"s\", \"text\": \"x\"}]}");
    assert!(read_set(&path).expect("read")[0].summaries[0]
        .scores
        .is_empty());
}

#[test]
fn malformed_json_names_line_and_column() {
    let message = error_of(&format!("{GOOD}\n{{\"topic\": \"t2\", \"summaries\": [\n"));
    assert!(
        message.contains("set.jsonl:2: malformed JSON at column"),
        "{message}"
    );
    assert!(!message.contains("at line 1"), "{message}");
}

#[test]
fn missing_required_fields_are_named() {
    assert!(
        error_of(r#"{"documents": []}"#).ends_with("set.jsonl:1: topic: missing required field")
    );
    assert!(error_of(r#"{"topic": "t", "summaries": [{"text": "x"}]}"#)
        .ends_with("summaries[0].system: missing required field"));
    assert!(error_of(
        r#"{"topic": "t", "summaries": [{"system": "a", "text": "x"}, {"system": "b"}]}"#
    )
    .ends_with("set.jsonl:1: summaries[1].text: missing required field"));
    assert!(error_of(r#"{"topic": "t", "documents": [{"id": "d"}]}"#)
        .ends_with("documents[0].text: missing required field"));
    assert!(error_of(r#"{"topic": "t", "documents": [{"text": "x"}]}"#)
        .ends_with("documents[0].id: missing required field"));
    assert!(error_of(r#"{"topic": "t", "references": [{"id": "A"}]}"#)
        .ends_with("references[0].text: missing required field"));
    assert!(error_of(r#"{"topic": ""}"#).ends_with("topic: must not be empty"));
}

#[test]
fn wrong_types_are_named() {
    let message = error_of(&format!(
        "\n{GOOD}\n{}",
        r#"{"topic": "t2", "summaries": [{"system": "a", "text": "x"}, {"system": "b", "text": "y"}, {"system": "c", "text": "z"}, {"system": "d", "text": "w", "scores": {"relevance": "high"}}]}"#
    ));
    assert!(
        message.ends_with(
            "set.jsonl:3: summaries[3].scores.relevance: expected a number, found a string"
        ),
        "{message}"
    );
    assert!(error_of(r#"{"topic": true}"#).ends_with("topic: expected a string, found a boolean"));
    // A score written as a quoted number (a table's cell passed on as text): how to write it.
    assert!(error_of(
        r#"{"topic": "t", "summaries": [{"system": "s", "text": "", "scores": {"relevance": " 3.5"}}]}"#
    )
    .ends_with(
        "summaries[0].scores.relevance: expected a number, found the string \" 3.5\" (write the \
         number without quotes: in Python, float(…) before json.dumps)"
    ));
    assert!(error_of(r#"{"topic": "t", "summaries": {}}"#)
        .ends_with("summaries: expected an array, found an object"));
    assert!(
        error_of(r#"{"topic": "t", "summaries": [{"system": "s", "text": 3}]}"#)
            .ends_with("summaries[0].text: expected a string, found a number")
    );
    // A text stored as a list of sentences, as some corpora keep them: how to write it.
    assert!(error_of(
        r#"{"topic": "t", "summaries": [{"system": "s", "text": ["One.", "Two."]}]}"#
    )
    .ends_with(
        "summaries[0].text: expected a string, found an array of 2 strings: write the text as one string, its sentences joined with spaces or line breaks"
    ));
    assert!(error_of(
        r#"{"topic": "t", "summaries": [{"system": "s", "text": "", "human": "yes"}]}"#
    )
    .ends_with("summaries[0].human: expected true or false, found a string"));
    assert!(error_of(r#"{"topic": "t", "query": {"title": 1}}"#)
        .ends_with("query.title: expected a string, found a number"));
    assert!(error_of("[1, 2]").contains("set.jsonl:1: expected an object, found an array"));
}

/// Ids written as numbers (a table's numeric column turned into JSON: pandas' `to_dict`, a
/// spreadsheet's) are read as their JSON text, as `evaluate` reads a prediction's; a blank
/// score (a table's empty cell passed on as "") is missing, as "NaN" and `null` are.
#[test]
fn numeric_ids_are_read_as_their_text_and_a_blank_score_is_missing() {
    let (_dir, path) = set_file(
        br#"{"topic": 7, "documents": [{"id": 1, "text": "A."}], "references": [{"id": 2, "text": "B."}], "summaries": [{"system": 3, "text": "C.", "scores": {"relevance": "", "coherence": "  ", "fluency": 2}}, {"system": "x", "text": "D."}]}
{"topic": 7.5, "summaries": [{"system": 1e2, "text": "E."}]}"#,
    );
    let topics = read_set(&path).expect("read");
    assert_eq!(topics[0].topic, "7");
    assert_eq!(topics[0].documents[0].id, "1");
    assert_eq!(topics[0].references[0].id, "2");
    assert_eq!(topics[0].summaries[0].system, "3");
    assert_eq!(
        topics[0].summaries[0].scores.keys().collect::<Vec<_>>(),
        ["fluency"]
    );
    assert_eq!(topics[1].topic, "7.5");
    assert_eq!(topics[1].summaries[0].system, "100.0");
    // An id given once as a number and once as its text is one id.
    let message = error_of("{\"topic\": 7}\n{\"topic\": \"7\"}");
    assert!(
        message.ends_with("set.jsonl:2: topic: duplicate topic id \"7\" (first at line 1)"),
        "{message}"
    );
}

#[test]
fn empty_summary_text_is_kept() {
    let (_dir, path) = set_file(br#"{"topic": "t", "summaries": [{"system": "blank", "text": "", "scores": {"pyramid": 0.0}}]}"#);
    let topics = read_set(&path).expect("read");
    assert_eq!(topics[0].summaries[0].text, "");
    assert_eq!(topics[0].summaries[0].scores["pyramid"], 0.0);
}

#[test]
fn non_utf8_bytes_are_an_error_with_the_line() {
    let mut content = format!("{GOOD}\n").into_bytes();
    content.extend_from_slice(b"{\"topic\": \"caf\xe9\"}\n");
    let (_dir, path) = set_file(&content);
    let message = format!("{:#}", read_set(&path).expect_err("latin-1 byte"));
    assert!(
        message.contains("set.jsonl:2: invalid UTF-8 at byte 15 of the line"),
        "{message}"
    );
}

#[test]
fn null_and_nan_scores_are_missing_infinity_is_an_error() {
    let line = r#"{"topic": "t", "summaries": [{"system": "s", "text": "x", "scores": {"a": null, "b": "NaN", "c": "nan", "d": 2}}]}"#;
    let (_dir, path) = set_file(line.as_bytes());
    let scores = &read_set(&path).expect("read")[0].summaries[0].scores;
    assert_eq!(scores.len(), 1);
    assert_eq!(scores["d"], 2.0);
    // Bare NaN (as Python's json writes it) is treated like "NaN".
    let bare = r#"{"topic": "t", "summaries": [{"system": "s", "text": "NaN stays", "scores": {"a": NaN, "d": 1}}]}"#;
    let (_dir, path) = set_file(bare.as_bytes());
    let topics = read_set(&path).expect("read bare NaN");
    assert_eq!(topics[0].summaries[0].text, "NaN stays");
    assert_eq!(
        topics[0].summaries[0].scores.keys().collect::<Vec<_>>(),
        ["d"]
    );
    let message = error_of(
        r#"{"topic": "t", "summaries": [{"system": "s", "text": "x", "scores": {"a": Infinity}}]}"#,
    );
    assert!(
        message.contains("set.jsonl:1: summaries[0].scores.a: infinite score"),
        "{message}"
    );
    let message = error_of(
        r#"{"topic": "t", "summaries": [{"system": "s", "text": "x", "scores": {"a": "-inf"}}]}"#,
    );
    assert!(
        message.contains("summaries[0].scores.a: infinite score"),
        "{message}"
    );
    // Overflowing literals are rejected by the JSON parser itself.
    let message = error_of(
        r#"{"topic": "t", "summaries": [{"system": "s", "text": "x", "scores": {"a": 1e999}}]}"#,
    );
    assert!(message.contains("set.jsonl:1: malformed JSON"), "{message}");
}

#[test]
fn duplicates_are_errors_naming_both() {
    let message = error_of(
        r#"{"topic": "t", "summaries": [{"system": "M1", "text": "a"}, {"system": "M2", "text": "b"}, {"system": "M1", "text": "c"}]}"#,
    );
    assert!(
        message.ends_with(
            "set.jsonl:1: summaries[2].system: duplicate system \"M1\" (first at summaries[0])"
        ),
        "{message}"
    );
    let message = error_of(&format!("{GOOD}\n\n{GOOD}\n"));
    assert!(
        message.ends_with("set.jsonl:3: topic: duplicate topic id \"t1\" (first at line 1)"),
        "{message}"
    );
    let message = error_of(
        r#"{"topic": "t", "references": [{"id": "A", "text": "a"}, {"id": "A", "text": "b"}]}"#,
    );
    assert!(
        message.ends_with("references[1].id: duplicate id \"A\" (first at references[0])"),
        "{message}"
    );
}

#[test]
fn blank_lines_crlf_and_bom_are_tolerated() {
    let content = format!(
        "\u{feff}{GOOD}\r\n\r\n   \n{}\r\n",
        GOOD.replace("t1", "t2")
    );
    let (_dir, path) = set_file(content.as_bytes());
    let topics = read_set(&path).expect("read");
    let ids: Vec<&str> = topics.iter().map(|t| t.topic.as_str()).collect();
    assert_eq!(ids, ["t1", "t2"]);
}

#[test]
fn unknown_fields_are_kept_and_written_back() {
    let line = r#"{"topic": "t", "source": "mine", "query": {"title": "T", "category": 3}, "documents": [{"id": "d", "text": "x", "date": "2005"}], "references": [{"id": "A", "text": "r", "author": "NIST"}], "summaries": [{"system": "s", "text": "x", "human": true, "note": [1, 2]}]}"#;
    let (_dir, path) = set_file(line.as_bytes());
    let topics = read_set(&path).expect("read");
    let topic = &topics[0];
    assert_eq!(topic.extra["source"], "mine");
    assert_eq!(topic.query.as_ref().expect("query").extra["category"], 3);
    assert_eq!(topic.documents[0].extra["date"], "2005");
    assert_eq!(topic.references[0].extra["author"], "NIST");
    assert_eq!(topic.summaries[0].extra["note"], serde_json::json!([1, 2]));
    assert!(topic.summaries[0].human);
    let mut written = Vec::new();
    write_set(&mut written, &topics).expect("write");
    let text = String::from_utf8(written).expect("utf-8");
    for field in [
        "\"source\":\"mine\"",
        "\"category\":3",
        "\"date\":\"2005\"",
        "\"author\":\"NIST\"",
        "\"note\":[1,2]",
        "\"human\":true",
    ] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
}

#[test]
fn round_trip_read_write_read() {
    let content = format!(
        "{GOOD}\n{}\n",
        r#"{"topic": "D0801-A", "query": {"title": "T", "narrative": "N"}, "documents": [{"id": "d", "text": "Line one.\nLine two é."}], "references": [{"id": "A", "text": "ref"}], "summaries": [{"system": "A", "text": "", "human": true, "scores": {"pyramid": 0.25, "x": null}}], "extra_field": {"k": [1, "two"]}}"#
    );
    let (_dir, path) = set_file(content.as_bytes());
    let first = read_set(&path).expect("read");
    let mut written = Vec::new();
    write_set(&mut written, &first).expect("write");
    let (_dir2, path2) = set_file(&written);
    let second = read_set(&path2).expect("read again");
    assert_eq!(first, second);
    assert_eq!(second.len(), 2);
    // Non-finite scores set in memory are written as null and read back as missing.
    let mut topics: Vec<Topic> = second;
    topics[0].summaries[0].scores.insert("bad".into(), f64::NAN);
    let mut written = Vec::new();
    write_set(&mut written, &topics).expect("write NaN");
    let (_dir3, path3) = set_file(&written);
    let third = read_set(&path3).expect("read NaN back");
    assert!(!third[0].summaries[0].scores.contains_key("bad"));
}

#[test]
fn streaming_reader_reports_each_bad_line_and_continues() {
    let content = format!("{GOOD}\nnot json\n{}\n", GOOD.replace("t1", "t2"));
    let reader = SetReader::new(content.as_bytes(), "mem.jsonl");
    let results: Vec<_> = reader.collect();
    assert_eq!(results.len(), 3);
    assert!(results[0].is_ok());
    let message = format!("{:#}", results[1].as_ref().expect_err("bad line"));
    assert!(
        message.starts_with("mem.jsonl:2: malformed JSON"),
        "{message}"
    );
    assert_eq!(results[2].as_ref().expect("third").topic, "t2");
    // open_set streams a file; a missing file names itself.
    let message = format!(
        "{:#}",
        open_set(std::path::Path::new("no/such.jsonl"))
            .err()
            .expect("missing")
    );
    assert!(
        message.starts_with("no/such.jsonl: cannot open"),
        "{message}"
    );
}

#[test]
fn topic_from_value_gives_the_field_path_for_http_errors() {
    let value = serde_json::json!({"topic": "t", "summaries": [{"system": "s", "text": "x"}, {"system": "s2"}]});
    let error = topic_from_value(value).expect_err("missing text");
    assert_eq!(error.field, "summaries[1].text");
    assert_eq!(error.message, "missing required field");
}

#[test]
fn a_gzipped_set_reads_as_the_plain_file_and_bad_gzip_names_file_and_line() {
    let second = GOOD.replace("t1", "t2");
    let plain = format!("{GOOD}\n{second}\n");
    let dir = tempfile::tempdir().expect("temp dir");
    // Two gzip members (as `cat a.gz b.gz` makes): both are read.
    let mut bytes = Vec::new();
    for line in [format!("{GOOD}\n"), format!("{second}\n")] {
        bytes.extend(crate::common::gzip(line.as_bytes()));
    }
    let gz = dir.path().join("set.jsonl.gz");
    std::fs::write(&gz, &bytes).expect("write");
    let (_plain_dir, plain_path) = set_file(plain.as_bytes());
    let from_gz = read_set(&gz).expect("gzipped set");
    assert_eq!(from_gz.len(), 2);
    assert_eq!(from_gz, read_set(&plain_path).expect("plain set"));

    // Cut short: the error names the file, the line being read, and gzip.
    let cut = dir.path().join("cut.jsonl.gz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2 - 5]).expect("write");
    let message = format!("{:#}", read_set(&cut).expect_err("truncated gzip"));
    assert!(message.contains("cut.jsonl.gz:"), "{message}");
    assert!(message.contains("not valid gzip"), "{message}");
    // Not gzip at all, whatever its name says.
    let fake = dir.path().join("fake.jsonl.gz");
    std::fs::write(&fake, plain.as_bytes()).expect("write");
    let message = format!("{:#}", read_set(&fake).expect_err("not gzip"));
    assert!(
        message.starts_with("fake.jsonl.gz:1: read error: not valid gzip")
            || message.contains("fake.jsonl.gz:1: read error: not valid gzip"),
        "{message}"
    );
}

#[test]
fn a_set_read_whole_is_never_read_from_standard_input() {
    // The verbs that read a set whole record its content hash; `-` is refused before any read.
    let message = format!(
        "{:#}",
        read_set(std::path::Path::new("-")).expect_err("stdin")
    );
    assert!(message.starts_with("-: "), "{message}");
    assert!(message.contains("not standard input"), "{message}");
}

/// A set written as one JSON document (`json.dump(topics, f)`, pretty-printed or not) is told
/// what a judgment set is and how to convert it; a bad line further down gets no such advice.
#[test]
fn a_file_of_one_json_document_is_told_how_to_write_json_lines() {
    let array = format!("[{GOOD}, {GOOD}]\n");
    let pretty_array = format!("[\n  {GOOD}\n]\n");
    for content in [array.as_str(), pretty_array.as_str()] {
        let message = error_of(content);
        assert!(message.contains("set.jsonl:1: "), "{message}");
        assert!(
            message.contains("the file holds one JSON array of topics")
                && message.contains("jq -c '.[]' "),
            "{message}"
        );
    }
    let pretty_object = "{\n  \"topic\": \"t1\"\n}\n";
    let message = error_of(pretty_object);
    assert!(
        message.contains("the file holds JSON spread over several lines")
            && message.contains("jq -c . "),
        "{message}"
    );
    // After blank lines the first line with content is the one judged.
    assert!(error_of(&format!("\n\n{pretty_array}")).contains("set.jsonl:3: "));
    // A line of JSON Lines that is broken or an array, after a good one: the plain message.
    for later in ["{\"topic\": ", "[1]"] {
        let message = error_of(&format!("{GOOD}\n{later}\n"));
        assert!(message.contains("set.jsonl:2: "), "{message}");
        assert!(!message.contains("jq"), "{message}");
    }
    // A table of summaries (CSV or TSV, as spreadsheets save them) is pointed to the recipe that
    // writes a set from one; a broken object line is not taken for one.
    for table in [
        "topic,system,text,relevance\nt1,a,\"One.\",4\n",
        "topic\tsystem\ttext\nt1\ta\tOne.\n",
        "topic;system;text;relevance\nt1;a;One.;2,5\n",
    ] {
        let message = error_of(table);
        assert!(
            message.contains("set.jsonl:1: malformed JSON")
                && message.contains("(the file looks like a table (CSV or TSV)")
                && message.contains("\"From a table\""),
            "{message}"
        );
    }
    assert!(!error_of("{\"topic\": \"a\", \"b\"\n").contains("a table"));
    // The file's name is quoted where a shell would split it.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("my topics.json");
    std::fs::write(&path, &array).expect("write");
    let message = format!("{:#}", read_set(&path).expect_err("should fail"));
    assert!(message.contains("jq -c '.[]' '"), "{message}");
    assert!(message.contains("my topics.json' > set.jsonl"), "{message}");
}

/// docs/JUDGMENT_SETS.md's "From a table" script, run as the section gives it on two tables
/// (a quoted comma, a non-ASCII name, a missing score), writes a set the reader takes as meant.
/// Python 3 is on every machine aesop is built on (the brief); without it the test says so.
#[test]
fn the_from_a_table_script_writes_a_set_the_reader_reads() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/JUDGMENT_SETS.md"),
    )
    .expect("docs");
    let section = &docs[docs.find("### From a table").expect("the section")..];
    let script = section
        .split("```python\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the section's Python block");
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text);
    write("to_set.py", script).expect("write");
    write(
        "documents.csv",
        "topic,doc_id,text\nt1,d1,\"The council, after a debate, approved the budget.\"\n\
         t2,d2,Rain flooded the lower town.\n",
    )
    .expect("write");
    write(
        "summaries.csv",
        // As Excel saves "CSV UTF-8": a byte-order mark first, lines ended by CR LF.
        "\u{feff}topic,system,text,relevance\r\nt1,a,\"Z\u{fc}rich's council approved it.\",4\r\n\
         t1,b,A debate.,2.5\r\nt2,a,Rain flooded the town.,\r\n",
    )
    .expect("write");
    let ran = std::process::Command::new("python3")
        .arg("to_set.py")
        .current_dir(dir.path())
        .output();
    let out = match ran {
        Ok(out) => out,
        Err(e) => {
            // CI has Python (the brief); elsewhere a missing one is said, not failed.
            assert!(
                std::env::var("AESOP_REQUIRE_DATA").as_deref() != Ok("1"),
                "no python3: {e}"
            );
            crate::common::notice_skipped(&format!(
                "SKIPPED the_from_a_table_script_writes_a_set_the_reader_reads: no python3 ({e})"
            ));
            return;
        }
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let topics = read_set(&dir.path().join("set.jsonl")).expect("a set");
    assert_eq!(topics.len(), 2);
    assert_eq!(
        topics[0].documents[0].text,
        "The council, after a debate, approved the budget."
    );
    let summaries = &topics[0].summaries;
    assert_eq!(summaries[0].text, "Z\u{fc}rich's council approved it.");
    assert_eq!(summaries[0].scores.get("relevance"), Some(&4.0));
    assert_eq!(summaries[1].scores.get("relevance"), Some(&2.5));
    assert!(topics[1].summaries[0].scores.is_empty(), "a missing score");
}
