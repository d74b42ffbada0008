"""Issue 13: the direction that does best on the worst training set (a probe; docs/PROBES.md,
"The worst training set's direction", stop 58).

At the built-ins' small C aesop's rank-SVM sits at its limit: each standardized feature weighted
by its within-topic pairwise agreement with the target, pooled over the training sets
(`transfer_weightings.w_centroid`), so the set with most pairs leads. Group DRO (Sagawa et al.
2020) asks instead for the model whose worst training set does best. In the same small-C limit
the agreement of set e with weights w is w.g_e (g_e: the set's mean pair difference of the
standardized features), and the direction that maximizes the worst set's agreement,

    w* = argmax_{|w| <= 1} min_e w.g_e,

is by minimax duality the minimum-norm point of the convex hull of the g_e: w* = sum_e p_e g_e
with p = argmin_{p in simplex} |sum_e p_e g_e| (computed here by non-negative least squares with
the simplex constraint as a heavily weighted row). Unlike V-REx (transfer_invariant.py), which
shrinks the directions along which the sets differ, this one leans towards the sets the pooled
direction serves worst, and stops as soon as every training set agrees equally. When the hull
holds 0 (no direction agrees with every training set) the point is near 0 and its direction is
noise; the script says so (the worst training set's agreement, "margin", is then <= 0).

Rows: the pooled direction (the shipped limit), the sets' centroid (equal set weights), the
maximin direction, and halfway between the maximin and the pooled direction (each normalized).
Leave-one-set-out, summary-level tau of each held-out set, every family of `transfer_weightings`
(features from scripts/experiments/transfer-weightings, which must have run once).

Usage: transfer_maximin.py WORKDIR [FAMILY ...]   (numpy, scipy)"""
import sys

import numpy as np
from scipy.optimize import nnls

import transfer_weightings as tw
from transfer_transforms import family_data, held_out, row

margins = []


def set_agreements(Zs):
    return np.array([g / n for g, n in (tw.agreement(*z) for z in Zs)])


def maximin_weights(Zs):
    G = set_agreements(Zs)
    big = 1e3 * max(np.linalg.norm(G, axis=1).max(), 1e-12)
    A = np.vstack([G.T, big * np.ones((1, len(G)))])
    b = np.concatenate([np.zeros(G.shape[1]), [big]])
    p, _ = nnls(A, b)
    p = p / p.sum()
    w = p @ G
    norm = np.linalg.norm(w)
    margins.append((G @ w).min() / norm if norm > 0 else 0.0)
    return w


def unit(w):
    n = np.linalg.norm(w)
    return w / n if n > 0 else w


def run(fam, ref, sets, classes):
    fs, data = family_data(ref, sets, classes)
    print(f"\n### {fam} ({len(fs)} features), held-out summary tau")
    print("| weighting | " + " | ".join(sets) + " | mean |")
    print("|---" * (len(sets) + 2) + "|")
    row("pooled (the shipped limit)", sets, held_out(data, sets, None, tw.w_centroid))
    row("equal set weights (centroid)", sets,
        held_out(data, sets, None, lambda Zs: set_agreements(Zs).mean(0)))
    margins.clear()
    row("maximin (worst training set)", sets, held_out(data, sets, None, maximin_weights))
    print("worst training set's agreement per held-out set: "
          + ", ".join(f"{s} {m:.4f}" for s, m in zip(sets, margins)))
    half = lambda Zs: unit(maximin_weights(Zs)) + unit(tw.w_centroid(Zs))
    row("halfway (maximin + pooled)", sets, held_out(data, sets, None, half))


if __name__ == "__main__":
    tw.work = sys.argv[1]
    only = sys.argv[2:]
    for fam in tw.FAMILIES:
        if not only or fam[0] in only:
            run(*fam)
