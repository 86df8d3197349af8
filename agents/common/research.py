"""The Researcher's fusion and offence index, read by the Researcher, the retrieval eval and the charge
scorer (which fuses once per judgment for the audit and the Adjudicator)."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from agents.context import JudgeContext
from tools.kb.charges import ChargeRepository
from tools.retrieval.article_priors import bundled_priors
from tools.retrieval.hybrid import weighted_rrf
from tools.retrieval.offence import OffenceIndex
from tools.retrieval.research_weights import ResearchWeights, fitted_research_weights
from tools.services import Services

_index_lock = threading.Lock()


def follow_companions(ranked: list[str], companions: Mapping[str, str]) -> list[str]:
    """``ranked`` with each defining article's penalty companion right after it (moved up when ranked lower)."""
    out: list[str] = []
    for article_id in ranked:
        for item in (article_id, companions.get(article_id)):
            if item and item not in out:
                out.append(item)
    return out


def fuse_research(
    rankings: dict[str, list[str]],
    ctx: JudgeContext,
    k: int,
    companions: Mapping[str, str] | None = None,
    weights: ResearchWeights | None = None,
) -> list[str]:
    """The Researcher's fused candidate list: RRF over every strategy's ranking with ``weights`` (default: the
    fitted ones); magnet articles demoted unless the KG strategy links the fact to them
    (:mod:`tools.retrieval.article_priors`; none when the prior strength is 0); penalty companions
    (:meth:`tools.kb.statutes.StatuteRepository.penalty_companions`) following their articles when
    ``ctx.penalty_companions`` is on."""
    weights = weights or fitted_research_weights()
    pool = weighted_rrf(rankings, weights.strategy, sum(len(ranked) for ranked in rankings.values()))
    priors = bundled_priors() if weights.prior_strength else None
    if priors is None:
        fused = [c.article_id for c in pool]
    else:
        scored = ((c.article_id, c.score) for c in pool)
        named = set(rankings.get("kg", []))
        fused = priors.demote(scored, weights.magnet_threshold, weights.prior_strength, exempt=named)
    if ctx.penalty_companions and companions:
        fused = follow_companions(fused, companions)
    return fused[:k]


_offence_indexes: dict[int, tuple[list[tuple[str, str]], OffenceIndex]] = {}


def offence_index(services: Services) -> OffenceIndex:
    """The offence descriptions of every charge-defining article, rebuilt when those articles or their texts
    changed (their ids and hashes are read per call; the texts only on a change)."""
    stamp = ChargeRepository(services.graph).defining_hashes()
    key = id(services.graph)
    with _index_lock:
        cached = _offence_indexes.get(key)
        if cached is None or cached[0] != stamp:
            articles = services.statutes.get_articles([article_id for article_id, _ in stamp])
            cached = _offence_indexes[key] = (stamp, OffenceIndex((a.id, a.text) for a in articles))
        return cached[1]
