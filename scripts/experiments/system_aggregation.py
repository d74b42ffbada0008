"""System scores as other aggregates of a model's out-of-fold predictions (probe, issue 15).

System-level pairwise accuracy compares each system's mean prediction over the topics. Would the
mean within-topic rank (Borda) or within-topic z-score of the predictions order the systems
better, by taking out how much each topic's predictions spread? Prints the accuracy per file and
the mean for raw means, ranks and z-scores (the human side is always the mean rating, as `aesop
evaluate` takes it).
Usage: system_aggregation.py SET.jsonl TARGET OOF.jsonl ...  (OOF from `aesop cross-validate -o`)
"""
import itertools
import json
import sys

import numpy as np
from scipy.stats import rankdata


def human_scores(path, target):
    scores = {}
    for line in open(path):
        topic = json.loads(line)
        for summary in topic["summaries"]:
            if target in summary.get("scores", {}):
                scores[(topic["topic"], summary["system"])] = summary["scores"][target]
    return scores


def system_means(values, how):
    """Each system's mean over the topics of its predictions, after `how` within each topic."""
    by_topic = {}
    for (topic, system), v in values.items():
        by_topic.setdefault(topic, {})[system] = v
    per_system = {}
    for row in by_topic.values():
        systems = list(row)
        v = np.array([row[s] for s in systems], float)
        if how == "rank":
            v = rankdata(v) / len(v)
        elif how == "z":
            v = (v - v.mean()) / (v.std() or 1.0)
        for system, x in zip(systems, v):
            per_system.setdefault(system, []).append(x)
    return {s: float(np.mean(x)) for s, x in per_system.items()}


def pairwise_accuracy(model, human):
    right = total = 0
    for a, b in itertools.combinations(sorted(model), 2):
        if human[a] == human[b]:
            continue
        total += 1
        right += (model[a] - model[b]) * (human[a] - human[b]) > 0
    return right / total


def main():
    human = human_scores(sys.argv[1], sys.argv[2])
    human_by_system = system_means(human, "raw")
    results = {"raw": [], "rank": [], "z": []}
    for path in sys.argv[3:]:
        predictions = {}
        for line in open(path):
            r = json.loads(line)
            predictions[(r["topic"], r["system"])] = r["raw"]
        for how in results:
            results[how].append(pairwise_accuracy(system_means(predictions, how), human_by_system))
    for how, accuracies in results.items():
        print(how, " ".join(f"{a:.3f}" for a in accuracies), f"mean {np.mean(accuracies):.3f}")


if __name__ == "__main__":
    main()
