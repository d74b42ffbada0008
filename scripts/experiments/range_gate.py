"""Issue 13 probe: fall back from the reference-based `responsiveness` model to the reference-free
one where the data lies outside the reference-based model's training ranges.

Under leave-one-set-out the reference-based recipe names features outside its training range on
Newsroom and DialSummEval, where the reference-free recipe scores higher, and none on SummEval and
REALSumm, where it scores lower (docs/RESULTS.md, "Features outside the training range"). Does a
gate on that signal pick the better model? Three gates, each using only the held-out set's
features (never its scores):
  - per set: the reference-free model for the whole set when the reference-based model would warn
    (a feature outside for at least 5 % of the set's summaries and at least five); batch-dependent;
  - per topic: the same test over one topic's summaries (at least 5 % of them, any number);
  - per summary: the reference-free calibrated score for a summary with at least K features
    outside the reference-based model's ranges (K = 1, 2, 3, 5), the reference-based one otherwise
    (both calibrated to the same 1-5 scale); depends on the summary alone.
Usage: range_gate.py FEATURES_DIR LOSO_REF.jsonl LOSO_NOREF.jsonl SET.jsonl:COLUMN ...
  FEATURES_DIR holds SET.csv (`aesop features SET.jsonl --classes content,rouge,graph,tesla,surface`);
  the LOSO files are `aesop cross-validate --recipe responsiveness[-noref] --leave-one-set-out -o`."""
import csv
import json
import math
import sys
from collections import defaultdict

from judgments import human_scores, mean_topic_kendall


def features(path, names=None):
    rows = list(csv.reader(open(path)))
    head = rows[0][2:]
    cols = [head.index(n) for n in names] if names else list(range(len(head)))
    out = {}
    for r in rows[1:]:
        out[(r[0], r[1])] = [float(r[2 + c]) if r[2 + c] not in ("", "NaN") else math.nan for c in cols]
    return [head[c] for c in cols], out


def predictions(path):
    out = defaultdict(dict)
    for line in open(path):
        p = json.loads(line)
        out[p["set"]][(p["topic"], p["system"])] = p["score"]
    return out


def main():
    feature_dir, ref_path, noref_path = sys.argv[1:4]
    specs = [a.rsplit(":", 1) for a in sys.argv[4:]]
    names = None
    data = {}
    for path, column in specs:
        name = path.rsplit("/", 1)[-1]
        names, feats = features(f"{feature_dir}/{name.removesuffix('.jsonl')}.csv", names)
        human = human_scores(path, column)
        data[name] = (human, {k: v for k, v in feats.items() if k in human})
    ref, noref = predictions(ref_path), predictions(noref_path)
    gates = (["reference-based", "reference-free", "per set", "per topic"] + [f"per summary, K={k}" for k in (1, 2, 3, 5)]
             + ["per summary, a reference feature outside"])
    results = {g: {} for g in gates}
    shares = {}
    for held in data:
        rows = [r for s, (_, f) in data.items() if s != held for r in f.values()]
        lo = [min((r[c] for r in rows if not math.isnan(r[c])), default=-math.inf) for c in range(len(names))]
        hi = [max((r[c] for r in rows if not math.isnan(r[c])), default=math.inf) for c in range(len(names))]
        human, feats = data[held]
        outside = {k: [v < lo[c] or v > hi[c] for c, v in enumerate(row)] for k, row in feats.items()}

        def flagged(keys):
            n = len(keys)
            counts = [sum(outside[k][c] for k in keys) for c in range(len(names))]
            return any(x >= 5 and x >= 0.05 * n for x in counts), any(x >= 0.05 * n and x > 0 for x in counts)

        r, f = ref[held], noref[held]
        set_flag, _ = flagged(list(feats))
        by_topic = defaultdict(list)
        for k in feats:
            by_topic[k[0]].append(k)
        topic_flag = {t: flagged(keys)[1] for t, keys in by_topic.items()}
        shares[held] = (set_flag, sum(topic_flag.values()) / len(topic_flag),
                        {k: sum(outside[key]) for key in feats for k in [1, 2, 3, 5] if sum(outside[key]) >= k})
        choose = {
            "reference-based": lambda k: r[k],
            "reference-free": lambda k: f[k],
            "per set": lambda k: f[k] if set_flag else r[k],
            "per topic": lambda k: f[k] if topic_flag[k[0]] else r[k],
        }
        for kk in (1, 2, 3, 5):
            choose[f"per summary, K={kk}"] = (lambda kk: lambda k: f[k] if sum(outside[k]) >= kk else r[k])(kk)
        # The reference-based features: what the reference-free model does not read.
        reference_based = [n.split(".")[0] in ("rouge", "tesla") or (n.startswith("graph.") and not n.startswith("graph.input_"))
                           for n in names]
        choose["per summary, a reference feature outside"] = lambda k: (
            f[k] if any(o and b for o, b in zip(outside[k], reference_based)) else r[k])
        for g in gates:
            results[g][held] = mean_topic_kendall({k: choose[g](k) for k in feats if k in r and k in f}, human)
        n = len(feats)
        print(f"{held}: set flagged {set_flag}; topics flagged {shares[held][1]:.2f}; summaries with >= 1/2/3/5 "
              "features outside: " + " / ".join(f"{sum(1 for k in feats if sum(outside[k]) >= kk)}" for kk in (1, 2, 3, 5)) + f" of {n}")
    sets = list(data)
    print("\n| gate | " + " | ".join(sets) + " | mean |\n|---" * 1 + "|---" * (len(sets) + 1) + "|")
    for g in gates:
        vals = [results[g][s] for s in sets]
        print(f"| {g} | " + " | ".join(f"{v:.3f}" for v in vals) + f" | {sum(vals) / len(vals):.3f} |")


if __name__ == "__main__":
    main()
