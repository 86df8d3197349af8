"""`jurisgraph eval` end to end with the fake model over the real Criminal Law and the shared dev files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from app.eval.tasks import CHARGE_LABELS_NOTE
from tests.conftest import REPO, SHARED_DATA, run_cli

pytestmark = pytest.mark.integration
CONSULT = SHARED_DATA / "zh" / "eval" / "consult_dev.jsonl"
LJP = SHARED_DATA / "zh" / "eval" / "ljp_dev.jsonl"
PROMPTS = REPO / "prompts" / "zh"


def _run(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    # Well inside pytest's 600 s for a test and its fixtures, so that a hang fails with its stacks.
    return run_cli(*args, data_dir=data_dir, timeout=240)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eval")
    # Only the charge-name rules (and one interpretation): embedding all 12k interpretation chunks is not needed.
    rules = path / "rules"
    rules.mkdir()
    source = SHARED_DATA / "zh" / "interpretations" / "lawrefbook"
    for pattern in ("*罪名*.md", "*办理盗窃刑事案件*.md"):
        for file in source.glob(pattern):
            shutil.copy(file, rules / file.name)
    result = _run("ingest", "--interpretations", str(rules), data_dir=path)
    assert result.returncode == 0, result.stderr
    assert "Interpretations: 10 added" in result.stdout
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_consult_eval_compares_systems_and_resumes(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = _run(
        "eval",
        "--task",
        "consult",
        "--data",
        str(CONSULT),
        "--limit",
        "3",
        "--out",
        str(out),
        "--judge-model",
        "fake",
        data_dir=data_dir,
    )
    assert first.returncode == 0, first.stderr
    results = _lines(out / "results.jsonl")
    assert sorted((r["item_id"], r["system"]) for r in results) == sorted(
        (f"consult-{i}", s) for i in range(3) for s in ("full", "naive_rag", "no_rag")
    )
    assert all(r["ok"] for r in results)
    full = [r for r in results if r["system"] == "full"]
    assert all(set(r["prediction"]["cited_in_kb"]) == set(r["prediction"]["cited"]) for r in full)
    assert all("gold" not in r for r in results)  # labels stay in the data file: a run dir can be committed

    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    metrics = summary["systems"]["full"]["metrics"]
    assert metrics["cited_in_kb_share"]["value"] == 1.0
    # The audit's verdicts are recorded, each item with whether it held and whether the question stated it.
    verdicts = [v for r in full for v in r["prediction"]["verdicts"]]
    assert verdicts and all(len(check) == 3 for v in verdicts for check in v["checks"])
    assert [r["prediction"]["pruned"] for r in full] == [
        [v["article_id"] for v in r["prediction"]["verdicts"] if not v["applicable"]] for r in full
    ]
    # Every Legal Basis is verbatim; an answer whose articles the audit pruned has none (and cites none).
    assert all(r["prediction"].get("basis_verbatim", []) == r["prediction"]["cited"] for r in full)
    assert metrics["basis_verbatim_share"]["value"] == 1.0
    assert "basis_verbatim_share" not in summary["systems"]["naive_rag"]["metrics"]  # it writes no Legal Basis
    # Elements, draft and Manager at least where a basis was kept (a verification per kept article, checklists made
    # once); where nothing was kept, no draft is asked for that verify_claims would replace, nor an element graph
    # for one: these answers' conditional articles are quoted (no 如果……则…… rule to restate), so no call at all.
    for r in full:
        drafted = "draft_answer" in r["prediction"]["stages_ms"]
        assert drafted is bool(r["prediction"]["cited"])
        assert drafted is ("extract_elements" in r["prediction"]["stages_ms"])
        assert r["prediction"]["usage"]["llm_calls"] >= 3 if drafted else r["prediction"]["usage"]["llm_calls"] == 0
    assert summary["systems"]["naive_rag"]["metrics"]["llm_calls"]["value"] == 1.0
    # The fake judge answers the smallest valid JudgeScore: every criterion 0, so nothing passes.
    assert metrics["judge_mean"]["value"] == 0.0 and metrics["judge_pass_rate"]["value"] == 0.0
    assert all(r["judge"]["usage"]["llm_calls"] == 1 for r in results)
    low, high = metrics["rouge_l"]["ci95"]
    assert low <= metrics["rouge_l"]["value"] <= high
    assert "| citation_f1 |" in (out / "report.md").read_text(encoding="utf-8")
    drafted = (
        {"extract_elements", "draft_answer", "review_draft"} if any(r["prediction"]["cited"] for r in full) else set()
    )
    assert set(summary["systems"]["full"]["stage_median_ms"]) >= {
        "search_law",
        "keep_basis",
        "check_content",
        *drafted,
    }
    for png in ("metrics.png", "latency.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # A torn last line (a kill mid-write) is dropped and that pair is run again; nothing else is.
    with (out / "results.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"item_id": "consult-9", "sys')
    again = _run(
        "eval", "--task", "consult", "--data", str(CONSULT), "--limit", "3", "--out", str(out), data_dir=data_dir
    )
    assert again.returncode == 0, again.stderr
    assert len(_lines(out / "results.jsonl")) == 9
    # One more item for one system: the progress counts only this run's pairs, not the file's other lines.
    args = ("eval", "--task", "consult", "--data", str(CONSULT), "--out", str(out))
    more = _run(*args, "--limit", "4", "--systems", "no_rag", data_dir=data_dir)
    assert more.returncode == 0, more.stderr
    assert "consult: 0 failed: 3/4 after" in more.stderr and "4/4 after" in more.stderr
    assert len(_lines(out / "results.jsonl")) == 10


def test_retrieval_eval_reports_each_retriever(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "retrieval"
    result = _run(
        "eval", "--task", "retrieval", "--data", str(LJP), "--limit", "20", "--out", str(out), data_dir=data_dir
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    retrievers = summary["systems"]["retrieval"]["retrievers"]
    # No cases in this KB: the Researcher fuses its statute rankings only (its own, research_*, beside
    # LawSearch's); no model: no pre-judgment.
    own = {"research_bm25", "research_dense", "research_exact", "research_kg"}
    # Every source LawSearch fuses is recorded (interpretations: this KB holds them), so that its fusion can be
    # refitted offline.
    expected = {
        "bm25",
        "dense",
        "exact",
        "fused",
        "kg",
        "interpretations",
        "offence",
        "law_search",
        "researcher",
        "charge_oracle",
    }
    assert set(retrievers) == expected | own
    # The offence descriptions need no case: the charges' defining articles are enough.
    assert retrievers["offence"]["recall@10"]["value"] > 0.2
    stages = summary["systems"]["retrieval"]["stage_median_ms"]
    assert set(stages) == {"law_search", "researcher"} and all(ms > 0 for ms in stages.values())
    for metrics in retrievers.values():
        assert 0.0 <= metrics["recall@1"]["value"] <= metrics["recall@5"]["value"] <= metrics["recall@10"]["value"] <= 1
    # BM25 finds gold articles of theft/injury cases; the theft interpretation's provisions, articles of this KB too,
    # rank beside 264 for a theft, and ljp's gold names the Criminal Law's articles alone.
    assert retrievers["bm25"]["recall@10"]["value"] > 0.15
    # Gold charges mapped through DEFINES edges find most gold articles: the charge-anchored ceiling.
    assert retrievers["charge_oracle"]["recall@5"]["value"] > 0.6

    other = tmp_path / "retrieval2"
    _run("eval", "--task", "retrieval", "--data", str(LJP), "--limit", "5", "--out", str(other), data_dir=data_dir)
    diff = _run("eval", "--compare", str(out / "summary.json"), str(other / "summary.json"), data_dir=data_dir)
    assert diff.returncode == 0, diff.stderr
    assert "retrieval.fused.recall@5" in diff.stdout


def test_retrieval_eval_with_a_model_adds_the_pre_judgment_strategies(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "prejudged"
    args = ("eval", "--task", "retrieval", "--data", str(LJP), "--limit", "3", "--model", "fake", "--out", str(out))
    result = _run(*args, data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert {"charge", "generative", "researcher"} <= set(summary["systems"]["retrieval"]["retrievers"])
    results = _lines(out / "results.jsonl")
    assert all(r["prediction"]["usage"]["llm_calls"] == 1 for r in results)  # one pre-judgment per item


def test_ljp_eval_runs_the_judge_graph_beside_the_baselines(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "ljp"
    args = (
        "eval",
        "--task",
        "ljp",
        "--data",
        str(LJP),
        "--limit",
        "2",
        "--systems",
        "full,naive_rag",
        "--out",
        str(out),
    )
    result = _run(*args, data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    results = _lines(out / "results.jsonl")
    assert sorted(r["system"] for r in results) == ["full", "full", "naive_rag", "naive_rag"]
    assert all(r["ok"] for r in results), [r.get("error") for r in results]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["notes"] == [CHARGE_LABELS_NOTE]  # the KB has charges: labels are compared as it names them
    assert CHARGE_LABELS_NOTE in (out / "report.md").read_text(encoding="utf-8")
    assert {"align_ontology", "research_charges", "audit_research", "adjudicate"} <= set(
        summary["systems"]["full"]["stage_median_ms"]
    )
    full = [r for r in results if r["system"] == "full"]
    assert all(set(r["prediction"]["cited"]) <= set(r["prediction"]["evidence"]) for r in full)
    for r in full:  # each audited article's verdict with its checklist answers, to see why it stayed or went
        verdicts = r["prediction"]["verdicts"]
        assert verdicts and all(v["decided_by"] in {"rule", "model", "unverified", "retained"} for v in verdicts)
        assert {v["article_id"] for v in verdicts if not v["applicable"]} == set(r["prediction"]["pruned"])
        assert all(
            isinstance(item, str) and isinstance(holds, bool) and stated is True  # a case states every item
            for v in verdicts
            for item, holds, stated in v["checks"]
        )
        # What the Adjudicator read besides the articles: the precedents (none: this KB holds no cases), and
        # the charges pre-judged.
        assert r["prediction"]["precedents"] == []
        assert all(isinstance(name, str) and 0 <= conf <= 1 for name, conf in r["prediction"]["prejudged"])

    # The Adjudicator alone, again, on the recorded evidence: as it was, and with a prompt variant.
    variant = tmp_path / "numbered.md"
    # A variant may read the pre-judgment: a placeholder no value fills would fail every replayed item.
    prompt = (PROMPTS / "adjudicate.md").read_text(encoding="utf-8")
    variant.write_text("（变体）初步判断：$prejudged\n" + prompt, encoding="utf-8")
    replay = tmp_path / "replay"
    replayed = _run(
        "replay", str(out / "results.jsonl"), "--task", "ljp", "--data", str(LJP), "--out", str(replay),
        "--template", str(variant), "--model", "fake", data_dir=data_dir,
    )  # fmt: skip
    assert replayed.returncode == 0, replayed.stderr
    assert "2 of 2 full lines recorded their precedents; replaying 2" in replayed.stdout
    lines = _lines(replay / "results.jsonl")
    assert sorted(r["system"] for r in lines) == ["replay", "replay", "replay-numbered", "replay-numbered"]
    recorded = {r["item_id"]: r["prediction"] for r in full}
    for r in lines:  # the same evidence, numbered the same way, and (the fake being deterministic) the same call
        assert r["ok"], r.get("error")
        assert r["prediction"]["evidence"] == recorded[r["item_id"]]["evidence"]
        assert r["prediction"]["usage"]["llm_calls"] == 1
    same = [r for r in lines if r["system"] == "replay"]
    assert all(r["prediction"]["charges"] == recorded[r["item_id"]]["charges"] for r in same)
    summary = json.loads((replay / "summary.json").read_text(encoding="utf-8"))
    assert set(summary["systems"]) == {"full", "naive_rag", "replay", "replay-numbered"}  # the run's, beside
    alone = _run(
        "replay", str(out / "results.jsonl"), "--task", "ljp", "--data", str(LJP), "--out", str(tmp_path / "alone"),
        "--template", str(variant), "--variant-only", "--model", "fake", data_dir=data_dir,
    )  # fmt: skip
    assert alone.returncode == 0, alone.stderr
    assert [r["system"] for r in _lines(tmp_path / "alone" / "results.jsonl")] == ["replay-numbered"] * 2

    # No model: the charges the Adjudicator wrote, grounded again (a description kept, a known charge that no
    # evidence article defines still dropped); a judgment left with none is anchored on its pre-judgment.
    first, second = (r["item_id"] for r in full)
    written = {first: ["charge:盗窃公私财物", "charge:保险诈骗"], second: ["charge:保险诈骗"]}
    edited = [
        {**r, "prediction": {**r["prediction"], "charges": [], "evidence": ["刑法:264"], "dropped": [
            "刑法:180", *written[r["item_id"]]], "prejudged": [["诈骗", 0.9], ["盗窃", 0.6]]}}
        if r["system"] == "full" else r
        for r in results
    ]  # fmt: skip
    (tmp_path / "edited.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in edited))
    regrounded = _run(
        "replay", str(tmp_path / "edited.jsonl"), "--task", "ljp", "--data", str(LJP), "--out",
        str(tmp_path / "regrounded"), "--reground", data_dir=data_dir,
    )  # fmt: skip
    assert regrounded.returncode == 0, regrounded.stderr
    lines = {r["item_id"]: r for r in _lines(tmp_path / "regrounded" / "results.jsonl")}
    assert [r["system"] for r in lines.values()] == ["regrounded", "regrounded"]
    assert lines[first]["prediction"]["charges"] == ["盗窃"] and lines[first]["prediction"]["anchored"] == []
    assert lines[first]["prediction"]["grounded"] == {"盗窃公私财物": ["盗窃"]}
    assert lines[second]["prediction"]["charges"] == lines[second]["prediction"]["anchored"] == ["盗窃"]
    for r in lines.values():
        assert r["prediction"]["dropped"] == ["刑法:180", "charge:保险诈骗"]
        assert r["prediction"]["usage"] == recorded[r["item_id"]]["usage"]  # no call: the run's own cost
    summary = json.loads((tmp_path / "regrounded" / "summary.json").read_text(encoding="utf-8"))
    systems = summary["systems"]
    assert set(systems) == {"full", "naive_rag", "regrounded"}
    assert systems["regrounded"]["metrics"]["latency_s"]["value"] >= systems["full"]["metrics"]["latency_s"]["value"]


def test_malformed_task_file_is_a_clear_error(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "q", "answer": "a"}\n{"id": "b", "question": "q"}\n', encoding="utf-8")
    result = _run("eval", "--task", "consult", "--data", str(bad), data_dir=data_dir)
    assert result.returncode == 5
    assert "bad.jsonl:2: a consult item needs answer" in result.stderr
