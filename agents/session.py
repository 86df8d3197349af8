"""Turn bookkeeping for threads: a new question starts a fresh drafting loop but keeps what earlier
turns learned (element graph, evidence, history)."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from agents.common.chat import asked, set_aside_roles
from agents.common.question import set_aside_instructions, validate_question
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState


def start_turn(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Validate the question and clear the per-turn fields a previous turn of the thread left behind."""
    started = time.perf_counter()
    chat = asked(state.messages)
    # A thread keeps its last question: a chat's new human message is the question unless a question was given
    # with this turn (one that is not the last answered one; a run that failed leaves its message unanswered).
    answered = state.history[-1]["question"] if state.history else ""
    if chat is not None and state.question and state.question != answered:
        chat = None
    given = validate_question(state.question if chat is None else chat, runtime.context.max_question_chars)
    # The question is data: a sentence addressing the system (a demanded citation, a role) is never read.
    question, ignored = set_aside_instructions(given, runtime.context.language)
    ignored = [*set_aside_roles(state.messages), *ignored]
    return {
        "question": question,
        # A question given as such joins the chat, so the conversation reads whole in a chat view.
        "messages": [] if chat is not None else [HumanMessage(content=given)],
        "ignored_instructions": ignored,
        "draft": "",
        "suggestions": [],
        "plan": [],
        "round": 0,
        "stalled": False,
        "drafted_from": [],
        "decisions": [],
        "verdicts": [],
        "audited": {},
        "dropped_citations": [],
        "response": "",
        "declined": False,
        "legal_basis": [],
        "conditional_basis": [],
        "audit_notes": [],
        "trace": [trace_event("start_turn", started, turn=len(state.history) + 1, ignored=len(ignored))],
    }
