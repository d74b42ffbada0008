"""The Python package against the CLI: the same predictions bit for bit on SummEval topics,
clean exceptions on bad input, pickling, threads, and the Ray Data recipe.

Needs the `aesop` binary (AESOP_BIN, default target/release/aesop) and the data (AESOP_DATA,
default ../shared/data); without them the data tests skip, unless AESOP_REQUIRE_DATA=1.
"""

import concurrent.futures
import gzip
import json
import os
import pickle
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

import aesop

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("AESOP_DATA", ROOT.parent / "shared" / "data"))
BIN = Path(os.environ.get("AESOP_BIN", ROOT / "target" / "release" / "aesop"))


def _need(path, what):
    if path.exists():
        return path
    message = f"{what} not found at {path}"
    if os.environ.get("AESOP_REQUIRE_DATA") == "1":
        pytest.fail(message + " (AESOP_REQUIRE_DATA=1)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def summeval(tmp_path_factory):
    """The first 12 SummEval topics (192 summaries), as a judgment-set file and as dicts."""
    raw = _need(DATA / "summeval" / "summeval.jsonl", "SummEval")
    binary = _need(BIN, "the aesop binary")
    out = tmp_path_factory.mktemp("summeval")
    full = out / "full.jsonl"
    subprocess.run([str(binary), "import", "summeval", str(raw), "-o", str(full)], check=True,
                   capture_output=True)
    lines = full.read_text(encoding="utf-8").splitlines()[:12]
    topics = [json.loads(line) for line in lines]
    # Half without references, so both default variants are exercised.
    for t in topics[6:]:
        t.pop("references", None)
    path = out / "set.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in topics), encoding="utf-8")
    return path, topics


def cli_score(path, models=()):
    args = [str(BIN), "score", str(path)]
    for m in models:
        args += ["--model", m]
    result = subprocess.run(args, check=True, capture_output=True, text=True)
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_score_sets_equals_the_cli_bit_for_bit(summeval):
    path, topics = summeval
    expected = cli_score(path)
    got = aesop.Scorer().score_sets(topics)
    assert len(got) == 12 * 16 * 3
    assert got == expected
    models = {row["model"] for row in got}
    assert "pyramid" in models and "pyramid-noref" in models


def test_named_models_equal_the_cli(summeval):
    path, topics = summeval
    models = ["builtin:pyramid-noref", "readability-noref"]
    expected = cli_score(path, ["builtin:pyramid-noref", "builtin:readability-noref"])
    assert aesop.Scorer(models=models).score_sets(topics) == expected


def test_score_of_texts_equals_score_sets(summeval):
    _, topics = summeval
    t = topics[0]
    scores = aesop.Scorer().score(
        [s["text"] for s in t["summaries"]],
        [d["text"] for d in t["documents"]],
        [r["text"] for r in t["references"]],
    )
    rows = aesop.Scorer().score_sets([t])
    for model, values in scores.items():
        assert values == [r["score"] for r in rows if r["model"] == model]
    assert sorted(scores) == ["pyramid", "readability", "responsiveness"]


def test_features_equal_the_cli(summeval, tmp_path):
    path, topics = summeval
    out = tmp_path / "f.jsonl"
    classes = "rouge,rouge_extended,rouge_score,surface"
    subprocess.run([str(BIN), "features", str(path), "--classes", classes, "-o", str(out)],
                   check=True, capture_output=True)
    expected = [json.loads(line) for line in out.read_text().splitlines()]
    cols = aesop.features(topics, classes=classes)
    assert "rouge_extended.w_f" in cols and "rouge_score.rouge_lsum_f" in cols
    assert list(cols)[:2] == ["topic", "system"]
    assert len(cols["topic"]) == len(expected) == 192
    for i, row in enumerate(expected):
        for name, value in row.items():
            assert cols[name][i] == value, (name, i)


def test_rouge_score_gives_the_packages_numbers_as_evaluate_computes_them():
    """``aesop.rouge_score`` on the fixture of tests/corpus_rouge.rs (56 summaries and what
    Google's rouge-score package gave each, by scripts/build/rouge-score-fixture.py): every F
    equals the package's, with and without stemming; the aggregate is their mean; bad arguments
    are refused naming the argument."""
    fixtures = ROOT / "tests" / "fixtures"
    topics = [json.loads(line) for line in
              (fixtures / "rouge_score_sample.jsonl").read_text(encoding="utf-8").splitlines()]
    lines = (fixtures / "rouge_score_sample.tsv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    table = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        table[(row["topic"], row["system"], row["setting"])] = row
    predictions, references, keys = [], [], []
    for t in topics:
        for s in t["summaries"]:
            predictions.append(s["text"])
            references.append([r["text"] for r in t["references"]])
            keys.append((t["topic"], s["system"]))
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    for setting, stem in (("stem", True), ("plain", False)):
        got = aesop.rouge_score(predictions, references, use_stemmer=stem, use_aggregator=False)
        assert list(got) == types
        for t in types:
            assert got[t] == [float(table[k + (setting,)][f"{t}_f"]) for k in keys], (setting, t)
        means = aesop.rouge_score(predictions, references, use_stemmer=stem)
        assert means == {t: sum(v) / len(v) for t, v in got.items()}
    # One reference as a str: "the cat sat" against "a cat sat on the mat", R 3/6, P 3/3.
    assert aesop.rouge_score(["the cat sat"], ["a cat sat on the mat"], rouge_types=["rouge1"]) \
        == {"rouge1": 2 * 0.5 / 1.5}
    with pytest.raises(ValueError, match="references: 1 given for 2 predictions"):
        aesop.rouge_score(["a", "b"], ["a"])
    with pytest.raises(ValueError, match=r"rouge_types: \['rouge3'\]"):
        aesop.rouge_score(["a"], ["a"], rouge_types=["rouge3"])
    with pytest.raises(ValueError, match=r"references\[0\]: an empty list"):
        aesop.rouge_score(["a"], [[]])
    with pytest.raises(TypeError, match="references: expected a list"):
        aesop.rouge_score(["a"], "a")
    assert aesop.rouge_score([], [], use_aggregator=False) == {t: [] for t in types}


def test_pickled_scorer_reloads_and_scores_the_same(summeval):
    _, topics = summeval
    scorer = aesop.Scorer(models=["pyramid-noref"])
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone.model_names == scorer.model_names
    assert clone.score_sets(topics[:2]) == scorer.score_sets(topics[:2])


def test_threads_share_one_scorer(summeval):
    _, topics = summeval
    scorer = aesop.Scorer()
    alone = [scorer.score_sets([t]) for t in topics[:4]]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda t: scorer.score_sets([t]), topics[:4]))
    assert together == alone


def test_wrong_types_raise_type_errors():
    scorer = aesop.Scorer(models=["pyramid-noref"])
    with pytest.raises(TypeError, match="summaries"):
        scorer.score(5, ["doc"])
    with pytest.raises(TypeError, match=r"summaries\[1\]: expected str, got int"):
        scorer.score(["ok", 3], ["doc"])
    with pytest.raises(TypeError, match=r"documents\[0\]: expected str, got bytes"):
        scorer.score(["ok"], [b"\xff\xfe not utf-8"])
    with pytest.raises(TypeError, match="topic 0: expected a dict"):
        scorer.score_sets(["not a dict"])
    with pytest.raises(TypeError, match="topic 0"):
        scorer.score_sets([{"topic": "t", "documents": [{"id": "d", "text": b"\xff"}], "summaries": []}])


def test_missing_keys_and_bad_values_raise_value_errors_with_the_cli_messages():
    scorer = aesop.Scorer(models=["pyramid-noref"])
    with pytest.raises(ValueError, match="topic 0: topic: missing required field"):
        scorer.score_sets([{"documents": [{"id": "d", "text": "x"}], "summaries": []}])
    with pytest.raises(ValueError, match=r"topic 0: documents\[0\]\.text: missing required field"):
        scorer.score_sets([{"topic": "t", "documents": [{"id": "d"}], "summaries": []}])
    with pytest.raises(ValueError, match="duplicate topic id"):
        t = {"topic": "t", "documents": [{"id": "d", "text": "x"}], "summaries": [{"system": "s", "text": "y"}]}
        scorer.score_sets([t, t])
    # Rows of predictions given as topics: named, not scored as topics without summaries.
    with pytest.raises(ValueError, match=r"topic 0: system: a line of scores .* not a judgment-set topic"):
        scorer.score_sets([{"topic": "t", "system": "s", "target": "pyramid", "score": 0.5}])
    # A reference-based model on a topic without references: the CLI's message.
    with pytest.raises(ValueError, match="needs references|need references"):
        aesop.Scorer(models=["pyramid"]).score(["a summary"], ["a document"])


def test_non_utf8_text_raises_a_value_error_naming_the_argument():
    scorer = aesop.Scorer(models=["pyramid-noref"])
    bad = b"caf\xe9".decode("utf-8", errors="surrogateescape")
    with pytest.raises(ValueError, match=r"summaries\[1\]: not valid Unicode"):
        scorer.score(["ok", bad], ["doc"])
    with pytest.raises(ValueError, match=r"models\[0\]: not valid Unicode"):
        aesop.Scorer([bad])
    with pytest.raises(ValueError, match="rouge_mode: not valid Unicode"):
        aesop.features([_tiny_topic(["A cat."])], classes="rouge", rouge_mode=bad)


def _tiny_topic(texts, scores=None):
    return {"topic": "t", "documents": [{"id": "d", "text": "The cat sat on the mat all day. It was warm."}],
            "summaries": [dict({"system": f"s{i}", "text": t}, **({"scores": scores} if scores else {}))
                          for i, t in enumerate(texts)]}


def test_numeric_ids_and_blank_scores_read_as_a_set_file_reads_them():
    # A DataFrame of numeric ids turned into topic dicts, and a table's empty cell as "".
    topic = _tiny_topic(["The cat sat on the mat.", "A warm day."], scores={"relevance": ""})
    topic["topic"] = 7
    topic["summaries"][0]["system"] = 3
    scorer = aesop.Scorer(models=["pyramid-noref"])
    rows = scorer.score_sets([topic])
    assert [(r["topic"], r["system"]) for r in rows] == [("7", "3"), ("7", "s1")]
    topic["summaries"][1]["system"] = True
    with pytest.raises(ValueError, match=r"summaries\[1\]\.system: expected a string, found a boolean"):
        scorer.score_sets([topic])


def _flat_rows(topics):
    """SummEval's topics as a dataset keeps them: one row per summary, the article and the
    references repeated on every row of their topic."""
    return [{"id": t["topic"], "model": s["system"], "decoded": s["text"],
             "article": [d["text"] for d in t["documents"]],
             "refs": [r["text"] for r in t.get("references", [])] or None,
             **{k: v for k, v in s.get("scores", {}).items() if k in ("relevance", "coherence")}}
            for t in topics for s in t["summaries"]]


