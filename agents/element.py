"""Element agent: turns the question into the legal element graph (JurisMA's P_G)."""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents.common.models import chat_model
from agents.common.question import user_words
from agents.context import ConsultContext
from agents.state.common import trace_event
from agents.state.consult import ConsultState
from prompts import render_prompt
from tools.errors import StructuredOutputError
from tools.law.articles import referenced_numbers
from tools.law.wording import bigram_share
from tools.llm.chat import failed_usage, invoke_structured

# Bounds keep grammar-constrained generation short: a 1.5B model otherwise tends to repeat list items
# until max_tokens, and a truncated reply fails validation and costs a retry.
_NAME = 40
_TEXT = 120
_FEW = 6


class Entity(BaseModel):
    name: str = Field(max_length=_NAME, description="名称")
    type: str = Field(max_length=_NAME, description="类型：人、单位、物、地点等")
    attributes: list[Annotated[str, Field(max_length=_NAME)]] = Field(
        max_length=_FEW, description="属性，如 '年龄: 30'"
    )


class Event(BaseModel):
    description: str = Field(max_length=_TEXT, description="事件描述")
    time: str = Field(max_length=_NAME, description="时间，未知则为空字符串")
    participants: list[Annotated[str, Field(max_length=_NAME)]] = Field(max_length=_FEW, description="参与者名称")


class Relationship(BaseModel):
    source: str = Field(max_length=_NAME)
    type: str = Field(max_length=_NAME)
    target: str = Field(max_length=_NAME)


class ElementGraph(BaseModel):
    """The legal element graph of a question; every list is present, possibly empty."""

    entities: list[Entity] = Field(max_length=_FEW)
    events: list[Event] = Field(max_length=_FEW)
    relationships: list[Relationship] = Field(max_length=_FEW)
    user_claims: list[Annotated[str, Field(max_length=_TEXT)]] = Field(max_length=_FEW)
    key_facts: list[Annotated[str, Field(max_length=_TEXT)]] = Field(max_length=_FEW)
    legal_questions: list[Annotated[str, Field(max_length=_TEXT)]] = Field(max_length=_FEW)

    @classmethod
    def empty(cls) -> ElementGraph:
        return cls(entities=[], events=[], relationships=[], user_claims=[], key_facts=[], legal_questions=[])


MAX_KEPT = 12
"""Items kept per element list across the turns of a thread (newest first), so prompts stay bounded."""


def merge_elements(earlier: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A follow-up's element graph: its own items first, then distinct earlier ones, MAX_KEPT per list."""
    merged: dict[str, Any] = {}
    for key in ElementGraph.model_fields:
        seen: dict[str, Any] = {}
        for item in [*new.get(key, []), *earlier.get(key, [])]:
            seen.setdefault(json.dumps(item, ensure_ascii=False, sort_keys=True), item)
        merged[key] = list(seen.values())[:MAX_KEPT]
    if "errors" in new:
        merged["errors"] = new["errors"]
    return merged


GROUNDED_SHARE = 0.5
"""Least share of a key fact's or claim's character pairs the user's words must hold for the element graph to say
the user stated it. The 1.5B model wrote "法律依据：《中华人民共和国合同法》第40条和第120条" as a key fact of
租房到期后房东不退押金怎么办？ (share 0.0), and that citation became the answer's basis."""
STATED = ("key_facts", "user_claims")
"""The lists that say what the user stated; ``legal_questions`` are the model's framing of the issue."""


def ground_elements(graph: dict[str, Any], words: str) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The element graph with what the user did not say dropped: items of any list naming an article number the
    user's words do not name, and key facts or claims sharing under :data:`GROUNDED_SHARE` of their wording with
    them; the dropped items with their list and why, for the trace."""
    named = referenced_numbers(words)
    grounded = dict(graph)
    dropped: list[dict[str, str]] = []
    for key in ("user_claims", "key_facts", "legal_questions"):
        kept = []
        for item in graph.get(key, []):
            text = str(item)
            why = "names an article the question does not" if referenced_numbers(text) - named else ""
            if not why and key in STATED and bigram_share(text, words) < GROUNDED_SHARE:
                why = "not in the question's words"
            if why:
                dropped.append({"list": key, "item": text, "why": why})
            else:
                kept.append(item)
        grounded[key] = kept
    return grounded, dropped


def extract_elements(state: ConsultState, runtime: Runtime[ConsultContext]) -> dict[str, Any]:
    """Build the element graph (extending the thread's earlier one); if the model never returns valid
    JSON, continue with empty lists and record the error."""
    started = time.perf_counter()
    ctx = runtime.context
    model = chat_model(ctx, "draft")
    messages = [
        SystemMessage(content=render_prompt("system", ctx.language)),
        HumanMessage(content=render_prompt("extract_elements", ctx.language, question=state.question)),
    ]
    try:
        elements, usage = invoke_structured(model, messages, ElementGraph, retries=ctx.structured_retries)
        graph: dict[str, Any] = elements.model_dump()
    except StructuredOutputError as exc:
        graph = {**ElementGraph.empty().model_dump(), "errors": [str(exc)]}
        usage = failed_usage(exc)
    graph, dropped = ground_elements(graph, user_words(state.question, state.history))
    empty = [key for key, value in graph.items() if key != "errors" and not value]
    if state.history:
        graph = merge_elements(state.element_graph, graph)
    return {
        "element_graph": graph,
        "usage": usage,
        "trace": [
            trace_event("extract_elements", started, empty_fields=empty, failed="errors" in graph, ungrounded=dropped)
        ],
    }
