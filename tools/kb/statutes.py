"""Statute articles in the knowledge graph: reads and writes of laws and articles.

The Legal Basis of every answer is built here from the knowledge graph, never from model output: the model
may only name ids, and :meth:`StatuteRepository.get_articles` returns the stored text verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict

from tools.kb.port import GraphStore
from tools.law.articles import CRIMINAL_LAW, Article

_UPSERT_LAWS = """
UNWIND $rows AS row
MERGE (l:Law {id: row.id})
SET l.name = row.name, l.full_name = row.full_name
"""

_UPSERT_ARTICLES = """
UNWIND $rows AS row
MERGE (l:Law {id: row.law})
MERGE (a:Article {id: row.id})
SET a.law = row.law, a.law_full = row.law_full, a.number = row.number, a.suffix = row.suffix,
    a.label = row.label, a.chapter = row.chapter, a.text = row.text, a.hash = row.hash
MERGE (l)-[:HAS_ARTICLE]->(a)
"""

_GET_ARTICLES = """
UNWIND $ids AS wanted
MATCH (a:Article {id: wanted})
RETURN a.id AS id, a.law AS law, a.law_full AS law_full, a.number AS number, a.suffix AS suffix,
       a.label AS label, a.chapter AS chapter, a.text AS text
"""

_DELETE_ARTICLES_OF = "MATCH (a:Article) WHERE a.law = $law DETACH DELETE a"
_DELETE_LAW = "MATCH (l:Law {id: $law}) DETACH DELETE l"

_HASHES_FOR_LAW = "MATCH (a:Article) WHERE a.law = $law RETURN a.id AS id, a.hash AS hash"

_OPENING_WITH = "MATCH (a:Article) WHERE a.law = $law AND a.text STARTS WITH $opening RETURN a.id AS id, a.text AS text"
_CONTAINING = "MATCH (a:Article) WHERE a.law = $law AND a.text CONTAINS $phrase RETURN a.id AS id"
_PENALTY_OF = re.compile(r"对犯(?P<charge>[^，。；]{1,30}?)罪的")
_LIABLE_CONDUCT = re.compile(r"(?:^|(?<=[。；\n]))(?P<conduct>[^。；\n，]{4,30}?)的，[^。；\n]*?追究刑事责任")
"""A clause of another law that makes a conduct criminally liable: 醉酒驾驶机动车的，……依法追究刑事责任."""
MOST_COUNTERPARTS = 2
"""A conduct the Criminal Law names in more articles than this is general wording (构成犯罪), linking none."""

_COUNT = """
MATCH (l:Law) OPTIONAL MATCH (l)-[:HAS_ARTICLE]->(a:Article)
RETURN l.id AS law, count(a) AS articles
"""


class StatuteRepository:
    """Statute reads and writes on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def upsert_laws(self, laws: Iterable[tuple[str, str]]) -> None:
        """Create or update (:Law {id: short name, full_name}) nodes from (short, full) pairs."""
        rows = [{"id": short, "name": short, "full_name": full} for short, full in laws]
        if rows:
            self.store.query(_UPSERT_LAWS, {"rows": rows})

    def upsert_articles(self, articles: Sequence[Article]) -> None:
        """MERGE articles and their HAS_ARTICLE edges; re-running with the same rows changes nothing."""
        rows = [{**asdict(a), "hash": a.content_hash} for a in articles]
        if rows:
            self.store.query(_UPSERT_ARTICLES, {"rows": rows})

    def delete_law(self, law: str) -> None:
        """Delete a law and its articles (an interpretation repealed since it was ingested); none: nothing."""
        self.store.query(_DELETE_ARTICLES_OF, {"law": law})
        self.store.query(_DELETE_LAW, {"law": law})

    def article_hashes(self, law: str) -> dict[str, str]:
        """id -> content hash of the articles of one law already in the graph."""
        return {r["id"]: r["hash"] for r in self.store.read(_HASHES_FOR_LAW, {"law": law})}

    def get_articles(self, ids: Sequence[str]) -> list[Article]:
        """Articles for the ids that exist, in the order asked; unknown ids are simply absent."""
        if not ids:
            return []
        by_id = {r["id"]: Article(**r) for r in self.store.read(_GET_ARTICLES, {"ids": list(ids)})}
        return [by_id[i] for i in dict.fromkeys(ids) if i in by_id]

    def check_citations(self, ids: Sequence[str]) -> tuple[list[Article], list[str]]:
        """Split cited ids into articles that exist (text verbatim) and ids the KB does not hold."""
        found = self.get_articles(ids)
        known = {a.id for a in found}
        return found, [i for i in dict.fromkeys(ids) if i not in known]

    def counts(self) -> dict[str, int]:
        """Number of articles per law in the graph."""
        return {r["law"]: r["articles"] for r in self.store.read(_COUNT)}

    def penalty_companions(self, law: str = CRIMINAL_LAW) -> dict[str, str]:
        """Article defining an offence -> the article that only sets its penalty, read from their wording:
        刑法:382 (…的，是贪污罪) -> 383 (对犯贪污罪的，…处罚), 385 -> 386, 389 -> 390. Courts cite the two
        together, and a retriever that finds one rarely ranks the other."""
        companions: dict[str, str] = {}
        for row in self.store.read(_OPENING_WITH, {"law": law, "opening": "对犯"}):
            if match := _PENALTY_OF.match(row["text"]):
                phrase = f"的，是{match['charge']}罪"
                for found in self.store.read(_CONTAINING, {"law": law, "phrase": phrase}):
                    if found["id"] != row["id"]:
                        companions.setdefault(found["id"], row["id"])
        return companions

    def criminal_counterparts(self, text: str, law: str = CRIMINAL_LAW) -> list[str]:
        """The articles of ``law`` that name, word for word, a conduct for which ``text`` (another law's article)
        says 依法追究刑事责任: 道路交通安全法:91 (醉酒驾驶机动车的，……依法追究刑事责任) -> 刑法:133-1 (……（二）醉酒驾驶
        机动车的). The other law decides that the conduct is a crime; the Criminal Law article sets what the person
        faces, and a lawyer cites the two together."""
        found: list[str] = []
        for match in _LIABLE_CONDUCT.finditer(text):
            rows = self.store.read(_CONTAINING, {"law": law, "phrase": match["conduct"]})
            if len(rows) <= MOST_COUNTERPARTS:
                found.extend(r["id"] for r in rows)
        return list(dict.fromkeys(found))
