"""Render a built-in model's card (Markdown) from the files scripts/train-builtin wrote.

Usage: builtin_card.py NAME TARGET SET COLUMN NOREF LEARNER WORKDIR "SEEDS" COMMIT
"""
import json
import os
import re
import statistics
import sys

name, target, set_name, column, noref, learner, work, seeds, commit = sys.argv[1:10]
seeds = seeds.split()
reference_free = noref == "yes"

# Anchors of ../shared/docs/EVALUATION.md (summary-level tau / system-level tau).
ANCHORS = {
    ("realsumm", "litepyramid_recall"): [
        ("best single reference-free feature (JS)", ".253 / .594"),
        ("best single feature with references (ROUGE-1 R)", ".409 / .754"),
        ("learned SVR-RBF anchor (S3-like)", ".339 / .667"),
        ("learned pairwise linear ranker anchor", ".385 / .790"),
    ],
    ("summeval", "relevance"): [
        ("best single reference-free feature (JS)", ".246 / .417"),
        ("best single feature with references (ROUGE-1 F)", ".253 / .583"),
        ("learned SVR-RBF anchor (S3-like)", ".185 / .233"),
        ("learned pairwise linear ranker anchor", ".303 / .417"),
    ],
    ("summeval", "coherence"): [
        ("best single reference-free feature (JS)", ".125 / .217"),
        ("best single feature with references (ROUGE-L F)", ".151 / .417"),
        ("learned SVR-RBF anchor (S3-like)", ".124 / .217"),
        ("learned pairwise linear ranker anchor", ".174 / .300"),
    ],
}
SETS = {
    "realsumm": "REALSumm (Bhandari et al. 2020; CNN/DM, 100 topics, 24 systems after dropping the duplicated "
    "`bart_out`, 1 reference each)",
    "summeval": "SummEval (Fabbri et al. 2021; CNN/DM, 100 topics, 16 systems, 11 references each, expert scores)",
}
PURPOSE = {
    "pyramid": "content selection against human references (TAC modified pyramid)",
    "responsiveness": "overall responsiveness (content and form together)",
    "readability": "readability / linguistic quality (coherence)",
}


def fmt(v):
    return f"{v:.3f}".replace("0.", ".", 1) if v >= 0 else f"-{-v:.3f}".replace("0.", ".", 1)


def estimate(report, key):
    for e in report["estimates"]:
        if e["name"] == key:
            i = e.get("interval")
            if i:
                return f"{fmt(e['value'])} [{fmt(i['lower'])}, {fmt(i['upper'])}]"
            return fmt(e["value"])
    return "n/a"


ev = json.load(open(f"{work}/{name}.eval.json"))
cvs = [json.load(open(f"{work}/{name}.cv.{s}.json")) for s in seeds]
log = open(f"{work}/{name}.train.log").read()
m = re.search(r"trained (\S+) on (\d+) rows \((\d+) features, (.*)\); wrote", log)
rows, features, hyper = (m.group(2), m.group(3), m.group(4)) if m else ("?", "?", "?")
size = os.path.getsize(f"models/builtin/{name}.aesop")
summary_taus = [c["summary_kendall_tau"] for c in cvs]
system_taus = [c["system_kendall_tau"] for c in cvs]
refs = "no references (reference-free features only)" if reference_free else "the human references"

print(f"# Built-in model `{name}`\n")
print(
    f"Predicts `{target}` ({PURPOSE[target]}) using {refs}; {learner} on {set_name} `{column}`, "
    f"protocol-1 summary τ {fmt(statistics.mean(summary_taus))}, system τ {fmt(statistics.mean(system_taus))}.\n"
)
print("## Data\n")
print(f"- Training set: {SETS[set_name]}, from ../shared/data (see its SOURCES.md for licences).")
print(f"- Target column: `{column}` (aesop target `{target}`); {rows} training rows.")
print(f"- Features: {features} columns from classes {', '.join(cvs[0]['classes'])}"
      + (" (reference-free only: graph keeps its `graph.input_*` features)." if reference_free else "."))
print(f"- Learner: `{learner}`, hyper-parameters {hyper} (chosen by inner cross-validation over the training "
      "topics unless fixed); features standardized with the training statistics, each column divided by "
      "the square root of its class size so that every feature class weighs the same.")
print(f"- File: models/builtin/{name}.aesop, {size:,} bytes, embedded in the binary; built from commit {commit} "
      f"by `scripts/train-builtin {name}`.\n")
print("## Protocol 1 (EVALUATION.md: 5 topic folds x 4 system folds, out-of-fold predictions)\n")
print(f"Seed {seeds[0]}, with 95% percentile-bootstrap intervals ({ev['bootstrap_samples']} samples "
      f"resampling {ev['resample']}):\n")
print("| statistic | value [95% CI] |\n|---|---|")
for label, key in [
    ("summary-level Kendall τ-b", "summary.kendall"),
    ("system-level Kendall τ-b", "system.kendall"),
    ("system-level Pearson r", "system.pearson"),
    ("system-level pairwise accuracy", "system.pairwise_accuracy"),
    ("input-level pairwise accuracy", "input.pairwise_accuracy"),
    ("global Kendall τ-b", "global.kendall"),
]:
    print(f"| {label} | {estimate(ev, key)} |")
print(f"\nAcross fold seeds {', '.join(seeds)}: summary τ "
      + ", ".join(fmt(t) for t in summary_taus) + f" (mean {fmt(statistics.mean(summary_taus))}); system τ "
      + ", ".join(fmt(t) for t in system_taus) + f" (mean {fmt(statistics.mean(system_taus))}).\n")
print("Anchors on the same data (EVALUATION.md, summary τ / system τ):\n")
for label, value in ANCHORS[(set_name, column)]:
    print(f"- {label}: {value}")
print("\n## Use\n")
print(f"`aesop score SET --model builtin:{name}`; `aesop score` without `--model` uses it for topics "
      + ("without references." if reference_free else "with references."))
print("Scores are on the learner's scale (a ranking SVM gives w·x): compare summaries of the same input, "
      "or systems by their means; they are not on the human scale.")
