"""The sparse BM25 index scores as rank_bm25's BM25Okapi, which the retrieval figures were measured with."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from rank_bm25 import BM25Okapi

from tools.retrieval.lexical import LexicalIndex, tokenize


def _corpus(seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(200)]
    # Skewed vocabularies give common words (negative idf, floored) and rare ones; some documents are empty.
    docs = [[rng.choice(words[: rng.randint(3, 200)]) for _ in range(rng.randint(0, 40))] for _ in range(500)]
    return [f"d{i:04d}" for i in range(len(docs))], docs


@pytest.mark.parametrize("seed", [1, 2])
def test_scores_and_order_equal_bm25okapi(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    ids, docs = _corpus(seed)
    index = LexicalIndex.from_tokens(ids, docs)
    reference = BM25Okapi([d or ["∅"] for d in docs])
    for query in (["w1", "w2", "w2", "w150"], ["w0"], ["w3", "w199", "unknown"]):
        monkeypatch.setattr("tools.retrieval.lexical.tokenize", lambda _text, q=query: q)
        scores = reference.get_scores(query)
        expected = [(ids[i], s) for i, s in sorted(enumerate(scores), key=lambda p: -p[1]) if s > 0][:10]
        found = index.search("…", 10)
        assert [i for i, _ in found] == [i for i, _ in expected]
        assert [s for _, s in found] == pytest.approx([s for _, s in expected])


def test_a_query_of_unknown_words_finds_nothing() -> None:
    index = LexicalIndex.from_tokens(["a"], [tokenize("盗窃公私财物")])
    assert index.search("量子纠缠", 5) == []
    assert LexicalIndex.from_tokens([], []).search("盗窃", 5) == []


def test_the_cached_index_is_the_built_one_and_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    ids = ["刑法:264", "刑法:266", "刑法:133-1"]
    texts = ["盗窃公私财物，数额较大的", "诈骗公私财物，数额较大的", "醉酒驾驶机动车的"]
    built = LexicalIndex.build(ids, lambda: texts, "f1", tmp_path)
    (cache,) = tmp_path.glob("bm25-statutes-f1-*.npz")
    loaded = LexicalIndex.build(ids, lambda: pytest.fail("texts read on a cache hit"), "f1", tmp_path)
    assert loaded.search("秘密窃取他人财物构成盗窃", 2) == built.search("秘密窃取他人财物构成盗窃", 2)
    assert loaded.search("盗窃", 2)[0][0] == "刑法:264"
    cache.write_bytes(cache.read_bytes()[:100])
    rebuilt = LexicalIndex.build(ids, lambda: texts, "f1", tmp_path)
    assert rebuilt.search("诈骗", 1)[0][0] == "刑法:266"
    # Another fingerprint replaces the file: one index per collection on disk.
    LexicalIndex.build(ids, lambda: texts, "f2", tmp_path)
    assert [p.name.split("-")[2] for p in tmp_path.glob("bm25-statutes-*")] == ["f2"]


def test_a_build_leaves_another_writers_temporary_file_and_removes_an_abandoned_one(tmp_path: Path) -> None:
    # An ingestion beside askers: another process is writing the next cache while this one builds its own.
    writing = tmp_path / "bm25-statutes-f9-v9.npz.4242.tmp"
    abandoned = tmp_path / "bm25-statutes-f8-v9.npz.4141.tmp"
    writing.write_bytes(b"partial")
    abandoned.write_bytes(b"partial")
    os.utime(abandoned, (time.time() - 2 * 3600,) * 2)
    LexicalIndex.build(["刑法:264"], lambda: ["盗窃公私财物"], "f1", tmp_path)
    assert writing.exists() and not abandoned.exists()
    assert len(list(tmp_path.glob("bm25-statutes-f1-*.npz"))) == 1


def test_one_judgment_stored_once_per_defendant_is_found_once() -> None:
    theft, copy, fraud = tokenize("被告人盗窃电动车一辆"), tokenize("被告人盗窃电动车一辆"), tokenize("被告人诈骗钱款")
    others = [tokenize(text) for text in ("交通肇事致一人死亡", "故意伤害致人轻伤", "非法采矿", "开设赌场", "受贿")]
    index = LexicalIndex.from_tokens(["a1", "a2", "b", *"vwxyz"], [theft, copy, fraud, *others])
    assert [i for i, _ in index.search("盗窃电动车", 2)] == ["a1", "a2"]
    assert [i for i, _ in index.search("盗窃电动车", 2, distinct=True)] == ["a1"]  # b shares no word
    assert [i for i, _ in index.search("被告人盗窃电动车", 2, distinct=True)] == ["a1", "b"]
    assert index.identical("被告人盗窃电动车一辆") == {"a1", "a2"}
    assert [i for i, _ in index.search("被告人盗窃电动车一辆", 3, skip_identical=True)] == ["b"]
