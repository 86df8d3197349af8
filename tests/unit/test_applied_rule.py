"""The conditional answer's opening rule restated in the question's terms: the model phrases, code keeps only a
restatement that still says the rule (agents/common/applied_rule.py)."""

from __future__ import annotations

from typing import Any

import pytest

from agents.common.applied_rule import AppliedRule, faithful, kept_restatement
from agents.context import ConsultContext
from agents.state.common import LegalBasisItem
from tests.conftest import article_texts
from tools.llm.chat import empty_usage

CONDITION = "当事人一方不履行合同义务或者履行合同义务不符合约定"
CONSEQUENCE = "应当承担继续履行、采取补救措施或者赔偿损失等违约责任"
DEPOSIT = "租房到期后房东不退押金怎么办？"


def test_a_restatement_is_kept_only_where_it_still_says_the_rule() -> None:
    good = AppliedRule(
        condition="房东不按租赁合同的约定退还押金",
        consequence="房东应当承担继续履行、采取补救措施或者赔偿损失等违约责任",
    )
    assert faithful(good, CONDITION, CONSEQUENCE, DEPOSIT)
    # The parties may take the question's names; the effect stays in the rule's words.
    dog = AppliedRule(condition="邻居家的狗咬伤了您", consequence="狗主人要承担侵权责任")
    assert faithful(dog, "饲养的动物造成他人损害", "动物饲养人或者管理人应当承担侵权责任", "被狗咬伤了怎么办？")
    # A condition that drops what decides whether it is met (1165's 过错) states the rule as met.
    slip = AppliedRule(condition="在超市地面湿滑摔倒受伤，您是受害者", consequence="超市需要承担侵权责任")
    assert not faithful(slip, "行为人因过错侵害他人民事权益造成损害", "应当承担侵权责任", "在超市滑倒受伤了怎么办？")
    kept = AppliedRule(condition="超市因过错致您在湿滑地面摔倒受伤", consequence="超市应当承担侵权责任")
    assert faithful(kept, "行为人因过错侵害他人民事权益造成损害", "应当承担侵权责任", "在超市滑倒受伤了怎么办？")
    # A remedy the rule does not name (退还押金 for 违约责任) decides what the rule leaves open.
    decided = AppliedRule(condition="房东不退押金", consequence="您有权要求房东退还押金")
    assert not faithful(decided, CONDITION, CONSEQUENCE, DEPOSIT)
    # Its condition still speaks to the tenant: it is kept, with the rule's own consequence.
    assert kept_restatement(decided, CONDITION, CONSEQUENCE, DEPOSIT) == AppliedRule(
        condition="房东不退押金", consequence=CONSEQUENCE
    )
    assert kept_restatement(good, CONDITION, CONSEQUENCE, DEPOSIT) == good
    # A condition that holds the consequence too would say it twice.
    whole = AppliedRule(condition="房东不退押金，则房东应当承担违约责任", consequence="您有权要求房东退还押金")
    assert kept_restatement(whole, CONDITION, CONSEQUENCE, DEPOSIT) is None
    assert (
        kept_restatement(slip, "行为人因过错侵害他人民事权益造成损害", "应当承担侵权责任", "在超市滑倒受伤了怎么办？")
        is None
    )
    # The remedy dropped, a number added, a denial the rule does not make, 如果 doubled, or nothing written.
    dropped = AppliedRule(condition="房东不退押金", consequence="您可以去找房东协商")
    numbered = AppliedRule(
        condition="房东不退押金", consequence="房东应当承担继续履行、采取补救措施或者赔偿损失等违约责任，赔您3000元"
    )
    denied = AppliedRule(
        condition="房东不退押金", consequence="您不能要求房东承担继续履行、采取补救措施或者赔偿损失等违约责任"
    )
    doubled = AppliedRule(condition="如果房东不退押金", consequence=good.consequence)
    empty = AppliedRule(condition="", consequence="")
    for wrong in (dropped, numbered, denied, doubled, empty):
        assert not faithful(wrong, CONDITION, CONSEQUENCE, DEPOSIT), wrong
    # A clause of its own beyond the person's fact adds a condition the rule does not have (a thread's follow-up).
    drunk = ("醉酒驾驶机动车", "由公安机关交通管理部门约束至酒醒，吊销机动车驾驶证，依法追究刑事责任")
    thread = "如果撞伤了人呢？\n醉驾怎么处罚？"
    consequence = "公安机关交通管理部门将约束至酒醒，吊销您的机动车驾驶证，并依法追究刑事责任"
    added = AppliedRule(
        condition="您撞伤了人，而对方是您的雇主或承租人，且您在醉酒状态下驾驶机动车", consequence=consequence
    )
    assert not faithful(added, *drunk, thread)
    assert faithful(AppliedRule(condition="您醉酒驾驶机动车撞伤了人", consequence=consequence), *drunk, thread)


