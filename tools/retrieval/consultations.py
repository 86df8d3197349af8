"""Answered consultations as evidence for a new question (the consultation counterpart of AALawyer's CCs-RAG):
the nearest answered questions, dense and BM25, vote for the articles their answers cite; an article is also
as close to a question as the mean of the answered questions citing it (its centroid); the laws they cite
route statute search; how often consultations cite an article is its prior.

A consultation of the dev files' measured half can be hidden (``hidden_half``, matched against the ``half``
stored with each at ingestion), so that a measured question never finds its own answer or its half's: the
figure is then retrieval, not lookup.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tools.law.articles import law_of
from tools.retrieval.hybrid import LexicalCollection, rank_cited
from tools.retrieval.lexical import LexicalIndex
from tools.retrieval.term_expansion import TermExpansion
from tools.retrieval.vectors import CONSULTATIONS, ChromaVectors

LEXICAL_SHARE = 0.8
"""A BM25 neighbour's vote relative to a dense one of the same rank-one strength: its score is divided by the
best BM25 score (so the nearest weighs 0.8, against a cosine of about 0.9 for a close dense neighbour). On
stard_train's and consult_dev's tuning halves (each half's neighbours taken from the other half) the
two together gave R@10 0.358 / 0.240 against dense alone 0.355 / 0.240 and BM25 alone 0.287 / 0.144."""


@dataclass(frozen=True)
class Neighbour:
    """An answered consultation similar to the question: its id, similarity and the articles it cites."""

    id: str
    score: float
    articles: tuple[str, ...]


def _articles(metadata: dict[str, object]) -> tuple[str, ...]:
    return tuple(a for a in str(metadata.get("articles", "")).split(",") if a)


class ConsultationSearch:
    """Dense search over the questions of the ``consultations`` collection, BM25 over questions and the
    reasoning of their answers. On the tuning halves (each half's neighbours taken from the other half), BM25
    over question and reasoning voted R@5 0.298 / 0.183 (stard_train / consult_dev) against 0.242 / 0.106 over
    the question alone; embedding question and reasoning instead gave 0.283 / 0.212 against 0.289 / 0.231."""

    def __init__(self, vectors: ChromaVectors, cache_dir: Path | None) -> None:
        self.vectors = vectors
        self._lexical = LexicalCollection(vectors, CONSULTATIONS, cache_dir, extra_field="reasoning")
        self._counts: dict[str, tuple[LexicalIndex, Counter[str]]] = {}
        """Citation counts per hidden half, with the index (collection state) they were counted on."""
        self._centroids: dict[str, tuple[LexicalIndex, list[str], np.ndarray]] = {}
        """Article centroids per hidden half (ids, unit rows), with the index they were computed on."""
        self._expansions: dict[str, tuple[LexicalIndex, LexicalIndex, TermExpansion]] = {}
        """Term expansions per hidden half, with the consultation and statute indexes they were learned on."""

    def count(self) -> int:
        return self.vectors.count(CONSULTATIONS)

    def neighbours(self, query: str, k: int, hidden_half: str = "") -> list[Neighbour]:
        """The ``k`` nearest consultations by embedding and the ``k`` best by BM25 (a consultation found both
        ways counts once, with its dense similarity plus its BM25 share), skipping those of ``hidden_half``."""
        if k < 1 or self.count() == 0:
            return []
        where = {"half": {"$ne": hidden_half}} if hidden_half else None
        found: dict[str, Neighbour] = {
            hit.id: Neighbour(hit.id, max(hit.score, 0.0), _articles(hit.metadata))
            for hit in self.vectors.search(CONSULTATIONS, query, k, where)
        }
        index = self._lexical.index()
        meta = self._lexical.metadata
        lexical = index.search(query, k, keep=lambda i: not hidden_half or meta.get(i, {}).get("half") != hidden_half)
        if lexical:
            best = lexical[0][1]
            for cid, score in lexical:
                share = LEXICAL_SHARE * score / best
                earlier = found.get(cid)
                articles = earlier.articles if earlier else _articles(meta.get(cid, {}))
                found[cid] = Neighbour(cid, share + (earlier.score if earlier else 0.0), articles)
        return sorted(found.values(), key=lambda n: -n.score)

    def citation_counts(self, hidden_half: str = "") -> Counter[str]:
        """How many consultations cite each article (those of ``hidden_half`` left out); counted once per
        state of the collection, not per search."""
        index = self._lexical.index()
        cached = self._counts.get(hidden_half)
        if cached is None or cached[0] is not index:
            counts: Counter[str] = Counter()
            for meta in self._lexical.metadata.values():
                if not hidden_half or meta.get("half") != hidden_half:
                    counts.update(_articles(meta))
            cached = self._counts[hidden_half] = (index, counts)
        return cached[1]

    def centroid_ranking(self, query: str, depth: int, hidden_half: str = "") -> list[str]:
        """Cited articles ranked by the cosine between ``query`` and their centroid: the mean vector of the
        answered questions citing them (those of ``hidden_half`` left out). Where the vote hears the nearest
        ten questions, the centroid hears every question an article answered."""
        if depth < 1 or self.count() == 0:
            return []
        articles, rows = self._article_centroids(hidden_half)
        if not articles:
            return []
        sims = rows @ np.asarray(self.vectors.embed_query(query), dtype=np.float64)
        return [articles[i] for i in np.argsort(-sims, kind="stable")[:depth]]

    def expanded_ranking(self, question: str, statutes: LexicalIndex, depth: int, hidden_half: str = "") -> list[str]:
        """Statutes ranked by BM25 for ``question`` extended by the statute words that the words of answered
        questions (those of ``hidden_half`` left out) point to (``TermExpansion``)."""
        if depth < 1 or self.count() == 0:
            return []
        return self._term_expansion(statutes, hidden_half).ranking(question, depth)

    def _term_expansion(self, statutes: LexicalIndex, hidden_half: str) -> TermExpansion:
        index = self._lexical.index()
        cached = self._expansions.get(hidden_half)
        if cached is None or cached[0] is not index or cached[1] is not statutes:
            meta = self._lexical.metadata
            ids, questions = self.vectors.documents(CONSULTATIONS)
            answered = [
                (question, _articles(meta.get(cid, {})))
                for cid, question in zip(ids, questions, strict=True)
                if not hidden_half or meta.get(cid, {}).get("half") != hidden_half
            ]
            cached = self._expansions[hidden_half] = (index, statutes, TermExpansion(statutes, answered))
        return cached[2]

    def _article_centroids(self, hidden_half: str) -> tuple[list[str], np.ndarray]:
        index = self._lexical.index()
        cached = self._centroids.get(hidden_half)
        if cached is None or cached[0] is not index:
            _, vectors, metadatas = self.vectors.embedded(CONSULTATIONS)
            members: dict[str, list[int]] = {}
            for row, meta in enumerate(metadatas):
                if not hidden_half or meta.get("half") != hidden_half:
                    for article in _articles(meta):
                        members.setdefault(article, []).append(row)
            articles = sorted(members)
            matrix = np.asarray(vectors, dtype=np.float64).reshape(len(vectors), -1)
            matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
            centroids = np.vstack([matrix[members[a]].mean(axis=0) for a in articles]) if articles else matrix[:0]
            centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
            cached = self._centroids[hidden_half] = (index, articles, centroids)
        return cached[1], cached[2]


def vote(neighbours: Iterable[Neighbour], depth: int) -> list[str]:
    """Articles ranked by the summed similarity of the neighbours citing them (at most ``depth``)."""
    return rank_cited((n.articles, n.score) for n in neighbours)[:depth]


def cited_laws(neighbours: Iterable[Neighbour], n: int) -> list[str]:
    """The ``n`` laws the neighbours' cited articles belong to, by summed similarity (a law once per
    neighbour): the router learned from answered consultations."""
    return rank_cited((dict.fromkeys(law_of(a) for a in nb.articles), nb.score) for nb in neighbours)[:n]


def prior_ranking(counts: Counter[str], known: Iterable[str], depth: int) -> list[str]:
    """Of the articles in ``known`` (the candidates of a search), those consultations cite, most cited first:
    the prior reorders what other sources found and adds nothing of its own."""
    cited = [a for a in dict.fromkeys(known) if counts.get(a)]
    return sorted(cited, key=lambda a: -counts[a])[:depth]
