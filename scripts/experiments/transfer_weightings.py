"""Leave-one-set-out comparison of linear weightings (numpy twin of aesop's rank-SVM limit at
small C); run by scripts/experiments/transfer-weightings, which writes the features.
Usage: transfer_weightings.py WORKDIR [FAMILY ...]  (WORKDIR holds SET.jsonl and SET.csv)"""
import csv, json, math, sys
import numpy as np
from scipy.stats import kendalltau

work = None  # the directory of SET.jsonl and SET.csv, set by the command line
CONTENT = ("content", "rouge", "graph", "tesla", "surface")
LING = ("surface", "entity", "syntax", "cohmetrix", "redundancy", "npsyntax", "discourse", "continuity", "lm", "alignment")
FAMILIES = [
    ("responsiveness", True, {"summeval": "responsiveness", "newsroom": "responsiveness", "dialsummeval": "responsiveness", "realsumm": "pyramid"}, CONTENT),
    ("responsiveness-noref", False, {"summeval": "responsiveness", "newsroom": "responsiveness", "dialsummeval": "responsiveness", "realsumm": "pyramid", "summeval-op": "responsiveness"}, ("content", "graph", "surface")),
    ("readability", True, {"summeval": "readability", "newsroom": "readability", "dialsummeval": "readability"}, LING),
    ("readability-noref", False, {"summeval": "readability", "newsroom": "readability", "dialsummeval": "readability", "summeval-op": "readability"}, LING),
]
REFFREE_GRAPH = "graph.input_"
SINGLES = ["content.js", "rouge.r1_recall", "rouge.r1_f"]

_csv = {}
def table(name):
    if name not in _csv:
        rows = list(csv.reader(open(f"{work}/{name}.csv")))
        _csv[name] = (rows[0][2:], rows[1:])
    return _csv[name]

_js = {}
def judgments(name):
    if name not in _js:
        d = {}
        for line in open(f"{work}/{name}.jsonl"):
            t = json.loads(line)
            for s in t["summaries"]:
                d[(t["topic"], s["system"])] = s.get("scores", {})
        _js[name] = d
    return _js[name]

def load(name, target, fs):
    head, rows = table(name)
    y = judgments(name)
    idx = [head.index(f) for f in fs]
    X, Y, T = [], [], []
    for r in rows:
        v = y.get((r[0], r[1]), {}).get(target)
        if v is None:
            continue
        X.append([float(r[2 + i]) if r[2 + i] != "" else np.nan for i in idx])
        Y.append(v); T.append(r[0])
    return np.array(X), np.array(Y, float), np.array(T)

def standardized(data, train):
    """z(s): set s's (Z, Y, T), every column standardized on the training sets' rows pooled
    (missing values at the training mean, 0), as aesop's scaler does."""
    X = np.vstack([data[s][0] for s in train])
    mu, sd = np.nan_to_num(np.nanmean(X, 0)), np.nanstd(X, 0)
    sd = np.where(sd > 0, sd, 1)
    return lambda s: (np.nan_to_num((data[s][0] - mu) / sd),) + data[s][1:]

def tau(score, Y, T):
    out = []
    for t in np.unique(T):
        m = T == t
        a, b = score[m], Y[m]
        ok = ~np.isnan(a)
        a, b = a[ok], b[ok]
        if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
            continue
        r = kendalltau(a, b).statistic
        if not math.isnan(r):
            out.append(r)
    return float(np.mean(out)) if out else float("nan")

def agreement(Z, Y, T):
    g, n = np.zeros(Z.shape[1]), 0
    for t in np.unique(T):
        m = np.where(T == t)[0]
        dy = np.sign(Y[m][:, None] - Y[m][None, :])
        g += (dy.sum(1)[:, None] * Z[m]).sum(0)
        n += int((dy != 0).sum())
    return g, max(n, 1)

def per_set(Zs):
    return np.array([g / n for g, n in (agreement(*z) for z in Zs)])

def w_centroid(Zs):
    return sum(agreement(*z)[0] for z in Zs)

def w_equal(Zs):
    return per_set(Zs).sum(0)

def w_min(Zs, k=None, unit=False, floor=0.0):
    G = per_set(Zs)
    sign = np.sign(G)
    same = np.all(sign == sign[0], 0)
    size = np.where(same, np.min(np.abs(G), 0), 0)
    size = np.where(size > floor, size, 0)
    if k is not None and np.count_nonzero(size) > k:
        cut = np.sort(size)[-k]
        size = np.where(size >= cut, size, 0)
    if unit:
        size = (size > 0).astype(float)
    return size * sign[0]