def test_the_opening_speaks_to_the_person_with_the_provisos_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    import agents.claim_check as claim_check

    asked: list[tuple[str, str, str]] = []

    def fake_applied(_ctx: Any, question: str, condition: str, consequence: str) -> tuple[AppliedRule, Any]:
        asked.append((question, condition, consequence))
        return AppliedRule(condition="邻居家的狗咬伤了您", consequence="狗的主人应当承担侵权责任"), empty_usage()

    monkeypatch.setattr(claim_check, "applied_rule", fake_applied)
    item: LegalBasisItem = {"article_id": "民法典:1245", "law": "中华人民共和国民法典", "number": "第一千二百四十五条",
                            "text": article_texts()["民法典:1245"]}  # fmt: skip
    sentence, _ = claim_check.phrased_opening(item, "被邻居家的狗咬伤了，狗主人要承担什么责任？", ConsultContext())
    assert asked == [
        ("被邻居家的狗咬伤了，狗主人要承担什么责任？", "饲养的动物造成他人损害", "动物饲养人或者管理人应当承担侵权责任")
    ]
    # The restated rule, then the proviso as the statute words it: what follows the other way.
    assert sentence.startswith("如果邻居家的狗咬伤了您，则狗的主人应当承担侵权责任；但是，能够证明损害是因被侵权人故意")
    assert sentence.endswith("（《中华人民共和国民法典》第一千二百四十五条）。")

    def rejected(*_: Any) -> tuple[None, Any]:
        return None, empty_usage()

    monkeypatch.setattr(claim_check, "applied_rule", rejected)
    assert claim_check.phrased_opening(item, "被狗咬了怎么办？", ConsultContext())[0] == ""


def test_a_nested_rule_or_the_question_as_the_condition_is_no_restatement() -> None:
    # s65-everyday-report20: the model copied the question into the condition and the rule into the consequence.
    asked = "被邻居家的狗咬伤了，狗主人要承担什么责任？"
    copied = AppliedRule(
        condition=asked,
        consequence="如果禁止饲养的烈性犬等危险动物造成他人损害，则动物饲养人或者管理人应当承担侵权责任",
    )
    assert not faithful(copied, "禁止饲养的烈性犬等危险动物造成他人损害", "动物饲养人或者管理人应当承担侵权责任", asked)
    twice = AppliedRule(
        condition="您只有转账记录，对方说是还以前的债",
        consequence="对方应当对其主张提供证据证明，则如果原告仅依据转账凭证起诉，被告应当对其主张提供证据证明",
    )
    rule = (
        "原告仅依据金融机构的转账凭证提起民间借贷诉讼，被告抗辩转账系偿还双方之前借款或者其他债务",
        "被告应当对其主张提供证据证明",
    )
    assert not faithful(twice, *rule, "只有微信转账记录能起诉吗？")
    plain = AppliedRule(condition="您只有转账记录，对方说是还以前的债", consequence="对方应当对其主张提供证据证明")
    assert faithful(plain, *rule, "只有微信转账记录能起诉吗？")
