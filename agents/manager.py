"""Manager agent (JurisMA): reads the current draft and decides the next step of the drafting loop.

The decision and its reason are recorded for every round; the graph's ``route_manager`` acts on the plan.
A draft code finds well-formed and grounded passes without a model call unless every draft is to be
reviewed (``manager_review``).
"""

from __future__ import annotations

import time
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents.common.answers import basis_evidence, format_evidence_headings, format_problems
from agents.common.models import chat_model
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState, ManagerDecision
from prompts import label, render_prompt
from tools.errors import StructuredOutputError
from tools.law.articles import parse_citations
from tools.llm.chat import Usage, empty_usage, failed_usage, invoke_structured

Decision = Literal["Pass", "FormatCheck", "LawSearch", "FormatCheck+LawSearch"]

PLANS: dict[str, list[str]] = {
    "Pass": [],
    "FormatCheck": ["check_format"],
    "LawSearch": ["search_law"],
    "FormatCheck+LawSearch": ["check_format", "search_law"],
}
"""The graph steps each decision runs, in order, before the Draft agent revises."""


class ManagerReply(BaseModel):
    """The Manager's structured reply; the reason comes first so the model reasons before deciding."""

    reason: str = Field(max_length=80)
    decision: Decision


def review_draft(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """One Manager round. A reply that never validates counts as Pass: the auditor still checks the law."""
    started = time.perf_counter()
    ctx = runtime.context
    round_no = state.round + 1
    if ctx.manager_review == "when_needed" and well_formed(state):
        decision, reason, usage = "Pass", label("well_formed", ctx.language), empty_usage()
    else:
        decision, reason, usage = _model_review(state, ctx, round_no)
    record: ManagerDecision = {"round": round_no, "decision": decision, "reason": reason}
    return {
        "round": round_no,
        "plan": PLANS[decision],
        "decisions": [*state.decisions, record],
        "usage": usage,
        "trace": [trace_event("review_draft", started, **record)],
    }


def well_formed(state: ConsultState) -> bool:
    """The draft has no form problem code can see and cites at least one basis article (none, when a search kept
    none: a draft that says the basis is lacking has nothing to cite; before any search, the Manager decides)."""
    basis = {e["article_id"] for e in basis_evidence(state.evidence, state.verdicts)}
    cites = bool(set(parse_citations(state.draft)) & basis) or (not basis and bool(state.evidence))
    return not format_problems(state.draft, basis) and cites


def _model_review(state: ConsultState, ctx: ConsultContext, round_no: int) -> tuple[Decision, str, Usage]:
    model = chat_model(ctx, "manager")
    prompt = render_prompt(
        "manage_draft",
        ctx.language,
        question=state.question,
        evidence=format_evidence_headings(basis_evidence(state.evidence, state.verdicts), ctx.language),
        draft=state.draft,
        round=round_no,
        max_rounds=ctx.max_rounds,
    )
    messages = [SystemMessage(content=render_prompt("system", ctx.language)), HumanMessage(content=prompt)]
    try:
        reply, usage = invoke_structured(model, messages, ManagerReply, ctx.structured_retries)
        return reply.decision, reply.reason, usage
    except StructuredOutputError as exc:
        return "Pass", f"manager reply invalid, passing to ContentCheck: {exc}", failed_usage(exc)
