"""Whether the vector store still holds what the graph says was ingested, and rebuilding it from the graph.

Both stores are written for every record, the graph last; a vector store that lost its data (a wiped or
replaced ``chroma.sqlite3``) left the graph's articles unfindable, and ``ask`` answered as if no law applied.
The graph keeps every case's and consultation's text, so their collections are rebuilt from it; statutes
come back from laws.db; interpretation chunks from their files (``ingest --interpretations`` sees the empty
collection and writes them all again)."""

from __future__ import annotations

from dataclasses import dataclass

from tools.corpus.laws_db import list_laws, resolve_laws
from tools.errors import InputError
from tools.kb.cases import CaseRepository
from tools.kb.charges import ChargeRepository
from tools.kb.consultations import ConsultationRepository
from tools.kb.interpretations import InterpretationRepository
from tools.kb.port import GraphStore
from tools.kb.statutes import StatuteRepository
from tools.pipelines.ingestion import ingest_cases, ingest_consultations, ingest_laws
from tools.retrieval.vectors import CASES, CONSULTATIONS, INTERPRETATIONS, STATUTES, ChromaVectors

REPAIR = "jurisgraph kg repair"


@dataclass(frozen=True)
class Gap:
    """A collection holding fewer records than the graph says were ingested."""

    collection: str
    in_graph: int
    in_vectors: int

    def describe(self) -> str:
        return (
            f"the {self.collection} collection holds {self.in_vectors} of the {self.in_graph} records the "
            f"knowledge graph holds"
        )


def store_gaps(graph: GraphStore, vectors: ChromaVectors) -> list[Gap]:
    """Every collection short of the graph's count (interpretations: empty while the graph holds some)."""
    in_graph = {
        STATUTES: sum(StatuteRepository(graph).counts().values()),
        CASES: sum(CaseRepository(graph, ChargeRepository(graph)).sources().values()),
        CONSULTATIONS: sum(ConsultationRepository(graph).sources().values()),
    }
    in_vectors = {c: vectors.count(c) for c in in_graph}
    gaps = [Gap(c, n, in_vectors[c]) for c, n in in_graph.items() if in_vectors[c] < n]
    interpretations = len(InterpretationRepository(graph).hashes())
    if interpretations and not vectors.count(INTERPRETATIONS):
        gaps.append(Gap(INTERPRETATIONS, interpretations, 0))
    return gaps


def restore_collections(graph: GraphStore, vectors: ChromaVectors, batch_size: int) -> dict[str, int]:
    """Rebuild the collections short of the graph from what the graph and laws.db hold; collection -> records
    written. Interpretations are left to ``ingest --interpretations``: their chunks are not in the graph."""
    written: dict[str, int] = {}
    for gap in store_gaps(graph, vectors):
        if gap.collection == STATUTES:
            statutes = StatuteRepository(graph)
            try:
                laws = resolve_laws(sorted(statutes.counts()), list_laws())
            except InputError:
                continue  # a pack's own corpus: `ingest --pack` restores it
            report = ingest_laws(laws, vectors, statutes, batch_size)
            written[STATUTES] = report.added + report.updated
        elif gap.collection == CASES:
            repo = CaseRepository(graph, ChargeRepository(graph))
            report = ingest_cases(repo.stored_cases(), vectors, repo, batch_size)
            written[CASES] = report.added + report.updated
        elif gap.collection == CONSULTATIONS:
            consultations = ConsultationRepository(graph)
            stored = consultations.stored_consultations()
            report = ingest_consultations(stored, vectors, consultations, batch_size)
            written[CONSULTATIONS] = report.added + report.updated
    return written
