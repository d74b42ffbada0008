#!/usr/bin/env python3
"""Reference token ids of Gemma 3's SentencePiece tokenizer for tests/neural_spm.rs, from llama.cpp.

llama.cpp (through llama-cpp-python, vocabulary only, no BOS, special tokens not parsed) tokenizes
fixed texts: news sentences, runs of spaces, newlines and tabs (user-defined tokens in Gemma 3's
vocabulary), numbers, accents and non-Latin scripts, emoji, characters missing from the vocabulary
(byte fallback), HTML tags and special-token names written as plain text, the empty string, and long
SummEval source documents. For each it records the ids and llama.cpp's detokenized text (special
tokens left out, invalid UTF-8 replaced); the Rust tokenizer (crates/aesop-neural/src/spm.rs) must
give identical ids and the same decoded text.

Usage (needs llama-cpp-python 0.3.36, the version the fixture records; it stops at once with the
install command when it is missing; reads no GPU, runs in seconds):
  python3 -m venv bench-out/venv-llamacpp
  bench-out/venv-llamacpp/bin/pip install llama-cpp-python==0.3.36
  bench-out/venv-llamacpp/bin/python scripts/build/gemma3-tokens.py [MODEL.gguf] [SUMMEVAL.jsonl] [OUT.json]
Defaults: the Gemma 3 file `aesop models fetch gemma3-270m` installs (AESOP_HOME/models/gemma-3-270m-q4_k_m.gguf,
AESOP_HOME defaulting to the platform cache directory's aesop/: ~/.cache/aesop, or
$XDG_CACHE_HOME/aesop), bench-out/builtin/summeval.jsonl (the built-in SummEval set, imported by
scripts/build/train-builtin; its first two topics' first source documents are taken) and
tests/fixtures/gemma3_tokens.json. Relative paths are relative to the current directory.
Environment: AESOP_HOME, XDG_CACHE_HOME (where the model is by default).
Output: OUT.json, written to OUT.json.tmp and renamed over it once complete.
"""
import hashlib
import json
import os
import sys

try:
    import llama_cpp
    from llama_cpp import Llama
except ImportError:
    sys.exit("gemma3-tokens.py: llama_cpp is missing; install it into a venv first:\n"
             "  python3 -m venv bench-out/venv-llamacpp && "
             "bench-out/venv-llamacpp/bin/pip install llama-cpp-python==0.3.36\n"
             "and run this script with bench-out/venv-llamacpp/bin/python")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def aesop_home():
    """aesop's data directory, as crates/aesop-neural/src/model.rs `aesop_home` finds it:
    $AESOP_HOME, else the platform cache directory (dirs::cache_dir) + aesop."""
    home = os.environ.get("AESOP_HOME")
    if home:
        return home
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/aesop")
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return os.path.join(xdg if os.path.isabs(xdg) else os.path.expanduser("~/.cache"), "aesop")

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "The city council voted 7-2 on Tuesday to approve a $4.5 million budget for road repairs, "
    "citing 1,400 complaints since 2021. Residents welcomed the decision.",
    "Shares of Acme Corp. fell 3.2% to $182.50 in early trading on Wednesday, the company said "
    "in a statement, after its chief executive resigned.",
    " Hello world",
    " leading space",
    "trailing space ",
    "   three leading and two trailing  ",
    "double  spaces  between  words   and three",
    " ",
    "     ",
    " " * 40 + "forty spaces",
    "Line one.\nLine two.\n\nNew paragraph.\n\n\n\nFour newlines.",
    "\n",
    "\n\n",
    "\n" * 40,
    "a \n b \t c\r\nd",
    "tab\tseparated\tvalues\t\tand two tabs\t\t\t",
    "Prices: $3.50, 1,400 units, 3.14159, 1234567890, 2024-01-15, 50% and 007.",
    "don't DON'T it's we'll I'm they've y'all",
    "Café naïve résumé Zürich São Paulo Ångström façade coöperate",
    "e\u0301 decomposed, 100\u00a0km, ideographic\u3000space, zero\u200bwidth",
    "北京是中华人民共和国的首都。東京では雨が降っています。한국어 텍스트입니다.",
    "مرحبا بالعالم، هذه جملة عربية. שלום עולם",
    "Привет, мир! Γειά σου κόσμε. नमस्ते दुनिया. สวัสดีชาวโลก",
    "Great job! 😀👍🎉 ❤️ 👨\u200d👩\u200d👧 🏳️\u200d🌈",
    "private \ue000 use \U000F0000 and \U0010FFFD",
    "bell\x07 start\x01 delete\x7f nul\x00 escape\x1b",
    "<b>bold</b> and <i>italic</i> <td>cell</td> <table><tr>",
    "<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n",
    "</s> <s> <bos> <eos> <unk> <pad> <mask> [multimodal] <start_of_image> as text",
    "<0x41> <0x0A> written out, and the block \u2581 and \u2581\u2581 itself",
    "def f(x):\n    return x ** 2  # square\n\n\tprint(f(3))",
    'Wait... what?! (really) [yes] {no} "quoted" \'single\' \u2014 em \u2013 en \u2026 \u00ab\u00bb',
    "",
]