def test_topics_from_rows_score_as_the_set_they_were_flattened_from(summeval):
    _, topics = summeval
    rows = _flat_rows(topics[:8])
    rebuilt = aesop.topics_from_rows(rows, topic="id", system="model", summary="decoded",
                                     documents="article", references="refs",
                                     scores=["relevance", "coherence"])
    assert [t["topic"] for t in rebuilt] == [t["topic"] for t in topics[:8]]
    assert ["references" in t for t in rebuilt] == ["references" in t for t in topics[:8]]
    scorer = aesop.Scorer()
    assert scorer.score_sets(rebuilt) == scorer.score_sets(topics[:8])
    for mine, theirs in zip(rebuilt, topics[:8]):
        assert [(s["system"], s["text"], s.get("scores")) for s in mine["summaries"]] == [
            (s["system"], s["text"], {k: v for k, v in s["scores"].items()
                                      if k in ("relevance", "coherence")}) for s in theirs["summaries"]]
    # The same from a DataFrame (a missing score NaN), and from a dict of columns.
    import pandas as pd  # noqa: PLC0415
    frame = pd.DataFrame(rows)
    frame.loc[3, "relevance"] = float("nan")
    from_frame = aesop.topics_from_rows(frame, topic="id", system="model", summary="decoded",
                                        documents="article", references="refs", scores="relevance")
    assert "relevance" not in from_frame[0]["summaries"][3].get("scores", {})
    assert from_frame[0]["summaries"][2]["scores"] == {"relevance": rows[2]["relevance"]}
    assert aesop.evaluate(scorer.score_sets(from_frame), from_frame, "relevance",
                          predicted="responsiveness", bootstrap=0)["counts"]["matched"] == len(rows) - 1
    columns = {k: [r[k] for r in rows[:16]] for k in ("id", "model", "decoded", "article")}
    one = aesop.topics_from_rows(columns, topic="id", system="model", summary="decoded",
                                 documents="article")
    assert len(one) == 1 and len(one[0]["summaries"]) == 16 and "references" not in one[0]


def test_topics_from_rows_name_the_row_at_fault():
    doc = "The council approved the budget on Monday."
    good = {"topic": "t1", "system": "a", "summary": "It passed.", "document": doc, "q": 3}
    def error(rows, exc=ValueError, **kw):
        with pytest.raises(exc) as caught:
            aesop.topics_from_rows(rows, **kw)
        return str(caught.value)
    assert error([good, {**good, "system": "b", "document": "Another text."}]) == (
        "rows[1].document: differs from rows[0]'s, of the same topic 't1' (every row of a topic "
        "gives the same 'document')")
    assert error([good, dict(good)]) == (
        "rows[1]: topic 't1', system 'a' again (first at rows[0]): one row per summary"
        " (a row per annotator's rating? name the column of annotator ids with annotator=: "
        "their scores are averaged)")
    assert error([good, {k: v for k, v in good.items() if k != "summary"}]).startswith(
        "rows[1]: no column 'summary' (columns: topic, system, document, q)")
    assert error([{**good, "summary": None}], TypeError) == (
        "rows[0].summary: expected the summary's text (a str), got a missing value")
    assert error([{**good, "q": "3.5"}], TypeError, scores="q") == (
        "rows[0].q: expected a number (or None/NaN where missing), got str '3.5'")
    assert error([{**good, "document": float("nan")}]) == (
        "rows[0].document: missing (a topic needs its input documents)")
    assert error([{**good, "topic": True}], TypeError) == (
        "rows[0].topic: expected an id (a str or a number), got bool")
    assert error("not rows", TypeError) == "rows: expected a list of dicts, got a string"
    # Numeric ids stay numbers, read by the scorer as their text.
    topics = aesop.topics_from_rows([{**good, "topic": 7, "system": 2}], scores="q")
    assert topics == [{"topic": 7, "documents": [{"id": "d1", "text": doc}],
                       "summaries": [{"system": 2, "text": "It passed.", "scores": {"q": 3}}]}]
    assert [r["topic"] for r in aesop.Scorer(models=["pyramid-noref"]).score_sets(topics)] == ["7"]
    # A summary kept as its sentences is written one per line, as `aesop import table` does.
    topics = aesop.topics_from_rows([{**good, "summary": ["It passed.", " Schools gain. ", ""]}])
    assert topics[0]["summaries"][0]["text"] == "It passed.\nSchools gain."
    assert error([{**good, "summary": ["It passed.", 3]}], TypeError) == (
        "rows[0].summary[1]: expected a str, got int")


def test_rows_of_topics_spread_as_import_table_spreads_them(tmp_path):
    # MTEB's layout of SummEval: one row per topic, lists of summaries and of their scores.
    path = ROOT / "examples" / "data" / "summeval-per-topic.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    qualities = ["relevance", "coherence", "fluency", "consistency"]
    columns = dict(topic_column="id", document_columns="text", reference_columns="human_summaries",
                   summary_column="machine_summaries")
    imported = aesop.import_set("table", path, **columns)
    assert imported == _cli_import(tmp_path, [
        "table", path, "--topic-column", "id", "--document-column", "text", "--reference-column",
        "human_summaries", "--summary-column", "machine_summaries"])
    import pandas as pd  # noqa: PLC0415
    for given in (rows, pd.DataFrame(rows)):
        topics = aesop.topics_from_rows(given, topic="id", documents="text",
                                        references="human_summaries", summary="machine_summaries",
                                        scores=qualities)
        assert [t["topic"] for t in topics] == [t["topic"] for t in imported]
        assert [[(s["system"], s["text"], s["scores"]) for s in t["summaries"]] for t in topics] == [
            [(s["system"], s["text"], s["scores"]) for s in t["summaries"]] for t in imported]
        assert [[r["text"] for r in t["references"]] for t in topics] == [
            [r["text"] for r in t["references"]] for t in imported]
    assert imported[0]["summaries"][15]["system"] == "machine_summaries.16"
    # Without lists beside the summaries, per_topic says how to read them.
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"id": 1, "text": "D.", "outputs": ["A.", "B."]}) + "\n",
                    encoding="utf-8")
    bare_columns = dict(topic_column="id", document_columns="text", summary_column="outputs")
    assert [s["system"] for s in aesop.import_set("table", bare, **bare_columns)[0]["summaries"]] == [
        "bare"]
    assert [s["system"] for s in aesop.import_set("table", bare, per_topic=True,
                                                  **bare_columns)[0]["summaries"]] == [
        "outputs.1", "outputs.2"]
    with pytest.raises(TypeError, match="per_topic: expected True or False, got str"):
        aesop.import_set("table", bare, per_topic="yes", **bare_columns)
    row = {"id": 1, "text": "D.", "outputs": ["A.", "B."], "models": ["a", "b"], "q": [1, "x"]}
    def error(rows, exc=ValueError, **kw):
        with pytest.raises(exc) as caught:
            aesop.topics_from_rows(rows, topic="id", documents="text", summary="outputs", **kw)
        return str(caught.value)
    assert error([row], TypeError, system="models", scores="q") == (
        "rows[0].q[1]: expected a number (or None/NaN where missing), got str 'x'")
    assert error([{**row, "q": [1]}], system="models", scores="q") == (
        "rows[0].q: 1 scores for the 2 summaries in 'outputs' (one per summary, in the same order)")
    assert error([{**row, "outputs": "A."}], TypeError, system="models") == (
        "rows[0].outputs: expected a list of the topic's summaries, got str ('models' holds a "
        "list, so every row is one topic's and its summary column a list)")
    assert error([{**row, "models": ["a", "a"]}], system="models") == (
        "rows[0].outputs[1]: topic 1, system 'a' again (first at rows[0].outputs[0]): one row per "
        "summary (a row per annotator's rating? name the column of annotator ids with annotator=: "
        "their scores are averaged)")
    spread = aesop.topics_from_rows([{**row, "q": [1, None]}, {**row, "id": 2, "outputs": [],
                                                              "models": [], "q": []}],
                                    topic="id", documents="text", summary="outputs",
                                    system="models", scores="q")
    assert [(s["system"], s.get("scores")) for t in spread for s in t["summaries"]] == [
        ("a", {"q": 1}), ("b", None)]


def test_rows_of_annotators_average_as_import_table_averages_them(tmp_path):
    table = tmp_path / "rated.csv"
    table.write_text("topic,system,summary,document,worker,relevance,coherence\n"
                     "t1,a,S one.,D.,w1,4,3\nt1,a,S one.,D.,w2,2,\nt1,b,S two.,D.,w1,5,5\n"
                     "t2,a,S three.,E.,w3,1,2\nt1,a,S one.,D.,w3,3,4\n", encoding="utf-8")
    imported = aesop.import_set("table", table, annotator_column="worker")
    assert imported == _cli_import(tmp_path, ["table", table, "--annotator-column", "worker"])
    import pandas as pd  # noqa: PLC0415
    frame = pd.read_csv(table)
    topics = aesop.topics_from_rows(frame, annotator="worker", scores=["relevance", "coherence"])
    assert [[(s["system"], s["text"], s["scores"]) for s in t["summaries"]] for t in topics] == [
        [(s["system"], s["text"], s["scores"]) for s in t["summaries"]] for t in imported]
    assert topics[0]["summaries"][0]["scores"] == {"relevance": 3.0, "coherence": 3.5}
    rows = frame.to_dict("records")
    def error(rows, **kw):
        with pytest.raises(ValueError) as caught:
            aesop.topics_from_rows(rows, scores="relevance", **kw)
        return str(caught.value)
    assert error(rows).endswith("(a row per annotator's rating? name the column of annotator ids "
                                "with annotator=: their scores are averaged)")
    assert error([rows[0], rows[0]], annotator="worker") == (
        "rows[1]: topic 't1', system 'a', annotator 'w1' again (first at rows[0]): one row per "
        "annotator's rating")
    assert error([rows[0], {**rows[1], "summary": "Other."}], annotator="worker") == (
        "rows[1].summary: the summary differs from rows[0]'s, of the same topic 't1' and system "
        "'a' (every annotator's row gives the same summary)")


def test_a_score_table_read_by_pandas_is_judged_as_the_cli_judges_it(tmp_path):
    # `aesop score -o p.csv` of the sample (the built-ins learned from it), read by pandas: its
    # `models` and `in_training` columns are no features, and say the figures are in-sample.
    import pandas as pd  # noqa: PLC0415
    binary = _need(BIN, "the aesop binary")
    sample = tmp_path / "sample.jsonl"
    subprocess.run([str(binary), "import", "summeval", str(ROOT / "examples" / "data" /
                    "summeval-sample.jsonl"), "-o", str(sample)], check=True, capture_output=True)
    table = tmp_path / "p.csv"
    subprocess.run([str(binary), "score", str(sample), "-o", str(table)], check=True,
                   capture_output=True)
    frame = pd.read_csv(table)
    assert list(frame.columns)[-2:] == ["models", "in_training"]
    assert set(frame["in_training"]) == {"pyramid responsiveness readability"}
    topics = aesop.read_set(sample)
    with pytest.warns(aesop.AesopWarning, match="model responsiveness was trained on all 160"):
        one = aesop.evaluate(frame, topics, "relevance", feature="responsiveness", bootstrap=0)
    assert one["counts"]["matched"] == 160
    with pytest.warns(aesop.AesopWarning, match="column readability: model readability learned "
                                                "from 160 of the summaries judged here"):
        ranked = aesop.evaluate(frame, topics, "relevance", features="*", bootstrap=0)
    assert sorted(row["feature"] for row in ranked["rows"]) == [
        "pyramid", "readability", "responsiveness"]


