"""Draft agent: writes the answer from [element graph; evidence; question] (JurisMA's u = [P_G; q])."""

from __future__ import annotations

import json
import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from app.context import Context
from app.settings import load_settings
from graphs.state import ConsultState, EvidenceItem, trace_event
from prompts import render_prompt
from tools.llm import invoke_text, load_chat_model


def format_evidence(evidence: list[EvidenceItem]) -> str:
    """Evidence as the prompt shows it: ``[id] heading：text`` per article."""
    if not evidence:
        return "（无）"
    return "\n".join(f"[{e['article_id']}] {e['heading']}：{e['text']}" for e in evidence)


def format_elements(element_graph: dict[str, Any]) -> str:
    """The element graph as compact JSON, without empty fields or extraction errors."""
    shown = {k: v for k, v in element_graph.items() if v and k != "errors"}
    return json.dumps(shown, ensure_ascii=False) if shown else "（无）"


def draft_answer(state: ConsultState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write the answer, citing evidence by bracketed id."""
    started = time.perf_counter()
    ctx = runtime.context
    model = load_chat_model(ctx.model, load_settings())
    prompt = render_prompt(
        "draft_answer",
        ctx.language,
        elements=format_elements(state.element_graph),
        evidence=format_evidence(state.evidence),
        question=state.question,
    )
    text, usage = invoke_text(
        model, [SystemMessage(content=render_prompt("system", ctx.language)), HumanMessage(content=prompt)]
    )
    return {
        "draft": text.strip(),
        "usage": usage,
        "trace": [trace_event("draft_answer", started, chars=len(text))],
    }
