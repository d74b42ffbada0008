"""How much Kendall's tau-b rewards ties: a model's out-of-fold predictions (`aesop
cross-validate -o`), correlated as they are (`raw`, the statistic protocol 1 reports), as their
calibrated scores on the target's 1-5 scale (`score`), and as those scores rounded to whole and
half points. Rounding orders nothing better; it only ties summaries. Where the annotators tie
most pairs (SummEval consistency and fluency, mostly 5), the rounded scores gain anyway
(docs/NEURAL.md, "Why the learned models stay below `unsupported_share`'s .405"). aesop
does not round its predictions; this script only measures the effect.
Usage (numpy and scipy):
  python3 scripts/experiments/tau_b_rounding.py summeval.jsonl consistency OOF.jsonl [OOF.jsonl ...]
Prints summary-level tau-b (mean over topics where it is defined) per file and the mean."""
import collections, json, sys
import numpy as np
from judgments import human_scores
from scipy.stats import kendalltau

setf, target, files = sys.argv[1], sys.argv[2], sys.argv[3:]
human = human_scores(setf, target)

def summary_tau(pred):
    by_topic = collections.defaultdict(list)
    for key, v in pred.items():
        by_topic[key[0]].append((v, human[key]))
    taus = []
    for pairs in by_topic.values():
        a, b = [p for p, _ in pairs], [h for _, h in pairs]
        if len(set(a)) > 1 and len(set(b)) > 1:
            taus.append(kendalltau(a, b).statistic)
    return float(np.mean(taus))

columns = ("raw", "calibrated", "rounded to 1", "rounded to 0.5")
rows = []
for f in files:
    raw, cal = {}, {}
    for line in open(f):
        p = json.loads(line)
        key = (p["topic"], p["system"])
        raw[key], cal[key] = p["raw"], p["score"]
    rows.append([summary_tau(raw), summary_tau(cal),
                 summary_tau({k: round(v) for k, v in cal.items()}),
                 summary_tau({k: round(2 * v) / 2 for k, v in cal.items()})])
    print(f, " ".join(f"{c} {v:.3f}" for c, v in zip(columns, rows[-1])))
print("mean", " ".join(f"{c} {v:.3f}" for c, v in zip(columns, np.mean(rows, 0))))
