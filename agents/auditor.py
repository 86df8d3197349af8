"""Auditor agent (LegalGraphRAG): verifies one candidate article against the facts, item by item.

The article's diagnostic checklist is read from the graph (generated and stored on first demand), the
model answers every item with a boolean (after a short reason where ``audit_reasons`` asks for one), and
applicability follows from the true and false lists: all true applies and all false does not, by rule. A
mixed list is kept and flagged for review (``audit_mixed="keep"``) or goes to the model's "checklist final"
decision (``"model"``, LegalGraphRAG's design, which needs a model that reads alternatives as alternatives).
An article whose checklist cannot be made or answered is kept and marked ``unverified`` rather than pruned,
so a flaky model never silently removes correct law.
"""

from __future__ import annotations

import re
import time
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel, Field, create_model

from agents.common.messages import FactsKind, facts_first
from agents.common.models import chat_model
from agents.context import AuditContext
from agents.state.audit import ArticleTask, AuditState, CheckResult, Verdict
from agents.state.common import trace_event
from prompts import label, render_prompt
from tools.errors import InputError, StructuredOutputError
from tools.kb.checklist_generation import ensure_checklist
from tools.kb.checklists import ChecklistRepository
from tools.kb.interpretations import InterpretationRepository
from tools.law.articles import Article
from tools.law.wording import bigram_share
from tools.llm.chat import Usage, add_usage, empty_usage, failed_usage, invoke_structured
from tools.services import get_services

INTERPRETATIONS_SHOWN = 3
"""Interpretation titles shown beside the article: enough to signal how courts apply it, few tokens."""


_ITEM_FRAME = re.compile(r"[的吗]?[？?]$")
"""The end of a checklist item's question frame, which no fact states (bigram_share drops its 是否)."""

VERIFY_PROMPTS = {"case": "verify_checklist", "question": "verify_question"}
"""A case description is checked strictly; a consultation question only for what it contradicts (a question
rarely states every element, and pruning an article for one element left unsaid removed correct answers)."""


class ItemCheck(BaseModel):
    """The model's answer to one checklist item; the reason comes first so it reasons before deciding."""

    reason: str = Field(max_length=60)
    holds: bool


class ItemHolds(BaseModel):
    """The model's answer to one checklist item, without a reason (see ``AuditContext.audit_reasons``)."""

    holds: bool


class Applicability(BaseModel):
    """The checklist-final decision on a mixed list."""

    reason: str = Field(max_length=80)
    applicable: bool


def answers_schema(count: int, reasons: bool = True) -> type[BaseModel]:
    """A schema that admits exactly ``count`` item answers, so constrained decoding cannot skip one."""
    item = ItemCheck if reasons else ItemHolds
    return create_model("ChecklistAnswers", answers=(list[item], Field(min_length=count, max_length=count)))  # type: ignore[valid-type]


def _numbered(lines: list[str], lang: str) -> str:
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, 1)) or label("none", lang)


def decide_by_rule(checks: list[CheckResult]) -> bool | None:
    """Applicability when the items agree (all true / all false); None when they are mixed."""
    held = {c["holds"] for c in checks}
    return None if len(held) != 1 else held.pop()


def _stated(check: CheckResult, facts: str, ctx: AuditContext) -> CheckResult:
    """``check`` as the question supports it: an item the model says holds holds only when the question (or
    its key facts) states it, by :func:`bigram_share` of its wording (是否…的？ aside); the 1.5B model said
    是否追逐竞驶，情节恶劣 holds for a question about drunk driving."""
    wording = _ITEM_FRAME.sub("", check["item"])
    if not check["holds"] or bigram_share(wording, facts) >= ctx.stated_item_share:
        return check
    return {"item": check["item"], "holds": False, "reason": label("not_stated", ctx.language), "stated": False}


_QUOTED = re.compile(r"[「“\"‘']([^」”\"’']{2,40})[」”\"’']")
"""Words a reason quotes: 「…」, “…”, "…" or ‘…’."""


def quoted_contradiction(reason: str, words: str) -> str:
    """The first span ``reason`` quotes that occurs in the user's ``words``, or "": a checklist item refuted with the
    user's own words quoted is a contradiction the user can see; a refutation without one is the model's reading."""
    plain = re.sub(r"\s+", "", words)
    for span in _QUOTED.findall(reason):
        if re.sub(r"\s+", "", span) in plain:
            return span
    return ""


