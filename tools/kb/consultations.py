"""Answered consultations in the graph: (:Consultation {id, question, answer, source})-[:CITES]->(:Article)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tools.corpus.consultations import Consultation
from tools.kb.port import GraphStore

_UPSERT = """
UNWIND $rows AS row
MERGE (q:Consultation {id: row.id})
SET q.source = row.source, q.question = row.question, q.answer = row.answer, q.articles = row.articles,
    q.hash = row.hash
WITH q, row
OPTIONAL MATCH (q)-[old:CITES]->()
DELETE old
WITH DISTINCT q, row
UNWIND row.articles AS article_id
MATCH (a:Article {id: article_id})
MERGE (q)-[:CITES]->(a)
"""
_HASHES = "UNWIND $ids AS id MATCH (q:Consultation {id: id}) RETURN q.id AS id, q.hash AS hash, q.source AS source"
_SOURCES = "MATCH (q:Consultation) RETURN q.source AS source, count(q) AS n"
_ALL = """
MATCH (q:Consultation)
RETURN q.id AS id, q.source AS source, q.question AS question, q.answer AS answer, q.articles AS articles
ORDER BY id
"""
_DELETE_SOURCE = "MATCH (q:Consultation) WHERE q.source = $source DETACH DELETE q"
_CITING = """
MATCH (q:Consultation)-[:CITES]->(:Article {id: $id})
RETURN q.id AS id, q.question AS question, q.source AS source
ORDER BY id
LIMIT $limit
"""


@dataclass(frozen=True)
class StoredConsultation:
    """A consultation as stored: what a reader of an article's page sees."""

    id: str
    question: str
    source: str


class ConsultationRepository:
    """Consultation reads and writes on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def upsert(self, consultations: Sequence[Consultation]) -> None:
        """MERGE consultations and replace their CITES edges (to the cited articles the graph holds)."""
        rows = [
            {
                "id": c.id,
                "source": c.source,
                "question": c.question,
                "answer": c.answer,
                "articles": list(c.articles),
                "hash": c.content_hash,
            }
            for c in consultations
        ]
        if rows:
            self.store.query(_UPSERT, {"rows": rows})

    def stored(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """id -> (content hash, source) of the given ids already in the graph."""
        rows = self.store.read(_HASHES, {"ids": list(ids)}) if ids else []
        return {r["id"]: (str(r["hash"] or ""), str(r["source"] or "")) for r in rows}

    def stored_consultations(self) -> list[Consultation]:
        """Every consultation the graph holds, as ingested (what a wiped vector store is rebuilt from)."""
        return [
            Consultation(r["id"], r["source"], r["question"], r["answer"], tuple(r["articles"] or ()))
            for r in self.store.read(_ALL)
        ]

    def sources(self) -> dict[str, int]:
        return {r["source"]: r["n"] for r in self.store.read(_SOURCES)}

    def delete_source(self, source: str) -> None:
        self.store.query(_DELETE_SOURCE, {"source": source})

    def citing(self, article_id: str, limit: int = 20) -> list[StoredConsultation]:
        """Consultations whose answer cites ``article_id``, at most ``limit``."""
        rows = self.store.read(_CITING, {"id": article_id, "limit": limit})
        return [StoredConsultation(r["id"], str(r["question"] or ""), str(r["source"] or "")) for r in rows]
