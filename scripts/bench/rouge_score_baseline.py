"""rouge-score (Google's Python ROUGE) on every SummEval summary against its 11 references:
ROUGE-1, ROUGE-2, ROUGE-L with Porter stemming, the per-reference scores averaged, as the
EVALUATION.md speed anchor does. Used by scripts/bench/bench-features as the peer to time against."""
import json
import sys

from rouge_score import rouge_scorer


def main(path):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    total = 0.0
    pairs = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            topic = json.loads(line)
            refs = [r["text"] for r in topic.get("references", [])]
            for summary in topic["summaries"]:
                for ref in refs:
                    scores = scorer.score(ref, summary["text"])
                    total += scores["rouge1"].fmeasure
                    pairs += 1
    print(f"{pairs} pairs, mean R1 F {total / max(pairs, 1):.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
