"""aesop from Python: predict human judgments of summaries with aesop's built-in or trained models.

The scoring is aesop's own Rust code (the one ``aesop score`` runs), so results equal the CLI's
bit for bit. The GIL is released while scoring; a :class:`Scorer` is thread-safe and pickles
(the models are loaded again on the other side), so Ray and Spark can ship it to workers.

Example::

    >>> import aesop
    >>> scorer = aesop.Scorer()                      # pyramid, responsiveness, readability
    >>> scores = scorer.score(["The cat sat on the mat."], ["A cat sat on a mat all day."])
    >>> sorted(scores)
    ['pyramid-noref', 'readability-noref', 'responsiveness-noref']
"""

import json as _json
import os as _os
import typing as _typing
import warnings as _warnings

# As the CLI does at start (aesop_neural::configure_cpu_threads): idle workers of the neural LM's
# CPU thread pool spin briefly, so topics scored in parallel keep their cores. Speed only.
_os.environ.setdefault("CANDLE_BARRIER_POOL_SPIN_LIMIT", "200")
# The LMs' element-wise operations on the thread of their topic (topics run in parallel): candle
# then starts no worker threads of its own, which a process forked from this one would lack
# (its LM passes are refused there, aesop_neural::fork), and a batch of topics runs 2-4 % faster
# on 2 cores. A value the user set is kept.
_os.environ.setdefault("CANDLE_NUM_THREADS", "1")

from . import _aesop  # noqa: E402 (after the environment is set)

__version__ = _aesop.__version__
__all__ = ["Scorer", "AesopWarning", "Topic", "features", "evaluate", "topics_from_rows",
           "import_set", "read_set", "IMPORT_FORMATS", "rouge_score", "builtin_models", "lm_runs_on", "__version__"]

# One judgment-set topic (docs/JUDGMENT_SETS.md), as the type stubs name it.
Topic = _typing.Dict[str, _typing.Any]


class AesopWarning(UserWarning):
    """What ``aesop`` prints as a warning or note on the command line: summaries it could not
    score (their score is ``None``), a model whose scores depend on the rest of the batch,
    feature classes left without values. Filter it as any warning, e.g.
    ``warnings.simplefilter("error", aesop.AesopWarning)``."""


def _warn(messages, stacklevel=3):
    # stacklevel 3: the line of the user's code that called the public function (4 from a
    # helper of that function).
    for message in messages:
        _warnings.warn(message, AesopWarning, stacklevel=stacklevel)


def builtin_models():
    """Names of the built-in models (``aesop models`` lists them with their cards).

    >>> "pyramid" in aesop.builtin_models()
    True
    """
    return _aesop.builtin_models()


def lm_runs_on():
    """Where the neural LM classes run in this process, as ``aesop models`` says it: ``"the GPU
    (cuda, f32)"`` in the GPU wheel when it finds an NVIDIA GPU, else ``"the CPU, int8 (avx2
    kernel)"`` or ``"the CPU, f32"``. ``AESOP_NEURAL_PRECISION`` (``auto``, ``f32``, ``int8``,
    ``cuda``), read when the LM is loaded, chooses; a ValueError says why none applies (``cuda``
    without a GPU, an unknown value).

    >>> aesop.lm_runs_on().startswith(("the CPU", "the GPU"))
    True
    """
    return _aesop.lm_runs_on()


def _plain_scalar(value):
    """numpy scalars (``np.int64(3)``, ``np.bool_(True)``, ``np.float32(.5)``) as Python's own;
    anything else unchanged."""
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy":
        try:
            return item()
        except (TypeError, ValueError):
            return value
    return value


def _json_default(value):
    plain = _plain_scalar(value)
    if plain is value:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    return plain


def _first(value, path, bad):
    """The first ``(path, what)`` in ``value`` (dicts and lists walked, paths as the CLI names
    fields: ``summaries[1].text``) for which ``bad(leaf)`` gives a ``what``, or ``None``."""
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        what = bad(value)
        return None if what is None else (path, what)
    for sub, v in items:
        found = _first(v, sub, bad)
        if found is not None:
            return found
    return None


