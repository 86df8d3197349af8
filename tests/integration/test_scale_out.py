"""The scale-out path on loopback: two users' CLIs (separate data dirs, as on two machines) share one FalkorDB
server, one Chroma server (`chroma run`) and one PostgreSQL checkpointer, selected by environment variables
alone. Neo4j, the third shared store, has its contract tests in test_kg_contract.py (they need NEO4J_URI)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import chromadb
import pytest

from tests.conftest import laws_db_text, run_cli
from tests.servers import chroma_server, free_port, postgres_bin, postgres_server
from tools.kb.embedded import ensure_server
from tools.retrieval.vectors import STATUTES

pytestmark = pytest.mark.integration

FIRST = "醉酒驾驶机动车会受到什么处罚？"
FOLLOW_UP = "如果还撞伤了人呢？"


@pytest.fixture(scope="module")
def team_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Environment variables that point a CLI at the team's shared servers."""
    if postgres_bin() is None:
        pytest.fail("PostgreSQL server programs are missing: apt-get install postgresql (.ci/run does)")
    root = tmp_path_factory.mktemp("team")
    graph_server = ensure_server(root / "falkordb")
    try:
        with chroma_server(root / "chroma") as chroma_port, postgres_server() as pg_uri:
            yield {
                "JURIS_FALKORDB_HOST": "127.0.0.1",
                "JURIS_FALKORDB_PORT": str(graph_server.port),
                "JURIS_FALKORDB_PASSWORD": graph_server.password,
                "CHROMA_HOST": "127.0.0.1",
                "CHROMA_PORT": str(chroma_port),
                "JURIS_CHECKPOINT_URI": pg_uri,
            }
    finally:
        graph_server.stop()


def test_two_users_share_the_knowledge_base_and_a_conversation(team_env: dict[str, str], tmp_path: Path) -> None:
    alice, bob = tmp_path / "alice", tmp_path / "bob"

    ingested = run_cli("ingest", data_dir=alice, **team_env)
    assert ingested.returncode == 0, ingested.stderr
    assert "505 articles added" in ingested.stdout
    client = chromadb.HttpClient(host="127.0.0.1", port=int(team_env["CHROMA_PORT"]))
    assert client.get_collection(STATUTES).count() == 505
    again = run_cli("ingest", data_dir=bob, **team_env)
    assert again.returncode == 0, again.stderr
    assert "Nothing to do: all 505 articles" in again.stdout  # Bob sees Alice's ingestion

    first = run_cli("ask", "--thread", "case-7", "--json", FIRST, data_dir=alice, **team_env)
    assert first.returncode == 0, first.stderr
    basis = {item["article_id"]: item["text"] for item in json.loads(first.stdout)["legal_basis"]}
    assert basis["刑法:133-1"] == laws_db_text("中华人民共和国刑法", "第一百三十三条之一")

    second = run_cli("ask", "--thread", "case-7", "--json", FOLLOW_UP, data_dir=bob, **team_env)
    assert second.returncode == 0, second.stderr
    listed = run_cli("threads", "--json", data_dir=bob, **team_env)
    assert listed.returncode == 0, listed.stderr
    (thread,) = [t for t in json.loads(listed.stdout) if t["thread_id"] == "case-7"]
    assert thread["turns"] == 2 and thread["last_question"] == FOLLOW_UP

    # Nothing was written locally: no Chroma files, no SQLite threads, no graph server of their own.
    for user in (alice, bob):
        assert not (user / "chroma").exists() and not (user / "threads.sqlite").exists()
        assert not (user / "falkordb").exists()


def test_unreachable_checkpointer_fails_with_exit_code_3_without_leaking_the_password(tmp_path: Path) -> None:
    port = free_port()
    result = run_cli(
        "ask",
        "--thread",
        "t",
        FIRST,
        data_dir=tmp_path,
        JURIS_CHECKPOINT_URI=f"postgresql://juris:s3cret@127.0.0.1:{port}/threads?connect_timeout=3",
    )
    assert result.returncode == 3
    assert f"cannot open the PostgreSQL checkpointer at 127.0.0.1:{port}/threads" in result.stderr
    assert "s3cret" not in result.stderr and "Traceback" not in result.stderr


def test_checkpoint_uri_must_be_postgresql(tmp_path: Path) -> None:
    result = run_cli("threads", data_dir=tmp_path, JURIS_CHECKPOINT_URI="mysql://localhost/threads")
    assert result.returncode == 2
    assert "JURIS_CHECKPOINT_URI must be a postgresql:// URI" in result.stderr
