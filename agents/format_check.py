"""FormatCheck agent (JurisMA): concrete edit suggestions for the draft's form, never its legal content.

Problems code can see for certain (missing sections, citations outside the evidence) are listed first;
the model adds suggestions on wording and structure.
"""

from __future__ import annotations

import re
import time
from typing import Annotated, Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from app.context import Context
from app.settings import load_settings
from graphs.state import ConsultState, trace_event
from prompts import render_prompt
from tools.errors import StructuredOutputError
from tools.llm import failed_usage, invoke_structured, load_chat_model
from tools.statutes import parse_citations

_ANSWER_LINE = re.compile(r"^\s*回答[:：]", re.MULTILINE)
_CITES_LINE = re.compile(r"^\s*引用[:：]", re.MULTILINE)


class FormatReview(BaseModel):
    """FormatCheck's structured reply."""

    suggestions: list[Annotated[str, Field(max_length=60)]] = Field(max_length=4)


def format_problems(draft: str, evidence_ids: set[str]) -> list[str]:
    """Format problems found by code: missing 回答/引用 lines, citations of articles not in the evidence."""
    problems = []
    if not _ANSWER_LINE.search(draft):
        problems.append("缺少以“回答：”开头的第一行")
    if not _CITES_LINE.search(draft):
        problems.append("缺少以“引用：”开头的第二行")
    outside = [a for a in parse_citations(draft) if a not in evidence_ids]
    if outside:
        problems.append(f"引用了候选法条以外的编号：{'、'.join(outside)}，请删去或换成候选法条中的编号")
    return problems


def check_format(state: ConsultState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Suggestions the Draft agent applies in its next revision."""
    started = time.perf_counter()
    ctx = runtime.context
    problems = format_problems(state.draft, {e["article_id"] for e in state.evidence})
    model = load_chat_model(ctx.model_for("manager"), load_settings())
    prompt = render_prompt(
        "check_format", ctx.language, problems="\n".join(f"- {p}" for p in problems) or "（无）", draft=state.draft
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
