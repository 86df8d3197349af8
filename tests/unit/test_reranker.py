"""LawSearch's reranker: candidates ordered by a second model's similarity, its vectors from the shipped file
before any is computed, and a missing model named in the trace instead of failing the search."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from langgraph.runtime import Runtime

from agents.context import ConsultContext
from agents.law_search import RERANKED, search_law, source_rankings
from agents.state.consult import ConsultState
from tools.errors import ModelUnavailableError
from tools.llm.embeddings import HashEmbeddings
from tools.retrieval.reranker import ArticleReranker, RerankerLoader
from tools.retrieval.vector_cache import VectorCache, VectorFile, text_digest, write_vector_file
from tools.retrieval.vectors import STATUTES
from tools.services import Services, set_services
from tools.settings import Settings

TEXTS = {
    "刑法:264": "盗窃公私财物，数额较大的，或者多次盗窃、入户盗窃",
    "刑法:133-1": "在道路上醉酒驾驶机动车的，处拘役，并处罚金",
    "刑法:234": "故意伤害他人身体的，处三年以下有期徒刑",
}


def _lookup(ids: Sequence[str]) -> dict[str, str]:
    return {i: TEXTS[i] for i in ids if i in TEXTS}


class Counting(HashEmbeddings):
    """Hash embeddings that count the documents they embed."""

    embedded: int = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return super().embed_documents(texts)


def test_candidates_are_ordered_by_similarity_and_unknown_ids_left_out() -> None:
    reranker = ArticleReranker(HashEmbeddings(), _lookup)
    candidates = ["刑法:264", "刑法:999", "刑法:234", "刑法:133-1", "刑法:264"]
    ranked = reranker.rank("醉酒驾驶机动车会怎么处罚", candidates, 10)
    assert ranked[0] == "刑法:133-1"
    assert sorted(ranked) == sorted(TEXTS)  # once each, the id the KB lacks left out
    assert reranker.rank("入户盗窃财物", candidates, 1) == ["刑法:264"]
    assert reranker.rank("问题", ["刑法:999"], 5) == []


def test_a_missing_model_gives_no_reranker_and_one_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    loader = RerankerLoader(tmp_path / "absent", VectorCache(tmp_path / "v.sqlite"), _lookup, seeds=())
    why = f"reranker not installed in {tmp_path / 'absent'} (jurisgraph model install --embedder, or make install)"
    assert loader.missing == why
    with caplog.at_level(logging.WARNING):
        assert loader.get() is None and loader.get() is None
    assert [r.message for r in caplog.records] == [why]
    # Off is no error: nothing to report.
    off = RerankerLoader(None, VectorCache(tmp_path / "v.sqlite"), _lookup, seeds=())
    assert off.get() is None and off.missing == ""


def test_the_reranker_is_off_or_where_the_user_put_it(tmp_path: Path) -> None:
    assert Settings(data_dir=tmp_path, reranker="off").reranker_dir is None
    assert Settings(data_dir=tmp_path, reranker=str(tmp_path / "g")).reranker_dir == tmp_path / "g"
    assert Settings(data_dir=tmp_path).reranker_dir == tmp_path / "models" / "embeddinggemma-300m"


def test_shipped_vectors_are_read_before_any_is_computed(
    tmp_path: Path, reranker_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = Counting()
    loaded: list[str] = []

    def load(spec: str) -> Embeddings:
        loaded.append(spec)
        return inner

    monkeypatch.setattr("tools.retrieval.reranker.load_embeddings", load)
    # The shipped file puts the theft article where the question points: the ranking must follow it.
    query = np.asarray(inner.embed_query("醉酒驾驶机动车"), dtype=np.float32)
    seeds = tmp_path / "seed.npz"
    write_vector_file(seeds, VectorFile(inner.name, [text_digest(TEXTS["刑法:264"])], query[None, :]))
    cache = VectorCache(tmp_path / "v.sqlite")
    loader = RerankerLoader(reranker_dir, cache, _lookup, seeds=[seeds])
    reranker = loader.get()
    assert reranker is not None and loader.get() is reranker
    assert loaded == [f"embeddinggemma:{reranker_dir}"]
    assert reranker.rank("醉酒驾驶机动车", list(TEXTS), 3)[0] == "刑法:264"
    assert inner.embedded == 2  # the two texts the file lacks, then cached
    reranker.rank("另一个问题", list(TEXTS), 3)
    assert inner.embedded == 2 and cache.count(inner.name) == 3


def test_law_search_adds_the_reranked_source_when_installed_and_says_why_not(
    criminal_kb: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = "醉酒驾驶机动车会受到什么处罚？"
    context = ConsultContext(model="fake", consultation_k=0)
    assert RERANKED not in source_rankings(query, [STATUTES], criminal_kb, context)  # not installed here
    set_services(criminal_kb)
    try:
        state = ConsultState(question=query)
        traced = search_law(state, Runtime(context=context, store=None, stream_writer=lambda _: None, previous=None))
        assert traced["trace"][0]["detail"]["reranker"] == criminal_kb.reranker.missing != ""

        reranker = ArticleReranker(HashEmbeddings(), partial(criminal_kb.vectors.texts, STATUTES))
        monkeypatch.setattr(criminal_kb.reranker, "get", lambda: reranker)
        rankings = source_rankings(query, [STATUTES], criminal_kb, context)
        found = {a for name, ranked in rankings.items() if name != RERANKED for a in ranked}
        assert rankings[RERANKED] and set(rankings[RERANKED]) <= found
        assert len(rankings[RERANKED]) == len(set(rankings[RERANKED])) <= context.candidates_per_retriever
        traced = search_law(state, Runtime(context=context, store=None, stream_writer=lambda _: None, previous=None))
        assert "reranker" not in traced["trace"][0]["detail"]
        assert traced["trace"][0]["detail"]["sources"][RERANKED] == len(rankings[RERANKED])
    finally:
        set_services(None)


def test_a_model_that_cannot_load_is_reported_once_and_not_retried(
    tmp_path: Path, reranker_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []

    def fail(spec: str) -> Embeddings:
        calls.append(spec)
        raise ModelUnavailableError("install sentence-transformers (pip install '.[english]')")

    monkeypatch.setattr("tools.retrieval.reranker.load_embeddings", fail)
    loader = RerankerLoader(reranker_dir, VectorCache(tmp_path / "v.sqlite"), _lookup, seeds=())
    with caplog.at_level(logging.WARNING):
        assert loader.get() is None and loader.get() is None
    assert len(calls) == 1 and loader.missing.startswith("reranker unavailable: install sentence-transformers")
    assert [r.message for r in caplog.records] == [loader.missing]
