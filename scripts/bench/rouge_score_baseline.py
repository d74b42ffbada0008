"""rouge-score (Google's Python ROUGE) on every SummEval summary against its 11 references.
Used by scripts/bench/bench-features as the peer to time against.

    python rouge_score_baseline.py SET            # ROUGE-1, -2, -L with Porter stemming, the
                                                  # per-reference scores averaged, as the
                                                  # EVALUATION.md speed anchor does
    python rouge_score_baseline.py SET --multi    # what aesop's `rouge_score` class computes:
                                                  # rouge1, rouge2, rougeL, rougeLsum, stemming,
                                                  # score_multi (the best reference by F)
"""
import json
import sys

from rouge_score import rouge_scorer


def main(path, multi):
    measures = ["rouge1", "rouge2", "rougeL"] + (["rougeLsum"] if multi else [])
    scorer = rouge_scorer.RougeScorer(measures, use_stemmer=True)
    total = 0.0
    scored = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            topic = json.loads(line)
            refs = [r["text"] for r in topic.get("references", [])]
            for summary in topic["summaries"]:
                if multi and refs:
                    total += scorer.score_multi(refs, summary["text"])["rouge1"].fmeasure
                    scored += 1
                    continue
                for ref in refs:
                    scores = scorer.score(ref, summary["text"])
                    total += scores["rouge1"].fmeasure
                    scored += 1
    unit = "summaries" if multi else "pairs"
    print(f"{scored} {unit}, mean R1 F {total / max(scored, 1):.4f}")


if __name__ == "__main__":
    main(sys.argv[1], "--multi" in sys.argv[2:])
