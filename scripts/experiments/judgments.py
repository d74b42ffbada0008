"""Shared by the Python experiment scripts: the human scores of an aesop judgment set."""
import json


def human_scores(set_path, target):
    """{(topic, system): score} for every summary of the JSON Lines set that has `target`."""
    scores = {}
    for line in open(set_path):
        topic = json.loads(line)
        for summary in topic["summaries"]:
            value = summary.get("scores", {}).get(target)
            if value is not None:
                scores[(topic["topic"], summary["system"])] = value
    return scores


def mean_topic_kendall(values, scores):
    """Summary-level Kendall tau-b as aesop evaluate computes it: per topic, over the summaries
    with both a value and a human score, then the mean over topics (a topic where either side is
    constant has no tau and is left out). `values`, `scores`: {(topic, system): number}."""
    import math
    from scipy.stats import kendalltau

    by_topic = {}
    for key, value in values.items():
        if key in scores:
            by_topic.setdefault(key[0], []).append((value, scores[key]))
    taus = []
    for pairs in by_topic.values():
        a, b = zip(*pairs)
        if len(pairs) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
            continue
        k = kendalltau(a, b).statistic
        if not math.isnan(k):
            taus.append(k)
    return sum(taus) / len(taus)
