"""The reranker's question adapter: a low-rank correction of the question's vector, learned from answered
consultations, so that the articles lawyers cite come nearer the questions they answer.

EmbeddingGemma was trained to match questions with passages that answer them, not colloquial questions
("房东不退押金") with the statute articles a lawyer cites for them (民法典:587). ``jurisgraph fit adapter``
learns q -> normalise(q + U V q) on the tuning halves of the dev files (U, V of rank 16: 2 x 768 x 16 numbers)
and ships it as ``query_adapter.json`` with its provenance; the article vectors stay the shipped ones, so the
adapter costs one small matrix product a question. It applies only to the embedding model it was learned
for: any other reranker model ignores it (and says so once in the log).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tools.errors import InputError
from tools.fitted import read_fitted

logger = logging.getLogger(__name__)

BUNDLED_ADAPTER = Path(__file__).with_name("query_adapter.json")


@dataclass(frozen=True)
class QueryAdapter:
    """q -> normalise(q + up @ (down @ q)) for unit question vectors of one embedding model."""

    model: str
    """The embedding model (as its vector files name it) whose question vectors this corrects."""
    up: np.ndarray
    """U: dimensions x rank."""
    down: np.ndarray
    """V: rank x dimensions."""

    def apply(self, vector: np.ndarray) -> np.ndarray:
        """The corrected unit vector of the question vector ``vector``."""
        unit = vector / np.linalg.norm(vector)
        adapted = unit + self.up @ (self.down @ unit)
        return np.asarray(adapted / np.linalg.norm(adapted))

    def values(self) -> dict[str, Any]:
        """What :func:`write_fitted` stores: the two matrices as little-endian float32, base64."""
        return {
            "model": self.model,
            "rank": int(self.up.shape[1]),
            "dimensions": int(self.up.shape[0]),
            "up": _encode(self.up),
            "down": _encode(self.down),
        }


def _encode(matrix: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(matrix, dtype="<f4").tobytes()).decode("ascii")


def _decode(path: Path, values: Mapping[str, Any], key: str, shape: tuple[int, int]) -> np.ndarray:
    try:
        matrix = np.frombuffer(base64.b64decode(str(values[key]), validate=True), dtype="<f4")
    except (KeyError, ValueError) as exc:
        raise InputError(f"query adapter {path}: {key!r} is not base64 float32 numbers ({exc})") from exc
    if matrix.size != shape[0] * shape[1] or not np.isfinite(matrix).all():
        raise InputError(f"query adapter {path}: {key!r} holds {matrix.size} numbers, not a finite {shape} matrix")
    return matrix.reshape(shape).astype(np.float64)


def read_query_adapter(path: Path) -> QueryAdapter:
    """The adapter a fitted file holds; a malformed file is an InputError naming it and what is wrong."""
    values = read_fitted(path)
    try:
        model, rank, dimensions = str(values["model"]), int(values["rank"]), int(values["dimensions"])
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"query adapter {path}: needs model, rank and dimensions ({exc})") from exc
    if not model or rank < 1 or dimensions < rank:
        raise InputError(f"query adapter {path}: model {model!r}, rank {rank}, dimensions {dimensions} make no adapter")
    up = _decode(path, values, "up", (dimensions, rank))
    down = _decode(path, values, "down", (rank, dimensions))
    return QueryAdapter(model, up, down)


def adapter_file(choice: str) -> Path | None:
    """The adapter file a user's choice (``JURIS_QUERY_ADAPTER``) names: ``off`` None, empty the shipped one."""
    if choice == "off":
        return None
    return Path(choice) if choice else BUNDLED_ADAPTER


def adapter_for(path: Path | None, model: str) -> QueryAdapter | None:
    """The adapter at ``path`` when it was learned for ``model``; None when there is none (``path`` None, or
    no file) or it was learned for another model (logged: the reranker then ranks with its raw vectors)."""
    if path is None or not path.is_file():
        return None
    adapter = read_query_adapter(path)
    if adapter.model != model:
        logger.warning("query adapter %s was learned for %s, not %s: not applied", path, adapter.model, model)
        return None
    return adapter