def _decide_question(article_id: str, checks: list[CheckResult], words: str, lang: str) -> Verdict:
    """A consultation's verdict: the article was kept on evidence, and stays unless an item is refuted by words the
    question says (quoted in the model's reason). Items the question does not state neither keep nor prune it: a
    1.5B model cannot read a colloquial question against statute elements (since s32 every article it could check
    was pruned on wording), so the checklist explains and can only veto."""
    for check in checks:
        quote = quoted_contradiction(check["reason"], words) if check["stated"] and not check["holds"] else ""
        if quote:
            return {
                "article_id": article_id,
                "applicable": False,
                "reason": label("contradicted", lang, item=check["item"], quote=quote),
                "checks": checks,
                "decided_by": "contradiction",
            }
    return {
        "article_id": article_id,
        "applicable": True,
        "reason": label("no_contradiction", lang),
        "checks": checks,
        "decided_by": "evidence",
    }


def _unverified(article_id: str, why: str) -> Verdict:
    return {"article_id": article_id, "applicable": True, "reason": why, "checks": [], "decided_by": "unverified"}


class Unverified(Exception):
    """The checklist could not be made or answered: the article is kept, marked ``unverified``, with why."""

    def __init__(self, why: str, usage: Usage) -> None:
        super().__init__(why)
        self.usage = usage


def _checklist(article: Article, ctx: AuditContext) -> tuple[list[str], Usage]:
    """Step 1: the article's checklist items, read from the graph or generated once and stored."""
    services = get_services()
    try:
        checklist, used = ensure_checklist(
            article,
            ChecklistRepository(services.graph),
            chat_model(ctx, "audit"),
            ctx.model_for("audit"),
            ctx.language,
            retries=ctx.structured_retries,
        )
    except StructuredOutputError as exc:
        raise Unverified(f"no checklist could be generated: {exc}", failed_usage(exc)) from exc
    return list(checklist.items), used


def _answer_items(
    article: Article, items: list[str], facts: str, facts_kind: FactsKind, ctx: AuditContext
) -> tuple[list[CheckResult], Usage]:
    """Step 2: the model's answer to every item against the facts (after a reason, where ``audit_reasons`` asks)."""
    reasons = ctx.audit_reasons == "always" or (ctx.audit_reasons == "questions" and facts_kind == "question")
    interps = InterpretationRepository(get_services().graph).for_articles([article.id]).get(article.id, [])
    prompt = render_prompt(
        VERIFY_PROMPTS[facts_kind],
        ctx.language,
        article_id=article.id,
        heading=article.heading,
        text=article.text,
        interpretations="；".join(i["title"] for i in interps[:INTERPRETATIONS_SHOWN]) or label("none", ctx.language),
        items=_numbered(items, ctx.language),
        count=len(items),
        answer_rule=label("item_answers_reasoned" if reasons else "item_answers_bare", ctx.language),
    )
    try:
        parsed, used = invoke_structured(
            chat_model(ctx, "audit"),
            facts_first(ctx.language, facts_kind, facts, prompt),
            answers_schema(len(items), reasons),
            ctx.structured_retries,
        )
    except StructuredOutputError as exc:
        raise Unverified(f"the checklist could not be answered: {exc}", failed_usage(exc)) from exc
    checks: list[CheckResult] = [
        {"item": item, "holds": answer.holds, "reason": getattr(answer, "reason", ""), "stated": True}
        for item, answer in zip(items, parsed.answers, strict=True)  # type: ignore[attr-defined]
    ]
    return checks, used


def _decide_case(article: Article, checks: list[CheckResult], ctx: AuditContext) -> tuple[Verdict, Usage]:
    """Step 3 for a case: by rule when the items agree; a mixed list kept (``audit_mixed="keep"``) or decided by the
    model's checklist-final call, or, when that call fails, by the majority of items."""
    verdict: Verdict = {
        "article_id": article.id,
        "applicable": True,
        "reason": "",
        "checks": checks,
        "decided_by": "rule",
    }
    ruled = decide_by_rule(checks)
    if ruled is not None:
        return {**verdict, "applicable": ruled, "reason": label("all_hold" if ruled else "none_hold", ctx.language)}, (
            empty_usage()
        )
    if ctx.audit_mixed == "keep":
        return {**verdict, "reason": label("mixed_kept", ctx.language)}, empty_usage()
    prompt = render_prompt(
        "decide_applicability",
        ctx.language,
        article_id=article.id,
        heading=article.heading,
        true_items=_numbered([c["item"] for c in checks if c["holds"]], ctx.language),
        false_items=_numbered([c["item"] for c in checks if not c["holds"]], ctx.language),
    )
    model = chat_model(ctx, "audit")
    try:
        final, used = invoke_structured(model, [HumanMessage(content=prompt)], Applicability, ctx.structured_retries)
    except StructuredOutputError as exc:
        held = sum(c["holds"] for c in checks)
        reason = f"checklist-final call failed ({exc}); decided by the majority of items"
        return {**verdict, "applicable": held * 2 >= len(checks), "reason": reason}, failed_usage(exc)
    return {**verdict, "applicable": final.applicable, "reason": final.reason, "decided_by": "model"}, used