def test_unscored_summaries_are_none_where_the_cli_writes_null(tmp_path):
    binary = _need(BIN, "the aesop binary")
    # An empty summary and one without words get no score: `null` in the CLI's lines.
    topic = _tiny_topic(["", "The cat sat on the mat.", "!!!"])
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(topic) + "\n", encoding="utf-8")
    expected = cli_score(path)
    assert any(line["score"] is None for line in expected), "the CLI scored every summary"
    got = aesop.Scorer().score_sets([topic])
    assert got == expected
    scores = aesop.Scorer(models=["pyramid-noref"]).score([s["text"] for s in topic["summaries"]],
                                                          [topic["documents"][0]["text"]])
    assert scores["pyramid-noref"][0] is None and isinstance(scores["pyramid-noref"][1], float)
    del binary


def test_the_cli_warnings_are_aesop_warnings(tmp_path):
    binary = _need(BIN, "the aesop binary")
    # Unscored summaries: the CLI's stderr warning, worded for None, one per kind.
    topic = _tiny_topic(["", "The cat sat on the mat.", "!!!"])
    with pytest.warns(aesop.AesopWarning) as caught:
        aesop.Scorer().score_sets([topic])
    messages = [str(w.message) for w in caught]
    assert "1 summary not scored (score None): empty summary (e.g. t/s0)" in messages
    assert any(m.startswith("1 summary not scored (score None): no language") for m in messages)
    assert all(w.filename == __file__ for w in caught), "points at the caller's line"
    with pytest.warns(aesop.AesopWarning, match=r"\(e\.g\. summaries\[0\]\)"):
        aesop.Scorer(models=["pyramid-noref"]).score(["", "A cat."], ["The cat sat."])
    # A class without values: the CLI's note.
    with pytest.warns(aesop.AesopWarning, match="class rouge has no values for 3 summaries.*no references.*None"):
        aesop.features([topic], classes="rouge")
    # An option that changed nothing on the data: the CLI's note.
    with pytest.warns(aesop.AesopWarning, match=r"--consensus-include-human \(consensus_include_human\) changed nothing"):
        aesop.features([topic], classes="consensus", consensus_include_human=True)
    # A topic without documents: the content class has no values, which `aesop score` warns about.
    no_documents = dict(_tiny_topic(["The cat sat on the mat.", "A cat sat."]), documents=[])
    with pytest.warns(aesop.AesopWarning, match="class content has no values for 2 summaries.*no input documents"):
        aesop.Scorer().score_sets([no_documents])
    # Documents in French: the CLI's warning that the text is not English; scores still given.
    french = dict(_tiny_topic(["The council passed a budget."]), documents=[{"id": "d1", "text":
        "Le conseil municipal a adopté lundi un nouveau budget qui augmente les dépenses pour "
        "les écoles et les parcs. Les critiques affirment que les coûts des transports ont été "
        "ignorés."}])
    not_english = r"the documents of topic 't' do not read as English \(\d+% of their words"
    with pytest.warns(aesop.AesopWarning, match=not_english):
        assert all(p["score"] is not None for p in aesop.Scorer().score_sets([french]))
    with pytest.warns(aesop.AesopWarning, match="the documents of this call do not read as English"):
        aesop.Scorer(models=["pyramid-noref"]).score(["A budget."], [french["documents"][0]["text"]])
    with pytest.warns(aesop.AesopWarning, match=not_english):
        aesop.features([french], classes="surface")
    # Documents far longer than any the built-ins learned from: the CLI's warning that the
    # summaries' features lie outside the models' training ranges, from both calls (five
    # summaries: one alone is too few to say so).
    article = (ROOT / "examples" / "data" / "article.txt").read_text(encoding="utf-8")
    five = [f"The council passed budget {i}." for i in range(5)]
    outside = r"model pyramid-noref: of the 5 scored summaries, many have features outside the range"
    with pytest.warns(aesop.AesopWarning, match=outside):
        aesop.Scorer(models=["pyramid-noref"]).score(five, [article * 200])
    with pytest.warns(aesop.AesopWarning, match=outside):
        long = dict(_tiny_topic(five), documents=[{"id": "d", "text": article * 200}])
        aesop.Scorer().score_sets([long])
    # A model whose scores depend on the batch (it uses consensus): warned when loaded.
    texts = ["The cat sat on the mat.", "A cat sat.", "The mat was warm.", "It was a warm day."]
    lines = [json.dumps(_tiny_topic(texts, scores={"relevance": 1.0})) for _ in range(3)]
    lines = [line.replace('"topic": "t"', f'"topic": "t{i}"') for i, line in enumerate(lines)]
    for i, line in enumerate(lines):
        topic_i = json.loads(line)
        for j, summary in enumerate(topic_i["summaries"]):
            summary["scores"] = {"relevance": float((i + j) % 4)}
        lines[i] = json.dumps(topic_i)
    train_set = tmp_path / "train.jsonl"
    train_set.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = tmp_path / "batch.aesop"
    subprocess.run([str(binary), "train", str(train_set), "--target", "relevance", "--classes",
                    "surface,consensus", "--no-references", "-o", str(model)],
                   check=True, capture_output=True)
    with pytest.warns(aesop.AesopWarning, match="model batch uses consensus"):
        aesop.Scorer(models=[str(model)])
    # Ordinary summaries: no warning at all.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aesop.Scorer().score_sets([_tiny_topic(["The cat sat on the mat."])])


def test_a_nan_human_score_is_missing_as_in_a_set_file(tmp_path):
    _need(BIN, "the aesop binary")
    # What a DataFrame with a missing score gives: json.dumps writes a bare NaN.
    topic = _tiny_topic(["The cat sat.", "A warm day."], scores={"relevance": float("nan")})
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(topic) + "\n", encoding="utf-8")
    assert "NaN" in path.read_text(encoding="utf-8")
    assert aesop.Scorer().score_sets([topic]) == cli_score(path)
    cols = aesop.features([topic], classes="surface")
    assert len(cols["system"]) == 2


def test_score_lists_every_model_and_needs_a_document():
    scorer = aesop.Scorer(models=["pyramid-noref", "readability-noref"])
    assert scorer.score([], ["The cat sat."]) == {"pyramid-noref": [], "readability-noref": []}
    with pytest.raises(ValueError, match="at least one document"):
        scorer.score(["A cat."], [])
    with pytest.raises(ValueError, match=r"documents\[1\]: empty document"):
        scorer.score(["A cat."], ["The cat sat.", "  "])


def test_version_is_the_clis_and_the_wheels():
    # Three places say it (Cargo.toml, python/Cargo.toml, python/pyproject.toml); a release that
    # bumps one must bump all.
    binary = _need(BIN, "the aesop binary")
    cli = subprocess.run([str(binary), "--version"], check=True, capture_output=True, text=True).stdout
    assert cli.split()[:2] == ["aesop", aesop.__version__]
    from importlib import metadata
    try:
        assert metadata.version("aesop") == aesop.__version__
    except metadata.PackageNotFoundError:
        pass  # imported from a source tree (PYTHONPATH), not installed


def test_lm_runs_on_says_where_aesop_models_says(monkeypatch):
    binary = _need(BIN, "the aesop binary")
    for precision in ("", "f32"):
        monkeypatch.setenv("AESOP_NEURAL_PRECISION", precision)
        listing = subprocess.run([str(binary), "models"], check=True, capture_output=True,
                                 text=True).stdout
        line = next(l for l in listing.splitlines() if l.startswith("They run on "))
        assert aesop.lm_runs_on() == line[len("They run on "):line.index("; ")]
    assert aesop.lm_runs_on() == "the CPU, f32"
    # `cuda` is the GPU where the GPU wheel finds one; else an error pointing to that wheel (the
    # default wheel) or naming CUDA's complaint (the GPU wheel without a GPU).
    monkeypatch.setenv("AESOP_NEURAL_PRECISION", "cuda")
    try:
        assert aesop.lm_runs_on() == "the GPU (cuda, f32)"
    except ValueError as e:
        assert "for Python, the GPU wheel" in str(e) or "no usable CUDA GPU" in str(e), e
    monkeypatch.setenv("AESOP_NEURAL_PRECISION", "fast")
    with pytest.raises(ValueError, match="AESOP_NEURAL_PRECISION is 'fast': expected auto, f32"):
        aesop.lm_runs_on()


def test_numpy_scalars_are_taken_as_python_values():
    np = pytest.importorskip("numpy")
    topic = _tiny_topic(["The cat sat.", "A warm day."], scores={"relevance": np.int64(3)})
    plain = _tiny_topic(["The cat sat.", "A warm day."], scores={"relevance": 3})
    scorer = aesop.Scorer(models=["pyramid-noref"], neural=np.bool_(False))
    assert scorer.score_sets([topic]) == scorer.score_sets([plain])
    with_numpy = aesop.features([topic], classes="graph", graph_rank=np.int64(4), graph_window=np.int32(2))
    assert with_numpy == aesop.features([plain], classes="graph", graph_rank=4, graph_window=2)


def test_empty_class_names_are_refused_not_taken_as_every_class():
    topic = _tiny_topic(["The cat sat."])
    with pytest.raises(ValueError, match="unknown feature class ''"):
        aesop.features([topic], classes="")
    with pytest.raises(ValueError, match="unknown feature class ''"):
        aesop.features([topic], classes="surface,")
    with pytest.raises(ValueError, match="an empty list"):
        aesop.features([topic], classes=[])


def test_a_lone_surrogate_in_a_topic_names_its_field():
    topic = _tiny_topic(["fine", "caf\udce9"])
    with pytest.raises(ValueError, match=r"topic 0: summaries\[1\]\.text: not valid Unicode"):
        aesop.Scorer(models=["pyramid-noref"]).score_sets([topic])


