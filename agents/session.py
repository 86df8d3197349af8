"""Turn bookkeeping for threads: a new question starts a fresh drafting loop but keeps what earlier
turns learned (element graph, evidence, history)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from agents.common.question import set_aside_instructions, validate_question
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState


def start_turn(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Validate the question and clear the per-turn fields a previous turn of the thread left behind."""
    started = time.perf_counter()
    given = validate_question(state.question, runtime.context.max_question_chars)
    # The question is data: a sentence addressing the system (a demanded citation, a role) is never read.
    question, ignored = set_aside_instructions(given, runtime.context.language)
    return {
        "question": question,
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
        "trace": [trace_event("start_turn", started, turn=len(state.history) + 1, ignored=len(ignored))],
    }
