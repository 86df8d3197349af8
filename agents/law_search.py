"""LawSearch agent: domain-routed hybrid retrieval (BM25 + dense statutes, interpretations and cases
through the articles they cite, exact article numbers), fused into verbatim statute evidence."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from agents.content_check import split_draft
from app.context import Context
from app.services import get_services
from graphs.state import ConsultState, EvidenceItem, trace_event
from tools.retrieval import Candidate, articles_cited_by, route_collections
from tools.statutes import StatuteRepository
from tools.vectors import CASES, INTERPRETATIONS, STATUTES


def build_query(question: str, element_graph: dict[str, Any], draft: str = "") -> str:
    """The question, its key facts and legal questions (which name the issues), and the current answer."""
    extra = [*element_graph.get("key_facts", []), *element_graph.get("legal_questions", [])]
    return "\n".join([question, *[str(x) for x in extra if x], split_draft(draft) if draft else ""]).strip()


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


def merge_evidence(new: list[EvidenceItem], earlier: list[EvidenceItem], limit: int) -> list[EvidenceItem]:
    """New hits first, then earlier evidence not found again, at most ``limit`` articles."""
    seen = {e["article_id"] for e in new}
    return [*new, *[e for e in earlier if e["article_id"] not in seen]][:limit]


def search_law(state: ConsultState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Retrieve the top-k articles for the question (and the draft, in later rounds) and add them to the
    evidence; article text comes verbatim from the knowledge graph."""
    started = time.perf_counter()
    services = get_services()
    ctx = runtime.context
    query = build_query(state.question, state.element_graph, state.draft)
    counts = {c: services.vectors.count(c) for c in (INTERPRETATIONS, CASES)}
    collections, skipped = route_collections(query, counts)
    rankings = services.retriever.rankings(query, ctx.candidates_per_retriever)
    hits_per_collection = {INTERPRETATIONS: ctx.interpretation_k, CASES: ctx.case_k}
    for collection in collections:
        if collection != STATUTES:
            rankings[collection] = articles_cited_by(
                services.vectors, collection, query, hits_per_collection[collection], ctx.candidates_per_retriever
            )
    evidence, missing = fetch_evidence(services.statutes, services.retriever.fuse(rankings, ctx.top_k))
    return {
        "evidence": merge_evidence(evidence, state.evidence, ctx.max_evidence),
        "trace": [
            trace_event(
                "search_law",
                started,
                collections=collections,
                skipped=skipped,
                hits=[e["article_id"] for e in evidence],
                missing_in_graph=missing,
            )
        ],
    }
