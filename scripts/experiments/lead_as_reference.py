"""A copy of a judgment set whose one reference per topic is the source's lead (its first N
words), so that the `neural` class's BARTScore-style `ref_recall` reads log p(lead | summary):
how well a summary predicts the article it summarizes (the "Shannon game" of Egan et al. 2022,
within a topic the same ranking as their information difference, since log p(lead) is one
constant per topic). docs/PROBES.md, "The source given the summary".

Usage:
  python3 scripts/experiments/lead_as_reference.py SET.jsonl OUT.jsonl WORDS [TOPICS]
  aesop features OUT.jsonl --classes neural --neural-references 1 -o lead.csv
  aesop evaluate lead.csv --feature neural.ref_recall --human OUT.jsonl --target relevance
"""
import json
import sys

src, dst, words = sys.argv[1], sys.argv[2], int(sys.argv[3])
topics = int(sys.argv[4]) if len(sys.argv) > 4 else None
with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as g:
    for i, line in enumerate(f):
        if topics is not None and i >= topics:
            break
        t = json.loads(line)
        text = " ".join(d["text"] for d in t["documents"]).split()
        t["references"] = [{"id": "lead", "text": " ".join(text[:words])}]
        g.write(json.dumps(t) + "\n")
