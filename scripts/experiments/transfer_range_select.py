"""Issue 13 probe: drop the features that tell the training corpora apart by their range.

Under leave-one-set-out the held-out sets where the recipes transfer worst are those whose
features leave the training sets' ranges (docs/RESULTS.md, "Features outside the training
range"). A feature whose values on one corpus lie outside the others' range identifies that
corpus; it may be what a model learns one corpus's systems by. So, before training on the sets
other than the held-out one, and without looking at it: for each training set, the features
outside the range of the *other training sets* for at least SHARE of its rows (and at least five,
the threshold of `aesop score`'s warning); drop those features (flagged for any training set),
then fit the numpy twin of aesop's rank-SVM limit on the rest. Printed beside the twin on every
feature, summary-level Kendall tau (mean over topics), per held-out set and the mean.
With --recipes, shipped recipes themselves (aesop, C 1e-4; the classic readability recipes
anchored on the Flesch-Kincaid grade, kept whatever its range; `faithfulness`) trained on the other sets
with the features kept at the 5 % threshold, and with all of them, then scored on the held-out
set (`aesop train`, `aesop score`, `aesop evaluate`).
Usage: transfer_range_select.py WORKDIR [FAMILY ...]   (WORKDIR of scripts/experiments/transfer-weightings)
       transfer_range_select.py WORKDIR --recipes [RECIPE ...]   (the aesop binary: $AESOP, default
           target/release/aesop; RECIPE: readability, readability-noref (the default), faithfulness, whose
           WORKDIR CSVs need `aesop features SET --classes content,surface,neural_truecased
           --neural-references 0` and AESOP_NEURAL_CACHE the LM features)"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import transfer_transforms as tt
import transfer_weightings as tw

SHARES = (0.05, 0.10, 0.20)


def flagged_features(train_sets, share):
    """Columns outside the other training sets' range for >= share (and >= 5) of some set's rows."""
    flagged = np.zeros(train_sets[0][0].shape[1], bool)
    for i, (X, _, _) in enumerate(train_sets):
        others = np.vstack([x for j, (x, _, _) in enumerate(train_sets) if j != i])
        lo, hi = np.nanmin(others, 0), np.nanmax(others, 0)
        outside = ((X < lo) | (X > hi)).sum(0)
        flagged |= (outside >= 5) & (outside >= share * len(X))
    return flagged


def held_out(data, sets, share):
    res, dropped = {}, {}
    for h in sets:
        train = [data[s] for s in sets if s != h]
        keep = ~flagged_features(train, share) if share is not None else np.ones(data[h][0].shape[1], bool)
        dropped[h] = int((~keep).sum())
        X = np.vstack([x for x, _, _ in train])[:, keep]
        mu, sd = np.nan_to_num(np.nanmean(X, 0)), np.nanstd(X, 0)
        sd = np.where(sd > 0, sd, 1)
        z = lambda d: np.nan_to_num((d[0][:, keep] - mu) / sd)
        w = tw.w_centroid([(z(d), d[1], d[2]) for d in train])
        res[h] = tw.tau(z(data[h]) @ w, data[h][1], data[h][2])
    return res, dropped


def main():
    tw.work = sys.argv[1]
    only = sys.argv[2:]
    for name, ref, sets, classes in tw.FAMILIES:
        if only and name not in only:
            continue
        fs, data = tt.family_data(ref, sets, classes)
        print(f"\n### {name} ({len(fs)} features), held-out summary tau")
        print("| features | " + " | ".join(sets) + " | mean |")
        print("|---" * (len(sets) + 2) + "|")
        res, _ = held_out(data, sets, None)
        tt.row("all (numpy twin)", sets, res)
        for share in SHARES:
            res, dropped = held_out(data, sets, share)
            tt.row(f"without those outside for {share:.0%} of a training set (dropped: "
                   + " / ".join(str(dropped[s]) for s in sets) + ")", sets, res)


READABILITY = "surface,entity,syntax,cohmetrix,redundancy,npsyntax,discourse,continuity,lm,alignment"
# The shipped recipes tried in aesop (scripts/build/train-builtin): name -> (target, sets,
# aesop flags, the feature names kept from the CSVs (prefixes), the anchor or None).
RECIPES = {
    "readability": ("readability", {"summeval": "readability", "newsroom": "readability", "dialsummeval": "readability"},
                    ["--classes", READABILITY], [c + "." for c in READABILITY.split(",")],
                    "cohmetrix.flesch_kincaid_grade"),
    "readability-noref": ("readability", {"summeval": "readability", "newsroom": "readability",
                                          "dialsummeval": "readability", "summeval-op": "readability"},
                          ["--classes", READABILITY, "--no-references"], [c + "." for c in READABILITY.split(",")],
                          "cohmetrix.flesch_kincaid_grade"),
    # Needs the `neural_truecased` features in the CSVs and AESOP_NEURAL_CACHE holding them.
    "faithfulness": ("faithfulness", {"summeval": "faithfulness", "dialsummeval": "faithfulness",
                                      "summeval-op": "faithfulness"},
                     ["--classes", "content,surface,neural_truecased", "--neural-references", "0", "--no-references"],
                     ["content.", "surface.", "neural_truecased.pmi_mean", "neural_truecased.src_slor"], None),
}


def recipe_data(name):
    """A shipped recipe's target, sets, flags and anchor, its features in the CSVs and their data."""
    target, sets, flags, prefixes, anchor = RECIPES[name]
    head = set(tw.table(next(iter(sets)))[0])
    for s in sets:
        head &= set(tw.table(s)[0])
    fs = sorted(f for f in head if any(f.startswith(p) for p in prefixes))
    return target, sets, flags, anchor, fs, {s: tw.load(s, sets[s], fs) for s in sets}


