"""The reranker's question adapter: stored and read back exactly, applied to the question's vector by the
reranker of the model it was learned for and by no other, a damaged file named; and learned from answered
consultations so that a question's gold article ranks higher."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from app.fit import adapter as fit_adapter
from tests.unit.test_reranker import TEXTS, _lookup
from tools.corpus.laws_db import BUNDLED_RERANK_VECTORS
from tools.errors import InputError
from tools.fitted import write_fitted
from tools.llm.embeddings import HashEmbeddings
from tools.retrieval.query_adapter import (
    BUNDLED_ADAPTER,
    QueryAdapter,
    adapter_file,
    adapter_for,
    read_query_adapter,
)
from tools.retrieval.reranker import ArticleReranker, RerankerLoader
from tools.retrieval.vector_cache import VectorCache, text_digest, vector_file_model
from tools.settings import Settings

QUESTION = "醉酒驾驶机动车会怎么处罚"


def _towards(model: str, question: str, text: str) -> QueryAdapter:
    """A rank-1 adapter sending ``question``'s unit vector onto ``text``'s: q + (t - q) (q . q) = t."""
    embeddings = HashEmbeddings()
    q = np.asarray(embeddings.embed_query(question), dtype=np.float64)
    t = np.asarray(embeddings.embed_documents([text])[0], dtype=np.float64)
    q, t = q / np.linalg.norm(q), t / np.linalg.norm(t)
    return QueryAdapter(model, (t - q)[:, None], q[None, :])


def test_an_adapter_is_stored_and_read_back_and_applied_as_its_formula(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    adapter = QueryAdapter("m-8", rng.normal(size=(8, 2)), rng.normal(size=(2, 8)))
    path = tmp_path / "adapter.json"
    write_fitted(path, adapter.values(), {"fitted_on": "tune"})
    read = read_query_adapter(path)
    assert read.model == "m-8"
    np.testing.assert_allclose(read.up, adapter.up, rtol=1e-6)  # float32 on disk
    np.testing.assert_allclose(read.down, adapter.down, rtol=1e-6)
    vector = rng.normal(size=8)
    unit = vector / np.linalg.norm(vector)
    expected = unit + adapter.up @ adapter.down @ unit
    np.testing.assert_allclose(adapter.apply(vector), expected / np.linalg.norm(expected))


def test_the_reranker_ranks_with_the_adapted_question() -> None:
    raw = ArticleReranker(HashEmbeddings(), _lookup)
    assert raw.rank(QUESTION, list(TEXTS), 3)[0] == "刑法:133-1"
    moved = ArticleReranker(HashEmbeddings(), _lookup, _towards("hash", QUESTION, TEXTS["刑法:234"]))
    assert moved.rank(QUESTION, list(TEXTS), 3)[0] == "刑法:234"


def test_the_loader_applies_only_an_adapter_learned_for_its_model(
    tmp_path: Path, reranker_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("tools.retrieval.reranker.load_embeddings", lambda spec: HashEmbeddings())
    name = HashEmbeddings().name
    for model, first in ((name, "刑法:234"), ("embeddinggemma-300m-768", "刑法:133-1")):
        path = tmp_path / f"{model}.json"
        write_fitted(path, _towards(model, QUESTION, TEXTS["刑法:234"]).values(), {})
        loader = RerankerLoader(reranker_dir, VectorCache(tmp_path / "v.sqlite"), _lookup, seeds=(), adapter=path)
        with caplog.at_level(logging.WARNING):
            reranker = loader.get()
        assert reranker is not None and reranker.rank(QUESTION, list(TEXTS), 3)[0] == first
    assert [r.message for r in caplog.records] == [
        f"query adapter {tmp_path / 'embeddinggemma-300m-768.json'} was learned for embeddinggemma-300m-768, "
        f"not {name}: not applied"
    ]
    assert adapter_for(tmp_path / "absent.json", name) is None and adapter_for(None, name) is None


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"rank": None}, "needs model, rank and dimensions"),
        ({"rank": 0}, "make no adapter"),
        ({"up": "not base64!"}, "'up' is not base64 float32 numbers"),
        ({"down": "AAAAAA=="}, "'down' holds 1 numbers, not a finite (1, 4) matrix"),
    ],
)
def test_a_damaged_adapter_file_is_named(tmp_path: Path, change: dict[str, object], named: str) -> None:
    values = {**QueryAdapter("m", np.ones((4, 1)), np.ones((1, 4))).values(), **change}
    path = tmp_path / "adapter.json"
    path.write_text(json.dumps(values), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(named)) as raised:
        adapter_for(path, "m")
    assert str(path) in str(raised.value)


def test_the_adapter_is_the_shipped_one_off_or_the_users(tmp_path: Path) -> None:
    assert adapter_file(Settings(data_dir=tmp_path).query_adapter) == BUNDLED_ADAPTER
    assert adapter_file(Settings(data_dir=tmp_path, query_adapter="off").query_adapter) is None
    assert adapter_file(str(tmp_path / "a.json")) == tmp_path / "a.json"


def test_the_shipped_adapter_is_for_the_shipped_reranker_vectors() -> None:
    adapter = read_query_adapter(BUNDLED_ADAPTER)
    assert adapter.model == vector_file_model(BUNDLED_RERANK_VECTORS)
    assert adapter.up.shape[0] == adapter.down.shape[1] and adapter.up.shape[1] == adapter.down.shape[0]


@pytest.mark.usefixtures("active_kb")  # whose reranker is not installed
def test_cached_question_vectors_are_reused_and_another_models_are_not(tmp_path: Path) -> None:
    cache = tmp_path / "q.npz"
    texts = ["问题一", "问题二"]
    np.savez(cache, model=np.array("m"), digests=np.array([text_digest(t) for t in texts]), vectors=np.eye(2) * 3)
    np.testing.assert_allclose(fit_adapter.question_vectors(texts[::-1], "m", cache), np.eye(2)[::-1])
    with pytest.raises(InputError, match="cannot embed 2 questions"):
        fit_adapter.question_vectors(texts, "another-model", cache)


def test_a_learned_adapter_ranks_the_gold_articles_higher() -> None:
    pytest.importorskip("torch")  # the reranker's dependency, not the test install's
    rng = np.random.default_rng(1)
    dim, count = 16, 12
    vectors = rng.normal(size=(count, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"民法典:{n}" for n in range(count)]
    articles = fit_adapter.Articles("m", ids, {a: n for n, a in enumerate(ids)}, vectors)
    # Every question sits nearest article 0 but a lawyer cites article 1: a shift the adapter can learn.
    q = np.stack([vectors[0] + 0.1 * rng.normal(size=dim) for _ in range(30)])
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    pool = list(range(count))
    questions = [fit_adapter.Question(f"c{n}", "f", "tune", {}, ["民法典:1"], pool, "") for n in range(30)]
    assert [fit_adapter.reranked(v, pool, articles, None)[0] for v in q].count("民法典:1") < 5
    learned = fit_adapter.learn(questions, q, articles, rank=2, l2=0.0)
    assert [fit_adapter.reranked(v, pool, articles, learned)[0] for v in q].count("民法典:1") > 25


def test_no_tuning_item_is_ranked_by_an_adapter_that_learned_from_it(monkeypatch: pytest.MonkeyPatch) -> None:
    learned_from: dict[int, set[str]] = {}

    def learn(questions: Sequence[fit_adapter.Question], *_: object) -> QueryAdapter:
        adapter = QueryAdapter(f"m{len(learned_from)}", np.zeros((2, 1)), np.zeros((1, 2)))
        learned_from[id(adapter)] = {x.id for x in questions}
        return adapter

    monkeypatch.setattr(fit_adapter, "learn", learn)
    monkeypatch.setattr(fit_adapter, "reranked", lambda vector, pool, articles, adapter: [str(id(adapter))])
    questions = [fit_adapter.Question(f"c{n}", "f", ("tune", "report")[n % 2], {}, [], [], "") for n in range(40)]
    articles = fit_adapter.Articles("m", [], {}, np.zeros((0, 2)))
    whole = QueryAdapter("whole", np.zeros((2, 1)), np.zeros((1, 2)))
    rows = fit_adapter.cross_fitted(questions, np.zeros((40, 2)), articles, whole, "fold", 1, 0.0)["f"]
    used = [int(rankings[fit_adapter.RERANKED][0]) for _, rankings, _ in rows]
    assert len(learned_from) == 2 and all(0 < len(ids) < 20 for ids in learned_from.values())
    for question, adapter in zip(questions, used, strict=True):
        if question.half == "report":
            assert adapter == id(whole)
        else:
            assert question.id not in learned_from[adapter]
