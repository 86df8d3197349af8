"""The knowledge-graph port: the only surface agents and ingestion use to reach a graph database.

Adapters (FalkorDB, external or embedded, and Neo4j) implement :class:`GraphStore`; tests run on the embedded
FalkorDB users run, and contract-test the Neo4j adapter against a server when one is configured.
Queries are always parameterised Cypher in the subset FalkorDB and Neo4j share; backend-specific DDL lives in
the adapters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

Record = dict[str, Any]


@runtime_checkable
class GraphStore(Protocol):
    """A graph database reachable through parameterised Cypher."""

    backend: str
    """Short backend name for messages and traces, e.g. ``falkordb`` or ``neo4j``."""

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """Run a (possibly writing) query; return one dict per row keyed by the RETURN aliases."""
        ...

    def read(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """Run a query that the backend guarantees cannot write."""
        ...

    def ensure_schema(self) -> None:
        """Create the indexes and constraints the queries rely on; safe to call repeatedly."""
        ...

    def compact(self) -> None:
        """Make what was written fast to load after a restart (after bulk writes); may be a no-op."""
        ...

    def clear(self) -> None:
        """Delete every node and relationship of this graph (tests and `--reset`)."""
        ...

    def close(self) -> None:
        """Release connections (and stop an embedded server this store started)."""
        ...
