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
from typing import Any, Protocol

from langchain_core.messages import HumanMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel, Field, create_model

from agents.common.audits import AuditGraph, run_audit
from agents.common.messages import FactsKind, facts_first
from agents.common.models import chat_model
from agents.context import AuditContext, JudgeContext
from agents.state.audit import ArticleTask, AuditState, CheckResult, Verdict
from agents.state.common import trace_event
from agents.state.judge import CaseRef, JudgeState, ScoredCharge
from prompts import label, render_prompt
from tools.errors import InputError, StructuredOutputError
from tools.kb.charges import ChargeRepository
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


def _verify(article: Article, facts: str, facts_kind: FactsKind, ctx: AuditContext) -> tuple[Verdict, Usage]:
    services = get_services()
    spec = ctx.model_for("audit")
    model = chat_model(ctx, "audit")
    usage = empty_usage()
    try:
        checklist, used = ensure_checklist(
            article,
            ChecklistRepository(services.graph),
            model,
            spec,
            ctx.language,
            retries=ctx.structured_retries,
        )
        usage = add_usage(usage, used)
    except StructuredOutputError as exc:
        return _unverified(article.id, f"no checklist could be generated: {exc}"), add_usage(usage, failed_usage(exc))
    items = list(checklist.items)
    reasons = ctx.audit_reasons == "always" or (ctx.audit_reasons == "questions" and facts_kind == "question")
    interps = InterpretationRepository(services.graph).for_articles([article.id]).get(article.id, [])
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
            model,
            facts_first(ctx.language, facts_kind, facts, prompt),
            answers_schema(len(items), reasons),
            ctx.structured_retries,
        )
    except StructuredOutputError as exc:
        return _unverified(article.id, f"the checklist could not be answered: {exc}"), add_usage(
            usage, failed_usage(exc)
        )
    usage = add_usage(usage, used)
    checks: list[CheckResult] = [
        {"item": item, "holds": answer.holds, "reason": getattr(answer, "reason", ""), "stated": True}
        for item, answer in zip(items, parsed.answers, strict=True)  # type: ignore[attr-defined]
    ]
    if facts_kind == "question":
        return _decide_question(article.id, [_stated(c, facts, ctx) for c in checks], facts, ctx.language), usage
    ruled = decide_by_rule(checks)
    if ruled is not None:
        reason = label("all_hold" if ruled else "none_hold", ctx.language)
        verdict: Verdict = {
            "article_id": article.id,
            "applicable": ruled,
            "reason": reason,
            "checks": checks,
            "decided_by": "rule",
        }
        return verdict, usage
    if ctx.audit_mixed == "keep":
        verdict = {
            "article_id": article.id,
            "applicable": True,
            "reason": label("mixed_kept", ctx.language),
            "checks": checks,
            "decided_by": "rule",
        }
        return verdict, usage
    prompt = render_prompt(
        "decide_applicability",
        ctx.language,
        article_id=article.id,
        heading=article.heading,
        true_items=_numbered([c["item"] for c in checks if c["holds"]], ctx.language),
        false_items=_numbered([c["item"] for c in checks if not c["holds"]], ctx.language),
    )
    try:
        final, used = invoke_structured(model, [HumanMessage(content=prompt)], Applicability, ctx.structured_retries)
    except StructuredOutputError as exc:
        # The items were answered; without a final call, a majority of satisfied items decides.
        held = sum(c["holds"] for c in checks)
        verdict = {
            "article_id": article.id,
            "applicable": held * 2 >= len(checks),
            "reason": f"checklist-final call failed ({exc}); decided by the majority of items",
            "checks": checks,
            "decided_by": "rule",
        }
        return verdict, add_usage(usage, failed_usage(exc))
    usage = add_usage(usage, used)
    verdict = {
        "article_id": article.id,
        "applicable": final.applicable,
        "reason": final.reason,
        "checks": checks,
        "decided_by": "model",
    }
    return verdict, usage


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


