"""Leave-one-set-out: do fixed per-feature transforms fitted on the training sets (their empirical
CDF, or clipping at their [P, 100 - P] percentiles) help the numpy twin of aesop's rank-SVM limit
at small C? Plain rows for every family; anchored rows (the Flesch-Kincaid grade, signed on the
training pairs, plus lambda times the unit-norm limit) for the readability families, as the
classic readability built-ins are anchored. docs/PROBES.md, "Winsorized features".

Usage: transfer_transforms.py WORKDIR   (the features of scripts/experiments/transfer-weightings,
       e.g. bench-out/weightings; numpy and scipy, e.g. bench-out/ceiling-venv/bin/python)"""
import sys
import numpy as np
import transfer_weightings as tw

ANCHOR = "cohmetrix.flesch_kincaid_grade"


def ecdf(col):
    v = np.sort(col[~np.isnan(col)])
    def f(x):
        lo, hi = np.searchsorted(v, x, "left"), np.searchsorted(v, x, "right")
        return np.where(np.isnan(x), np.nan, (lo + hi) / 2.0 / max(len(v), 1))
    return f


def winsor(col, p):
    a, b = np.nanpercentile(col, [p, 100 - p])
    return lambda x: np.clip(x, a, b)


TRANSFORMS = [("z-score only", None), ("training CDF", ecdf),
              ("winsorized 1%", lambda c: winsor(c, 1)), ("winsorized 5%", lambda c: winsor(c, 5))]


def family_data(ref, sets, classes):
    head = set(tw.table("summeval")[0])
    for s in sets:
        head &= set(tw.table(s)[0])
    fs = sorted(f for f in head if f.split(".")[0] in classes
                and (ref or f.split(".")[0] != "graph" or f.startswith(tw.REFFREE_GRAPH)))
    data = {s: tw.load(s, sets[s], fs) for s in sets}
    keep = [i for i in range(len(fs)) if all(np.nanstd(data[s][0][:, i]) > 0 for s in sets)]
    return [fs[i] for i in keep], {s: (d[0][:, keep],) + d[1:] for s, d in data.items()}


def held_out(data, sets, make, weight):
    res = {}
    for h in sets:
        train = [s for s in sets if s != h]
        X = np.vstack([data[s][0] for s in train])
        fns = [make(X[:, c]) if make else (lambda x: x) for c in range(X.shape[1])]
        tr = lambda A: np.column_stack([fns[c](A[:, c]) for c in range(A.shape[1])])
        Xt = tr(X)
        mu, sd = np.nan_to_num(np.nanmean(Xt, 0)), np.nanstd(Xt, 0)
        sd = np.where(sd > 0, sd, 1)
        z = lambda s: (np.nan_to_num((tr(data[s][0]) - mu) / sd),) + data[s][1:]
        w = weight([z(s) for s in train])
        Z, Y, T = z(h)
        res[h] = tw.tau(Z @ w, Y, T)
    return res


def row(label, sets, res):
    print(f"| {label} | " + " | ".join(f"{res[s]:.3f}" for s in sets)
          + f" | {np.mean(list(res.values())):.3f} |", flush=True)


def main():
    tw.work = sys.argv[1]
    for fam, ref, sets, classes in tw.FAMILIES:
        fs, data = family_data(ref, sets, classes)
        print(f"\n### {fam} ({len(fs)} features), held-out summary tau")
        print("| transform | " + " | ".join(sets) + " | mean |")
        print("|---" * (len(sets) + 2) + "|")
        for name, make in TRANSFORMS:
            row(name, sets, held_out(data, sets, make, tw.w_centroid))
        if ANCHOR not in fs:
            continue
        a = fs.index(ANCHOR)
        for lam in (0.5, 1.0, 2.0):
            def anchored(Zs, lam=lam):
                w = tw.w_centroid(Zs)
                sign = np.sign(w[a])
                w = lam * w / np.linalg.norm(w)
                w[a] += sign
                return w
            for name, make in TRANSFORMS[::3]:
                row(f"{name}, anchored, lambda {lam}", sets, held_out(data, sets, make, anchored))


if __name__ == "__main__":
    main()
