"""Blend two models' predictions (each model's raw output z-scored within its topic, then
(1 - w) * first + w * second) and write one predictions file per set and weight, for
`aesop evaluate --predicted TARGET`. A probe of docs/PROBES.md ("Held-out sets"): the two files are
`cross-validate --leave-one-set-out -o` outputs of two recipes over the same sets.

Usage: blend_held_out.py FIRST.jsonl SECOND.jsonl OUT_DIR 0,0.25,0.5,0.75,1
Writes OUT_DIR/SET.wW.jsonl for every set of the rows both files hold.
"""
import collections
import json
import os
import statistics
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            rows[(row["set"], row["topic"], row["system"])] = row
    return rows


def z_within_topic(rows, keys):
    by_topic = collections.defaultdict(list)
    for key in keys:
        by_topic[key[:2]].append(key)
    z = {}
    for members in by_topic.values():
        values = [rows[k]["raw"] for k in members]
        mean, sd = statistics.fmean(values), statistics.pstdev(values) or 1.0
        for k in members:
            z[k] = (rows[k]["raw"] - mean) / sd
    return z


def main():
    first_path, second_path, out_dir, weights = sys.argv[1:5]
    first, second = load(first_path), load(second_path)
    keys = [k for k in first if k in second]
    z_first, z_second = z_within_topic(first, keys), z_within_topic(second, keys)
    os.makedirs(out_dir, exist_ok=True)
    for w in (float(x) for x in weights.split(",")):
        for set_name in sorted({k[0] for k in keys}):
            with open(os.path.join(out_dir, f"{set_name}.w{w}.jsonl"), "w") as out:
                for k in keys:
                    if k[0] != set_name:
                        continue
                    row = {key: v for key, v in first[k].items() if key not in ("raw", "set")}
                    row["score"] = (1 - w) * z_first[k] + w * z_second[k]
                    out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
