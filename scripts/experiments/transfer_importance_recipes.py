"""Issue 13 probe, the shipped recipes: each training set weighted by how much it resembles the
held-out corpus (the "per set" rows of transfer_importance.py), in aesop itself.

For each held-out set, the domain classifier of transfer_importance.py (on the recipe's features,
standardized on the training sets) gives each training set the mean density ratio of its rows;
aesop then trains the shipped recipe with each training set given round(ratio / smallest ratio)
times (`--set` repeated under another file name; aesop's own `--equal-set-weights` weighs sets by
the same repetition, each copy's topics apart), and scores and evaluates the held-out set. Printed
beside the same recipe with every set once (the shipped recipe's held-out figures) and with every
set repeated as often as the most repeated one (a control: repeats also weigh the data against the
anchor and the penalty).
Usage: transfer_importance_recipes.py WORKDIR [RECIPE ...]   (WORKDIR of scripts/experiments/transfer-weightings;
       RECIPE of transfer_range_select.py: readability, readability-noref (the defaults), faithfulness;
       the aesop binary: $AESOP, default target/release/aesop)"""
import json
import os
import sys
import tempfile

import numpy as np

import transfer_importance as ti
import transfer_range_select as rs
import transfer_transforms as tt
import transfer_weightings as tw


def copy_with_topics_renamed(source, path, k):
    """A repeat of a set whose topic ids end in #k (aesop refuses a set given twice)."""
    with open(source) as inp, open(path, "w") as out:
        for line in inp:
            topic = json.loads(line)
            topic["topic"] = f"{topic['topic']}#{k}"
            out.write(json.dumps(topic) + "\n")


def set_weights(data, train, held):
    X = np.vstack([data[s][0] for s in train])
    mu, sd = np.nan_to_num(np.nanmean(X, 0)), np.nanstd(X, 0)
    sd = np.where(sd > 0, sd, 1)
    z = lambda s: np.nan_to_num((data[s][0] - mu) / sd)
    sizes = [len(data[s][0]) for s in train]
    raw, _ = ti.domain_ratios(np.vstack([z(s) for s in train]), z(held))
    r = ti.normalized(raw, sizes, "per set")
    means = [p[0] for p in np.split(r, np.cumsum(sizes)[:-1])]
    return {s: max(1, round(m / min(means))) for s, m in zip(train, means)}


def main():
    tw.work = sys.argv[1]
    aesop = os.environ.get("AESOP", "target/release/aesop")
    for name in sys.argv[2:] or ["readability", "readability-noref"]:
        _, sets, _, anchor, fs, data = rs.recipe_data(name)
        print(f"\n### `{name}` recipe (aesop{', anchored' if anchor else ''}), held-out summary tau")
        print("| training sets | " + " | ".join(sets) + " | mean |")
        print("|---" * (len(sets) + 2) + "|")
        rows, copies = {"once": {}, "weighted": {}, "control": {}}, {}
        with tempfile.TemporaryDirectory() as tmp:
            for h in sets:
                train = [s for s in sets if s != h]
                copies[h] = set_weights(data, train, h)
                for label in rows:
                    set_args = []
                    for s in train:
                        times = {"once": 1, "weighted": copies[h][s], "control": max(copies[h].values())}[label]
                        for k in range(times):
                            path = f"{tw.work}/{s}.jsonl"
                            if k:
                                path = os.path.join(tmp, f"{s}.copy{k}.jsonl")
                                copy_with_topics_renamed(f"{tw.work}/{s}.jsonl", path, k)
                            set_args.append(f"{path}:{sets[s]}")
                    tau, error = rs.held_out_tau(aesop, tmp, name, fs, set_args, h)
                    if error:
                        sys.exit(f"aesop train failed: {error}")
                    rows[label][h] = tau
        tt.row("each once (the shipped recipe)", sets, rows["once"])
        tt.row("repeated by the domain classifier's set weight", sets, rows["weighted"])
        tt.row("every set repeated as often as the most repeated one (control)", sets, rows["control"])
        for h in sets:
            print(f"- held out {h}: " + ", ".join(f"{s} x{k}" for s, k in copies[h].items()))


if __name__ == "__main__":
    main()
