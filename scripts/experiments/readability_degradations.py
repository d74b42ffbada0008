"""Self-supervised readability pairs: each summary of a judgment set beside three degraded copies
of itself (sentences shuffled; one sentence repeated after itself; the last sentence cut in half),
in a topic of its own, the original scored 2 and each copy 1. Written as a judgment set whose
column `readability` a ranker can learn from beside the human sets.

Usage: readability_degradations.py SET.jsonl OUT.jsonl [SEED [KINDS]]
KINDS: all (default) or a comma-separated choice of shuffled, repeated, cut. A probe of
docs/PROBES.md; scripts/experiments/readability-degradations-loso runs it."""
import json
import random
import re
import sys

SPLIT = re.compile(r"(?<=[.!?])\s+")


def sentences(text):
    return [s for s in SPLIT.split(text.strip()) if s]


def degraded(text, rng):
    sents = sentences(text)
    if len(sents) < 2:
        return []
    out = []
    shuffled = sents[:]
    for _ in range(10):
        rng.shuffle(shuffled)
        if shuffled != sents:
            break
    out.append(("shuffled", " ".join(shuffled)))
    i = rng.randrange(len(sents))
    out.append(("repeated", " ".join(sents[: i + 1] + [sents[i]] + sents[i + 1 :])))
    last = sents[-1].split()
    cut = " ".join(last[: max(1, len(last) // 2)]).rstrip(".!?")
    out.append(("cut", " ".join(sents[:-1] + [cut])))
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    kinds = sys.argv[4] if len(sys.argv) > 4 else "all"
    topics = made = 0
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            topic = json.loads(line)
            for summary in topic["summaries"]:
                if summary.get("human"):
                    continue
                copies = [
                    (name, text)
                    for name, text in degraded(summary["text"], rng)
                    if kinds == "all" or name in kinds.split(",")
                ]
                if not copies:
                    continue
                rows = [{"system": "original", "text": summary["text"], "scores": {"readability": 2.0}}]
                rows += [{"system": name, "text": text, "scores": {"readability": 1.0}} for name, text in copies]
                pseudo = {
                    "topic": f"{topic['topic']}#{summary['system']}",
                    "documents": topic.get("documents", []),
                    "references": [],
                    "summaries": rows,
                }
                out.write(json.dumps(pseudo) + "\n")
                topics += 1
                made += len(copies)
    print(f"{dst}: {topics} topics, {made} degraded copies", file=sys.stderr)


if __name__ == "__main__":
    main()
