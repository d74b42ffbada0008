"""Shared by the Python experiment scripts: the `neural` class's per-token log
(AESOP_NEURAL_TOKENS), and each summary's words grouped as the class groups them."""
import json


def scored_summaries(path):
    """(record, words) for every summary of the token log at `path` that has scored tokens;
    `words` is `words(...)` of the record's tokens."""
    for line in open(path):
        record = json.loads(line)
        if record["given_source"]:
            yield record, words(record["tokens"], record["given_source"], record["unconditional"])


def words(tokens, given, unconditional):
    """[(word, [log-probs given the source], [unconditional log-probs])]: a token starting with
    whitespace (or the first token) starts a word; words of whitespace only are dropped."""
    out = []
    for tok, a, b in zip(tokens, given, unconditional):
        if not out or tok[:1].isspace():
            out.append([tok, [a], [b]])
        else:
            out[-1][0] += tok
            out[-1][1].append(a)
            out[-1][2].append(b)
    return [(w.strip(), a, b) for w, a, b in out if w.strip()]
