"""A Chroma server that restarts is found again; one that stays down is one clear error, not a traceback."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.servers import chroma_server
from tools.errors import StoreUnavailableError
from tools.llm.embeddings import load_embeddings
from tools.retrieval import vectors
from tools.retrieval.vectors import STATUTES, ChromaVectors
from tools.settings import Settings

pytestmark = pytest.mark.integration


def test_a_restarted_chroma_server_is_found_again_and_a_dead_one_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "RETRY_DELAYS_S", (0.2, 0.5, 1.0))
    path = tmp_path / "chroma"
    with chroma_server(path) as port:
        settings = replace(Settings(data_dir=tmp_path, embeddings="hash"), chroma_host="127.0.0.1", chroma_port=port)
        store = ChromaVectors(settings, load_embeddings("hash"))
        store.upsert(STATUTES, ["刑法:264"], ["盗窃公私财物，数额较大的"], [{"law": "刑法"}])
    with chroma_server(path, port):  # the same server started again: the open client carries on
        assert [hit.id for hit in store.search(STATUTES, "盗窃", 1)] == ["刑法:264"]
    with pytest.raises(StoreUnavailableError, match=r"Chroma vector store at http://127\.0\.0\.1:\d+ is not reach"):
        store.count(STATUTES)
