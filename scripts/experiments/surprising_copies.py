"""Words a summary takes from its source but puts where the source does not predict them.
`neural.unsupported_share` flags new words the source argues against; 63 of the 161 SummEval
summaries rated below 4 on consistency have none, and most of those recombine source words into
false statements ("neymar 's sister rafaella led his national side to a 1-0 win"). This script
counts in-source content words (not the summary's first word) whose log-prob given the source is
below -T nats, or whose PMI is negative, alone and united with the unsupported words, and prints
each count's summary-level Kendall tau (mean over topics; oriented so that higher = worse) and the
share of summaries where it is 0 (docs/PROBES.md, "Surprising copies", stop 43; not adopted).

Usage (numpy, scipy), from an AESOP_NEURAL_TOKENS log of the class:
  AESOP_NEURAL_TOKENS=tokens.jsonl aesop features SET.jsonl --classes neural_truecased \
      --neural-references 0 -o f.csv
  python3 scripts/experiments/surprising_copies.py SET.jsonl tokens.jsonl neural_truecased \
      consistency,coherence,fluency,relevance [--names]
--names: count only words that are names or numbers (capitalized after recasing, or with a digit).
"""
import json
import re
import sys

from judgments import human_scores, mean_topic_kendall, token_log_words

args = [a for a in sys.argv[1:] if a != "--names"]
if len(args) != 4:
    sys.exit(__doc__)
set_path, tokens_path, class_name, targets = args[0], args[1], args[2], args[3].split(",")
names_only = "--names" in sys.argv
STOP = set("the a an of to in and or for on at by with from is are was were be been has have had "
           "it its this that as he she they his her their but not will would said says who "
           "which".split())


def parts(text):
    """Lowercased runs of word characters, as the class's `word_parts`."""
    return [p.lower() for p in re.split(r"[^\w]+", text) if p]


source_words = {}
for line in open(set_path, encoding="utf-8"):
    topic = json.loads(line)
    source_words[topic["topic"]] = set(parts(" ".join(d["text"] for d in topic["documents"])))

features = {}
for line in open(tokens_path, encoding="utf-8"):
    record = json.loads(line)
    if record["class"] != class_name:
        continue
    words = token_log_words(record)
    if not words:
        continue
    source = source_words[record["topic"]]
    new = [any(p not in source for p in parts(w[0])) for w in words]
    unsupported = [n and w[1] - w[2] < 0 for n, w in zip(new, words)]
    content = [bool(parts(w[0])) and not all(p in STOP for p in parts(w[0])) for w in words]
    if names_only:
        content = [c and (w[0][:1].isupper() or any(ch.isdigit() for ch in w[0]))
                   for c, w in zip(content, words)]
    copied = [i > 0 and c and not n for i, (c, n) in enumerate(zip(content, new))]
    n = len(words)
    row = {"unsupported_share": sum(unsupported) / n}
    for t in (3, 4, 5, 6, 8):
        surprising = [c and w[1] < -t for c, w in zip(copied, words)]
        row[f"surprising_copy_{t}"] = sum(surprising) / n
        row[f"unsupported_or_surprising_copy_{t}"] = sum(
            a or b for a, b in zip(surprising, unsupported)) / n
    negative = [c and w[1] - w[2] < 0 for c, w in zip(copied, words)]
    row["copy_pmi_negative"] = sum(negative) / n
    row["unsupported_or_copy_pmi_negative"] = sum(a or b for a, b in zip(negative, unsupported)) / n
    given = [w[1] for c, w in zip(copied, words) if c]
    row["copy_mean_surprise"] = -sum(given) / len(given) if given else 0.0
    features[(record["topic"], record["system"])] = row

humans = {t: human_scores(set_path, t) for t in targets}
print("feature (higher = worse)", *targets, "share of summaries at 0", sep="\t")
for name in sorted(next(iter(features.values()))):
    oriented = {k: -row[name] for k, row in features.items()}
    zero = sum(1 for row in features.values() if row[name] == 0) / len(features)
    print(f"{name:34}", *(f"{mean_topic_kendall(oriented, humans[t]):.3f}" for t in targets),
          f"{zero:.2f}", sep="\t")
