#!/usr/bin/env python3
"""Write tests/fixtures/rouge_score_sample.jsonl and rouge_score_sample.tsv: a small judgment
set and what Google's rouge-score package (`rouge_score.rouge_scorer.RougeScorer`) gives each
of its summaries, which tests/corpus_rouge.rs compares with aesop's `rouge_score` class.

The set: the first three topics of examples/data/summeval-sample.jsonl (48 summaries, 11
references each), the texts one sentence per line (a break after each " . "), so that rougeL
(the whole text) and rougeLsum (the lines) differ; and one topic of texts that tell
tokenizers apart (letter case, accents, a Kelvin sign, digits, punctuation, tabs and CR LF
line ends, blank lines, an empty and a punctuation-only summary, a summary equal to a
reference, two equal references, words NLTK's Porter and the original Porter stem apart). It
holds no text that aesop's canonical reading changes (docs/FEATURES.md: a combining accent, a
soft hyphen, …), where aesop and rouge-score read different words on purpose.

The table: per summary and setting (`stem`: `use_stemmer=True`; `plain`: `use_stemmer=False`),
`score_multi` against the topic's references for rouge1, rouge2, rougeL and rougeLsum, as
Python's repr of each recall, precision and F (which reads back to the same double).

    /path/to/python scripts/build/rouge-score-fixture.py

The Python needs rouge-score (pip install rouge-score; it brings nltk). Written with
rouge-score 0.1.2 and nltk 3.10.4.
"""
import json
import os
import re

from rouge_score import rouge_scorer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(REPO, "examples", "data", "summeval-sample.jsonl")
SET = os.path.join(REPO, "tests", "fixtures", "rouge_score_sample.jsonl")
TABLE = os.path.join(REPO, "tests", "fixtures", "rouge_score_sample.tsv")
MEASURES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]

EDGE_TOPIC = {
    "topic": "edge-cases",
    "references": [
        {"id": "A", "text": "The U.S.-led coalition's $5bn plan dies.\nCafé owners, happily,"
                            " were relational; CRIES of joy.\n\nKelvin: 273\u212a in İstanbul."},
        {"id": "B", "text": "Flies and spies tried the skies\r\nGeneralization,"
                            " conditionally, hopefully"},
        {"id": "C", "text": "Flies and spies tried the skies\r\nGeneralization,"
                            " conditionally, hopefully"},
    ],
    "summaries": [
        {"system": "copy", "text": "Flies and spies tried the skies\r\nGeneralization,"
                                   " conditionally, hopefully"},
        {"system": "reordered", "text": "hopefully conditionally generalization\n"
                                        "the skies tried spies and flies"},
        {"system": "accents", "text": "CAFE owners dying; caf\u00e9 OWNERS died.\t273 K in"
                                      " istanbul\n\n\nrelate, relational, relationship"},
        {"system": "numbers", "text": "5bn 5 bn $5bn 1990s covid19 3d 273k"},
        {"system": "empty", "text": ""},
        {"system": "punctuation", "text": " ... -- !? "},
        {"system": "one-word", "text": "coalition"},
        {"system": "lines", "text": "plan dies\ncoalition led\n\nthe u s"},
    ],
}


def one_sentence_per_line(text):
    """A break after every " . " (the SummEval texts are tokenized)."""
    return re.sub(r" \. ", " .\n", text.strip())


def sample_topics():
    with open(SAMPLE, encoding="utf-8") as f:
        articles = [json.loads(line) for line in f][:3]
    topics = []
    for article in articles:
        topics.append({
            "topic": article["doc_id"],
            "references": [{"id": str(r), "text": one_sentence_per_line(text)}
                           for r, text in enumerate(article["ref_summs"])],
            "summaries": [{"system": system, "text": one_sentence_per_line(s["sys_summ"])}
                          for system, s in article["sys_summs"].items()],
        })
    return topics + [EDGE_TOPIC]


def main():
    topics = sample_topics()
    rows = []
    for setting, stem in (("stem", True), ("plain", False)):
        scorer = rouge_scorer.RougeScorer(MEASURES, use_stemmer=stem)
        for topic in topics:
            references = [r["text"] for r in topic["references"]]
            for summary in topic["summaries"]:
                scores = scorer.score_multi(references, summary["text"])
                values = []
                for measure in MEASURES:
                    s = scores[measure]
                    values += [repr(s.recall), repr(s.precision), repr(s.fmeasure)]
                rows.append([topic["topic"], summary["system"], setting] + values)
    # Each written beside its fixture and renamed over it once complete.
    with open(SET + ".tmp", "w", encoding="utf-8") as out:
        for topic in topics:
            out.write(json.dumps(topic, ensure_ascii=False) + "\n")
    header = ["topic", "system", "setting"] + [
        f"{m}_{part}" for m in MEASURES for part in ("recall", "precision", "f")]
    with open(TABLE + ".tmp", "w", encoding="utf-8") as out:
        out.write("\t".join(header) + "\n")
        for row in rows:
            out.write("\t".join(row) + "\n")
    os.replace(SET + ".tmp", SET)
    os.replace(TABLE + ".tmp", TABLE)
    print(f"wrote {len(topics)} topics to {SET} and {len(rows)} rows to {TABLE}")


if __name__ == "__main__":
    main()
