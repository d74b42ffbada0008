"""Numbers and name-like words a summary writes that its source does not: a classic
factual-consistency signal (entity-level hallucination), tried against `neural.unsupported_share`
on the consistency columns (docs/PROBES.md, "Consistency", stop 56; not adopted).

Per summary, words (letters, or digits with inner `.`/`,`) compared case-insensitively with the
source's: the count of novel words, of novel words rare in English (wordfreq Zipf below 4 or 5:
mostly names), of novel numbers, and the first two united with novel numbers; each printed as its
summary-level Kendall tau (mean over topics, `aesop evaluate`'s rule; oriented so that fewer novel
words = more consistent) with the number of topics it ranks, next to `-surface.novel_1` and
`-neural.unsupported_share` read from a features CSV.

Usage (numpy, scipy):
  aesop features SET.jsonl --classes surface,neural --neural-references 0 -o f.csv
  python3 scripts/experiments/novel_names_numbers.py SET.jsonl TARGET f.csv [WORDFREQ_TSV]
WORDFREQ_TSV: default $AESOP_DATA/resources/wordfreq_en/wordfreq_large_en.tsv.
"""
import json
import os
import re
import sys

from judgments import human_scores, mean_topic_kendall, negated_feature_columns

if len(sys.argv) not in (4, 5):
    sys.exit(__doc__)
set_path, target, features_path = sys.argv[1:4]
data = os.environ.get("AESOP_DATA", "../shared/data")
wordfreq_path = sys.argv[4] if len(sys.argv) == 5 else f"{data}/resources/wordfreq_en/wordfreq_large_en.tsv"

zipf = {}
with open(wordfreq_path) as f:
    next(f)
    for line in f:
        word, z, _ = line.rstrip("\n").split("\t")
        zipf[word] = float(z)

WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*")


def is_number(word):
    return word[0].isdigit()


values = {}  # name -> {(topic, system): value}


def put(name, key, value):
    values.setdefault(name, {})[key] = value


for line in open(set_path):
    topic = json.loads(line)
    source = WORD.findall(" ".join(d["text"] for d in topic["documents"]))
    source_words = {w.lower() for w in source if not is_number(w)}
    source_numbers = {w.replace(",", "") for w in source if is_number(w)}
    for summary in topic["summaries"]:
        key = (topic["topic"], summary["system"])
        words = WORD.findall(summary["text"])
        novel_numbers = sum(1 for w in words if is_number(w) and w.replace(",", "") not in source_numbers)
        novel = [w.lower() for w in words if not is_number(w) and w.lower() not in source_words]
        rare4 = sum(1 for w in novel if zipf.get(w, 0.0) < 4.0)
        rare5 = sum(1 for w in novel if zipf.get(w, 0.0) < 5.0)
        put("-novel_words", key, -len(novel))
        put("-novel_numbers", key, -novel_numbers)
        put("-novel_rare_words (zipf < 4)", key, -rare4)
        put("-novel_rare_words (zipf < 5)", key, -rare5)
        put("-novel_rare_words (zipf < 4) + numbers", key, -(rare4 + novel_numbers))
        put("-novel_words + numbers", key, -(len(novel) + novel_numbers))

values.update(negated_feature_columns(features_path, ("surface.novel_1", "neural.unsupported_share")))

scores = human_scores(set_path, target)
for name, by_key in values.items():
    tau, topics = mean_topic_kendall(by_key, scores, count=True)
    print(f"{name:42s} {tau:6.3f}  ({topics} topics)")
