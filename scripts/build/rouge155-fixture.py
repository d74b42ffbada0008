#!/usr/bin/env python3
"""Write tests/fixtures/rouge155_sample.tsv: what the Perl ROUGE-1.5.5 prints for the first
three topics of examples/data/summeval-sample.jsonl (48 summaries, each against its 11
references), the texts one sentence per line (split after each " . "), so that ROUGE-L and
ROUGE-W read several sentences and a length limit cuts inside them. Every measure of
`-n 4 -w 1.2 -2 4 -u` (ROUGE-1 to -4, -L, -W-1.2, -SU4, as DUC ran it) and of `-2 -1 -U`
(ROUGE-S* and -SU*, as pyrouge runs it by default) under five settings: A (the model average,
-f A), B (the best model, -f B), l30 (-l 30), b150 (-b 150), s (stopwords removed, -s).
tests/corpus_rouge.rs writes the same files and checks aesop's `rouge` and `rouge_extended`
classes against this table.

    scripts/build/rouge155-fixture.py ROUGE_HOME [PERL_INC]

ROUGE_HOME holds ROUGE-1.5.5.pl and data/ (smart_common_words.txt, WordNet-2.0.exc.db). ROUGE
is run in its -z mode (a peer and its models per line), which needs no XML parser: PERL_INC, if
given, is put first on Perl's @INC (a stand-in XML/DOM.pm there lets the script load without
XML::Parser). Flags: -n 4 -w 1.2 -2 4 -u -m -c 95 -r 1 -d -z SPL, plus the setting's; then
-n 1 -2 -1 -U -m -c 95 -r 1 -d -z SPL, plus the setting's, for ROUGE-S* and ROUGE-SU*.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rouge155_run import printed, write_listing  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(REPO, "examples", "data", "summeval-sample.jsonl")
OUT = os.path.join(REPO, "tests", "fixtures", "rouge155_sample.tsv")
SETTINGS = [
    ("A", ["-f", "A"]),
    ("B", ["-f", "B"]),
    ("l30", ["-l", "30"]),
    ("b150", ["-b", "150"]),
    ("s", ["-s"]),
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    home = sys.argv[1]
    inc = ["-I", sys.argv[2]] if len(sys.argv) == 3 else []
    with open(SAMPLE, encoding="utf-8") as f:
        articles = [json.loads(line) for line in f][:3]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        pairs, listing = write_listing(articles, work)
        for name, flags in SETTINGS:
            for doc_id, system, measure, recall, precision in printed(home, inc, listing, pairs,
                                                                      flags):
                rows.append((doc_id, system, name, measure, recall, precision))
    # Written beside the fixture and renamed over it once complete.
    with open(OUT + ".tmp", "w", encoding="utf-8") as out:
        out.write("doc_id\tsystem\tsetting\tmetric\trecall\tprecision\n")
        for row in rows:
            out.write("\t".join(row) + "\n")
    os.replace(OUT + ".tmp", OUT)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
