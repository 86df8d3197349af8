"""Fields and helpers every graph's state shares: trace events, the run record, the cited answer."""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field
from typing import Annotated, Any

from langgraph.config import get_stream_writer

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from typing_extensions import TypedDict

from tools.llm.chat import Usage, add_usage, empty_usage


class LegalBasisItem(TypedDict):
    """One entry of the Legal Basis: a cited article with its verbatim text."""

    article_id: str
    law: str
    number: str
    text: str


class TraceEvent(TypedDict):
    """What a node did and how long it took."""

    node: str
    ms: float
    detail: dict[str, Any]


def trace_event(node: str, started: float, **detail: Any) -> TraceEvent:
    """A trace entry for ``node`` that began at ``started`` (time.perf_counter()); inside a graph run it is
    also sent to LangGraph's custom stream as ``{"stage": node, "event": "done", "ms", "detail"}``, so the CLI
    and Studio show progress while a slow local model works."""
    event: TraceEvent = {"node": node, "ms": round((time.perf_counter() - started) * 1000, 1), "detail": detail}
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run (tests, scripts)
        return event
    writer({"stage": node, "event": "done", "ms": event["ms"], "detail": detail})
    return event


def merge_reports(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: reports of later steps are added beside earlier ones."""
    return {**(left or {}), **(right or {})}


@dataclass(kw_only=True)
class Traced:
    """The trace every graph's output carries."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One event per node execution, in order, with its duration (over turns in a thread)."""


@dataclass(kw_only=True)
class RunRecord(Traced):
    """The trace and model usage every model-calling graph's output carries."""

    usage: Annotated[Usage, add_usage] = field(default_factory=empty_usage)
    """LLM calls and prompt/completion tokens, summed over nodes (and over turns in a thread)."""


@dataclass(kw_only=True)
class CitedAnswer:
    """The Legal Basis an answering graph returns beside its prose."""

    legal_basis: list[LegalBasisItem] = field(default_factory=list)
    """法律依据: the articles the answer rests on, text fetched verbatim from the knowledge graph."""

    dropped_citations: list[str] = field(default_factory=list)
    """Article ids the answer cited that are not in the knowledge base, not in what the model was shown, or
    were pruned by the auditor; removed from the prose."""
