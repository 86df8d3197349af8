"""FormatCheck agent (JurisMA): concrete edit suggestions for the draft's form, never its legal content.

Problems code can see for certain (missing sections, citations outside the evidence) are listed first;
the model adds suggestions on wording and structure.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents.common.answers import basis_evidence, format_problems
from agents.common.models import chat_model
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState
from prompts import label, render_prompt
from tools.errors import StructuredOutputError
from tools.llm.chat import failed_usage, invoke_structured


class FormatReview(BaseModel):
    """FormatCheck's structured reply."""

    suggestions: list[Annotated[str, Field(max_length=60)]] = Field(max_length=4)


def check_format(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Suggestions the Draft agent applies in its next revision."""
    started = time.perf_counter()
    ctx = runtime.context
    basis = basis_evidence(state.evidence, state.verdicts)
    problems = format_problems(state.draft, {e["article_id"] for e in basis}, ctx.language)
    model = chat_model(ctx, "manager")
    prompt = render_prompt(
        "check_format",
        ctx.language,
        problems="\n".join(f"- {p}" for p in problems) or label("none", ctx.language),
        draft=state.draft,
    )
    try:
        review, usage = invoke_structured(model, [HumanMessage(content=prompt)], FormatReview, ctx.structured_retries)
        suggested = [s.strip() for s in review.suggestions if s.strip()]
    except StructuredOutputError as exc:
        suggested, usage = [], failed_usage(exc)
    suggestions = list(dict.fromkeys([*problems, *suggested]))
    return {
        "suggestions": suggestions,
        "usage": usage,
        "trace": [trace_event("check_format", started, problems=problems, suggestions=len(suggestions))],
    }
