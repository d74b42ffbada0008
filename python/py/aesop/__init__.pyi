from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

__version__: str

Topic = Dict[str, Any]
"""One judgment-set line: {"topic", "documents", "summaries", optional "references"}."""

def builtin_models() -> List[str]: ...

def lm_runs_on() -> str:
    """Where the LM classes run: "the GPU (cuda, f32)", "the CPU, int8 (avx2 kernel)", "the CPU, f32"."""

class AesopWarning(UserWarning):
    """The CLI's warnings and notes: unscored summaries, batch-dependent models, classes left without values."""

class Scorer:
    """Models loaded once (built-in names or model files); thread-safe; pickles by model names."""

    def __init__(
        self,
        models: Optional[Union[str, PathLike[str], Sequence[Union[str, PathLike[str]]]]] = None,
        neural: bool = False,
    ) -> None: ...
    @property
    def model_names(self) -> List[List[str]]: ...
    def score(
        self,
        summaries: Union[str, Sequence[str]],
        documents: Union[str, Sequence[str]],
        references: Optional[Union[str, Sequence[str]]] = None,
        pandas: bool = False,
    ) -> Any:
        """{model name: [score per summary, None where not scored]}, or a DataFrame when pandas=True."""
    def score_sets(
        self,
        topics: Union[Topic, Sequence[Topic]],
        pandas: bool = False,
        progress: Union[bool, Callable[[int, int], Any]] = False,
    ) -> Any:
        """One dict per prediction ({"topic","system","target","score","raw","model","in_training"}; `raw` only for calibrated models, `in_training` only where the model learned from the summary), as `aesop score` writes."""
    def system_means(self, rows: Any, pandas: bool = False) -> Any:
        """Each system's mean per model from the rows of `score_sets` (in any order, or its DataFrame), as `aesop score --systems` writes them ({"model","rank","system","mean","low","high","topics","scored"}, and "models" for the default built-ins)."""

def features(
    topics: Union[Topic, Sequence[Topic]],
    classes: Optional[Union[str, Sequence[str]]] = None,
    pandas: bool = False,
    progress: Union[bool, Callable[[int, int], Any]] = False,
    **options: Union[bool, int, float, str],
) -> Any:
    """{"topic": [...], "system": [...], "<class>.<feature>": [...]} (None = not computable)."""

def rouge_score(
    predictions: Sequence[str],
    references: Sequence[Union[str, Sequence[str]]],
    *,
    rouge_types: Optional[Sequence[str]] = None,
    use_aggregator: bool = True,
    use_stemmer: bool = False,
) -> Dict[str, Any]:
    """rouge-score's F per type ({"rouge1": mean, ...}; lists without the aggregator)."""

def topics_from_rows(
    rows: Any,
    *,
    topic: str = "topic",
    system: str = "system",
    summary: str = "summary",
    documents: str = "document",
    references: Optional[str] = None,
    scores: Union[str, Sequence[str]] = (),
    annotator: Optional[str] = None,
    per_topic: bool = False,
) -> List[Topic]:
    """Topics from a flat table, one row per summary (a list of dicts, a DataFrame, or a dict of columns); a summary a text (or a list of its sentences), documents and references a text or a list of texts per row, the same on every row of a topic. annotator: a row per annotator's rating, each summary's scores the mean of its annotators'. per_topic (found by itself where the system or a score column holds a list): one row per topic, its summaries, their systems and scores in lists, as MTEB's SummEval keeps them."""

IMPORT_FORMATS: Tuple[str, ...]

def import_set(
    format: str,
    *paths: Union[str, PathLike[str]],
    **options: Union[str, PathLike[str], Sequence[Union[str, PathLike[str]]], bool, None],
) -> List[Topic]:
    """The judgment-set topics `aesop import FORMAT PATH...` writes, as dicts; the formats' own options are the CLI's flags as keywords (table: topic_column, system_column, summary_column, document_columns, reference_columns, score_columns, annotator_column (a row per annotator's rating, averaged), per_topic (True: one row per topic, its summaries a list); lines: references, documents, ids, sentence_separator; rouge: model_dir, system_pattern, model_pattern, input_format)."""

def read_set(path: Union[str, PathLike[str]]) -> List[Topic]:
    """The topics of a judgment set file (JSON Lines, .gz read decompressed), read and checked as the CLI reads a set."""

def evaluate(
    predictions: Any,
    topics: Union[Topic, Sequence[Topic]],
    target: str,
    *,
    feature: Optional[str] = None,
    features: Optional[Union[str, Sequence[str]]] = None,
    also: Optional[Dict[str, Any]] = None,
    model: Optional[str] = None,
    predicted: Optional[str] = None,
    set: Optional[str] = None,
    compare: Any = None,
    compare_feature: Optional[str] = None,
    compare_model: Optional[str] = None,
    bootstrap: int = 1000,
    resample: str = "both",
    seed: int = 1,
    alpha: float = 0.05,
    length_tolerance: Optional[float] = None,
    text: bool = False,
    progress: Union[bool, Callable[[int, int], Any]] = False,
) -> Any:
    """The report of `aesop evaluate --json` (a dict, without `inputs`) for prediction rows, or with `feature` for feature columns, against the topics' human scores `target`, with `compare` as `--compare`; with `features` (and `also`: {name: (columns, topics, target)}) the ranked table of `--features --json` (`progress` counts its columns judged); the CLI's printed text with `text=True`."""