def summeval_texts(path):
    with open(path, encoding="utf-8") as f:
        topics = [json.loads(next(f)) for _ in range(2)]
    first = topics[0]["documents"][0]["text"]
    second = topics[1]["documents"][0]["text"]
    # The first source document as it is, and ~3,000 characters of the first two joined by a
    # paragraph break.
    return [first, (first + "\n\n" + second)[:3000]]


def main():
    args = sys.argv[1:]
    if len(args) > 3:
        sys.exit("usage: gemma3-tokens.py [MODEL.gguf] [SUMMEVAL.jsonl] [OUT.json]")
    model_path = args[0] if len(args) > 0 else os.path.join(aesop_home(), "models", "gemma-3-270m-q4_k_m.gguf")
    if not os.path.isfile(model_path):
        sys.exit(f"gemma3-tokens.py: {model_path}: no such file (`aesop models fetch gemma3-270m` installs it, or name "
                 "the GGUF as the first argument)")
    summeval = args[1] if len(args) > 1 else os.path.join(ROOT, "bench-out/builtin/summeval.jsonl")
    out_path = args[2] if len(args) > 2 else os.path.join(ROOT, "tests/fixtures/gemma3_tokens.json")
    if not os.path.isfile(summeval):
        sys.exit(f"gemma3-tokens.py: {summeval}: no such file (scripts/build/train-builtin imports it, or "
                 "`aesop import summeval SUMMEVAL -o FILE` and name FILE as the second argument)")
    with open(model_path, "rb") as f:
        sha = hashlib.file_digest(f, "sha256").hexdigest()
    llm = Llama(model_path=model_path, vocab_only=True, n_ctx=64, n_threads=1, verbose=False)
    cases = []
    for text in TEXTS + summeval_texts(summeval):
        ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        decoded = llm.detokenize(ids, special=False).decode("utf-8", errors="replace")
        cases.append({"text": text, "ids": ids, "decoded": decoded})
    # One case per line: small diffs when a text is added.
    head = {
        "generator": f"scripts/build/gemma3-tokens.py, llama-cpp-python {llama_cpp.__version__}",
        "model": os.path.basename(model_path),
        "model_sha256": sha,
        "note": "llama.cpp tokenize(add_bos=False, special=False); decoded = detokenize(special=False)",
    }
    # A temporary file beside the output, renamed over it once complete.
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("{\n")
        for key, value in head.items():
            f.write(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},\n")
        f.write(' "cases": [\n')
        lines = [json.dumps(c, ensure_ascii=False) for c in cases]
        f.write(",\n".join(f"  {line}" for line in lines))
        f.write("\n ]\n}\n")
    os.replace(tmp, out_path)
    print(f"{len(cases)} cases -> {out_path}")


if __name__ == "__main__":
    main()
