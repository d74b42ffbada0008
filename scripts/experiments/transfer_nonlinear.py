"""Issue 13 probe: do non-linear learners transfer better than the linear rank-SVM under leave-one-set-out?
Boosted trees (scikit-learn's histogram gradient boosting on within-topic targets, with and
without monotone constraints; LightGBM's LambdaRank grouped by topic) against the numpy twin of
aesop's rank-SVM limit, on the same features, the same held-out sets and the same statistic
(summary-level Kendall tau-b, mean over topics, as `aesop evaluate`). Hyperparameters are fixed
below, chosen before any held-out figure was seen; nothing is tuned on a held-out set.
With --protocol1, the same learners in set instead: protocol 1's topic x system folds (5 x 4,
fold seeds 1-5, our own shuffle, the same folds for every learner) on one set and column.
Run by scripts/experiments/transfer-weightings --nonlinear, which writes the features.
Usage: transfer_nonlinear.py WORKDIR FAMILY ...   (WORKDIR holds SET.jsonl and SET.csv)
       transfer_nonlinear.py WORKDIR --protocol1 FAMILY SET COLUMN"""
import sys

import numpy as np

import transfer_transforms as tt
import transfer_weightings as tw

FAMILIES = {name: (ref, sets, classes) for name, ref, sets, classes in tw.FAMILIES}
SEED = 1
# Small trees, slow learning, large leaves: the few-thousand-row training pools of three or four
# corpora, where a deep tree would learn which corpus a summary comes from.
GBM = dict(max_depth=3, max_iter=200, learning_rate=0.05, min_samples_leaf=50, l2_regularization=1.0)
# The anchors of the shipped recipes (scripts/build/train-builtin); the anchored learners start
# from the anchor's within-topic z-score, signed by its agreement over the training sets, and
# boost from there (fewer rounds, so the anchor stays the larger part).
ANCHORS = {"readability": "cohmetrix.flesch_kincaid_grade", "readability-noref": "cohmetrix.flesch_kincaid_grade"}
ANCHORED_ROUNDS = 60
LAMBDARANK = dict(n_estimators=200, learning_rate=0.05, num_leaves=7, min_child_samples=50,
                  reg_lambda=1.0, subsample=0.8, subsample_freq=1, colsample_bytree=0.8, verbose=-1)


def within_topic(X, T, scale=True):
    """Each column centred (and scaled) within its topic, so no level identifies the corpus."""
    Z = np.full_like(X, np.nan, dtype=float)
    for t in np.unique(T):
        m = T == t
        block = X[m]
        mu = np.nanmean(block, 0)
        Z[m] = block - mu
        if scale:
            sd = np.nanstd(block, 0)
            Z[m] /= np.where(sd > 0, sd, 1)
    return Z


def grades(Y, T):
    """Within-topic dense ranks of the human score (0 = worst), the integer labels LambdaRank needs."""
    G = np.zeros(len(Y), int)
    for t in np.unique(T):
        m = np.where(T == t)[0]
        _, inv = np.unique(Y[m], return_inverse=True)
        G[m] = inv
    return G


def family_data(ref, sets, classes):
    """transfer_transforms' features of the family, each topic named by its set as well, so no
    two sets share a topic."""
    fs, data = tt.family_data(ref, sets, classes)
    return fs, {s: (x, y, np.array([f"{s}/{t}" for t in topics])) for s, (x, y, topics) in data.items()}


