"""Do a summary's earlier sentences help the LM read the next one? Per sentence after the first:
its log-prob given the source and the summary's earlier sentences (the class's own pass over the
whole summary) minus its log-prob given the source alone (the sentence scored as a summary of its
own, in the same topic, so both share the source prompt), over the sentence's words after its
first (whose tokens differ with the leading space), per word; given the source and
unconditionally; mean and minimum over the summary's sentences. A dangling "he" or a jump between
unrelated extracts should gain nothing from the context (docs/PROBES.md, "Which system pairs the
coherence model gets wrong", stop 43; not adopted).

Usage (numpy, scipy):
  python3 scripts/experiments/context_gain.py split SET.jsonl SENTENCES.jsonl
  AESOP_NEURAL_TOKENS=whole.tokens.jsonl aesop features SET.jsonl --classes neural_truecased \
      --neural-references 0 -o whole.csv
  AESOP_NEURAL_TOKENS=sentences.tokens.jsonl aesop features SENTENCES.jsonl \
      --classes neural_truecased --neural-references 0 -o sentences.csv
  python3 scripts/experiments/context_gain.py gain SET.jsonl whole.tokens.jsonl \
      sentences.tokens.jsonl neural_truecased OUT.csv
Sentences end at a whitespace-separated word ending in . ! or ? (SummEval's tokenized text).
"""
import json
import sys


def split_words(words, text_of):
    """Sentences of a word sequence: a sentence ends at a word ending in . ! or ?."""
    out, current = [], []
    for w in words:
        current.append(w)
        if text_of(w)[-1] in ".!?":
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def split(set_path, out_path):
    with open(set_path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for line in f:
            topic = json.loads(line)
            own = []
            for s in topic["summaries"]:
                for i, words in enumerate(split_words(s["text"].split(), lambda w: w)):
                    own.append({"system": f"{s['system']}#{i}", "text": " ".join(words),
                                "scores": s.get("scores", {})})
            topic["summaries"] = own
            out.write(json.dumps(topic) + "\n")


def gain(set_path, whole_log, sentence_log, class_name, out_csv):
    from judgments import (human_scores, mean_topic_kendall, system_pairwise_accuracy,
                           token_log_words, write_features_csv)

    alone = {}
    for line in open(sentence_log, encoding="utf-8"):
        r = json.loads(line)
        if r["class"] == class_name:
            system, i = r["system"].rsplit("#", 1)
            alone[(r["topic"], system, int(i))] = token_log_words(r)
    features, compared, mismatched = {}, 0, 0
    for line in open(whole_log, encoding="utf-8"):
        r = json.loads(line)
        if r["class"] != class_name:
            continue
        given, uncond = [], []
        for i, sentence in enumerate(split_words(token_log_words(r), lambda w: w[0])):
            single = alone.get((r["topic"], r["system"], i))
            if i == 0 or single is None:
                continue
            compared += 1
            if len(sentence) < 2 or [w[0] for w in sentence[1:]] != [w[0] for w in single[1:]]:
                mismatched += 1
                continue
            n = len(sentence) - 1
            given.append((sum(w[1] for w in sentence[1:]) - sum(w[1] for w in single[1:])) / n)
            uncond.append((sum(w[2] for w in sentence[1:]) - sum(w[2] for w in single[1:])) / n)
        features[(r["topic"], r["system"])] = {
            "ctx.gain_given_mean": sum(given) / len(given) if given else 0.0,
            "ctx.gain_given_min": min(given) if given else 0.0,
            "ctx.gain_uncond_mean": sum(uncond) / len(uncond) if uncond else 0.0,
            "ctx.gain_uncond_min": min(uncond) if uncond else 0.0,
        }
    print(f"{compared} sentences compared, {mismatched} left out (words differ)", file=sys.stderr)
    write_features_csv(out_csv, features)
    names = sorted(next(iter(features.values())))
    targets = ["coherence", "fluency", "consistency", "relevance"]
    humans = {t: human_scores(set_path, t) for t in targets}
    print("feature", *targets, "coherence: system pairwise accuracy", sep="\t")
    for name in names:
        values = {k: row[name] for k, row in features.items()}
        print(name, *(f"{mean_topic_kendall(values, humans[t]):.3f}" for t in targets),
              f"{system_pairwise_accuracy(values, humans['coherence']):.3f}", sep="\t")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "split":
        split(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 7 and sys.argv[1] == "gain":
        gain(*sys.argv[2:7])
    else:
        sys.exit(__doc__)
