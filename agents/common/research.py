"""The Researcher's fused ranking, read by the Researcher's probes and the auditor that audits its best."""

from __future__ import annotations

from collections.abc import Mapping

from agents.context import Context
from tools.retrieval.hybrid import weighted_rrf


def follow_companions(ranked: list[str], companions: Mapping[str, str]) -> list[str]:
    """``ranked`` with each defining article's penalty companion right after it (moved up when ranked lower)."""
    out: list[str] = []
    for article_id in ranked:
        for item in (article_id, companions.get(article_id)):
            if item and item not in out:
                out.append(item)
    return out


def fuse_research(
    rankings: dict[str, list[str]], ctx: Context, k: int, companions: Mapping[str, str] | None = None
) -> list[str]:
    """The Researcher's fused candidate list (weighted RRF over every strategy's ranking), with penalty
    companions (:meth:`tools.kb.statutes.StatuteRepository.penalty_companions`) following their articles when
    ``ctx.penalty_companions`` is on."""
    fused = [c.article_id for c in weighted_rrf(rankings, ctx.strategy_weights, k)]
    if ctx.penalty_companions and companions:
        fused = follow_companions(fused, companions)
    return fused[:k]
