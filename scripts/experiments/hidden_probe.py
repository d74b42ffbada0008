"""Do SmolLM2's hidden states know more than its log-probs? A probe (not a shipped model).

`AESOP_NEURAL_HIDDEN=FILE aesop features SET --classes neural` appends, per summary, the mean over
the summary's positions (given the source, chat prompt) of the residual stream after the blocks
named by `AESOP_NEURAL_HIDDEN_LAYERS` and of the final normed hidden state. This script fits
ridge regressions on them under protocol 1 (5 topic folds x 4 system folds, fold seeds 1-5: a
test cell's topics and systems are both unseen in training) and, with --transfer, under protocol
2 (train on one set, score another), and compares with the same ridge on the set's aesop
features (e.g. content, surface, neural) and on both together.

Every feature and the target are z-scored within their topic (as `--normalize topic-z`), so the
ridge learns within-topic differences, which is what summary-level Kendall tau (tau-b per topic,
mean over topics) judges. Feature blocks are scaled by 1/sqrt(columns) so that 2,304 hidden
columns do not drown 40 aesop features (the idea of aesop's class-balanced scaling).

Usage (numpy, scipy):
  python3 hidden_probe.py SET.jsonl TARGET HIDDEN.jsonl FEATURES CSV [CSV ...]
      [--layers 0,1,2,3] [--alphas 10,100,1000] [--seeds 1,2,3,4,5] [--only features,hidden,both]
      [--hidden-weight 1] [--transfer SET2.jsonl TARGET2 HIDDEN2.jsonl CSV2 ...]
      [--loso SET2.jsonl:TARGET2:HIDDEN2.jsonl:CSV2[+CSV2] ...]
Protocol 1 also reports system pairwise accuracy (systems ordered by their mean out-of-fold
score against their mean human score).
FEATURES: comma-separated names or prefixes ending in * of the aesop features (from the CSVs).
--layers picks blocks of the hidden vector by position in the file's `layers` list, the final
state being the last (default: all).
"""
import argparse
import json
import math
import random

import numpy as np
from judgments import human_scores
from scipy.stats import kendalltau


def load_hidden(path, layers):
    """{(topic, system): vector} of the chosen layers (positions; None: all)."""
    out = {}
    for line in open(path):
        d = json.loads(line)
        h = d["hidden"]
        if not h:
            continue
        width = len(h) // (len(d["layers"]) + 1)
        blocks = [h[i * width:(i + 1) * width] for i in range(len(d["layers"]) + 1)]
        chosen = blocks if layers is None else [blocks[i] for i in layers]
        out[(d["topic"], d["system"])] = np.concatenate(chosen)
    return out


def load_features(files, prefixes):
    """{(topic, system): vector}, names: the aesop features of the CSVs matching `prefixes`."""
    import csv

    cols = {}
    for f in files:
        rows = list(csv.reader(open(f)))
        for i, h in enumerate(rows[0][2:], 2):
            if any(h == p or (p.endswith("*") and h.startswith(p[:-1])) for p in prefixes):
                cols[h] = {(r[0], r[1]): (float(r[i]) if r[i] != "" else np.nan) for r in rows[1:]}
    names = sorted(cols)
    keys = set.intersection(*(set(c) for c in cols.values()))
    return {k: np.array([cols[n][k] for n in names]) for k in keys}, names


class Set:
    """One judgment set's rows: topics, systems, target, aesop features, hidden states."""

    def __init__(self, set_path, target, hidden_path, prefixes, csvs, layers):
        human = human_scores(set_path, target)
        hidden = load_hidden(hidden_path, layers)
        feats, self.names = load_features(csvs, prefixes)
        keys = sorted(k for k in human if k in hidden and k in feats)
        self.T = np.array([k[0] for k in keys])
        self.S = np.array([k[1] for k in keys])
        self.Y = topic_z(np.array([[human[k]] for k in keys], float), self.T)[:, 0]
        self.Yraw = np.array([human[k] for k in keys], float)
        F = np.array([feats[k] for k in keys])
        H = np.array([hidden[k] for k in keys])
        # Columns constant over the set carry nothing (the ref_* columns without references).
        F = F[:, np.nanstd(F, 0) > 0]
        self.F = np.nan_to_num(topic_z(F, self.T))
        self.H = np.nan_to_num(topic_z(H, self.T))
        self.name = set_path

    def tau(self, score, rows=None):
        rows = np.ones(len(self.T), bool) if rows is None else rows
        out = []
        for t in np.unique(self.T[rows]):
            m = rows & (self.T == t)
            a, b = score[m], self.Yraw[m]
            if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
                continue
            r = kendalltau(a, b).statistic
            if not math.isnan(r):
                out.append(r)
        return float(np.mean(out))


    def system_pairwise(self, score):
        """Share of system pairs ordered as the humans order them by mean score over topics
        (pairs the humans tie are left out; a pair the scores tie counts wrong)."""
        systems = np.unique(self.S)
        pred = {s: score[self.S == s].mean() for s in systems}
        gold = {s: self.Yraw[self.S == s].mean() for s in systems}
        right = total = 0
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                if gold[a] == gold[b]:
                    continue
                total += 1
                right += (pred[a] - pred[b]) * (gold[a] - gold[b]) > 0
        return right / total


