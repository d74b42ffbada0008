"""Where a prediction file orders the systems wrongly: per system, the mean human score and the
mean prediction (the file's `raw` when present, else `score`) with their ranks, then the system
pairs the two order differently (docs/PROBES.md, "Which system pairs the coherence model gets
wrong", stop 43). System-level pairwise accuracy is 1 - wrong / pairs.

Usage (no dependencies beyond the standard library):
  python3 scripts/experiments/system_order.py SET.jsonl TARGET PREDICTIONS.jsonl
"""
import itertools
import json
import sys

from judgments import human_scores

if len(sys.argv) != 4:
    sys.exit(__doc__)
human = human_scores(sys.argv[1], sys.argv[2])
predicted, rated = {}, {}
for line in open(sys.argv[3], encoding="utf-8"):
    row = json.loads(line)
    key = (row["topic"], row["system"])
    value = row.get("raw", row.get("score"))
    if key in human and value is not None:
        predicted.setdefault(row["system"], []).append(value)
        rated.setdefault(row["system"], []).append(human[key])
p = {s: sum(v) / len(v) for s, v in predicted.items()}
h = {s: sum(v) / len(v) for s, v in rated.items()}
by_human = sorted(h, key=lambda s: -h[s])
model_rank = {s: i + 1 for i, s in enumerate(sorted(p, key=lambda s: -p[s]))}
for i, s in enumerate(by_human):
    print(f"{s:8} human {h[s]:.3f} (#{i + 1:2})   model {p[s]:+.3f} (#{model_rank[s]:2})")
wrong = [(a, b) for a, b in itertools.combinations(by_human, 2) if (h[a] - h[b]) * (p[a] - p[b]) < 0]
pairs = len(by_human) * (len(by_human) - 1) // 2
print(f"{len(wrong)} of {pairs} pairs ordered wrongly (pairwise accuracy {1 - len(wrong) / pairs:.3f}):")
print(" ".join(f"{a}>{b}" for a, b in wrong))