def test_ctrl_c_stops_a_long_call():
    """SIGINT during a long call raises KeyboardInterrupt once the current topic is done, not
    after the whole call (the work used to run to its end). Judged against the same call
    uninterrupted, so no fixed time is assumed."""
    import signal
    import threading
    import time

    words = "The council approved the budget after a long debate about schools and parks . ".split()
    text = " ".join(words * 40)
    scorer = aesop.Scorer(models=["readability-noref"])
    # Warm up first: the first call also waits for the tagger and parser to load, which the
    # timing of the uninterrupted call should not hold.
    scorer.score_sets([_tiny_topic([text])])
    # Enough topics for the uninterrupted call to last a second: signals are seen every 50 ms,
    # and 16 cores ran 40 topics in 0.1 s (an H200 machine, 2026-12-04), too soon to judge.
    count = 40
    while True:
        topics = [dict(_tiny_topic([text[: 200 + 7 * i] for i in range(40)]), topic=f"t{k}")
                  for k in range(count)]
        for t in topics:
            t["documents"][0]["text"] = text
        whole = float("inf")
        for _ in range(2):  # the faster of two calls, so a slow first one cannot delay the signal
            start = time.perf_counter()
            scorer.score_sets(topics)
            whole = min(whole, time.perf_counter() - start)
        if whole >= 1.0 or count >= 40 * 4 ** 3:
            break
        count *= 4
    fired = []

    def interrupt():
        fired.append(time.perf_counter() - start)
        os.kill(os.getpid(), signal.SIGINT)

    # Python turns SIGINT into KeyboardInterrupt only where its parent left SIGINT at its
    # default: a shell without job control starts background commands with SIGINT ignored, and
    # CI started that way saw the signal come and the call run to its end (2026-12-05). Install
    # the handler an interactive Python has, for this test only.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(whole / 10, interrupt)
    start = time.perf_counter()
    timer.start()
    raised = False
    try:
        scorer.score_sets(topics)
    except KeyboardInterrupt:
        raised = True
    finally:
        stopped = time.perf_counter() - start
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, previous)
    # The figures say what went wrong if it does.
    facts = (f"{count} topics, uninterrupted {whole:.2f} s, signal at "
             f"{fired[0] if fired else None} s, the call ended at {stopped:.2f} s")
    assert raised, f"no KeyboardInterrupt: {facts}"
    assert stopped < whole / 2, f"stopped too late: {facts}"


def test_corrupt_and_missing_model_paths_raise_value_errors(tmp_path):
    corrupt = tmp_path / "broken.aesop"
    corrupt.write_bytes(b"\x00not a model file at all")
    with pytest.raises(ValueError, match="broken.aesop"):
        aesop.Scorer(models=[str(corrupt)])
    with pytest.raises(ValueError, match="no-such-model"):
        aesop.Scorer(models=["no-such-model"])


def test_ray_data_recipe_equals_the_cli(summeval, tmp_path):
    ray = pytest.importorskip("ray")
    import aesop.ray

    path, _ = summeval
    expected = cli_score(path)
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    try:
        ds = ray.data.read_text(str(path))
        preds = ds.map_batches(aesop.ray.AesopScorer, batch_format="pandas", concurrency=1, batch_size=4)
        got = preds.to_pandas().to_dict("records")
    finally:
        ray.shutdown()
    key = lambda r: (r["topic"], r["system"], r["model"])  # noqa: E731
    # A column of True and False where the CLI writes `in_training` only when true.
    expected = [{**e, "in_training": e.get("in_training", False)} for e in expected]
    assert sorted(got, key=key) == sorted(expected, key=key)


def _need_lm():
    """The neural LM (`aesop models fetch smollm2`): skip without it, unless AESOP_REQUIRE_MODELS=1
    (set by .ci/run after fetching it)."""
    binary = _need(BIN, "the aesop binary")
    listing = subprocess.run([str(binary), "models"], check=True, capture_output=True, text=True).stdout
    if any(line.split()[:2] == ["smollm2", "present"] for line in listing.splitlines()):
        return
    message = "the neural LM smollm2 is not installed (aesop models fetch smollm2)"
    if os.environ.get("AESOP_REQUIRE_MODELS") == "1":
        pytest.fail(message + " (AESOP_REQUIRE_MODELS=1)")
    pytest.skip(message)


def test_neural_scorer_equals_the_cli_score_neural_and_pickles(summeval, tmp_path):
    _need_lm()
    _, topics = summeval
    # One topic with references and one without: both default groups of --neural.
    chosen = [topics[0], topics[6]]
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in chosen), encoding="utf-8")
    out = subprocess.run([str(BIN), "score", str(path), "--neural"], check=True, capture_output=True,
                         text=True).stdout
    expected = [json.loads(line) for line in out.splitlines()]
    scorer = aesop.Scorer(neural=True)
    got = scorer.score_sets(chosen)
    assert got == expected
    models = {row["model"] for row in got}
    assert {"readability-lm", "readability-lm-noref", "faithfulness"} <= models, models
    assert repr(scorer) == "aesop.Scorer(neural=True)"
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone.model_names == scorer.model_names
    assert clone.score_sets([chosen[1]]) == [r for r in expected if r["topic"] == chosen[1]["topic"]]


def test_a_missing_lm_is_an_error_of_the_constructor_naming_the_fetch_command(tmp_path):
    # A process of its own: the LM, once loaded, stays loaded for the process.
    env = dict(os.environ, AESOP_HOME=str(tmp_path))
    code = textwrap.dedent("""
        import aesop
        try:
            aesop.Scorer(neural=True)
        except ValueError as e:
            print(e)
            raise SystemExit(3)
    """)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "aesop models fetch smollm2" in result.stdout
    assert str(tmp_path) in result.stdout
    # The classic defaults need no download.
    code = "import aesop\naesop.Scorer()"
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0


def test_neural_with_named_models_is_refused():
    with pytest.raises(ValueError, match="cannot be combined with models="):
        aesop.Scorer(models=["pyramid-noref"], neural=True)
    with pytest.raises(TypeError, match="neural: expected bool"):
        aesop.Scorer(neural="yes")


def test_feature_options_equal_the_cli_flags(summeval, tmp_path):
    path, topics = summeval
    out = tmp_path / "f.jsonl"
    subprocess.run([str(BIN), "features", str(path), "--classes", "rouge,graph", "--rouge-mode", "b",
                    "--rouge-no-stem", "--graph-rank", "4", "-o", str(out)], check=True, capture_output=True)
    expected = [json.loads(line) for line in out.read_text().splitlines()]
    cols = aesop.features(topics, classes="rouge,graph", rouge_mode="b", rouge_no_stem=True, graph_rank=4)
    plain = aesop.features(topics[:6], classes="rouge,graph")
    assert len(cols["topic"]) == len(expected) == 192
    for i, row in enumerate(expected):
        for name, value in row.items():
            assert cols[name][i] == value, (name, i)
    # The options changed something (the first six topics have references).
    assert cols["rouge.r1_recall"][:96] != plain["rouge.r1_recall"]
    assert cols["graph.memog"][:96] != plain["graph.memog"]


def test_rouge_length_limits_equal_the_cli_flags(summeval, tmp_path):
    path, topics = summeval
    for flag, value in [("rouge_length_limit", 30), ("rouge_byte_limit", 150)]:
        out = tmp_path / f"{flag}.jsonl"
        subprocess.run([str(BIN), "features", str(path), "--classes", "rouge",
                        "--" + flag.replace("_", "-"), str(value), "-o", str(out)],
                       check=True, capture_output=True)
        expected = [json.loads(line) for line in out.read_text().splitlines()]
        cols = aesop.features(topics, classes="rouge", **{flag: value})
        for i, row in enumerate(expected):
            for name, got in row.items():
                assert cols[name][i] == got, (flag, name, i)
        plain = aesop.features(topics[:6], classes="rouge")
        assert cols["rouge.r1_recall"][:96] != plain["rouge.r1_recall"], flag
    with pytest.raises(ValueError, match="rouge_length_limit and rouge_byte_limit: give one"):
        aesop.features(topics[:1], classes="rouge", rouge_length_limit=30, rouge_byte_limit=150)
    with pytest.raises(ValueError, match=r"rouge_byte_limit: 0 is outside"):
        aesop.features(topics[:1], classes="rouge", rouge_byte_limit=0)


def test_neural_feature_options_equal_the_cli_flags(summeval, tmp_path):
    _need_lm()
    path, topics = summeval
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(topics[0]) + "\n", encoding="utf-8")
    out = tmp_path / "f.jsonl"
    subprocess.run([str(BIN), "features", str(one), "--classes", "neural", "--neural-references", "0",
                    "--neural-source-tokens", "300", "-o", str(out)], check=True, capture_output=True)
    expected = [json.loads(line) for line in out.read_text().splitlines()]
    cols = aesop.features([topics[0]], classes="neural", neural_references=0, neural_source_tokens=300)
    assert len(expected) == 16
    for i, row in enumerate(expected):
        for name, value in row.items():
            assert cols[name][i] == value, (name, i)
    assert all(v is None for v in cols["neural.ref_recall"])
    assert all(v is not None for v in cols["neural.src_mean"])


def test_unknown_or_mistyped_feature_options_are_refused():
    topic = {"topic": "t", "documents": [{"id": "d", "text": "A cat sat."}],
             "summaries": [{"system": "s", "text": "A cat."}]}
    with pytest.raises(ValueError, match=r'unknown feature option "neural_refs" \(known: rouge_mode'):
        aesop.features([topic], classes="surface", neural_refs=0)
    with pytest.raises(ValueError, match=r"graph_rank: 0 is outside \[1, 64\]"):
        aesop.features([topic], classes="graph", graph_rank=0)
    with pytest.raises(ValueError, match="rouge_jackknife: expected true or false"):
        aesop.features([topic], classes="rouge", rouge_jackknife="sometimes")
    with pytest.raises(TypeError, match="tesla_alpha: expected bool, number or str, got list"):
        aesop.features([topic], classes="tesla", tesla_alpha=[0.5])
    # An option that changes none of the classes asked for (it was silently ignored).
    with pytest.raises(ValueError,
                       match=r"--rouge-mode \(rouge_mode\) changes only the rouge, rouge_extended classes"):
        aesop.features([topic], classes="surface", rouge_mode="b")


