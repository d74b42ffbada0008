"""Issue 13: an invariant direction for the rank-SVM at small C (a probe; docs/PROBES.md,
"Invariant directions", stop 56).

aesop's rank-SVM at the built-ins' small C sits at its limit: each standardized feature weighted
by its within-topic pairwise agreement with the target, pooled over the training sets
(`transfer_weightings.w_centroid`). The training sets disagree (Newsroom follows JS against the
source, REALSumm ROUGE-1 recall), and the pooled direction follows whichever set has most pairs.
Risk extrapolation (V-REx, Krueger et al. 2021) asks instead for a model whose loss is the same on
every training set. For a pairwise logistic loss near w = 0 (the small-C regime) the loss of set e
is log 2 - w.g_e / 2 + O(|w|^2), g_e the set's mean pair difference (its agreement vector), so
the V-REx objective  sum_e p_e L_e + beta Var_e(L_e) + (alpha/2)|w|^2  has the closed-form minimum

    w(lambda) = (I + lambda * S / |S|)^-1 g,   g = sum_e p_e g_e,   S = sum_e p_e (g_e - g)(g_e - g)^T

(lambda = beta / (2 alpha) up to the scale of S; p_e: each set's share of the pairs, as the
rank-SVM pools them, or equal). lambda = 0 is the shipped limit; as lambda grows the weights lose
the directions along which the training sets' agreements differ, and tend to the direction of g
whose agreement is equal on every training set. Leave-one-set-out, summary-level tau of each
held-out set, every family of `transfer_weightings` (features from scripts/experiments/
transfer-weightings, which must have run once).

Usage: transfer_invariant.py WORKDIR [FAMILY ...]   (numpy, scipy)"""
import sys

import numpy as np

import transfer_weightings as tw
from transfer_transforms import family_data, held_out, row

LAMBDAS = (0.0, 0.3, 1.0, 3.0, 10.0, 100.0, 1e4)


def invariant_weights(Zs, lam, equal):
    stats = [tw.agreement(*z) for z in Zs]
    G = np.array([g / n for g, n in stats])
    p = np.ones(len(stats)) if equal else np.array([float(n) for _, n in stats])
    p = p / p.sum()
    g = p @ G
    D = G - g
    S = (D * p[:, None]).T @ D
    scale = np.linalg.norm(S, 2)
    if lam == 0 or scale == 0:
        return g
    return np.linalg.solve(np.eye(len(g)) + lam * S / scale, g)


def run(fam, ref, sets, classes):
    fs, data = family_data(ref, sets, classes)
    print(f"\n### {fam} ({len(fs)} features), held-out summary tau")
    print("| weighting | " + " | ".join(sets) + " | mean |")
    print("|---" * (len(sets) + 2) + "|")
    for equal in (False, True):
        for lam in LAMBDAS:
            name = (f"lambda {lam:g}" + (", equal set weights" if equal else "")
                    + (" (the shipped limit)" if lam == 0 and not equal else ""))
            weight = lambda Zs, lam=lam, equal=equal: invariant_weights(Zs, lam, equal)
            row(name, sets, held_out(data, sets, None, weight))


if __name__ == "__main__":
    tw.work = sys.argv[1]
    only = sys.argv[2:]
    for fam in tw.FAMILIES:
        if not only or fam[0] in only:
            run(*fam)
