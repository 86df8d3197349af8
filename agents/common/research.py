"""The Researcher's fused ranking, read by the Researcher's probes and the auditor that audits its best."""

from __future__ import annotations

from agents.context import Context
from tools.retrieval.hybrid import weighted_rrf


def fuse_research(rankings: dict[str, list[str]], ctx: Context, k: int) -> list[str]:
    """The Researcher's fused candidate list (weighted RRF over every strategy's ranking)."""
    return [c.article_id for c in weighted_rrf(rankings, ctx.strategy_weights, k)]
