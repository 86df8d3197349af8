"""Hybrid statute retrieval: BM25 (jieba) + dense (Chroma) + exact article numbers named in the query.

Ranked lists are merged by weighted reciprocal-rank fusion; articles the query names explicitly
(《刑法》第二百六十四条, 刑法第264条) are placed first because the user asked for them.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from prompts import load_table
from tools.kb.port import GraphStore
from tools.law.articles import NAMED_REF_RE, cn_to_int, make_article_id, short_law_name
from tools.law.wording import mentions
from tools.retrieval.lexical import LexicalIndex, fingerprint
from tools.retrieval.vectors import CASES, COMMUNITY_REPORTS, INTERPRETATIONS, STATUTES, ChromaVectors

RRF_K = 60
"""Standard reciprocal-rank-fusion damping constant (Cormack et al. 2009)."""


@dataclass
class Candidate:
    """A retrieved article id with its fused score and the retrievers that found it."""

    article_id: str
    score: float = 0.0
    sources: list[str] = field(default_factory=list)


def named_articles(query: str, known_laws: set[str]) -> list[str]:
    """Article ids the query names. Without a law name, every known law having that number is a match."""
    found: list[str] = []
    for m in NAMED_REF_RE.finditer(query):
        law_raw = m.group(1) or m.group(2)
        try:
            number = cn_to_int(m.group(3))
            suffix = cn_to_int(m.group(4)) if m.group(4) else 0
        except ValueError:
            continue
        if law_raw:
            law = short_law_name(law_raw)
            # "根据刑法" style prefixes: keep the longest known law name the match ends with.
            matches = [k for k in known_laws if law.endswith(k)]
            laws = [max(matches, key=len)] if matches else [law]
        else:
            laws = sorted(known_laws)
        found.extend(make_article_id(law, number, suffix) for law in laws)
    return list(dict.fromkeys(found))


def weighted_rrf(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int, offset: float = RRF_K
) -> list[Candidate]:
    """The ``k`` best ids by weighted reciprocal-rank fusion, weight / (offset + rank) with ranks from 1
    (unlisted sources weigh 1); ids of the ``exact`` ranking (articles the query names) come first."""
    fused: dict[str, Candidate] = {}
    for source, ranked in rankings.items():
        for rank, aid in enumerate(ranked):
            cand = fused.setdefault(aid, Candidate(aid))
            if source != "exact":
                cand.score += weights.get(source, 1.0) / (offset + rank + 1)
            cand.sources.append(source)
    # Named articles rank first by rule, whatever the offset: a small one lets fused scores pass any constant.
    return sorted(fused.values(), key=lambda c: ("exact" not in c.sources, -c.score))[:k]


RECHECK_S = 30.0
"""Seconds a collection's content fingerprint is trusted while its document count stays the same. Reading
every id and hash of 24k articles takes about 0.9 s, which every query paid; a count is read per query, so
documents added or removed show at once, and a text replaced under the same id within this time."""


class LexicalCollection:
    """BM25 over the documents of one Chroma collection (each followed by its ``extra_field`` metadata when one
    is named), rebuilt when its ids or content hashes change."""

    def __init__(self, vectors: ChromaVectors, collection: str, cache_dir: Path | None, extra_field: str = "") -> None:
        self.vectors = vectors
        self.collection = collection
        self.cache_dir = cache_dir
        self.extra_field = extra_field
        self.metadata: dict[str, dict[str, Any]] = {}
        """The collection's metadata as of the last rebuild."""
        self._index: LexicalIndex | None = None
        self._state = ""
        self._count = -1
        self._checked = -RECHECK_S
        # The judge's retrieval strategies run in parallel and may both ask for the index first: one builds it.
        self._lock = threading.Lock()

    def index(self) -> LexicalIndex:
        with self._lock:
            return self._current()

    def _current(self) -> LexicalIndex:
        count = self.vectors.count(self.collection)
        fresh = time.monotonic() - self._checked < RECHECK_S
        if self._index is not None and count == self._count and fresh:
            return self._index
        meta = self.vectors.metadata(self.collection)
        ids = sorted(meta)
        state = fingerprint(ids, [str(meta[i].get("hash", "")) for i in ids])
        self._count, self._checked = len(ids), time.monotonic()
        if self._index is None or state != self._state:
            # The texts indexed differ with the extra field, so its name keeps the caches apart.
            name = f"{self.collection}+{self.extra_field}" if self.extra_field else self.collection
            self._index = LexicalIndex.build(ids, self._texts(ids, meta), state, self.cache_dir, name)
            self._state = state
            self.metadata = meta
        return self._index

    def _texts(self, ids: list[str], meta: dict[str, dict[str, Any]]) -> Callable[[], list[str]]:
        def fetch() -> list[str]:
            found = dict(zip(*self.vectors.documents(self.collection), strict=True))
            if not self.extra_field:
                return [found.get(i, "") for i in ids]
            return [f"{found.get(i, '')}\n{meta[i].get(self.extra_field, '')}" for i in ids]

        return fetch


