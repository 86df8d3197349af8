"""The reranker's nearest statutes: every article whose vector is known is searched (none is embedded for it),
the matrix is kept per state of the statutes collection, and LawSearch records the search as its own source."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tools.llm.embeddings import HashEmbeddings
from tools.retrieval.nearest_statutes import NearestStatutes
from tools.retrieval.reranker import NEAREST, RERANKED, ArticleReranker
from tools.retrieval.vector_cache import (
    DocumentCachedEmbeddings,
    VectorCache,
    VectorFile,
    text_digest,
    write_vector_file,
)

TEXTS = {
    "民法典:1063": "下列财产为夫妻一方的个人财产：（一）一方的婚前财产",
    "民法典:538": "债务人以放弃其债权、无偿转让财产等方式无偿处分财产权益，影响债权人的债权实现的，可以请求撤销",
    "民法典:577": "当事人一方不履行合同义务的，应当承担继续履行、采取补救措施或者赔偿损失等违约责任",
    "刑法:264": "盗窃公私财物，数额较大的，或者多次盗窃、入户盗窃",
}


class Counting(HashEmbeddings):
    """Hash embeddings that count the documents they embed."""

    embedded: int = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return super().embed_documents(texts)


def _lookup(ids: Sequence[str]) -> dict[str, str]:
    return {i: TEXTS[i] for i in ids if i in TEXTS}


def _embeddings(tmp_path: Path, known: Sequence[str]) -> tuple[DocumentCachedEmbeddings, Counting]:
    """Cached embeddings whose shipped file holds the vectors of ``known`` (by the same hash model)."""
    inner = Counting()
    seeds = tmp_path / "seed.npz"
    vectors = np.asarray(inner.embed_documents([TEXTS[a] for a in known]), dtype=np.float32)
    write_vector_file(seeds, VectorFile(inner.name, [text_digest(TEXTS[a]) for a in known], vectors))
    inner.embedded = 0
    return DocumentCachedEmbeddings(inner, VectorCache(tmp_path / "v.sqlite"), [seeds]), inner


def test_the_nearest_of_the_articles_with_a_known_vector_and_none_embedded(tmp_path: Path) -> None:
    known = ["民法典:1063", "民法典:538", "民法典:577"]
    cached, inner = _embeddings(tmp_path, known)
    search = NearestStatutes(cached, lambda: ("s1", sorted(TEXTS)), _lookup, tmp_path / "cache")
    query = np.asarray(inner.embed_query(TEXTS["民法典:538"]))
    found = search.nearest(query, 2)
    assert found[0][0] == "民法典:538" and found[0][1] == pytest.approx(float(query @ query), rel=1e-3)
    assert len(found) == 2 and found[0][1] >= found[1][1]
    # 刑法:264 has no known vector: never searched, never embedded for the search.
    assert {a for a, _ in search.nearest(query, 10)} == set(known) and inner.embedded == 0
    assert search.nearest(query, 0) == []


def test_the_matrix_is_kept_per_state_and_rebuilt_when_the_statutes_change(tmp_path: Path) -> None:
    cached, inner = _embeddings(tmp_path, ["民法典:1063", "民法典:538"])
    query = np.asarray(inner.embed_query(TEXTS["民法典:1063"]))
    NearestStatutes(cached, lambda: ("s1", sorted(TEXTS)), _lookup, tmp_path / "cache").nearest(query, 1)
    assert len(list((tmp_path / "cache").glob("nearest-*-s1.npz"))) == 1

    def unread(ids: Sequence[str]) -> dict[str, str]:
        raise AssertionError("a kept matrix is read, not collected again")

    kept = NearestStatutes(cached, lambda: ("s1", sorted(TEXTS)), unread, tmp_path / "cache")
    assert kept.nearest(query, 1)[0][0] == "民法典:1063"
    # A new state (an article added, its vector computed since) collects again and removes the old file.
    cached.embed_documents([TEXTS["民法典:577"]])
    changed = NearestStatutes(cached, lambda: ("s2", sorted(TEXTS)), _lookup, tmp_path / "cache")
    assert "民法典:577" in {a for a, _ in changed.nearest(query, 5)}
    assert [p.name.rsplit("-", 1)[1] for p in (tmp_path / "cache").glob("nearest-*")] == ["s2.npz"]


def test_a_damaged_matrix_file_is_rebuilt(tmp_path: Path) -> None:
    cached, inner = _embeddings(tmp_path, ["民法典:1063"])
    query = np.asarray(inner.embed_query(TEXTS["民法典:1063"]))
    first = NearestStatutes(cached, lambda: ("s1", sorted(TEXTS)), _lookup, tmp_path / "cache")
    first.nearest(query, 1)
    (kept,) = (tmp_path / "cache").glob("nearest-*")
    kept.write_bytes(b"not a matrix")
    again = NearestStatutes(cached, lambda: ("s1", sorted(TEXTS)), _lookup, tmp_path / "cache")
    assert again.nearest(query, 1)[0][0] == "民法典:1063"


def test_the_reranker_returns_its_nearest_statutes_beside_the_reranked_candidates(tmp_path: Path) -> None:
    cached, _ = _embeddings(tmp_path, ["民法典:1063", "民法典:538", "民法典:577"])
    search = NearestStatutes(cached, lambda: ("s1", sorted(TEXTS)), _lookup, None)
    reranker = ArticleReranker(cached, _lookup, nearest=search)
    ranked = reranker.rankings(TEXTS["民法典:538"], ["刑法:264", "民法典:577"], 2)
    # The candidates alone are reranked; the nearest statutes include what no other source found.
    assert set(ranked[RERANKED]) == {"刑法:264", "民法典:577"}
    assert ranked[NEAREST][0] == "民法典:538" and len(ranked[NEAREST]) == 2
    assert NEAREST not in ArticleReranker(cached, _lookup).rankings("问题", ["刑法:264"], 2)
