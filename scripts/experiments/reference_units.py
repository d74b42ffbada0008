#!/usr/bin/env python3
"""Probe (stop 63, not adopted): a lexical stand-in for the pyramid's content units. The
reference is cut into clauses (at punctuation, and before `and`, `but`, `which`, `that`, …); a
clause is a unit of its content words (SMART common words left out, a crude suffix stemmer).
Scores per summary, averaged over references: content-word recall (ROUGE-1 recall without
stopwords), the mean per-unit coverage, the share of units covered to a threshold (hard), the
mean of min(1, coverage / threshold) (soft), the same by sentences, and content-word recall with
each reference word weighted by its IDF over the set's sources, by its frequency in the source,
or down-weighted when the source lacks it. Prints the summary-level Kendall tau-b (mean over
topics, aesop evaluate's definition) of each against TARGET.

Usage: reference_units.py SET.jsonl=TARGET ...   (sets from `aesop import`; run from the repo root)
"""
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from judgments import human_scores, mean_topic_kendall, stopwords  # noqa: E402

STOP = stopwords()
CLAUSE = re.compile(
    r"[.;:!?,]|\b(?:and|but|while|which|who|after|before|because|as|when|where|that)\b"
)


def stem(word):
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content(text):
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP]


def units(reference, by):
    parts = re.split(r"(?<=[.!?])\s+", reference) if by == "sentence" else CLAUSE.split(reference.lower())
    return [u for u in (content(p) for p in parts if p) if len(u) >= 2]


def unit_score(reference, summary_words, variant):
    by, kind, theta = variant
    found = units(reference, by)
    if not found:
        return None
    coverage = [sum(w in summary_words for w in u) / len(u) for u in found]
    if kind == "mean":
        return sum(coverage) / len(coverage)
    if kind == "hard":
        return sum(c >= theta for c in coverage) / len(coverage)
    return sum(min(1.0, c / theta) for c in coverage) / len(coverage)


def weighted_recall(reference, summary_words, weight):
    words = content(reference)
    if not words:
        return None
    weights = [weight(w) for w in words]
    return sum(x for x, w in zip(weights, words) if w in summary_words) / sum(weights)


def main():
    for arg in sys.argv[1:]:
        path, target = arg.split("=")
        topics = [json.loads(line) for line in open(path)]
        human = human_scores(path, target)
        document_frequency = Counter()
        for topic in topics:
            document_frequency.update(set(content(" ".join(d["text"] for d in topic["documents"]))))
        n = len(topics)
        variants = {
            "content-word recall": ("weight", lambda src: lambda w: 1.0),
            "idf-weighted recall": ("weight", lambda src: lambda w: math.log((n + 1) / (document_frequency[w] + 1)) + 1),
            "source-frequency-weighted recall": ("weight", lambda src: lambda w: 1 + math.log(1 + src[w])),
            "recall, words not in the source 0.3": ("weight", lambda src: lambda w: 1.0 if src[w] else 0.3),
            "clauses: mean coverage": ("units", ("clause", "mean", 0)),
            "sentences: mean coverage": ("units", ("sentence", "mean", 0)),
            "clauses covered >= .5": ("units", ("clause", "hard", 0.5)),
            "clauses covered >= .67": ("units", ("clause", "hard", 0.67)),
            "clauses, soft .5": ("units", ("clause", "soft", 0.5)),
            "clauses, soft .75": ("units", ("clause", "soft", 0.75)),
        }
        for name, (kind, spec) in variants.items():
            values = {}
            for topic in topics:
                references = [r["text"] for r in topic.get("references", [])]
                source = Counter(content(" ".join(d["text"] for d in topic["documents"])))
                for summary in topic["summaries"]:
                    words = set(content(summary["text"]))
                    scores = [
                        unit_score(r, words, spec) if kind == "units" else weighted_recall(r, words, spec(source))
                        for r in references
                    ]
                    scores = [s for s in scores if s is not None]
                    if scores:
                        values[(topic["topic"], summary["system"])] = sum(scores) / len(scores)
            print(f"{Path(path).name}\t{target}\t{name}\t{mean_topic_kendall(values, human):.3f}", flush=True)


if __name__ == "__main__":
    main()
