"""The judge's checks that a fact states an offence at all, on their own (the graph's use is in test_judge_graph)."""

from __future__ import annotations

from agents.common.no_offence import not_a_crime, offences_stated
from tools.law.charge_model import OffenceFloor

NEAR = ("交通肇事", "刑法:133", 0.6)
"""A nearest offence well above the floor: the other checks decide."""
FLOOR = OffenceFloor(0.15)


def test_a_charge_whose_element_the_fact_does_not_state_is_set_aside_and_named() -> None:
    fact = "被告人驾驶机动车闯红灯，被电子警察拍下，交警部门对其处以罚款并记6分。"
    kept, [record] = offences_stated(["交通肇事"], fact, NEAR, "zh", FLOOR)
    assert kept == [] and record["by"] == "element" and record["article"] == "刑法:133"
    assert "致人重伤、死亡或者使公私财产遭受重大损失" in record["reason"]
    assert not_a_crime([record], "zh").startswith("不构成犯罪：交通肇事（刑法:133）须有")
    # The same violation with a death is the offence.
    killed = fact.replace("闯红灯", "闯红灯撞死行人")
    assert offences_stated(["交通肇事"], killed, NEAR, "zh", FLOOR) == (["交通肇事"], [])


def test_a_charge_under_its_threshold_goes_and_one_beside_it_stays() -> None:
    fact = "被告人盗窃超市洗发水一瓶价值58元，逃跑时持刀将追赶的保安捅成重伤。"
    kept, [record] = offences_stated(["盗窃", "故意伤害"], fact, NEAR, "zh", FLOOR)
    assert kept == ["故意伤害"] and record["by"] == "threshold" and record["charge"] == "盗窃"


def test_the_checks_come_in_order_victim_untold_floor() -> None:
    victim = "我家昨晚被小偷撬门入室，丢失了一台笔记本电脑。"
    assert [r["by"] for r in offences_stated(["盗窃"], victim, NEAR, "zh", FLOOR)[1]] == ["victim"]
    weak = ("劫夺被押解人员", "刑法:316", 0.05)
    quarrel = "被告人李某在邻居家门口骂了几句脏话。"
    [record] = offences_stated(["劫夺被押解人员"], quarrel, weak, "zh", FLOOR)[1]
    assert record["by"] == "floor" and record["stated"] == "0.05" and record["floor"] == "0.15"
    assert "覆盖最多的是劫夺被押解人员（刑法:316），也只有 0.05" in record["reason"]
    none = ("劫夺被押解人员", "刑法:316", 0.0)  # no words shared at all: no offence is named as the nearest
    [record] = offences_stated(["劫夺被押解人员"], quarrel, none, "zh", FLOOR)[1]
    assert record["reason"] == "事实没有讲述任何罪名的罪状：它与刑法各罪罪状的用语都不相合"
    # The best-scored charge's act never told, nothing stood in: said so, with the charge named.
    [record] = offences_stated([], quarrel, NEAR, "zh", FLOOR, untold=("盗窃", "刑法:264"))[1]
    assert record["by"] == "untold" and "盗窃（刑法:264）的行为" in record["reason"]
    assert offences_stated([], quarrel, NEAR, "zh", FLOOR) == ([], [])  # nothing proposed, nothing to say
