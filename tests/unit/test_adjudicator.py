"""Evidence numbering and the pure parts of the judge's Researcher and Auditor."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agents.adjudicator import (
    REASONING_CHARS,
    describe_proposal,
    format_judge_evidence,
    number_evidence,
    whole_sentences,
)
from agents.common.conviction import convict
from agents.context import JudgeContext
from agents.context.experiment import MeasuredJudge
from agents.research_audit import judge_candidates, surviving_cases
from agents.researcher import articles_of, fuse_strategies
from agents.state.judge import CaseRef, ScoredCharge
from tools.law.charge_names import MAX_CHARGE_CHARS, abridging, ground_charge
from tools.retrieval.research_weights import ResearchWeights, fitted_research_weights


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
    # Priors off: this is about the strategies' weights alone.
    ctx = JudgeContext(model="fake")
    fitted = ResearchWeights(fitted_research_weights().strategy)
    assert fuse_strategies(rankings, ctx, 2, weights=fitted) == ["刑法:264", "刑法:263"]
    bm25_heavy = ResearchWeights({"charge": 0.0, "bm25": 5.0})
    assert fuse_strategies(rankings, ctx, 2, weights=bm25_heavy) == ["刑法:263", "刑法:264"]


def test_adjudicator_numbers_map_to_evidence_articles() -> None:
    from agents.adjudicator import resolve_articles

    evidence = number_evidence([("刑法:264", "", ""), ("刑法:67", "", "")], [_case("c1", ["刑法:264"])])
    # Evidence numbers (as asked), an article number present in the evidence, a case number, an unknown one.
    kept, dropped = resolve_articles([1, 67, 3, 180], evidence)
    assert kept == ["刑法:264", "刑法:67"]
    assert dropped == ["刑法:3", "刑法:180"]


def test_a_number_past_the_last_article_is_dropped_not_a_failed_judgment() -> None:
    from agents.adjudicator import Judgment, resolve_articles

    reply = {"reasoning": "依据[1]。", "charges": ["盗窃"], "articles": [1, 2640], "term_months": 6}
    judgment = Judgment.model_validate({**reply, "life_imprisonment": False, "death_penalty": False})
    evidence = number_evidence([("刑法:264", "", "")], [])
    assert resolve_articles(judgment.articles, evidence) == (["刑法:264"], ["刑法:2640"])


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


# Charges the evidence articles of ljp50 items define, as the KB's charge table names them.
_DEFINED_375 = ["伪造、变造、买卖武装部队公文、证件、印章", "伪造、盗窃、买卖、非法提供、非法使用武装部队专用标志"]


@pytest.mark.parametrize(
    ("raw", "defined", "expected"),
    [
        ("虐待家庭成员罪", ["故意伤害", "虐待"], ["虐待"]),  # ljp-65: a description containing the charge
        ("盗窃公私财物", ["盗窃", "伪造、变造、买卖身份证件"], ["盗窃"]),  # ljp-17
        ("盗窃、掩饰、隐瞒犯罪所得、犯罪所得收益", ["盗窃", "容留他人吸毒"], ["盗窃"]),  # ljp-78: two joined
        ("合同诈骗行为", ["诈骗", "合同诈骗"], ["合同诈骗"]),  # the longer charge, not both
        ("贩卖毒品行为", ["走私、贩卖、运输、制造毒品"], ["走私、贩卖、运输、制造毒品"]),  # an alternative
        ("伪造武装部队证件罪", _DEFINED_375, [_DEFINED_375[0]]),  # ljp-60: abridged
        ("非法使用武装部队专用标志", _DEFINED_375, [_DEFINED_375[1]]),
        ("窝藏、包庇、转移、隐瞒毒品、毒赃", ["诈骗", "合同诈骗"], []),  # ljp-87: nothing in the evidence
        ("伪造罪", _DEFINED_375, []),  # too short to pick one by its characters
        ("武装部队证件", ["伪造武装部队证件", "买卖武装部队证件"], []),  # two equally short: no pick
    ],
)
def test_an_unknown_charge_name_is_grounded_on_the_evidence_charges(
    raw: str, defined: list[str], expected: list[str]
) -> None:
    assert ground_charge(raw, defined) == expected


def test_a_reasoning_cut_at_the_cap_ends_at_its_last_whole_sentence() -> None:
    first = "被告人醉酒驾驶机动车，血液酒精含量92mg/100ml，构成危险驾驶罪[1]。"
    cut = (first + "参照类似判例[4][5]，" * 20)[:REASONING_CHARS]
    assert whole_sentences(cut) == first
    # Without a sentence end to go back to, the cut is marked rather than passed off as complete.
    assert whole_sentences("理" * REASONING_CHARS) == "理" * REASONING_CHARS + "…"
    # A reasoning shorter than the cap ends where the model ended it, even without a full stop.
    assert whole_sentences("依据[1]，构成盗窃罪") == "依据[1]，构成盗窃罪"
    assert whole_sentences(first + "另" * (REASONING_CHARS - len(first) - 1) + "。")[-1] == "。"


def test_penalty_companions_follow_their_articles_in_the_fusion() -> None:
    from agents.researcher import follow_companions

    companions = {"刑法:382": "刑法:383", "刑法:385": "刑法:386"}
    assert follow_companions(["刑法:382", "刑法:264", "刑法:383"], companions) == ["刑法:382", "刑法:383", "刑法:264"]
    rankings = {"bm25": ["刑法:385", "刑法:264", "刑法:67"]}
    no_priors = ResearchWeights(fitted_research_weights().strategy)
    plain = JudgeContext(model="fake")
    assert fuse_strategies(rankings, plain, 2, companions, no_priors) == ["刑法:385", "刑法:386"]
    off = MeasuredJudge(model="fake", penalty_companions=False)
    assert fuse_strategies(rankings, off, 2, companions, no_priors) == ["刑法:385", "刑法:264"]


def _scored(name: str, p: float, articles: list[str], act: int | None = None) -> ScoredCharge:
    return {"name": name, "probability": p, "signals": {}, "articles": articles, "act": act}


def test_the_audited_proposal_stands_and_additions_need_the_scorers_support() -> None:
    scored = [
        _scored("盗窃", 0.8, ["刑法:264"], 0),
        _scored("故意伤害", 0.4, ["刑法:234"], 1),
        _scored("诈骗", 0.1, ["刑法:266"]),
    ]
    ctx = JudgeContext(model="fake")
    evidence = {"刑法:264", "刑法:266", "刑法:67"}
    # The Adjudicator left out 盗窃 and added 诈骗 (supported, but scored 0.1); 故意伤害 lost its article.
    charges, refused, set_aside = convict(["诈骗"], ["盗窃", "故意伤害"], scored, evidence, ctx, floor=0.2)
    assert charges == ["盗窃"] and refused == ["charge:诈骗"]
    assert set_aside == [{"name": "故意伤害", "probability": 0.4, "reason": "定罪法条均未通过构成要件核查"}]
    assert convict(["诈骗"], ["盗窃"], scored, evidence, ctx, floor=0.05)[0] == ["盗窃", "诈骗"]
    # Without a proposal (the scorer off) the Adjudicator's supported charges are the conviction.
    assert convict(["诈骗"], [], scored, evidence, ctx) == (["诈骗"], [], [])
    shown = describe_proposal(["盗窃", "故意伤害"], scored, "zh")
    assert shown == "盗窃（0.80，第1个行为）、故意伤害（0.40，第2个行为）"


def test_a_proposed_charge_outside_the_best_articles_joins_the_audit() -> None:
    fused = ["刑法:67", "刑法:264", "刑法:72", "刑法:234"]
    scored = [_scored("盗窃", 0.8, ["刑法:264"]), _scored("故意伤害", 0.4, ["刑法:234", "刑法:95"])]
    assert judge_candidates(fused, scored, ["盗窃", "故意伤害"], 2) == ["刑法:67", "刑法:264", "刑法:234"]
    assert judge_candidates(fused, scored, ["盗窃"], 2) == ["刑法:67", "刑法:264"]


_SELECTIVE = [
    "骗取贷款、票据承兑、金融票证",
    "伪造公司、企业、事业单位、人民团体印章",
    "窝藏、包庇",
    "包庇毒品犯罪分子",
    "商检徇私舞弊",
]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("骗取贷款罪", [_SELECTIVE[0]]),  # the first alternative, as a judgment names it
        ("伪造公司印章罪", [_SELECTIVE[1]]),  # verb, one of the objects, the shared noun
        ("包庇毒品罪", [_SELECTIVE[3]]),
        ("包庇罪", []),  # too short: 窝藏、包庇 and 包庇毒品犯罪分子 both hold it
        ("印章伪造罪", []),  # the characters, not in their order
        ("徇私舞弊罪", [_SELECTIVE[4]]),  # one candidate here; the repository wants exactly one among all
    ],
)
def test_a_committed_alternative_is_found_in_its_selective_charge(raw: str, expected: list[str]) -> None:
    assert abridging(raw, _SELECTIVE) == expected
