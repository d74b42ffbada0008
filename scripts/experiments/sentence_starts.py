"""How surprised is the LM where a summary's sentences start? Per sentence after the first, the
log-prob of its first word (and of its first three words) in the class's pass over the whole
summary, given the source and the earlier sentences, and unconditionally (the earlier sentences
only), alone and relative to the mean per-word log-prob of the rest of that sentence. A jump
between unrelated extracts, or a sentence opening with a pronoun or connective whose referent the
summary lacks, should surprise the LM at the start, where copying from the source earns least
without the source. Context gain (context_gain.py) left the first word out; this reads it alone.
docs/PROBES.md, "Sentence starts" (stop 45; not adopted).

Usage (numpy, scipy):
  AESOP_NEURAL_CACHE=EMPTY_DIR AESOP_NEURAL_TOKENS=whole.tokens.jsonl aesop features SET.jsonl \
      --classes neural_truecased --neural-references 0 -o whole.csv
  python3 scripts/experiments/sentence_starts.py SET.jsonl whole.tokens.jsonl neural_truecased OUT.csv
Summaries of one sentence have no value (left out of each statistic). Prints summary-level Kendall
tau (mean over topics) per human column and coherence's system-level pairwise accuracy.
  python3 scripts/experiments/sentence_starts.py blend SET.jsonl OUT.csv FEATURE OOF.jsonl ...
adds the feature in hindsight to out-of-fold predictions (`aesop cross-validate -o`, one file per
fold seed): both z-scored within their topic, coherence's system pairwise accuracy of
z(raw) + w * z(FEATURE) per weight w, mean over the files (0 where a summary has no value).
"""
import json
import sys

from context_gain import split_words
from judgments import (human_scores, mean_topic_kendall, system_pairwise_accuracy,
                       token_log_words, write_features_csv)


def features_of(words):
    sentences = split_words(words, lambda w: w[0])
    out = {k: [] for k in ("first_given", "first_uncond", "first3_given", "first3_uncond",
                           "first_rel_given", "first_rel_uncond")}
    for sentence in sentences[1:]:
        rest = sentence[1:]
        out["first_given"].append(sentence[0][1])
        out["first_uncond"].append(sentence[0][2])
        head = sentence[:3]
        out["first3_given"].append(sum(w[1] for w in head) / len(head))
        out["first3_uncond"].append(sum(w[2] for w in head) / len(head))
        if rest:
            out["first_rel_given"].append(sentence[0][1] - sum(w[1] for w in rest) / len(rest))
            out["first_rel_uncond"].append(sentence[0][2] - sum(w[2] for w in rest) / len(rest))
    row = {}
    for k, v in out.items():
        if v:
            row[f"start.{k}_mean"] = sum(v) / len(v)
            row[f"start.{k}_min"] = min(v)
    return row


def main(set_path, log_path, class_name, out_csv):
    features = {}
    for line in open(log_path, encoding="utf-8"):
        r = json.loads(line)
        if r["class"] == class_name:
            row = features_of(token_log_words(r))
            if row:
                features[(r["topic"], r["system"])] = row
    names = sorted({n for row in features.values() for n in row})
    full = {k: {n: row.get(n, float("nan")) for n in names} for k, row in features.items()}
    write_features_csv(out_csv, full)
    targets = ["coherence", "fluency", "consistency", "relevance"]
    humans = {t: human_scores(set_path, t) for t in targets}
    print(f"{len(features)} summaries of two or more sentences", file=sys.stderr)
    print("feature", *targets, "coherence: system pairwise accuracy", sep="\t")
    for name in names:
        values = {k: row[name] for k, row in features.items() if name in row}
        print(name, *(f"{mean_topic_kendall(values, humans[t]):.3f}" for t in targets),
              f"{system_pairwise_accuracy(values, humans['coherence']):.3f}", sep="\t")


def topic_z(values):
    """{key: value} z-scored among the values of the same topic (key[0]); NaN left out."""
    by_topic = {}
    for key, v in values.items():
        if v == v:
            by_topic.setdefault(key[0], []).append((key, v))
    out = {}
    for items in by_topic.values():
        vs = [v for _, v in items]
        mean = sum(vs) / len(vs)
        sd = (sum((v - mean) ** 2 for v in vs) / len(vs)) ** 0.5 or 1.0
        out.update({key: (v - mean) / sd for key, v in items})
    return out


def blend(set_path, features_csv, name, oof_paths):
    import csv

    humans = human_scores(set_path, "coherence")
    feature = {(r["topic"], r["system"]): float(r[name]) for r in csv.DictReader(open(features_csv))}
    weights = (0.0, 0.1, 0.2, 0.5, 1.0)
    totals = dict.fromkeys(weights, 0.0)
    for path in oof_paths:
        raw = {(o["topic"], o["system"]): o["raw"] for o in map(json.loads, open(path))}
        z_raw = topic_z(raw)
        z_feature = topic_z({k: feature.get(k, float("nan")) for k in raw})
        for w in weights:
            totals[w] += system_pairwise_accuracy(
                {k: z + w * z_feature.get(k, 0.0) for k, z in z_raw.items()}, humans)
    print(name, *(f"w={w}: {totals[w] / len(oof_paths):.3f}" for w in weights))


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "blend":
        blend(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) == 5:
        main(*sys.argv[1:5])
    else:
        sys.exit(__doc__)
