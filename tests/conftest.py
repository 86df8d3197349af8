"""Shared fixtures: an isolated data dir, one embedded FalkorDB server for the session (the engine users run), and
on it the Criminal Law ingested twice, each in a graph of its own: one for the unit tests, one for the integration
tests. A test wanting a store of its own gets a new graph on the same server (``new_graph``)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import pytest

from agents.state.consult import EvidenceItem
from tools.corpus.laws_db import default_db_path, list_laws, load_articles, resolve_laws
from tools.corpus.regulations import load_regulations
from tools.kb import open_graph_store
from tools.kb.port import GraphStore
from tools.pipelines.ingestion import ingest_laws
from tools.services import Services, build_services, set_services
from tools.settings import Settings

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

# Embedded servers of finished test commands are retired soon, not after the default ten minutes. Set for the
# whole process, not per test: session and module fixtures (the shared KB, the CLI runs' data dirs) start
# their servers before any per-test setting applies, and theirs outlived the test run by ten minutes.
os.environ["JURIS_FALKORDB_IDLE_S"] = "20"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test touches the user's data dir, a real model, or a configured Neo4j/Chroma server."""
    monkeypatch.setenv("JURIS_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    monkeypatch.setenv("JURIS_MODEL", "fake")
    monkeypatch.setenv("JURIS_EMBEDDINGS", "hash")
    for name in (
        "CHROMA_HOST",
        "JURIS_FALKORDB_HOST",
        "JURIS_FALKORDB_PORT",
        "JURIS_MODEL_PATH",
        "JURIS_RERANKER",
        "JURIS_FAKE_SCRIPT",
        "JURIS_PACK",
        "JURIS_CHECKPOINT_URI",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def kb_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings of the session's knowledge base (hash embeddings, embedded FalkorDB)."""
    return Settings(
        data_dir=tmp_path_factory.mktemp("kb"),
        embeddings="hash",
        neo4j_uri="",
        falkordb_host="",
        falkordb_port=0,
        chroma_host="",
        graph_name="session_kb",
    )


@pytest.fixture(scope="session")
def kb(kb_settings: Settings) -> Iterator[Services]:
    """Services over a knowledge base holding the whole Criminal Law, built once per session."""
    services = build_services(kb_settings)
    laws = resolve_laws(["刑法"], list_laws())
    ingest_laws(laws, services.vectors, services.statutes, batch_size=128)
    yield services
    services.close()


@pytest.fixture(scope="session")
def new_graph(kb_settings: Settings) -> Iterator[Callable[[], GraphStore]]:
    """Make an empty graph of its own on the session's server: a store reaching the server through the session
    data dir, so a server its watchdog retired between two tests is started again with every graph it held."""
    names: list[str] = []

    def make() -> GraphStore:
        names.append(f"g_{uuid.uuid4().hex[:12]}")
        return open_graph_store(replace(kb_settings, graph_name=names[-1]))

    yield make
    # Emptied through stores of their own: a test may have closed the one it was given.
    for name in names:
        store = open_graph_store(replace(kb_settings, graph_name=name))
        store.clear()
        store.close()


@pytest.fixture(scope="session")
def criminal_kb(tmp_path_factory: pytest.TempPathFactory, new_graph: Callable[[], GraphStore]) -> Iterator[Services]:
    """The Criminal Law in Chroma (hash embeddings) and in a graph of its own on the session's server: the unit
    tests' knowledge base, apart from the integration tests' ``kb``."""
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("criminal_kb"), embeddings="hash", neo4j_uri="", chroma_host=""
    )
    services = build_services(settings, graph=new_graph())
    ingest_laws(resolve_laws(["刑法"], list_laws()), services.vectors, services.statutes, batch_size=128)
    yield services
    services.close()


@pytest.fixture
def active_kb(kb: Services) -> Iterator[Services]:
    """Make the session knowledge base the one graph nodes use."""
    set_services(kb)
    yield kb
    set_services(None)


@pytest.fixture
def fresh_services(kb: Services, kb_settings: Settings, tmp_path: Path) -> Iterator[Services]:
    """Empty stores of their own (own Chroma dir, own graph) on the session's FalkorDB server (``kb`` starts it)."""
    settings = replace(kb_settings, data_dir=tmp_path, graph_name=f"t_{tmp_path.name}")
    # Reuse the session server rather than starting one per test.
    settings.falkordb_dir.mkdir(parents=True, exist_ok=True)
    for name in ("port", "pid", "password"):
        (settings.falkordb_dir / name).write_text((kb_settings.falkordb_dir / name).read_text())
    services = build_services(settings)
    yield services
    services.graph.clear()
    services.close()


def evidence_item(article_id: str, support: float = 0.0, passes: bool = False) -> EvidenceItem:
    """An evidence article as LawSearch records it, without text, with the keeper's ``support``."""
    return {
        "article_id": article_id,
        "heading": "",
        "text": "",
        "score": 0.0,
        "sources": [],
        "support": support,
        "passes": passes,
        "signals": {},
        "similar": 0,
    }


@lru_cache(maxsize=1)
def article_texts() -> dict[str, str]:
    """Every article's text by id: the laws of laws.db and the shared administrative regulations."""
    texts = {a.id: a.text for law in list_laws() for a in load_articles(law)}
    regulations = load_regulations(SHARED_DATA / "zh" / "regulations")
    return texts | {a.id: a.text for _, articles in regulations.laws for a in articles}


def laws_db_text(law_name: str, article_no: str) -> str:
    """The article text exactly as laws.db stores it (the ground truth for verbatim checks)."""
    with sqlite3.connect(default_db_path()) as conn:
        row = conn.execute(
            "SELECT a.article_text FROM articles a JOIN laws l ON a.law_id = l.law_id "
            "WHERE l.law_name = ? AND a.article_no = ? AND l.status IN ('现行有效', '已被修改')",
            (law_name, article_no),
        ).fetchone()
    assert row is not None, (law_name, article_no)
    return str(row[0])


def _cli_env(data_dir: Path, env: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "JURIS_DATA_DIR": str(data_dir), "JURIS_MODEL": "fake", "JURIS_EMBEDDINGS": "hash", **env}


def run_cli(*args: str, data_dir: Path, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``jurisgraph`` command as a user would, on the fake model and hash embeddings. A command
    still running after ``timeout`` fails the test with every thread's Python stack: a hang is named where it is
    (CI's one hang printed only the test's own wait)."""
    exe = Path(sys.executable).with_name("jurisgraph")
    assert exe.is_file(), "the jurisgraph entry point is not installed"
    command = [str(exe), *args]
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**_cli_env(data_dir, env), "PYTHONFAULTHANDLER": "1"},
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # faulthandler writes every thread's stack to stderr on SIGABRT, then the process ends.
            process.send_signal(signal.SIGABRT)
            try:
                _, stderr = process.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                _, stderr = process.communicate()
            pytest.fail(f"{' '.join(args)} still ran after {timeout:.0f} s; its stacks:\n{stderr[-20000:]}")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
