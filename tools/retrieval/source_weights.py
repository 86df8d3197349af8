"""LawSearch's fusion weights as data: fitted on the dev files' tuning halves by
``benchmarks/fit_source_weights.py`` and shipped with the package (``source_weights.json``, with the runs,
data hashes, half and commit they came from)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

BUNDLED_WEIGHTS = Path(__file__).with_name("source_weights.json")


@lru_cache(maxsize=1)
def _fitted() -> tuple[tuple[str, float], ...]:
    data = json.loads(BUNDLED_WEIGHTS.read_text(encoding="utf-8"))
    return tuple((str(source), float(weight)) for source, weight in data["weights"].items())


def fitted_source_weights() -> dict[str, float]:
    """The shipped weight of each source LawSearch fuses (a fresh dict: a caller may change its copy)."""
    return dict(_fitted())