class HybridRetriever:
    """Statute retrieval over one ``statutes`` collection."""

    def __init__(
        self,
        vectors: ChromaVectors,
        cache_dir: Path | None,
        lexical_weight: float = 1.0,
        dense_weight: float = 1.0,
    ) -> None:
        self.vectors = vectors
        self.lexical_weight = lexical_weight
        self.dense_weight = dense_weight
        self._statutes = LexicalCollection(vectors, STATUTES, cache_dir)
        self._laws: tuple[LexicalIndex | None, set[str]] = (None, set())
        """The law names of the statutes, as of the lexical index they were read with."""

    def statute_index(self) -> LexicalIndex:
        """The statutes' BM25 index, current with the collection."""
        return self._statutes.index()

    def within_laws(self, query: str, laws: Sequence[str], n: int) -> list[str]:
        """Statute search restricted to ``laws`` (a router's choice): BM25 and dense rankings over their
        articles alone, fused, at most ``n``."""
        if not laws:
            return []
        lexical = self._statutes.index()
        meta, wanted = self._statutes.metadata, set(laws)
        rankings = {
            "bm25": [aid for aid, _ in lexical.search(query, n, keep=lambda i: meta.get(i, {}).get("law") in wanted)],
            "dense": [hit.id for hit in self.vectors.search(STATUTES, query, n, {"law": {"$in": list(laws)}})],
        }
        return [c.article_id for c in self.fuse(rankings, n)]

    def rankings(self, query: str, n: int, named_in: str | None = None) -> dict[str, list[str]]:
        """Each retriever's own ranked article ids (at most ``n``): ``bm25``, ``dense`` and ``exact``, the articles
        ``named_in`` names (default: the query; a consultation passes the user's own words, so that an article a
        model wrote into the query is never taken as asked for)."""
        lexical = self._statutes.index()
        if self._laws[0] is not lexical:  # read once per rebuild, not per query
            self._laws = (lexical, {str(m.get("law", "")) for m in self._statutes.metadata.values()})
        laws = self._laws[1]
        known = set(lexical.ids)
        return {
            "bm25": [aid for aid, _ in lexical.search(query, n)],
            "dense": [hit.id for hit in self.vectors.search(STATUTES, query, n)],
            "exact": [aid for aid in named_articles(query if named_in is None else named_in, laws) if aid in known][:n],
        }

    def fuse(self, rankings: dict[str, list[str]], k: int) -> list[Candidate]:
        """Weighted reciprocal-rank fusion; articles the query names come first."""
        return weighted_rrf(rankings, {"bm25": self.lexical_weight, "dense": self.dense_weight}, k)

    def retrieve(self, query: str, k: int, candidates_per_retriever: int = 20) -> list[Candidate]:
        """The ``k`` best articles for ``query``, fused from all retrievers."""
        return self.fuse(self.rankings(query, candidates_per_retriever), k)


STATUTE_RETRIEVERS = ("bm25", "dense", "exact")
"""The rankings :meth:`HybridRetriever.rankings` returns, over statute text alone."""

CITED_FIELD = {INTERPRETATIONS: "cites", CASES: "articles", COMMUNITY_REPORTS: "articles"}
"""Metadata field holding the comma-separated article ids a chunk of each collection cites."""

OPTIONAL_SOURCES = (INTERPRETATIONS, CASES, COMMUNITY_REPORTS)
"""Collections besides statutes that a law search may read (each only once ingested or indexed)."""