def _not_json(value):
    """The type name of a leaf JSON cannot hold (bytes, a set, an object), else ``None``."""
    value = _plain_scalar(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return None
    return type(value).__name__


def _not_unicode(value):
    """``"lone surrogate"`` for a str that is not valid Unicode, else ``None``."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "lone surrogate"
    return None


def _dumps(topic, index):
    if not isinstance(topic, dict):
        raise TypeError(f"topic {index}: expected a dict (one judgment-set line), got {type(topic).__name__}")
    try:
        text = _json.dumps(topic, ensure_ascii=False, allow_nan=True, default=_json_default)
    except (TypeError, ValueError) as e:
        found = _first(topic, "", _not_json)
        if found is not None:
            where, kind = found
            raise TypeError(f"topic {index}: {where}: expected a JSON value (str, number, bool, list, dict), got {kind}") from None
        raise TypeError(f"topic {index}: {e}") from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        where, _ = _first(topic, "", _not_unicode)
        raise ValueError(f"topic {index}: {where}: not valid Unicode (a lone surrogate)") from None
    return text


def _topics_json(topics):
    if isinstance(topics, dict):
        topics = [topics]
    if isinstance(topics, (str, bytes)):
        raise TypeError("topics: expected a list of topic dicts, got a string")
    if hasattr(topics, "to_dict") and hasattr(topics, "columns"):
        raise TypeError("topics: expected a list of topic dicts, got a DataFrame (use df.to_dict('records'))")
    try:
        topics = list(topics)
    except TypeError:
        raise TypeError(f"topics: expected a list of topic dicts, got {type(topics).__name__}") from None
    return [_dumps(t, i) for i, t in enumerate(topics)]


def _check_unicode(name, text):
    """A str that is not valid Unicode (a lone surrogate) as a ValueError naming ``name``."""
    if not _is_unicode(text):
        raise ValueError(f"{name}: not valid Unicode (a lone surrogate)")


class _Progress:
    """What ``progress=`` asks for, as the callable the compiled module tells what is finished
    to, ``tell(done, total)`` (``total`` 0 where the caller gave it here; a features table counts
    its columns only once it has read them): ``False`` nothing; a callable ``progress(done,
    total)`` itself; ``True`` a bar (tqdm's, which draws in notebooks too, when tqdm is
    installed; else a line on standard error about once a second). ``unit``: what is counted.
    Use as a context manager, so the bar is closed however the call ends."""

    def __init__(self, progress, total, what, unit="topic"):
        progress = _plain_scalar(progress)
        if progress is False or progress is None:
            self.tell = None
        elif callable(progress) and not isinstance(progress, bool):
            self._callback = progress
            self.tell = self._call
        elif progress is True:
            self.tell = self._draw
        else:
            raise TypeError(f"progress: expected a bool or a callable(done, total), got {type(progress).__name__}")
        self._total, self._what, self._unit, self._bar, self._last = total, what, unit, None, 0.0

    def _call(self, done, total=0):
        if total:
            self._total = total
        self._callback(done, self._total)

    def _draw(self, done, total=0):
        if total:
            self._total = total
        if self._bar is None:
            try:
                from tqdm.auto import tqdm
                self._bar = tqdm(total=self._total, desc=f"aesop {self._what}", unit=self._unit)
            except ImportError:
                self._bar = False
        if self._bar is False:
            import sys
            import time
            now = time.monotonic()
            if now - self._last >= 1.0 or done == self._total:
                self._last = now
                print(f"aesop {self._what}: {done}/{self._total} {self._unit}s", file=sys.stderr,
                      flush=True)
        else:
            self._bar.update(done - self._bar.n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._bar:
            self._bar.close()
        return False


def _check_bool(name, value):
    value = _plain_scalar(value)
    if not isinstance(value, bool):
        raise TypeError(f"{name}: expected bool, got {type(value).__name__}")
    return value


def _check_texts(name, texts, optional=False):
    if texts is None and optional:
        return None
    if isinstance(texts, str):
        texts = [texts]
    if isinstance(texts, (bytes, dict)) or not hasattr(texts, "__iter__"):
        raise TypeError(f"{name}: expected a list of str, got {type(texts).__name__}")
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}]: expected str, got {type(t).__name__}")
        _check_unicode(f"{name}[{i}]", t)
    return texts


def _model_paths(models):
    """``models`` with each ``os.PathLike`` (a ``pathlib.Path``) as its path's text; a path whose
    name is not UTF-8 is a ValueError (the names of models and files go to Rust as UTF-8)."""
    if isinstance(models, (bytes, dict)) or not hasattr(models, "__iter__"):
        return models
    paths = []
    for i, model in enumerate(models):
        if isinstance(model, _os.PathLike):
            model = _os.fspath(model)
            if isinstance(model, bytes):
                try:
                    model = model.decode("utf-8")
                except UnicodeDecodeError:
                    model = None
            if model is None or not _is_unicode(model):
                raise ValueError(f"models[{i}]: the path is not UTF-8; rename the file")
        paths.append(model)
    return paths


def _is_unicode(text):
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _frame(columns, pandas):
    if not pandas:
        return columns
    import pandas as pd  # noqa: PLC0415 (optional dependency)

    return pd.DataFrame(columns)


class Scorer:
    """Models loaded once, for scoring many summaries.

    ``models``: built-in names (``"pyramid"``, ``"readability-noref"``, or ``"builtin:NAME"``) or
    paths of model files written by ``aesop train``. ``None`` (the default) uses what
    ``aesop score`` uses: the pyramid, responsiveness and readability built-ins, each in its
    reference-based variant when a topic has references and ``-noref`` otherwise.

    ``neural=True`` uses what ``aesop score --neural`` uses: the built-ins with the neural LM
    class where one exists (``readability-lm``, ``responsiveness-lm``, ``faithfulness``, and the
    classic ``pyramid``); it needs the LM (``aesop models fetch smollm2``; docs/NEURAL.md), loads
    it here (``ValueError`` naming that command when it is missing) and cannot be combined with
    ``models``.

    >>> scorer = aesop.Scorer(models=["pyramid-noref"])
    >>> scorer.score(["A summary."], ["The document the summary is about."])
    {'pyramid-noref': [...]}
    """

    def __init__(self, models=None, neural=False):
        if isinstance(models, (str, _os.PathLike)):
            models = [models]
        if models is not None:
            models = _check_texts("models", _model_paths(models))
            # As `features(classes=[])`: an empty list is a mistake, None the defaults.
            if not models:
                raise ValueError("models: an empty list; give None for the default built-ins")
        neural = _check_bool("neural", neural)
        self._inner = _aesop.Scorer(models, neural)
        _warn(self._inner.batch_warnings)

    def __reduce__(self):
        return (Scorer, (self._inner.specs or None, self._inner.neural))

    def __repr__(self):
        if self._inner.neural:
            return "aesop.Scorer(neural=True)"
        return f"aesop.Scorer(models={self._inner.specs or None!r})"

    @property
    def model_names(self):
        """Model names per group (one group, or the reference-based and ``-noref`` defaults)."""
        return self._inner.model_names

    def score(self, summaries, documents, references=None, pandas=False):
        """Score ``summaries`` of one topic: the input ``documents`` they summarize and optional
        human ``references``. Returns ``{model name: [score per summary]}`` (a DataFrame with
        one column per model when ``pandas=True``).

        >>> aesop.Scorer().score(["Cats sit."], ["The cat sat on the mat."], ["A cat sat."])
        {'pyramid': [...], 'responsiveness': [...], 'readability': [...]}
        """
        summaries = _check_texts("summaries", summaries)
        documents = _check_texts("documents", documents)
        # As `aesop score --documents`: the summaries need something they summarize.
        if not documents:
            raise ValueError("documents: at least one document is needed")
        for i, d in enumerate(documents):
            if not d.strip():
                raise ValueError(f"documents[{i}]: empty document")
        references = _check_texts("references", references, optional=True)
        # As `aesop score --reference`: a blank reference is refused ("empty reference file"),
        # not scored against (it would choose the reference-based models and score by nothing).
        for i, r in enumerate(references or []):
            if not r.strip():
                raise ValueError(f"references[{i}]: empty reference")
        pandas = _check_bool("pandas", pandas)
        out = {}
        scored, warnings = self._inner.score_texts(summaries, documents, references)
        for model, _target, scores in scored:
            out[model] = scores
        _warn(warnings)
        return _frame(out, pandas)

    def score_sets(self, topics, pandas=False, progress=False):
        """Score judgment-set topics: dicts with ``topic``, ``documents``, ``summaries`` and
        optional ``references`` (the JSON Lines format of ``aesop score``; see
        docs/JUDGMENT_SETS.md). Returns one dict per prediction, exactly the lines ``aesop score``
        writes: ``{"topic", "system", "target", "score", "raw", "model"}``, ``score`` on the
        target's scale and ``raw`` the model's output before calibration, absent for a model
        without one; both ``None`` for a summary the model cannot score (the CLI's ``null``);
        ``"in_training": True`` where the model learned from the summary (its model file records
        the same topic id and text), so that its score is in-sample and :func:`evaluate` warns;
        a DataFrame with those columns when ``pandas=True`` (``in_training`` True or False).

        ``progress``: ``True`` draws a bar of the topics scored (tqdm's when it is installed, so
        in notebooks too; else a line on standard error about once a second); a callable is
        called as ``progress(done, total)`` as topics finish (at most every 50 ms, and once at
        the end); an exception it raises stops the call.

        >>> rows = scorer.score_sets([{"topic": "t1", "documents": [{"id": "d", "text": "..."}],
        ...                             "summaries": [{"system": "s1", "text": "..."}]}])
        """
        pandas = _check_bool("pandas", pandas)
        texts = _topics_json(topics)
        with _Progress(progress, len(texts), "score") as report:
            rows, warnings = self._inner.score_json(texts, report.tell)
        _warn(warnings)
        if pandas:
            keys = ("topic", "system", "target", "score", "raw", "model", "in_training")
            columns = [[r[i] for r in rows] for i in (0, 1, 2, 3, 4, 6, 7)]
            return _frame(dict(zip(keys, columns)), True)
        return [_line(r) for r in rows]


    def system_means(self, rows, pandas=False):
        """Each system's mean prediction per model from the rows of ``score_sets`` (dicts, in any
        order, or the DataFrame of ``pandas=True``), exactly as ``aesop score --systems`` writes
        them: ``{"model", "rank", "system", "mean", "low", "high", "topics", "scored"}`` (and
        ``"models"``, the variants used, for the default built-ins, whose rows are per target),
        highest mean first per model; ``low`` and ``high`` a 95% bootstrap interval over the
        system's topics. A summary scored ``None`` is left out of its system's mean, and an
        ``AesopWarning`` says when the systems were scored on different topics.

        >>> scorer.system_means(scorer.score_sets(topics))
        [{'model': 'pyramid', 'rank': 1, 'system': 's1', 'mean': ..., ...}, ...]
        """
        pandas = _check_bool("pandas", pandas)
        if hasattr(rows, "to_dict") and not isinstance(rows, dict):
            rows = rows.to_dict("records")
        tuples = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise TypeError(f"rows[{i}]: expected a dict (a row of score_sets), got {type(row).__name__}")
            values = []
            for key in ("topic", "system", "target", "model"):
                if key not in row:
                    raise ValueError(f"rows[{i}]: no {key!r} (give the rows score_sets returns)")
                value = _plain_scalar(row[key])
                if not isinstance(value, str):
                    raise TypeError(f"rows[{i}].{key}: expected a string, got {type(value).__name__}")
                values.append(value)
            score = _plain_scalar(row.get("score"))
            if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
                raise TypeError(f"rows[{i}].score: expected a number or None, got {type(score).__name__}")
            if score is not None and score != score:  # NaN: a DataFrame's missing score
                score = None
            topic, system, target, model = values
            tuples.append((topic, system, target, None if score is None else float(score), model))
        means, warnings = self._inner.system_means(tuples)
        _warn(warnings)
        keys = ("model", "rank", "system", "mean", "low", "high", "topics", "scored", "models")
        with_models = any(m[8] is not None for m in means)
        if pandas:
            width = 9 if with_models else 8
            return _frame({k: [m[i] for m in means] for i, k in enumerate(keys[:width])}, True)
        out = []
        for m in means:
            line = dict(zip(keys[:8], m[:8]))
            if m[8] is not None:
                line["models"] = m[8]
            out.append(line)
        return out


def _line(row):
    """A prediction tuple as the CLI's line: ``raw`` (the output before calibration) only where
    the model has a calibration, ``in_training`` only where the model learned from the
    summary."""
    topic, system, target, score, raw, has_raw, model, in_training = row
    line = {"topic": topic, "system": system, "target": target, "score": score}
    if has_raw:
        line["raw"] = raw
    line["model"] = model
    if in_training:
        line["in_training"] = True
    return line


def _option_text(name, value):
    """A keyword option as the text its ``aesop features`` flag takes."""
    value = _plain_scalar(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        _check_unicode(name, value)
        return value
    if isinstance(value, (int, float)):
        return str(value)
    raise TypeError(f"{name}: expected bool, number or str, got {type(value).__name__}")


def features(topics, classes=None, pandas=False, progress=False, **options):
    """Feature columns for every summary of ``topics`` (judgment-set dicts): ``{"topic": [...],
    "system": [...], "rouge.r1_f": [...], ...}``; ``None`` marks a value that could not be
    computed. ``classes``: names as in ``aesop features --classes`` (default: all).

    ``options``: the flags of ``aesop features`` with underscores for dashes, e.g.
    ``neural_references=0`` (the reference-free LM features only, much faster),
    ``rouge_mode="b"``, ``simetrix=True``, ``graph_rank=4``. An unknown name raises
    ``ValueError`` listing the known ones; so does an option none of ``classes`` reads.
    ``progress``: as for :meth:`Scorer.score_sets`.

    >>> cols = aesop.features(topics, classes=["rouge"])
    >>> cols["rouge.r1_f"][:2]
    [0.41, 0.37]
    """
    if isinstance(classes, str):
        # As `--classes`: an empty name is an unknown class, not "every class"; a name is
        # taken as written (the CLI refuses " surface" too).
        classes = classes.split(",")
    if classes is not None:
        classes = _check_texts("classes", classes)
        if not classes:
            raise ValueError("classes: an empty list; give None for every class")
    pandas = _check_bool("pandas", pandas)
    pairs = [(name, _option_text(name, value)) for name, value in options.items()]
    texts = _topics_json(topics)
    with _Progress(progress, len(texts), "features") as report:
        names, topic_col, system_col, rows, notes = _aesop.features_json(
            texts, classes, pairs, report.tell
        )
    _warn(notes)
    cols = {"topic": topic_col, "system": system_col}
    for j, name in enumerate(names):
        cols[name] = [r[j] for r in rows]
    return _frame(cols, pandas)


def _record_text(record, where):
    """One record (a row, or a service's answer) as JSON text, named ``where`` in messages."""
    try:
        text = _json.dumps(record, ensure_ascii=False, allow_nan=True, default=_json_default)
    except (TypeError, ValueError):
        found = _first(record, "", _not_json)
        field, kind = found if found is not None else ("", "a value JSON cannot hold")
        raise TypeError(f"{where}.{field}: expected a JSON value, got {kind}") from None
    if not _is_unicode(text):
        raise ValueError(f"{where}: not valid Unicode (a lone surrogate)")
    return text


def _records(predictions, name):
    """Prediction rows (dicts, a DataFrame) or feature columns (``aesop.features``' dict of
    lists, or its DataFrame) as one JSON text per row, rows named ``name[i]`` in messages; or
    the answer of the service's POST /v1/score as one text, read whole as ``aesop evaluate``
    reads a saved one (its messages name ``results[i]``)."""
    if isinstance(predictions, dict) and "results" in predictions and "topic" not in predictions:
        return [_record_text(predictions, name)]
    return [_record_text(row, f"{name}[{i}]") for i, row in enumerate(_rows_of(predictions, name))]


def _rows_of(table, name):
    """A table's rows as a list of dicts: from a list of dicts, a DataFrame, or columns (a dict
    of lists, numpy arrays or Series, as ``aesop.features`` returns); named ``name`` in
    messages."""
    predictions = table
    if hasattr(predictions, "to_dict") and hasattr(predictions, "columns"):
        predictions = predictions.to_dict("records")
    elif isinstance(predictions, dict):
        # Any sequence of values per column (a list, a numpy array, a pandas Series).
        columns = {k: list(v) if hasattr(v, "__len__") and not isinstance(v, (str, bytes, dict)) else v
                   for k, v in predictions.items()}
        bad = [k for k, v in columns.items() if not isinstance(v, list)]
        if bad:
            raise TypeError(f"{name}: expected rows (a list of dicts) or columns (a dict of lists, as "
                            f"aesop.features returns), but {bad[0]!r} is not a list")
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"{name}: the columns differ in length ({sorted(lengths)})")
        predictions = [dict(zip(columns, values)) for values in zip(*columns.values())]
    elif isinstance(predictions, (str, bytes)):
        raise TypeError(f"{name}: expected a list of dicts, got a string")
    try:
        predictions = list(predictions)
    except TypeError:
        raise TypeError(f"{name}: expected a list of dicts, got {type(predictions).__name__}") from None
    for i, row in enumerate(predictions):
        if not isinstance(row, dict):
            raise TypeError(f"{name}[{i}]: expected a dict, got {type(row).__name__}")
    return predictions


def _is_missing(value):
    """None, or a float NaN (what a DataFrame holds for a missing cell)."""
    value = _plain_scalar(value)
    return value is None or (isinstance(value, float) and value != value)


def _texts_of(value, where):
    """A cell holding one text or several (a list, tuple or array of str), as a list; ``[]``
    for a missing cell."""
    value = _plain_scalar(value)
    if _is_missing(value):
        return []
    if isinstance(value, str):
        return [value]
    if hasattr(value, "__len__") and not isinstance(value, (bytes, dict)):
        texts = [_plain_scalar(v) for v in value]
        for j, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"{where}[{j}]: expected a str, got {type(text).__name__}")
        return texts
    raise TypeError(f"{where}: expected a str or a list of str, got {type(value).__name__}")


