"""Render a built-in model's card (Markdown) from the files scripts/build/train-builtin wrote.

Usage: builtin_card.py NAME TARGET NOREF WORKDIR "SEEDS" "SET:COLUMN ..." COMMIT [BOOTSTRAP]

Reads WORKDIR/NAME.loso.json, NAME.loso.seconds, NAME.train.log, NAME.p1.SET.SEED.json and the
model WORKDIR/NAME.aesop; prints the card on standard output. BOOTSTRAP is the number of bootstrap
samples the leave-one-set-out run used (train-builtin passes it). Exits non-zero (and the caller
keeps the committed card) when a file is missing or the train log no longer matches.
"""
import json
import os
import re
import statistics
import sys

if len(sys.argv) not in (8, 9):
    sys.exit(__doc__.strip())
name, target, noref, work, seeds, sets, commit = sys.argv[1:8]
bootstrap = sys.argv[8] if len(sys.argv) == 9 else None
seeds = seeds.split()
sets = [s.split(":", 1) for s in sets.split()]
reference_free = noref == "yes"

SETS = {
    "realsumm": "REALSumm (CNN/DM, 100 topics, 24 systems, 1 reference)",
    "summeval": "SummEval (CNN/DM, 100 topics, 16 systems, 11 references, expert scores)",
    "newsroom": "Newsroom (60 topics, 7 systems, 1 reference)",
    "dialsummeval": "DialSummEval (SAMSum dialogues, 100 topics, 14 systems, 1 reference)",
    "summeval-op": "SummEval-OP (opinion summaries, 32 topics, 13 systems, no references)",
}
PURPOSE = {
    "pyramid": "content selection against human references (TAC modified pyramid)",
    "responsiveness": "overall responsiveness (content and form together)",
    "readability": "readability / linguistic quality (coherence)",
    "faithfulness": "faithfulness to the source (factual consistency)",
}
# Where each judgment set comes from and under which terms (../shared/data/SOURCES.md): the model's
# weights are learned from these sets' human scores and texts.
LICENCES = {
    "summeval": "SummEval (Fabbri et al. 2021): scores MIT (SummEval repository), data as paired by BARTScore "
                "(Apache-2.0); CNN/DailyMail article text belongs to its publishers (research use)",
    "realsumm": "REALSumm (Bhandari et al. 2020): CC BY 4.0; CNN/DailyMail article text belongs to its publishers "
                "(research use)",
    "newsroom": "Newsroom human evaluation (Grusky et al. 2018): scores via BARTScore (Apache-2.0); the Newsroom "
                "articles are under their authors' terms of use, not stated in the repository: research use only",
    "dialsummeval": "DialSummEval (Gao & Wan 2022): no licence stated; its dialogues are SAMSum (CC BY-NC-ND 4.0)",
    "summeval-op": "SummEval-OP (Siledar et al. 2024): MIT; the reviews are Amazon reviews (Bražinskas et al. test set)",
}
SCALE = {
    "pyramid": "REALSumm `litepyramid_recall`, in [0, 1]",
    "responsiveness": "the 1-5 Likert scale of the `responsiveness` columns",
    "readability": "the 1-5 Likert scale of the `readability` columns",
    "faithfulness": "the 1-5 Likert scale of SummEval `consistency`",
}


def fmt(v, digits=3, sign=False):
    """`v` with `digits` decimals and no leading zero; `—` where it is undefined (JSON null: NaN,
    e.g. bootstrap wins and permutation p with BOOTSTRAP=0)."""
    if v is None or v != v:
        return "—"
    text = f"{abs(v):.{digits}f}".replace("0.", ".", 1)
    return ("-" if v < 0 else "+" if sign else "") + text


def mean(values):
    """Mean, or None (shown as `—`) when any value is undefined."""
    values = list(values)
    if any(v is None or v != v for v in values):
        return None
    return statistics.mean(values)


def stat(s):
    return f"{fmt(s['value'])} [{fmt(s['lower'])}, {fmt(s['upper'])}]"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