def learners(anchor):
    """(label, learn) pairs; learn(train, held) gives the held-out scores. `anchor` is the
    anchor's column index, or None."""
    from lightgbm import LGBMRanker, LGBMRegressor
    from sklearn.ensemble import HistGradientBoostingRegressor

    def linear(train, held, topic_z):
        X = np.vstack([x for x, _, _ in train])
        if topic_z:
            prep = lambda x, t: np.nan_to_num(within_topic(x, t))
            Zs = [(prep(x, t), y, t) for x, y, t in train]
            Zh = prep(held[0], held[2])
        else:
            mu, sd = np.nan_to_num(np.nanmean(X, 0)), np.nanstd(X, 0)
            sd = np.where(sd > 0, sd, 1)
            Zs = [(np.nan_to_num((x - mu) / sd), y, t) for x, y, t in train]
            Zh = np.nan_to_num((held[0] - mu) / sd)
        return Zh @ tw.w_centroid(Zs)

    def pooled(train):
        X = np.vstack([within_topic(x, t) for x, _, t in train])
        Y = np.concatenate([within_topic(y[:, None], t)[:, 0] for _, y, t in train])
        T = np.concatenate([t for _, _, t in train])
        return X, np.nan_to_num(Y), T

    def gbm(train, held, monotone):
        X, Y, T = pooled(train)
        params = dict(GBM, random_state=SEED)
        if monotone:
            # Each feature may only move the score the way it agrees with the humans over the
            # pooled training sets (the non-linear form of "Sign constraints" in docs/PROBES.md).
            g, _ = tw.agreement(np.nan_to_num(X), Y, T)
            params["monotonic_cst"] = np.sign(g).astype(int).tolist()
        model = HistGradientBoostingRegressor(**params).fit(X, Y)
        return model.predict(within_topic(held[0], held[2]))

    def lambdarank(train, held):
        X, _, T = pooled(train)
        G = np.concatenate([grades(y, t) for _, y, t in train])
        order = np.argsort(T, kind="stable")  # LightGBM wants each group's rows together
        _, sizes = np.unique(T[order], return_counts=True)
        top = int(G.max()) + 1
        model = LGBMRanker(objective="lambdarank", label_gain=list(range(top)),
                           lambdarank_truncation_level=top, random_state=SEED, **LAMBDARANK)
        # np.unique sorts the names, as argsort did, so the group sizes follow the rows.
        model.fit(X[order], G[order], group=sizes)
        return model.predict(within_topic(held[0], held[2]))

    def anchor_start(train, held):
        X, Y, T = pooled(train)
        a = np.nan_to_num(X[:, anchor])
        sign = np.sign(tw.agreement(a[:, None], Y, T)[0][0])
        return X, Y, T, sign * a, sign * np.nan_to_num(within_topic(held[0][:, [anchor]], held[2])[:, 0])

    def anchored_gbm(train, held):
        X, Y, T, start, held_start = anchor_start(train, held)
        g, _ = tw.agreement(np.nan_to_num(X), Y, T)
        model = LGBMRegressor(n_estimators=ANCHORED_ROUNDS, learning_rate=0.05, num_leaves=7,
                              min_child_samples=50, reg_lambda=1.0, monotone_constraints=np.sign(g).astype(int).tolist(),
                              random_state=SEED, verbose=-1)
        model.fit(X, Y, init_score=start)
        return held_start + model.predict(within_topic(held[0], held[2]))

    def anchored_lambdarank(train, held):
        X, Y, T, start, held_start = anchor_start(train, held)
        G = np.concatenate([grades(y, t) for _, y, t in train])
        order = np.argsort(T, kind="stable")
        _, sizes = np.unique(T[order], return_counts=True)
        top = int(G.max()) + 1
        params = dict(LAMBDARANK, n_estimators=ANCHORED_ROUNDS)
        model = LGBMRanker(objective="lambdarank", label_gain=list(range(top)),
                           lambdarank_truncation_level=top, random_state=SEED, **params)
        model.fit(X[order], G[order], group=sizes, init_score=start[order])
        return held_start + model.predict(within_topic(held[0], held[2]))

    def anchor_alone(train, held):
        return anchor_start(train, held)[4]

    anchored = [] if anchor is None else [
        ("the anchor alone (signed by the training sets)", anchor_alone),
        (f"boosted trees from the anchor, monotone, {ANCHORED_ROUNDS} rounds", anchored_gbm),
        (f"LambdaRank from the anchor, {ANCHORED_ROUNDS} rounds", anchored_lambdarank),
    ]
    return [
        ("linear rank-SVM limit (pooled z, numpy twin)", lambda tr, h: linear(tr, h, False)),
        ("linear rank-SVM limit, topic-z", lambda tr, h: linear(tr, h, True)),
        ("boosted trees, regression on topic-z target", lambda tr, h: gbm(tr, h, False)),
        ("boosted trees, monotone in the training signs", lambda tr, h: gbm(tr, h, True)),
        ("LambdaRank (LightGBM), grouped by topic", lambdarank),
    ] + anchored


