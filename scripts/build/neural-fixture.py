#!/usr/bin/env python3
"""Reference token ids and per-token log-probs for tests/neural_fixture.rs, from llama.cpp.

An independent implementation of the same GGUF (llama.cpp through llama-cpp-python) tokenizes
a few fixed texts and scores every token; the Rust forward pass must agree (token ids
identical, mean |delta log-prob| <= 0.1 nats, per-text mean log-probs correlated >= 0.99).

Usage (once; needs `pip install llama-cpp-python numpy` in a venv):
  python scripts/build/neural-fixture.py MODEL.gguf tests/fixtures/neural_llamacpp.json
  python scripts/build/neural-fixture.py GEMMA.gguf tests/fixtures/gemma3_llamacpp.json --bos
With --bos (Gemma 3, which wants one) every scored text starts with the model's BOS token, and
logprobs[0] is then the log-prob of the text's first token after BOS.
"""
import hashlib
import json
import sys

import numpy as np
from llama_cpp import Llama

SCORED = [
    "The quick brown fox jumps over the lazy dog.",
    "Article: The city council voted 7-2 on Tuesday to approve a $4.5 million budget for road "
    "repairs, citing 1,200 complaints since 2021. Residents welcomed the decision.\n\n"
    "Summary of the article above: The council approved $4.5m for roads after 1,200 complaints.",
    "Q3 revenue rose 12.5% (from $3,400,000 to $3,825,000); analysts' estimates were \"too low\" -- again!",
    "Café owners in Zürich and São Paulo said naïve pricing won't last. 東京では雨が降っています。 😀👍",
    "Line one.\n\n  Indented line   with   spaces.\tTab here\nI'm sure they'll say it's fine; you've seen we'd do it.",
    "Paris is the capital of France. Berlin is the capital of Germany. Rome is the capital of Italy.",
]
TOKENIZE_ONLY = [
    "😀😀🎉",
    "漢字かなカナ한국어",
    "   leading and trailing   ",
    "x\n\n\ny 1234567 3.14 ١٢٣ Ⅻ",
    "don't DON'T it's IT'S we'll we'LL",
    "",
]


def main():
    model_path, out_path = sys.argv[1], sys.argv[2]
    bos = "--bos" in sys.argv[3:]
    sha = hashlib.sha256(open(model_path, "rb").read()).hexdigest()
    llm = Llama(model_path=model_path, n_ctx=1024, logits_all=True, verbose=False, n_threads=2)
    scored = []
    for text in SCORED:
        ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if bos:
            ids = [llm.token_bos()] + ids
        llm.reset()
        llm.eval(ids)
        logits = np.array(llm.scores[: len(ids)], dtype=np.float64)
        m = logits.max(axis=1, keepdims=True)
        lse = (m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True)))[:, 0]
        lps = [float(logits[i, ids[i + 1]] - lse[i]) for i in range(len(ids) - 1)]
        scored.append({"text": text, "ids": ids, "logprobs": lps})
    tok = [
        {"text": t, "ids": llm.tokenize(t.encode("utf-8"), add_bos=False, special=False)}
        for t in TOKENIZE_ONLY
    ]
    import llama_cpp

    json.dump(
        {
            "generator": f"scripts/build/neural-fixture.py, llama-cpp-python {llama_cpp.__version__}",
            "model_sha256": sha,
            "note": "logprobs[i] = log p(ids[i+1] | ids[..=i])" + (", ids[0] is BOS" if bos else ", no BOS"),
            "scored": scored,
            "tokenize_only": tok,
        },
        open(out_path, "w"),
        ensure_ascii=False,
        indent=1,
    )


if __name__ == "__main__":
    main()
