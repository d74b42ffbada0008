"""A copy of a multi-document judgment set (SummEval-OP's eight reviews per topic) with each
topic's documents cut to WORDS words in all, two ways: `concat` keeps the first WORDS words of
the documents in order (what the `neural` class's token budget does to a long source), `shares`
gives every document an equal share (a document shorter than its share passes the rest on).
Run the class on both copies with a budget that cuts neither, and compare the features' τ:
does the LM's prompt serve better with every document's start or with the first documents
whole? docs/PROBES.md, "Several documents".

Usage:
  python3 scripts/experiments/source_shares.py SET.jsonl OUT.jsonl concat|shares WORDS
  aesop features OUT.jsonl --classes neural --neural-references 0 -o OUT.csv
"""
import json
import sys


def shares(lengths, budget):
    """Water-filling: the shortest documents first, each taking at most an equal part of what is left."""
    out = [0] * len(lengths)
    left = budget
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for k, i in enumerate(order):
        out[i] = min(lengths[i], left // (len(order) - k))
        left -= out[i]
    return out


src, dst, mode, budget = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if mode not in ("concat", "shares"):
    sys.exit("mode must be concat or shares")
with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as g:
    for line in f:
        t = json.loads(line)
        words = [d["text"].split() for d in t["documents"]]
        if mode == "concat":
            keep, left = [], budget
            for w in words:
                keep.append(w[: max(left, 0)])
                left -= len(w)
        else:
            keep = [w[:n] for w, n in zip(words, shares([len(w) for w in words], budget))]
        t["documents"] = [dict(d, text=" ".join(k)) for d, k in zip(t["documents"], keep) if k]
        g.write(json.dumps(t) + "\n")
