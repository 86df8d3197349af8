"""The jurisgraph command as a user runs it: real process, real stores, exit codes and messages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import laws_db_text
from tests.conftest import run_cli as _run
from tests.servers import free_port
from tools.kb.embedded import _alive

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli")


def test_ingest_is_idempotent_then_ask_answers_with_verbatim_basis(data_dir: Path) -> None:
    first = _run("ingest", data_dir=data_dir)
    assert first.returncode == 0, first.stderr
    assert "505 articles added" in first.stdout
    assert "statutes: 505/505 after" in first.stderr  # no terminal: progress as log lines
    assert re.search(r"Done in [\d.]+ s \(load_statutes [\d.]+ s\)", first.stdout)  # time per stage
    second = _run("ingest", "--laws", "中华人民共和国刑法", data_dir=data_dir)
    assert second.returncode == 0, second.stderr
    assert "Nothing to do: all 505 articles" in second.stdout

    asked = _run("ask", "--json", "醉酒驾驶机动车会受到什么处罚？", data_dir=data_dir)
    assert asked.returncode == 0, asked.stderr
    out = json.loads(asked.stdout)
    basis = {item["article_id"]: item["text"] for item in out["legal_basis"]}
    assert basis["刑法:133-1"] == laws_db_text("中华人民共和国刑法", "第一百三十三条之一")
    # The one article the evidence kept, its new checklist and verification. No draft, so no element graph for one:
    # the question asks for the punishment, and code quotes 133-1's tier for 醉酒驾驶 (profile='fast').
    nodes = [t["node"] for t in out["trace"]]
    assert out["usage"]["llm_calls"] == 2 and not {"draft_answer", "extract_elements"} & set(nodes)
    assert out["response"].startswith("依照《中华人民共和国刑法》第一百三十三条之一，醉酒驾驶机动车的，")
    assert "处拘役，并处罚金。" in out["response"]
    verdicts = {v["article_id"]: v for v in out["verdicts"]}
    assert len(verdicts) == len(out["evidence"]) and verdicts.pop("刑法:133-1")["applicable"]
    assert all(v["reason"].startswith("检索证据不足以作为依据") for v in verdicts.values())
    assert set(basis) == {"刑法:133-1"}

    pretty = _run("ask", "刑法第二百六十四条规定了什么？", data_dir=data_dir)
    assert pretty.returncode == 0, pretty.stderr
    assert "法律依据" in pretty.stdout and "[刑法:264]" in pretty.stdout
    assert laws_db_text("中华人民共和国刑法", "第二百六十四条")[:30] in pretty.stdout
    assert "Manager round 1: Pass" in pretty.stderr and "LLM calls " in pretty.stderr
    # Which laws the answer could draw on, and how to add the rest.
    assert "Knowledge base: 刑法 (1 of 353 laws); add others with `jurisgraph ingest --laws NAME`" in pretty.stderr
    # The embedded server this CLI started stays up for the next command: another process may be using it,
    # and its watchdog retires it once idle (tests/integration/test_embedded_server.py).
    assert _alive(int((data_dir / "falkordb" / "pid").read_text()))


def test_empty_and_oversized_questions_fail_with_exit_code_2(data_dir: Path) -> None:
    empty = _run("ask", "  ", data_dir=data_dir)
    assert empty.returncode == 2
    assert "the question is empty" in empty.stderr
    huge = _run("ask", "问" * 50, data_dir=data_dir, JURIS_MAX_QUESTION_CHARS="20")
    assert huge.returncode == 2
    assert "50 characters, more than the limit of 20" in huge.stderr
    assert "Traceback" not in empty.stderr + huge.stderr


def test_unknown_law_fails_with_exit_code_2(tmp_path: Path) -> None:
    result = _run("ingest", "--laws", "刑法,不存在法", data_dir=tmp_path)
    assert result.returncode == 2
    assert "unknown law name(s): '不存在法'" in result.stderr


def test_missing_model_file_fails_with_exit_code_4(data_dir: Path, tmp_path: Path) -> None:
    result = _run(
        "ask",
        "盗窃罪怎么判？",
        data_dir=data_dir,
        JURIS_MODEL="local",
        JURIS_MODEL_PATH=str(tmp_path / "absent.gguf"),
    )
    assert result.returncode == 4
    assert "absent.gguf not found" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_graph_store_fails_with_exit_code_3(tmp_path: Path) -> None:
    closed_port = free_port()
    result = _run(
        "ask",
        "盗窃罪怎么判？",
        data_dir=tmp_path,
        JURIS_FALKORDB_HOST="127.0.0.1",
        JURIS_FALKORDB_PORT=str(closed_port),
    )
    assert result.returncode == 3
    assert f"FalkorDB at 127.0.0.1:{closed_port} is not reachable" in result.stderr


def _ingest_until(tmp_path: Path, at_least: int) -> tuple[subprocess.Popen[bytes], int]:
    """Start `jurisgraph ingest` (one article per batch) and return once ``at_least`` articles are stored."""
    import time

    import falkordb

    exe = Path(sys.executable).with_name("jurisgraph")
    env = {**os.environ, "JURIS_DATA_DIR": str(tmp_path), "JURIS_EMBEDDINGS": "hash", "JURIS_INGEST_BATCH": "1"}
    proc = subprocess.Popen([str(exe), "ingest"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    port_file = tmp_path / "falkordb" / "port"
    written = 0
    deadline = time.monotonic() + 120
    while written < at_least and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if port_file.exists():
            try:
                password = (port_file.parent / "password").read_text()
                db = falkordb.FalkorDB(port=int(port_file.read_text()), password=password)
                graph = db.select_graph("jurisgraph")
                written = graph.ro_query("MATCH (a:Article) RETURN count(a)").result_set[0][0]
            except Exception:  # the graph does not exist until the first batch lands
                written = 0
    assert proc.poll() is None, "ingestion finished before it could be stopped"
    return proc, written


def test_sigterm_stops_ingestion_after_a_stored_batch(tmp_path: Path) -> None:
    import signal

    proc, written = _ingest_until(tmp_path, 50)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "re-run the same command to resume" in stderr.decode()
    resumed = _run("ingest", data_dir=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    added = int(resumed.stdout.split(" articles added")[0].split()[-1])
    assert 0 < added <= 505 - written  # what the stopped run stored is kept


def test_sigkilled_ingestion_resumes_without_duplicates(tmp_path: Path) -> None:
    import signal

    from tools.kb.embedded import EmbeddedServer

    proc, written = _ingest_until(tmp_path, 50)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # The server outlives the killed run (its watchdog retires it once idle): stop it here when done.
    server = tmp_path / "falkordb"
    orphan = EmbeddedServer(int((server / "port").read_text()), int((server / "pid").read_text()), server)
    try:
        assert 50 <= written < 505
        resumed = _run("ingest", data_dir=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        assert "articles added" in resumed.stdout and "unchanged" in resumed.stdout
        again = _run("ingest", data_dir=tmp_path)
        assert "Nothing to do: all 505 articles" in again.stdout
        ask = _run("ask", "--json", "刑法第二百六十四条规定了什么？", data_dir=tmp_path)
        assert json.loads(ask.stdout)["legal_basis"][0]["article_id"] == "刑法:264"
    finally:
        orphan.stop()


def test_checklists_command_generates_then_reuses(data_dir: Path) -> None:
    first = _run("checklists", "--laws", "刑法", "--limit", "3", data_dir=data_dir)
    assert first.returncode == 0, first.stderr
    assert "Checklists: 3 generated (0 from the article text where the model failed), 0 already stored" in first.stdout
    second = _run("checklists", "--laws", "刑法", "--limit", "3", data_dir=data_dir)
    assert "Checklists: 0 generated (0 from the article text where the model failed), 3 already stored" in second.stdout
    exported = _run("checklists", "--export", str(data_dir / "lists.jsonl"), data_dir=data_dir)
    assert exported.returncode == 0, exported.stderr
    lines = (data_dir / "lists.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 3  # the three above, and any the audits of earlier tests made
    assert f"Exported {len(lines)} checklists and 0 recorded failures" in exported.stdout
    imported = _run("checklists", "--import", str(data_dir / "lists.jsonl"), data_dir=data_dir)
    assert f"Imported {len(lines)} checklists and 0 recorded failures." in imported.stdout
    (data_dir / "bad.jsonl").write_text("[]\n", encoding="utf-8")
    bad = _run("checklists", "--import", str(data_dir / "bad.jsonl"), data_dir=data_dir)
    assert bad.returncode == 5 and "bad.jsonl:1: not a checklist line" in bad.stderr
    unknown = _run("checklists", "--laws", "民法典", data_dir=data_dir)
    assert unknown.returncode == 2 and "no ingested articles for '民法典'" in unknown.stderr


def test_vectors_move_to_another_data_dir_and_ingestion_there_embeds_nothing(data_dir: Path, tmp_path: Path) -> None:
    exported = _run("vectors", "--export", str(tmp_path / "kb.npz"), data_dir=data_dir)
    assert exported.returncode == 0, exported.stderr
    found = re.search(r"Exported (\d+) hash-256 vectors", exported.stdout)
    assert found, exported.stdout
    count = int(found.group(1))
    assert count >= 505  # the Criminal Law, and any cases earlier tests left
    other = tmp_path / "other"
    imported = _run("vectors", "--import", str(tmp_path / "kb.npz"), data_dir=other)
    assert imported.returncode == 0, imported.stderr
    assert f"Imported {count} hash-256 vectors ({count} cached in" in imported.stdout
    assert _run("ingest", data_dir=other).returncode == 0
    again = _run("vectors", "--import", str(tmp_path / "kb.npz"), data_dir=other)
    assert f"({count} cached in" in again.stdout  # ingesting added no vector: every text was cached

    neither = _run("vectors", data_dir=other)
    assert neither.returncode == 2 and "give --export FILE or --import FILE" in neither.stderr
    other_model = _run("vectors", "--import", str(tmp_path / "kb.npz"), data_dir=other, JURIS_EMBEDDINGS="hash:64")
    assert other_model.returncode == 5 and "holds 'hash-256' vectors but 'hash-64'" in other_model.stderr
    (tmp_path / "bad.npz").write_text("no vectors", encoding="utf-8")
    bad = _run("vectors", "--import", str(tmp_path / "bad.npz"), data_dir=other)
    assert bad.returncode == 5 and "cannot read vector file" in bad.stderr


def test_cases_ingest_and_remove_by_source(data_dir: Path, tmp_path: Path) -> None:
    from tests.conftest import SHARED_DATA

    lines = (SHARED_DATA / "zh/cases/cail2018_sample_train.jsonl").read_text(encoding="utf-8").splitlines()[:10]
    cases = tmp_path / "ten_cases.jsonl"
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    added = _run("ingest", "--cases", str(cases), "--ontology", "lexical", "--knn-k", "3", data_dir=data_dir)
    assert added.returncode == 0, added.stderr
    assert "Cases from ten_cases: 10 added, 0 updated, 0 unchanged." in added.stdout
    assert "Ontology: features extracted for 10 cases; 10 cases," in added.stdout
    listed = _run("communities", "--level", "1", "--summarise", data_dir=data_dir)
    assert listed.returncode == 0, listed.stderr
    assert "L1-C0" in listed.stdout and "根据现有资料" in listed.stdout  # the fake model's summary
    again = _run("ingest", "--cases", str(cases), data_dir=data_dir)
    assert "Cases from ten_cases: 0 added, 0 updated, 10 unchanged." in again.stdout
    removed = _run("remove", "--source", "ten_cases", data_dir=data_dir)
    assert removed.returncode == 0, removed.stderr
    assert "Removed source ten_cases: 10 cases" in removed.stdout
    missing = _run("remove", "--source", "ten_cases", data_dir=data_dir)
    assert missing.returncode == 2 and "no source named 'ten_cases'" in missing.stderr


def test_consultations_ingest_show_on_articles_and_remembered_answers_join_them(data_dir: Path, tmp_path: Path) -> None:
    rows = [
        {
            "id": "q1",
            "question": "偷同事手机怎么处理？",
            "answer": "回答:构成盗窃罪。法律依据:《中华人民共和国刑法》第二百六十四条",
        },
        {"id": "q2", "question": "没有法律依据的回答", "answer": "回答:不清楚。"},
    ]
    answered = tmp_path / "answered.jsonl"
    answered.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    added = _run("ingest", "--consultations", str(answered), data_dir=data_dir)
    assert added.returncode == 0, added.stderr
    assert "Consultations from answered: 1 added, 0 updated, 0 unchanged." in added.stdout
    assert "1 answer(s) cite no article it could read and were left out (lines 2)." in added.stdout
    shown = _run("kg", "show", "刑法:264", data_dir=data_dir)
    assert "Consultations citing it (1 shown):" in shown.stdout and "[q1] 偷同事手机怎么处理？" in shown.stdout
    # The articles consultations cite most get their checklists ahead of the first question (here: 264 alone).
    pool = _run("checklists", "--cited", "50", data_dir=data_dir)
    counts = re.search(r"Checklists: (\d+) generated .*?, (\d+) already stored, 0 failed", pool.stdout)
    assert pool.returncode == 0 and counts and int(counts[1]) + int(counts[2]) == 1, pool.stdout + pool.stderr

    remembered = _run("ask", "--remember", "刑法第二百六十四条规定了什么？", data_dir=data_dir)
    assert remembered.returncode == 0, remembered.stderr
    assert "Remembered as consultation remembered-" in remembered.stderr and "citing 刑法:264" in remembered.stderr
    assert "刑法第二百六十四条规定了什么？" in _run("kg", "show", "刑法:264", data_dir=data_dir).stdout

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "question": "问", "answer": 5}\n', encoding="utf-8")
    refused = _run("ingest", "--consultations", str(bad), data_dir=data_dir)
    assert refused.returncode == 5 and "bad.jsonl:1: field answer must be a non-empty string" in refused.stderr
    for source in ("answered", "remembered"):
        removed = _run("remove", "--source", source, data_dir=data_dir)
        assert removed.returncode == 0 and f"Removed source {source}: 1 consultations" in removed.stdout


def test_kg_stats_and_show(data_dir: Path) -> None:
    stats = _run("kg", "stats", "--json", data_dir=data_dir)
    assert stats.returncode == 0, stats.stderr
    counts = json.loads(stats.stdout)
    assert counts["nodes"]["Article"] == 505 and counts["nodes"]["Law"] == 1
    assert counts["edges"]["HAS_ARTICLE"] == 505
    shown = _run("kg", "show", "刑法:264", data_dir=data_dir)
    assert shown.returncode == 0, shown.stderr
    assert laws_db_text("中华人民共和国刑法", "第二百六十四条")[:30] in shown.stdout
    assert "Cases citing it: 0" in shown.stdout
    missing = _run("kg", "show", "刑法:9999", data_dir=data_dir)
    assert missing.returncode == 2 and "no article '刑法:9999'" in missing.stderr


def test_judge_prints_a_traceable_judgment(data_dir: Path, tmp_path: Path) -> None:
    fact = tmp_path / "fact.txt"
    fact.write_text(
        "被告人张某秘密窃取被害人李某的电动自行车一辆，价值人民币2300元。案发后张某主动投案。", encoding="utf-8"
    )
    judged = _run("judge", "--file", str(fact), "--json", data_dir=data_dir)
    assert judged.returncode == 0, judged.stderr
    out = json.loads(judged.stdout)
    articles = [e for e in out["evidence"] if e["kind"] == "article"]
    assert articles and all(e["id"].startswith("刑法:") for e in articles)
    assert set(out["articles"]) <= {e["id"] for e in articles}
    assert len(out["verdicts"]) == len(articles)  # the fake verifies every candidate as applicable
    pretty = _run("judge", "--fact", fact.read_text(encoding="utf-8"), data_dir=data_dir)
    assert pretty.returncode == 0 and "证据 Evidence" in pretty.stdout
    assert "核验 Audit" in pretty.stdout and "✓" in pretty.stdout  # the trail: each item the fake found to hold
    neither = _run("judge", data_dir=data_dir)
    assert neither.returncode == 2 and "exactly one of --fact" in neither.stderr
    # A NUL byte and a GBK file: one line each, exit 2, no traceback (issue 42).
    fact.write_bytes("被告人张某\x00秘密窃取他人手机一部，价值3000元。".encode())
    nul = _run("judge", "--file", str(fact), data_dir=data_dir)
    assert nul.returncode == 2 and "control character (U+0000 at character 6)" in nul.stderr
    assert "Traceback" not in nul.stderr and len(nul.stderr.strip().splitlines()) == 1
    fact.write_bytes("被告人张某秘密窃取他人手机一部。".encode("gbk"))
    gbk = _run("judge", "--file", str(fact), data_dir=data_dir)
    assert gbk.returncode == 2 and "is not UTF-8 text" in gbk.stderr and "Traceback" not in gbk.stderr
    # A byte that is not UTF-8 in the argument itself (Python reads it as U+DCFF): named, exit 2 (it was a 307-line
    # traceback), for a fact and for a question alike (issue 87).
    for args, what in ((("judge", "--fact"), "fact description"), (("ask", "--no-server"), "question")):
        raw = _run(*args, "被告人张某\udcff盗窃手机一部", data_dir=data_dir)
        assert raw.returncode == 2 and "Traceback" not in raw.stderr, raw.stderr
        assert f"the {what} holds a byte that is not UTF-8 (0xFF at character 6)" in raw.stderr


def test_threads_continue_across_processes(data_dir: Path) -> None:
    first = _run("ask", "--thread", "t-1", "--json", "醉酒驾驶机动车会受到什么处罚？", data_dir=data_dir)
    assert first.returncode == 0, first.stderr
    second = _run("ask", "--thread", "t-1", "--json", "如果还撞伤了人呢？", data_dir=data_dir)
    assert second.returncode == 0, second.stderr
    earlier = {e["article_id"] for e in json.loads(first.stdout)["evidence"]}
    assert earlier & {e["article_id"] for e in json.loads(second.stdout)["evidence"]}  # evidence carried over
    listed = _run("threads", "--json", data_dir=data_dir)
    assert listed.returncode == 0, listed.stderr
    (thread,) = [t for t in json.loads(listed.stdout) if t["thread_id"] == "t-1"]
    assert thread["turns"] == 2 and thread["last_question"] == "如果还撞伤了人呢？"


def test_charges_only_links_charges_without_embedding_interpretations(data_dir: Path) -> None:
    from tests.conftest import SHARED_DATA

    rules = SHARED_DATA / "zh/interpretations/lawrefbook"
    alone = _run("ingest", "--charges-only", data_dir=data_dir)
    assert alone.returncode == 2 and "--charges-only needs --interpretations" in alone.stderr
    linked = _run("ingest", "--interpretations", str(rules), "--charges-only", data_dir=data_dir)
    assert linked.returncode == 0, linked.stderr
    assert re.search(r"Charges: \d{3} in force linked to their articles", linked.stdout)
    assert "Interpretations:" not in linked.stdout and "load_interpretations" not in linked.stdout
    counts = json.loads(_run("kg", "stats", "--json", data_dir=data_dir).stdout)
    assert counts["nodes"]["Charge"] > 400 and "Interpretation" not in counts["nodes"]


@pytest.mark.parametrize("command", [["ask", "醉驾怎么处罚？"], ["judge", "--fact", "被告人张某秘密窃取手机一部。"]])
def test_an_empty_knowledge_base_says_to_ingest_first(tmp_path: Path, command: list[str]) -> None:
    # It used to answer 无法确定 with no hint that nothing had been ingested.
    result = _run(*command, data_dir=tmp_path)
    assert result.returncode == 2
    assert "holds no statutes yet: run `jurisgraph ingest` first" in result.stderr


def test_a_negative_neighbour_count_is_refused(tmp_path: Path) -> None:
    result = _run("ingest", "--knn-k", "-1", data_dir=tmp_path)
    assert result.returncode == 2 and "--knn-k" in result.stderr
    assert not (tmp_path / "falkordb").exists()  # refused before any store was opened


def test_damaged_caches_are_rebuilt_with_one_warning_each(data_dir: Path) -> None:
    # A truncated BM25 index (once a token list: UnicodeDecodeError) and a vector cache of random bytes (DatabaseError).
    assert _run("ingest", data_dir=data_dir).returncode == 0
    (tokens,) = (data_dir / "cache").glob("bm25-statutes-*.npz")
    tokens.write_bytes(tokens.read_bytes()[: tokens.stat().st_size // 2 - 1])
    vectors = data_dir / "cache" / "vectors.sqlite"
    vectors.write_bytes(os.urandom(4096))
    asked = _run("ask", "--json", "刑法第二百六十四条规定了什么？", data_dir=data_dir)
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["legal_basis"][0]["article_id"] == "刑法:264"
    warnings = [line for line in asked.stderr.splitlines() if "was damaged" in line]
    assert len(warnings) == 2 and all(line.endswith("rebuilt") or "kept as" in line for line in warnings)
    assert list((data_dir / "cache").glob("vectors.sqlite.damaged-*"))
    again = _run("ask", "--json", "刑法第二百六十四条规定了什么？", data_dir=data_dir)
    assert "was damaged" not in again.stderr  # rebuilt once, then read


@pytest.mark.parametrize("command", [["laws"], ["ask", "--json", "刑法第二百六十四条规定了什么？"]])
def test_a_reader_that_closes_the_pipe_early_is_not_a_failure(data_dir: Path, command: list[str]) -> None:
    # `jurisgraph ask … | head` used to end with 1 and no word.
    assert _run("ingest", data_dir=data_dir).returncode == 0
    exe = Path(sys.executable).with_name("jurisgraph")
    env = {**os.environ, "JURIS_DATA_DIR": str(data_dir), "JURIS_MODEL": "fake", "JURIS_EMBEDDINGS": "hash"}
    proc = subprocess.Popen([str(exe), *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written
    errors = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, errors
    assert "Traceback" not in errors


def test_vectors_of_chosen_collections_export_alone(data_dir: Path, tmp_path: Path) -> None:
    assert _run("ingest", data_dir=data_dir).returncode == 0
    one = _run(
        "vectors",
        "--export",
        str(tmp_path / "s.npz"),
        "--collection",
        "statutes",
        "--precision",
        "float16",
        data_dir=data_dir,
    )
    assert one.returncode == 0, one.stderr
    assert "Exported 505 hash-256 vectors" in one.stdout  # the Criminal Law's articles, no other collection's
    missing = _run("vectors", "--export", str(tmp_path / "x.npz"), "--collection", "nope", data_dir=data_dir)
    assert missing.returncode == 2 and "no collection nope here" in missing.stderr
    coarse = _run("vectors", "--export", str(tmp_path / "y.npz"), "--precision", "int4", data_dir=data_dir)
    assert coarse.returncode == 2 and "--precision int4: one of float32, float16, int8" in coarse.stderr
    assert not (tmp_path / "y.npz").exists()


def test_a_wiped_vector_store_is_named_and_repaired(tmp_path: Path) -> None:
    data_dir = tmp_path / "wiped"
    assert _run("ingest", data_dir=data_dir).returncode == 0
    (data_dir / "chroma" / "chroma.sqlite3").write_bytes(b"")  # `: > chroma.sqlite3`
    asked = _run("ask", "醉酒驾驶机动车会受到什么处罚？", data_dir=data_dir)
    assert asked.returncode == 3, asked.stderr  # not an answer that finds no law
    assert "the statutes collection holds 0 of the 505 records" in asked.stderr
    assert "jurisgraph kg repair" in asked.stderr and "Traceback" not in asked.stderr
    repaired = _run("kg", "repair", data_dir=data_dir)
    assert repaired.returncode == 0, repaired.stderr
    assert "Restored 505 statutes from the knowledge graph." in repaired.stdout
    again = _run("ask", "--json", "醉酒驾驶机动车会受到什么处罚？", data_dir=data_dir)
    assert again.returncode == 0, again.stderr
    assert "刑法:133-1" in {item["article_id"] for item in json.loads(again.stdout)["legal_basis"]}
    assert (data_dir.stat().st_mode & 0o777) == 0o700  # the data dir is its user's alone


def test_the_reranker_install_and_its_vectors_fail_clearly_without_it(data_dir: Path, tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    absent = _run("model", "install", "--embedder", "--wheels", str(wheels), data_dir=tmp_path / "d")
    assert absent.returncode == 4 and "25 of the embedder's 25 wheels are not in" in absent.stderr
    off = _run("model", "install", "--embedder", data_dir=tmp_path / "d", JURIS_RERANKER="off")
    assert off.returncode == 2 and "the reranker is off" in off.stderr
    assert _run("ingest", data_dir=data_dir).returncode == 0
    export = _run("vectors", "--export", str(tmp_path / "r.npz"), "--reranker", data_dir=data_dir)
    assert export.returncode == 4 and "reranker not installed in" in export.stderr
    assert "Traceback" not in absent.stderr + off.stderr + export.stderr and not (tmp_path / "r.npz").exists()


def test_reranker_vectors_are_imported_under_the_rerankers_name_only(data_dir: Path, tmp_path: Path) -> None:
    from tools.llm.embeddings import EmbeddingGemmaEmbeddings
    from tools.retrieval.vector_cache import VectorFile, text_digest, write_vector_file

    ours = tmp_path / "gemma.npz"
    name = EmbeddingGemmaEmbeddings.model_name
    row = np.ones((1, 768), dtype=np.float32) / 16
    write_vector_file(ours, VectorFile(name, [text_digest("条文")], row), "int8")
    imported = _run("vectors", "--import", str(ours), "--reranker", data_dir=tmp_path / "d")
    assert imported.returncode == 0, imported.stderr
    assert f"Imported 1 {name} vectors" in imported.stdout and name == "embeddinggemma-300m-768"
    # The search model's vectors are no reranker's, and the other way round.
    refused = _run("vectors", "--import", str(ours), data_dir=tmp_path / "d")
    assert refused.returncode == 5 and f"'{name}' vectors but 'hash-256'" in refused.stderr


def test_regulations_are_statutes_that_answers_and_consultations_cite(tmp_path: Path) -> None:
    # Issue 61 item 5: 《工伤保险条例》第十四条 resolves, and a consultation citing it counts as cited.
    root = tmp_path / "regulations"
    (root / "lawrefbook").mkdir(parents=True)
    header = "<!-- INFO END -->\n\n## 第三章 工伤认定\n\n"
    injury = f"# 工伤保险条例\n\n{header}第十四条 职工有下列情形之一的，应当认定为工伤。\n"
    medicine = injury.replace("工伤保险", "中医药")
    for name, text in (("工伤保险条例(2010-12-20)", injury), ("中医药条例(2003-04-07)", medicine)):
        (root / "lawrefbook" / f"{name}.md").write_text(text, encoding="utf-8")
    index = [
        {"file": "工伤保险条例(2010-12-20).md", "expired": False},
        {"file": "中医药条例(2003-04-07).md", "expired": True},
    ]
    (root / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    data_dir = tmp_path / "data"
    loaded = _run("ingest", "--laws", "刑法", "--regulations", str(root), data_dir=data_dir)
    assert loaded.returncode == 0, loaded.stderr
    assert "Regulations: 1 in force, 1 articles added, 0 updated, 0 unchanged; 1 expired" in loaded.stdout
    shown = _run("kg", "show", "工伤保险条例:14", data_dir=data_dir)
    assert shown.returncode == 0 and "《工伤保险条例》第十四条" in shown.stdout, shown.stderr
    assert _run("kg", "show", "中医药条例:14", data_dir=data_dir).returncode != 0  # expired: not offered
    answered = tmp_path / "injury.jsonl"
    row = {"id": "w1", "question": "上班路上被撞算工伤吗？", "answer": "回答:算。法律依据:《工伤保险条例》第十四条"}
    answered.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    cited = _run("ingest", "--consultations", str(answered), data_dir=data_dir)
    assert cited.returncode == 0 and "Consultations from injury: 1 added" in cited.stdout, cited.stderr
    assert "[w1] 上班路上被撞算工伤吗？" in _run("kg", "show", "工伤保险条例:14", data_dir=data_dir).stdout
    again = _run("ingest", "--laws", "刑法", "--regulations", str(root), data_dir=data_dir)
    assert "Regulations: 1 in force, 0 articles added, 0 updated, 1 unchanged" in again.stdout
