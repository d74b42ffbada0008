"""Word-level aggregates of the `neural` class's per-token log (AESOP_NEURAL_TOKENS), aimed at
consistency: entity-like words (capitalized mid-sentence, or with a digit), words absent from the
source (and how likely the LM finds them), sentence minima. Writes them as a features file
(columns x.NAME; shares and counts negated, so higher = better) and prints each one's summary-level Kendall tau
(tau-b per topic, mean over topics) against the named human columns.
Run by scripts/experiments/neural-word-aggregates.
Usage: neural_word_aggregates.py SET.jsonl TOKENS.jsonl OUT.csv [TARGET,TARGET,...]"""
import csv, json, math, re, sys
import numpy as np
from judgments import mean_topic_kendall
from token_log import scored_summaries

setf, logf, outf = sys.argv[1:4]
src_words, human = {}, {}
for line in open(setf):
    t = json.loads(line)
    text = " ".join(d if isinstance(d, str) else d.get("text", "") for d in t["documents"])
    src_words[t["topic"]] = set(w.lower() for w in re.findall(r"\w+", text))
    for s in t["summaries"]:
        human[(t["topic"], s["system"])] = s.get("scores", {})

def mean(x, default):
    return sum(x) / len(x) if x else default

rows = []
for r, ws in scored_summaries(logf):
    g = r["given_source"]
    sw = src_words.get(r["topic"], set())
    core = lambda w: re.sub(r"^\W+|\W+$", "", w)
    ent = []  # entity-ish: capitalized (not sentence-initial) or has a digit
    novel, novel_content = [], []
    sents, cur = [], []
    prev_end = True
    for w, a, b in ws:
        c = core(w)
        is_ent = bool(c) and ((c[0].isupper() and not prev_end) or any(ch.isdigit() for ch in c))
        if is_ent:
            ent.append((a, b))
        parts = [p.lower() for p in re.findall(r"\w+", w)]
        if parts and any(p not in sw for p in parts):
            novel.append((a, b))
            if len(c) > 3:
                novel_content.append((a, b))
        cur.extend(a)
        prev_end = w.endswith((".", "!", "?"))
        if prev_end:
            sents.append(cur); cur = []
    if cur:
        sents.append(cur)
    tok_mean = lambda pairs, which: mean([v for p in pairs for v in p[which]], None)
    feat = {
        "src_mean": mean(g, 0),
        "ent_src_mean": tok_mean(ent, 0),
        "ent_word_min": min([sum(a) for a, b in ent], default=None),
        "ent_first_min": min([a[0] for a, b in ent], default=None),
        "ent_pmi_mean": mean([x - y for a, b in ent for x, y in zip(a, b)], None),
        "ent_share_below_6": -mean([a[0] < -6 for a, b in ent], 0.0),
        "novel_src_mean": tok_mean(novel, 0),
        "novel_share": -len(novel) / max(1, len(ws)),
        "novel_content_share": -len(novel_content) / max(1, len(ws)),
        "novel_word_sum": sum(sum(a) for a, b in novel) / max(1, len(ws)),
        "novel_content_sum": sum(sum(a) for a, b in novel_content) / max(1, len(ws)),
        "novel_below_4_share": -sum(1 for a, b in novel if min(a) < -4) / max(1, len(ws)),
        **{f"novel_below_{k}_share": -sum(1 for a, b in novel if min(a) < -k) / max(1, len(ws)) for k in (2, 3, 5, 6, 8)},
        **{f"novelc_below_{k}_share": -sum(1 for a, b in novel_content if min(a) < -k) / max(1, len(ws)) for k in (3, 4, 6)},
        "novel_below_4_count": -sum(1 for a, b in novel if min(a) < -4),
        "novel_first_below_4_share": -sum(1 for a, b in novel if a[0] < -4) / max(1, len(ws)),
        "novel_pmi_below_0_share": -sum(1 for a, b in novel if sum(a) - sum(b) < 0) / max(1, len(ws)),
        "novel_clip_sum": sum(max(min(a), -10) for a, b in novel) / max(1, len(ws)),
        "any_below_4_share": -sum(1 for w, a, b in ws if min(a) < -4) / max(1, len(ws)),
        "sent_min_mean": min(mean(s, 0) for s in sents),
        "sent_mean_of_means": mean([mean(s, 0) for s in sents], 0),
        "word_min_sum": min(sum(a) for w, a, b in ws) if ws else None,
    }
    rows.append((r["topic"], r["system"], feat))

names = list(rows[0][2])
# missing values: the feature's median over all rows (a summary with no entity is neither good nor bad)
for n in names:
    vals = [f[n] for _, _, f in rows if f[n] is not None]
    med = float(np.median(vals))
    for _, _, f in rows:
        if f[n] is None:
            f[n] = med
with open(outf, "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["topic", "system"] + [f"x.{n}" for n in names])
    for t, s, f in rows:
        w.writerow([t, s] + [f"{f[n]:.6f}" for n in names])

targets = sys.argv[4].split(",") if len(sys.argv) > 4 else ["coherence", "consistency", "fluency", "relevance"]
print("| aggregate | " + " | ".join(targets) + " |")
for n in names:
    values = {(t, s): f[n] for t, s, f in rows}
    scores = {tg: {k: h[tg] for k, h in human.items() if h.get(tg) is not None} for tg in targets}
    cells = [f"{mean_topic_kendall(values, scores[tg]):.3f}" for tg in targets]
    print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
