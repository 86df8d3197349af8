"""Which evidence articles become a consultation's Legal Basis, decided by evidence that can be measured.

A logistic model reads, per candidate article (the fused top ``top_k`` of a law search), how each retrieval source
ranked it (statute BM25 and dense, the KG, interpretations, the answered consultations' vote, their centroids and
the laws they route to, the expanded statute search, the citation prior, the reranker), how many sources put it
in their top three, and how many of the consultations' voted articles share its law. Its weights and threshold are
data (``basis_keeper.json``, with provenance), fitted on the dev files' tuning halves by ``jurisgraph fit keeper``
from retrieval runs, which record exactly these rankings.

The ``exact`` source (articles the user's words name) is not a feature: a question naming an article says what
the user asks about, not that it applies (a barking dog with "请引用刑法第二百三十二条" is no homicide). A named
article still reaches the evidence and is kept only on the other sources' support.

A variant is fitted for each set of sources a knowledge base may lack (no reranker installed, no answered
consultations ingested): a model whose missing features are zero would keep nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tools.errors import InputError
from tools.fitted import read_fitted
from tools.law.articles import law_of

BUNDLED_KEEPER = Path(__file__).with_name("basis_keeper.json")

RANKED_SOURCES = (
    "bm25",
    "dense",
    "kg",
    "interpretations",
    "consultations",
    "centroids",
    "routed",
    "expanded",
    "prior",
    "reranked",
)
"""The sources whose ranks are features (``exact`` is not: see the module's docstring)."""
AGREEMENT = "agreement"
"""Sources ranking the candidate in their top :data:`TOP`, divided by :data:`AGREEMENT_SCALE`."""
LAW_SHARE = "law_share"
"""Share of the consultations' :data:`VOTES` best-voted articles that belong to the candidate's law."""
FEATURES = (*RANKED_SOURCES, AGREEMENT, LAW_SHARE)

DEPTH = 20
"""Ranks read per source, as LawSearch fuses them (``candidates_per_retriever``)."""
TOP = 3
AGREEMENT_SCALE = 5.0
VOTES = 10

CONSULTATION_FEATURES = ("consultations", "centroids", "routed", "expanded", "prior", LAW_SHARE)
"""What only a knowledge base holding answered consultations can rank."""
VARIANTS: dict[str, tuple[str, ...]] = {
    "all": FEATURES,
    "without_reranker": tuple(f for f in FEATURES if f != "reranked"),
    "without_consultations": tuple(f for f in FEATURES if f not in CONSULTATION_FEATURES),
    "statutes_only": tuple(f for f in FEATURES if f not in CONSULTATION_FEATURES and f != "reranked"),
}
"""Feature sets, one model each: a knowledge base without answered consultations or without the reranker is read
by the model fitted without them."""


def variant_of(rankings: Mapping[str, Sequence[str]]) -> str:
    """The variant for a search whose sources are ``rankings``: by whether consultations and the reranker ranked."""
    consultations = bool(rankings.get("consultations") or rankings.get("centroids"))
    reranked = "reranked" in rankings
    if consultations:
        return "all" if reranked else "without_reranker"
    return "without_consultations" if reranked else "statutes_only"


def candidate_features(article_id: str, rankings: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """The features of one candidate: each source's reciprocal rank (0 when it is not in the top :data:`DEPTH`),
    the sources' agreement and the consultations' law share."""
    features: dict[str, float] = {}
    agreeing = 0
    for source in RANKED_SOURCES:
        ranked = list(rankings.get(source, ()))[:DEPTH]
        rank = ranked.index(article_id) if article_id in ranked else -1
        features[source] = 1.0 / (1 + rank) if rank >= 0 else 0.0
        agreeing += 0 <= rank < TOP
    features[AGREEMENT] = agreeing / AGREEMENT_SCALE
    votes = list(rankings.get("consultations", ()))[:VOTES]
    law = law_of(article_id)
    features[LAW_SHARE] = sum(law_of(a) == law for a in votes) / len(votes) if votes else 0.0
    return features


@dataclass(frozen=True)
class KeeperModel:
    """One variant's logistic model: a weight per feature, an intercept, and the probability that keeps."""

    weights: Mapping[str, float]
    intercept: float
    threshold: float

    def probability(self, features: Mapping[str, float]) -> float:
        z = self.intercept + sum(w * features.get(name, 0.0) for name, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-z))


@dataclass(frozen=True)
class Support:
    """The keeper's reading of one candidate: how likely it is the article a lawyer would cite, and from what."""

    article_id: str
    probability: float
    features: dict[str, float]
    variant: str


@dataclass(frozen=True)
class BasisKeeper:
    """The shipped keeper: a model per variant and the most articles one answer keeps."""

    models: Mapping[str, KeeperModel]
    max_kept: int

    def support(self, pool: Sequence[str], rankings: Mapping[str, Sequence[str]]) -> list[Support]:
        """Each candidate of ``pool`` (in its order) as the variant for ``rankings`` reads it."""
        variant = variant_of(rankings)
        model = self.models[variant]
        found = []
        for article_id in pool:
            features = {k: round(v, 4) for k, v in candidate_features(article_id, rankings).items()}
            found.append(Support(article_id, round(model.probability(features), 4), features, variant))
        return found

    def passes(self, support: Support) -> bool:
        """Whether ``support`` reaches its variant's threshold."""
        return support.probability >= self.models[support.variant].threshold

    def threshold(self, variant: str) -> float:
        return self.models[variant].threshold

    def keep(self, supports: Sequence[Support]) -> list[Support]:
        """Those that pass their variant's threshold, most probable first, at most :attr:`max_kept`."""
        return sorted(filter(self.passes, supports), key=lambda s: -s.probability)[: self.max_kept]


def keeper_from(data: Mapping[str, object]) -> BasisKeeper:
    """A keeper from a fitted file's values; an incomplete file is an error naming what is missing."""
    raw = data.get("variants")
    if not isinstance(raw, dict) or set(raw) != set(VARIANTS):
        raise InputError(
            f"{BUNDLED_KEEPER.name} must hold the variants {', '.join(VARIANTS)}: refit with `jurisgraph fit keeper`"
        )
    models = {
        name: KeeperModel(
            {str(k): float(v) for k, v in spec["weights"].items()}, float(spec["intercept"]), float(spec["threshold"])
        )
        for name, spec in raw.items()
    }
    return BasisKeeper(models, int(data.get("max_kept", 3)))  # type: ignore[call-overload]


@lru_cache(maxsize=1)
def fitted_keeper() -> BasisKeeper:
    """The shipped keeper (read once)."""
    return keeper_from(read_fitted(BUNDLED_KEEPER))
