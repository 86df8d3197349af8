"""Manager agent (JurisMA): reads the current draft and decides the next step of the drafting loop.

The decision and its reason are recorded for every round; the graph's ``route_manager`` acts on the plan.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents.common.answers import format_evidence_headings
from agents.common.models import chat_model
from agents.context import Context
from agents.state.common import trace_event
from agents.state.consult import ConsultState, ManagerDecision
from prompts import render_prompt
from tools.errors import StructuredOutputError
from tools.llm.chat import failed_usage, invoke_structured

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


def review_draft(state: ConsultState, runtime: Runtime[Context]) -> dict[str, Any]:
    """One Manager round. A reply that never validates counts as Pass: the auditor still checks the law."""
    started = time.perf_counter()
    ctx = runtime.context
    model = chat_model(ctx, "manager")
    round_no = state.round + 1
    prompt = render_prompt(
        "manage_draft",
        ctx.language,
        question=state.question,
        evidence=format_evidence_headings(state.evidence, ctx.language),
        draft=state.draft,
        round=round_no,
        max_rounds=ctx.max_rounds,
    )
    messages = [SystemMessage(content=render_prompt("system", ctx.language)), HumanMessage(content=prompt)]
    try:
        reply, usage = invoke_structured(model, messages, ManagerReply, ctx.structured_retries)
        decision, reason = reply.decision, reply.reason
    except StructuredOutputError as exc:
        decision, reason = "Pass", f"manager reply invalid, passing to the auditor: {exc}"
        usage = failed_usage(exc)
    record: ManagerDecision = {"round": round_no, "decision": decision, "reason": reason}
    return {
        "round": round_no,
        "plan": PLANS[decision],
        "decisions": [*state.decisions, record],
        "usage": usage,
        "trace": [trace_event("review_draft", started, **record)],
    }
