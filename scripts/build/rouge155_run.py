"""Running the Perl ROUGE-1.5.5 on SummEval articles, for scripts/build/rouge155-fixture.py and
scripts/experiments/rouge155-summeval-check.py: the articles' summaries and references written
one file each, one sentence per line, a `-z SPL` list of each summary with its references, and
ROUGE's per-summary printout of every measure of the DUC run (`-n 4 -w 1.2 -2 4 -u`) and of
pyrouge's default skip-bigrams (`-2 -1 -U`: ROUGE-S*, ROUGE-SU*).

ROUGE_HOME holds ROUGE-1.5.5.pl and data/ (smart_common_words.txt, WordNet-2.0.exc.db). ROUGE is
run in its -z mode, which needs no XML parser: PERL_INC, if given, is put first on Perl's @INC (a
stand-in XML/DOM.pm there lets the script load without XML::Parser).
"""
import os
import re
import subprocess

# The DUC run's measures, then the unlimited skip-bigrams of pyrouge's default run (only its
# ROUGE-S* and ROUGE-SU* kept: its ROUGE-1 is the first run's).
RUNS = [(["-n", "4", "-w", "1.2", "-2", "4", "-u"], None),
        (["-n", "1", "-2", "-1", "-U"], ("ROUGE-S*", "ROUGE-SU*"))]


def sentences(text):
    """One sentence per line: a break after every " . " (the texts are tokenized)."""
    return re.sub(r" \. ", " .\n", text.strip())


def write_listing(articles, work):
    """Each article's summaries and references as files under `work`, one sentence per line, and
    the -z list of each summary with its references: ((doc_id, system) per list line, its path)."""
    pairs, lines = [], []
    for a, article in enumerate(articles):
        models = []
        for r, reference in enumerate(article["ref_summs"]):
            path = os.path.join(work, f"m{a}_{r}.txt")
            with open(path, "w", encoding="utf-8") as out:
                out.write(sentences(reference) + "\n")
            models.append(path)
        for system, summary in article["sys_summs"].items():
            path = os.path.join(work, f"p{a}_{system}.txt")
            with open(path, "w", encoding="utf-8") as out:
                out.write(sentences(summary["sys_summ"]) + "\n")
            pairs.append((article["doc_id"], system))
            lines.append(" ".join([path] + models))
    listing = os.path.join(work, "list.txt")
    with open(listing, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return pairs, listing


def printed(home, inc, listing, pairs, flags):
    """ROUGE's per-summary values under `flags` (-f B, -l 30, …), both runs:
    (doc_id, system, measure, recall, precision) as printed."""
    rows = []
    for measures, keep in RUNS:
        command = ["perl", *inc, os.path.join(home, "ROUGE-1.5.5.pl"), "-e",
                   os.path.join(home, "data"), *measures, "-m", "-c", "95", "-r", "1", "-d",
                   *flags, "-z", "SPL", listing]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            # X ROUGE-1 Eval 3.X R:0.36765 P:0.26080 F:0.30514
            m = re.match(r"X (ROUGE-\S+) Eval (\d+)\.X R:(\S+) P:(\S+) F:\S+", line)
            if m and (keep is None or m.group(1) in keep):
                doc_id, system = pairs[int(m.group(2)) - 1]
                rows.append((doc_id, system, m.group(1), m.group(3), m.group(4)))
    return rows
