"""LawSearch agent: hybrid statute retrieval for the question and its legal elements."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from app.context import Context
from app.services import get_services
from graphs.state import ConsultState, EvidenceItem, trace_event
from tools.retrieval import Candidate
from tools.statutes import StatuteRepository


def build_query(question: str, element_graph: dict[str, Any]) -> str:
    """The question plus the extracted key facts and legal questions, which name the legal issues."""
    extra = [*element_graph.get("key_facts", []), *element_graph.get("legal_questions", [])]
    return "\n".join([question, *[str(x) for x in extra if x]])


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
        }
        for c in candidates
        if c.article_id in articles
    ]
    return evidence, [c.article_id for c in candidates if c.article_id not in articles]


def search_law(state: ConsultState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Retrieve the top-k statute articles; their text comes verbatim from the knowledge graph."""
    started = time.perf_counter()
    services = get_services()
    ctx = runtime.context
    candidates = services.retriever.retrieve(
        build_query(state.question, state.element_graph), ctx.top_k, ctx.candidates_per_retriever
    )
    evidence, missing = fetch_evidence(services.statutes, candidates)
    return {
        "evidence": evidence,
        "trace": [
            trace_event(
                "search_law",
                started,
                hits=[e["article_id"] for e in evidence],
                missing_in_graph=missing,
            )
        ],
    }
