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
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("AESOP_DATA", os.path.join(REPO, "..", "shared", "data"))
AESOP = os.path.join(REPO, "target", "release", "aesop")
COLUMNS = {"ROUGE-1": "rouge.r1", "ROUGE-2": "rouge.r2", "ROUGE-3": "rouge_extended.r3",
           "ROUGE-4": "rouge_extended.r4", "ROUGE-L": "rouge.rl",
           "ROUGE-W-1.2": "rouge_extended.w", "ROUGE-SU4": "rouge.su4",
           "ROUGE-S*": "rouge_extended.s_star", "ROUGE-SU*": "rouge_extended.su_star"}
# The DUC run's measures, then the unlimited skip-bigrams of pyrouge's default run.
RUNS = [(["-n", "4", "-w", "1.2", "-2", "4", "-u"], None),
        (["-n", "1", "-2", "-1", "-U"], ("ROUGE-S*", "ROUGE-SU*"))]


def sentences(text):
    return re.sub(r" \. ", " .\n", text.strip())


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    home = sys.argv[1]
    inc = ["-I", sys.argv[2]] if len(sys.argv) == 3 else []
    with open(os.path.join(DATA, "summeval", "summeval.jsonl"), encoding="utf-8") as f:
        articles = [json.loads(line) for line in f]
    with tempfile.TemporaryDirectory() as work:
        pairs, lines, topics = [], [], []
        for a, article in enumerate(articles):
            models = []
            for r, reference in enumerate(article["ref_summs"]):
                path = os.path.join(work, f"m{a}_{r}.txt")
                with open(path, "w", encoding="utf-8") as out:
                    out.write(sentences(reference) + "\n")
                models.append(path)
            summaries = []
            for system, summary in article["sys_summs"].items():
                path = os.path.join(work, f"p{a}_{system}.txt")
                with open(path, "w", encoding="utf-8") as out:
                    out.write(sentences(summary["sys_summ"]) + "\n")
                pairs.append((article["doc_id"], system))
                lines.append(" ".join([path] + models))
                summaries.append({"system": system, "text": sentences(summary["sys_summ"])})
            topics.append({"topic": article["doc_id"], "summaries": summaries,
                           "references": [{"id": str(i), "text": sentences(r)}
                                          for i, r in enumerate(article["ref_summs"])]})
        listing = os.path.join(work, "list.txt")
        with open(listing, "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
        judgment_set = os.path.join(work, "set.jsonl")
        with open(judgment_set, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(t) + "\n" for t in topics)
        for mode in ["A", "B"]:
            printed = []
            for measures, keep in RUNS:
                command = ["perl", *inc, os.path.join(home, "ROUGE-1.5.5.pl"), "-e",
                           os.path.join(home, "data"), *measures, "-m", "-c", "95", "-r", "1",
                           "-d", "-f", mode, "-z", "SPL", listing]
                out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                printed += [line for line in out.splitlines()
                            if keep is None or any(f"X {k} Eval" in line for k in keep)]
            features = os.path.join(work, f"{mode}.csv")
            subprocess.run([AESOP, "features", judgment_set, "--classes", "rouge,rouge_extended",
                            "--rouge-mode", mode.lower(), "-o", features],
                           check=True, capture_output=True)
            with open(features, encoding="utf-8") as f:
                rows = {(r["topic"], r["system"]): r for r in csv.DictReader(f)}
            compared = differ = 0
            for line in printed:
                m = re.match(r"X (ROUGE-\S+) Eval (\d+)\.X R:(\S+) P:(\S+) F:\S+", line)
                if not m:
                    continue
                row = rows[pairs[int(m.group(2)) - 1]]
                for part, value in (("recall", m.group(3)), ("precision", m.group(4))):
                    compared += 1
                    ours = f"{float(row[COLUMNS[m.group(1)] + '_' + part]):.5f}"
                    if ours != value:
                        differ += 1
                        print(f"-f {mode} {pairs[int(m.group(2)) - 1]} {m.group(1)} {part}: "
                              f"ROUGE {value}, aesop {ours}")
            print(f"-f {mode}: {compared} values compared, {differ} differ")


if __name__ == "__main__":
    main()
