"""Judicial interpretations in the knowledge graph: (:Interpretation {id, title, date, source, repealed_by,
hash}) -[:INTERPRETS]->(:Article), and lookups from articles to the interpretations in force that apply them."""

from __future__ import annotations

from collections.abc import Sequence

from tools.corpus.interpretations import Interpretation
from tools.kb.port import GraphStore

_UPSERT = """
MERGE (i:Interpretation {id: $id})
SET i.title = $title, i.date = $date, i.source = $source, i.repealed_by = $repealed_by
WITH i
OPTIONAL MATCH (i)-[old:INTERPRETS]->(:Article)
DELETE old
WITH DISTINCT i
UNWIND $cites AS article_id
MATCH (a:Article {id: article_id})
MERGE (i)-[:INTERPRETS]->(a)
"""

# The hash is written last: it marks the interpretation complete in both stores.
_MARK_DONE = "MATCH (i:Interpretation {id: $id}) SET i.hash = $hash"

_HASHES = "MATCH (i:Interpretation) RETURN i.id AS id, i.hash AS hash"

_FOR_ARTICLES = """
UNWIND $ids AS article_id
MATCH (i:Interpretation)-[:INTERPRETS]->(a:Article {id: article_id})
RETURN a.id AS article_id, i.id AS id, i.title AS title, i.repealed_by AS repealed_by
ORDER BY article_id, id
"""


_OF_SOURCE = "MATCH (i:Interpretation) WHERE i.source = $source RETURN i.id AS id, i.title AS title ORDER BY id"
_SOURCES = "MATCH (i:Interpretation) RETURN DISTINCT i.source AS source"
_DELETE = "UNWIND $ids AS id MATCH (i:Interpretation {id: id}) DETACH DELETE i"


class InterpretationRepository:
    """Interpretation reads and writes on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def upsert(self, interp: Interpretation) -> None:
        """Write the node and replace its INTERPRETS edges (only to articles the graph holds)."""
        self.store.query(
            _UPSERT,
            {
                "id": interp.id,
                "title": interp.title,
                "date": interp.date,
                "source": interp.source,
                "repealed_by": interp.repealed_by,
                "cites": interp.cites,
            },
        )

    def mark_done(self, interp: Interpretation) -> None:
        self.store.query(_MARK_DONE, {"id": interp.id, "hash": interp.content_hash})

    def hashes(self) -> dict[str, str]:
        """id -> content hash of every completely ingested interpretation."""
        return {r["id"]: r["hash"] for r in self.store.read(_HASHES) if r["hash"]}

    def for_articles(self, article_ids: Sequence[str]) -> dict[str, list[dict[str, str]]]:
        """article id -> [{id, title}] of the interpretations in force that apply it (one a later interpretation
        repealed or replaced is left out)."""
        found: dict[str, list[dict[str, str]]] = {}
        rows = self.store.read(_FOR_ARTICLES, {"ids": list(article_ids)}) if article_ids else []
        for row in (r for r in rows if not r["repealed_by"]):
            found.setdefault(row["article_id"], []).append({"id": row["id"], "title": row["title"]})
        return found

    def ids_of_source(self, source: str) -> list[str]:
        """Interpretations ingested from the file named ``source``."""
        return [r["id"] for r in self.store.read(_OF_SOURCE, {"source": source})]

    def titles_of_source(self, source: str) -> list[str]:
        """The titles of the interpretations ingested from the file named ``source`` (their provisions' law)."""
        return [r["title"] for r in self.store.read(_OF_SOURCE, {"source": source})]

    def sources(self) -> list[str]:
        return sorted(r["source"] for r in self.store.read(_SOURCES))

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the interpretation nodes and their INTERPRETS edges (articles stay)."""
        if ids:
            self.store.query(_DELETE, {"ids": list(ids)})