# rouge-score's measure names and the `rouge_score` class's columns of their F.
_ROUGE_SCORE_COLUMNS = {"rouge1": "rouge_score.rouge1_f", "rouge2": "rouge_score.rouge2_f",
                        "rougeL": "rouge_score.rouge_l_f", "rougeLsum": "rouge_score.rouge_lsum_f"}


def rouge_score(predictions, references, *, rouge_types=None, use_aggregator=True,
                use_stemmer=False):
    """Google's rouge-score numbers, as Hugging Face's ``evaluate.load("rouge").compute(
    predictions=..., references=..., use_stemmer=..., use_aggregator=...)`` gives them, computed
    by aesop's ``rouge_score`` class (docs/FEATURES.md; bit for bit the package's values, over
    100 times faster). ``references``: one str per prediction, or a list of str (then the
    reference with the best F counts, per measure, as ``RougeScorer.score_multi``).
    ``rouge_types``: any of ``"rouge1"``, ``"rouge2"``, ``"rougeL"``, ``"rougeLsum"`` (default
    all four; rougeLsum reads the texts' lines, so write one sentence per line to tell it from
    rougeL). Returns ``{type: F}``: with ``use_aggregator`` the mean F over the predictions (where
    ``evaluate`` gives the median of 1,000 unseeded bootstrap means, which differs from the mean
    by its sampling noise: at most .0003 in 15 runs on SummEval's 100-summary systems), else the
    list of each prediction's F. Texts are read as aesop reads every text (docs/FEATURES.md: a
    soft hyphen inside a word joins it, where rouge-score splits it).

    >>> aesop.rouge_score(["the cat sat"], [["a cat sat on the mat", "the cat"]], use_stemmer=True)
    {'rouge1': 0.8, 'rouge2': 0.6666666666666666, 'rougeL': 0.8, 'rougeLsum': 0.8}
    """
    predictions = _check_texts("predictions", predictions)
    if isinstance(references, (str, bytes, dict)) or not hasattr(references, "__iter__"):
        raise TypeError(f"references: expected a list (one str, or one list of str, per "
                        f"prediction), got {type(references).__name__}")
    references = list(references)
    if len(references) != len(predictions):
        raise ValueError(f"references: {len(references)} given for {len(predictions)} "
                         "predictions (one str, or one list of str, per prediction)")
    if rouge_types is None:
        rouge_types = list(_ROUGE_SCORE_COLUMNS)
    rouge_types = _check_texts("rouge_types", rouge_types)
    unknown = [t for t in rouge_types if t not in _ROUGE_SCORE_COLUMNS]
    if unknown or not rouge_types:
        raise ValueError(f"rouge_types: {unknown or 'none'}: aesop's rouge_score class computes "
                         f"{', '.join(_ROUGE_SCORE_COLUMNS)}")
    use_aggregator = _check_bool("use_aggregator", use_aggregator)
    use_stemmer = _check_bool("use_stemmer", use_stemmer)
    topics = []
    for i, (prediction, given) in enumerate(zip(predictions, references)):
        texts = _check_texts(f"references[{i}]", given)
        if not texts:
            raise ValueError(f"references[{i}]: an empty list (each prediction needs a reference)")
        topics.append({
            "topic": str(i),
            "references": [{"id": str(j), "text": t} for j, t in enumerate(texts)],
            "summaries": [{"system": "prediction", "text": prediction}],
        })
    if not topics:
        if use_aggregator:
            raise ValueError("predictions: none given, so there is no mean to take")
        return {t: [] for t in rouge_types}
    cols = features(topics, classes="rouge_score", rouge_no_stem=not use_stemmer)
    scores = {t: cols[_ROUGE_SCORE_COLUMNS[t]] for t in rouge_types}
    if use_aggregator:
        return {t: sum(values) / len(values) for t, values in scores.items()}
    return scores


