"""Can a learned model keep a tie-heavy feature's tau-b and add to it? Orders each topic's
summaries by the feature first and lets the model's out-of-fold raw output break only the
feature's ties, then reports summary-level Kendall tau-b (mean over topics) of the model, the
feature and the combination (docs/NEURAL.md, "Why the learned models stay below").
Usage (numpy, scipy):
  python3 scripts/experiments/tie_break_probe.py SET.jsonl TARGET FEATURES.csv FEATURE SIGN \
      OOF.raw.jsonl [OOF.raw.jsonl ...]
SIGN: 1 if larger feature values mean better summaries, -1 if smaller (e.g.
neural.unsupported_share -1). OOF files: `aesop cross-validate -o` with `score` set to `raw`
(scripts/experiments/eval-neural-p1 writes them as *.raw.jsonl)."""
import csv
import json
import sys

import numpy as np
from judgments import human_scores, mean_topic_kendall

setf, target, features, name, sign, files = (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
                                              float(sys.argv[5]), sys.argv[6:])
human = human_scores(setf, target)
rows = list(csv.reader(open(features)))
col = rows[0].index(name)
feature = {(r[0], r[1]): sign * float(r[col]) for r in rows[1:] if r[col] != ""}
print(f"{name} alone: {mean_topic_kendall(feature, human):.3f}")
model, combined = [], []
for f in files:
    pred = {}
    for line in open(f):
        p = json.loads(line)
        pred[(p["topic"], p["system"])] = p["score"]
    # The model's outputs are far smaller than 1e6 times the feature's steps.
    lex = {k: feature.get(k, 0.0) * 1e6 + v for k, v in pred.items()}
    model.append(mean_topic_kendall(pred, human))
    combined.append(mean_topic_kendall(lex, human))
    print(f"{f}: model {model[-1]:.3f}, feature then model {combined[-1]:.3f}")
print(f"mean: model {np.mean(model):.3f}, feature then model {np.mean(combined):.3f}")
