"""Scoring judgment sets with Ray Data: ``AesopScorer`` is a callable class for
``Dataset.map_batches``, so each Ray worker loads the models once and scores batches of topics.

Example (see docs/PYTHON.md for a cluster)::

    import ray, aesop.ray
    ds = ray.data.read_json("summeval.jsonl")            # one row per topic
    preds = ds.map_batches(aesop.ray.AesopScorer, batch_format="pandas", concurrency=2)
    preds.write_json("predictions/")

``ray.data.read_text`` works too (a ``text`` column of judgment-set lines): the lines then go to
aesop unchanged, which is also the fastest path.
"""

import json
import math

from . import Scorer, _warn

_COLUMNS = ("topic", "system", "target", "score", "raw", "model", "in_training")


def _plain(value):
    """Arrow/pandas/numpy values back to plain JSON-able Python; missing (None/NaN) dropped."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if not _missing(v)}
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _missing(v):
    if v is None:
        return True
    return isinstance(v, float) and math.isnan(v)


class AesopScorer:
    """Callable class for ``map_batches``: a batch of topics in, one row per prediction out
    (columns ``topic, system, target, score, raw, model, in_training``, the lines of ``aesop
    score``; ``raw`` is None for a model without a calibration; ``in_training`` True where the
    model learned from the summary).

    ``models``, ``neural``: as for :class:`aesop.Scorer` (default: the three default
    built-ins; ``fn_constructor_kwargs={"neural": True}`` for the neural ones).
    """

    def __init__(self, models=None, neural=False):
        self.scorer = Scorer(models, neural)

    def __call__(self, batch):
        rows, warnings = self.scorer._inner.score_json(self._topics(batch))
        _warn(warnings)
        # (topic, system, target, score, raw, has_raw, model, in_training): `has_raw` is not a
        # column.
        out = {k: [r[i] for r in rows] for k, i in zip(_COLUMNS, (0, 1, 2, 3, 4, 6, 7))}
        try:
            import pandas as pd  # noqa: PLC0415

            return pd.DataFrame(out, columns=list(_COLUMNS))
        except ImportError:
            return out

    @staticmethod
    def _topics(batch):
        """The batch's topics as JSON text: `text` lines as they are, else rows re-serialized."""
        columns = list(batch.columns) if hasattr(batch, "columns") else list(batch.keys())
        # `read_text` gives `text` (and `path` with include_paths=True); a topic row has `topic`.
        if "text" in columns and "topic" not in columns:
            return [str(line) for line in batch["text"] if str(line).strip()]
        if hasattr(batch, "to_dict") and hasattr(batch, "columns"):
            records = batch.to_dict("records")
        else:
            n = len(batch[columns[0]]) if columns else 0
            records = [{c: batch[c][i] for c in columns} for i in range(n)]
        return [json.dumps(_plain(r), ensure_ascii=False) for r in records]
