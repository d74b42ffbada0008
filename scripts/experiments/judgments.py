"""Shared by the Python experiment scripts: the human scores of an aesop judgment set."""
import json
import os
from pathlib import Path


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


def negated_feature_columns(features_path, names):
    """{"-NAME": {(topic, system): -value}} for each of `names` in a features CSV (as `aesop
    features` writes it), empty and NaN cells left out: negated, so that less of it ranks higher."""
    import csv

    columns = {"-" + name: {} for name in names}
    with open(features_path) as f:
        for row in csv.DictReader(f):
            key = (row["topic"], row["system"])
            for name in names:
                cell = row.get(name, "")
                if cell not in ("", "nan", "NaN"):
                    columns["-" + name][key] = -float(cell)
    return columns


def mean_topic_kendall(values, scores, count=False):
    """Summary-level Kendall tau-b as aesop evaluate computes it: per topic, over the summaries
    with both a value and a human score, then the mean over topics (a topic where either side is
    constant has no tau and is left out). `values`, `scores`: {(topic, system): number}. With
    `count`, (mean, number of topics with a tau)."""
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
    mean = sum(taus) / len(taus)
    return (mean, len(taus)) if count else mean


def system_pairwise_accuracy(values, scores):
    """System-level pairwise accuracy: the share of system pairs whose mean values order them as
    their mean human scores do (a tie on either side counts as wrong), over the summaries with
    both. `values`, `scores`: {(topic, system): number}."""
    import itertools

    by_system, rated = {}, {}
    for key, value in values.items():
        if key in scores:
            by_system.setdefault(key[1], []).append(value)
            rated.setdefault(key[1], []).append(scores[key])
    mean = {s: sum(v) / len(v) for s, v in by_system.items()}
    human = {s: sum(v) / len(v) for s, v in rated.items()}
    pairs = list(itertools.combinations(mean, 2))
    right = sum(1 for a, b in pairs if (mean[a] - mean[b]) * (human[a] - human[b]) > 0)
    return right / len(pairs)


def token_log_words(record):
    """The words of one summary in an `AESOP_NEURAL_TOKENS` log record, as the class forms them
    (a word starts at a token that starts with whitespace; words of whitespace only dropped):
    [text without surrounding whitespace, summed log-prob given the source, summed unconditional]."""
    words = []
    for piece, given, uncond in zip(record["tokens"], record["given_source"], record["unconditional"]):
        if words and not piece[:1].isspace():
            words[-1][0] += piece
            words[-1][1] += given
            words[-1][2] += uncond
        else:
            words.append([piece, given, uncond])
    return [[w[0].strip(), w[1], w[2]] for w in words if w[0].strip()]


def write_features_csv(path, features):
    """Write {(topic, system): {name: value}} as a features CSV like `aesop features` writes
    (topic, system, then the names sorted), rows sorted by key."""
    import csv

    names = sorted(next(iter(features.values())))
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["topic", "system"] + names)
        for key, row in sorted(features.items()):
            writer.writerow(list(key) + [row[n] for n in names])


def stopwords():
    """The SMART common-word list of the shared resources (`AESOP_DATA`, default the checkout's
    ../shared/data), lowercased: the stopwords of the scripts that count content words."""
    data = Path(os.environ.get("AESOP_DATA", Path(__file__).resolve().parents[2] / "../shared/data"))
    with open(data / "resources/stopwords/smart_common_words.txt") as f:
        return {w.strip().lower() for w in f if w.strip() and not w.startswith("#")}