def held_out_tau(aesop, tmp, name, features, set_args, held):
    """Train recipe `name` on `set_args` (PATH:COLUMN) with `features` in aesop (C 1e-4), score the
    held-out set and return its summary tau, or the error of `aesop train`."""
    target, sets, flags, _, anchor = RECIPES[name]
    model = os.path.join(tmp, "m.aesop")
    cmd = [aesop, "train", "--learner", "rank-svm", "--c", "0.0001", "--target", target,
           "--features", ",".join(features), "-o", model] + flags
    if anchor:
        cmd += ["--anchor", anchor]
    for arg in set_args:
        cmd += ["--set", arg]
    trained = subprocess.run(cmd, capture_output=True, text=True)
    if trained.returncode != 0:
        return None, trained.stderr.strip()[:300]
    scored = os.path.join(tmp, "p.jsonl")
    subprocess.run([aesop, "score", f"{tw.work}/{held}.jsonl", "--model", f"m={model}", "-o", scored],
                   check=True, capture_output=True)
    report = os.path.join(tmp, "e.json")
    subprocess.run([aesop, "evaluate", scored, "--human", f"{tw.work}/{held}.jsonl", "--target", sets[held],
                    "--bootstrap", "0", "--json", report], check=True, capture_output=True)
    return summary_tau(json.load(open(report))), None


def recipes(aesop, names):
    """The shipped recipes in aesop, all features against those kept at 5 %."""
    for name in names:
        _, sets, _, anchor, fs, data = recipe_data(name)
        print(f"\n### `{name}` recipe (aesop{', anchored' if anchor else ''}), held-out summary tau")
        print("| features | " + " | ".join(sets) + " | mean |")
        print("|---" * (len(sets) + 2) + "|")
        rows = {"all": {}, "kept": {}}
        dropped = {}
        with tempfile.TemporaryDirectory() as tmp:
            for h in sets:
                train = [s for s in sets if s != h]
                flagged = flagged_features([data[s] for s in train], 0.05)
                kept = [f for f, out in zip(fs, flagged) if not out or f == anchor]
                dropped[h] = [f for f, out in zip(fs, flagged) if out and f != anchor]
                for label, features in (("all", fs), ("kept", kept)):
                    tau, error = held_out_tau(aesop, tmp, name, features,
                                              [f"{tw.work}/{s}.jsonl:{sets[s]}" for s in train], h)
                    if error:
                        # E.g. every kept column constant: nothing left to learn from.
                        print(f"- {label}, held out {h}: aesop train failed: {error}")
                    rows[label][h] = float("nan") if tau is None else tau
        tt.row("all features (the shipped recipe)", sets, rows["all"])
        tt.row("without those outside for 5% of a training set", sets, rows["kept"])
        for h in sets:
            print(f"- held out {h}: dropped {len(dropped[h])} of {len(fs)}: {', '.join(dropped[h]) or 'none'}")


def summary_tau(report):
    """The summary-level Kendall tau of an `aesop evaluate --json` report."""
    return report["statistics"]["summary"]["kendall"]


if __name__ == "__main__":
    if sys.argv[2:3] == ["--recipes"]:
        tw.work = sys.argv[1]
        recipes(os.environ.get("AESOP", "target/release/aesop"), sys.argv[3:] or ["readability", "readability-noref"])
    else:
        main()