def _is_list(value):
    """A list, tuple or array (a cell holding several values), not a text or a dict."""
    return hasattr(value, "__len__") and not isinstance(value, (str, bytes, dict))


def _spread_topic_rows(rows, system, summary, scores, kept, found_by):
    """Rows of one topic each (the summary column a list of its summaries, the system column a
    list of their systems or absent, each score column a list of their scores) as rows of one
    summary each, each with its row's index and its position in the lists."""
    spread = []
    for i, row in enumerate(rows):
        where = f"rows[{i}]"
        texts = row.get(summary)
        if not _is_list(texts):
            got = "a missing value" if _is_missing(texts) else type(_plain_scalar(texts)).__name__
            raise TypeError(f"{where}.{summary}: expected a list of the topic's summaries, got {got} "
                            f"({found_by}, so every row is one topic's and its summary column a list)")
        texts = list(texts)
        lists = {}
        for column, what in [(system, "system ids")] + [(c, "scores") for c in scores]:
            if column not in row:
                continue
            value = row[column]
            if _is_missing(value) and column != system:
                continue
            if not _is_list(value):
                raise TypeError(f"{where}.{column}: expected a list of {len(texts)} {what}, one per "
                                f"summary in {summary!r}, got {type(_plain_scalar(value)).__name__}")
            value = list(value)
            if len(value) != len(texts):
                raise ValueError(f"{where}.{column}: {len(value)} {what} for the {len(texts)} "
                                 f"summaries in {summary!r} (one per summary, in the same order)")
            lists[column] = value
        for j, text in enumerate(texts):
            one = {c: row[c] for c in kept if c in row}
            one[summary] = text
            one[system] = lists[system][j] if system in lists else f"{summary}.{j + 1}"
            for column in scores:
                if column in row:
                    one[column] = lists[column][j] if column in lists else None
            spread.append((i, j, one))
    return spread


