"""FalkorDB adapter of the knowledge-graph port (embedded server by default, or an external one)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from tools.errors import StoreUnavailableError
from tools.kb.embedded import EmbeddedServer
from tools.kb.port import Record

_COMPACT_TIMEOUT_S = 300.0
# (label, property) pairs that lookups and MERGEs match on.
_INDEXES = (
    ("Law", "id"),
    ("Article", "id"),
    ("Article", "law"),
    ("Charge", "name"),
    ("Interpretation", "id"),
    ("Case", "id"),
    ("Case", "source"),
)


class FalkorDBStore:
    """Knowledge graph in a FalkorDB graph named ``graph_name``."""

    backend = "falkordb"

    def __init__(self, host: str, port: int, graph_name: str, server: EmbeddedServer | None = None) -> None:
        import falkordb
        import redis

        self._server = server
        self._redis_errors: tuple[type[BaseException], ...] = (redis.exceptions.ConnectionError, OSError)
        try:
            self._db = falkordb.FalkorDB(host=host, port=port, socket_connect_timeout=5)
            self._db.connection.ping()
        except self._redis_errors as exc:
            raise StoreUnavailableError(f"FalkorDB at {host}:{port} is not reachable: {exc}") from exc
        self._graph = self._db.select_graph(graph_name)
        self.location = f"falkordb://{host}:{port}/{graph_name}"

    def _run(self, cypher: str, params: Mapping[str, Any] | None, read_only: bool) -> list[Record]:
        run = self._graph.ro_query if read_only else self._graph.query
        try:
            result = run(cypher, dict(params or {}))
        except self._redis_errors as exc:
            raise StoreUnavailableError(f"lost the connection to {self.location}: {exc}") from exc
        names = [col[1].decode() if isinstance(col[1], bytes) else str(col[1]) for col in result.header or []]
        return [dict(zip(names, row, strict=True)) for row in result.result_set or []]

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return self._run(cypher, params, read_only=False)

    def read(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return self._run(cypher, params, read_only=True)

    def ensure_schema(self) -> None:
        existing = {(str(row[0]), str(prop)) for row in self._list_indices() for prop in (row[1] or [])}
        for label, prop in _INDEXES:
            if (label, prop) not in existing:
                # Labels and property names come from the constant above, never from input.
                self.query(f"CREATE INDEX FOR (n:{label}) ON (n.{prop})")

    def _list_indices(self) -> list[list[Any]]:
        try:
            return list(self._graph.list_indices().result_set)
        except Exception:  # a graph that does not exist yet has no indices
            return []

    def compact(self) -> None:
        # Replaying an append-only file of MERGE queries takes minutes for a large graph (111 s for all
        # 24k articles); rewriting it as an RDB snapshot makes the next start load in about a second.
        conn = self._db.connection
        try:
            conn.bgrewriteaof()
            deadline = time.monotonic() + _COMPACT_TIMEOUT_S
            while time.monotonic() < deadline:
                info = conn.info("persistence")
                if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                    return
                time.sleep(0.1)
        except self._redis_errors as exc:
            raise StoreUnavailableError(f"lost the connection to {self.location}: {exc}") from exc

    def clear(self) -> None:
        self.query("MATCH (n) DETACH DELETE n")

    def close(self) -> None:
        try:
            self._db.connection.close()
        finally:
            if self._server is not None:
                self._server.stop()