def run(name):
    ref, sets, classes = FAMILIES[name]
    fs, data = family_data(ref, sets, classes)
    anchor = fs.index(ANCHORS[name]) if name in ANCHORS else None
    print(f"\n### {name} ({len(fs)} features), held-out summary tau", flush=True)
    print("| learner | " + " | ".join(sets) + " | mean |")
    print("|---" * (len(sets) + 2) + "|")

    def row(label, res):
        tt.row(label, sets, res)

    best = {}
    for s in sets:
        sing = [f for f in tw.SINGLES if f in tw.table(s)[0] and (ref or not f.startswith("rouge."))]
        X, Y, T = tw.load(s, sets[s], sing)
        best[s] = max(abs(tw.tau(X[:, i], Y, T)) for i in range(len(sing)))
    row("best of JS / ROUGE-1 R / F (hindsight)" if ref else "JS (hindsight sign)", best)
    for label, learn in learners(anchor):
        res = {}
        for h in sets:
            train = [data[s] for s in sets if s != h]
            res[h] = tw.tau(learn(train, data[h]), data[h][1], data[h][2])
        row(label, res)


def protocol1(name, held, column, seeds=(1, 2, 3, 4, 5), topic_folds=5, system_folds=4):
    """Mean out-of-fold summary tau over fold seeds of every learner on one set, in set."""
    ref, _, classes = FAMILIES[name]
    fs, data = family_data(ref, {held: column}, classes)
    anchor = fs.index(ANCHORS[name]) if name in ANCHORS else None
    X, Y, T = data[held]
    systems = np.array([k[1] for k in judgment_keys(held, column)])
    print(f"\n### {name} recipe's classes on {held} `{column}` in set ({len(fs)} features), protocol 1, "
          f"{topic_folds} x {system_folds} folds, mean over seeds {', '.join(map(str, seeds))}", flush=True)
    print("| learner | " + " | ".join(f"seed {s}" for s in seeds) + " | mean |")
    print("|---" * (len(seeds) + 2) + "|")
    for label, learn in learners(anchor):
        taus = []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            tf = {t: i % topic_folds for i, t in enumerate(rng.permutation(np.unique(T)))}
            sf = {y: i % system_folds for i, y in enumerate(rng.permutation(np.unique(systems)))}
            ft, fsys = np.array([tf[t] for t in T]), np.array([sf[y] for y in systems])
            out = np.full(len(Y), np.nan)
            for a in range(topic_folds):
                for b in range(system_folds):
                    test = (ft == a) & (fsys == b)
                    train = (ft != a) & (fsys != b)
                    if test.any():
                        out[test] = learn([(X[train], Y[train], T[train])], (X[test], Y[test], T[test]))
            taus.append(tw.tau(out, Y, T))
        print(f"| {label} | " + " | ".join(f"{t:.3f}" for t in taus) + f" | {np.mean(taus):.3f} |", flush=True)


def judgment_keys(name, target):
    """(topic, system) of each row `tw.load` returns for the set, in its order."""
    head, rows = tw.table(name)
    y = tw.judgments(name)
    return [(r[0], r[1]) for r in rows if y.get((r[0], r[1]), {}).get(target) is not None]


if __name__ == "__main__":
    tw.work = sys.argv[1]
    if sys.argv[2:3] == ["--protocol1"]:
        protocol1(*sys.argv[3:6])
    else:
        for fam in sys.argv[2:]:
            run(fam)
