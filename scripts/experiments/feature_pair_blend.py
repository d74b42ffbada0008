"""Does a second feature add to a first? Summary-level Kendall tau (per topic, mean over topics,
as `aesop evaluate` computes it) of z(BASE) + w * z(ADDED), both z-scored within each topic,
for a grid of weights w; w = 0 is BASE alone. Hindsight on one set: an upper bound on what the
pair could give a learner, not a protocol-1 figure.

Usage (numpy and scipy; bench-out/ceiling-venv has both):
  python scripts/experiments/feature_pair_blend.py FEATURES.csv SET.jsonl TARGET BASE ADDED
e.g. the first 20 REALSumm topics with `aesop features rs20.jsonl --classes neural,rouge
--neural-references 1 -o rs20.csv`:
  python scripts/experiments/feature_pair_blend.py rs20.csv rs20.jsonl litepyramid_recall \
      rouge.r1_recall neural.ref_recall
"""
import csv
import sys

import numpy as np

from judgments import human_scores, mean_topic_kendall

features_csv, set_path, target, base, added = sys.argv[1:6]
rows = list(csv.DictReader(open(features_csv)))


def topic_z(name):
    by_topic = {}
    for r in rows:
        by_topic.setdefault(r["topic"], []).append(r)
    out = {}
    for topic, rs in by_topic.items():
        v = np.array([float(r[name]) for r in rs])
        sd = v.std() or 1.0
        for r, z in zip(rs, (v - v.mean()) / sd):
            out[(topic, r["system"])] = z
    return out


human = human_scores(set_path, target)
b, a = topic_z(base), topic_z(added)
print(f"{added} alone: {mean_topic_kendall(a, human):.3f}")
for w in [0, 0.25, 0.5, 0.75, 1, 1.5]:
    tau = mean_topic_kendall({k: b[k] + w * a[k] for k in b}, human)
    print(f"{base} + {w} x {added}: {tau:.3f}")
