"""Domain-partitioned vector collections in Chroma: statutes, interpretations, cases, and the Law GraphRAG
index's entities and community reports.

Vectors are always computed by our own embedding provider and passed in explicitly, so Chroma never
loads its default embedding model (which would try to download weights). Each collection records the
embedding model it was built with; querying it with another model is refused instead of returning noise.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from langchain_core.embeddings import Embeddings

from tools.errors import StoreUnavailableError
from tools.llm.embeddings import embeddings_name

if TYPE_CHECKING:
    from tools.settings import Settings

STATUTES = "statutes"
INTERPRETATIONS = "interpretations"
CASES = "cases"
IN_FORCE = "in_force"
"""Metadata key of an interpretation chunk: false when a later interpretation repealed or replaced it."""
CONSULTATIONS = "consultations"
"""Answered consultations' questions, with the articles their answers cite: LawSearch's nearest precedents."""
ENTITIES = "entities"
"""Statute entities of the Law GraphRAG index (name and description): local search's entry points."""
COMMUNITY_REPORTS = "community_reports"
"""Reports of the statute entity communities: global search and the law-search router read them."""
Metadata = Mapping[str, str | int | float | bool]
PAGE = 5000
"""Records one read asks Chroma for: a read of all 47,127 statute articles (the laws and the regulations) at once
failed in Chroma's SQLite ("too many SQL variables", its limit being 32,766)."""
RETRY_DELAYS_S = (0.5, 1.0, 2.0)
"""Waits before each new attempt when a Chroma server does not answer: a restarted one gets about 3.5 s."""
REREAD_DELAYS_S = (0.1, 0.2, 0.5, 1.0, 2.0, 4.0)
"""Waits before each new attempt, with the store opened afresh, when another process (an ingestion) wrote the
embedded store after this one loaded its indexes: its ids are in the store's tables before its vectors are in
the index files, and a read in between fails ("Error finding id") until the store is opened again."""

SEARCH_EF = 1000
"""Neighbours HNSW examines per query (Chroma's default 100). A collection under Chroma's sync threshold (1,000
records) has its index rebuilt, by several threads, in every process that opens it, so two processes hold two
different graphs: at 100, a question's 7th nearest of the Criminal Law's 505 articles was found in some processes
and missed in others (one question, two answers). At 1,000 such a collection is searched whole, and a larger one
all but exactly."""

P = ParamSpec("P")
R = TypeVar("R")


def _retrying(method: Callable[Concatenate[ChromaVectors, P], R]) -> Callable[Concatenate[ChromaVectors, P], R]:
    """Run a store call again while a Chroma server is unreachable (it may be restarting), or, with the embedded
    store opened afresh, while another process's writes leave this one's view of it behind; then fail with one
    clear StoreUnavailableError naming which."""

    @functools.wraps(method)
    def call(self: ChromaVectors, *args: P.args, **kwargs: P.kwargs) -> R:
        import httpx
        from chromadb.errors import InternalError

        delays = RETRY_DELAYS_S if self.remote else REREAD_DELAYS_S
        failure: Exception | None = None
        for delay in (0.0, *delays):
            time.sleep(delay)
            try:
                return method(self, *args, **kwargs)
            except httpx.TransportError as exc:
                failure = exc
                self._collections.clear()  # handles of the old connection; fetched again next attempt
            except InternalError as exc:
                # Only what another process's write explains is read again; any other internal error is itself.
                if self.remote or "finding id" not in str(exc):
                    raise
                failure = exc
                self._reopen()
        if self.remote:
            raise StoreUnavailableError(
                f"the Chroma vector store at {self.location} is not reachable ({1 + len(delays)} attempts): {failure}"
            ) from failure
        raise StoreUnavailableError(
            f"the vector store at {self.location} kept changing under this read for {sum(delays):.0f} s "
            f"(another process, such as an ingestion, is writing it): run again when it finishes; nothing is lost "
            f"({failure})"
        ) from failure

    return call


@dataclass(frozen=True)
class Hit:
    """One retrieved document with its similarity score (higher is better)."""

    id: str
    text: str
    score: float
    metadata: dict[str, Any]


