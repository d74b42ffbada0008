"""Issue 13: is Newsroom's preference for JS over ROUGE a matter of reference quality, which a
model could read per topic? For each topic of the sets with references: the share of the
references' words (lowercased \\w+) that occur in the source, and the per-topic Kendall tau of
-JS and of ROUGE-1 recall against the target, over the summaries both score (DialSummEval's
system A, which has no ROUGE, drops out: JS's tau there is .503 here, .450 with it). Prints per set the share's mean and spread, the
mean taus, and how the share goes with ROUGE's advantage over JS across topics.
Usage: reference_quality.py WORKDIR   (the SET.jsonl and SET.csv of transfer-weightings)"""
import json, re, sys
import numpy as np
from scipy.stats import kendalltau, spearmanr
import transfer_weightings as tw

SETS = {"summeval": "responsiveness", "newsroom": "responsiveness", "dialsummeval": "responsiveness", "realsumm": "pyramid"}
WORD = re.compile(r"\w+")

def words(text):
    return [w.lower() for w in WORD.findall(text)]

def in_source_share(topic):
    source = set(words(" ".join(d["text"] for d in topic["documents"])))
    refs = [words(r["text"]) for r in topic.get("references", [])]
    refs = [r for r in refs if r]
    return float(np.mean([np.mean([w in source for w in r]) for r in refs])) if refs else None

def main():
    tw.work = sys.argv[1]
    print("| set | topics | reference words in the source: mean (sd) | tau -JS | tau ROUGE-1 R | Spearman(share, R1 - JS) | R1 - JS, lower / upper half of share |")
    print("|---|---|---|---|---|---|---|")
    for name, target in SETS.items():
        head, rows = tw.table(name)
        js, r1 = head.index("content.js"), head.index("rouge.r1_recall")
        feats = {(r[0], r[1]): r[2:] for r in rows}
        share, t_js, t_r1 = [], [], []
        for line in open(f"{tw.work}/{name}.jsonl"):
            topic = json.loads(line)
            q = in_source_share(topic)
            y, a, b = [], [], []
            for s in topic["summaries"]:
                v, f = s.get("scores", {}).get(target), feats.get((topic["topic"], s["system"]))
                if q is None or v is None or f is None or "" in (f[js], f[r1]):
                    continue
                y.append(v); a.append(-float(f[js])); b.append(float(f[r1]))
            if len(set(y)) < 2:
                continue
            ta, tb = kendalltau(a, y).statistic, kendalltau(b, y).statistic
            if np.isnan(ta) or np.isnan(tb):
                continue
            share.append(q); t_js.append(ta); t_r1.append(tb)
        share, gain = np.array(share), np.array(t_r1) - np.array(t_js)
        low = share <= np.median(share)
        print(f"| {name} | {len(share)} | {share.mean():.3f} ({share.std():.3f}) | {np.mean(t_js):.3f} | {np.mean(t_r1):.3f} | "
              f"{spearmanr(share, gain).statistic:.3f} | {gain[low].mean():+.3f} / {gain[~low].mean():+.3f} |")

if __name__ == "__main__":
    main()
