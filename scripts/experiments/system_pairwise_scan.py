"""Which single feature orders a set's systems best? For every column of a features CSV (from
`aesop features`), the system-level pairwise accuracy of its per-system mean against the
annotators' per-system mean, with the feature's sign chosen in hindsight (a feature that orders
the pairs backwards counts as its negation). Missing values are left out of the means; pairs the
annotators tie are left out; columns that are not numbers or whose system means tie are skipped.
Prints the best N.

Usage (numpy; bench-out/ceiling-venv has it):
  python scripts/experiments/system_pairwise_scan.py FEATURES.csv SET.jsonl TARGET [N]
"""
import csv
import math
import sys

from judgments import human_scores

features_csv, set_path, target = sys.argv[1:4]
top = int(sys.argv[4]) if len(sys.argv) > 4 else 15
rows = list(csv.DictReader(open(features_csv)))
human = human_scores(set_path, target)
systems = sorted({r["system"] for r in rows})


def system_means(values):
    """{system: mean over its topics}, from {(topic, system): value}."""
    sums = {}
    for (_, system), v in values.items():
        sums.setdefault(system, []).append(v)
    return {s: sum(v) / len(v) for s, v in sums.items()}


human_means = system_means({(r["topic"], r["system"]): human[(r["topic"], r["system"])]
                            for r in rows if (r["topic"], r["system"]) in human})
pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1:]
         if human_means[a] != human_means[b]]
results = []
for name in rows[0]:
    if name in ("topic", "system"):
        continue
    try:
        values = {(r["topic"], r["system"]): float(r[name] or "nan") for r in rows}
    except ValueError:
        continue
    means = system_means({k: v for k, v in values.items() if not math.isnan(v)})
    if len(means) < len(systems) or len(set(means.values())) < len(systems):
        continue
    agree = sum((means[a] - means[b]) * (human_means[a] - human_means[b]) > 0 for a, b in pairs)
    accuracy = agree / len(pairs)
    results.append((max(accuracy, 1 - accuracy), "+" if accuracy >= 0.5 else "-", name))
results.sort(reverse=True)
print(f"{len(results)} features, {len(pairs)} system pairs the annotators order")
for accuracy, sign, name in results[:top]:
    print(f"{sign}{name:50s} {accuracy:.3f}")
