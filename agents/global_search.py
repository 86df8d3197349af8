"""Law GraphRAG search over the statute entity index: local mode (entities -> their communities, source
articles and relations, token-budgeted) and global mode (map over community reports, reduce the rated
points). The answer's Legal Basis is quoted verbatim by code; the model only names article ids."""

from __future__ import annotations

import re
import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import BaseModel, Field

from agents.common.answers import legal_basis, strip_citation
from agents.common.models import chat_model
from agents.common.question import validate_question
from agents.context import GlobalSearchContext
from agents.state.common import trace_event
from agents.state.global_search import GlobalSearchState, ReportBatch, SearchPoint
from prompts import render_prompt
from tools.errors import InputError, StructuredOutputError
from tools.kb.entity_graph import EntityGraphRepository
from tools.law.articles import law_of, parse_citations
from tools.llm.chat import empty_usage, failed_usage, invoke_structured, invoke_text
from tools.llm.tokens import count_tokens, group_by_tokens
from tools.retrieval.vectors import ENTITIES
from tools.services import get_services

NO_INDEX = "no statute entity index yet: run `jurisgraph index --laws 个人信息保护法,数据安全法,…` first"

# Local mode's context shares (GraphRAG's local search defaults): community reports, source articles, and
# the entity/relation tables get the rest.
REPORT_SHARE, ARTICLE_SHARE = 0.25, 0.5


class MappedPoint(BaseModel):
    # 150 characters hold a point with its citations; a longer one was a 1.5B model looping on one phrase.
    description: str = Field(min_length=1, max_length=150, description="要点，以 [法律简称:条号] 引用条文")
    score: int = Field(ge=0, le=100, description="对回答问题的帮助程度 0-100")


class MapReply(BaseModel):
    """What one map call returns: the batch's points that help answer the question."""

    points: list[MappedPoint] = Field(max_length=5)


def _system(ctx: GlobalSearchContext) -> SystemMessage:
    return SystemMessage(content=render_prompt("system", ctx.language))


