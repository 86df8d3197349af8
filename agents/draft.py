"""Draft agent: writes the answer from [element graph; evidence; question] (JurisMA's u = [P_G; q]) and
revises it with FormatCheck's suggestions and new evidence in later rounds."""

from __future__ import annotations

import json
import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from agents.common.answers import basis_evidence, format_evidence
from agents.common.models import chat_model
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState, Example, Turn
from prompts import label, render_prompt
from tools.llm.chat import invoke_text


def format_elements(element_graph: dict[str, Any], lang: str = "zh") -> str:
    """The element graph as compact JSON, without empty fields or extraction errors."""
    shown = {k: v for k, v in element_graph.items() if v and k != "errors"}
    return json.dumps(shown, ensure_ascii=False) if shown else label("none", lang)


def format_history(history: list[Turn], lang: str = "zh") -> str:
    """Earlier turns of the thread as question/answer pairs."""
    return "\n".join(label("history", lang, **t) for t in history) or label("none", lang)


def format_examples(examples: list[Example], lang: str = "zh") -> str:
    """The worked examples as the prompt shows them: each question, the lawyer's answer and the articles it cites."""
    return "\n".join(
        label(
            "example",
            lang,
            question=e["question"],
            answer=e["answer"],
            articles=label("list_separator", lang).join(e["articles"]) or label("none", lang),
        )
        for e in examples
    ) or label("none", lang)


def draft_answer(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Write the first draft, or revise the current one with the suggestions and evidence gathered since."""
    started = time.perf_counter()
    ctx = runtime.context
    model = chat_model(ctx, "draft")
    shared = {
        "history": format_history(state.history, ctx.language),
        "elements": format_elements(state.element_graph, ctx.language),
        # The draft reasons from the kept basis alone: the evidence the keeper did not keep is not shown.
        "evidence": format_evidence(basis := basis_evidence(state.evidence, state.verdicts), ctx.language),
        "question": state.question,
        "examples": format_examples(state.examples, ctx.language),
    }
    revising = bool(state.draft)
    if revising:
        suggestions = "\n".join(f"- {s}" for s in state.suggestions) or label("none", ctx.language)
        prompt = render_prompt("revise_draft", ctx.language, **shared, draft=state.draft, suggestions=suggestions)
    else:
        prompt = render_prompt("draft_answer", ctx.language, **shared)
    text, usage = invoke_text(
        model, [SystemMessage(content=render_prompt("system", ctx.language)), HumanMessage(content=prompt)]
    )
    drafted_from = [e["article_id"] for e in basis]
    # A law search that kept the same articles changed nothing the next round would see either (the drunk-driving
    # question went through five identical FormatCheck+LawSearch rounds).
    same_basis = "search_law" not in state.plan or drafted_from == state.drafted_from
    stalled = revising and text.strip() == state.draft and same_basis
    return {
        "draft": text.strip(),
        "stalled": stalled,
        "drafted_from": drafted_from,
        "suggestions": [],
        "usage": usage,
        "trace": [trace_event("draft_answer", started, chars=len(text), revision=revising, stalled=stalled)],
    }
