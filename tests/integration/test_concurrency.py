"""Several processes on one data dir at once: askers while another asks, an ingestion while others ask, and an
ingestion killed with -9 beside them. `make stress` runs the same scenarios with more processes
(JURIS_STRESS_ASKERS) and prints the counts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import _cli_env, run_cli
from tools.kb import open_graph_store
from tools.settings import Settings

pytestmark = pytest.mark.integration

ASKERS = int(os.environ.get("JURIS_STRESS_ASKERS", "4"))
QUESTION = "刑法第二百六十四条规定了什么？"
LAW = "道路交通安全法"


def _start(*args: str, data_dir: Path, **env: str) -> subprocess.Popen[str]:
    exe = Path(sys.executable).with_name("jurisgraph")
    return subprocess.Popen(
        [str(exe), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_cli_env(data_dir, env)
    )


def _articles(data_dir: Path, law: str) -> int:
    """Articles of ``law`` in the data dir's graph, read as another process would."""
    store = open_graph_store(Settings(data_dir=data_dir, embeddings="hash"))
    try:
        return int(store.read("MATCH (a:Article {law: $law}) RETURN count(a) AS n", {"law": law})[0]["n"])
    finally:
        store.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("shared")
    assert run_cli("ingest", data_dir=data_dir).returncode == 0
    return data_dir


def _finish(proc: subprocess.Popen[str], timeout: float = 600) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def test_askers_and_an_ingestion_at_once_all_finish(shared: Path) -> None:
    # Two askers used to fail in 2 of 3 tries ("Connection refused": the first one to finish stopped the
    # server it had started), and an ingestion beside an asker died at 633 of 1,889 articles.
    procs = [_start("ask", "--json", QUESTION, data_dir=shared) for _ in range(ASKERS)]
    ingest = _start("ingest", "--laws", LAW, data_dir=shared)
    results = [_finish(p) for p in procs]
    code, out, err = _finish(ingest)
    assert code == 0, err
    for rc, stdout, stderr in results:
        assert rc == 0, stderr
        assert json.loads(stdout)["legal_basis"][0]["article_id"] == "刑法:264"
    added = int(out.split(" articles added")[0].split()[-1])
    print(f"\n{ASKERS} askers: all answered 刑法:264; ingestion beside them: {added} articles of {LAW} added")
    assert added == _articles(shared, LAW) > 0


def test_an_ingestion_killed_beside_askers_completes_on_rerun(shared: Path) -> None:
    law = "劳动合同法"
    askers = [_start("ask", "--json", QUESTION, data_dir=shared) for _ in range(max(2, ASKERS // 2))]
    # One article per batch, killed once a few are stored: the kill lands mid-ingestion.
    ingest = _start("ingest", "--laws", law, data_dir=shared, JURIS_INGEST_BATCH="1")
    deadline = time.monotonic() + 120
    while _articles(shared, law) < 5 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ingest.poll() is None, "the ingestion finished before it could be killed"
    ingest.send_signal(signal.SIGKILL)
    ingest.wait()
    killed_at = _articles(shared, law)
    for proc in askers:
        rc, stdout, stderr = _finish(proc)
        assert rc == 0, stderr
        assert json.loads(stdout)["legal_basis"][0]["article_id"] == "刑法:264"
    rerun = run_cli("ingest", "--laws", law, data_dir=shared)
    assert rerun.returncode == 0, rerun.stderr
    again = run_cli("ingest", "--laws", law, data_dir=shared)
    stored = _articles(shared, law)
    print(f"\ningestion of {law} killed at {killed_at} articles, completed by a rerun: {stored}; then {again.stdout}")
    assert f"Nothing to do: all {stored} articles" in again.stdout


def test_a_huge_case_line_is_refused_at_once_and_a_stopped_ingestion_ends_within_seconds(tmp_path: Path) -> None:
    # A 3-million-character fact kept the embedding busy for minutes, deaf to SIGTERM (issue 42).
    huge = tmp_path / "huge.jsonl"
    row = {"fact": "被告人" * 1_000_000, "articles": [264], "charges": ["盗窃"]}
    huge.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    started = time.monotonic()
    refused = run_cli("ingest", "--cases", str(huge), data_dir=tmp_path / "data")
    assert refused.returncode == 5 and "huge.jsonl:1: malformed case: field fact" in refused.stderr
    assert time.monotonic() - started < 60 and "Traceback" not in refused.stderr
    # A long ingestion told to stop ends with 130 within the grace, whatever call it is in.
    env = _cli_env(tmp_path / "data", {})
    exe = Path(sys.executable).with_name("jurisgraph")
    proc = subprocess.Popen([str(exe), "ingest", "--all"], env=env, stderr=subprocess.PIPE, text=True)
    time.sleep(8)
    proc.send_signal(signal.SIGTERM)
    stopped = time.monotonic()
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - stopped < 8
    assert "interrupted: nothing is lost" in stderr


def _consultations(data_dir: Path) -> int:
    """Answered consultations in the data dir's vector store, read as another process would."""
    from tools.llm.embeddings import load_embeddings
    from tools.retrieval.vectors import CONSULTATIONS, ChromaVectors

    settings = Settings(data_dir=data_dir, embeddings="hash")
    vectors = ChromaVectors(settings, load_embeddings("hash"))
    return vectors.count(CONSULTATIONS) if CONSULTATIONS in vectors.collections() else 0


def _answered(path: Path, source: str, count: int) -> Path:
    lines = [
        {
            "id": f"{source}{i}",
            "question": f"第{i}次在商场偷了别人的手机，会怎么处理？",
            "answer": "依照《中华人民共和国刑法》第二百六十四条处理。",
        }
        for i in range(count)
    ]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def test_askers_beside_a_consultations_ingestion_all_answer(shared: Path, tmp_path: Path) -> None:
    # Issue 64: four asks during `ingest --consultations` all exited 3 ("Error finding id"): a reader that opened
    # the store before the ingestion synced its index (every 1,000 vectors it adds) no longer finds the rows.
    first = run_cli("ingest", "--consultations", str(_answered(tmp_path / "a.jsonl", "a", 200)), data_dir=shared)
    assert first.returncode == 0, first.stderr
    more = _answered(tmp_path / "b.jsonl", "b", 1300)
    ingest = _start("ingest", "--consultations", str(more), data_dir=shared, JURIS_INGEST_BATCH="20")
    deadline = time.monotonic() + 120
    while _consultations(shared) < 260 and time.monotonic() < deadline:
        time.sleep(0.2)
    askers = [_start("ask", "--json", QUESTION, data_dir=shared) for _ in range(ASKERS)]
    results = [_finish(p) for p in askers]
    code, _, err = _finish(ingest)
    assert code == 0, err
    stored = _consultations(shared)
    for rc, stdout, stderr in results:
        assert rc == 0, stderr
        assert json.loads(stdout)["legal_basis"][0]["article_id"] == "刑法:264"
    print(f"\n{ASKERS} askers beside an ingestion of 1,300 consultations into 200: all answered; {stored} stored")
    assert stored == 1500
