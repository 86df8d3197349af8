"""LawSearch agent: domain-routed hybrid retrieval (BM25 + dense statutes; interpretations, cases and
statute-community reports through the articles they cite; KG traversal from named charges and entities;
exact article numbers), fused with configurable weights into verbatim statute evidence."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents.common.answers import split_draft
from agents.common.evidence import fetch_evidence
from agents.common.models import chat_model
from agents.common.question import user_words
from agents.context import ConsultContext
from agents.context.experiment import consult_switches
from agents.state.common import trace_event
from agents.state.consult import ConsultState, EvidenceItem, Example
from prompts import render_prompt
from tools.errors import StructuredOutputError
from tools.law.abbreviations import stated_abbreviations
from tools.law.articles import without_references
from tools.law.thresholds import stated_conduct
from tools.llm.chat import Usage, empty_usage, failed_usage, invoke_structured
from tools.retrieval.basis_keeper import fitted_keeper
from tools.retrieval.consultations import Neighbour, cited_laws, prior_ranking, vote
from tools.retrieval.hybrid import (
    OPTIONAL_SOURCES,
    articles_cited_by,
    kg_linked_articles,
    route_collections,
    select_collections,
)
from tools.retrieval.source_weights import fitted_source_fusion
from tools.retrieval.vectors import CASES, COMMUNITY_REPORTS, CONSULTATIONS, IN_FORCE, INTERPRETATIONS, STATUTES
from tools.services import Services, get_services


class SourceRoute(BaseModel):
    """The router's reply: the question's legal domain and the collections worth reading besides statutes."""

    domain: str = Field(min_length=1, max_length=20, description="刑事、民事、劳动、行政、程序、数据与网络等")
    sources: list[Literal["interpretations", "cases", "community_reports"]] = Field(max_length=3)
    reason: str = Field(max_length=120)


def build_query(question: str, element_graph: dict[str, Any], draft: str = "", earlier: Sequence[str] = ()) -> str:
    """The question, the thread's ``earlier`` questions (a follow-up, 如果撞伤了人呢？, is about what they said), the
    element graph's key facts and legal questions once a draft has built it, and the current answer, without
    article references: the articles a question names reach the evidence through the exact source alone, so that
    "引用刑法第二百三十二条" in a question about a barking dog does not steer the search to articles citing 232. A
    measure the question states adds the conduct it makes (:func:`stated_conduct`): 血液酒精含量120mg/100ml shares no
    word with the 醉酒驾驶 of the articles that decide it; so does an abbreviation the question uses
    (:func:`stated_abbreviations`): 醉驾怎么处罚？ found 91 alone, 醉酒驾驶怎么处罚？ 91 and 133-1. Not one whose degree
    the question says is not reached (没到醉驾: the search stays on the drinking it is about)."""
    extra = [*element_graph.get("key_facts", []), *element_graph.get("legal_questions", [])]
    parts = [
        question,
        *stated_conduct(question),
        *stated_abbreviations(question),
        *earlier,
        *[str(x) for x in extra if x],
        split_draft(draft) if draft else "",
    ]
    return without_references("\n".join(parts)).strip()


def with_support(evidence: list[EvidenceItem], rankings: dict[str, list[str]]) -> list[EvidenceItem]:
    """The evidence with the basis keeper's reading of each article, from the sources' rankings that found it."""
    keeper = fitted_keeper()
    supports = keeper.support([e["article_id"] for e in evidence], rankings)
    return [
        {**e, "support": s.probability, "passes": keeper.passes(s), "signals": s.features}
        for e, s in zip(evidence, supports, strict=True)
    ]


EXAMPLES = 3
"""Answered consultations shown to the Draft agent as worked examples."""
EXAMPLE_CHARS = 300
"""Most characters of a lawyer's reasoning an example shows: the draft prompt stays within the model's context."""


def nearest_consultations(question: str, services: Services, ctx: ConsultContext) -> list[Neighbour]:
    """The ``consultation_k`` answered consultations nearest ``question`` (its measured half hidden); none when the
    KB holds none or ``consultation_k`` is 0. Read once per search: the vote and the worked examples share them."""
    search = services.consultations
    if ctx.consultation_k < 1 or not search.count():
        return []
    return search.neighbours(question, ctx.consultation_k, consult_switches(ctx).hidden_consultation_half)


def similar_consultations(neighbours: Sequence[Neighbour], services: Services) -> tuple[list[Example], Counter[str]]:
    """Of the answered consultations nearest the question, the first :data:`EXAMPLES` as worked examples, and how
    many of them all cite each article."""
    cited = Counter(a for n in neighbours for a in dict.fromkeys(n.articles))
    shown = neighbours[:EXAMPLES]
    if not shown:
        return [], cited
    texts = services.vectors.texts(CONSULTATIONS, [n.id for n in shown])
    meta = services.vectors.metadata(CONSULTATIONS, [n.id for n in shown])
    examples: list[Example] = [
        {
            "id": n.id,
            "question": texts.get(n.id, ""),
            "answer": str(meta.get(n.id, {}).get("reasoning", ""))[:EXAMPLE_CHARS],
            "articles": list(n.articles),
        }
        for n in shown
    ]
    return examples, cited


def merge_evidence(new: list[EvidenceItem], earlier: list[EvidenceItem], limit: int) -> list[EvidenceItem]:
    """New hits first, then earlier evidence not found again, at most ``limit`` articles. An article found again
    keeps the stronger of its two supports: a Manager round searches with the model's draft beside the question,
    and a draft may add evidence but never weaken what the question's own search found (a draft's words once took
    the drunk-driving article from kept to conditional, and the answer lost its basis)."""
    before = {e["article_id"]: e for e in earlier}
    stronger: list[EvidenceItem] = [
        {**e, "support": b["support"], "passes": b["passes"], "signals": b["signals"]}
        if (b := before.get(e["article_id"])) is not None and b["support"] > e["support"]
        else e
        for e in new
    ]
    seen = {e["article_id"] for e in new}
    return [*stronger, *[e for e in earlier if e["article_id"] not in seen]][:limit]


def route_sources(
    query: str, services: Services, ctx: ConsultContext
) -> tuple[list[str], dict[str, str], dict[str, Any], Usage]:
    """Domain routing (the hybrid-RAG router): the collections to search, why the others are skipped, and
    the decision for the trace. The model decides with ``router="llm"`` and ``profile="thorough"``; keywords
    decide otherwise or when its reply never validates."""
    counts = {c: services.vectors.count(c) for c in OPTIONAL_SOURCES}
    if ctx.router == "llm" and ctx.profile == "thorough" and any(counts.values()):
        model = chat_model(ctx, "manager")
        prompt = render_prompt("route_sources", ctx.language, question=query)
        try:
            route, usage = invoke_structured(model, [HumanMessage(content=prompt)], SourceRoute, ctx.structured_retries)
        except StructuredOutputError as exc:
            chosen, skipped = route_collections(query, counts, ctx.language)
            return chosen, skipped, {"router": "rules", "fallback": str(exc)}, failed_usage(exc)
        chosen, skipped = select_collections(route.sources, counts, f"router: not for {route.domain}")
        return chosen, skipped, {"router": "llm", "domain": route.domain, "reason": route.reason}, usage
    chosen, skipped = route_collections(query, counts, ctx.language)
    return chosen, skipped, {"router": "rules"}, empty_usage()


def source_rankings(
    query: str,
    collections: Sequence[str],
    services: Services,
    ctx: ConsultContext,
    question: str = "",
    named_in: str | None = None,
    neighbours: Sequence[Neighbour] | None = None,
) -> dict[str, list[str]]:
    """Each source's ranked article ids: statute BM25 and dense, and exact (the articles ``named_in`` names,
    default the query); the articles cited by the hits of
    each routed collection; the KG traversal from the charges and statute entities the query names; what
    answered consultations similar to ``question`` (default: the query) add; and all of them reranked by the
    reranker's similarity to ``question``, unless it is off (``JURIS_RERANKER``) or not installed. ``neighbours``:
    the consultations nearest ``question``, when the caller has read them (:func:`nearest_consultations`)."""
    rankings = services.retriever.rankings(query, ctx.candidates_per_retriever, named_in)
    hits_per_collection = {INTERPRETATIONS: ctx.interpretation_k, CASES: ctx.case_k, COMMUNITY_REPORTS: ctx.top_k}
    # Interpretations a later one repealed or replaced are not offered unless asked for.
    where = {INTERPRETATIONS: None if ctx.repealed_interpretations else {IN_FORCE: True}}
    for collection in collections:
        if collection != STATUTES:
            rankings[collection] = articles_cited_by(
                services.vectors,
                collection,
                query,
                hits_per_collection[collection],
                ctx.candidates_per_retriever,
                where.get(collection),
            )
    rankings["kg"] = kg_linked_articles(services.graph, query, ctx.candidates_per_retriever)
    rankings |= consultation_rankings(question or query, query, rankings, services, ctx, neighbours)
    if (reranker := services.reranker.get()) is not None:
        candidates = [a for ranked in rankings.values() for a in ranked]
        rankings[RERANKED] = reranker.rank(question or query, candidates, ctx.candidates_per_retriever)
    return rankings


RERANKED = "reranked"
"""The source that orders every other source's candidates by the reranker's similarity to the question."""


CONSULTATION_SOURCES = ("consultations", "centroids", "routed", "expanded", "prior")
"""The rankings answered consultations add to a law search."""


def consultation_rankings(
    question: str,
    query: str,
    found: dict[str, list[str]],
    services: Services,
    ctx: ConsultContext,
    neighbours: Sequence[Neighbour] | None = None,
) -> dict[str, list[str]]:
    """What answered consultations add: the articles those similar to ``question`` cite (``consultations``),
    those whose citing questions are nearest ``question`` on average (``centroids``), a search for ``query``
    within the laws they cite (``routed``), a statute search for ``question`` in the words of the articles
    answered questions with its words cite (``expanded``), and the candidates found so far reordered by how
    often consultations cite them (``prior``). Nothing when the KB holds none or ``consultation_k`` is 0.
    Questions are matched with the user's question alone, as answered questions were asked: the search query
    adds the element graph's key facts and the draft, which read like no question. ``neighbours``: those nearest
    ``question`` (:func:`nearest_consultations`), read here when not given."""
    search = services.consultations
    if ctx.consultation_k < 1 or not search.count():
        return {}
    depth = ctx.candidates_per_retriever
    hidden = consult_switches(ctx).hidden_consultation_half
    if neighbours is None:
        neighbours = nearest_consultations(question, services, ctx)
    voted = vote(neighbours, depth)
    centroids = search.centroid_ranking(question, depth, hidden)
    routed = services.retriever.within_laws(query, cited_laws(neighbours, ctx.routed_laws), depth)
    expanded = search.expanded_ranking(question, services.retriever.statute_index(), depth, hidden)
    candidates = [a for ranked in (*found.values(), voted, centroids, routed, expanded) for a in ranked]
    prior = prior_ranking(search.citation_counts(hidden), candidates, depth)
    return dict(zip(CONSULTATION_SOURCES, (voted, centroids, routed, expanded, prior), strict=True))


def search_law(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Retrieve the top-k articles for the question (and the draft, in later rounds) and add them to the
    evidence; article text comes verbatim from the knowledge graph."""
    started = time.perf_counter()
    services = get_services()
    ctx = runtime.context
    query = build_query(state.question, state.element_graph, state.draft, [t["question"] for t in state.history])
    collections, skipped, decision, usage = route_sources(query, services, ctx)
    words = user_words(state.question, state.history)
    neighbours = nearest_consultations(state.question, services, ctx)
    rankings = source_rankings(query, collections, services, ctx, state.question, words, neighbours)
    fused = fitted_source_fusion(RERANKED in rankings).fuse(rankings, ctx.top_k)
    evidence, missing = fetch_evidence(services.statutes, fused)
    examples, cited = similar_consultations(neighbours, services)
    evidence = [{**e, "similar": cited[e["article_id"]]} for e in with_support(evidence, rankings)]
    # A user whose reranker is on but not installed learns why from the trace.
    why = services.reranker.missing if RERANKED not in rankings else ""
    unranked = {"reranker": why} if why else {}
    return {
        "evidence": merge_evidence(evidence, state.evidence, ctx.max_evidence),
        "examples": examples,
        "usage": usage,
        "trace": [
            trace_event(
                "search_law",
                started,
                route=decision,
                collections=collections,
                skipped=skipped,
                sources={name: len(ranked) for name, ranked in rankings.items()},
                **unranked,
                hits=[e["article_id"] for e in evidence],
                missing_in_graph=missing,
            )
        ],
    }
