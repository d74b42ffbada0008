#!/usr/bin/env python3
"""Check the `rouge` and `rouge_extended` classes against the Perl ROUGE-1.5.5 on all of SummEval,
one sentence per line (a break after each " . "), every measure of -n 4 -w 1.2 -2 4 -u -m and
the ROUGE-S* and -SU* of -2 -1 -U -m (pyrouge's default run), under -f A and -f B: prints how many recall and precision values the two give and how many differ
(at 5 decimals, as ROUGE prints them). Not a test: ROUGE-1.5.5 and its printout are not shipped
(tests/fixtures/rouge155_sample.tsv, by scripts/build/rouge155-fixture.py, holds 48 summaries).

    scripts/experiments/rouge155-summeval-check.py ROUGE_HOME [PERL_INC]

ROUGE_HOME and PERL_INC as for scripts/build/rouge155-fixture.py; SummEval from
$AESOP_DATA/summeval/summeval.jsonl (default ../shared/data); aesop from target/release.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts", "build"))
from rouge155_run import printed, sentences, write_listing  # noqa: E402

DATA = os.environ.get("AESOP_DATA", os.path.join(REPO, "..", "shared", "data"))
AESOP = os.path.join(REPO, "target", "release", "aesop")
COLUMNS = {"ROUGE-1": "rouge.r1", "ROUGE-2": "rouge.r2", "ROUGE-3": "rouge_extended.r3",
           "ROUGE-4": "rouge_extended.r4", "ROUGE-L": "rouge.rl",
           "ROUGE-W-1.2": "rouge_extended.w", "ROUGE-SU4": "rouge.su4",
           "ROUGE-S*": "rouge_extended.s_star", "ROUGE-SU*": "rouge_extended.su_star"}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    home = sys.argv[1]
    inc = ["-I", sys.argv[2]] if len(sys.argv) == 3 else []
    with open(os.path.join(DATA, "summeval", "summeval.jsonl"), encoding="utf-8") as f:
        articles = [json.loads(line) for line in f]
    with tempfile.TemporaryDirectory() as work:
        pairs, listing = write_listing(articles, work)
        # The same texts as a judgment set for aesop.
        judgment_set = os.path.join(work, "set.jsonl")
        with open(judgment_set, "w", encoding="utf-8") as out:
            for article in articles:
                topic = {"topic": article["doc_id"],
                         "references": [{"id": str(i), "text": sentences(r)}
                                        for i, r in enumerate(article["ref_summs"])],
                         "summaries": [{"system": system, "text": sentences(s["sys_summ"])}
                                       for system, s in article["sys_summs"].items()]}
                out.write(json.dumps(topic) + "\n")
        for mode in ["A", "B"]:
            features = os.path.join(work, f"{mode}.csv")
            subprocess.run([AESOP, "features", judgment_set, "--classes", "rouge,rouge_extended",
                            "--rouge-mode", mode.lower(), "-o", features],
                           check=True, capture_output=True)
            with open(features, encoding="utf-8") as f:
                rows = {(r["topic"], r["system"]): r for r in csv.DictReader(f)}
            compared = differ = 0
            for doc_id, system, measure, recall, precision in printed(home, inc, listing, pairs,
                                                                      ["-f", mode]):
                row = rows[(doc_id, system)]
                for part, value in (("recall", recall), ("precision", precision)):
                    compared += 1
                    ours = f"{float(row[COLUMNS[measure] + '_' + part]):.5f}"
                    if ours != value:
                        differ += 1
                        print(f"-f {mode} {doc_id} {system} {measure} {part}: "
                              f"ROUGE {value}, aesop {ours}")
            print(f"-f {mode}: {compared} values compared, {differ} differ")


if __name__ == "__main__":
    main()
