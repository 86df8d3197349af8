"""LawSearch's fusion as data: the weight of each source and the reciprocal-rank offset, fitted on the dev
files' tuning halves by ``jurisgraph fit sources`` and shipped with the package (``source_weights.json``, with
the runs, data hashes, half and commit they came from)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from tools.errors import InputError
from tools.fitted import read_fitted
from tools.retrieval.hybrid import RRF_K, Candidate, weighted_rrf

BUNDLED_WEIGHTS = Path(__file__).with_name("source_weights.json")


@dataclass(frozen=True)
class SourceFusion:
    """Weighted reciprocal-rank fusion of LawSearch's sources."""

    weights: Mapping[str, float] = field(default_factory=dict)
    """Each source's weight (a source not named weighs 1)."""
    offset: float = RRF_K
    """The damping constant: small lets each source's first hits decide, large lets agreement between sources."""

    def fuse(self, rankings: Mapping[str, Sequence[str]], k: int) -> list[Candidate]:
        """The ``k`` best articles of the sources' rankings."""
        return weighted_rrf(rankings, self.weights, k, self.offset)


WITHOUT_RERANKER = "without_reranker"
"""The key of the fusion fitted without the reranker's ordering, for users whose reranker is off or not
installed: the fusion fitted beside the reranker leans on it and gives the sources it subsumes no weight."""


@lru_cache(maxsize=2)
def fitted_source_fusion(reranked: bool = True) -> SourceFusion:
    """The shipped fusion (read once) of rankings with the reranker's ordering, or, ``reranked`` False, the
    one fitted without it."""
    data = read_fitted(BUNDLED_WEIGHTS)
    if not reranked:
        if not isinstance(data.get(WITHOUT_RERANKER), dict):
            raise InputError(
                f"{BUNDLED_WEIGHTS} holds no {WITHOUT_RERANKER!r} fusion: refit with `jurisgraph fit sources`"
            )
        data = data[WITHOUT_RERANKER]
    weights = {str(source): float(weight) for source, weight in data["weights"].items()}
    return SourceFusion(weights, float(data.get("offset", RRF_K)))
