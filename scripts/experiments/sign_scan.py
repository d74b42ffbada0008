#!/usr/bin/env python3
"""Which features order every judgment set the same way? For each column of the feature files,
the summary-level Kendall tau-b against each set's target (aesop evaluate's definition: per
topic, then the mean), and the smallest |tau| over the sets when every set gives it one sign.
Features defined on fewer than 80 % of a set's rows are left out (sparse discourse features
otherwise pass the sign test on a handful of topics), and so are features that rank the summaries
of fewer than 95 % of the topics the annotators rank: a topic where a feature ties every summary
has no tau and drops out of the mean, which favours a feature that abstains (the rule of
`cross-validate`'s best single feature and of `aesop evaluate`'s warning).

Used to find the classic readability anchor (docs/RESULTS.md, "A readability formula as the
classic anchor"). It looks at every set at once, so what it finds is chosen in hindsight.

Usage: sign_scan.py NAME=FEATURES.csv:SET.jsonl:TARGET ... [--top N] [--prefix cohmetrix.,surface.]
(FEATURES.csv from `aesop features SET.jsonl --classes ... -o FEATURES.csv`)
"""
import argparse
import csv
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from judgments import human_scores, mean_topic_kendall  # noqa: E402

COVERAGE = 0.8
TOPIC_COVERAGE = 0.95


def topics_ranked_by_humans(human, keys):
    """Topics among `keys` with at least two summaries whose human scores are not all equal."""
    by_topic = {}
    for key in keys:
        if key in human:
            by_topic.setdefault(key[0], set()).add(human[key])
    return sum(1 for scores in by_topic.values() if len(scores) > 1)


def column_taus(features_csv, set_path, target):
    rows = list(csv.DictReader(open(features_csv)))
    human = human_scores(set_path, target)
    ranked = topics_ranked_by_humans(human, [(r["topic"], r["system"]) for r in rows])
    taus = {}
    for name in rows[0]:
        if name in ("topic", "system"):
            continue
        values = {}
        for r in rows:
            try:
                x = float(r[name])
            except ValueError:
                continue
            if not math.isnan(x):
                values[(r["topic"], r["system"])] = x
        if len(values) < COVERAGE * len(rows):
            continue
        try:
            tau, topics = mean_topic_kendall(values, human, count=True)
        except ZeroDivisionError:  # no topic with a defined tau
            continue
        if topics >= TOPIC_COVERAGE * ranked:
            taus[name] = tau
    return taus


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=FEATURES.csv:SET.jsonl:TARGET")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--prefix", default="", help="comma-separated feature-name prefixes to keep")
    args = ap.parse_args()
    names, per_set = [], []
    for spec in args.sets:
        name, rest = spec.split("=", 1)
        features_csv, set_path, target = rest.split(":")
        names.append(name)
        per_set.append(column_taus(features_csv, set_path, target))
    prefixes = [p for p in args.prefix.split(",") if p]
    common = set.intersection(*(set(t) for t in per_set))
    ranked = []
    for f in common:
        if prefixes and not any(f.startswith(p) for p in prefixes):
            continue
        taus = [t[f] for t in per_set]
        one_sign = all(x > 0 for x in taus) or all(x < 0 for x in taus)
        ranked.append((min(abs(x) for x in taus) if one_sign else 0.0, f, taus))
    ranked.sort(key=lambda r: (-r[0], r[1]))
    print(f"{'feature':45s} {'min |tau|':>9s} " + " ".join(f"{n:>12s}" for n in names))
    for smallest, f, taus in ranked[: args.top]:
        print(f"{f:45s} {smallest:9.3f} " + " ".join(f"{x:+12.3f}" for x in taus))


if __name__ == "__main__":
    main()