def test_audit_54_python_agrees_with_the_cli_on_what_it_refuses(tmp_path):
    """The Python audit of stop 54: what the package accepted or said otherwise than the CLI."""
    scorer = aesop.Scorer(models=["pyramid-noref"])
    # A NaN text (pandas' missing cell) is missing, not the summary "NaN".
    topic = _tiny_topic(["A cat.", "A cat sat."])
    topic["summaries"][0]["text"] = float("nan")
    with pytest.raises(ValueError, match=r"summaries\[0\]\.text: missing \(null, or a bare NaN"):
        scorer.score_sets([topic])
    # A NaN reference list (a topic without references in a DataFrame) is no references.
    topic = _tiny_topic(["A cat.", "A cat sat."])
    topic["references"] = float("nan")
    assert [r["model"] for r in aesop.Scorer().score_sets([topic])][0] == "pyramid-noref"
    # A blank reference is refused as `aesop score --reference` refuses an empty file.
    with pytest.raises(ValueError, match=r"references\[0\]: empty reference"):
        aesop.Scorer().score(["A cat."], ["The cat sat on the mat."], ["  "])
    # Bytes inside a topic name their field.
    topic = _tiny_topic(["A cat."])
    topic["summaries"][0]["system"] = b"s0"
    with pytest.raises(TypeError, match=r"topic 0: summaries\[0\]\.system: expected a JSON value .*got bytes"):
        scorer.score_sets([topic])
    # Class names are taken as written, as `--classes` takes them.
    with pytest.raises(ValueError, match="unknown feature class ' surface'"):
        aesop.features([_tiny_topic(["A cat."])], classes="rouge, surface")
    # An option that changed nothing is said as the CLI says it, without "values are None".
    with pytest.warns(aesop.AesopWarning) as caught:
        aesop.features([_tiny_topic(["A cat.", "A dog."])], classes="consensus",
                       consensus_include_human=True)
    option_notes = [str(w.message) for w in caught if "changed nothing" in str(w.message)]
    assert option_notes and not any("values are None" in n for n in option_notes), option_notes
    # An empty model list, a non-bool pandas flag, an unknown model name.
    with pytest.raises(ValueError, match="models: an empty list"):
        aesop.Scorer(models=[])
    with pytest.raises(TypeError, match="pandas: expected bool"):
        scorer.score(["A cat."], ["The cat sat."], pandas="yes")
    with pytest.raises(ValueError, match=r"pyramid-lm: no such model file, and no built-in .*pyramid-noref"):
        aesop.Scorer(["pyramid-lm"])
    # Two models of one name: the message says how to name them apart in Python too.
    with pytest.raises(ValueError, match=r"two models are named 'pyramid' .*models=\[\"NAME=PATH\"\]"):
        aesop.Scorer(["pyramid", "pyramid"])
    # Any iterable of texts, as any iterable of topics.
    assert scorer.score(iter(["A cat."]), ["The cat sat."]) == scorer.score(["A cat."], ["The cat sat."])
    assert hasattr(aesop, "Topic")


def test_model_files_are_found_again_after_pickling_and_never_shadow_a_builtin(tmp_path, monkeypatch):
    binary = _need(BIN, "the aesop binary")
    topics = [dict(_tiny_topic([f"The cat sat {'on the mat ' * (i % 4)}." for i in range(6)],
                               ), topic=f"t{k}") for k in range(4)]
    for t in topics:
        for i, s in enumerate(t["summaries"]):
            s["scores"] = {"quality": float(i % 4)}
    set_path = tmp_path / "set.jsonl"
    set_path.write_text("".join(json.dumps(t) + "\n" for t in topics), encoding="utf-8")
    subprocess.run([str(binary), "train", str(set_path), "--target", "quality", "--classes", "surface",
                    "--c", "0.01", "-o", str(tmp_path / "pyramid")], check=True, capture_output=True)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="pyramid is both a built-in model and a file"):
        aesop.Scorer(["pyramid"])
    (tmp_path / "pyramid").rename(tmp_path / "mine.aesop")
    scorer = aesop.Scorer(["mine.aesop"])
    before = scorer.score_sets(topics)
    # A pathlib.Path names the file as its text does (it was a TypeError: "expected str").
    assert aesop.Scorer([tmp_path / "mine.aesop"]).score_sets(topics) == before
    assert aesop.Scorer(tmp_path / "mine.aesop").score_sets(topics) == before
    with pytest.raises(ValueError, match=r"models\[0\]: the path is not UTF-8"):
        aesop.Scorer([Path(os.fsdecode(b"m\xff.aesop"))])
    monkeypatch.chdir("/")
    again = pickle.loads(pickle.dumps(scorer))
    assert again.score_sets(topics) == before


def test_a_bad_worker_thread_count_is_a_value_error(monkeypatch):
    # The CLI's check of RAYON_NUM_THREADS, on every call: a value rayon would ignore, or a count
    # that aborted the process, is a ValueError naming the variable.
    topic = _tiny_topic(["The cat sat on the mat."])
    for value, message in [("abc", "RAYON_NUM_THREADS is 'abc': expected a whole number"),
                           ("100000", "RAYON_NUM_THREADS is 100000: at most")]:
        monkeypatch.setenv("RAYON_NUM_THREADS", value)
        with pytest.raises(ValueError, match=message):
            aesop.features([topic], classes="surface")
    monkeypatch.setenv("RAYON_NUM_THREADS", "2")
    assert aesop.features([topic], classes="surface")


def test_progress_tells_the_topics_done_and_can_stop_the_call(summeval):
    _, topics = summeval
    scorer = aesop.Scorer()
    calls = []
    rows = scorer.score_sets(topics, progress=lambda done, total: calls.append((done, total)))
    assert rows == scorer.score_sets(topics)
    n = len(topics)
    assert calls[-1] == (n, n) and all(total == n for _, total in calls), calls
    assert [d for d, _ in calls] == sorted(set(d for d, _ in calls)), calls
    calls.clear()
    cols = aesop.features(topics, classes="surface", progress=lambda d, t: calls.append((d, t)))
    assert cols == aesop.features(topics, classes="surface") and calls[-1] == (n, n)

    class Enough(Exception):
        pass

    def enough(done, total):
        raise Enough(f"{done} of {total}")

    with pytest.raises(Enough, match=f"of {n}"):
        scorer.score_sets(topics, progress=enough)
    with pytest.raises(TypeError, match="progress: expected a bool or a callable"):
        scorer.score_sets(topics, progress="yes")


def test_progress_true_draws_a_line_without_tqdm(summeval, monkeypatch, capsys):
    _, topics = summeval
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # as if tqdm were not installed
    aesop.Scorer().score_sets(topics[:3], progress=True)
    aesop.features(topics[:3], classes="surface", progress=True)
    err = capsys.readouterr().err
    assert "aesop score: 3/3 topics" in err and "aesop features: 3/3 topics" in err, err


def test_progress_true_draws_a_tqdm_bar_when_tqdm_is_installed(summeval, capsys):
    pytest.importorskip("tqdm")
    _, topics = summeval
    aesop.Scorer().score_sets(topics[:3], progress=True)
    err = capsys.readouterr().err
    assert "aesop score" in err and "3/3" in err, err


def test_evaluate_of_feature_columns_tells_the_columns_judged(summeval, monkeypatch, capsys):
    """``progress=`` of ``evaluate(…, features=…)`` counts the columns judged on every set, the
    total known once all sets' columns are read; it stops the call as ``score_sets``' does, and
    one metric's report, with nothing to count, refuses it."""
    _, topics = summeval
    first, later = topics[:6], topics[6:]
    cols = aesop.features(first, classes="surface")
    later_cols = aesop.features(later, classes="surface")
    n = 2 * sum(1 for name in cols if name.startswith("surface."))
    options = dict(features="surface.*", bootstrap=20, also={"later": (later_cols, later, "coherence")})
    calls = []
    got = aesop.evaluate(cols, first, "relevance", progress=lambda d, t: calls.append((d, t)),
                         **options)
    assert got == aesop.evaluate(cols, first, "relevance", **options)
    assert calls[-1] == (n, n) and all(total == n for _, total in calls), calls
    assert [d for d, _ in calls] == sorted(set(d for d, _ in calls)), calls

    class Enough(Exception):
        pass

    def enough(done, total):
        raise Enough(f"{done} of {total}")

    with pytest.raises(Enough, match=f"of {n}"):
        aesop.evaluate(cols, first, "relevance", progress=enough, **options)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # as if tqdm were not installed
    aesop.evaluate(cols, first, "relevance", progress=True, **options)
    err = capsys.readouterr().err
    assert f"aesop evaluate: {n}/{n} columns" in err, err
    with pytest.raises(ValueError, match="progress= counts the columns features= judges"):
        aesop.evaluate(cols, first, "relevance", feature="surface.summary_tokens", progress=True)
    with pytest.raises(TypeError, match="progress: expected a bool or a callable"):
        aesop.evaluate(cols, first, "relevance", progress="yes", **options)


def test_type_stubs_name_every_parameter_of_the_package():
    """The stubs (``__init__.pyi``, ``ray.pyi``) give each public function and method the
    parameters it takes, in order, so editors and type checkers see keywords like ``features=``
    and ``progress=`` (the stub of ``evaluate`` once lacked ``features`` and ``also``)."""
    import ast
    import inspect

    import aesop.ray

    for module in (aesop, aesop.ray):
        stub = Path(module.__file__).with_suffix(".pyi")
        tree = ast.parse(stub.read_text(encoding="utf-8"))
        checked = 0
        for node in tree.body:
            holders = [(node, module)] if isinstance(node, ast.FunctionDef) else []
            if isinstance(node, ast.ClassDef):
                cls = getattr(module, node.name)
                holders = [(item, cls) for item in node.body if isinstance(item, ast.FunctionDef)]
            for fn, owner in holders:
                runtime = getattr(owner, fn.name)
                if isinstance(runtime, property):
                    continue
                a = fn.args
                stubbed = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
                stubbed += [f"*{a.vararg.arg}"] if a.vararg else []
                stubbed += [f"**{a.kwarg.arg}"] if a.kwarg else []
                real = []
                for name, param in inspect.signature(runtime).parameters.items():
                    prefix = {param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}.get(param.kind, "")
                    real.append(prefix + name)
                assert sorted(stubbed) == sorted(real), f"{stub.name}: {fn.name}: {stubbed} != {real}"
                assert [p for p in stubbed if not p.startswith("*")] == [
                    p for p in real if not p.startswith("*")], f"{stub.name}: {fn.name}: order"
                checked += 1
        assert checked >= 2, stub
        # And nothing public is missing from the stub: functions, classes and their methods.
        stubbed_names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        stubbed_names |= {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                          for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                          if isinstance(t, ast.Name)}
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            assert name in stubbed_names, f"{stub.name}: {name} has no stub"
            if inspect.isclass(value):
                node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
                members = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                for member in vars(value):
                    if not member.startswith("_"):
                        assert member in members, f"{stub.name}: {name}.{member} has no stub"


_FORKED_SCORING = textwrap.dedent("""
    import json, multiprocessing, sys
    import aesop
    models, neural, parent_first = json.loads(sys.argv[1])
    text = "The council approved the budget after a long debate about schools and parks. " * 3
    topics = [{"topic": f"t{k}", "documents": [{"id": "d", "text": text * 4}],
               "summaries": [{"system": f"s{i}", "text": text[: 60 + 17 * i + 5 * k]}
                             for i in range(4)]} for k in range(3)]
    scorer = aesop.Scorer(models=models) if models else aesop.Scorer(neural=neural)
    parent = scorer.score_sets(topics) if parent_first else None

    def child(k):
        try:
            return scorer.score_sets([topics[k]])
        except ValueError as e:
            return str(e)

    with multiprocessing.get_context("fork").Pool(2) as pool:
        # A bounded wait: a child that hangs fails the test instead of stopping the run.
        children = pool.map_async(child, range(len(topics))).get(timeout=240)
    parent = parent or scorer.score_sets(topics)
    print(json.dumps({"parent": parent, "children": children}))
""")


