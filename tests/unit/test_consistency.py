"""A vector store that lost its data is found by comparing it with the graph, and rebuilt from the graph."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.cail import load_cases
from tools.corpus.consultations import load_consultations
from tools.corpus.laws_db import list_laws, resolve_laws
from tools.kb.cases import CaseRepository
from tools.kb.charges import ChargeRepository
from tools.kb.consultations import ConsultationRepository
from tools.kb.port import GraphStore
from tools.pipelines.consistency import Gap, restore_collections, store_gaps
from tools.pipelines.ingestion import ingest_cases, ingest_consultations, ingest_laws
from tools.retrieval.vectors import CASES, CONSULTATIONS, STATUTES
from tools.services import Services, build_services
from tools.settings import Settings


@pytest.fixture
def services(tmp_path: Path, new_graph: Callable[[], GraphStore]) -> Iterator[Services]:
    settings = Settings(data_dir=tmp_path, embeddings="hash", neo4j_uri="", chroma_host="")
    built = build_services(settings, graph=new_graph())
    ingest_laws(resolve_laws(["刑法"], list_laws()), built.vectors, built.statutes, batch_size=256)
    cases = CaseRepository(built.graph, ChargeRepository(built.graph))
    ingest_cases(load_cases(SHARED_DATA / "zh/cases/cail2018_sample_train.jsonl")[:20], built.vectors, cases, 64)
    consultations, _ = load_consultations(SHARED_DATA / "zh/eval/consult_dev.jsonl")
    ingest_consultations(consultations[:15], built.vectors, ConsultationRepository(built.graph), 64)
    yield built
    built.close()


def test_a_wiped_vector_store_is_found_and_rebuilt_from_the_graph(services: Services) -> None:
    assert store_gaps(services.graph, services.vectors) == []
    for collection in (STATUTES, CASES, CONSULTATIONS):
        services.vectors.reset(collection)  # what `: > chroma.sqlite3` leaves
    gaps = store_gaps(services.graph, services.vectors)
    assert gaps == [Gap(STATUTES, 505, 0), Gap(CASES, 20, 0), Gap(CONSULTATIONS, 15, 0)]
    assert "holds 0 of the 505 records" in gaps[0].describe()
    written = restore_collections(services.graph, services.vectors, batch_size=128)
    assert written == {STATUTES: 505, CASES: 20, CONSULTATIONS: 15}
    assert store_gaps(services.graph, services.vectors) == []
    hits = services.vectors.search(CASES, "盗窃", 3)
    assert hits and all(hit.text for hit in hits)  # the facts came back with their text


def test_a_collection_larger_than_a_page_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # With the regulations the statutes collection holds 47,127 articles: one read of them all failed in Chroma's
    # SQLite ("too many SQL variables"); reads go a page at a time.
    from tools.llm.embeddings import load_embeddings
    from tools.retrieval import vectors as store

    monkeypatch.setattr(store, "PAGE", 3)
    chroma = store.ChromaVectors(Settings(data_dir=tmp_path, embeddings="hash"), load_embeddings("hash"))
    ids = [f"a{i}" for i in range(8)]
    chroma.upsert("statutes", ids, [f"第{i}条" for i in range(8)], [{"n": i} for i in range(8)])
    assert sorted(chroma.metadata("statutes")) == ids and chroma.metadata("statutes", ids[2:7]).keys() == set(ids[2:7])
    assert sorted(chroma.documents("statutes")[0]) == ids
    assert chroma.texts("statutes", ids[::2]) == {i: f"第{i[1:]}条" for i in ids[::2]}
    assert len(chroma.embedded_documents("statutes")) == 8 and len(chroma.embedded("statutes")[0]) == 8
