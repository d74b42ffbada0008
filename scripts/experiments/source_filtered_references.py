"""Probe (2026-12-01, docs/PROBES.md, "Held-out sets"): does reference recall transfer better when
only the reference words that the source also holds count?

Newsroom's raters reward source-like summaries (JS against the source τ .642) while ROUGE-1 recall
against its references reaches .272. If the references' words that the source lacks (a teaser's
hook, a headline's framing) are what misleads ROUGE there, recall over the other reference words
should close part of that gap without losing REALSumm, where ROUGE-1 recall is the best feature.

Per summary, averaged over its references (a human summary's own text left out):
  r1r          share of the reference's words (lowercased \\w+) that the summary holds
  cr           the same over the reference's content words (the SMART common words out)
  filt_cr      the same over the content words the source also holds
  unfilt_only  the same over the content words the source lacks
  len          the summary's word count
Prints the summary-level Kendall τ (mean over topics) of each against the named column.

Usage: AESOP_DATA=… python source_filtered_references.py SET.jsonl=COLUMN …
(run from this folder; the sets as `aesop import` writes them).
"""
import json
import math
import os
import re
import sys

from judgments import human_scores, mean_topic_kendall, stopwords

WORD = re.compile(r"\w+")


def words(text):
    return [w.lower() for w in WORD.findall(text)]


def share_held(reference_words, summary_words):
    """The share of `reference_words` the summary holds; NaN for none."""
    if not reference_words:
        return math.nan
    return sum(w in summary_words for w in reference_words) / len(reference_words)


def mean_defined(values):
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else None


def main():
    stop = stopwords()
    for spec in sys.argv[1:]:
        path, column = spec.split("=")
        humans = human_scores(path, column)
        features = {name: {} for name in ("r1r", "cr", "filt_cr", "unfilt_only", "len")}
        for line in open(path):
            topic = json.loads(line)
            source = set(words(" ".join(d["text"] for d in topic["documents"])))
            references = [r["text"] for r in topic.get("references", [])]
            for summary in topic["summaries"]:
                key = (topic["topic"], summary["system"])
                own = set(words(summary["text"]))
                others = [r for r in references if r.strip() != summary["text"].strip()]
                if not others:
                    continue
                per_reference = {name: [] for name in ("r1r", "cr", "filt_cr", "unfilt_only")}
                for reference in others:
                    all_words = words(reference)
                    content = [w for w in all_words if w not in stop]
                    per_reference["r1r"].append(share_held(all_words, own))
                    per_reference["cr"].append(share_held(content, own))
                    per_reference["filt_cr"].append(share_held([w for w in content if w in source], own))
                    per_reference["unfilt_only"].append(share_held([w for w in content if w not in source], own))
                for name, values in per_reference.items():
                    value = mean_defined(values)
                    if value is not None:
                        features[name][key] = value
                features["len"][key] = len(words(summary["text"]))
        cells = []
        for name, values in features.items():
            try:
                cells.append(f"{name} {mean_topic_kendall(values, humans):.3f}")
            except ZeroDivisionError:
                cells.append(f"{name} -")
        print(os.path.basename(path), column, " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
