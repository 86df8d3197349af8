"""State schemas of the global_search graph (Law GraphRAG over whole statutes)."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Literal

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from typing_extensions import TypedDict

from agents.state.common import CitedAnswer, RunRecord


class SearchPoint(TypedDict):
    """One point a map step found in a batch of community reports, rated 0-100 for the question."""

    description: str
    score: int


@dataclass(kw_only=True)
class GlobalSearchInput:
    """A query-focused question over the indexed statute collection."""

    question: str
    """The question, e.g. 数据出境需要满足哪些条件？"""

    mode: Literal["global", "local"] = "global"
    """``global``: map-reduce over community reports; ``local``: entities, their communities, articles and
    relations."""


@dataclass(kw_only=True)
class GlobalSearchOutput(CitedAnswer, RunRecord):
    """The answer with a Legal Basis quoted verbatim from the knowledge base."""

    answer: str = ""
    """The answer prose; citations outside the context it was given are removed."""

    points: Annotated[list[SearchPoint], operator.add] = field(default_factory=list)
    """Global mode: the map steps' rated points (the reduce step reads the best of them)."""

    sources: list[str] = field(default_factory=list)
    """Community ids (and in local mode entity ids) the answer was built from."""


@dataclass(kw_only=True)
class GlobalSearchState(GlobalSearchInput, GlobalSearchOutput):
    """Working state of the global_search graph."""

    context: str = ""
    """Local mode: the packed context the answer is written from."""

    batches: list[str] = field(default_factory=list)
    """Global mode: community reports packed into map-sized batches."""

    allowed: Annotated[list[str], operator.add] = field(default_factory=list)
    """Article ids present in what the model was shown: the only ones the answer may cite."""


@dataclass(frozen=True)
class ReportBatch:
    """What one map_reports branch receives."""

    question: str
    batch: str