def _verify(article: Article, facts: str, facts_kind: FactsKind, ctx: AuditContext) -> tuple[Verdict, Usage]:
    """The verdict on one article in three steps: its checklist, the items answered, the decision (a question's by
    :func:`_decide_question`, a case's by :func:`_decide_case`)."""
    usage = empty_usage()
    try:
        items, used = _checklist(article, ctx)
        usage = add_usage(usage, used)
        checks, used = _answer_items(article, items, facts, facts_kind, ctx)
        usage = add_usage(usage, used)
    except Unverified as exc:
        return _unverified(article.id, str(exc)), add_usage(usage, exc.usage)
    if facts_kind == "question":
        return _decide_question(article.id, [_stated(c, facts, ctx) for c in checks], facts, ctx.language), usage
    verdict, used = _decide_case(article, checks, ctx)
    return verdict, add_usage(usage, used)


def verify_article(task: ArticleTask, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """One ``Send`` branch of the audit: the verdict on ``task.article_id``."""
    started = time.perf_counter()
    article_id = task.article_id
    get_stream_writer()({"stage": "audit", "article_id": article_id})
    found = get_services().statutes.get_articles([article_id])
    if not found:
        verdict: Verdict = {
            "article_id": article_id,
            "applicable": False,
            "reason": "the knowledge base holds no such article",
            "checks": [],
            "decided_by": "rule",
        }
        usage = empty_usage()
    else:
        verdict, usage = _verify(found[0], task.facts, task.facts_kind, runtime.context)
    return {
        "found": [verdict],
        "usage": usage,
        "trace": [
            trace_event(
                "verify_article",
                started,
                article_id=article_id,
                applicable=verdict["applicable"],
                decided_by=verdict["decided_by"],
            )
        ],
    }


def is_borderline(verdict: Verdict) -> bool:
    """A verdict a person should see: its checklist items disagree, so neither all-true nor all-false decided
    it (the article was kept as flagged, or the model's checklist-final call ruled)."""
    stated = [c for c in verdict["checks"] if c["stated"]]
    return bool(stated) and decide_by_rule(stated) is None


def review_verdicts(state: AuditState, runtime: Runtime[AuditContext]) -> dict[str, Any]:
    """Order the verdicts as the candidates were; with ``human_review``, interrupt once with every borderline
    verdict and apply the reviewer's answer: ``{}`` (or anything falsy) accepts them all, and
    ``{article_id: {"applicable": bool, "reason": str}}`` overrides the named ones."""
    started = time.perf_counter()
    order = {a: i for i, a in enumerate(state.article_ids)}
    verdicts = sorted(state.found, key=lambda v: order.get(v["article_id"], len(order)))
    borderline = [v for v in verdicts if is_borderline(v)]
    overridden: list[str] = []
    if runtime.context.human_review and borderline:
        answer = interrupt({"kind": "review_verdicts", "facts": state.facts, "verdicts": borderline})
        for verdict in verdicts:
            change = (answer or {}).get(verdict["article_id"]) if isinstance(answer, dict) else None
            if change is None:
                continue
            if not isinstance(change, dict) or not isinstance(change.get("applicable"), bool):
                raise InputError(f"review of {verdict['article_id']}: expected {{'applicable': bool, 'reason': str}}")
            verdict["applicable"] = change["applicable"]
            verdict["reason"] = str(change.get("reason") or label("reviewed", runtime.context.language))
            verdict["decided_by"] = "reviewer"
            overridden.append(verdict["article_id"])
    return {
        "verdicts": verdicts,
        "trace": [
            trace_event(
                "review_verdicts", started, borderline=[v["article_id"] for v in borderline], overridden=overridden
            )
        ],
    }
