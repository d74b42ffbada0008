"""Transductive consensus on the held-out corpus (probe; numpy, no aesop change).

Issue 13's ceiling (transfer-ceiling) says no fixed linear model beats the best single feature
on every held-out set: each corpus's raters reward a different mixture. This probe asks whether
the held-out corpus's own unlabelled features can choose the mixture. The built-in recipe's
held-out score and a few classic single features are treated as noisy judges of one hidden
quality; a one-factor model fitted to their within-topic covariance on the held-out set alone
(no judgments) says how much each judge shares with the others, and the factor score weighs
them by it (Bartlett: loading / uniqueness). Each classic feature's sign comes from the training
sets' judgments, never the held-out set's.

Usage: transfer_consensus.py WEIGHTINGS_DIR BUILTIN_DIR [RECIPE ...]
  WEIGHTINGS_DIR holds SET.jsonl and SET.csv (scripts/experiments/transfer-weightings),
  BUILTIN_DIR holds RECIPE.loso.jsonl (scripts/build/train-builtin)."""
import json, sys
import numpy as np
import transfer_weightings as tw

RECIPES = {
    "responsiveness": (True, {"summeval": "responsiveness", "newsroom": "responsiveness", "dialsummeval": "responsiveness", "realsumm": "pyramid"}),
    "responsiveness-noref": (False, {"summeval": "responsiveness", "newsroom": "responsiveness", "dialsummeval": "responsiveness", "realsumm": "pyramid", "summeval-op": "responsiveness"}),
    "readability": (True, {"summeval": "readability", "newsroom": "readability", "dialsummeval": "readability"}),
    "readability-noref": (False, {"summeval": "readability", "newsroom": "readability", "dialsummeval": "readability", "summeval-op": "readability"}),
}
# The judges beside the model: the issue's classic features, and a broader list with length and
# copying (the two levels that differ most between corpora).
CLASSIC_REF = ["content.js", "rouge.r1_recall", "rouge.r1_f"]
CLASSIC_NOREF = ["content.js"]
BROAD = ["surface.summary_tokens", "surface.density"]


def held_out_scores(builtin, recipe):
    out = {}
    for line in open(f"{builtin}/{recipe}.loso.jsonl"):
        r = json.loads(line)
        out[(r["set"].removesuffix(".jsonl"), r["topic"], r["system"])] = r["raw"]
    return out


def topic_z(X, T):
    Z = np.zeros_like(X)
    for t in np.unique(T):
        m = T == t
        sd = X[m].std(0)
        Z[m] = (X[m] - X[m].mean(0)) / np.where(sd > 0, sd, 1)
    return Z


def one_factor(Z, iters=200):
    """Loadings of a one-factor model fitted to the correlation matrix of Z's columns (principal
    axis factoring: the diagonal replaced by communalities until they settle)."""
    R = np.corrcoef(Z, rowvar=False)
    h = np.clip(np.max(np.abs(R - np.eye(len(R))), 0), 0.05, 0.995)
    for _ in range(iters):
        A = R.copy()
        np.fill_diagonal(A, h)
        vals, vecs = np.linalg.eigh(A)
        lam = vecs[:, -1] * np.sqrt(max(vals[-1], 0))
        h_new = np.clip(lam**2, 0.05, 0.995)
        if np.max(np.abs(h_new - h)) < 1e-6:
            break
        h = h_new
    return lam * np.sign(lam[0])  # the model's loading positive


def run(recipe, builtin):
    ref, sets = RECIPES[recipe]
    scores = held_out_scores(builtin, recipe)
    classic = CLASSIC_REF if ref else CLASSIC_NOREF
    lists = [("model + classic", classic), ("model + classic + length, density", classic + BROAD)]
    print(f"\n### {recipe}, held-out summary tau")
    print("| ranking | " + " | ".join(sets) + " | mean |")
    print("|---" * (len(sets) + 2) + "|")
    def row(name, res):
        print(f"| {name} | " + " | ".join(f"{res[s]:.3f}" for s in sets) + f" | {np.mean(list(res.values())):.3f} |", flush=True)
    feats = classic + BROAD
    data = {}
    for s in sets:
        X, Y, T = tw.load(s, sets[s], feats)
        head, rows = tw.table(s)
        keys = [(r[0], r[1]) for r in rows if tw.judgments(s).get((r[0], r[1]), {}).get(sets[s]) is not None]
        m = np.array([scores[(s, t, y)] for t, y in keys])
        data[s] = (np.column_stack([m, np.nan_to_num(X)]), Y, T)
    row("the recipe (held out)", {s: tw.tau(data[s][0][:, 0], data[s][1], data[s][2]) for s in sets})
    best = {s: max(abs(tw.tau(data[s][0][:, 1 + i], data[s][1], data[s][2])) for i in range(len(classic))) for s in sets}
    row("best classic single (hindsight)", best)
    for name, cands in lists:
        idx = [0] + [1 + feats.index(f) for f in cands]
        res_fa, res_eq, loads = {}, {}, {}
        for h in sets:
            train = [s for s in sets if s != h]
            # each classic judge's sign from the training sets' judgments
            sign = np.ones(len(idx))
            for j, i in enumerate(idx[1:], 1):
                g = sum(tw.agreement(topic_z(data[s][0][:, [i]], data[s][2]), data[s][1], data[s][2])[0][0] for s in train)
                sign[j] = 1.0 if g >= 0 else -1.0
            X, Y, T = data[h]
            Z = topic_z(X[:, idx], T) * sign
            lam = one_factor(Z)
            w = lam / np.maximum(1 - lam**2, 0.005)
            res_fa[h] = tw.tau(Z @ w, Y, T)
            res_eq[h] = tw.tau(Z.sum(1), Y, T)
            loads[h] = lam
        row(f"{name}: equal weights", res_eq)
        row(f"{name}: one-factor score", res_fa)
        for h in sets:
            print(f"|   loadings on {h} | " + ", ".join(f"{c} {l:+.2f}" for c, l in zip(["model"] + cands, loads[h])) + " |")


if __name__ == "__main__":
    tw.work = sys.argv[1]
    for recipe in sys.argv[3:] or list(RECIPES):
        run(recipe, sys.argv[2])