def topics_from_rows(rows, *, topic="topic", system="system", summary="summary",
                     documents="document", references=None, scores=(), annotator=None,
                     per_topic=False):
    """Judgment-set topics (for ``Scorer.score_sets``, ``features`` and ``evaluate``) from a
    flat table with one row per summary, as datasets and spreadsheets keep summaries: ``rows``
    a list of dicts, a DataFrame, or a dict of columns. The rows of one topic id make one topic,
    topics in the order they first appear. ``summary``: the column of the summaries' texts (a
    list of texts is a summary's sentences, written one per line). ``documents``: the column of
    the topic's input, a text or a list of texts (several documents); ``references``: the column
    of its human reference summaries (a text or a list), if any; both must be the same on every
    row of a topic.
    ``scores``: the column (or list of columns) of human scores, each a number, or None or NaN
    where missing. Errors name the row (``rows[3].summary``).
    ``per_topic``: every row is one topic's, as MTEB's SummEval keeps it: ``summary`` a list of
    its summaries, ``system`` a list of their systems (without that column, systems are named by
    position: ``machine_summaries.1``, …), each score column a list of their scores; found by
    itself where the system or a score column holds a list. A row with an empty list adds no
    summary, as ``aesop import table`` reads such rows.
    ``annotator``: the column of annotator ids, where each annotator's rating of a summary is a
    row of its own: a summary's rows are one summary, each score the mean of the annotators who
    gave it (``aesop import table --annotator-column``)."""
    rows = _rows_of(rows, "rows")
    if isinstance(scores, str):
        scores = [scores]
    columns = [topic, system, summary, documents] + ([references] if references else []) + (
        [annotator] if annotator is not None else [])
    listed = [c for c in [system] + list(scores) if any(_is_list(row.get(c)) for row in rows)]
    if per_topic or listed:
        found_by = ("per_topic=True" if per_topic else
                    f"{', '.join(map(repr, listed))} {'holds a list' if len(listed) == 1 else 'hold lists'}")
        kept = [topic, documents] + ([references] if references else []) + (
            [annotator] if annotator is not None else [])
        labelled = _spread_topic_rows(rows, system, summary, list(scores), kept, found_by)
        # A spread row's summary, system and scores are elements of its row's lists.
        in_lists = {summary} | set(listed)
    else:
        labelled = [(i, None, row) for i, row in enumerate(rows)]
        in_lists = set()
    by_topic = {}
    for i, j, row in labelled:
        where = f"rows[{i}]" if j is None else f"rows[{i}].{summary}[{j}]"

        def at(column, i=i, j=j):
            return f"rows[{i}].{column}" + (f"[{j}]" if j is not None and column in in_lists else "")

        for column in columns + list(scores):
            if column not in row:
                raise ValueError(f"{where}: no column {column!r} (columns: {', '.join(map(str, row))})")
        topic_id, system_id = _plain_scalar(row[topic]), _plain_scalar(row[system])
        rater = _plain_scalar(row[annotator]) if annotator is not None else None
        for column, value in ((topic, topic_id), (system, system_id)) + (
                ((annotator, rater),) if annotator is not None else ()):
            if _is_missing(value) or isinstance(value, bool) or not isinstance(value, (str, int, float)):
                raise TypeError(f"{at(column)}: expected an id (a str or a number), got "
                                f"{'a missing value' if _is_missing(value) else type(value).__name__}")
        text = _plain_scalar(row[summary])
        if not isinstance(text, str) and not _is_missing(text) and hasattr(text, "__len__") \
                and not isinstance(text, (bytes, dict)):
            # A summary kept as its sentences: one per line, as `aesop import table` writes it.
            text = "\n".join(t.strip() for t in _texts_of(text, f"{at(summary)}") if t.strip())
        if not isinstance(text, str):
            raise TypeError(f"{at(summary)}: expected the summary's text (a str), got "
                            f"{'a missing value' if _is_missing(text) else type(text).__name__}")
        sources = _texts_of(row[documents], f"{at(documents)}")
        refs = _texts_of(row[references], f"{at(references)}") if references else []
        human = {}
        for column in scores:
            value = _plain_scalar(row[column])
            if _is_missing(value):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{at(column)}: expected a number (or None/NaN where missing), "
                                f"got {type(value).__name__} {value!r}")
            human[column] = value
        entry = by_topic.get(topic_id)
        if entry is None:
            if not sources:
                raise ValueError(f"{at(documents)}: missing (a topic needs its input documents)")
            entry = by_topic[topic_id] = {
                "first": where, "sources": sources, "refs": refs, "systems": {},
                "topic": dict({"topic": topic_id,
                               "documents": [{"id": f"d{j + 1}", "text": t} for j, t in enumerate(sources)]},
                              **({"references": [{"id": f"r{j + 1}", "text": t} for j, t in enumerate(refs)]}
                                 if refs else {}),
                              summaries=[]),
            }
        else:
            for column, mine, theirs in ((documents, sources, entry["sources"]),
                                         (references, refs, entry["refs"])):
                if mine != theirs:
                    raise ValueError(f"{at(column)}: differs from {entry['first']}'s, of the "
                                     f"same topic {topic_id!r} (every row of a topic gives the same "
                                     f"{column!r})")
        rated = entry["systems"].get(system_id)
        if rated is not None:
            if annotator is None:
                raise ValueError(f"{where}: topic {topic_id!r}, system {system_id!r} again (first at "
                                 f"{rated['first']}): one row per summary (a row per annotator's "
                                 f"rating? name the column of annotator ids with annotator=: "
                                 f"their scores are averaged)")
            if rater in rated["raters"]:
                raise ValueError(f"{where}: topic {topic_id!r}, system {system_id!r}, annotator "
                                 f"{rater!r} again (first at {rated['raters'][rater]}): one row per "
                                 f"annotator's rating")
            if text != rated["summary"]["text"]:
                raise ValueError(f"{at(summary)}: the summary differs from {rated['first']}'s, of the "
                                 f"same topic {topic_id!r} and system {system_id!r} (every "
                                 f"annotator's row gives the same summary)")
            rated["raters"][rater] = where
            for column, value in human.items():
                rated["ratings"].setdefault(column, []).append(value)
            continue
        entry["systems"][system_id] = {
            "first": where, "raters": {rater: where},
            "ratings": {column: [value] for column, value in human.items()},
            "summary": dict({"system": system_id, "text": text}, **({"scores": human} if human else {}))}
        entry["topic"]["summaries"].append(entry["systems"][system_id]["summary"])
    if annotator is not None:
        for entry in by_topic.values():
            for rated in entry["systems"].values():
                if rated["ratings"]:
                    rated["summary"]["scores"] = {column: sum(values) / len(values)
                                                  for column, values in rated["ratings"].items()}
    return [entry["topic"] for entry in by_topic.values()]


