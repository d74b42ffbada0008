#!/usr/bin/env python3
"""llama.cpp side of scripts/bench/bench-neural: the neural class's reference-free scoring of a judgment
set with llama-cpp-python on the same GGUF, the same prompt and the same reuse of the prompt's
cache (per topic, then per summary), writing token counts (and per-summary mean log-probs).

Usage: neural_llamacpp_score.py MODEL.gguf SET.jsonl OUT.json [SOURCE_TOKENS]
Needs llama-cpp-python 0.3.36 (bench-neural installs it): the prompt-cache reuse below sets
`n_tokens` and reads `_input_ids`, internals that other versions may change. llama.cpp runs with
N_THREADS threads (2, recorded in OUT.json as n_threads), whatever the machine has.
"""
import json
import sys

import numpy as np
import llama_cpp
from llama_cpp import Llama

N_THREADS = 2

def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: neural_llamacpp_score.py MODEL.gguf SET.jsonl OUT.json [SOURCE_TOKENS]")
    model, set_path, out_path = sys.argv[1:4]
    budget = int(sys.argv[4]) if len(sys.argv) > 4 else 1400
    llm = Llama(model_path=model, n_ctx=2048, n_batch=512, logits_all=True, verbose=False, n_threads=N_THREADS)
    tok = lambda s: llm.tokenize(s.encode("utf-8"), add_bos=False, special=False)
    head, tail = tok("Article: "), tok("\n\nSummary of the article above:")
    prompt_tokens = summary_tokens = n_summaries = 0
    means = []

    def score(prompt, cont):
        # Log-probs of cont after prompt; the prompt's cache is reused (n_tokens rewinds).
        if llm.n_tokens < len(prompt) or list(llm._input_ids[: len(prompt)]) != prompt:
            llm.reset()
            llm.eval(prompt)
        llm.n_tokens = len(prompt)
        llm.eval(cont)
        logits = np.asarray(llm.scores[len(prompt) - 1 : len(prompt) + len(cont) - 1], dtype=np.float64)
        m = logits.max(axis=1, keepdims=True)
        lse = (m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True)))[:, 0]
        return logits[np.arange(len(cont)), cont] - lse

    with open(set_path, encoding="utf-8") as f:
        topics = [json.loads(line) for line in f if line.strip()]
    for topic in topics:
        source = " ".join(" ".join(d["text"] for d in topic.get("documents", [])).split())
        conts = [tok(" " + " ".join(s["text"].split())) for s in topic["summaries"]]
        src_prompt = head + tok(source)[:budget] + tail
        unc_prompt = head + tail
        for prompt in (src_prompt, unc_prompt):
            prompt_tokens += len(prompt)
            for c in conts:
                if c:
                    means.append(float(score(prompt, c).mean()))
                    summary_tokens += len(c)
        n_summaries += len(conts)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(
            {
                "version": llama_cpp.__version__,
                "n_threads": N_THREADS,
                "summaries": n_summaries,
                "prompt_tokens": prompt_tokens,
                "summary_tokens": summary_tokens,
                "tokens": prompt_tokens + summary_tokens,
                "mean_logprobs": means,
            },
            f,
        )


if __name__ == "__main__":
    main()
