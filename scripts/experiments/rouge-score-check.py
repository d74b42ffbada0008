#!/usr/bin/env python3
"""Check aesop's `rouge_score` class against Google's rouge-score package on a whole judgment
set: every summary of SET scored by `RougeScorer.score_multi` against its topic's references
(rouge1, rouge2, rougeL, rougeLsum) with and without stemming, beside
`aesop features SET --classes rouge_score [--rouge-no-stem]`; prints how many values were
compared, how many differ (bit for bit) and the time each took; exits 1 if a value differs for
a summary whose texts aesop reads as they are.

    PYTHON scripts/experiments/rouge-score-check.py SET [--lines] [--aesop BIN]

PYTHON needs rouge-score (pip install rouge-score). SET is a judgment set (e.g. the SummEval
import, $AESOP_DATA/summeval/summeval.jsonl). --lines first writes every text one sentence per
line (a break after each " . ", as the SummEval texts are tokenized), so that rougeLsum reads
several lines. BIN defaults to target/release/aesop. Not a test: the package is not a
dependency of aesop's CI; tests/corpus_rouge.rs checks a fixture made by the same package.

As aesop does, a human summary that is one of its topic's references (the reference's id is its
system) is scored against the other references only. aesop reads every text in its canonical
form (docs/FEATURES.md: composed accents, soft hyphens and zero-width spaces dropped, …), where
rouge-score reads the characters as they are: the summaries whose values differ are listed with
whether such a character is in their texts.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unicodedata

from rouge_score import rouge_scorer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEASURES = {"rouge1": "rouge1", "rouge2": "rouge2", "rougeL": "rouge_l", "rougeLsum": "rouge_lsum"}


# Characters aesop's canonical reading drops or replaces (besides spaces and line breaks, which
# rouge-score's tokens do not see either).
CANONICAL = set("\u00ad\u200b\u2060\ufeff\u200e\u200f\u061c\u2028\u2029") | {
    chr(c) for c in list(range(0x202a, 0x202f)) + list(range(0x2066, 0x206a)) + list(range(0x80, 0xa0))}


def read_differently(text):
    """Whether aesop's canonical form of `text` has other characters (a rough check)."""
    return unicodedata.normalize("NFC", text) != text or any(c in CANONICAL for c in text)


def one_sentence_per_line(text):
    return re.sub(r" \. ", " .\n", text.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set")
    parser.add_argument("--lines", action="store_true")
    parser.add_argument("--aesop", default=os.path.join(REPO, "target", "release", "aesop"))
    args = parser.parse_args()
    with open(args.set, encoding="utf-8") as f:
        topics = [json.loads(line) for line in f if line.strip()]
    with tempfile.TemporaryDirectory() as work:
        path = args.set
        if args.lines:
            for topic in topics:
                for text in topic.get("references", []) + topic["summaries"]:
                    text["text"] = one_sentence_per_line(text["text"])
            path = os.path.join(work, "set.jsonl")
            with open(path, "w", encoding="utf-8") as out:
                for topic in topics:
                    out.write(json.dumps(topic) + "\n")
        failed = False
        for stem in (True, False):
            features = os.path.join(work, "features.csv")
            command = [args.aesop, "features", path, "--classes", "rouge_score", "-o", features]
            if not stem:
                command.append("--rouge-no-stem")
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            aesop_seconds = time.perf_counter() - start
            with open(features, newline="", encoding="utf-8") as f:
                rows = {(r["topic"], r["system"]): r for r in csv.DictReader(f)}
            scorer = rouge_scorer.RougeScorer(list(MEASURES), use_stemmer=stem)
            compared = differ = 0
            differing = {}
            start = time.perf_counter()
            for topic in topics:
                for summary in topic["summaries"]:
                    own = summary.get("human") and any(
                        r["id"] == summary["system"] for r in topic.get("references", []))
                    references = [r["text"] for r in topic.get("references", [])
                                  if not (own and r["id"] == summary["system"])]
                    if not references:
                        continue
                    scores = scorer.score_multi(references, summary["text"])
                    row = rows[(topic["topic"], summary["system"])]
                    for measure, name in MEASURES.items():
                        s = scores[measure]
                        for part, value in (("recall", s.recall), ("precision", s.precision),
                                            ("f", s.fmeasure)):
                            compared += 1
                            got = float(row[f"rouge_score.{name}_{part}"])
                            if got != value:
                                differ += 1
                                texts = [summary["text"]] + references
                                differing[(topic["topic"], summary["system"])] = any(
                                    read_differently(t) for t in texts)
                                if differ <= 5:
                                    print(f"  differs: {topic['topic']} {summary['system']} "
                                          f"{measure} {part}: aesop {got!r}, rouge-score {value!r}")
            package_seconds = time.perf_counter() - start
            canonical = sum(differing.values())
            failed |= canonical < len(differing)
            print(f"use_stemmer={stem}: {compared} values compared, {differ} differ, of "
                  f"{len(differing)} summaries ({canonical} with texts aesop reads in another "
                  f"form); aesop {aesop_seconds:.2f} s (whole process), rouge-score "
                  f"{package_seconds:.1f} s (in process)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