@lru_cache(maxsize=4)
def _case_words(lang: str) -> tuple[str, ...]:
    """Words marking a criminal question, the only one the cases (criminal judgments) can help with
    (``prompts/<lang>/crime_words.json``'s ``case_words``; none for a language without them)."""
    try:
        return tuple(load_table("crime_words", lang).get("case_words", ()))
    except FileNotFoundError:
        return ()


def route_collections(query: str, counts: Mapping[str, int], lang: str = "zh") -> tuple[list[str], dict[str, str]]:
    """Rule-based domain routing: the collections worth searching for ``query`` and why each other one is
    skipped. Statutes always; interpretations and community reports whenever built; cases only for criminal
    questions (a word of :func:`_case_words`)."""
    wanted = [c for c in OPTIONAL_SOURCES if c != CASES or mentions(_case_words(lang), query)]
    return select_collections(wanted, counts, "not a criminal question")


def select_collections(
    wanted: Sequence[str], counts: Mapping[str, int], unwanted_reason: str
) -> tuple[list[str], dict[str, str]]:
    """Statutes plus the wanted optional collections that hold documents; the reason for every other one."""
    chosen, skipped = [STATUTES], {}
    for collection in OPTIONAL_SOURCES:
        if not counts.get(collection):
            skipped[collection] = "empty"
        elif collection not in wanted:
            skipped[collection] = unwanted_reason
        else:
            chosen.append(collection)
    return chosen, skipped


_KG_CHARGES = """
MATCH (c:Charge) WHERE size(c.name) >= 2 AND $query CONTAINS c.name
MATCH (a:Article)-[:DEFINES]->(c)
RETURN a.id AS id, count(c) AS n
"""
_KG_ENTITIES = """
MATCH (e:Entity) WHERE size(e.name) >= 2 AND $query CONTAINS e.name
MATCH (e)-[:MENTIONED_IN]->(a:Article)
RETURN a.id AS id, count(e) AS n
"""
_KG_OFFENCES = """
MATCH (o:Offense) WHERE size(o.name) >= 2 AND toLower($query) CONTAINS toLower(o.name)
MATCH (a:Article)-[:DEFINES_OFFENSE]->(o)
RETURN a.id AS id, o.name AS name
"""


def kg_linked_articles(store: GraphStore, query: str, depth: int) -> list[str]:
    """KG traversal: articles defining the charges (the India pack: offences, in any case) the query names, and
    articles mentioning the statute entities it names (Law GraphRAG index), ranked by how many such links reach
    them."""
    scores: dict[str, int] = {}
    for cypher in (_KG_CHARGES, _KG_ENTITIES):
        for row in store.read(cypher, {"query": query}):
            scores[str(row["id"])] = scores.get(str(row["id"]), 0) + int(row["n"])
    lowered = query.lower()
    for row in store.read(_KG_OFFENCES, {"query": query}):
        # An offence is named where a word starts with it: "theft?" names Theft, "grapes" does not name Rape.
        if re.search(rf"\b{re.escape(str(row['name']).lower())}", lowered):
            scores[str(row["id"])] = scores.get(str(row["id"]), 0) + 1
    return sorted(scores, key=lambda a: (-scores[a], a))[:depth]


def rank_cited(citing: Iterable[tuple[Iterable[str], float]], floor: float = 0.0) -> list[str]:
    """Article ids ranked by the summed score (at least ``floor`` each) of the items citing them."""
    scores: dict[str, float] = {}
    for article_ids, score in citing:
        for article_id in article_ids:
            if article_id:
                scores[article_id] = scores.get(article_id, 0.0) + max(score, floor)
    return sorted(scores, key=lambda a: -scores[a])


def articles_cited_by(
    vectors: ChromaVectors,
    collection: str,
    query: str,
    n_hits: int,
    depth: int,
    where: Mapping[str, Any] | None = None,
) -> list[str]:
    """Collection-based retrieval: the articles cited by the chunks most similar to ``query`` (for cases,
    AALawyer's CCs-RAG), ranked by the summed similarity of the chunks citing them; ``where``: a Chroma
    metadata filter on the chunks."""
    if vectors.count(collection) == 0:
        return []
    hits = vectors.search(collection, query, n_hits, where)
    return rank_cited((str(h.metadata.get(CITED_FIELD[collection], "")).split(","), h.score) for h in hits)[:depth]