loso = json.loads(read(f"{work}/{name}.loso.json"))
seconds = read(f"{work}/{name}.loso.seconds").strip()
log = read(f"{work}/{name}.train.log")
m = re.search(r"trained (\S+) on (\d+) rows \((\d+) features?, (.*)\); wrote", log)
if not m:
    sys.exit(f"builtin_card.py: {work}/{name}.train.log has no line 'trained … on N rows (F features, …); wrote'; "
             "`aesop train`'s message changed: update the pattern in scripts/build/builtin_card.py")
rows, features, hyper = m.group(2), m.group(3), m.group(4)
size = os.path.getsize(f"{work}/{name}.aesop")
held = loso["leave_one_set_out"]
means = mean(h["model"]["summary_kendall"]["value"] for h in held)
refs = "no references (reference-free features only)" if reference_free else "the human references"

# Reports from aesop since 2026-12-02 also carry the feature a user could have chosen without the
# held-out set (`chosen_without_the_set`): the fair single-feature comparator of protocol 2.
has_chosen = all("chosen_without_the_set" in h for h in held)
if has_chosen:
    chosen_mean = mean(h["chosen_without_the_set"]["stats"]["summary_kendall"]["value"]
                       if h["chosen_without_the_set"] else None for h in held)
    beaten = sum(1 for h in held if h["chosen_without_the_set"]
                 and h["chosen_without_the_set"]["summary_difference"] > 0)
    against = (f", against {fmt(chosen_mean)} for the single feature chosen without each held-out set "
               f"(the model wins {beaten} of {len(held)})")
else:
    against = ""

print(f"# Built-in model `{name}`\n")
print(f"Predicts `{target}` ({PURPOSE[target]}) using {refs}; rank-svm trained on {len(sets)} judgment sets; "
      f"leave-one-set-out summary τ {fmt(means)} (mean over held-out sets){against}.\n")
print("## Data\n")
for s, col in sets:
    print(f"- {SETS.get(s, s)}: column `{col}`.")
print("- Data and licences (../shared/data/SOURCES.md): the weights are learned from these sets' human scores "
      "and texts.")
for s, _ in sets:
    print(f"  - {LICENCES.get(s, s + ': see ../shared/data/SOURCES.md')}.")
print(f"- {rows} training rows in all. Ranking pairs stay within a topic of one set; sets are not weighted.")
print(f"- Features: {features} columns from classes {', '.join(loso['classes'])}"
      + (" (reference-free only: graph keeps its `graph.input_*` features)." if reference_free and "graph" in loso["classes"]
         else " (reference-free only)." if reference_free else ".")
      + " No batch-dependent class (`consensus`) and no within-topic normalization: a summary's score"
      " depends on that summary (and its inputs and references) alone.")
print("- Feature ranges: the model stores each column's smallest and largest training value (model format 5), and "
      "`score` clamps every feature into that range, so a value no training summary had (the length of a "
      "100,000-character summary) moves the score no further than the most extreme training summary did.")
lm_class = next((c for c in loso["classes"] if c in ("neural", "neural_truecased")), None)
if lm_class:
    recased = (", each summary's lowercase words cased as its source writes them (docs/NEURAL.md, \"Casing "
               "from the source\")" if lm_class == "neural_truecased" else "")
    print(f"- The `{lm_class}` class scores every summary with SmolLM2-135M (Apache-2.0, SmolLM2 by "
          "Hugging Face; models/SMOLLM2_MODEL_CARD.md), reference-free features only (`--neural-references 0`, "
          f"source budget 1,400 tokens; the options are stored in the model file){recased}. Scoring needs "
          "`aesop models fetch smollm2` once; docs/NEURAL.md gives the cost.")
section = "Neural built-ins" if lm_class else "Models that transfer"
matched = re.search(r", pairs within (\S+) in length$", hyper)
if matched:
    hyper = hyper[: matched.start()]
anchored = re.search(r", anchored on (\S+)$", hyper)
if anchored:
    hyper = hyper[: anchored.start()]
print(f"- Learner: `rank-svm`, {hyper}, classes and C chosen by leave-one-set-out results "
      f"(docs/RESULTS.md, \"{section}\").")
