"""LawSearch's fusion weights as data: fitted on the dev files' tuning halves by
``jurisgraph fit sources`` and shipped with the package (``source_weights.json``, with the runs,
data hashes, half and commit they came from)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from tools.fitted import read_fitted

BUNDLED_WEIGHTS = Path(__file__).with_name("source_weights.json")


@lru_cache(maxsize=1)
def _fitted() -> tuple[tuple[str, float], ...]:
    data = read_fitted(BUNDLED_WEIGHTS)
    return tuple((str(source), float(weight)) for source, weight in data["weights"].items())


def fitted_source_weights() -> dict[str, float]:
    """The shipped weight of each source LawSearch fuses (a fresh dict: a caller may change its copy)."""
    return dict(_fitted())
