"""SLOR-type aggregates of the `neural` class's per-token log (AESOP_NEURAL_TOKENS), aimed at
fluency: the LM's log-prob of each word minus its log unigram frequency (wordfreq's large English
list), so that a rare but well-formed word stops counting as a disfluency (Kann et al. 2018,
"Sentence-level fluency evaluation: references help, but can be spared!"; Lau et al. 2017).
Writes the aggregates as a features file (columns x.NAME, higher = better) and prints each one's
summary-level Kendall tau (tau-b per topic, mean over topics) against the named human columns.
The token logs come from `AESOP_NEURAL_TOKENS` (as scripts/experiments/neural-word-aggregates
writes them); TOP_N=N keeps only the N most frequent words. The class computes the chosen pair
itself (`neural.src_slor`, `unc_slor`); scripts/experiments/neural-slor judges those.
Usage: neural_slor.py SET.jsonl TOKENS.jsonl WORDFREQ.tsv OUT.csv TARGET,TARGET,..."""
import csv, math, os, re, sys

import numpy as np

from judgments import human_scores, mean_topic_kendall
from token_log import scored_summaries

setf, logf, freqf, outf, targets = sys.argv[1:6]
targets = targets.split(",")

# wordfreq: word -> natural-log frequency. Its rows cover 98.7 % of the mass; a word it lacks
# gets the frequency of its rarest row (a floor, so one unknown name cannot dominate).
log_freq = {}
TOP_N = int(os.environ.get("TOP_N", "1000000000"))
with open(freqf, newline="") as fh:
    for row in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
        if len(row) < 3 or row[0] == "word":
            continue
        if len(log_freq) < TOP_N:
            log_freq.setdefault(row[0], math.log(float(row[2])))
floor = min(log_freq.values())


def word_log_freq(word):
    """Unigram log-prob of a word as wordfreq would look it up (lowercased, digits as 0),
    falling back to the sum over its \\w+ parts, then to the floor."""
    w = re.sub(r"\d", "0", word.lower())
    w = re.sub(r"^\W+|\W+$", "", w)
    if not w:
        return None  # punctuation only: not a word
    if w in log_freq:
        return log_freq[w]
    parts = re.findall(r"\w+", w)
    return sum(log_freq.get(p, floor) for p in parts) if parts else floor


def quantile(sorted_values, q):
    return sorted_values[max(1, math.ceil(q * len(sorted_values))) - 1]


rows = []
for r, summary_words in scored_summaries(logf):
    g = r["given_source"]
    # (log-prob given source, unconditional, unigram) per word; punctuation-only words keep
    # their LM log-prob and a unigram of 0 (no frequency to subtract).
    ws = []
    for w, a, b in summary_words:
        f = word_log_freq(w)
        ws.append((sum(a), sum(b), 0.0 if f is None else f))
    n_tok = len(g)
    lp_src, lp_unc, lp_uni = (sum(x[i] for x in ws) for i in range(3))
    slor_src_words = sorted(a - f for a, b, f in ws)
    slor_unc_words = sorted(b - f for a, b, f in ws)
    feat = {
        "src_mean": lp_src / n_tok,
        "unc_mean": lp_unc / n_tok,
        "unigram_mean": lp_uni / n_tok,
        "slor_src": (lp_src - lp_uni) / n_tok,
        "slor_unc": (lp_unc - lp_uni) / n_tok,
        "slor_src_per_word": (lp_src - lp_uni) / len(ws),
        "slor_unc_per_word": (lp_unc - lp_uni) / len(ws),
        "normlp_src": -lp_src / lp_uni if lp_uni < 0 else 0.0,
        "normlp_unc": -lp_unc / lp_uni if lp_uni < 0 else 0.0,
        "slor_src_word_p10": quantile(slor_src_words, 0.10),
        "slor_unc_word_p10": quantile(slor_unc_words, 0.10),
        "slor_src_word_min": slor_src_words[0],
        "slor_unc_word_min": slor_unc_words[0],
        "slor_src_clipped": float(np.mean([max(min(x, 10.0), -10.0) for x in slor_src_words])),
        "slor_unc_clipped": float(np.mean([max(min(x, 10.0), -10.0) for x in slor_unc_words])),
    }
    rows.append((r["topic"], r["system"], feat))

names = list(rows[0][2])
with open(outf, "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["topic", "system"] + [f"x.{n}" for n in names])
    for t, s, f in rows:
        w.writerow([t, s] + [f"{f[n]:.6f}" for n in names])

human = {tg: human_scores(setf, tg) for tg in targets}
print("| aggregate | " + " | ".join(targets) + " |")
print("|---|" + "---|" * len(targets))
for n in names:
    values = {(t, s): f[n] for t, s, f in rows}
    cells = [f"{mean_topic_kendall(values, human[tg]):.3f}" for tg in targets]
    print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