# `aesop import`'s formats, and the options of those that take some: each keyword and whether it
# takes several values (a str, or a list of them) or one; None: a flag (True or False).
IMPORT_FORMATS = ("summeval", "realsumm", "newsroom", "summeval-op", "dialsummeval", "tac", "duc",
                  "rouge", "table", "lines")
_IMPORT_OPTIONS = {
    "table": {"topic_column": False, "system_column": False, "summary_column": False,
              "document_columns": True, "reference_columns": True, "score_columns": True,
              "annotator_column": False, "per_topic": None},
    "lines": {"references": True, "documents": True, "ids": False, "sentence_separator": False},
    "rouge": {"model_dir": False, "system_pattern": False, "model_pattern": False,
              "input_format": False},
}
_PYROUGE_OPTIONS = ("model_dir", "system_pattern", "model_pattern")


def _path_text(value, where):
    """A path given as a str or an ``os.PathLike``, as a str."""
    value = _plain_scalar(value)
    if isinstance(value, _os.PathLike):
        value = _os.fspath(value)
    if not isinstance(value, str):
        raise TypeError(f"{where}: expected a path (a str or os.PathLike), got {type(value).__name__}")
    _check_unicode(where, value)
    return value


def import_set(format, *paths, **options):  # noqa: A002 (the CLI's FORMAT)
    """The judgment-set topics ``aesop import FORMAT PATH…`` writes, as dicts (for
    ``Scorer.score_sets``, ``features`` and ``evaluate``), by the CLI's own importers: the same
    topics, the same errors (a ``ValueError`` naming the file, line and field). ``format`` is one
    of ``IMPORT_FORMATS``; ``paths`` are str or ``os.PathLike``. The formats' own options are the
    CLI's flags as keywords: ``table``: ``topic_column``, ``system_column``, ``summary_column``,
    ``document_columns``, ``reference_columns``, ``score_columns`` (each of the last three a str
    or a list; several tables, one per system, gathered into one set), ``annotator_column`` (a
    row per annotator's rating, averaged per summary), ``per_topic`` (True: one
    row per topic, its summaries a list, as MTEB's SummEval keeps them; found by itself where a
    system or score column holds a list); ``lines``:
    ``references``, ``documents`` (a path or a list), ``ids``, ``sentence_separator``; ``rouge``,
    directories laid out for pyrouge: ``model_dir``, ``system_pattern``, ``model_pattern``,
    ``input_format``. docs/JUDGMENT_SETS.md describes each format.

    >>> topics = aesop.import_set("table", "bart.jsonl", "pegasus.jsonl", topic_column="id",
    ...                           summary_column="prediction", document_columns="article")
    """
    format = _plain_scalar(format)  # noqa: A001
    if not isinstance(format, str):
        raise TypeError(f"format: expected a str, got {type(format).__name__}")
    if format.lower() not in IMPORT_FORMATS:
        raise ValueError(f"format: unknown import format {format!r} (formats: "
                         f"{', '.join(IMPORT_FORMATS)})")
    format = format.lower()  # noqa: A001
    if not paths:
        raise TypeError("import_set: give the path (or paths) to read after the format")
    paths = [_path_text(p, f"paths[{i}]") for i, p in enumerate(paths)]
    allowed = _IMPORT_OPTIONS.get(format, {})
    named = []
    for name, value in options.items():
        if name not in allowed:
            owners = [f for f, opts in _IMPORT_OPTIONS.items() if name in opts]
            raise TypeError(
                f"import_set: {name}= is an option of the {owners[0]} format, not of {format}"
                if owners else
                f"import_set: unknown option {name}= (the {format} format takes "
                f"{', '.join(n + '=' for n in allowed) or 'no option'})")
        if value is None:
            continue
        if allowed[name] is None:
            value = _plain_scalar(value)
            if not isinstance(value, bool):
                raise TypeError(f"{name}: expected True or False, got {type(value).__name__}")
            if value:
                named.append((name, []))
            continue
        values = [value] if isinstance(value, (str, _os.PathLike)) or not allowed[name] else list(value)
        path_option = name in ("references", "documents", "ids", "model_dir")
        texts = []
        for i, item in enumerate(values):
            where = f"{name}[{i}]" if allowed[name] and len(values) > 1 else name
            if path_option:
                texts.append(_path_text(item, where))
                continue
            item = _plain_scalar(item)
            if not isinstance(item, str):
                raise TypeError(f"{where}: expected a str, got {type(item).__name__}")
            _check_unicode(where, item)
            texts.append(item)
        named.append((name, texts))
    given = {name for name, _ in named}
    if format == "rouge" and (given & set(_IMPORT_OPTIONS["rouge"]) or
                              any(_os.path.isdir(p) for p in paths)):
        missing = [n + "=" for n in _PYROUGE_OPTIONS if n not in given]
        if missing:
            raise TypeError(f"import_set: directories of system summaries (pyrouge's layout) need "
                            f"{', '.join(missing)}: where the references are and how file names "
                            f"pair them (e.g. model_dir='refs', system_pattern=r'text.(\\d+).txt', "
                            f"model_pattern='text.[A-Z].#ID#.txt')")
    return [_json.loads(line) for line in _aesop.import_json(format, paths, named)]


