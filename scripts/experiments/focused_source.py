"""Does the LM judge a summary better when it reads only the source sentences the summary draws
on? The class scores a summary after up to 1,400 tokens of its source, and a 135M model attends
weakly over that distance; a short, matching context might sharpen what the source supports
(docs/PROBES.md, "Focused sources", stop 43; not adopted).

Step 1 writes a judgment set in which every summary (`summary` mode), or every sentence of every
summary (`sentence` mode), is a topic of its own whose one document is the K source sentences
with the most content words in common with it (per summary sentence, in summary mode their
union), in source order; topic ids are ORIGINAL#SYSTEM#UNIT.
Step 2 folds the class's features of those units back into one row per (topic, system):
token-weighted means, the worst sentence's mean, the highest unsupported share; it prints each
one's summary-level Kendall tau (mean over topics) next to the class's own features on the same
summaries.

Usage (numpy, scipy):
  python3 scripts/experiments/focused_source.py make SET.jsonl OUT.jsonl summary|sentence K [TOPICS]
  aesop features OUT.jsonl --classes neural --neural-references 0 -o focused.csv
  python3 scripts/experiments/focused_source.py fold SET.jsonl focused.csv OUT.csv [ORIGINAL.csv]
"""
import csv
import json
import math
import re
import sys

STOP = set("the a an of to in and or for on at by with from is are was were be been has have had "
           "it its this that as he she they his her their but not will would said says".split())


def sentences(text):
    parts = re.split(r"(?<=[.!?])\s+(?=\S)|\n+", text.strip())
    return [p.strip() for p in parts if p.strip()]


def content_words(sentence):
    return {w for w in re.findall(r"[a-z0-9]+", sentence.lower()) if w not in STOP}


def make(set_path, out_path, mode, k, limit):
    with open(set_path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for n, line in enumerate(f):
            if limit is not None and n >= limit:
                break
            topic = json.loads(line)
            doc = [s for d in topic["documents"] for s in sentences(d["text"])]
            doc_words = [content_words(s) for s in doc]

            def best(sentence):
                w = content_words(sentence)
                ranked = sorted(range(len(doc)), key=lambda j: (-len(w & doc_words[j]), j))
                return sorted(ranked[:k])

            for summary in topic["summaries"]:
                own = sentences(summary["text"]) or [summary["text"]]
                if mode == "summary":
                    units = [(0, summary["text"], sorted({j for s in own for j in best(s)}))]
                else:
                    units = [(i, s, best(s)) for i, s in enumerate(own)]
                for i, text, chosen in units:
                    out.write(json.dumps({
                        "topic": f"{topic['topic']}#{summary['system']}#{i}",
                        "documents": [{"id": "focus", "text": " ".join(doc[j] for j in chosen)}],
                        "references": [],
                        "summaries": [{"system": summary["system"], "text": text,
                                       "scores": summary.get("scores", {})}],
                    }) + "\n")


def number(x):
    try:
        return float(x)
    except ValueError:
        return math.nan


def fold(set_path, focused_csv, out_csv, originals):
    from judgments import human_scores, mean_topic_kendall, write_features_csv

    units = {}
    for row in csv.DictReader(open(focused_csv)):
        topic, system, _ = row["topic"].rsplit("#", 2)
        units.setdefault((topic, system), []).append(row)
    features = {}
    for key, rows in units.items():
        n = [number(r["neural.n_tokens"]) for r in rows]
        total = sum(n)

        def weighted(name):
            return sum(number(r[f"neural.{name}"]) * w for r, w in zip(rows, n)) / total

        src = sum(number(r["neural.src_sum"]) for r in rows) / total
        unc = sum(number(r["neural.unc_sum"]) for r in rows) / total
        features[key] = {
            "focused.src_mean": src,
            "focused.pmi_mean": src - unc,
            "focused.src_p10": weighted("src_p10"),
            "focused.src_slor": weighted("src_slor"),
            "focused.worst_sentence_src_mean": min(number(r["neural.src_mean"]) for r in rows),
            "focused.unsupported_share": weighted("unsupported_share"),
            "focused.max_unsupported_share": max(number(r["neural.unsupported_share"]) for r in rows),
        }
    write_features_csv(out_csv, features)
    names = sorted(next(iter(features.values())))
    columns = {n: {k: d[n] for k, d in features.items()} for n in names}
    for path in originals:
        for row in csv.DictReader(open(path)):
            key = (row["topic"], row["system"])
            if key in features:
                for n in ("src_mean", "pmi_mean", "src_p10", "src_slor", "unsupported_share"):
                    columns.setdefault(f"neural.{n}", {})[key] = number(row[f"neural.{n}"])
    targets = ["consistency", "coherence", "fluency", "relevance"]
    humans = {t: human_scores(set_path, t) for t in targets}
    print("feature", *targets, sep="\t")
    for name, values in columns.items():
        sign = -1 if "unsupported" in name else 1
        oriented = {k: sign * v for k, v in values.items()}
        print(name, *(f"{mean_topic_kendall(oriented, humans[t]):.3f}" for t in targets), sep="\t")


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
             int(sys.argv[6]) if len(sys.argv) > 6 else None)
    elif len(sys.argv) >= 5 and sys.argv[1] == "fold":
        fold(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        sys.exit(__doc__)
