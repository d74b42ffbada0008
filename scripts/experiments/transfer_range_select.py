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
With --recipes, the shipped classic readability recipes themselves (aesop, anchored on the
Flesch-Kincaid grade, C 1e-4; the anchor is kept whatever its range) trained on the other sets
with the features kept at the 5 % threshold, and with all of them, then scored on the held-out
set (`aesop train`, `aesop score`, `aesop evaluate`).
Usage: transfer_range_select.py WORKDIR [FAMILY ...]   (WORKDIR of scripts/experiments/transfer-weightings)
       transfer_range_select.py WORKDIR --recipes [AESOP]   (AESOP: default target/release/aesop)"""
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


READABILITY = ("surface,entity,syntax,cohmetrix,redundancy,npsyntax,discourse,continuity,lm,alignment")
ANCHOR = "cohmetrix.flesch_kincaid_grade"


def recipes(aesop):
    """The anchored readability recipes in aesop, all features against those kept at 5 %."""
    for name, ref, sets, classes in tw.FAMILIES:
        if not name.startswith("readability"):
            continue
        fs, data = tt.family_data(ref, sets, classes)
        print(f"\n### `{name}` recipe (aesop, anchored), held-out summary tau")
        print("| features | " + " | ".join(sets) + " | mean |")
        print("|---" * (len(sets) + 2) + "|")
        rows = {"all": {}, "kept": {}}
        dropped = {}
        with tempfile.TemporaryDirectory() as tmp:
            for h in sets:
                train = [s for s in sets if s != h]
                flagged = flagged_features([data[s] for s in train], 0.05)
                kept = [f for f, out in zip(fs, flagged) if not out or f == ANCHOR]
                dropped[h] = [f for f, out in zip(fs, flagged) if out and f != ANCHOR]
                for label, features in (("all", None), ("kept", kept)):
                    model = os.path.join(tmp, "m.aesop")
                    cmd = [aesop, "train", "--learner", "rank-svm", "--classes", READABILITY, "--c", "0.0001",
                           "--anchor", ANCHOR, "--target", "readability", "-o", model]
                    if not ref:
                        cmd.append("--no-references")
                    if features is not None:
                        cmd += ["--features", ",".join(features)]
                    for s in train:
                        cmd += ["--set", f"{tw.work}/{s}.jsonl:{sets[s]}"]
                    subprocess.run(cmd, check=True, capture_output=True)
                    scored = os.path.join(tmp, "p.jsonl")
                    subprocess.run([aesop, "score", f"{tw.work}/{h}.jsonl", "--model", f"m={model}", "-o", scored],
                                   check=True, capture_output=True)
                    report = os.path.join(tmp, "e.json")
                    subprocess.run([aesop, "evaluate", scored, "--human", f"{tw.work}/{h}.jsonl", "--target", sets[h],
                                    "--bootstrap", "0", "--json", report],
                                   check=True, capture_output=True)
                    rows[label][h] = summary_tau(json.load(open(report)))
        tt.row("all features (the shipped recipe)", sets, rows["all"])
        tt.row("without those outside for 5% of a training set", sets, rows["kept"])
        for h in sets:
            print(f"- held out {h}: dropped {', '.join(dropped[h]) or 'none'}")


def summary_tau(report):
    """The summary-level Kendall tau of an `aesop evaluate --json` report."""
    return report["statistics"]["summary"]["kendall"]


if __name__ == "__main__":
    if sys.argv[2:3] == ["--recipes"]:
        tw.work = sys.argv[1]
        recipes(sys.argv[3] if len(sys.argv) > 3 else "target/release/aesop")
    else:
        main()
