"""Issue 13 probe: train the ranker on pairs of summaries of about the same length.

On three visible sets summary length alone orders most of the pairs the annotators order
(Newsroom .819, SummEval-OP .768, DialSummEval .741), on SummEval barely (.542), and among pairs
of matched length it orders nothing anywhere (docs/RESULTS.md, "At matched length"). Many
features move with length (JS, ROUGE recall, the graph's and the entity grid's counts), so a
ranker trained on every pair learns each of them partly as a stand-in for length, with the
weight length earns in its training sets; a held-out set where length matters more or less gets
the wrong mixture. Trained only on the pairs whose word counts are close, the other features'
weights say what orders summaries beyond length, and length can get its own weight from all
pairs. Where summaries have one length (the TAC and DUC tasks cap them at 100 or 250 words) only
that part of a model can work.

Variants, each the numpy twin of aesop's rank-SVM at small C (`transfer_weightings.w_centroid`:
each standardized feature weighted by its mean within-topic pairwise agreement with the target):
- every pair (the twin of the shipped recipes);
- matched pairs only: word counts within TOL of the longer one (`surface.summary_tokens`);
- matched pairs for every feature but length, whose weight is its agreement over all pairs
  (the two parts on one scale, a mean over each part's pairs);
- every pair weighted by exp(-|log(n_i / n_j)| / S): a soft version of the cut;
- matched pairs (within 20 %) that are also matched in extractive fragment density
  (`surface.density`, |log(d_i / d_j)| <= DENSITY_TOLS): does a second corpus-bound trait help?
Readability families also get the anchored rows of the shipped classic recipes (the
Flesch-Kincaid grade, signed on the training pairs, plus the unit-norm direction). Each row gives
held-out summary tau per set and the pairwise accuracy over the held-out pairs of matched length
(within 10 %, as `aesop evaluate` counts it; a tie counts half). The grid (TOLS, SCALES) is fixed
before any held-out figure. docs/PROBES.md, "Pairs of matched length".

Usage: transfer_length_pairs.py WORKDIR [FAMILY ...]   (the features of
       scripts/experiments/transfer-weightings, e.g. bench-out/weightings; numpy and scipy)"""
import sys

import numpy as np

import transfer_weightings as tw
from transfer_transforms import family_data

LENGTH = "surface.summary_tokens"
DENSITY = "surface.density"
DENSITY_TOLS = (0.3, 0.5, 1.0)
ANCHOR = "cohmetrix.flesch_kincaid_grade"
TOLS = (0.1, 0.2, 0.3)
SCALES = (0.1, 0.25)
EVAL_TOL = 0.1


def pair_weights(n, rule, d=None):
    """Weights of the pairs (i, j) of one topic whose word counts are n (and densities d), under rule."""
    a, b = n[:, None], n[None, :]
    if rule is None:
        return np.ones((len(n), len(n)))
    kind, x = rule[:2]
    if kind == "cut":
        w = (np.abs(a - b) <= x * np.maximum(a, b)).astype(float)
        if len(rule) > 2:
            dd = np.maximum(np.nan_to_num(d), 1e-3)
            w = w * (np.abs(np.log(dd[:, None] / dd[None, :])) <= rule[2])
        return w
    return np.exp(-np.abs(np.log(np.maximum(a, 1) / np.maximum(b, 1))) / x)


def mean_agreement(Zs, raw, fs, rule):
    """Mean over the weighted, ordered pairs of sign(y_i - y_j) (z_i - z_j) / 2, pooled over sets;
    raw: each training set's unstandardized rows (for the word counts and densities)."""
    li, di = fs.index(LENGTH), fs.index(DENSITY)
    g, total = 0.0, 0.0
    for (Z, Y, T), X in zip(Zs, raw):
        n, d = X[:, li], X[:, di]
        for t in np.unique(T):
            m = np.where(T == t)[0]
            pair = pair_weights(n[m], rule, d[m]) * np.sign(Y[m][:, None] - Y[m][None, :])
            g = g + (pair.sum(1)[:, None] * Z[m]).sum(0)
            total += np.abs(pair).sum()
    return g / max(total, 1e-12)


def matched_accuracy(score, Y, T, n, tol=EVAL_TOL):
    right, count = 0.0, 0
    for t in np.unique(T):
        m = np.where(T == t)[0]
        for x in range(len(m)):
            for y in range(x + 1, len(m)):
                i, j = m[x], m[y]
                if Y[i] == Y[j] or abs(n[i] - n[j]) > tol * max(n[i], n[j]):
                    continue
                count += 1
                d = (score[i] - score[j]) * (Y[i] - Y[j])
                right += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
    return right / max(count, 1)


def held_out(fs, data, sets, weigh, anchored):
    li = fs.index(LENGTH)
    a = fs.index(ANCHOR) if anchored else None
    tau, acc = {}, {}
    for h in sets:
        train = [s for s in sets if s != h]
        z = tw.standardized(data, train)
        w = weigh([z(s) for s in train], [data[s][0] for s in train], fs)
        if a is not None:
            sign = np.sign(w[a]) or 1.0
            w = w / np.linalg.norm(w)
            w[a] += sign
        Z, Y, T = z(h)
        tau[h] = tw.tau(Z @ w, Y, T)
        acc[h] = matched_accuracy(Z @ w, Y, T, data[h][0][:, li])
    return tau, acc


def variants():
    out = [("every pair (the twin)", lambda Zs, raw, fs: mean_agreement(Zs, raw, fs, None))]
    for tol in TOLS:
        out.append((f"matched pairs only (within {tol:.0%})",
                    lambda Zs, raw, fs, tol=tol: mean_agreement(Zs, raw, fs, ("cut", tol))))
    for tol in TOLS:
        def split(Zs, raw, fs, tol=tol):
            w = mean_agreement(Zs, raw, fs, ("cut", tol))
            li = fs.index(LENGTH)
            w[li] = mean_agreement(Zs, raw, fs, None)[li]
            return w
        out.append((f"matched pairs (within {tol:.0%}), length from every pair", split))
    for scale in SCALES:
        out.append((f"every pair, weight exp(-|log length ratio| / {scale})",
                    lambda Zs, raw, fs, scale=scale: mean_agreement(Zs, raw, fs, ("soft", scale))))
    for dtol in DENSITY_TOLS:
        out.append((f"matched pairs (within 20%) and density (|log ratio| <= {dtol})",
                    lambda Zs, raw, fs, dtol=dtol: mean_agreement(Zs, raw, fs, ("cut", 0.2, dtol))))
    return out


def main():
    tw.work = sys.argv[1]
    only = sys.argv[2:]
    for fam, ref, sets, classes in tw.FAMILIES:
        if only and fam not in only:
            continue
        fs, data = family_data(ref, sets, classes)
        for anchored in (False, True) if ANCHOR in fs else (False,):
            label = f"{fam}, anchored on the grade" if anchored else fam
            print(f"\n### {label} ({len(fs)} features): held-out summary tau | matched-length accuracy")
            print("| training pairs | " + " | ".join(sets) + " | mean τ | mean acc. |")
            print("|---" * (len(sets) + 3) + "|")
            for name, weigh in variants():
                tau, acc = held_out(fs, data, sets, weigh, anchored)
                cells = " | ".join(f"{tau[s]:.3f} / {acc[s]:.3f}" for s in sets)
                print(f"| {name} | {cells} | {np.mean(list(tau.values())):.3f} | "
                      f"{np.mean(list(acc.values())):.3f} |", flush=True)


if __name__ == "__main__":
    main()
