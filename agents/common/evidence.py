"""Evidence items: retrieved article ids turned into verbatim statute text from the knowledge graph, shared by
LawSearch (what the search found) and the basis (what the law's structure adds)."""

from __future__ import annotations

from collections.abc import Sequence

from agents.state.consult import EvidenceItem
from tools.kb.statutes import StatuteRepository
from tools.retrieval.hybrid import Candidate


def fetch_evidence(
    statutes: StatuteRepository, candidates: Sequence[Candidate]
) -> tuple[list[EvidenceItem], list[str]]:
    """Evidence items with verbatim KB text for the candidates, and the candidate ids the graph lacks."""
    articles = {a.id: a for a in statutes.get_articles([c.article_id for c in candidates])}
    evidence: list[EvidenceItem] = [
        {
            "article_id": c.article_id,
            "heading": articles[c.article_id].heading,
            "text": articles[c.article_id].text,
            "score": round(c.score, 5),
            "sources": c.sources,
            "support": 0.0,
            "passes": False,
            "signals": {},
            "similar": 0,
        }
        for c in candidates
        if c.article_id in articles
    ]
    return evidence, [c.article_id for c in candidates if c.article_id not in articles]