class ChromaVectors:
    """Chroma collections, PersistentClient under the data dir or HttpClient when CHROMA_HOST is set."""

    def __init__(self, settings: Settings, embeddings: Embeddings) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.embeddings = embeddings
        self.model_name = embeddings_name(embeddings)
        self.prefix = settings.collection_prefix
        self.remote = bool(settings.chroma_host)
        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        self._chroma_settings = chroma_settings
        try:
            if settings.chroma_host:
                self._client = chromadb.HttpClient(
                    host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
                )
                self._client.heartbeat()
                self.location = f"http://{settings.chroma_host}:{settings.chroma_port}"
            else:
                settings.chroma_dir.mkdir(parents=True, exist_ok=True)
                self._client = chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)
                self.location = str(settings.chroma_dir)
        except Exception as exc:  # chromadb raises bare Exceptions/ValueErrors for connection problems
            raise StoreUnavailableError(f"the Chroma vector store is not available: {exc}") from exc
        self._collections: dict[str, Any] = {}

    def _reopen(self) -> None:
        """Open the embedded store afresh: a client keeps the index files as it first loaded them (Chroma shares
        one per path in a process), so what another process wrote since is only seen through a new one."""
        import chromadb

        self._client.clear_system_cache()
        self._client = chromadb.PersistentClient(path=self.location, settings=self._chroma_settings)
        self._collections.clear()

    def _collection(self, name: str) -> Any:
        if name not in self._collections:
            collection = self._client.get_or_create_collection(
                self.prefix + name,
                embedding_function=None,
                configuration={"hnsw": {"space": "cosine", "ef_search": SEARCH_EF}},
                metadata={"embedding_model": self.model_name},
            )
            if (collection.configuration.get("hnsw") or {}).get("ef_search", SEARCH_EF) < SEARCH_EF:
                collection.modify(configuration={"hnsw": {"ef_search": SEARCH_EF}})  # built before it was set
            built_with = (collection.metadata or {}).get("embedding_model")
            if built_with and built_with != self.model_name:
                raise StoreUnavailableError(
                    f"collection {name!r} was built with embeddings {built_with!r} but {self.model_name!r} "
                    "is configured; set JURIS_EMBEDDINGS back or re-ingest with --reset"
                )
            self._collections[name] = collection
        return self._collections[name]

    @_retrying
    def upsert(self, collection: str, ids: Sequence[str], texts: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        """Insert or replace documents; vectors are computed here with the configured embeddings."""
        if not ids:
            return
        vectors = self.embeddings.embed_documents(list(texts))
        self._collection(collection).upsert(
            ids=list(ids), documents=list(texts), metadatas=[dict(m) for m in metadatas], embeddings=vectors
        )

    def _get(self, collection: str, include: list[str], ids: Sequence[str] | None = None) -> dict[str, list[Any]]:
        """Chroma's ``get`` of the given ids (or every record), read :data:`PAGE` records at a time."""
        col = self._collection(collection)
        got: dict[str, list[Any]] = {"ids": [], **{field: [] for field in include}}
        pages = (
            ({"ids": list(ids[i : i + PAGE])} for i in range(0, len(ids), PAGE))
            if ids is not None
            else ({"limit": PAGE, "offset": i} for i in range(0, max(col.count(), 1), PAGE))
        )
        for page in pages:
            part = col.get(include=include, **page)
            for field in got:
                got[field].extend(part[field])
        return got

    @_retrying
    def metadata(self, collection: str, ids: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        """id -> metadata for the given ids (or all documents)."""
        got = self._get(collection, ["metadatas"], ids)
        return {i: dict(m or {}) for i, m in zip(got["ids"], got["metadatas"], strict=True)}

    @_retrying
    def documents(self, collection: str) -> tuple[list[str], list[str]]:
        """All ids and texts of a collection (for building the lexical index)."""
        got = self._get(collection, ["documents"])
        return list(got["ids"]), [d or "" for d in got["documents"]]

    @_retrying
    def texts(self, collection: str, ids: Sequence[str]) -> dict[str, str]:
        """id -> text of those of ``ids`` the collection holds."""
        if not ids:
            return {}
        got = self._get(collection, ["documents"], ids)
        return {i: d or "" for i, d in zip(got["ids"], got["documents"], strict=True)}

    @_retrying
    def collections(self) -> list[str]:
        """The names (without this pack's prefix) of the collections the store holds."""
        names = [c.name for c in self._client.list_collections()]
        return sorted(n.removeprefix(self.prefix) for n in names if n.startswith(self.prefix))

    @_retrying
    def embedded_documents(self, collection: str) -> list[tuple[str, list[float]]]:
        """Every (text, stored vector) pair of a collection (to export the vectors)."""
        got = self._get(collection, ["documents", "embeddings"])
        return [(d or "", list(v)) for d, v in zip(got["documents"], got["embeddings"], strict=True)]

    @_retrying
    def embedded(self, collection: str) -> tuple[list[str], list[list[float]], list[dict[str, Any]]]:
        """Every id, stored vector and metadata of a collection (to compute over the vectors themselves)."""
        got = self._get(collection, ["embeddings", "metadatas"])
        return list(got["ids"]), [list(v) for v in got["embeddings"]], [dict(m or {}) for m in got["metadatas"]]

    def embed_query(self, query: str) -> list[float]:
        """The query's vector, as :meth:`search` compares it."""
        return list(self.embeddings.embed_query(query))

    @_retrying
    def count(self, collection: str) -> int:
        return int(self._collection(collection).count())

    @_retrying
    def search(self, collection: str, query: str, k: int, where: Mapping[str, Any] | None = None) -> list[Hit]:
        """The ``k`` nearest documents to ``query`` by cosine similarity, among those matching the Chroma
        metadata filter ``where`` when one is given."""
        col = self._collection(collection)
        n = min(k, col.count())
        if n == 0:
            return []
        res = col.query(
            query_embeddings=[self.embed_query(query)],
            n_results=n,
            where=dict(where) if where else None,
            include=["documents", "metadatas", "distances"],
        )
        return [
            Hit(id=i, text=d or "", score=1.0 - float(dist), metadata=dict(m or {}))
            for i, d, m, dist in zip(
                res["ids"][0], res["documents"][0], res["metadatas"][0], res["distances"][0], strict=True
            )
        ]

    @_retrying
    def delete_where(self, collection: str, key: str, value: str) -> None:
        """Delete the documents whose metadata ``key`` equals ``value``."""
        self._collection(collection).delete(where={key: value})

    @_retrying
    def reset(self, collection: str) -> None:
        """Drop a collection (ingest --reset)."""
        self._collections.pop(collection, None)
        if self.prefix + collection in [c.name for c in self._client.list_collections()]:
            self._client.delete_collection(self.prefix + collection)