if anchored:
    print(f"- Anchored on `{anchored.group(1)}` (`--anchor`): the ranker's penalty is centred on that one feature "
          "(one training standard deviation per unit of score, signed as it orders the training pairs), so the "
          "model starts as that feature and C lets the others move it (docs/RESULTS.md, \"Anchored rankers\").")
if matched:
    print(f"- Pairs of matched length (`--pair-length-tolerance`): the ranker learns only from pairs of summaries "
          f"whose word counts are within {matched.group(1)} of the longer one's, so its weights say what orders "
          "summaries beyond length, which orders most pairs on some corpora and few on others (docs/RESULTS.md, "
          "\"Pairs of matched length\").")
print(f"- File: models/builtin/{name}.aesop, {size:,} bytes, embedded in the binary; built from commit {commit} "
      f"by `scripts/build/train-builtin {name}`.\n")
print("## Scale\n")
# Held-out calibration error: only where the held-out column is the target and another set taught that scale.
on_scale = [h for h in held if h["column"] == target and h["calibrated_mae"] is not None
            and h["calibrated_mae"] == h["calibrated_mae"] and sum(1 for _, c in sets if c == target) > 1]
if on_scale:
    mae = sum(h["calibrated_mae"] * h["rows"] for h in on_scale) / sum(h["rows"] for h in on_scale)
    mae_text = (f"{fmt(mae)} (leave-one-set-out, " + ", ".join(f"{h['set']} {fmt(h['calibrated_mae'])}" for h in on_scale) + ")")
else:
    mae_text = ("not measurable by leaving a set out: only one visible set is on this scale, so a model trained "
                "without it has no scale to learn; protocol 1 on that set gives it below")
print(f"Scores are calibrated to {SCALE[target]}: a linear map of the ranker's raw output fitted by least squares "
      "on the training rows of the sets whose column is the target (the slope of the within-topic deviations where the "
      "pooled slope comes out flat), clamped to their range; `raw` keeps the ranker's "
      f"output. Mean absolute error of the calibrated scores on held-out data: {mae_text}.\n")
print(f"## Protocol 2: leave one set out ({seconds} s for all folds)\n")
seed = f", seed {loso['seed']}" if loso.get("seed") is not None else ""
if bootstrap == "0":
    intervals = "no bootstrap samples (`BOOTSTRAP=0`), so no intervals, wins or p (`—`)"
else:
    samples = f"{int(bootstrap):,} " if bootstrap else ""
    intervals = f"95% intervals from {samples}bootstrap samples resampling topics and systems{seed}"
print("Each row: a model of this recipe trained on every other set, scoring the held-out set; the best single "
      f"feature of the same classes on that set (among those with a value for at least 95% of its summaries that rank the summaries of at least 95% of its topics) is chosen in hindsight (sign included); {intervals}; paired test "
      "on summary τ (Koehn bootstrap share of wins, permutation p).\n")
print("| held-out set | summary τ | system τ | system pairwise acc. | best single feature | its summary τ | Δ | wins | p |")
print("|---|---|---|---|---|---|---|---|---|")
for h in held:
    print(f"| {h['set']} `{h['column']}` | {stat(h['model']['summary_kendall'])} | {stat(h['model']['system_kendall'])} "
          f"| {stat(h['model']['system_pairwise_accuracy'])} | `{h['best_feature']}` "
          f"| {stat(h['best_feature_stats']['summary_kendall'])} | {fmt(h['summary_difference'], sign=True)} "
          f"| {fmt(h['bootstrap_model_wins'], 2)} | {fmt(h['permutation_p'])} |")