class JudgeNode(Protocol):
    def __call__(self, state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]: ...


def _pruned(verdicts: list[Verdict]) -> list[str]:
    return [v["article_id"] for v in verdicts if not v["applicable"]]


def retain_best(verdicts: list[Verdict], lang: str, convicting: set[str]) -> list[Verdict]:
    """When no article in ``convicting`` (those that define a charge) survived its audit, the best-ranked
    of them stays, marked ``retained``: a criminal fact is convicted under some such article, and without
    one the judgment can only convict of nothing. A person's rejection is final and never retained."""
    if any(v["applicable"] and v["article_id"] in convicting for v in verdicts):
        return verdicts
    for i, verdict in enumerate(verdicts):
        if verdict["article_id"] in convicting and verdict["decided_by"] != "reviewer":
            kept: Verdict = {**verdict, "applicable": True, "decided_by": "retained", "reason": label("retained", lang)}
            return [*verdicts[:i], kept, *verdicts[i + 1 :]]
    return verdicts


def surviving_cases(cases: list[CaseRef], pruned: set[str]) -> list[str]:
    """Precedents citing none of the pruned articles: a case applying an article the audit rejected for
    these facts is a precedent for other facts."""
    return [c["case_id"] for c in cases if not set(c["articles"]) & pruned]


def judge_candidates(fused: list[str], scored: list[ScoredCharge], proposed: list[str], audit_k: int) -> list[str]:
    """The articles to audit: the Researcher's best ``audit_k``, and for each proposed charge whose defining
    articles are all outside them, its best-ranked defining article (a charge is convicted only on an
    audited article, so the scorer's choice must reach the audit)."""
    candidates = fused[:audit_k]
    for charge in scored:
        if charge["name"] in proposed and charge["articles"] and not set(charge["articles"]) & set(candidates):
            ranked = sorted(charge["articles"], key=lambda a: fused.index(a) if a in fused else len(fused))
            candidates.append(ranked[0])
    return candidates


def make_audit_research(audit: AuditGraph) -> JudgeNode:
    """The judge graph's ``audit_research`` node over the given audit subgraph."""

    def audit_research(state: JudgeState, runtime: Runtime[JudgeContext]) -> dict[str, Any]:
        """Audit the best of the Researcher's fused candidates (fused by ``score_charges``) and the proposed
        charges' articles, prune what rests on failed articles."""
        started = time.perf_counter()
        ctx = runtime.context
        fused = state.rankings.get("researcher", [])
        candidates = judge_candidates(fused, state.scored_charges, state.proposed, ctx.audit_k)
        ranked_cases = sorted(state.cases.values(), key=lambda c: -c["score"])
        update: dict[str, Any] = {}
        if not ctx.audit:
            update["verdicts"] = []
            update["kept_cases"] = [c["case_id"] for c in ranked_cases]
            update["trace"] = [trace_event("audit_research", started, candidates=candidates, skipped=True)]
            return update
        out = run_audit(audit, state.fact, candidates, ctx, "case")
        if ctx.audit_keep_best:
            charges = ChargeRepository(get_services().graph)
            convicting = charges.defining(candidates) if charges.has_charges() else set(candidates)
            out["verdicts"] = retain_best(out["verdicts"], ctx.language, convicting)
        pruned = set(_pruned(out["verdicts"]))
        applicable = {v["article_id"] for v in out["verdicts"] if v["applicable"]}
        update |= {
            "verdicts": out["verdicts"],
            "kept_cases": surviving_cases(ranked_cases, pruned),
            # A pre-judged charge survives while one of its defining articles was not pruned.
            "prejudged": [g for g in state.prejudged if not g["articles"] or set(g["articles"]) - pruned],
            "usage": out["usage"],
            "trace": [
                *out["trace"],
                trace_event("audit_research", started, candidates=candidates, applicable=sorted(applicable)),
            ],
        }
        return update

    return audit_research