def read_set(path):
    """The topics of the judgment set at ``path`` (JSON Lines, as ``aesop import`` writes it; a
    name ending in .gz read decompressed), as dicts, read as every verb of the CLI reads a set:
    every rule checked, a ``ValueError`` naming the line and field of a fault."""
    return [_json.loads(line) for line in _aesop.read_set_json(_path_text(path, "path"))]


def evaluate(predictions, topics, target, *, feature=None, features=None, also=None, model=None,
             predicted=None, set=None, compare=None, compare_feature=None, compare_model=None,
             bootstrap=1000, resample="both", seed=1, alpha=0.05, length_tolerance=None,
             text=False, progress=False):  # noqa: A002 (the CLI's --set)
    """Judge predictions, or one feature, against the human scores ``target`` of ``topics``
    (judgment-set dicts, as for :meth:`Scorer.score_sets`), by the code of ``aesop evaluate``:
    summary-, system- and global-level correlations, pairwise accuracies, bootstrap intervals,
    the misordered system pairs. Returns the report ``aesop evaluate --json`` writes, as a dict
    (without ``inputs``: no file was read), or with ``text=True`` the text the CLI prints; the
    same figures as the CLI on the same scores.

    ``predictions``: the rows of :meth:`Scorer.score_sets` (dicts or its DataFrame; a row's
    ``raw`` is judged where the rows are one model's, as the CLI does), the answer of the
    service's ``POST /v1/score`` (its JSON as a dict: each result's scores per model, the
    models' targets from its ``models``; with ``feature``, its results' ``features``) or, with
    ``feature``, the columns of :func:`features` (``feature="-content.js"`` reads a column
    negated, for a feature whose larger values mean worse summaries). ``model`` chooses one model's rows where
    several predict ``target``; ``predicted`` reads another target's rows (a responsiveness
    model judged against a pyramid column); ``set`` reads the rows of one set where they name
    theirs (``cross-validate`` with several ``--set`` writes a ``set`` field). ``compare``: a second metric's rows or columns,
    compared with the first on the rows both score (``report["comparison"]``: the paired
    bootstrap, the permutation test, both discriminative-power tables), as ``--compare`` does;
    ``compare_feature`` and ``compare_model`` choose in it as ``feature`` and ``model`` do, and
    ``feature`` carries over to feature columns (not to prediction rows) when
    ``compare_feature`` is not given. ``bootstrap`` (0: point estimates only),
    ``resample`` (``"both"``, ``"topics"``, ``"systems"``), ``seed``, ``alpha`` and
    ``length_tolerance`` are the CLI's flags.

    ``features``: many columns of ``predictions`` (feature columns, as ``feature`` reads one)
    judged at once and ranked by summary-level Kendall tau, as ``aesop evaluate --features``
    ranks a features file: column names or prefixes ending in ``*`` (``"*"``: every column), as
    a comma-separated string or a list. Each column is read the way round that agrees with the
    annotators (named ``-COLUMN`` where negated); columns that cover too few summaries or topics
    are listed apart, unranked. Returns the table ``--features --json`` writes (``rows``, best
    first; without ``inputs``), or with ``text=True`` the table the CLI prints. ``also``
    (with ``features``) judges the same columns on other sets, as ``--also`` does: a dict of
    set name to ``(columns, topics, target)``; the report is then every set's table (the first
    named ``"topics"``) and the columns across them (``across``: ranked by their mean tau on
    every set, and for each set the column the other sets choose: the best single feature under
    leave-one-set-out). ``progress`` (with ``features``): as for :meth:`Scorer.score_sets`, of
    the columns judged on every set (a minute for a few hundred columns on four sets at 1,000
    bootstrap samples); one metric's report has nothing to count, so it is refused there.

    >>> report = aesop.evaluate(scorer.score_sets(topics), topics, "relevance",
    ...                         predicted="responsiveness")
    >>> report["statistics"]["summary"]["kendall"]
    0.31
    """
    text = _check_bool("text", text)
    if also is not None and features is None:
        raise ValueError("also= judges the features= columns on other sets: give features= too")
    if features is not None:
        return _feature_table(predictions, topics, target, features, also, text=text, bootstrap=bootstrap,
                              resample=resample, seed=seed, length_tolerance=length_tolerance,
                              progress=progress, others={"feature": feature, "model": model, "predicted": predicted,
                                      "set": set, "compare": compare,
                                      "compare_feature": compare_feature,
                                      "compare_model": compare_model,
                                      "alpha": None if alpha == 0.05 else alpha})
    if _plain_scalar(progress) not in (False, None):
        raise ValueError("progress= counts the columns features= judges; one metric's report has "
                         "no count to show (give features=, or leave progress out)")
    for flag, value in (("target", target), ("feature", feature), ("model", model),
                        ("predicted", predicted), ("set", set), ("compare_feature", compare_feature),
                        ("compare_model", compare_model), ("resample", resample)):
        if value is None and flag not in ("target", "resample"):
            continue
        if not isinstance(value, str):
            raise TypeError(f"{flag}: expected a str, got {type(value).__name__}")
        _check_unicode(flag, value)
    _check_statistics_keywords(bootstrap, seed, length_tolerance)
    value = _plain_scalar(alpha)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"alpha: expected a number, got {type(value).__name__}")
    if compare is None:
        # As the CLI refuses --compare-feature without --compare.
        for flag, value in (("compare_feature", compare_feature), ("compare_model", compare_model)):
            if value is not None:
                raise ValueError(f"{flag} chooses in the compare= rows: give compare= too")
    records = _records(predictions, "features" if feature is not None else "predictions")
    other = None if compare is None else _records(compare, "compare")
    texts = _topics_json(topics)
    report, printed, warnings = _aesop.evaluate_json(
        records, texts, target, feature, model, predicted, set, other, compare_feature, compare_model,
        int(_plain_scalar(bootstrap)), resample,
        int(_plain_scalar(seed)), float(_plain_scalar(alpha)),
        None if length_tolerance is None else float(_plain_scalar(length_tolerance)),
    )
    _warn(warnings)
    return printed if text else _json.loads(report)


