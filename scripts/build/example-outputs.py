#!/usr/bin/env python3
"""Write the README's examples of model outputs as users keep them, from the SummEval sample
(examples/data/summeval-sample.jsonl: 10 topics), for two of its systems, M22 (BART) and M8
(Pointer-Generator):

- examples/data/outputs/M22.jsonl, M8.jsonl: a JSON Lines table per system, as Hugging Face
  `datasets` and pandas write one (`aesop import table`): per topic its `id`, the `article`,
  the 11 references as a list (`highlights`), the system's summary (`prediction`) and the
  experts' mean `relevance`; no system column, so each table is named by its file.
- examples/data/summeval-per-topic.jsonl: all 16 systems' summaries and the experts' mean
  scores in MTEB's layout of SummEval (the `mteb/summeval` dataset), one row per topic: `id`,
  `text` (the article), `human_summaries` and `machine_summaries` (lists), and `relevance`,
  `coherence`, `fluency`, `consistency` (lists of the summaries' scores, in their order); the
  systems in the order of their ids on every row, and not named, as MTEB keeps them (`aesop
  import table`, one row per topic).
- examples/data/lines/: line-aligned files as seq2seq toolkits write them (`aesop import
  lines`): test.source (the articles), test.target (each topic's first reference, its CNN/DM
  highlights), test.ids (the SummEval ids), M22.txt and M8.txt (the summaries), line N of
  each being topic N.

    python3 scripts/build/example-outputs.py

The standard library only; the output is the same on every run.
"""
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYSTEMS = ["M22", "M8"]
QUALITIES = ["relevance", "coherence", "fluency", "consistency"]


def main():
    with open(os.path.join(REPO, "examples/data/summeval-sample.jsonl"), encoding="utf-8") as f:
        articles = [json.loads(line) for line in f if line.strip()]
    outputs = os.path.join(REPO, "examples/data/outputs")
    lines = os.path.join(REPO, "examples/data/lines")
    os.makedirs(outputs, exist_ok=True)
    os.makedirs(lines, exist_ok=True)
    for system in SYSTEMS:
        with open(os.path.join(outputs, f"{system}.jsonl"), "w", encoding="utf-8") as out:
            for article in articles:
                summary = article["sys_summs"][system]
                row = {"id": article["doc_id"], "article": article["src"],
                       "highlights": article["ref_summs"], "prediction": summary["sys_summ"],
                       "relevance": summary["scores"]["relevance"]}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")

    with open(os.path.join(REPO, "examples/data/summeval-per-topic.jsonl"), "w",
              encoding="utf-8") as out:
        for article in articles:
            systems = sorted(article["sys_summs"], key=lambda s: int(s.lstrip("M")))
            summaries = [article["sys_summs"][s] for s in systems]
            row = {"id": article["doc_id"], "text": article["src"],
                   "human_summaries": article["ref_summs"],
                   "machine_summaries": [s["sys_summ"] for s in summaries]}
            for column in QUALITIES:
                row[column] = [s["scores"][column] for s in summaries]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")

    def write(name, texts):
        for text in texts:
            # One text per line: a line break inside one would misalign every later topic.
            assert "\n" not in text and "\r" not in text, name
        with open(os.path.join(lines, name), "w", encoding="utf-8") as out:
            out.write("".join(text + "\n" for text in texts))

    write("test.source", [a["src"] for a in articles])
    write("test.target", [a["ref_summs"][0] for a in articles])
    write("test.ids", [a["doc_id"] for a in articles])
    for system in SYSTEMS:
        write(f"{system}.txt", [a["sys_summs"][system]["sys_summ"] for a in articles])


if __name__ == "__main__":
    main()
