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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from tools.fitted import read_fitted
from tools.law.articles import law_of
from tools.retrieval.hybrid import LexicalCollection, rank_cited
from tools.retrieval.lexical import LexicalIndex
from tools.retrieval.term_expansion import TermExpansion
from tools.retrieval.vectors import CONSULTATIONS, ChromaVectors

BUNDLED_VOTE_USAGE = Path(__file__).with_name("vote_usage.json")
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
    uses: tuple[float, ...] = ()
    """How much its answer uses each cited article (:meth:`ConsultationSearch.answer_use`), in ``articles``'
    order; empty when not measured."""


def _articles(metadata: dict[str, object]) -> tuple[str, ...]:
    return tuple(a for a in str(metadata.get("articles", "")).split(",") if a)


class ConsultationSearch:
    """Dense search over the questions of the ``consultations`` collection, BM25 over questions and the
    reasoning of their answers. On the tuning halves (each half's neighbours taken from the other half), BM25
    over question and reasoning voted R@5 0.298 / 0.183 (stard_train / consult_dev) against 0.242 / 0.106 over
    the question alone; embedding question and reasoning instead gave 0.283 / 0.212 against 0.289 / 0.231."""

    def __init__(
        self, vectors: ChromaVectors, cache_dir: Path | None, statutes: Callable[[], LexicalIndex] | None = None
    ) -> None:
        self.vectors = vectors
        self._statutes = statutes
        """The statute index an answer's use of an article is read against (none: every citation counts in full)."""
        self._uses: tuple[LexicalIndex | None, LexicalIndex | None, dict[tuple[str, str], float]] = (None, None, {})
        """Each (consultation, article)'s answer use, with the two indexes it was read on."""
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
        ways counts once, with its dense similarity plus its BM25 share), skipping those of ``hidden_half``;
        each with how much its answer uses each article it cites (:meth:`answer_use`)."""
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
        ranked = sorted(found.values(), key=lambda n: -n.score)
        use = self._answer_uses()
        return [replace(n, uses=tuple(use(n.id, a) for a in n.articles)) for n in ranked]

    def answer_use(self, consultation: str, article: str) -> float:
        """How much an answered consultation uses an article it cites: the share of the article's BM25 weight
        (in the statute index) carried by words its question or answer also holds. Three answers about a
        deposit cited 民法典:394, a mortgage article, and never said 抵押 (0.02 to 0.06); those citing 577 spoke
        of 违约 (0.11 to 0.18). Without a statute index, or for an article it lacks, a citation counts as used."""
        return self._answer_uses()(consultation, article)

    def _answer_uses(self) -> Callable[[str, str], float]:
        """:meth:`answer_use` with both indexes read once: a loop over every consultation asks thousands, and
        reading an index checks its collection in the store each time."""
        statutes = self._statutes() if self._statutes else None
        if statutes is None:
            return lambda _consultation, _article: 1.0
        index = self._lexical.index()
        if self._uses[0] is not index or self._uses[1] is not statutes:
            self._uses = (index, statutes, {})
        cache, words = self._uses[2], index.words

        def use(consultation: str, article: str) -> float:
            cached = cache.get((consultation, article))
            if cached is None:
                weights = statutes.weights_of(article)
                total = sum(weights.values())
                said = set(words(consultation))
                cached = cache[(consultation, article)] = (
                    sum(w for word, w in weights.items() if word in said) / total if total else 1.0
                )
            return cached

        return use

    def _used(
        self, consultation: str, metadata: dict[str, object], use: Callable[[str, str], float]
    ) -> list[tuple[str, float]]:
        """The articles a consultation cites, each with the weight its citation carries (:func:`use_weight`)."""
        return [(a, use_weight(use(consultation, a))) for a in _articles(metadata)]

    def citation_counts(self, hidden_half: str = "") -> Counter[str]:
        """How many consultations cite each article (those of ``hidden_half`` left out), each citation counted as
        much as its answer uses the article (:func:`use_weight`, so a count may be fractional); counted once per
        state of the collection, not per search."""
        index = self._lexical.index()
        cached = self._counts.get(hidden_half)
        if cached is None or cached[0] is not index:
            counts: Counter[str] = Counter()
            use = self._answer_uses()
            for cid, meta in self._lexical.metadata.items():
                if not hidden_half or meta.get("half") != hidden_half:
                    for article, weight in self._used(cid, meta, use):
                        counts[article] += weight  # type: ignore[assignment]
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
            # An article is learned from the questions whose answers use it, not from a citation never used.
            use = self._answer_uses()
            answered = [
                (question, tuple(a for a, weight in self._used(cid, meta.get(cid, {}), use) if weight >= 1.0))
                for cid, question in zip(ids, questions, strict=True)
                if not hidden_half or meta.get(cid, {}).get("half") != hidden_half
            ]
            cached = self._expansions[hidden_half] = (index, statutes, TermExpansion(statutes, answered))
        return cached[2]

    def _article_centroids(self, hidden_half: str) -> tuple[list[str], np.ndarray]:
        index = self._lexical.index()
        cached = self._centroids.get(hidden_half)
        if cached is None or cached[0] is not index:
            ids, vectors, metadatas = self.vectors.embedded(CONSULTATIONS)
            members: dict[str, list[int]] = {}
            use = self._answer_uses()
            for row, (cid, meta) in enumerate(zip(ids, metadatas, strict=True)):
                if not hidden_half or meta.get("half") != hidden_half:
                    # An article is as near as the questions whose answers use it: three deposit questions
                    # citing the mortgage article 民法典:394 never made it the article nearest a deposit.
                    for article, weight in self._used(cid, meta, use):
                        if weight >= 1.0:
                            members.setdefault(article, []).append(row)
            articles = sorted(members)
            matrix = np.asarray(vectors, dtype=np.float64).reshape(len(vectors), -1)
            matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
            centroids = np.vstack([matrix[members[a]].mean(axis=0) for a in articles]) if articles else matrix[:0]
            centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
            cached = self._centroids[hidden_half] = (index, articles, centroids)
        return cached[1], cached[2]


def use_weight(use: float, saturation: float | None = None) -> float:
    """What a citation counts for, given how much its answer uses the article: in proportion up to the
    ``saturation`` (the fitted one when not given), in full from there (a saturation of 0: always in full)."""
    saturation = fitted_vote_saturation() if saturation is None else saturation
    return min(1.0, use / saturation) if saturation > 0 else 1.0


def vote(neighbours: Iterable[Neighbour], depth: int, saturation: float | None = None) -> list[str]:
    """Articles ranked by the summed similarity of the neighbours citing them (at most ``depth``), each vote
    weighed by how much the neighbour's answer uses the article (:func:`use_weight`; a neighbour whose uses
    were not measured votes in full)."""
    return rank_cited(
        ((article,), n.score * use_weight(use, saturation))
        for n in neighbours
        for article, use in zip(n.articles, n.uses or [1.0] * len(n.articles), strict=True)
    )[:depth]


@lru_cache(maxsize=1)
def fitted_vote_saturation() -> float:
    """The shipped saturation of the vote's answer use (``vote_usage.json``, read once)."""
    return float(read_fitted(BUNDLED_VOTE_USAGE)["saturation"])


def cited_laws(neighbours: Iterable[Neighbour], n: int) -> list[str]:
    """The ``n`` laws the neighbours' cited articles belong to, by summed similarity (a law once per
    neighbour): the router learned from answered consultations."""
    return rank_cited((dict.fromkeys(law_of(a) for a in nb.articles), nb.score) for nb in neighbours)[:n]


def prior_ranking(counts: Counter[str], known: Iterable[str], depth: int) -> list[str]:
    """Of the articles in ``known`` (the candidates of a search), those consultations cite, most cited first:
    the prior reorders what other sources found and adds nothing of its own."""
    cited = [a for a in dict.fromkeys(known) if counts.get(a)]
    return sorted(cited, key=lambda a: -counts[a])[:depth]
