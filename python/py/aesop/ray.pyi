from typing import Any, Optional, Sequence

class AesopScorer:
    """Callable class for `ray.data.Dataset.map_batches`: topics in, prediction rows out."""

    def __init__(self, models: Optional[Sequence[str]] = None, neural: bool = False) -> None: ...
    def __call__(self, batch: Any) -> Any: ...