def topic_z(M, T):
    out = np.full_like(M, np.nan, dtype=float)
    for t in np.unique(T):
        m = T == t
        mu, sd = np.nanmean(M[m], 0), np.nanstd(M[m], 0)
        out[m] = np.where(sd > 1e-12, (M[m] - mu) / np.where(sd > 1e-12, sd, 1), 0.0)
    return out


HIDDEN_WEIGHT = 1.0


def design(s, what):
    """The columns of `what` (features, hidden or both), each block scaled to unit total
    variance per row (1/sqrt(columns)), the hidden block then by HIDDEN_WEIGHT."""
    blocks = {"features": [(s.F, 1.0)], "hidden": [(s.H, 1.0)],
              "both": [(s.F, 1.0), (s.H, HIDDEN_WEIGHT)]}[what]
    return np.hstack([b * w / math.sqrt(max(b.shape[1], 1)) for b, w in blocks])


def ridge(X, y, alpha):
    """Ridge without intercept (topic-z columns and target have mean 0 in every topic)."""
    d = X.shape[1]
    if d > X.shape[0]:
        # Dual form: fewer rows than columns.
        K = X @ X.T
        return X.T @ np.linalg.solve(K + alpha * np.eye(len(y)), y)
    return np.linalg.solve(X.T @ X + alpha * np.eye(d), X.T @ y)


def folds(labels, k, seed):
    u = sorted(set(labels))
    random.Random(seed).shuffle(u)
    f = {l: i % k for i, l in enumerate(u)}
    return np.array([f[l] for l in labels])


def protocol1(s, what, alpha, seed):
    X = design(s, what)
    ta, sb = folds(s.T, 5, seed), folds(s.S, 4, seed + 1000)
    pred = np.zeros(len(s.Y))
    for a in range(5):
        for b in range(4):
            tr = (ta != a) & (sb != b)
            te = (ta == a) & (sb == b)
            pred[te] = X[te] @ ridge(X[tr], s.Y[tr], alpha)
    return s.tau(pred), s.system_pairwise(pred)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("target")
    ap.add_argument("hidden")
    ap.add_argument("features")
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--layers", default=None)
    ap.add_argument("--alphas", default="1,10,100,1000")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--hidden-weight", type=float, default=1.0,
                    help="scale of the hidden block against the features' in `both`")
    ap.add_argument("--only", default="features,hidden,both", help="which designs to run")
    ap.add_argument("--loso", nargs="+", default=None,
                    help="more sets as SET.jsonl:TARGET:HIDDEN.jsonl:CSV[+CSV]: leave each of "
                         "all the sets (the first included) out in turn, train on the others")
    ap.add_argument("--transfer", nargs="+", default=None,
                    help="SET2.jsonl TARGET2 HIDDEN2.jsonl CSV2 [CSV2 ...]: train on all of the "
                         "first set, score the second")
    a = ap.parse_args()
    global HIDDEN_WEIGHT
    HIDDEN_WEIGHT = a.hidden_weight
    designs = a.only.split(",")
    layers = None if a.layers is None else [int(x) for x in a.layers.split(",")]
    prefixes = a.features.split(",")
    s = Set(a.set, a.target, a.hidden, prefixes, a.csv, layers)
    alphas = [float(x) for x in a.alphas.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]
    print(f"{a.set} {a.target}: {len(s.Y)} summaries, {s.F.shape[1]} features, "
          f"{s.H.shape[1]} hidden columns (layers {a.layers or 'all'})")
    if a.loso is not None:
        sets = [s]
        for spec in a.loso:
            path, target, hidden, csvs = spec.split(":")
            sets.append(Set(path, target, hidden, prefixes, csvs.split("+"), layers))
        if len({x.F.shape[1] for x in sets}) != 1:
            raise SystemExit("the sets' feature columns differ: name features, not classes")
        for what in designs:
            for alpha in alphas:
                taus = []
                for held in sets:
                    train = [x for x in sets if x is not held]
                    X = np.vstack([design(x, what) for x in train])
                    y = np.concatenate([x.Y for x in train])
                    taus.append(held.tau(design(held, what) @ ridge(X, y, alpha)))
                print(f"loso {what:8s} alpha {alpha:g}: mean {np.mean(taus):.3f}  "
                      + " ".join(f"{x.name.split('/')[-1].split('.')[0]} {t:.3f}"
                                 for x, t in zip(sets, taus)), flush=True)
        return
    if a.transfer is None:
        for what in designs:
            for alpha in alphas:
                runs = [protocol1(s, what, alpha, seed) for seed in seeds]
                taus = [t for t, _ in runs]
                print(f"protocol 1  {what:8s} alpha {alpha:g}: mean {np.mean(taus):.3f}  "
                      + " ".join(f"{t:.3f}" for t in taus)
                      + f"  system pairwise {np.mean([a for _, a in runs]):.3f}", flush=True)
        return
    t2 = Set(a.transfer[0], a.transfer[1], a.transfer[2], prefixes, a.transfer[3:], layers)
    if s.F.shape[1] != t2.F.shape[1]:
        raise SystemExit("the two sets' feature columns differ")
    for what in designs:
        for alpha in alphas:
            w = ridge(design(s, what), s.Y, alpha)
            print(f"transfer {what:8s} alpha {alpha:g}: "
                  f"{t2.tau(design(t2, what) @ w):.3f} (in-set fit {s.tau(design(s, what) @ w):.3f})",
                  flush=True)


if __name__ == "__main__":
    main()
