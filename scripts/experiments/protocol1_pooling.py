"""Does protocol 1's pooling hold learned models back? Protocol 1 (5 topic folds x 4 system folds,
seeds 1-5) with a numpy twin of aesop's rank-SVM at small C (each standardized feature weighted by
its within-topic pairwise agreement with the target), its out-of-fold raw outputs pooled either
centred on each fold's training mean (as aesop's models are) or not centred ((x / sd) . w, so a
feature value of 0 gives 0 in every fold). Summary-level Kendall tau (tau-b per topic, mean).
Within a topic, each system fold is scored by a different model, so the centring offset, which
depends on the training rows, separates summaries with equal features (docs/NEURAL.md, "Words the
source does not support").
Usage (numpy and scipy; features from `aesop features`, e.g. the neural class with
AESOP_NEURAL_CACHE):
  python3 scripts/experiments/protocol1_pooling.py summeval.jsonl consistency \
      neural.unsupported_share summeval.neural.csv
  python3 scripts/experiments/protocol1_pooling.py summeval.jsonl consistency \
      'content.*,surface.*,neural.*' summeval.csv summeval.neural.csv
Arguments: SET.jsonl TARGET FEATURES (names, or prefixes ending in *) CSV [CSV ...]

A third column, "fold-invariant", z-scores every feature within its topic over all the topic's
summaries (as `--normalize topic-z` does) and then rescales it by nothing that depends on the
fold: within a topic, equal features then get equal scores from every fold's model whenever the
models agree in direction. It isolates the other half of the pooling effect: Kendall's tau-b
counts a pair tied by the metric as neither right nor wrong, so a feature with many ties
(ROUGE-1 recall against one reference takes few distinct values per topic; `unsupported_share`
is 0 for most summaries) loses when four fold models, each rescaling it a little differently,
break its ties at random. The script prints, per set, the share of within-topic pairs tied by
the metric and by the humans. Example (REALSumm, ties broken by per-fold scaling):
  python3 scripts/experiments/protocol1_pooling.py realsumm.jsonl litepyramid_recall \
      rouge.r1_recall realsumm.rouge.csv"""
import csv, math, random, sys
import numpy as np
from judgments import human_scores
from scipy.stats import kendalltau
setf, target, prefixes, files = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4:]
human = human_scores(setf, target)
cols, keys = {}, None
for f in files:
    rows = list(csv.reader(open(f)))
    d = {(r[0], r[1]): r for r in rows[1:]}
    keys = sorted(d) if keys is None else [k for k in keys if k in d]
    for i, h in enumerate(rows[0][2:], 2):
        if any(h == p or (p.endswith("*") and h.startswith(p[:-1])) for p in prefixes):
            cols[h] = {k: (float(r[i]) if r[i] != "" else np.nan) for k, r in d.items()}
keys = [k for k in keys if k in human]
names = sorted(cols)
X = np.array([[cols[n][k] for n in names] for k in keys])
keep = np.nanstd(X, 0) > 0
X, names = X[:, keep], [n for n, k in zip(names, keep) if k]
Y = np.array([human[k] for k in keys], float)
T = np.array([k[0] for k in keys]); S = np.array([k[1] for k in keys])

def tau(score):
    out = []
    for t in np.unique(T):
        m = T == t
        a, b = score[m], Y[m]
        if np.all(a == a[0]) or np.all(b == b[0]): continue
        r = kendalltau(a, b).statistic
        if not math.isnan(r): out.append(r)
    return float(np.mean(out))

def centroid(Z, Yt, Tt):
    g = np.zeros(Z.shape[1])
    for t in np.unique(Tt):
        m = np.where(Tt == t)[0]
        dy = np.sign(Yt[m][:, None] - Yt[m][None, :])
        g += (dy.sum(1)[:, None] * Z[m]).sum(0)
    return g

def folds(labels, k, seed):
    u = sorted(set(labels)); random.Random(seed).shuffle(u)
    return {l: i % k for i, l in enumerate(u)}

def topic_z(M):
    out = np.full_like(M, np.nan)
    for t in np.unique(T):
        m = T == t
        mu, sd = np.nanmean(M[m], 0), np.nanstd(M[m], 0)
        out[m] = np.where(sd > 1e-12, (M[m] - mu) / np.where(sd > 1e-12, sd, 1), 0.0)
    return out

def tied_share(values):
    tied = total = 0
    for t in np.unique(T):
        v = values[T == t]
        d = v[:, None] == v[None, :]
        n = len(v)
        tied += (d.sum() - n) / 2
        total += n * (n - 1) / 2
    return tied / total

Xz = topic_z(X)
print(f"{setf} {target}: {len(names)} features, {len(keys)} rows")
print(f"within-topic pairs tied by the humans: {tied_share(Y):.3f}"
      + (f"; by the feature: {tied_share(X[:, 0]):.3f}; its own tau-b on all rows: "
         f"{tau(np.nan_to_num(X[:, 0], nan=np.nanmean(X[:, 0]))):.3f}" if len(names) == 1 else ""))
for seed in range(1, 6):
    tf, sf = folds(T, 5, seed), folds(S, 4, seed + 1000)
    ta, sb = np.array([tf[t] for t in T]), np.array([sf[s] for s in S])
    cen, unc, inv = np.zeros(len(Y)), np.zeros(len(Y)), np.zeros(len(Y))
    for a in range(5):
        for b in range(4):
            tr = (ta != a) & (sb != b); te = (ta == a) & (sb == b)
            mu, sd = np.nanmean(X[tr], 0), np.nanstd(X[tr], 0); sd = np.where(sd > 0, sd, 1)
            Z = np.nan_to_num((X[tr] - mu) / sd)
            w = centroid(Z, Y[tr], T[tr]); w /= np.linalg.norm(w)
            Zt = np.clip(np.nan_to_num((X[te] - mu) / sd), -6, 6)
            cen[te] = Zt @ w
            unc[te] = (Zt + mu / sd) @ w
            wz = centroid(np.nan_to_num(Xz[tr]), Y[tr], T[tr]); wz /= np.linalg.norm(wz)
            inv[te] = np.nan_to_num(Xz[te]) @ wz
    print(f"seed {seed}: centred {tau(cen):.3f}  uncentred {tau(unc):.3f}  "
          f"fold-invariant {tau(inv):.3f}", flush=True)
