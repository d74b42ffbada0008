"""Dependency arcs a summary writes that its source never makes: a lexical stand-in for
dependency-level entailment (Goyal and Durrett 2020, DAE), tried on the consistency columns
(docs/PROBES.md, "Consistency"; a probe).

`neural.unsupported_share` and `surface.novel_*` see words the source lacks. A summary that
swaps roles ("Merson was brought on", where the source brought on Townsend) uses only the
source's words; its error is in how they are joined. Here every text is parsed by `aesop
analyze`; a summary arc (head word, relation, dependent word) between two words that both occur
in the source is "checkable", and unsupported when no source sentence holds that arc. Words are
compared lowercased; summaries are truecased from the source first (SummEval's outputs are
mostly lowercased, which the tagger reads badly), so both sides are parsed alike.

Per summary, oriented so that fewer unsupported arcs = more consistent:
  -arc_unsupported_share      share of checkable labelled arcs absent from the source
  -arc_unsupported_count      their number
  -pair_unsupported_share     the same with the relation and direction ignored
  -core_arc_unsupported_share only subject, object, oblique, modifier arcs between content words
each printed as summary-level Kendall tau (mean over topics, `aesop evaluate`'s rule) with the
number of topics it ranks, next to `-neural.unsupported_share` and `-surface.novel_1` read from
a features CSV, and the union `-neural.unsupported_share - arc share` (a sum of the two).

Usage (scipy):
  aesop features SET.jsonl --classes surface,neural --neural-references 0 -o f.csv
  python3 scripts/experiments/unsupported_arcs.py AESOP SET.jsonl TARGET f.csv [CACHE_DIR]
AESOP is the aesop binary; CACHE_DIR keeps the parses (default: none). With ARCS_RAW=1 in the
environment the summaries are parsed as written, not recased. The class `arcs` computes the
first four in aesop (docs/FEATURES.md); this script also prints the tie-break analyses.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter

from judgments import human_scores, mean_topic_kendall, negated_feature_columns

if len(sys.argv) not in (5, 6):
    sys.exit(__doc__)
aesop, set_path, target, features_path = sys.argv[1:5]
cache_dir = sys.argv[5] if len(sys.argv) == 6 else None

MARK = "Xqzdocmark"
SKIP = {"punct", "det", "case", "cc", "aux", "cop", "mark", "dep", "root", "discourse", "expl"}
CORE = {"nsubj", "obj", "iobj", "obl", "nmod", "amod", "nummod", "compound", "flat", "appos", "ccomp", "xcomp", "conj"}
CONTENT = {"NOUN", "PROPN", "VERB", "ADJ", "NUM", "ADV"}
WORD = re.compile(r"\S+")


def truecase(text, cased):
    """Each word in the casing the source uses most for it (a word the source lacks stays)."""
    return " ".join(cased.get(w.lower(), w) for w in text.split())


def parse_all(texts):
    """CoNLL-U sentences of each text, as lists of (form, upos, head, deprel) per sentence."""
    blob = "".join(f"{MARK} {i} .\n\n{t}\n\n" for i, t in enumerate(texts)) + f"{MARK} end .\n"
    key = hashlib.sha256(blob.encode()).hexdigest()[:16]
    out = None
    if cache_dir:
        path = os.path.join(cache_dir, key + ".conllu")
        if os.path.exists(path):
            out = open(path).read()
    if out is None:
        out = subprocess.run([aesop, "analyze"], input=blob, capture_output=True, text=True, check=True).stdout
        if cache_dir:
            os.makedirs(cache_dir, exist_ok=True)
            open(os.path.join(cache_dir, key + ".conllu"), "w").write(out)
    docs, current, sentence = [], None, []
    for line in out.split("\n") + [""]:
        if not line:
            if sentence:
                if sentence[0][0] == MARK:
                    if current is not None:
                        docs.append(current)
                    current = []
                else:
                    current.append(sentence)
                sentence = []
            continue
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if "-" in cols[0] or "." in cols[0]:
            continue
        sentence.append((cols[1], cols[3], int(cols[6]), cols[7].split(":")[0]))
    if len(docs) != len(texts):
        sys.exit(f"parsed {len(docs)} texts, expected {len(texts)}")
    return docs


def arcs(doc, core_only=False):
    out = []
    for sentence in doc:
        for form, upos, head, rel in sentence:
            if head == 0 or rel in SKIP:
                continue
            h_form, h_upos = sentence[head - 1][0], sentence[head - 1][1]
            if core_only and (rel not in CORE or upos not in CONTENT or h_upos not in CONTENT):
                continue
            out.append((h_form.lower(), rel, form.lower()))
    return out


values = {}


def put(name, key, value):
    values.setdefault(name, {})[key] = value


topics = [json.loads(line) for line in open(set_path)]
texts, owners = [], []
for topic in topics:
    source = " ".join(d["text"] for d in topic["documents"])
    counts = Counter(WORD.findall(source))
    cased = {}
    for w, n in counts.most_common():
        cased.setdefault(w.lower(), w)
    texts.append(source)
    owners.append((topic["topic"], None))
    for summary in topic["summaries"]:
        texts.append(truecase(summary["text"], cased) if os.environ.get("ARCS_RAW") is None else summary["text"])
        owners.append((topic["topic"], summary["system"]))
docs = parse_all(texts)

source_arcs = source_pairs = source_words = None
for (topic, system), doc in zip(owners, docs):
    if system is None:
        labelled = arcs(doc)
        source_arcs = set(labelled)
        source_pairs = {frozenset((h, d)) for h, _, d in labelled}
        source_words = {form.lower() for sentence in doc for form, *_ in sentence}
        continue
    key = (topic, system)
    checkable = [a for a in arcs(doc) if a[0] in source_words and a[2] in source_words and a[0] != a[2]]
    core = [a for a in arcs(doc, True) if a[0] in source_words and a[2] in source_words and a[0] != a[2]]
    missing = [a for a in checkable if a not in source_arcs]
    missing_pairs = [a for a in checkable if frozenset((a[0], a[2])) not in source_pairs]
    missing_core = [a for a in core if a not in source_arcs]
    if checkable:
        put("-arc_unsupported_share", key, -len(missing) / len(checkable))
        put("-pair_unsupported_share", key, -len(missing_pairs) / len(checkable))
    put("-arc_unsupported_count", key, -len(missing))
    if core:
        put("-core_arc_unsupported_share", key, -len(missing_core) / len(core))

values.update(negated_feature_columns(features_path, ("surface.novel_1", "neural.unsupported_share")))
for key, share in values["-neural.unsupported_share"].items():
    arc = values["-arc_unsupported_share"].get(key)
    if arc is not None:
        put("-neural.unsupported_share + -arc_unsupported_share", key, share + arc)

scores = human_scores(set_path, target)
for name, by_key in values.items():
    tau, ranked = mean_topic_kendall(by_key, scores, count=True)
    print(f"{tau:+.3f}  {ranked:4d} topics  {name}")

# Tie-breaks: order by `-neural.unsupported_share` (or `-surface.novel_1`), and by the arc
# share where it ties; and the arc share among the summaries it leaves at 0.
for base in ("-neural.unsupported_share", "-surface.novel_1"):
    for arc in ("-arc_unsupported_share", "-pair_unsupported_share", "-core_arc_unsupported_share"):
        first, second = values.get(base, {}), values[arc]
        broken = {k: first[k] * 1000 + second[k] for k in first if k in second}
        zero = {k: second[k] for k in first if k in second and first[k] == 0}
        tau, ranked = mean_topic_kendall(broken, scores, count=True)
        print(f"{tau:+.3f}  {ranked:4d} topics  {base} ties broken by {arc}")
        tau, ranked = mean_topic_kendall(zero, scores, count=True)
        print(f"{tau:+.3f}  {ranked:4d} topics  {arc} where {base} is 0")
