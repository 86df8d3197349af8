"""The consult graph's routers and the pure helpers of its agents, on hand-made states (no stores)."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from agents.auditor import answers_schema, decide_by_rule
from agents.common.answers import format_problems
from agents.context import ConsultContext
from agents.context.experiment import MeasuredConsult
from agents.element import MAX_KEPT, merge_elements
from agents.law_search import build_query, merge_evidence
from agents.manager import PLANS
from agents.research_audit import retain_best
from agents.state.audit import CheckResult, Verdict
from agents.state.consult import ConsultState
from graphs.consult import route_after_draft, route_after_format, route_after_topic, route_manager
from tests.conftest import evidence_item
from tools.errors import InputError
from tools.llm.fake import minimal_instance
from tools.retrieval.hybrid import route_collections, select_collections
from tools.retrieval.vectors import CASES, COMMUNITY_REPORTS, INTERPRETATIONS, STATUTES


def _state(**values: object) -> ConsultState:
    return ConsultState(question="醉驾怎么处罚？", **values)  # type: ignore[arg-type]


def _runtime(**values: object) -> Runtime[ConsultContext]:
    return Runtime(context=MeasuredConsult(model="fake", **values))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("decision", "first"),
    [
        ("Pass", "check_content"),
        ("FormatCheck", "check_format"),
        ("LawSearch", "search_law"),
        ("FormatCheck+LawSearch", "check_format"),
    ],
)
def test_route_manager_follows_the_plan(decision: str, first: str) -> None:
    assert route_manager(_state(plan=PLANS[decision])) == first


def test_format_check_goes_on_to_law_search_only_when_planned() -> None:
    assert route_after_format(_state(plan=PLANS["FormatCheck+LawSearch"])) == "search_law"
    assert route_after_format(_state(plan=PLANS["FormatCheck"])) == "draft_answer"


@pytest.mark.parametrize(
    ("done", "max_rounds", "expected"),
    [(0, 5, "review_draft"), (4, 5, "review_draft"), (5, 5, "check_content"), (0, 0, "check_content")],
)
def test_rounds_are_bounded(done: int, max_rounds: int, expected: str) -> None:
    assert route_after_draft(_state(round=done), _runtime(max_rounds=max_rounds)) == expected


def test_an_unchanged_format_revision_ends_the_loop() -> None:
    # The local model's Manager asked FormatCheck five times for an English draft it never changed.
    assert route_after_draft(_state(round=1, stalled=True), _runtime(max_rounds=5)) == "check_content"


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ({}, "search_law"),
        ({"use_elements": False}, "search_law"),
        ({"initial_search": False}, "extract_elements"),
        ({"use_elements": False, "initial_search": False}, "draft_answer"),
    ],
)
def test_route_after_topic(flags: dict[str, bool], expected: str) -> None:
    assert route_after_topic(_state(), _runtime(**flags)) == expected
    assert route_after_topic(_state(declined=True), _runtime(**flags)) == "__end__"


def test_format_problems_are_found_by_code() -> None:
    good = "回答：构成危险驾驶罪[刑法:133-1]。\n引用：[刑法:133-1]"
    assert format_problems(good, {"刑法:133-1"}) == []
    assert format_problems("回答：醉驾处拘役。引用：[刑法:133-1]", {"刑法:133-1"}) == []
    problems = format_problems("构成危险驾驶罪[刑法:999]。", {"刑法:133-1"})
    assert problems[0].startswith("缺少以“回答：”") and problems[1].startswith("缺少以“引用：”")
    assert "刑法:999" in problems[2]


def _check(holds: bool) -> CheckResult:
    return {"item": "x", "holds": holds, "reason": "", "stated": True}


def test_checklist_rule_decides_only_unanimous_lists() -> None:
    assert decide_by_rule([_check(True), _check(True)]) is True
    assert decide_by_rule([_check(False), _check(False)]) is False
    assert decide_by_rule([_check(True), _check(False)]) is None


def test_answers_schema_demands_one_answer_per_item() -> None:
    schema = answers_schema(3).model_json_schema()
    assert schema["properties"]["answers"]["minItems"] == schema["properties"]["answers"]["maxItems"] == 3
    with pytest.raises(ValueError, match="at least 3"):
        answers_schema(3).model_validate({"answers": [{"reason": "", "holds": True}]})


def test_answers_without_reasons_admit_a_boolean_per_item_and_nothing_else() -> None:
    schema = answers_schema(2, reasons=False).model_json_schema()
    item = schema["$defs"]["ItemHolds"]
    assert item["required"] == ["holds"] and set(item["properties"]) == {"holds"}
    parsed = answers_schema(2, reasons=False).model_validate({"answers": [{"holds": True}, {"holds": False}]})
    assert [a.holds for a in parsed.answers] == [True, False]  # type: ignore[attr-defined]
    assert "reason" in answers_schema(2).model_json_schema()["$defs"]["ItemCheck"]["required"]


def test_merge_evidence_puts_new_hits_first_without_duplicates() -> None:
    merged = merge_evidence(
        [evidence_item("a"), evidence_item("b")], [evidence_item("b"), evidence_item("c"), evidence_item("d")], 3
    )
    assert [e["article_id"] for e in merged] == ["a", "b", "c"]


def test_merge_elements_keeps_earlier_turns_bounded() -> None:
    earlier = {"key_facts": ["醉驾", "夜间"], "entities": [{"name": "张三"}]}
    new = {"key_facts": ["撞伤路人", "醉驾"], "entities": [{"name": "张三"}], "errors": ["e"]}
    merged = merge_elements(earlier, new)
    assert merged["key_facts"] == ["撞伤路人", "醉驾", "夜间"]
    assert merged["entities"] == [{"name": "张三"}]
    assert merged["errors"] == ["e"] and merged["legal_questions"] == []
    many = merge_elements({"key_facts": [str(i) for i in range(20)]}, {"key_facts": ["new"]})
    assert len(many["key_facts"]) == MAX_KEPT and many["key_facts"][0] == "new"


def test_search_query_reads_the_answer_part_of_the_draft() -> None:
    query = build_query("问题", {"key_facts": ["醉驾"]}, "回答：属于盗窃。\n引用：[刑法:264]")
    assert query == "问题\n醉驾\n属于盗窃。"


def test_domain_routing_of_collections() -> None:
    counts = {INTERPRETATIONS: 10, CASES: 5, COMMUNITY_REPORTS: 0}
    assert route_collections("盗窃罪怎么判？", counts) == (
        [STATUTES, INTERPRETATIONS, CASES],
        {COMMUNITY_REPORTS: "empty"},
    )
    chosen, skipped = route_collections("离婚后孩子归谁抚养？", counts)
    assert chosen == [STATUTES, INTERPRETATIONS] and skipped[CASES] == "not a criminal question"
    assert route_collections("盗窃", {}) == (
        [STATUTES],
        {INTERPRETATIONS: "empty", CASES: "empty", COMMUNITY_REPORTS: "empty"},
    )
    # The model's choice, restricted to what exists.
    chosen, skipped = select_collections([CASES, COMMUNITY_REPORTS], counts, "router: not for 民事")
    assert chosen == [STATUTES, CASES]
    assert skipped == {INTERPRETATIONS: "router: not for 民事", COMMUNITY_REPORTS: "empty"}


def test_fake_model_picks_the_first_enum_value_and_answers_yes() -> None:
    schema = {
        "type": "object",
        "required": ["d", "b"],
        "properties": {"d": {"enum": ["Pass", "LawSearch"], "type": "string"}, "b": {"type": "boolean"}},
    }
    assert minimal_instance(schema) == {"d": "Pass", "b": True}


def test_context_overrides_are_typed() -> None:
    ctx = ConsultContext(model="fake").with_overrides(
        ["audit=false", "audit_k=3", "stated_item_share=1", "router=rules"]
    )
    assert (ctx.audit, ctx.audit_k, ctx.stated_item_share, ctx.router) == (False, 3, 1.0, "rules")
    assert ctx.with_overrides(['models={"draft": "x:y"}']).model_for("draft") == "x:y"
    with pytest.raises(InputError, match="audit_k needs a int"):
        ctx.with_overrides(["audit_k=many"])
    with pytest.raises(InputError, match="key one of"):
        ctx.with_overrides(["nope=1"])
    assert ctx.with_overrides(["audit_mixed=model"]).audit_mixed == "model"
    with pytest.raises(InputError, match="audit_mixed is one of keep, model"):
        ctx.with_overrides(["audit_mixed=prune"])


def test_settings_out_of_range_are_refused_however_they_are_set() -> None:
    from dataclasses import fields

    from agents.context import GlobalSearchContext, JudgeContext

    with pytest.raises(InputError, match=r"top_k=-5: must lie in 1 to inf"):
        ConsultContext(top_k=-5)
    with pytest.raises(InputError, match=r"max_rounds=-3"):
        ConsultContext(model="fake").with_overrides(["max_rounds=-3"])
    with pytest.raises(InputError, match=r"structured_retries=-1"):
        JudgeContext(model="fake").with_overrides(["structured_retries=-1"])
    with pytest.raises(InputError, match=r"charge_confidence=nan"):
        JudgeContext(model="fake").with_overrides(["charge_confidence=NaN"])
    with pytest.raises(InputError, match=r"prejudge='maybe': choose one of on, off, with_hints"):
        JudgeContext(model="fake", prejudge="maybe")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"unknown role 'drafter'"):
        ConsultContext(model="fake", models={"drafter": "fake"})
    # One small Context per graph; every field says what it does.
    for cls in (ConsultContext, JudgeContext, GlobalSearchContext):
        assert len(fields(cls)) <= 30
        assert all(f.metadata["description"] for f in fields(cls))


def _verdict(article_id: str, applicable: bool, decided_by: str = "rule") -> Verdict:
    return {"article_id": article_id, "applicable": applicable, "reason": "", "checks": [], "decided_by": decided_by}


def test_retain_best_keeps_the_best_charge_defining_candidate_when_all_failed() -> None:
    convicting = {"刑法:236", "刑法:264"}
    # 刑法:98 (告诉才处理) survived, but it defines no charge: the best defining one comes back.
    failed = [_verdict("刑法:98", True), _verdict("刑法:236", False), _verdict("刑法:264", False)]
    kept = retain_best(failed, "en", convicting)
    assert [(v["article_id"], v["applicable"], v["decided_by"]) for v in kept] == [
        ("刑法:98", True, "rule"),
        ("刑法:236", True, "retained"),
        ("刑法:264", False, "rule"),
    ]
    assert not failed[1]["applicable"]  # the input is not mutated
    one_holds = [_verdict("刑法:236", False), _verdict("刑法:264", True)]
    assert retain_best(one_holds, "en", convicting) == one_holds
    assert retain_best([], "en", convicting) == []
    reviewed = [_verdict("刑法:236", False, "reviewer"), _verdict("刑法:264", False)]
    assert retain_best(reviewed, "en", convicting)[1]["decided_by"] == "retained"  # a person's rejection is final
    assert retain_best(reviewed[:1], "en", convicting) == reviewed[:1]
