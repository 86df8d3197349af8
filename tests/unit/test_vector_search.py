"""A vector search finds the exact nearest documents, the same in every process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chromadb
import numpy as np
from chromadb.config import Settings as ChromaSettings

from tools.llm.embeddings import HashEmbeddings
from tools.retrieval.vectors import SEARCH_EF, STATUTES, ChromaVectors
from tools.settings import Settings

# 900 texts of the Criminal Law's own characters, drawn by a fixed seed: a collection under Chroma's sync threshold,
# whose index each process rebuilds by several threads, and near-random vectors, which HNSW finds hardest.
_CHARS = "盗窃抢劫诈骗敲诈勒索故意伤害交通肇事危险驾驶醉酒机动车公私财物数额较大巨大处三年以下有期徒刑拘役管制并处罚金"
_DRAW = np.random.default_rng(58)
TEXTS = ["".join(_DRAW.choice(list(_CHARS), 30)) for _ in range(900)]
QUERIES = ["".join(_DRAW.choice(list(_CHARS), 12)) for _ in range(20)]
NEAREST = """
import json, sys
from tools.llm.embeddings import HashEmbeddings

from tools.retrieval.vectors import SEARCH_EF, STATUTES, ChromaVectors
from tools.settings import Settings
from pathlib import Path
store = ChromaVectors(Settings(data_dir=Path(sys.argv[1]), embeddings="hash"), HashEmbeddings())
print(json.dumps([[h.id for h in store.search(STATUTES, q, 20)] for q in json.loads(sys.argv[2])]))
"""


def _similarities(query: str) -> np.ndarray:
    """Every text's cosine similarity to ``query`` (the hash embeddings are unit vectors)."""
    embeddings = HashEmbeddings()
    return np.asarray(embeddings.embed_documents(TEXTS)) @ np.asarray(embeddings.embed_query(query))


def test_every_process_finds_the_exact_nearest_documents(tmp_path: Path) -> None:

    store = ChromaVectors(Settings(data_dir=tmp_path, embeddings="hash"), HashEmbeddings())
    store.upsert(STATUTES, [str(i) for i in range(len(TEXTS))], TEXTS, [{"law": "刑法"}] * len(TEXTS))
    similarities = [_similarities(q) for q in QUERIES]
    # The 20 best similarities, every text compared: texts tied at the 20th may stand for one another.
    exact = [np.round(np.sort(s)[::-1][:20], 5).tolist() for s in similarities]
    for _ in range(3):  # each a new process, its index built anew
        run = subprocess.run(
            [sys.executable, "-c", NEAREST, str(tmp_path), json.dumps(QUERIES)],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parents[2],
        )
        assert run.returncode == 0, run.stderr[-2000:]
        found = json.loads(run.stdout)
        pairs = zip(similarities, found, strict=True)
        assert [np.round(np.sort(s[[int(i) for i in ids]])[::-1], 5).tolist() for s, ids in pairs] == exact


def test_a_collection_made_before_the_search_breadth_was_set_is_raised_to_it(tmp_path: Path) -> None:
    def client() -> chromadb.ClientAPI:
        return chromadb.PersistentClient(
            path=str(tmp_path / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
        )

    client().get_or_create_collection(STATUTES, metadata={"hnsw:space": "cosine", "embedding_model": "hash-256"})
    store = ChromaVectors(Settings(data_dir=tmp_path, embeddings="hash"), HashEmbeddings())
    assert store.count(STATUTES) == 0
    reopened = client().get_collection(STATUTES)
    assert reopened.configuration["hnsw"]["ef_search"] == SEARCH_EF
    assert reopened.configuration["hnsw"]["space"] == "cosine"
