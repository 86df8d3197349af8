"""Element agent: turns the question into the legal element graph (JurisMA's P_G)."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from app.context import Context
from app.settings import load_settings
from graphs.state import ConsultState, trace_event
from prompts import render_prompt
from tools.errors import InputError, StructuredOutputError
from tools.llm import empty_usage, invoke_structured, load_chat_model


class Entity(BaseModel):
    name: str = Field(description="名称")
    type: str = Field(default="", description="类型：人、单位、物、地点等")
    attributes: list[str] = Field(default_factory=list, description="属性，如 '年龄: 30'")


class Event(BaseModel):
    description: str = Field(description="事件描述")
    time: str = Field(default="", description="时间，未知则为空")
    participants: list[str] = Field(default_factory=list, description="参与者名称")


class Relationship(BaseModel):
    source: str
    type: str
    target: str


class ElementGraph(BaseModel):
    """The legal element graph of a question."""

    entities: list[Entity] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    user_claims: list[str] = Field(default_factory=list)
    key_facts: list[str] = Field(default_factory=list)
    legal_questions: list[str] = Field(default_factory=list)


def validate_question(question: str, max_chars: int) -> str:
    """The stripped question; empty or over-long questions are an InputError naming the limit."""
    text = (question or "").strip()
    if not text:
        raise InputError("the question is empty")
    if len(text) > max_chars:
        raise InputError(
            f"the question has {len(text)} characters, more than the limit of {max_chars} "
            "(JURIS_MAX_QUESTION_CHARS); shorten it or raise the limit"
        )
    return text


def extract_elements(state: ConsultState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Build the element graph; if the model never returns valid JSON, continue with empty lists."""
    started = time.perf_counter()
    ctx = runtime.context
    question = validate_question(state.question, ctx.max_question_chars)
    model = load_chat_model(ctx.model, load_settings())
    messages = [
        SystemMessage(content=render_prompt("system", ctx.language)),
        HumanMessage(content=render_prompt("extract_elements", ctx.language, question=question)),
    ]
    try:
        elements, usage = invoke_structured(model, messages, ElementGraph, retries=ctx.structured_retries)
        graph: dict[str, Any] = elements.model_dump()
    except StructuredOutputError as exc:
        graph = {**ElementGraph().model_dump(), "errors": [str(exc)]}
        usage = {**empty_usage(), **exc.usage}  # type: ignore[typeddict-item]
    empty = [key for key, value in graph.items() if key != "errors" and not value]
    return {
        "question": question,
        "element_graph": graph,
        "usage": usage,
        "trace": [trace_event("extract_elements", started, empty_fields=empty, failed="errors" in graph)],
    }
