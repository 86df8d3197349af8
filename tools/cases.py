"""The Fact graph: (:Case)-[:CITES]->(:Article), (:Case)-[:CONVICTED_OF]->(:Charge), by source file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

from tools.charges import ChargeRepository
from tools.corpus.cail import Case
from tools.kg.port import GraphStore

_UPSERT = """
UNWIND $rows AS row
MERGE (c:Case {id: row.id})
SET c.source = row.source, c.fact = row.fact, c.term_months = row.term_months,
    c.life_imprisonment = row.life_imprisonment, c.death_penalty = row.death_penalty, c.fine = row.fine,
    c.charges = row.charges, c.hash = row.hash
WITH c, row
OPTIONAL MATCH (c)-[old:CITES|CONVICTED_OF]->()
DELETE old
WITH DISTINCT c, row
UNWIND row.articles AS article_id
MATCH (a:Article {id: article_id})
MERGE (c)-[:CITES]->(a)
"""

_LINK_CHARGES = """
UNWIND $rows AS row
MATCH (c:Case {id: row.id})
UNWIND row.charges AS name
MATCH (ch:Charge {name: name})
MERGE (c)-[:CONVICTED_OF]->(ch)
"""

_HASHES = "MATCH (c:Case) WHERE c.source = $source RETURN c.id AS id, c.hash AS hash"
_SOURCES = "MATCH (c:Case) RETURN c.source AS source, count(c) AS cases"
_DELETE_SOURCE = "MATCH (c:Case) WHERE c.source = $source DETACH DELETE c"


class CaseRepository:
    """Case reads and writes on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore, charges: ChargeRepository) -> None:
        self.store = store
        self.charges = charges

    def upsert(self, cases: Sequence[Case]) -> None:
        """MERGE cases and replace their CITES / CONVICTED_OF edges (charges resolved to names in force)."""
        rows = []
        for case in cases:
            row = {**asdict(case), "articles": list(case.articles), "hash": case.content_hash}
            row["charges"] = [name for raw in case.charges if (name := self.charges.resolve(raw))]
            rows.append(row)
        if rows:
            self.store.query(_UPSERT, {"rows": rows})
            self.store.query(_LINK_CHARGES, {"rows": rows})

    def hashes(self, source: str) -> dict[str, str]:
        return {r["id"]: r["hash"] for r in self.store.read(_HASHES, {"source": source})}

    def sources(self) -> dict[str, int]:
        return {r["source"]: r["cases"] for r in self.store.read(_SOURCES)}

    def delete_source(self, source: str) -> None:
        self.store.query(_DELETE_SOURCE, {"source": source})
