from __future__ import annotations

from typing import Any

import pytest

from app.eval.report import compare, headline, paired_comparison, render_report, summarise


def _ljp(item: str, charges: list[str], articles: list[str], term: int, evidence: list[str], gold_term: int) -> Any:
    return {
        "item_id": item,
        "system": "naive_rag",
        "ok": True,
        "seconds": 2.0,
        "gold": {"articles": ["刑法:264"], "charges": ["盗窃"], "term_months": gold_term},
        "prediction": {
            "charges": charges,
            "articles": articles,
            "cited": articles,
            "cited_in_kb": [a for a in articles if a != "刑法:999"],
            "term_months": term,
            "evidence": evidence,
            "usage": {"llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 10},
        },
    }


def test_ljp_summary_computes_each_metric() -> None:
    cached = _ljp("a", ["盗窃罪"], ["刑法:264"], 6, ["刑法:264"], 6)  # right, traceable
    cached["prediction"]["usage"]["cached_prompt_tokens"] = 60
    results = [
        cached,
        _ljp("b", ["盗窃", "抢劫"], ["刑法:264", "刑法:999"], 12, [], 6),  # extra charge, invented article
        {
            "item_id": "c",
            "system": "naive_rag",
            "ok": False,
            "error": "StructuredOutputError: x",
            "seconds": 1.0,
            "gold": {"articles": [], "charges": ["盗窃"], "term_months": 1},
        },
    ]
    summary = summarise("ljp", results, with_ci=False)
    entry = summary["systems"]["naive_rag"]
    m = {k: v["value"] for k, v in entry["metrics"].items()}
    assert entry["items"] == 3 and entry["failures"] == [{"item_id": "c", "error": "StructuredOutputError: x"}]
    assert m["charge_accuracy"] == 0.5
    assert m["charge_f1"] == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1), abs=1e-4)
    assert m["article_precision"] == pytest.approx(2 / 3, abs=1e-4) and m["article_recall"] == 1.0
    assert m["cited_in_kb_share"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["hallucination_risk"] == pytest.approx(1 - (2 / 3) * (2 / 3), abs=1e-4)
    assert m["term_mae_months"] == 3.0
    assert m["traceable_correct"] == 0.5
    assert m["latency_s"] == 2.0
    # 40 of a's 100 prompt tokens evaluated; b's model reports no cache, so all 100 were.
    assert m["prompt_tokens"] == 100 and m["prompt_tokens_evaluated"] == 70
    assert "failed c: StructuredOutputError" in render_report(summary)
    assert headline("ljp", results) == "naive_rag charge_accuracy 0.50"


def test_compare_lists_deltas_for_shared_metrics() -> None:
    a = summarise("ljp", [_ljp("a", ["盗窃"], ["刑法:264"], 6, [], 6)], with_ci=False)
    b = summarise("ljp", [_ljp("a", ["抢劫"], ["刑法:264"], 6, [], 6)], with_ci=False)
    rows = {key: (va, vb, delta) for key, va, vb, delta in compare(a, b)}
    assert rows["naive_rag.charge_accuracy"] == (1.0, 0.0, -1.0)


def test_judge_scores_give_mean_and_pass_rate_at_the_threshold() -> None:
    def consult(item: str, judge_mean: float) -> Any:
        return {
            "item_id": item,
            "system": "full",
            "ok": True,
            "seconds": 1.0,
            "gold": {"articles": ["刑法:264"], "answer": "构成盗窃罪"},
            "prediction": {
                "answer": "构成盗窃罪",
                "cited": ["刑法:264"],
                "cited_in_kb": ["刑法:264"],
                "usage": {"llm_calls": 2, "prompt_tokens": 10, "completion_tokens": 5},
            },
            "judge": {"mean": judge_mean},
        }

    summary = summarise("consult", [consult("a", 8.0), consult("b", 5.0)], with_ci=False, judge_threshold=7.0)
    m = {k: v["value"] for k, v in summary["systems"]["full"]["metrics"].items()}
    assert m["judge_mean"] == 6.5 and m["judge_pass_rate"] == 0.5
    assert m["rouge_l"] == 1.0 and m["citation_f1"] == 1.0 and m["hallucination_risk"] == 0.0


def test_basis_verbatim_share_counts_texts_that_differ_from_the_kb() -> None:
    def consult(item: str, basis: dict[str, str], verbatim: list[str]) -> Any:
        cited = list(basis)
        prediction = {"answer": "", "cited": cited, "cited_in_kb": cited, "basis": basis, "basis_verbatim": verbatim}
        usage = {"llm_calls": 1, "prompt_tokens": 1, "completion_tokens": 1}
        return {
            "item_id": item,
            "system": "full",
            "ok": True,
            "seconds": 1.0,
            "gold": {"articles": []},
            "prediction": prediction | {"usage": usage},
        }

    rows = [consult("a", {"刑法:264": "t", "刑法:67": "u"}, ["刑法:264", "刑法:67"]), consult("b", {"刑法:1": "x"}, [])]
    m = summarise("consult", rows, with_ci=False)["systems"]["full"]["metrics"]
    assert m["basis_verbatim_share"]["value"] == pytest.approx(2 / 3, abs=1e-4)


def test_rows_from_several_code_versions_are_counted_and_flagged() -> None:
    rows = [_ljp("a", ["盗窃"], ["刑法:264"], 6, [], 6), _ljp("b", ["盗窃"], ["刑法:264"], 6, [], 6)]
    rows[0]["code"] = "6a4e413abcde"
    one = summarise("ljp", rows[:1], with_ci=False)
    assert one["systems"]["naive_rag"]["code_versions"] == {"6a4e413abcde": 1}
    assert "more than one code version" not in render_report(one)
    both = summarise("ljp", rows, with_ci=False)
    assert both["systems"]["naive_rag"]["code_versions"] == {"6a4e413abcde": 1, "unknown": 1}
    assert "Rows from more than one code version: 6a4e413abcde (1), unknown (1)." in render_report(both)


def test_results_are_stamped_with_the_commit_they_come_from(tmp_path: Any) -> None:
    import subprocess

    from app.eval.runner import code_version, run_systems

    results = run_systems("charge", [{"id": "x", "charges": ["盗窃"]}], {"s": lambda item: {}}, tmp_path / "r.jsonl")
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert results[0]["code"] == code_version() and code_version().startswith(head)


def test_result_lines_hold_no_gold_which_is_reattached_from_the_items(tmp_path: Any) -> None:
    from app.eval.runner import run_systems
    from tools.errors import InputError

    items = [{"id": "a", "charges": ["盗窃"]}, {"id": "b", "charges": ["抢劫"]}]
    path = tmp_path / "r.jsonl"
    first = run_systems("charge", items[:1], {"s": lambda item: {"charges": ["诈骗"]}}, path)
    assert first[0]["gold"] == {"articles": [], "charges": ["盗窃"]}
    assert "gold" not in path.read_text(encoding="utf-8") and "盗窃" not in path.read_text(encoding="utf-8")
    # Resumed with a smaller slice of the same file: the recorded line gets its gold back; nothing reruns.
    calls: list[str] = []
    again = run_systems(
        "charge", items[1:], {"s": lambda item: calls.append(item["id"]) or {}}, path, recorded_items=items
    )
    assert calls == ["b"]
    assert [r["gold"]["charges"] for r in again] == [["盗窃"], ["抢劫"]]
    with pytest.raises(InputError, match="1 item\\(s\\) not in this data file \\(a\\)"):
        run_systems("charge", items[1:], {"s": lambda item: {}}, path)


def _verdict(article_id: str, applicable: bool, decided_by: str = "rule") -> dict[str, Any]:
    return {"article_id": article_id, "applicable": applicable, "decided_by": decided_by, "reason": "", "checks": []}


def test_audit_verdicts_are_scored_against_the_gold_articles() -> None:
    audited = [_ljp(i, ["盗窃"], ["刑法:264"], 6, ["刑法:264"], 6) for i in "ab"]
    for r in audited:
        r["system"] = "full"
    audited[0]["prediction"]["verdicts"] = [
        _verdict("刑法:264", False),  # gold, pruned
        _verdict("刑法:266", False),  # other, pruned
        _verdict("刑法:263", True, "unverified"),
    ]
    audited[1]["prediction"]["verdicts"] = [_verdict("刑法:264", True, "retained"), _verdict("刑法:267", True)]
    unaudited = _ljp("a", ["盗窃"], ["刑法:264"], 6, ["刑法:264"], 6)
    systems = summarise("ljp", [*audited, unaudited], with_ci=False)["systems"]
    m = {k: v["value"] for k, v in systems["full"]["metrics"].items()}
    assert m["audit_gold_pruned"] == 0.5  # one of the two gold verdicts
    assert m["audit_other_pruned"] == pytest.approx(1 / 3, abs=1e-4)  # 266 of 266, 263, 267
    assert m["audit_unverified"] == 0.2
    assert "audit_gold_pruned" not in systems["naive_rag"]["metrics"]  # nothing audited, nothing to score


def test_items_without_a_gold_term_in_months_are_left_out_of_the_term_metrics() -> None:
    results = [
        _ljp("a", ["盗窃"], ["刑法:264"], 6, ["刑法:264"], 10),
        _ljp("b", ["盗窃"], ["刑法:264"], 6, ["刑法:264"], 10),
        _ljp("c", ["盗窃"], ["刑法:264"], 6, ["刑法:264"], 10),
    ]
    results[1]["gold"]["term_months"] = None  # ljp-69 gives no term
    results[2]["gold"]["term_months"] = "刑期:无期"  # ljp-114 a label
    m = {k: v["value"] for k, v in summarise("ljp", results, with_ci=False)["systems"]["naive_rag"]["metrics"].items()}
    assert m["term_mae_months"] == 4.0 and m["charge_accuracy"] == 1.0  # one item for the term, three for the rest


def test_retrieval_items_without_gold_articles_are_left_out_of_recall() -> None:
    def row(item: str, gold: list[str]) -> Any:
        rankings = {"law_search": ["民法典:1", "民法典:2"]}
        prediction = {"rankings": rankings, "usage": {}, "stages_ms": {}}
        return {
            "item_id": item,
            "system": "retrieval",
            "ok": True,
            "seconds": 1.0,
            "gold": {"articles": gold},
            "prediction": prediction,
        }

    results = [row("a", ["民法典:2"]), row("b", ["民法典:9"]), row("c", [])]  # c's answer cites nothing
    retriever = summarise("retrieval", results, with_ci=False)["systems"]["retrieval"]["retrievers"]["law_search"]
    assert retriever["recall@1"]["value"] == 0.0 and retriever["recall@5"]["value"] == 0.5
    assert retriever["mrr"]["value"] == 0.25


def test_derived_checks_become_metrics_of_every_system() -> None:
    results = [_ljp("a", ["盗窃"], ["刑法:264"], 6, [], 6), _ljp("b", [], [], 0, [], 6)]
    results[0]["derived"] = {
        "lawbench_charge_f1": 1.0,
        "lawbench_charge_abstained": False,
        "lawbench_article_f1": 1.0,
        "lawbench_article_abstained": False,
        "term_in_range": True,
    }
    results[1]["derived"] = {
        "lawbench_charge_f1": 0.0,
        "lawbench_charge_abstained": True,
        "lawbench_article_f1": 0.0,
        "lawbench_article_abstained": True,
        "term_in_range": None,  # no convicted article: not counted either way
    }
    m = {k: v["value"] for k, v in summarise("ljp", results, with_ci=False)["systems"]["naive_rag"]["metrics"].items()}
    assert (m["lawbench_charge_f1"], m["lawbench_charge_abstention"]) == (0.5, 0.5)
    assert (m["lawbench_article_f1"], m["term_in_range_share"]) == (0.5, 1.0)
    consult = [
        {
            "item_id": i,
            "system": "full",
            "ok": True,
            "seconds": 1.0,
            "gold": {"articles": [], "answer": "x"},
            "prediction": {"answer": "x", "cited": [], "cited_in_kb": [], "usage": results[0]["prediction"]["usage"]},
            "derived": {"claims": claims},
        }
        for i, claims in (("a", {"supported": 3, "unsupported": 1}), ("b", {"supported": 0, "unsupported": 0}))
    ]
    metrics = summarise("consult", consult, with_ci=False)["systems"]["full"]["metrics"]
    assert metrics["supported_claim_share"]["value"] == 0.75


def test_full_is_compared_with_each_baseline_item_by_item() -> None:
    def result(item: str, system: str, charges: list[str]) -> Any:
        r = _ljp(item, charges, ["刑法:264"], 6, [], 6)
        return {**r, "system": system}

    results = [result(i, "full", ["盗窃"]) for i in "abcd"]
    results += [result(i, "naive_rag", ["盗窃" if i == "a" else "抢劫"]) for i in "abcde"]  # e: full lacks it
    summary = summarise("ljp", results)
    paired = summary["paired"]["full - naive_rag"]
    assert paired["items"] == 4
    assert paired["charge_accuracy"]["value"] == 0.75  # 4/4 against 1/4 on the same four items
    low, high = paired["charge_accuracy"]["ci95"]
    assert 0 < low <= 0.75 <= high <= 1
    assert "## Paired: full - naive_rag (4 items" in render_report(summary)
    assert "paired" not in summarise("ljp", results, with_ci=False)
    # Any two systems, e.g. one run's full against another's (benchmarks/paired_runs.py): b - a.
    relabelled = [{**r, "system": "after" if r["system"] == "naive_rag" else "before"} for r in results]
    other = paired_comparison("ljp", relabelled, compared=("after", ["before"]))["after - before"]
    assert other["items"] == 4 and other["charge_accuracy"]["value"] == -0.75


def test_the_two_part_opinion_is_scored_as_the_references_are_written() -> None:
    usage = {"llm_calls": 1, "prompt_tokens": 1, "completion_tokens": 1}
    reference = "回答:醉驾处拘役。法律依据:醉酒驾驶机动车的，处拘役，并处罚金。"
    graph = {"answer": "醉驾处拘役。", "cited": ["刑法:133-1"], "cited_in_kb": ["刑法:133-1"], "usage": usage}
    graph["basis"] = {"刑法:133-1": "醉酒驾驶机动车的，处拘役，并处罚金。"}
    baseline = {"answer": "醉驾处拘役。", "cited": [], "cited_in_kb": [], "usage": usage}
    results = [
        {
            "item_id": "a",
            "system": s,
            "ok": True,
            "seconds": 1.0,
            "gold": {"articles": [], "answer": reference},
            "prediction": p,
        }
        for s, p in (("full", graph), ("naive_rag", baseline))
    ]
    systems = summarise("consult", results, with_ci=False)["systems"]
    full, naive = systems["full"]["metrics"], systems["naive_rag"]["metrics"]
    assert full["rouge_l_opinion"]["value"] == 1.0 and full["rouge_l"]["value"] == naive["rouge_l"]["value"] < 1
    assert naive["rouge_l_opinion"]["value"] < 1