def _score_after_fork(models=None, neural=False, env=None, parent_first=True):
    """Score in a fresh Python, then in processes forked from it after that call (or, without
    `parent_first`, forked as soon as the `Scorer` is made, the parent scoring after them)."""
    result = subprocess.run([sys.executable, "-c", _FORKED_SCORING,
                             json.dumps([models, neural, parent_first])],
                            capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, **(env or {})))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    return out["parent"], out["children"]


def test_processes_forked_after_a_call_score_as_their_parent():
    # multiprocessing's default on Linux: the children inherited rayon's pool without its
    # threads, and their first call waited forever (stop 91 audit).
    parent, children = _score_after_fork()
    assert [row for rows in children for row in rows] == parent
    # Forked as soon as the Scorer is made: the children inherited the tagger's and parser's
    # decoding, begun on a thread of its own, without the thread, and waited for it forever.
    parent, children = _score_after_fork(parent_first=False)
    assert [row for rows in children for row in rows] == parent


def test_forked_processes_run_the_lm_or_say_why_not():
    _need_lm()
    parent, children = _score_after_fork(models=["readability-lm-noref"])
    assert [row for rows in children for row in rows] == parent
    # With candle's own worker threads (the user's CANDLE_NUM_THREADS), which a fork cannot
    # carry: a ValueError saying what to do, not a hang.
    parent, children = _score_after_fork(models=["readability-lm-noref"],
                                         env={"CANDLE_NUM_THREADS": "2"})
    assert len(parent) == 12
    for message in children:
        assert "was forked from process" in message and "'spawn'" in message, message


def test_system_means_equal_the_cli_systems_file_in_any_row_order(summeval, tmp_path):
    path, topics = summeval
    # One system lacks a topic and one summary is empty (None), so coverage differs.
    topics = json.loads(json.dumps(topics))
    topics[0]["summaries"] = topics[0]["summaries"][1:]
    topics[1]["summaries"][2]["text"] = ""
    changed = tmp_path / "changed.jsonl"
    changed.write_text("".join(json.dumps(t) + "\n" for t in topics), encoding="utf-8")
    systems = tmp_path / "systems.jsonl"
    result = subprocess.run([str(BIN), "score", str(changed), "-o", str(tmp_path / "p.jsonl"),
                             "--systems", str(systems)], check=True, capture_output=True, text=True)
    expected = [json.loads(line) for line in systems.read_text(encoding="utf-8").splitlines()]
    assert len(expected) == 16 * 3 and expected[0]["rank"] == 1
    scorer = aesop.Scorer()
    with warnings.catch_warnings(record=True):
        rows = scorer.score_sets(topics)
    with pytest.warns(aesop.AesopWarning, match="over different topics") as caught:
        got = scorer.system_means(list(reversed(rows)))
    assert got == expected
    assert str(caught[0].message) in result.stderr
    with warnings.catch_warnings(record=True):
        frame = scorer.system_means(scorer.score_sets(topics, pandas=True).sample(frac=1, random_state=1),
                                    pandas=True)
    assert frame.to_dict("records") == expected
    with pytest.raises(ValueError, match=r"rows\[0\]: no 'model'"):
        scorer.system_means([{"topic": "t", "system": "s", "target": "pyramid", "score": 0.5}])
    with pytest.raises(TypeError, match=r"rows\[0\].score: expected a number"):
        scorer.system_means([{"topic": "t", "system": "s", "target": "pyramid", "model": "pyramid",
                              "score": "high"}])


def _without_files(report):
    """A report less what names the inputs (files for the CLI, lists for Python)."""
    return {k: v for k, v in report.items() if k not in ("metric", "human", "inputs")}


def test_evaluate_equals_the_cli_report_and_text(summeval, tmp_path):
    path, topics = summeval
    predictions = tmp_path / "p.jsonl"
    subprocess.run([str(BIN), "score", str(path), "-o", str(predictions)], check=True,
                   capture_output=True)
    cli_json = tmp_path / "r.json"
    flags = ["--bootstrap", "200", "--resample", "topics", "--seed", "7", "--alpha", "0.1",
             "--length-tolerance", "0.2"]
    result = subprocess.run([str(BIN), "evaluate", str(predictions), "--human", str(path),
                             "--target", "relevance", "--predicted", "responsiveness",
                             "--json", str(cli_json)] + flags,
                            check=True, capture_output=True, text=True)
    expected = json.loads(cli_json.read_text(encoding="utf-8"))
    rows = aesop.Scorer().score_sets(topics)
    options = dict(predicted="responsiveness", bootstrap=200, resample="topics", seed=7, alpha=0.1,
                   length_tolerance=0.2)
    got = aesop.evaluate(rows, topics, "relevance", **options)
    assert _without_files(got) == _without_files(expected)
    assert "inputs" not in got and got["counts"]["matched"] == 192
    assert got["human"] == "topics [relevance]"
    # The printed report, less its first two lines (which name the inputs).
    text = aesop.evaluate(rows, topics, "relevance", text=True, **options)
    assert text.splitlines()[2:] == result.stdout.splitlines()[2:]
    assert text.startswith("metric: predictions ")
    # The DataFrame of score_sets gives the same report; so do rows in another order.
    frame = aesop.Scorer().score_sets(topics, pandas=True)
    assert aesop.evaluate(frame, topics, "relevance", **options) == got
    assert aesop.evaluate(list(reversed(rows)), topics, "relevance", **options) == got


