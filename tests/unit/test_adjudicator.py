"""Evidence numbering and the pure parts of the judge's Researcher and Auditor."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agents.adjudicator import format_judge_evidence, number_evidence
from agents.auditor import surviving_cases
from agents.researcher import articles_of, fuse_research
from app.context import Context
from graphs.state import CaseRef
from tools.charges import MAX_CHARGE_CHARS


def _case(case_id: str, articles: list[str], score: float = 1.0) -> CaseRef:
    return {
        "case_id": case_id,
        "score": score,
        "strategy": "cases",
        "charges": ["盗窃"],
        "articles": articles,
        "outcome": "罪名：盗窃；刑期：有期徒刑6个月",
        "fact": "被告人盗窃",
    }


def test_evidence_is_numbered_articles_first() -> None:
    evidence = number_evidence([("刑法:264", "第二百六十四条", "盗窃公私财物……")], [_case("c1", ["刑法:264"])])
    assert [(e["n"], e["kind"], e["id"]) for e in evidence] == [(1, "article", "刑法:264"), (2, "case", "c1")]
    assert evidence[0]["text"] == "第二百六十四条：盗窃公私财物……"
    shown = format_judge_evidence(evidence)
    assert shown.splitlines()[0].startswith("[1] 法条 刑法:264") and "（罪名：盗窃" in shown.splitlines()[1]


def test_cases_citing_a_pruned_article_are_pruned() -> None:
    cases = [_case("a", ["刑法:264", "刑法:67"]), _case("b", ["刑法:234"]), _case("c", [])]
    assert surviving_cases(cases, {"刑法:264"}) == ["b", "c"]


def test_articles_of_cases_are_ranked_by_summed_score() -> None:
    cases = [_case("a", ["刑法:264", "刑法:67"], 0.5), _case("b", ["刑法:67"], 0.4), _case("c", ["刑法:264"], 0.1)]
    assert articles_of(cases) == ["刑法:67", "刑法:264"]


def test_fusion_weights_follow_the_context() -> None:
    rankings = {"charge": ["刑法:264"], "bm25": ["刑法:263", "刑法:264"]}
    assert fuse_research(rankings, Context(model="fake"), 2) == ["刑法:264", "刑法:263"]
    bm25_heavy = Context(model="fake", strategy_weights={"charge": 0.0, "bm25": 5.0})
    assert fuse_research(rankings, bm25_heavy, 2) == ["刑法:263", "刑法:264"]


def test_adjudicator_numbers_map_to_evidence_articles() -> None:
    from agents.adjudicator import resolve_articles

    evidence = number_evidence([("刑法:264", "", ""), ("刑法:67", "", "")], [_case("c1", ["刑法:264"])])
    # Evidence numbers (as asked), an article number present in the evidence, a case number, an unknown one.
    kept, dropped = resolve_articles([1, 67, 3, 180], evidence)
    assert kept == ["刑法:264", "刑法:67"]
    assert dropped == ["刑法:3", "刑法:180"]


@pytest.mark.parametrize("schema", ["judgment", "prejudgment", "baseline"])
def test_every_judgment_schema_admits_the_longest_charge_name(schema: str) -> None:
    # Constrained decoding cuts a string at the schema's maxLength: a limit of 20 turned 虚开增值税专用发票、用于
    # 骗取出口退税、抵扣税款发票 into an unknown charge, which the judge then dropped.
    from agents.adjudicator import Judgment
    from agents.researcher import Prejudgment
    from app.eval.systems import JudgmentPrediction

    longest = "非法收购、运输、加工、出售国家重点保护植物、国家重点保护植物制品"
    assert len(longest) == MAX_CHARGE_CHARS
    model = {"judgment": Judgment, "prejudgment": Prejudgment, "baseline": JudgmentPrediction}[schema]
    term = {"term_months": 6, "life_imprisonment": False, "death_penalty": False}
    values: dict[str, Any] = {
        "judgment": {"reasoning": "r", "charges": [longest], "articles": [1], **term},
        "prejudgment": {"charges": [{"name": longest, "confidence": 0.9}], "articles": [205]},
        "baseline": {"charges": [longest], "articles": [205], **term},
    }[schema]
    assert model.model_validate(values)
    assert str(MAX_CHARGE_CHARS) in json.dumps(model.model_json_schema())  # what the decoder is held to
