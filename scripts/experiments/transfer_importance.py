"""Issue 13 probe: importance weighting for the held-out corpus (covariate-shift correction).

A user who trains on prior years' judgments and scores next year's summaries has next year's
summaries, without judgments, when training. Domain adaptation's textbook answer is to weight
each training summary by how much it resembles the new data: the density ratio
p(new | x) / p(old | x), estimated by a classifier that tells the new corpus's summaries from the
training corpora's on the same standardized features. Under leave-one-set-out that uses the
held-out set's features but never its judgments. Here, in the numpy twin of aesop's rank-SVM limit
at small C, each training pair (i, j) of a topic weighs sqrt(r_i r_j), r the clipped, tempered
ratio; the weights are normalized to mean 1 either over all training rows ("global": sets that
look like the new corpus weigh more), within each training set ("within set": only summaries
move), or as one weight per set (its rows' mean ratio: only sets move). The classifier
(scikit-learn's L2 logistic regression, balanced classes) and the grid (C_DOMAIN, TEMPERS, CLIP)
are fixed before any held-out figure. Readability families also get the anchored rows (the
Flesch-Kincaid grade, signed on the training pairs, plus the unit-norm limit), as the shipped
classic readability recipes are anchored. docs/PROBES.md, "Importance weighting for the held-out
corpus".

Usage: transfer_importance.py WORKDIR [FAMILY ...]   (the features of scripts/experiments/transfer-weightings,
       e.g. bench-out/weightings; numpy, scipy and scikit-learn, e.g. bench-out/ceiling-venv/bin/python)"""
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

import transfer_transforms as tt
import transfer_weightings as tw

C_DOMAIN = 0.01
TEMPERS = (0.5, 1.0)
CLIP = 20.0  # a ratio above CLIP x the median is cut to it, so no handful of rows decides alone
ANCHOR = "cohmetrix.flesch_kincaid_grade"
MODES = ("global", "within set", "per set")


def weighted_agreement(Z, Y, T, r):
    g = np.zeros(Z.shape[1])
    for t in np.unique(T):
        m = np.where(T == t)[0]
        pair = np.sqrt(np.outer(r[m], r[m])) * np.sign(Y[m][:, None] - Y[m][None, :])
        g += (pair.sum(1)[:, None] * Z[m]).sum(0)
    return g


def domain_ratios(train_Z, target_Z):
    """Density ratio p(target | x) / p(train | x) of every training row, and the classifier's AUC."""
    X = np.vstack([train_Z, target_Z])
    y = np.r_[np.zeros(len(train_Z)), np.ones(len(target_Z))]
    clf = LogisticRegression(C=C_DOMAIN, class_weight="balanced", max_iter=2000).fit(X, y)
    logit = clf.decision_function(train_Z)
    auc = roc_auc_score(y, clf.decision_function(X))
    return np.exp(np.clip(logit, -30, 30)), auc


def normalized(r, sizes, mode):
    r = np.minimum(r, CLIP * np.median(r))
    parts = np.split(r, np.cumsum(sizes)[:-1])
    if mode == "global":
        return r / r.mean()
    if mode == "within set":
        return np.concatenate([p / p.mean() for p in parts])
    means = np.array([p.mean() for p in parts])
    means = means / np.average(means, weights=sizes)
    return np.concatenate([np.full(len(p), m) for p, m in zip(parts, means)])


def held_out(fs, data, sets, mode, temper, anchored):
    res, aucs, shares = {}, {}, {}
    a = fs.index(ANCHOR) if anchored else None
    for h in sets:
        train = [s for s in sets if s != h]
        X = np.vstack([data[s][0] for s in train])
        mu, sd = np.nan_to_num(np.nanmean(X, 0)), np.nanstd(X, 0)
        sd = np.where(sd > 0, sd, 1)
        z = lambda s: np.nan_to_num((data[s][0] - mu) / sd)
        sizes = [len(data[s][0]) for s in train]
        Ztrain = np.vstack([z(s) for s in train])
        if mode is None:
            r = np.ones(len(Ztrain))
        else:
            raw, aucs[h] = domain_ratios(Ztrain, z(h))
            r = normalized(raw ** temper, sizes, mode)
        parts = np.split(r, np.cumsum(sizes)[:-1])
        shares[h] = [p.sum() / r.sum() for p in parts]
        w = sum(weighted_agreement(z(s), data[s][1], data[s][2], p) for s, p in zip(train, parts))
        if a is not None:
            sign = np.sign(w[a])
            w = w / np.linalg.norm(w)
            w[a] += sign
        res[h] = tw.tau(z(h) @ w, data[h][1], data[h][2])
    return res, aucs, shares


def main():
    tw.work = sys.argv[1]
    only = sys.argv[2:]
    for fam, ref, sets, classes in tw.FAMILIES:
        if only and fam not in only:
            continue
        fs, data = tt.family_data(ref, sets, classes)
        anchors = (False, True) if ANCHOR in fs else (False,)
        for anchored in anchors:
            label = f"{fam}, anchored on the grade" if anchored else fam
            print(f"\n### {label} ({len(fs)} features), held-out summary tau")
            print("| training weights | " + " | ".join(sets) + " | mean |")
            print("|---" * (len(sets) + 2) + "|")
            notes = []
            base, _, _ = held_out(fs, data, sets, None, 1.0, anchored)
            tt.row("none (the twin)", sets, base)
            for mode in MODES:
                for temper in TEMPERS:
                    res, aucs, shares = held_out(fs, data, sets, mode, temper, anchored)
                    tt.row(f"{mode}, ratio^{temper}", sets, res)
                    if mode == "global" and temper == 1.0 and not anchored:
                        for h in sets:
                            train = [s for s in sets if s != h]
                            notes.append(f"{h}: domain AUC {aucs[h]:.3f}; training weight shares "
                                         + ", ".join(f"{s} {x:.2f}" for s, x in zip(train, shares[h])))
            for line in notes:
                print(line)


if __name__ == "__main__":
    main()
