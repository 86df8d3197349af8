"""The India pack's offence graph: (:Article)-[:DEFINES_OFFENSE]->(:Offense {cognizable, bailable})
-[:PUNISHABLE_BY]->(:Punishment), (:Offense)-[:TRIABLE_BY]->(:Court) (the hybrid-RAG paper's schema, as far
as the offence table has data; it has no cases, so Case and Judge nodes stay empty)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from tools.corpus.india import Offence
from tools.kb.port import GraphStore

_UPSERT = """
UNWIND $rows AS row
MATCH (a:Article {id: row.article_id})
MERGE (o:Offense {id: row.article_id})
SET o.name = row.offence, o.cognizable = row.cognizable, o.bailable = row.bailable
MERGE (a)-[:DEFINES_OFFENSE]->(o)
MERGE (p:Punishment {text: row.punishment})
MERGE (o)-[:PUNISHABLE_BY]->(p)
MERGE (c:Court {name: row.court})
MERGE (o)-[:TRIABLE_BY]->(c)
RETURN count(o) AS n
"""
_OF_ARTICLES = """
MATCH (a:Article)-[:DEFINES_OFFENSE]->(o:Offense)
WHERE a.id IN $ids
OPTIONAL MATCH (o)-[:PUNISHABLE_BY]->(p:Punishment)
OPTIONAL MATCH (o)-[:TRIABLE_BY]->(c:Court)
RETURN a.id AS article_id, o.name AS offence, o.cognizable AS cognizable, o.bailable AS bailable,
       p.text AS punishment, c.name AS court
"""


class OffenceRepository:
    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def upsert(self, offences: Sequence[Offence]) -> int:
        """Write the offences whose section is ingested; returns how many were linked."""
        rows = [asdict(o) for o in offences]
        linked = 0
        for start in range(0, len(rows), 200):
            result = self.store.query(_UPSERT, {"rows": rows[start : start + 200]})
            linked += int(result[0]["n"]) if result else 0
        return linked

    def of_articles(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        return self.store.read(_OF_ARTICLES, {"ids": list(ids)})
