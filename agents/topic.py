"""Topic check: a question that is not a legal one is declined before anything is searched or drafted.

Asked about the weather, the graph used to answer and cite 气象法. Words of everyday legal questions
(``prompts/<lang>/legal_words.json``) settle most questions without a model call; a question holding none is
put to the model as one yes/no question, and only a "no" declines it: a legal question worded unusually is
answered rather than turned away.
"""

from __future__ import annotations

import re
import time
from functools import lru_cache
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel

from agents.common.chat import reply
from agents.common.models import chat_model
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState
from prompts import label, load_table, render_prompt
from tools.errors import StructuredOutputError
from tools.llm.chat import failed_usage, invoke_structured


class OnTopic(BaseModel):
    """Whether a question is a legal one."""

    legal: bool


@lru_cache(maxsize=4)
def _legal_words(lang: str) -> re.Pattern[str] | None:
    try:
        words = load_table("legal_words", lang)["words"]
    except FileNotFoundError:
        return None
    return re.compile("|".join(re.escape(word) for word in words), re.IGNORECASE)


def legal_word(question: str, lang: str) -> str | None:
    """The first word of everyday legal questions ``question`` holds, or None (also for a language without a
    word list, whose questions are all put to the model)."""
    pattern = _legal_words(lang)
    found = pattern.search(question) if pattern else None
    return found.group() if found else None


def check_topic(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Decline a question that is not a legal one: the answer says so, nothing is searched or cited."""
    started = time.perf_counter()
    ctx = runtime.context
    if word := legal_word(state.question, ctx.language):
        return {"trace": [trace_event("check_topic", started, by="words", word=word)]}
    messages = [
        SystemMessage(content=render_prompt("system", ctx.language)),
        HumanMessage(content=render_prompt("check_topic", ctx.language, question=state.question)),
    ]
    try:
        verdict, usage = invoke_structured(chat_model(ctx, "draft"), messages, OnTopic, retries=ctx.structured_retries)
        legal = verdict.legal
    except StructuredOutputError as exc:
        legal, usage = True, failed_usage(exc)  # no answer: the question is answered, not turned away
    trace = [trace_event("check_topic", started, by="model", legal=legal)]
    if legal:
        return {"usage": usage, "trace": trace}
    response = label("off_topic", ctx.language)
    return {
        "declined": True,
        "response": response,
        "messages": [reply(response, [], ctx.language)],
        "history": [{"question": state.question, "response": response}],
        "usage": usage,
        "trace": trace,
    }
