"""Probe (2026-12-01, docs/PROBES.md, "Entity swaps the source tells apart"): how much more
does the source make a summary likelier than the same summary with two of its names or numbers
swapped?

A summary that says who did what as the source does loses likelihood given the source when two
of its entities trade places; one whose claims the source does not carry loses little, since the
source supports neither version; one that already swapped roles may even gain. The LM's own
preference for one word order (the unconditional margin) is taken out, so what is left is what
the source adds:

    contrast = [log p(S | src) − log p(S' | src)] − [log p(S) − log p(S')]

S' is S with two distinct entity mentions swapped: runs of words the source writes capitalized
in mid-sentence (names), or numbers. Up to two swaps per summary (the first two mentions, and the
first two numbers or else the second and third mentions); a summary with fewer than two
entities has no value. Summaries are recased from their source first (as `neural_truecased`
reads them), so that SummEval's lowercase names are names to the LM too.

Two steps (the LM runs in aesop):
  python entity_swap_contrast.py make SET.jsonl AUG.jsonl
      writes the set with each summary's swaps added as systems `SYSTEM#swapK`
  aesop features AUG.jsonl --classes neural --neural-references 0 -o AUG.csv
  python entity_swap_contrast.py judge SET.jsonl AUG.csv COLUMN [COLUMN …]
      prints the summary-level Kendall τ (mean over topics) of the contrast, of its two margins
      and of `neural.src_mean` on the recased summaries, against each column
"""
import csv
import json
import math
import re
import sys

from judgments import human_scores, mean_topic_kendall

TOKEN = re.compile(r"\S+")
CORE = re.compile(r"^(\W*)(.*?\w)(\W*)$")


def source_casing(source):
    """{lowercase word: the form the source writes in mid-sentence, when it is capitalized}."""
    counts = {}
    start = True
    for token in source.split():
        match = CORE.match(token)
        if match and not start:
            core = match.group(2)
            counts.setdefault(core.lower(), {}).setdefault(core, 0)
            counts[core.lower()][core] += 1
        # A dialogue turn ("| Elena: Yes, …") starts like a sentence.
        start = token.endswith((".", "!", "?", ":", "|"))
    forms = {}
    for lower, seen in counts.items():
        form = max(seen.items(), key=lambda kv: kv[1])[0]
        if form != lower:
            forms[lower] = form
    return forms


def recase(text, forms):
    out = []
    for token in text.split():
        match = CORE.match(token)
        if match and match.group(2) == match.group(2).lower() and match.group(2) in forms:
            token = match.group(1) + forms[match.group(2)] + match.group(3)
        out.append(token)
    return " ".join(out)


def swapped(tokens, a, b):
    """The tokens with the spans a and b ((start, end) positions, a before b) exchanged; the
    punctuation before a span's first word and after its last stays in place."""
    def parts(span):
        first, last = CORE.match(tokens[span[0]]), CORE.match(tokens[span[1] - 1])
        words = tokens[span[0]:span[1]]
        if len(words) == 1:
            return first.group(1), [first.group(2)], first.group(3)
        return first.group(1), [first.group(2)] + words[1:-1] + [last.group(2)], last.group(3)

    lead_a, words_a, tail_a = parts(a)
    lead_b, words_b, tail_b = parts(b)
    new_a = words_b[:]
    new_a[0] = lead_a + new_a[0]
    new_a[-1] = new_a[-1] + tail_a
    new_b = words_a[:]
    new_b[0] = lead_b + new_b[0]
    new_b[-1] = new_b[-1] + tail_b
    return " ".join(tokens[: a[0]] + new_a + tokens[a[1] : b[0]] + new_b + tokens[b[1] :])


def swaps(text, forms):
    """Up to two swapped versions of a recased summary: entity mentions are runs of words the
    source writes capitalized in mid-sentence; numbers are single words with a digit."""
    tokens = text.split()
    entities, numbers = [], []
    seen_entities, seen_numbers = set(), set()
    position = 0
    while position < len(tokens):
        match = CORE.match(tokens[position])
        core = match.group(2) if match else ""
        if core and any(c.isdigit() for c in core):
            if core not in seen_numbers:
                seen_numbers.add(core)
                numbers.append((position, position + 1))
            position += 1
            continue
        end = position
        while end < len(tokens):
            m = CORE.match(tokens[end])
            c = m.group(2) if m else ""
            # "I" (and "I'm") is capitalized everywhere, a pronoun, not a name.
            if not (c and c[0].isupper() and forms.get(c.lower()) == c) or c.lower().split("'")[0] == "i":
                break
            end += 1
            # a mention ends at punctuation after its word ("Townsend ,", "Palace's")
            if m.group(3):
                break
        if end > position:
            mention = " ".join(CORE.match(t).group(2) for t in tokens[position:end]).lower()
            if mention not in seen_entities:
                seen_entities.add(mention)
                entities.append((position, end))
            position = end
        else:
            position += 1
    out = []
    if len(entities) >= 2:
        out.append(swapped(tokens, entities[0], entities[1]))
    if len(numbers) >= 2:
        out.append(swapped(tokens, numbers[0], numbers[1]))
    elif len(entities) >= 3:
        out.append(swapped(tokens, entities[1], entities[2]))
    return out


def make(set_path, out_path):
    with open(out_path, "w") as out:
        for line in open(set_path):
            topic = json.loads(line)
            forms = source_casing(" ".join(d["text"] for d in topic["documents"]))
            summaries = []
            for summary in topic["summaries"]:
                text = recase(summary["text"], forms)
                summaries.append(dict(summary, text=text))
                for k, version in enumerate(swaps(text, forms)):
                    summaries.append({"system": f"{summary['system']}#swap{k}", "text": version, "scores": {}})
            topic["summaries"] = summaries
            out.write(json.dumps(topic) + "\n")


def judge(set_path, features_path, columns):
    rows = {}
    with open(features_path) as f:
        for row in csv.DictReader(f):
            def value(name):
                cell = row.get(name, "")
                return float(cell) if cell not in ("", "nan", "NaN") else math.nan
            rows[(row["topic"], row["system"])] = (value("neural.src_sum"), value("neural.unc_sum"), value("neural.src_mean"))
    features = {"contrast": {}, "src_margin": {}, "unc_margin": {}, "src_mean (recased)": {}}
    for (topic, system), (src, unc, mean) in rows.items():
        if "#swap" in system:
            continue
        features["src_mean (recased)"][(topic, system)] = mean
        margins = []
        for k in range(2):
            other = rows.get((topic, f"{system}#swap{k}"))
            if other:
                margins.append((src - other[0], unc - other[1]))
        if margins:
            s = sum(m[0] for m in margins) / len(margins)
            u = sum(m[1] for m in margins) / len(margins)
            features["src_margin"][(topic, system)] = s
            features["unc_margin"][(topic, system)] = u
            features["contrast"][(topic, system)] = s - u
    for column in columns:
        humans = human_scores(set_path, column)
        cells = []
        for name, values in features.items():
            values = {k: v for k, v in values.items() if not math.isnan(v)}
            tau, topics = mean_topic_kendall(values, humans, count=True)
            cells.append(f"{name} {tau:.3f} ({topics} topics, {len(values)} summaries)")
        print(column, " | ".join(cells), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    else:
        judge(sys.argv[2], sys.argv[3], sys.argv[4:])