if has_chosen:
    print("\nAgainst the single feature a user could choose for a new corpus: the one the other sets rank first "
          "by mean summary τ, read their way round, among the features with a value on every set (its sign "
          "and its choice made without the held-out set; same intervals and paired test):\n")
    print("| held-out set | model | feature chosen on the other sets | their mean τ | its summary τ here | Δ | wins "
          "| p |\n|---|---|---|---|---|---|---|---|")
    for h in held:
        chosen = h["chosen_without_the_set"]
        if chosen is None:
            print(f"| {h['set']} `{h['column']}` | {stat(h['model']['summary_kendall'])} | none covers every set "
                  "| — | — | — | — | — |")
            continue
        print(f"| {h['set']} `{h['column']}` | {stat(h['model']['summary_kendall'])} | `{chosen['feature']}` "
              f"| {fmt(chosen['mean_on_training_sets'])} | {stat(chosen['stats']['summary_kendall'])} "
              f"| {fmt(chosen['summary_difference'], sign=True)} | {fmt(chosen['bootstrap_model_wins'], 2)} "
              f"| {fmt(chosen['permutation_p'])} |")
    print(f"| mean over held-out sets | {fmt(means)} | | | {fmt(chosen_mean)} | "
          f"{fmt(None if chosen_mean is None else means - chosen_mean, sign=True)} | | |")
    print(f"\nThe model beats the feature chosen without the set on {beaten} of {len(held)} held-out sets.")
# Reports from aesop since stop 61 carry the accuracy at matched length; older ones do not.
if all("input_length_matched_accuracy" in h["model"] for h in held):
    print("\nAt matched length (input-level pairwise accuracy over the pairs of summaries within 10% of each "
          "other in words: what orders them beyond length), with what length alone orders on all the pairs the "
          "annotators order and on those:\n")
    print("| held-out set | model | best single feature | length alone: all / matched |\n|---|---|---|---|")
    for h in held:
        alone = h["length_alone"]
        print(f"| {h['set']} `{h['column']}` | {stat(h['model']['input_length_matched_accuracy'])} "
              f"| {stat(h['best_feature_stats']['input_length_matched_accuracy'])} "
              f"| {fmt(alone['all']['accuracy'])} / {fmt(alone['matched']['accuracy'])} |")
# Reports from aesop since stop 85 name, per held-out set, the features outside the training sets'
# range (those `aesop score` would warn about); older ones do not.
if all("outside_training_range" in h for h in held):
    print("\nFeatures outside their range over the training sets (clamped into it before the model reads them, as "
          "`aesop score` clamps; named where at least 5% of the held-out summaries, and at least five, lie outside "
          "it, as `aesop score` names them in its warning; docs/MODEL_FILE.md, \"Feature ranges\"):\n")
    for h in held:
        outside = h["outside_training_range"]
        named = ", ".join(
            f"`{o['feature']}` {'below' if o['below'] and not o['above'] else 'above' if o['above'] and not o['below'] else 'below and above'} "
            f"for {o['below'] + o['above']} ({100 * o['share']:.0f}%)" for o in outside[:5])
        if len(outside) > 5:
            named += f", {len(outside) - 5} more"
        print(f"- {h['set']} `{h['column']}`: {named or 'none'}")
p1 = {(s, seed): json.loads(read(f"{work}/{name}.p1.{s}.{seed}.json")) for s, _ in sets for seed in seeds}
folds = sorted({(c["topic_folds"], c["system_folds"]) for c in p1.values()})
folds_text = "; ".join(f"{t} topic folds x {y} system folds" for t, y in folds)
print(f"\n## Protocol 1 on each set alone ({folds_text})\n")
print("| set | fold seeds | summary-level Kendall τ-b | system-level Kendall τ-b | calibrated MAE |\n|---|---|---|---|---|")
for s, col in sets:
    cvs = [p1[(s, seed)] for seed in seeds]
    print(f"| {s} `{col}` | {', '.join(seeds)} | {fmt(mean(c['summary_kendall_tau'] for c in cvs))} "
          f"| {fmt(mean(c['system_kendall_tau'] for c in cvs))} "
          f"| {fmt(mean(c['calibrated_mae'] for c in cvs))} |")
print("\n## Use\n")
default = "`aesop score --neural`" if lm_class else "`aesop score`"
# The default picks NAME for topics with references and NAME-noref for those without; a model
# with no -noref twin (faithfulness) is used for every topic.
if name.endswith("-noref"):
    topics = "topics without references."
elif reference_free and not os.path.exists(f"models/builtin/{name}-noref.aesop"):
    topics = "every topic (it is the only model of its target)."
else:
    topics = "topics with references."
print(f"`aesop score SET --model builtin:{name}`; {default} without `--model` uses it for {topics}")
