#!/usr/bin/env python3
"""Reference token ids and per-token log-probs for tests/neural_fixture.rs, from llama.cpp.

An independent implementation of the same GGUF (llama.cpp through llama-cpp-python) tokenizes
a few fixed texts and scores every token; the Rust forward pass must agree (token ids
identical, mean |delta log-prob| <= 0.1 nats, per-text mean log-probs correlated >= 0.99).

Usage (once; needs llama-cpp-python 0.3.36, the version the fixtures record, and numpy; it stops
at once with the install command when they are missing):
  python3 -m venv bench-out/venv-llamacpp
  bench-out/venv-llamacpp/bin/pip install llama-cpp-python==0.3.36 numpy
  bench-out/venv-llamacpp/bin/python scripts/build/neural-fixture.py MODEL.gguf tests/fixtures/neural_llamacpp.json
  bench-out/venv-llamacpp/bin/python scripts/build/neural-fixture.py GEMMA.gguf tests/fixtures/gemma3_llamacpp.json --bos
With --bos (Gemma 3, which wants one) every scored text starts with the model's BOS token, and
logprobs[0] is then the log-prob of the text's first token after BOS. Relative paths are relative
to the current directory. The output is written to OUT.tmp and renamed over OUT once complete.
Environment: none.
"""
import hashlib
import json
import os
import sys

USAGE = "usage: neural-fixture.py MODEL.gguf OUT.json [--bos]"
try:
    import llama_cpp
    import numpy as np
    from llama_cpp import Llama
except ImportError as e:
    sys.exit(f"neural-fixture.py: {e.name} is missing; install it into a venv first:\n"
             "  python3 -m venv bench-out/venv-llamacpp && "
             "bench-out/venv-llamacpp/bin/pip install llama-cpp-python==0.3.36 numpy\n"
             "and run this script with bench-out/venv-llamacpp/bin/python")

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
    args = sys.argv[1:]
    if len(args) not in (2, 3) or (len(args) == 3 and args[2] != "--bos") or not os.path.isfile(args[0]):
        sys.exit(USAGE + ("" if len(args) < 1 or os.path.isfile(args[0]) else f"\n{args[0]}: no such file"))
    model_path, out_path = args[0], args[1]
    bos = len(args) == 3
    with open(model_path, "rb") as f:
        sha = hashlib.file_digest(f, "sha256").hexdigest()
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
    # A temporary file beside the output, renamed over it once complete.
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(
            {
                "generator": f"scripts/build/neural-fixture.py, llama-cpp-python {llama_cpp.__version__}",
                "model_sha256": sha,
                "note": "logprobs[i] = log p(ids[i+1] | ids[..=i])" + (", ids[0] is BOS" if bos else ", no BOS"),
                "scored": scored,
                "tokenize_only": tok,
            },
            f,
            ensure_ascii=False,
            indent=1,
        )
    os.replace(tmp, out_path)
    print(f"{len(scored)} scored and {len(tok)} tokenized texts -> {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