def _check_statistics_keywords(bootstrap, seed, length_tolerance):
    """``bootstrap`` and ``seed`` as ints of 0 or more, ``length_tolerance`` a number or None."""
    for flag, value in (("bootstrap", bootstrap), ("seed", seed)):
        value = _plain_scalar(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{flag}: expected an int, got {type(value).__name__}")
        if value < 0:
            raise ValueError(f"{flag}: must be 0 or more, got {value}")
    value = _plain_scalar(length_tolerance)
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise TypeError(f"length_tolerance: expected a number, got {type(value).__name__}")


def _also_sets(also):
    """``also=``'s sets as (name, columns, topics, target), checked."""
    if not isinstance(also, dict):
        raise TypeError(f"also: expected a dict of set name to (columns, topics, target), got "
                        f"{type(also).__name__}")
    sets = []
    for name, value in also.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"also: a set's name must be a non-empty str, got {name!r}")
        _check_unicode("also", name)
        if name == "topics":
            raise ValueError('also: "topics" names the first set; name the others otherwise')
        if not isinstance(value, (tuple, list)) or len(value) != 3:
            raise TypeError(f"also[{name!r}]: expected (columns, topics, target)")
        columns, topics, target = value
        if not isinstance(target, str):
            raise TypeError(f"also[{name!r}]: the target must be a str, got {type(target).__name__}")
        _check_unicode(f"also[{name!r}]", target)
        sets.append((name, columns, topics, target))
    return sets


def _feature_table(records, topics, target, features, also, *, text, bootstrap, resample, seed,
                   length_tolerance, progress, others):
    """``evaluate(…, features=…[, also=…])``: the ranked tables of ``aesop evaluate --features``."""
    # As the CLI refuses --features beside the flags that judge one metric.
    given = [flag for flag, value in others.items() if value is not None]
    if given:
        raise ValueError(f"features= ranks many columns, each judged alone; {given[0]}= does not "
                         f"apply to it: give one of them")
    if isinstance(features, str):
        patterns = [p.strip() for p in features.split(",")]
    elif isinstance(features, (list, tuple)) and all(isinstance(p, str) for p in features):
        patterns = [p.strip() for p in features]
    else:
        raise TypeError(f"features: expected a str or a list of str, got {type(features).__name__}")
    if not patterns:
        raise ValueError("features: no pattern given (names, or prefixes ending in *; \"*\": every column)")
    if any(not p for p in patterns):
        raise ValueError(f"features: an empty pattern in {features!r} (names, or prefixes ending in *)")
    for flag, value in (("target", target), ("resample", resample)):
        if not isinstance(value, str):
            raise TypeError(f"{flag}: expected a str, got {type(value).__name__}")
        _check_unicode(flag, value)
    for p in patterns:
        _check_unicode("features", p)
    _check_statistics_keywords(bootstrap, seed, length_tolerance)
    sets = [("topics", "features", _records(records, "features"), "topics", _topics_json(topics),
             target)]
    for name, columns, other_topics, other_target in _also_sets({} if also is None else also):
        where = f"also[{name}]"
        sets.append((name, where, _records(columns, where), f"{where}.topics",
                     _topics_json(other_topics), other_target))
    with _Progress(progress, None, "evaluate", "column") as bar:
        report, printed, warnings = _aesop.feature_table_json(
            sets, patterns, int(_plain_scalar(bootstrap)), resample, int(_plain_scalar(seed)),
            None if length_tolerance is None else float(_plain_scalar(length_tolerance)),
            bar.tell,
        )
    _warn(warnings, stacklevel=4)
    if text:
        return printed
    report = _json.loads(report)
    for table in report.get("sets", [report]):
        table.pop("inputs", None)
    return report
