"""Can SmolLM2-135M-Instruct judge a summary when asked? A probe of issue 15's aims.

For each summary of the first N topics of a judgment set, the chat prompt holds the article
(first ARTICLE_TOKENS tokens) and the summary, then one yes/no question per quality; the feature
is log P(yes) - log P(no) of the assistant's first token (case variants pooled). The article is
evaluated once per topic and the summary once per summary (llama.cpp's KV cache rewound),
so each question costs only its own tokens. Prints the summary-level Kendall tau (per topic, mean
over topics) of each question's feature against every human column of the set, and writes the
features as CSV (topic,system,judge.QUESTION...) for `aesop evaluate --feature`.

Usage (the llama-cpp-python venv with numpy and scipy; about 10 minutes for 30 SummEval topics
on 2 cores):
  python scripts/experiments/neural_judge_probe.py summeval.jsonl 30 \
      ~/.cache/aesop/models/SmolLM2-135M-Instruct.Q4_1.gguf out.csv
"""
import csv
import json
import sys

import numpy as np
from llama_cpp import Llama
from scipy.stats import kendalltau

setf, ntopics, model, out_csv = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ARTICLE_TOKENS = 700
QUESTIONS = {
    "faithful": "Does the summary state only facts that are in the article? Answer yes or no.",
    "fluent": "Is the summary written in fluent, grammatical English? Answer yes or no.",
    "coherent": "Is the summary well organized, with sentences that follow each other "
                "logically? Answer yes or no.",
    "good": "Is this a good summary of the article? Answer yes or no.",
}
llm = Llama(model_path=model, n_ctx=1280, logits_all=False, verbose=False, n_threads=2)


def tok(text):
    return llm.tokenize(text.encode(), add_bos=False, special=True)


def answer_ids(words):
    ids = set()
    for w in words:
        t = llm.tokenize(w.encode(), add_bos=False, special=False)
        if len(t) == 1:
            ids.add(t[0])
    return sorted(ids)


YES = answer_ids(["Yes", "yes", " Yes", " yes", "YES"])
NO = answer_ids(["No", "no", " No", " no", "NO"])
print(f"yes ids {YES}, no ids {NO}", file=sys.stderr)


def yes_minus_no():
    # The last evaluated position's logits (the only ones llama.cpp keeps without logits_all).
    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
    m = logits.max()
    lse = m + np.log(np.exp(logits - m).sum())
    lp = logits - lse

    def pool(ids):
        v = lp[ids]
        mv = v.max()
        return mv + np.log(np.exp(v - mv).sum())

    return pool(YES) - pool(NO)


head = ("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
        "Face<|im_end|>\n<|im_start|>user\nArticle:\n")
rows = []
for n, line in enumerate(open(setf)):
    if n >= ntopics:
        break
    topic = json.loads(line)
    article = "\n\n".join(d["text"] for d in topic["documents"])
    art_ids = llm.tokenize(article.encode(), add_bos=False, special=False)[:ARTICLE_TOKENS]
    llm.reset()
    llm.eval(tok(head) + art_ids)
    # Rewinding n_tokens makes the next eval drop the KV cache past that point (llama.cpp's
    # kv_cache_seq_rm), so the article and each summary are evaluated once.
    after_article = llm.n_tokens
    for s in topic["summaries"]:
        llm.n_tokens = after_article
        llm.eval(tok("\n\nSummary:\n" + s["text"].strip()))
        after_summary = llm.n_tokens
        feats = {}
        for name, q in QUESTIONS.items():
            llm.n_tokens = after_summary
            llm.eval(tok("\n\n" + q + "<|im_end|>\n<|im_start|>assistant\n"))
            feats[name] = yes_minus_no()
        rows.append((topic["topic"], s["system"], s.get("scores", {}), feats))
    print(f"topic {n + 1}", file=sys.stderr, flush=True)

with open(out_csv, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["topic", "system"] + [f"judge.{q}" for q in QUESTIONS])
    for t, sysname, _, feats in rows:
        w.writerow([t, sysname] + [f"{feats[q]:.6f}" for q in QUESTIONS])

targets = sorted({k for r in rows for k in r[2]})
for target in targets:
    cells = []
    for q in QUESTIONS:
        taus = []
        for t in sorted({r[0] for r in rows}):
            pairs = [(r[3][q], r[2][target]) for r in rows if r[0] == t and target in r[2]]
            if len(pairs) < 2:
                continue
            tau = kendalltau(*zip(*pairs)).statistic
            if not np.isnan(tau):
                taus.append(tau)
        cells.append(f"{q} {np.mean(taus):+.3f}" if taus else f"{q} n/a")
    print(target, " | ".join(cells))
