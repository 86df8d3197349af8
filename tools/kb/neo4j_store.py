"""Neo4j adapter of the knowledge-graph port, through the official ``neo4j`` driver."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tools.errors import StoreUnavailableError
from tools.kb.port import Record

_CONSTRAINTS = (
    "CREATE CONSTRAINT law_id IF NOT EXISTS FOR (n:Law) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT article_id IF NOT EXISTS FOR (n:Article) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX article_law IF NOT EXISTS FOR (n:Article) ON (n.law)",
    "CREATE CONSTRAINT charge_name IF NOT EXISTS FOR (n:Charge) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT interpretation_id IF NOT EXISTS FOR (n:Interpretation) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT case_id IF NOT EXISTS FOR (n:Case) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX case_source IF NOT EXISTS FOR (n:Case) ON (n.source)",
    "CREATE CONSTRAINT consultation_id IF NOT EXISTS FOR (n:Consultation) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX consultation_source IF NOT EXISTS FOR (n:Consultation) ON (n.source)",
)


class Neo4jStore:
    """Knowledge graph in a Neo4j database; credentials come from the environment via Settings."""

    backend = "neo4j"

    def __init__(self, uri: str, username: str, password: str, database: str) -> None:
        import neo4j
        from neo4j.exceptions import AuthError, ServiceUnavailable

        self._neo4j = neo4j
        self._unavailable = (ServiceUnavailable, AuthError, OSError)
        self.location = f"{uri}/{database}"
        self._database = database
        try:
            self._driver = neo4j.GraphDatabase.driver(uri, auth=(username, password))
            self._driver.verify_connectivity()
        except self._unavailable as exc:
            raise StoreUnavailableError(f"Neo4j at {uri} is not reachable: {exc}") from exc

    def _run(self, cypher: str, params: Mapping[str, Any] | None, read_only: bool) -> list[Record]:
        access = self._neo4j.READ_ACCESS if read_only else self._neo4j.WRITE_ACCESS
        try:
            with self._driver.session(database=self._database, default_access_mode=access) as session:
                result = session.run(cypher, dict(params or {}))
                return [record.data() for record in result]
        except self._unavailable as exc:
            raise StoreUnavailableError(f"lost the connection to {self.location}: {exc}") from exc

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return self._run(cypher, params, read_only=False)

    def read(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return self._run(cypher, params, read_only=True)

    def ensure_schema(self) -> None:
        for statement in _CONSTRAINTS:
            self.query(statement)

    def compact(self) -> None:
        """Neo4j manages its own storage files."""

    def clear(self) -> None:
        self.query("MATCH (n) DETACH DELETE n")

    def close(self) -> None:
        self._driver.close()
