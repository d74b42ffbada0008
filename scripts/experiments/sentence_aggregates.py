#!/usr/bin/env python3
"""Issue 15 (consistency .40): does the LM's surprise at a summary's *worst sentence* say more
than its surprise over all tokens? One unsupported sentence makes a summary unfaithful however
fluent the rest is, and a mean over every token dilutes it. (docs/PROBES.md, "Sentence-level
aggregates"; the word-level ones are neural_word_aggregates.py.)

Reads the `neural` class's token log (`AESOP_NEURAL_TOKENS`: each summary's tokens with their
log-probs given the source and unconditionally), splits each summary into sentences after tokens
that end in . ! or ? (or hold a line break), and writes per-summary aggregates over sentences
into a features file for `sign_scan.py` and `aesop evaluate --feature`. Higher is better in
every column. `sent.share_pmi_negative` is zero in most summaries, so it ties whole topics;
`sent.share_pmi_negative_tie_broken` adds 1e-3 x the summary's mean log-prob given the source,
which keeps its order and breaks its ties (docs/EVALUATION_STATS.md, "Topics the metric ties").

Usage: sentence_aggregates.py TOKENS.jsonl OUT.csv
  e.g. AESOP_NEURAL_TOKENS=t.jsonl aesop features summeval.jsonl --classes neural \
         --neural-references 0 -o n.csv
       sentence_aggregates.py t.jsonl s.csv
       aesop evaluate s.csv --feature sent.min_src_mean --human summeval.jsonl --target consistency
"""
import csv
import json
import sys


def mean(x):
    return sum(x) / len(x)


def sentences(tokens):
    """Index ranges [start, end) of the sentences of a token sequence."""
    spans, start = [], 0
    for i, piece in enumerate(tokens):
        ends = piece.rstrip().endswith((".", "!", "?")) or "\n" in piece
        # "U.S." or "3.5": a period inside a word ends no sentence when the next token
        # continues the word (no leading space).
        if ends and "\n" not in piece and i + 1 < len(tokens) and not tokens[i + 1][:1].isspace():
            ends = False
        if ends:
            spans.append((start, i + 1))
            start = i + 1
    if start < len(tokens):
        spans.append((start, len(tokens)))
    return spans


def aggregates(tokens, given, unconditional):
    spans = sentences(tokens)
    pmi = [g - u for g, u in zip(given, unconditional)]
    src = [mean(given[a:b]) for a, b in spans]
    src_after_first = [mean(given[a + 1:b]) if b - a > 1 else given[a] for a, b in spans]
    pmis = [mean(pmi[a:b]) for a, b in spans]
    share_negative = -mean([p < 0 for p in pmis])
    return {
        "sent.n": len(spans),
        "sent.min_src_mean": min(src),
        "sent.min_src_mean_after_first": min(src_after_first),
        "sent.mean_src_mean": mean(src),
        "sent.min_pmi_mean": min(pmis),
        "sent.mean_pmi_mean": mean(pmis),
        "sent.last_src_mean": src[-1],
        "sent.share_pmi_negative": share_negative,
        "sent.share_pmi_negative_tie_broken": share_negative + 1e-3 * mean(given),
    }


def main():
    log, out = sys.argv[1], sys.argv[2]
    rows = []
    for line in open(log):
        record = json.loads(line)
        if record["given_source"]:
            row = {"topic": record["topic"], "system": record["system"]}
            row.update(aggregates(record["tokens"], record["given_source"], record["unconditional"]))
            rows.append(row)
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
