"""The Researcher's fusion weights as data (``research_weights.json``, written by ``jurisgraph fit research``):
each strategy's weight in the RRF and how hard magnet articles are demoted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from tools.fitted import read_fitted

BUNDLED_RESEARCH_WEIGHTS = Path(__file__).with_name("research_weights.json")


@dataclass(frozen=True)
class ResearchWeights:
    """Weights of the Researcher's fusion."""

    strategy: Mapping[str, float] = field(default_factory=dict)
    """Weight of each strategy's ranking (a strategy not named weighs 0)."""
    magnet_threshold: float = 1.0
    """Magnet rate above which an article is demoted (:mod:`tools.retrieval.article_priors`)."""
    prior_strength: float = 0.0
    """A magnet's score is multiplied by (1 - magnet rate) ** strength; 0: no demotion."""


@lru_cache(maxsize=1)
def fitted_research_weights() -> ResearchWeights:
    """The shipped weights."""
    values = read_fitted(BUNDLED_RESEARCH_WEIGHTS)
    return ResearchWeights(
        {k: float(v) for k, v in values["strategy_weights"].items()},
        float(values["magnet_threshold"]),
        float(values["article_prior_strength"]),
    )
