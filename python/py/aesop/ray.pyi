from os import PathLike
from typing import Any, Optional, Sequence, Union

class AesopScorer:
    """Callable class for `ray.data.Dataset.map_batches`: topics in, prediction rows out."""

    def __init__(
        self,
        models: Optional[Union[str, PathLike[str], Sequence[Union[str, PathLike[str]]]]] = None,
        neural: bool = False,
    ) -> None: ...
    def __call__(self, batch: Any) -> Any: ...