METHODS = [
    ("rank-SVM limit (centroid)", w_centroid),
    ("centroid, equal set weights", w_equal),
    ("sign-consistent, smallest agreement", w_min),
    ("sign-consistent, smallest, top 10", lambda Zs: w_min(Zs, k=10)),
    ("sign-consistent, smallest, top 5", lambda Zs: w_min(Zs, k=5)),
    ("sign-consistent, unit weights", lambda Zs: w_min(Zs, unit=True)),
    ("sign-consistent, unit, top 10", lambda Zs: w_min(Zs, k=10, unit=True)),
    ("sign-consistent, smallest > .02", lambda Zs: w_min(Zs, floor=0.02)),
]

# Anchored on JS: the fixed baseline (-JS, standardized) plus lambda times the unit-norm rank-SVM
# limit of the family's features; lambda 0 is -JS alone, a large lambda the limit itself. This is
# the small-C limit of a rank-SVM whose penalty is centred on the anchor, ||w - w0||^2, instead of
# on zero. ANCHOR: (feature, sign).
ANCHOR = ("content.js", -1.0)
ANCHOR_LAMBDAS = (0.05, 0.1, 0.2, 0.5, 1.0)

def run(fam, ref, sets, classes):
    head = set(table("summeval")[0])
    for s in sets:
        head &= set(table(s)[0])
    fs = sorted(f for f in head if f.split(".")[0] in classes and (ref or f.split(".")[0] != "graph" or f.startswith(REFFREE_GRAPH)))
    # drop columns that are constant or all-missing in some set
    data = {s: load(s, sets[s], fs) for s in sets}
    keep = [i for i in range(len(fs)) if all(np.nanstd(data[s][0][:, i]) > 0 for s in sets)]
    fs = [fs[i] for i in keep]
    data = {s: (d[0][:, keep],) + d[1:] for s, d in data.items()}
    # The anchor rides along as a last column where the family's classes lack it (readability);
    # only the anchored rows weigh it.
    n = len(fs)
    anchor_feature, anchor_sign = ANCHOR
    if anchor_feature not in fs:
        data = {s: (np.hstack([d[0], load(s, sets[s], [anchor_feature])[0]]),) + d[1:] for s, d in data.items()}
    anchor = fs.index(anchor_feature) if anchor_feature in fs else n
    print(f"\n### {fam} ({n} features), held-out summary tau")
    print("| weighting | " + " | ".join(sets) + " | mean |")
    print("|---" * (len(sets) + 2) + "|")
    def row(name, res):
        print(f"| {name} | " + " | ".join(f"{res[s]:.3f}" for s in sets) + f" | {np.mean(list(res.values())):.3f} |", flush=True)
    best = {}
    for s in sets:
        # Reference-free families are held to JS alone (the ROUGE columns need references).
        sing = [f for f in SINGLES if f in table(s)[0] and (ref or not f.startswith("rouge."))]
        X, Y, T = load(s, sets[s], sing)
        best[s] = max(abs(tau(X[:, i], Y, T)) for i in range(len(sing)))
    row("best of JS / ROUGE-1 R / F (hindsight)" if ref else "JS (hindsight sign)", best)
    js = {s: load(s, sets[s], ["content.js"]) for s in sets}
    row("-JS (fixed)", {s: tau(-js[s][0][:, 0], js[s][1], js[s][2]) for s in sets})
    def anchored(lam):
        def weight(Zs):
            w = w_centroid(Zs)
            return lam * w / np.linalg.norm(w)
        return weight
    methods = [(name, weight, 0.0) for name, weight in METHODS]
    label = ("-" if anchor_sign < 0 else "") + anchor_feature
    methods += [(f"{label} + {lam} x rank-SVM limit (anchored)", anchored(lam), anchor_sign) for lam in ANCHOR_LAMBDAS]
    for name, weight, anchor_weight in methods:
        res = {}
        for h in sets:
            train = [s for s in sets if s != h]
            z = standardized(data, train)
            w = np.zeros(data[h][0].shape[1])
            w[:n] = weight([(Z[:, :n], Y, T) for Z, Y, T in (z(s) for s in train)])
            w[anchor] += anchor_weight
            Z, Y, T = z(h)
            res[h] = tau(Z @ w, Y, T)
        row(name, res)

if __name__ == "__main__":  # also imported by transfer-ceiling, for tau, agreement and w_centroid
    work = sys.argv[1]
    only = sys.argv[2:]
    for fam in FAMILIES:
        if not only or fam[0] in only:
            run(*fam)
