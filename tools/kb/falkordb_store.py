"""FalkorDB adapter of the knowledge-graph port (embedded server by default, or an external one)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from tools.errors import StoreDamagedError, StoreUnavailableError
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
    ("Consultation", "id"),
    ("Consultation", "source"),
)


Locate = Callable[[], tuple[str, int, str]]
"""Where the server is now and its password (host, port, password; empty: none): the embedded one may have
been restarted on another port, with a new password."""

RETRY_DELAYS_S = (0.5, 1.0, 2.0)
"""Waits before each reconnection attempt after a failed one: a restarted server gets about 3.5 s."""


class FalkorDBStore:
    """Knowledge graph in a FalkorDB graph named ``graph_name``. A lost connection is re-established (the
    embedded server started again when it is gone) with bounded retries, so a long-lived process such as
    ``langgraph dev`` outlives a restart of its store."""

    backend = "falkordb"

    def __init__(self, locate: Locate, graph_name: str) -> None:
        import redis

        self._locate = locate
        self._graph_name = graph_name
        self._redis_errors: tuple[type[BaseException], ...] = (redis.exceptions.ConnectionError, OSError)
        self._connect_errors = (StoreUnavailableError, *self._redis_errors)
        self.location = f"falkordb:///{graph_name}"
        self._connect()

    def _connect(self) -> None:
        import falkordb

        failure: BaseException | None = None
        for delay in (0.0, *RETRY_DELAYS_S):
            time.sleep(delay)
            try:
                host, port, password = self._locate()
                self.location = f"falkordb://{host}:{port}/{self._graph_name}"
                db = falkordb.FalkorDB(host=host, port=port, password=password or None, socket_connect_timeout=5)
                db.connection.ping()
            except StoreDamagedError:
                raise  # starting the server again would fail the same way
            except self._connect_errors as exc:
                failure = exc
                continue
            self._db, self._graph = db, db.select_graph(self._graph_name)
            return
        where = self.location.removeprefix("falkordb://").rsplit("/", 1)[0]
        target = f"FalkorDB at {where}" if where else "the embedded FalkorDB"
        raise StoreUnavailableError(
            f"{target} is not reachable ({1 + len(RETRY_DELAYS_S)} attempts): {failure}"
        ) from failure

    def _run(self, cypher: str, params: Mapping[str, Any] | None, read_only: bool) -> list[Record]:
        for attempt in range(2):
            run = self._graph.ro_query if read_only else self._graph.query
            try:
                result = run(cypher, dict(params or {}))
                break
            except self._redis_errors as exc:
                if attempt:
                    raise StoreUnavailableError(f"lost the connection to {self.location}: {exc}") from exc
                # Queries are MERGEs and whole replacements, so running one again after a reconnection is safe.
                self._connect()
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
        # The embedded server is left running: other processes may use it; its watchdog retires it when idle.
        self._db.connection.close()