def test_evaluate_warns_when_a_builtin_is_judged_on_its_training_summaries(summeval):
    """As ``aesop evaluate`` does: the built-ins learned from every SummEval summary, so their
    predictions judged on them are in-sample, said once per model; summaries it never saw (every
    text changed) and a feature's column get no such warning."""
    _, topics = summeval
    rows = aesop.Scorer().score_sets(topics)
    # Each row says so too, as `aesop score`'s lines do.
    assert all(r["in_training"] is True for r in rows)
    # Each default variant predicted the 96 summaries of its half of the topics.
    in_sample = (r"model responsiveness(-noref)? was trained on all 96 summaries judged here "
                 r"\(the same topic ids and texts are in its training set summeval\.jsonl\)")
    with pytest.warns(aesop.AesopWarning, match=in_sample) as caught:
        report = aesop.evaluate(rows, topics, "relevance", predicted="responsiveness", bootstrap=0,
                                compare=rows)
    messages = [str(w.message) for w in caught if "in-sample" in str(w.message)]
    # Both default variants scored these topics (half have no references); each named once.
    assert len(messages) == 2 and len(set(messages)) == 2, messages
    assert report["warnings"][:2] == messages
    changed = json.loads(json.dumps(topics))
    for t in changed:
        for s in t["summaries"]:
            s["text"] += " It was said."
    rows = aesop.Scorer().score_sets(changed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = aesop.evaluate(rows, changed, "relevance", predicted="responsiveness",
                                bootstrap=0)
    assert not any("in-sample" in str(w.message) for w in caught)
    assert not any("in-sample" in w for w in report.get("warnings", []))


def test_rows_mark_the_summaries_a_trained_model_learned_from(summeval, tmp_path):
    """A model file trained on the first four topics: ``score_sets`` marks its rows of those
    topics ``in_training`` as ``aesop score`` marks its lines, and ``evaluate`` of the rows (or
    of their DataFrame) warns that 64 of the 192 judged summaries are in-sample."""
    path, topics = summeval
    train_set = tmp_path / "train.jsonl"
    train_set.write_text("".join(json.dumps(t) + "\n" for t in topics[:4]), encoding="utf-8")
    model = tmp_path / "mine.aesop"
    subprocess.run([str(BIN), "train", str(train_set), "--target", "relevance", "--classes",
                    "surface,content", "-o", str(model)], check=True, capture_output=True)
    scorer = aesop.Scorer(models=[str(model)])
    rows = scorer.score_sets(topics)
    assert rows == cli_score(path, [str(model)])
    trained = {t["topic"] for t in topics[:4]}
    assert [r.get("in_training", False) for r in rows] == [r["topic"] in trained for r in rows]
    frame = scorer.score_sets(topics, pandas=True)
    assert list(frame["in_training"]) == [r["topic"] in trained for r in rows]
    in_sample = (r"model mine was trained on 64 of the 192 summaries judged here \(its predictions "
                 r"of them are marked \"in_training\"")
    for predictions in (rows, frame):
        with pytest.warns(aesop.AesopWarning, match=in_sample):
            report = aesop.evaluate(predictions, topics, "relevance", bootstrap=0)
        assert re.match(in_sample, report["warnings"][0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        aesop.evaluate(rows[4 * 16:], topics[4:], "relevance", bootstrap=0)
    assert not any("in-sample" in str(w.message) for w in caught)
    # A mark that is no boolean is refused, naming the row, as the CLI names the line.
    bad = [dict(rows[0], in_training="yes")] + rows[1:]
    with pytest.raises(ValueError, match=r"predictions\[0\]: in_training: expected true or false"):
        aesop.evaluate(bad, topics, "relevance", bootstrap=0)


def test_evaluate_of_a_feature_equals_the_cli_and_reads_minus_as_negated(summeval, tmp_path):
    path, topics = summeval
    features = tmp_path / "f.csv"
    subprocess.run([str(BIN), "features", str(path), "--classes", "content", "-o", str(features)],
                   check=True, capture_output=True)
    cli_json = tmp_path / "r.json"
    subprocess.run([str(BIN), "evaluate", str(features), "--feature", "-content.js", "--human",
                    str(path), "--target", "relevance", "--bootstrap", "100", "--json",
                    str(cli_json)], check=True, capture_output=True)
    expected = json.loads(cli_json.read_text(encoding="utf-8"))
    cols = aesop.features(topics, classes="content")
    got = aesop.evaluate(cols, topics, "relevance", feature="-content.js", bootstrap=100)
    assert _without_files(got) == _without_files(expected)
    assert got["metric"] == "features [-content.js]"
    # Columns as numpy arrays (a DataFrame's `to_dict("series")`) are read as lists.
    import numpy as np  # noqa: PLC0415 (pandas installs it)
    arrays = {k: np.array(v, dtype=object if k in ("topic", "system") else float)
              for k, v in cols.items()}
    assert aesop.evaluate(arrays, topics, "relevance", feature="-content.js", bootstrap=100) == got
    plain = aesop.evaluate(cols, topics, "relevance", feature="content.js", bootstrap=0)
    assert plain["statistics"]["summary"]["kendall"] == pytest.approx(
        -got["statistics"]["summary"]["kendall"])


def test_evaluate_warns_of_rows_whose_ids_match_none_of_the_topics(summeval):
    _, topics = summeval
    rows = aesop.Scorer(models=["pyramid-noref"]).score_sets(topics[:2])
    # A system id edited by hand (case, a trailing space): those rows meet no human score.
    edited = [dict(r, system=r["system"].lower() + " ") if i % 2 else r for i, r in enumerate(rows)]
    with pytest.warns(aesop.AesopWarning, match=r"have no human score .* only in letter case, "
                      r"spaces or leading zeros") as caught:
        report = aesop.evaluate(edited, topics[:3], "relevance", predicted="pyramid", bootstrap=0)
    ours = [w for w in caught if "no human score" in str(w.message)]
    assert len(ours) == 1 and ours[0].filename == __file__
    assert report["counts"]["matched"] == len(rows) // 2
    assert any("only in letter case" in w for w in report["warnings"])
    # Predictions of a subset of the judged summaries: no such warning (the built-in's
    # in-sample one only).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        aesop.evaluate(rows, topics[:3], "relevance", predicted="pyramid", bootstrap=0)
    assert not [w for w in caught if "no human score" in str(w.message)]
    # A table of feature columns warns the same.
    cols = aesop.features(topics[:2], classes="surface")
    cols["system"] = [s.lower() + " " if i % 2 else s for i, s in enumerate(cols["system"])]
    with pytest.warns(aesop.AesopWarning, match=r"only in letter case") as caught:
        table = aesop.evaluate(cols, topics[:2], "relevance", features="surface.*", bootstrap=0)
    ours = [w for w in caught if "no human score" in str(w.message)]
    assert len(ours) == 1 and ours[0].filename == __file__
    assert any("no human score" in w for w in table["warnings"])


def test_evaluate_refuses_bad_rows_and_options_naming_them(summeval):
    _, topics = summeval
    rows = aesop.Scorer(models=["pyramid-noref"]).score_sets(topics[:2])
    with pytest.raises(ValueError, match=r"predictions\[1\]: score: missing \(a features list needs feature=COLUMN\)"):
        aesop.evaluate([rows[0], {"topic": "t", "system": "s"}], topics, "relevance", predicted="pyramid")
    with pytest.raises(ValueError, match=r"predictions\[32\]: topic .*, system .* already has a prediction at \[0\]"):
        aesop.evaluate(rows + rows, topics, "relevance", predicted="pyramid")
    with pytest.raises(ValueError, match=r"no prediction for target 'relevance' \(targets in the list: pyramid; predicted=TARGET"):
        aesop.evaluate(rows, topics, "relevance")
    with pytest.raises(ValueError, match=r"by model 'pyramid' \(models in the list: pyramid-noref\)"):
        aesop.evaluate(rows, topics, "relevance", predicted="pyramid", model="pyramid")
    with pytest.raises(ValueError, match=r"topics: no summary has a score 'quality' \(scores in this set: .*relevance"):
        aesop.evaluate(rows, topics, "quality", predicted="pyramid")
    with pytest.raises(ValueError, match=r"features\[0\]: no field 'content.js' \(fields: .*surface.density"):
        aesop.evaluate(aesop.features(topics[:1], classes="surface"), topics, "relevance",
                       feature="content.js")
    with pytest.raises(ValueError, match=r"features: the columns differ in length"):
        aesop.evaluate({"topic": ["a"], "system": ["b", "c"], "x": [1]}, topics, "relevance", feature="x")
    with pytest.raises(ValueError, match=r"^alpha must be between 0 and 1, got 2$"):
        aesop.evaluate(rows, topics, "relevance", predicted="pyramid", alpha=2)
    with pytest.raises(ValueError, match=r"^bootstrap: at most 1000000 samples, got 1000000000000"):
        aesop.evaluate(rows, topics, "relevance", predicted="pyramid", bootstrap=10**12)
    with pytest.raises(ValueError, match=r"resample: \"all\" is none of systems, topics, both"):
        aesop.evaluate(rows, topics, "relevance", predicted="pyramid", resample="all")
    with pytest.raises(ValueError, match=r"predictions: no records \(an empty list\)"):
        aesop.evaluate([], topics, "relevance")
    with pytest.raises(TypeError, match=r"predictions: expected a list of dicts, got a string"):
        aesop.evaluate("p.jsonl", topics, "relevance")
    with pytest.raises(TypeError, match=r"predictions\[0\]\.score: expected a JSON value, got bytes"):
        aesop.evaluate([dict(rows[0], score=b"1")], topics, "relevance", predicted="pyramid")
    # Rows of two sets (a pooled cross-validation's): refused together, read one set with set=.
    pooled = [dict(r, set="a.jsonl") for r in rows] + [dict(r, set="b.jsonl") for r in rows]
    with pytest.raises(ValueError, match=r"already has a prediction at \[0\]: the rows name their set \(`set`\); choose one with set=NAME"):
        aesop.evaluate(pooled, topics, "relevance", predicted="pyramid")
    one = aesop.evaluate(pooled, topics, "relevance", predicted="pyramid", set="b.jsonl", bootstrap=0)
    assert one == aesop.evaluate(rows, topics, "relevance", predicted="pyramid", bootstrap=0) | {
        "metric": "predictions [set b.jsonl] [predicts pyramid]"}
    with pytest.raises(ValueError, match=r"no row of set 'c.jsonl' \(sets in the list: a.jsonl, b.jsonl\)"):
        aesop.evaluate(pooled, topics, "relevance", predicted="pyramid", set="c.jsonl")
    # Every score missing is said as such, not as rows that do not match.
    with pytest.raises(ValueError, match=r"all 32 values are missing"):
        aesop.evaluate([dict(r, score=None, raw=None) for r in rows], topics, "relevance", predicted="pyramid")


def _service_answer(request):
    """The answer of a fresh `aesop serve` (on a free loopback port) to POST /v1/score."""
    import urllib.request  # noqa: PLC0415 (only this test talks HTTP)
    serve = subprocess.Popen([str(BIN), "serve", "--addr", "127.0.0.1:0"], stderr=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, text=True)
    try:
        addr = None
        for line in serve.stderr:
            log = json.loads(line)
            addr = log.get("addr", addr)
            if log.get("message") == "ready":
                break
        assert addr is not None, "aesop serve logged no address"
        post = urllib.request.Request(f"http://{addr}/v1/score", data=json.dumps(request).encode(),
                                      headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=600) as reply:
            return json.loads(reply.read())
    finally:
        serve.terminate()
        serve.wait(timeout=60)


def test_evaluate_reads_a_service_answer_as_the_cli_reads_it_saved(summeval, tmp_path):
    path, topics = summeval
    answer = _service_answer({"topics": topics, "features": True})
    assert {m["target"] for m in answer["models"]} == {"pyramid", "responsiveness", "readability"}
    saved = tmp_path / "answer.json"
    saved.write_text(json.dumps(answer, indent=1), encoding="utf-8")
    cli_json = tmp_path / "r.json"
    subprocess.run([str(BIN), "evaluate", str(saved), "--human", str(path), "--target", "relevance",
                    "--predicted", "responsiveness", "--bootstrap", "100", "--json", str(cli_json)],
                   check=True, capture_output=True)
    expected = json.loads(cli_json.read_text(encoding="utf-8"))
    got = aesop.evaluate(answer, topics, "relevance", predicted="responsiveness", bootstrap=100)
    assert _without_files(got) == _without_files(expected)
    assert got["counts"]["matched"] == 192
    # The same figures as the rows of score_sets, which score as the service does.
    rows = aesop.Scorer().score_sets(topics)
    assert _without_files(aesop.evaluate(rows, topics, "relevance", predicted="responsiveness",
                                         bootstrap=100)) == _without_files(got)
    # Its features, as those of aesop.features; as the compared metric too.
    cols = aesop.features(topics, classes="content")
    by_answer = aesop.evaluate(answer, topics, "relevance", feature="-content.js", bootstrap=0)
    assert _without_files(by_answer) == _without_files(
        aesop.evaluate(cols, topics, "relevance", feature="-content.js", bootstrap=0))
    compared = aesop.evaluate(rows, topics, "relevance", predicted="responsiveness", compare=answer,
                              bootstrap=50)
    assert compared["comparison"]["shared_rows"] == 192
    # Its features ranked, as the CLI ranks them in the saved answer.
    table_json = tmp_path / "t.json"
    subprocess.run([str(BIN), "evaluate", str(saved), "--features", "content.*", "--human", str(path),
                    "--target", "relevance", "--bootstrap", "0", "--json", str(table_json)],
                   check=True, capture_output=True)
    table = aesop.evaluate(answer, topics, "relevance", features="content.*", bootstrap=0)
    assert _without_table_files(table) == _without_table_files(
        json.loads(table_json.read_text(encoding="utf-8")))
    assert {row["column"] for row in table["rows"]} == {k for k in cols if k.startswith("content.")}
    # Refusals name the result at fault.
    bad = json.loads(json.dumps(answer))
    bad["results"][1]["scores"]["responsiveness"] = "high"
    with pytest.raises(ValueError, match=r"predictions: results\[1\]\.scores\.responsiveness: expected a number or null"):
        aesop.evaluate(bad, topics, "relevance", predicted="responsiveness")
    for result in bad["results"]:
        del result["features"]
    with pytest.raises(ValueError, match=r"features: the service's answer holds no features"):
        aesop.evaluate(bad, topics, "relevance", feature="content.js")
    with pytest.raises(ValueError, match=r"predictions: the service's answer holds no results"):
        aesop.evaluate({"results": [], "models": []}, topics, "relevance")


def test_evaluate_compares_as_the_cli_compare_does(summeval, tmp_path):
    path, topics = summeval
    predictions = tmp_path / "p.jsonl"
    features = tmp_path / "f.csv"
    subprocess.run([str(BIN), "score", str(path), "-o", str(predictions)], check=True,
                   capture_output=True)
    subprocess.run([str(BIN), "features", str(path), "--classes", "content", "-o", str(features)],
                   check=True, capture_output=True)
    cli_json = tmp_path / "r.json"
    subprocess.run([str(BIN), "evaluate", str(predictions), "--human", str(path), "--target",
                    "relevance", "--predicted", "responsiveness", "--compare", str(features),
                    "--compare-feature", "-content.js", "--bootstrap", "200", "--json",
                    str(cli_json)], check=True, capture_output=True)
    expected = json.loads(cli_json.read_text(encoding="utf-8"))
    rows = aesop.Scorer().score_sets(topics)
    cols = aesop.features(topics, classes="content")
    got = aesop.evaluate(rows, topics, "relevance", predicted="responsiveness", compare=cols,
                         compare_feature="-content.js", bootstrap=200)
    assert got["comparison"]["metric"] == "compare [-content.js]"
    for report in (got, expected):
        report["comparison"].pop("metric")
    assert _without_files(got) == _without_files(expected)
    assert got["comparison"]["shared_rows"] == 192
    # `feature` carries over to feature columns: the same feature on both sides ties.
    same = aesop.evaluate(cols, topics, "relevance", feature="content.js", compare=cols, bootstrap=50)
    assert same["comparison"]["metric"] == "compare [content.js]"
    assert all(row["difference"] == 0 for row in same["comparison"]["statistics"])
    with pytest.raises(ValueError, match=r"compare_model chooses in the compare= rows: give compare= too"):
        aesop.evaluate(rows, topics, "relevance", predicted="responsiveness", compare_model="x")
    with pytest.raises(ValueError, match=r"compare: no prediction of 'responsiveness' by model 'x' "):
        aesop.evaluate(rows, topics, "relevance", predicted="responsiveness", compare=rows,
                       compare_model="x")


def _without_table_files(table):
    """A features table less what names its inputs (files for the CLI, lists for Python)."""
    return {k: v for k, v in table.items() if k not in ("set", "features_file", "human", "inputs")}


def test_evaluate_ranks_feature_columns_as_the_cli_features_table(summeval, tmp_path):
    path, topics = summeval
    features = tmp_path / "f.csv"
    subprocess.run([str(BIN), "features", str(path), "--classes", "content,surface", "-o",
                    str(features)], check=True, capture_output=True)
    cli_json = tmp_path / "t.json"
    result = subprocess.run([str(BIN), "evaluate", str(features), "--features", "content.*,surface.*",
                             "--human", str(path), "--target", "relevance", "--bootstrap", "100",
                             "--seed", "3", "--json", str(cli_json)],
                            check=True, capture_output=True, text=True)
    expected = json.loads(cli_json.read_text(encoding="utf-8"))
    cols = aesop.features(topics, classes="content,surface")
    options = dict(bootstrap=100, seed=3)
    got = aesop.evaluate(cols, topics, "relevance", features="content.*,surface.*", **options)
    # Equal taus keep the columns' order (surface.summary_tokens before -surface.compression).
    assert _without_table_files(got) == _without_table_files(expected)
    assert "inputs" not in got and got["human"] == "topics [relevance]"
    ranked = [row for row in got["rows"] if row["rank"] is not None]
    taus = [row["statistics"]["summary"]["kendall"] for row in ranked]
    assert len(ranked) > 10 and taus == sorted(taus, reverse=True) and taus[-1] >= 0
    # A list of patterns, a DataFrame, and the printed table less the line naming the files.
    frame = aesop.features(topics, classes="content,surface", pandas=True)
    assert aesop.evaluate(frame, topics, "relevance", features=["content.*", "surface.*"],
                          **options) == got
    text = aesop.evaluate(cols, topics, "relevance", features="content.*,surface.*", text=True,
                          **options)
    assert text.splitlines()[2:] == result.stdout.splitlines()[2:]
    # Each row is the column's own report, read the way round the table chose.
    best = ranked[0]
    alone = aesop.evaluate(cols, topics, "relevance", feature=best["feature"], **options)
    assert alone["statistics"] == best["statistics"]
    with pytest.raises(ValueError, match=r"features=rouge\.\*: no column of features matches"):
        aesop.evaluate(cols, topics, "relevance", features="rouge.*")
    with pytest.raises(ValueError, match=r"features=-content\.js: give content\.js"):
        aesop.evaluate(cols, topics, "relevance", features="-content.js")
    with pytest.raises(ValueError, match=r"features= ranks many columns, each judged alone; feature="):
        aesop.evaluate(cols, topics, "relevance", features="*", feature="content.js")
    with pytest.raises(ValueError, match=r"features\[0\]: a prediction \(it has `score`\)"):
        aesop.evaluate(aesop.Scorer(models=["pyramid"]).score_sets(topics[:1]), topics, "relevance",
                       features="*")
    with pytest.raises(TypeError, match=r"features: expected a str or a list of str, got int"):
        aesop.evaluate(cols, topics, "relevance", features=3)
    with pytest.raises(ValueError, match=r"features: no pattern given"):
        aesop.evaluate(cols, topics, "relevance", features=[])
    with pytest.raises(ValueError, match=r"bootstrap: must be 0 or more"):
        aesop.evaluate(cols, topics, "relevance", features="*", bootstrap=-1)


def test_evaluate_ranks_feature_columns_across_sets_as_the_cli_also(summeval, tmp_path):
    path, topics = summeval
    # Two sets of six topics each; the first file is named topics.jsonl so that the CLI names
    # its set "topics", as Python names the first.
    halves = {"topics": topics[:6], "later": topics[6:]}
    files = {}
    for name, part in halves.items():
        set_path = tmp_path / f"{name}.jsonl"
        set_path.write_text("".join(json.dumps(t) + "\n" for t in part), encoding="utf-8")
        features = tmp_path / f"{name}.csv"
        subprocess.run([str(BIN), "features", str(set_path), "--classes", "content,surface", "-o",
                        str(features)], check=True, capture_output=True)
        files[name] = (set_path, features)
    cli_json = tmp_path / "t.json"
    result = subprocess.run(
        [str(BIN), "evaluate", str(files["topics"][1]), "--features", "content.*,surface.*",
         "--human", str(files["topics"][0]), "--target", "relevance", "--also",
         f"{files['later'][1]}={files['later'][0]}:coherence", "--bootstrap", "50", "--json",
         str(cli_json)], check=True, capture_output=True, text=True)
    expected = json.loads(cli_json.read_text(encoding="utf-8"))
    cols = {name: aesop.features(part, classes="content,surface") for name, part in halves.items()}
    options = dict(features="content.*,surface.*", bootstrap=50,
                   also={"later": (cols["later"], halves["later"], "coherence")})
    got = aesop.evaluate(cols["topics"], halves["topics"], "relevance", **options)
    assert [table["set"] for table in got["sets"]] == ["topics", "later"]
    assert got["sets"][1]["human"] == "also[later].topics [coherence]"
    assert [_without_table_files(t) for t in got["sets"]] == [
        _without_table_files(t) for t in expected["sets"]]
    assert got["across"] == expected["across"]
    assert [row["set"] for row in got["across"]["chosen_without_the_set"]] == ["topics", "later"]
    # The printed report, less the two lines naming the files of each set.
    text = aesop.evaluate(cols["topics"], halves["topics"], "relevance", text=True, **options)
    assert [line for line in text.splitlines() if not line.startswith(("features:", "human:"))] == [
        line for line in result.stdout.splitlines() if not line.startswith(("features:", "human:"))]
    # Refusals: also= without features=, a set given twice with its column, names, shapes.
    with pytest.raises(ValueError, match=r"also= judges the features= columns on other sets"):
        aesop.evaluate(cols["topics"], halves["topics"], "relevance", feature="content.js",
                       also=options["also"])
    with pytest.raises(ValueError, match=r"topics and also\[again\]\.topics are the same topics with the same column relevance"):
        aesop.evaluate(cols["topics"], halves["topics"], "relevance", features="*",
                       also={"again": (cols["topics"], halves["topics"], "relevance")})
    with pytest.raises(ValueError, match=r'also: "topics" names the first set'):
        aesop.evaluate(cols["topics"], halves["topics"], "relevance", features="*",
                       also={"topics": (cols["later"], halves["later"], "coherence")})
    with pytest.raises(TypeError, match=r"also\['later'\]: expected \(columns, topics, target\)"):
        aesop.evaluate(cols["topics"], halves["topics"], "relevance", features="*",
                       also={"later": (cols["later"], halves["later"])})
    with pytest.raises(ValueError, match=r"features=content\.js: no column of also\[later\] matches"):
        aesop.evaluate(cols["topics"], halves["topics"], "relevance", features="content.js",
                       also={"later": (aesop.features(halves["later"], classes="surface"),
                                       halves["later"], "coherence")})


def _cli_import(tmp_path, args):
    """The topics `aesop import ARGS -o OUT` writes, as dicts."""
    binary = _need(BIN, "the aesop binary")
    out = tmp_path / "cli.jsonl"
    subprocess.run([str(binary), "import", *map(str, args), "-o", str(out)], check=True,
                   capture_output=True, cwd=ROOT)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_import_set_gives_the_topics_the_cli_import_writes(tmp_path):
    examples = ROOT / "examples" / "data"
    sample = examples / "summeval-sample.jsonl"
    assert aesop.import_set("summeval", sample) == _cli_import(tmp_path, ["summeval", sample])
    tables = [examples / "outputs" / "M22.jsonl", str(examples / "outputs" / "M8.jsonl")]
    topics = aesop.import_set("table", *tables, topic_column="id", summary_column="prediction",
                              document_columns="article", reference_columns=["highlights"])
    assert topics == _cli_import(tmp_path, [
        "table", *tables, "--topic-column", "id", "--summary-column", "prediction",
        "--document-column", "article", "--reference-column", "highlights"])
    assert [s["system"] for s in topics[0]["summaries"]] == ["M22", "M8"]
    assert topics[0]["summaries"][0]["scores"]["relevance"] > 0
    lines = examples / "lines"
    topics = aesop.import_set("lines", lines / "M22.txt", lines / "M8.txt",
                              references=lines / "test.target", documents=[lines / "test.source"],
                              ids=lines / "test.ids")
    assert topics == _cli_import(tmp_path, [
        "lines", lines / "M22.txt", lines / "M8.txt", "--references", lines / "test.target",
        "--documents", lines / "test.source", "--ids", lines / "test.ids"])
    assert aesop.import_set("rouge", examples / "rouge" / "settings.xml") == _cli_import(
        tmp_path, ["rouge", examples / "rouge" / "settings.xml"])
    # read_set reads what import wrote, a gzip copy too, as the CLI reads a set.
    written = tmp_path / "set.jsonl.gz"
    with gzip.open(written, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(t) + "\n" for t in topics)
    assert aesop.read_set(written) == topics
    assert aesop.Scorer().score_sets(aesop.read_set(written)) == aesop.Scorer().score_sets(topics)


def test_import_set_names_what_is_wrong(tmp_path):
    def error(exc, *args, **kw):
        with pytest.raises(exc) as caught:
            aesop.import_set(*args, **kw)
        return str(caught.value)
    table = tmp_path / "t.csv"
    table.write_text("topic,system,summary,document\nt,a,S.,D.\nt,a,T.,D.\n", encoding="utf-8")
    assert error(ValueError, "table", table).endswith(
        "t.csv:3: topic \"t\", system \"a\" again (first at line 2): one row per summary (a row "
        "per annotator's rating? name the column of annotator ids with --annotator-column: their "
        "scores are averaged)")
    assert "no column 'id'" in error(ValueError, "table", table, topic_column="id")
    assert error(TypeError, "summeval", table, topic_column="id") == (
        "import_set: topic_column= is an option of the table format, not of summeval")
    assert error(TypeError, "table", table, column="id").startswith(
        "import_set: unknown option column= (the table format takes topic_column=, ")
    assert error(ValueError, "parquet", table).startswith("format: unknown import format 'parquet'")
    assert error(TypeError, "rouge", tmp_path, model_dir=tmp_path).startswith(
        "import_set: directories of system summaries (pyrouge's layout) need system_pattern=, "
        "model_pattern=")
    assert "2 paths given" in error(ValueError, "summeval", table, table)
    assert error(TypeError, "table", 3) == "paths[0]: expected a path (a str or os.PathLike), got int"
    assert "no such file" in error(ValueError, "table", tmp_path / "missing.csv")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"topic": "t", "summaries": [{"system": "a"}]}\n', encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        aesop.read_set(bad)
    assert "bad.jsonl:1" in str(caught.value) and "summaries[0]" in str(caught.value)
