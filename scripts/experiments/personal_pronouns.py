#!/usr/bin/env python3
"""Probe (stop 63, not adopted): first- and second-person pronouns and extractive density
against readability. Per summary: `personal_share` (share of its words that are I, me, my, we,
us, our, you, your, …), Grusky et al.'s density (as `surface.density`: lowercase alphanumeric
words, greedy fragments that never span two documents), density over the fragments that hold no
such pronoun, density over the summaries that hold none, and the combination
log(1 + density) - 50 * personal_share (written after seeing every set: hindsight). Prints the
summary-level Kendall tau-b (mean over topics, aesop evaluate's definition) of each.

Usage: personal_pronouns.py SET.jsonl=TARGET ...   (sets from `aesop import`)
"""
import json
import math
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from judgments import human_scores, mean_topic_kendall  # noqa: E402

PERSONAL = {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
            "you", "your", "yours", "yourself", "yourselves"}


def words(text):
    return [w.lower() for w in re.findall(r"[^\W_]+", text)]


def fragments(documents, summary):
    """(start in the summary, length) of each greedy extractive fragment."""
    article, document_of = [], []
    for d, tokens in enumerate(documents):
        article += tokens
        document_of += [d] * len(tokens)
    positions = defaultdict(list)
    for j, w in enumerate(article):
        positions[w].append(j)
    found, i = [], 0
    while i < len(summary):
        best, resume = 0, 0
        for j in positions.get(summary[i], []):
            if j < resume:
                continue
            k = 0
            while (i + k < len(summary) and j + k < len(article) and summary[i + k] == article[j + k]
                   and document_of[j + k] == document_of[j]):
                k += 1
            best = max(best, k)
            resume = j + k
        if best:
            found.append((i, best))
        i += max(best, 1)
    return found


def main():
    for arg in sys.argv[1:]:
        path, target = arg.split("=")
        human = human_scores(path, target)
        features = defaultdict(dict)
        for line in open(path):
            topic = json.loads(line)
            documents = [words(d["text"]) for d in topic["documents"]]
            for summary in topic["summaries"]:
                tokens = words(summary["text"])
                if not tokens:
                    continue
                key = (topic["topic"], summary["system"])
                found = fragments(documents, tokens)
                density = sum(n * n for _, n in found) / len(tokens)
                personal = sum(w in PERSONAL for w in tokens) / len(tokens)
                impersonal = [(a, n) for a, n in found if not any(w in PERSONAL for w in tokens[a:a + n])]
                features["-personal_share"][key] = -personal
                features["density"][key] = density
                features["density, impersonal fragments"][key] = sum(n * n for _, n in impersonal) / len(tokens)
                if personal == 0:
                    features["density, impersonal summaries only"][key] = density
                features["log(1 + density) - 50 personal_share"][key] = math.log1p(density) - 50 * personal
        for name, values in features.items():
            tau, topics = mean_topic_kendall(values, human, count=True)
            print(f"{Path(path).name}\t{target}\t{name}\t{tau:+.3f}\t({topics} topics)", flush=True)


if __name__ == "__main__":
    main()