def _fit(lines: list[str], budget: int) -> list[str]:
    """The leading lines that fit in ``budget`` tokens, counting a separator token after each."""
    kept, used = [], 0
    for line in lines:
        cost = count_tokens(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return kept


def route_mode(state: GlobalSearchState) -> str:
    """Local questions start from entities, global ones from the community reports."""
    return "build_local_context" if state.mode == "local" else "plan_map"


def plan_map(state: GlobalSearchState, runtime: Runtime[GlobalSearchContext]) -> dict[str, Any]:
    """Pack the reports of the configured level, most important first, into map-sized batches."""
    started = time.perf_counter()
    ctx = runtime.context
    validate_question(state.question, ctx.max_question_chars)
    communities = EntityGraphRepository(get_services().graph).communities(ctx.search_level)
    if not communities:
        raise InputError(NO_INDEX)
    texts = [f"【社区 {c['id']}】{c['report']}" for c in communities]
    batches = ["\n\n".join(texts[i] for i in group) for group in group_by_tokens(texts, ctx.map_tokens)]
    return {
        "batches": batches,
        "sources": [str(c["id"]) for c in communities],
        "allowed": [a for c in communities for a in [*parse_citations(str(c["report"] or "")), *(c["articles"] or [])]],
        "trace": [trace_event("plan_map", started, reports=len(communities), batches=len(batches))],
    }


def route_batches(state: GlobalSearchState) -> list[Send]:
    """One map_reports branch per batch (they run in parallel; the points reducer collects them)."""
    return [Send("map_reports", ReportBatch(question=state.question, batch=b)) for b in state.batches]


def map_reports(task: ReportBatch, runtime: Runtime[GlobalSearchContext]) -> dict[str, Any]:
    """The points of one batch of reports that help answer the question, each rated 0-100."""
    started = time.perf_counter()
    ctx = runtime.context
    model = chat_model(ctx, "draft")
    prompt = render_prompt("map_reports", ctx.language, question=task.question, reports=task.batch)
    try:
        reply, usage = invoke_structured(
            model, [_system(ctx), HumanMessage(content=prompt)], MapReply, ctx.structured_retries
        )
        points: list[SearchPoint] = [{"description": p.description, "score": p.score} for p in reply.points]
    except StructuredOutputError as exc:
        # One unreadable batch costs its points, not the answer.
        points, usage = [], failed_usage(exc)
    return {
        "points": points,
        "usage": usage,
        "trace": [trace_event("map_reports", started, points=len(points))],
    }


def build_local_context(state: GlobalSearchState, runtime: Runtime[GlobalSearchContext]) -> dict[str, Any]:
    """Entities nearest the question, then within ``local_tokens``: their communities' reports, the articles
    that mention most of them (verbatim), the relations among them, and the entities themselves."""
    started = time.perf_counter()
    ctx = runtime.context
    validate_question(state.question, ctx.max_question_chars)
    services = get_services()
    if services.vectors.count(ENTITIES) == 0:
        raise InputError(NO_INDEX)
    repo = EntityGraphRepository(services.graph)
    ids = [hit.id for hit in services.vectors.search(ENTITIES, state.question, ctx.local_entities)]
    entities = sorted(repo.entities(ids), key=lambda e: ids.index(e["id"]))
    reports = [
        f"【社区 {c['id']}】{c['report']}" for c in repo.communities_of(ids, ctx.search_level) if c.get("report")
    ]
    mentions: dict[str, int] = {}
    for entity in entities:
        for article_id in entity["articles"]:
            mentions[article_id] = mentions.get(article_id, 0) + 1
    ranked = sorted(mentions, key=lambda a: (-mentions[a], a))
    found = {a.id: a for a in services.statutes.get_articles(ranked)}
    articles = [f"[{a.id}] {a.heading}\n{a.text}" for a in (found[i] for i in ranked if i in found)]
    relations = sorted(repo.relations_of(ids), key=lambda r: (-(r["target"] in ids), -float(r["weight"] or 0)))
    headings = ("社区报告：\n", "条文：\n", "实体与关系：\n")
    budget = ctx.local_tokens - sum(count_tokens(h) + 1 for h in headings)
    report_part = _fit(reports, int(budget * REPORT_SHARE))
    article_part = _fit(articles, int(budget * ARTICLE_SHARE))
    rest = budget - sum(count_tokens(x) + 1 for x in report_part + article_part)
    graph_lines = [f"{e['name']}|{e['type']}|{e['description']}" for e in entities] + [
        f"{r['source_name']} — {r['target_name']}|{r['description']}" for r in relations
    ]
    graph_part = _fit(graph_lines, rest)
    sections = zip(headings, ("\n\n".join(report_part), "\n".join(article_part), "\n".join(graph_part)), strict=True)
    context = "\n\n".join(heading + body for heading, body in sections if body)
    return {
        "context": context,
        "sources": ids,
        "allowed": parse_citations(context),
        "trace": [
            trace_event(
                "build_local_context",
                started,
                entities=len(entities),
                reports=len(report_part),
                articles=len(article_part),
                graph_lines=len(graph_part),
                tokens=count_tokens(context),
            )
        ],
    }


def write_answer(state: GlobalSearchState, runtime: Runtime[GlobalSearchContext]) -> dict[str, Any]:
    """Local: answer from the packed context. Global: answer from the best-rated points (the reduce step)."""
    started = time.perf_counter()
    ctx = runtime.context
    if state.mode == "local":
        prompt = render_prompt("answer_local", ctx.language, question=state.question, context=state.context)
        shown = state.context
    else:
        ranked = sorted((p for p in state.points if p["score"] > 0), key=lambda p: -p["score"])
        lines = _fit([f"- （{p['score']}分）{p['description']}" for p in ranked], ctx.reduce_tokens)
        if not lines:
            return {
                "answer": render_prompt("no_answer", ctx.language),
                "usage": empty_usage(),
                "trace": [trace_event("write_answer", started, points=0)],
            }
        shown = "\n".join(lines)
        prompt = render_prompt("reduce_points", ctx.language, question=state.question, points=shown)
    model = chat_model(ctx, "draft")
    text, usage = invoke_text(model, [_system(ctx), HumanMessage(content=prompt)])
    return {
        "answer": text.strip(),
        "usage": usage,
        "trace": [trace_event("write_answer", started, context_tokens=count_tokens(shown))],
    }


def _bare_ids(text: str, shown: list[str]) -> list[str]:
    """Ids of the shown laws that the answer writes without brackets (个人信息保护法:39), in order of
    appearance: a small model copies its map points' ids that way, and sometimes invents one."""
    laws = sorted({law_of(article_id) for article_id in shown}, key=len, reverse=True)
    if not laws:
        return []
    pattern = re.compile(rf"({'|'.join(map(re.escape, laws))})[:：](\d+(?:-\d+)?)(?![\d-])")
    return list(dict.fromkeys(f"{m.group(1)}:{m.group(2)}" for m in pattern.finditer(text)))


def quote_basis(state: GlobalSearchState) -> dict[str, Any]:
    """Quote every cited article verbatim; citations the model was not shown, or that the knowledge base does
    not hold, are removed from the answer and reported."""
    started = time.perf_counter()
    cited = list(dict.fromkeys([*parse_citations(state.answer), *_bare_ids(state.answer, state.allowed)]))
    shown = set(state.allowed)
    found = {a.id: a for a in get_services().statutes.get_articles([a for a in cited if a in shown])}
    dropped = [a for a in cited if a not in found]
    answer = state.answer
    for article_id in dropped:
        answer = strip_citation(answer, article_id)
    return {
        "answer": answer.strip(),
        "legal_basis": legal_basis(list(found.values()), cited),
        "dropped_citations": dropped,
        "trace": [trace_event("quote_basis", started, cited=len(cited), quoted=len(found), dropped=dropped)],
    }
