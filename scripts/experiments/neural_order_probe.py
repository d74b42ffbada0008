"""Does SmolLM2 prefer a summary's own sentence order? A probe of issue 15's coherence aim.

For each summary of the first N topics of a judgment set: the unconditional log-prob of its
text (after BOS) and of three seeded shuffles of its sentences (naive split after . ! ?),
through llama.cpp (llama-cpp-python) on the same GGUF aesop uses. Features: the summary's
mean log-prob per token, the per-token and total gain of its own order over the shuffles'
mean (0 for one-sentence summaries), and its sentence count. Prints the summary-level
Kendall tau (per topic, mean over topics) of each against every human column of SummEval.

Usage (a venv with llama-cpp-python, numpy and scipy; about 20 minutes for 30 topics on 2 cores):
  python scripts/experiments/neural_order_probe.py summeval.jsonl 30 \
      ~/.cache/aesop/models/SmolLM2-135M-Instruct.Q4_1.gguf
"""
import json
import random
import re
import sys
import zlib

import numpy as np
from llama_cpp import Llama
from scipy.stats import kendalltau

setf, ntopics, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
llm = Llama(model_path=model, n_ctx=512, logits_all=True, verbose=False, n_threads=2)


def logprob(text):
    ids = ([llm.token_bos()] + llm.tokenize(text.encode(), add_bos=False, special=False))[:500]
    llm.reset()
    llm.eval(ids)
    logits = np.array(llm.scores[: len(ids)], dtype=np.float64)
    m = logits.max(1, keepdims=True)
    lse = (m + np.log(np.exp(logits - m).sum(1, keepdims=True)))[:, 0]
    return sum(logits[i, ids[i + 1]] - lse[i] for i in range(len(ids) - 1)), len(ids) - 1


rows = []
for n, line in enumerate(open(setf)):
    if n >= ntopics:
        break
    topic = json.loads(line)
    for s in topic["summaries"]:
        text = s["text"].strip()
        sents = [x for x in re.split(r"(?<=[.!?])\s+", text) if x]
        own, k = logprob(text)
        if len(sents) < 2:
            feats = [own / k, 0.0, 0.0, len(sents)]
        else:
            rng = random.Random(zlib.crc32(text.encode()))
            shuffled = []
            for _ in range(3):
                order = sents[:]
                while order == sents:
                    rng.shuffle(order)
                shuffled.append(logprob(" ".join(order))[0])
            gain = own - np.mean(shuffled)
            feats = [own / k, gain / k, gain, len(sents)]
        rows.append((topic["topic"], s["scores"], feats))
    print(f"topic {n + 1}", file=sys.stderr, flush=True)

names = ["unc_mean", "order_gain_per_token", "order_gain_total", "sentences"]
for target in ["coherence", "fluency", "consistency", "relevance"]:
    cells = []
    for j, name in enumerate(names):
        taus = []
        for t in sorted({r[0] for r in rows}):
            x = [r[2][j] for r in rows if r[0] == t]
            y = [r[1][target] for r in rows if r[0] == t]
            tau = kendalltau(x, y).correlation
            if not np.isnan(tau):
                taus.append(tau)
        cells.append(f"{name} {np.mean(taus):+.3f}")
    print(target, " | ".join(cells))
