"""Leave-one-set-out: does scaling each set's features by that set's own spread help the numpy
twin of aesop's rank-SVM limit at small C? Within a topic only a feature's scale matters to a
linear ranker (a shift cancels in every pair), so the variants differ in whose spread a feature
is divided by: the training sets' pooled standard deviation (what aesop does), each set's own
standard deviation, each set's own pooled within-topic standard deviation, or each topic's own
(aesop's `--normalize topic-z`). docs/PROBES.md, "Each set scaled by its own spread".

Usage: transfer_set_scaling.py WORKDIR [--explain FAMILY SET]   (the features of scripts/experiments/transfer-weightings,
       e.g. bench-out/weightings; numpy and scipy, e.g. bench-out/ceiling-venv/bin/python)
--explain: with SET held out of FAMILY, the features that move the score most under the first two
scalings: unit-norm weight, spread in SET after scaling, and SET's own spread over the training
rows' pooled one."""
import sys
import warnings
import numpy as np
import transfer_weightings as tw
from transfer_transforms import family_data, row

SCALINGS = ("training sets pooled (aesop)", "each set's own sd", "each set's within-topic sd",
            "each topic's own sd (topic-z)")


def positive(sd):
    return np.where(sd > 0, sd, 1.0)


def within_topic_sd(X, T):
    centred = X.copy()
    for t in np.unique(T):
        m = T == t
        centred[m] = X[m] - np.nanmean(X[m], 0)
    return positive(np.sqrt(np.nanmean(centred ** 2, 0)))


def scaled(A, T, scaling, mu, sd):
    if scaling == SCALINGS[0]:
        return (A - mu) / sd
    if scaling == SCALINGS[1]:
        return (A - np.nanmean(A, 0)) / positive(np.nanstd(A, 0))
    if scaling == SCALINGS[2]:
        return (A - np.nanmean(A, 0)) / within_topic_sd(A, T)
    Z = A.copy()
    for t in np.unique(T):
        m = T == t
        Z[m] = (A[m] - np.nanmean(A[m], 0)) / positive(np.nanstd(A[m], 0))
    return Z


def held_out(data, sets, scaling):
    res = {}
    for h in sets:
        train = [s for s in sets if s != h]
        X = np.vstack([data[s][0] for s in train])
        mu, sd = np.nan_to_num(np.nanmean(X, 0)), positive(np.nanstd(X, 0))
        z = lambda s: (np.nan_to_num(scaled(data[s][0], data[s][2], scaling, mu, sd)),) + data[s][1:]
        w = tw.w_centroid([z(s) for s in train])
        Z, Y, T = z(h)
        res[h] = tw.tau(Z @ w, Y, T)
    return res


def explain(family, held):
    fam, ref, sets, classes = next(f for f in tw.FAMILIES if f[0] == family)
    fs, data = family_data(ref, sets, classes)
    train = [s for s in sets if s != held]
    X = np.vstack([data[s][0] for s in train])
    mu, sd = np.nan_to_num(np.nanmean(X, 0)), positive(np.nanstd(X, 0))
    own = positive(np.nanstd(data[held][0], 0))
    for scaling in SCALINGS[:2]:
        z = lambda s: (np.nan_to_num(scaled(data[s][0], data[s][2], scaling, mu, sd)),) + data[s][1:]
        w = tw.w_centroid([z(s) for s in train])
        w = w / np.linalg.norm(w)
        spread = np.nanstd(z(held)[0], 0)
        print(f"\n{family}, {held} held out, {scaling}:")
        for i in np.argsort(-np.abs(w * spread))[:8]:
            print(f"  {fs[i]:36s} weight {w[i]:+.3f}  spread {spread[i]:.2f}  own/pooled sd {own[i] / sd[i]:.2f}")


def main():
    tw.work = sys.argv[1]
    # A feature missing for a whole topic has no spread there (NaN, then 0 after nan_to_num).
    warnings.simplefilter("ignore", RuntimeWarning)
    if len(sys.argv) == 5 and sys.argv[2] == "--explain":
        return explain(sys.argv[3], sys.argv[4])
    for fam, ref, sets, classes in tw.FAMILIES:
        fs, data = family_data(ref, sets, classes)
        print(f"\n### {fam} ({len(fs)} features), held-out summary tau")
        print("| scaling | " + " | ".join(sets) + " | mean |")
        print("|---" * (len(sets) + 2) + "|")
        for scaling in SCALINGS:
            row(scaling, sets, held_out(data, sets, scaling))


if __name__ == "__main__":
    main()
