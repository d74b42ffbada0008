"""Shared by the Python experiment scripts: the human scores of an aesop judgment set."""
import json


def human_scores(set_path, target):
    """{(topic, system): score} for every summary of the JSON Lines set that has `target`."""
    scores = {}
    for line in open(set_path):
        topic = json.loads(line)
        for summary in topic["summaries"]:
            value = summary.get("scores", {}).get(target)
            if value is not None:
                scores[(topic["topic"], summary["system"])] = value
    return scores
