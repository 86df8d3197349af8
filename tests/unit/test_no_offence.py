"""The judge's checks that a fact states an offence at all, on their own (the graph's use is in test_judge_graph)."""

from __future__ import annotations

from agents.common.no_offence import decide_charges, look_further, not_a_crime, offences_stated
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


ARTICLES = {"盗窃": ["刑法:264"], "危险驾驶": ["刑法:133-1"], "危害珍贵、濒危野生动物": ["刑法:341"]}


def test_a_proposal_set_aside_gives_way_to_the_next_candidate_the_fact_states() -> None:
    # 非法狩猎 was proposed and set aside (nobody hunted: the animals were bought). The candidate ranked under it,
    # with evidence of its own, is an offence whose elements the fact does not lack (issue 86).
    fact = "被告人王某从他人处收购国家二级重点保护野生动物穿山甲2只，运回家中饲养后出售。"
    [record] = offences_stated(["非法狩猎"], fact, NEAR, "zh", FLOOR)[1]
    assert record["by"] == "element"
    ranked = [("非法狩猎", 0.87), ("危害珍贵、濒危野生动物", 0.83), ("盗窃", 0.06)]
    assert look_further(ranked, {"非法狩猎"}, fact, 0.2, ARTICLES, "zh") == (["危害珍贵、濒危野生动物"], [])
    # Evidence of its own means the stand-in's bar: a candidate under it is no proof of an offence.
    weak = [("非法狩猎", 0.87), ("危害珍贵、濒危野生动物", 0.15)]
    assert look_further(weak, {"非法狩猎"}, fact, 0.2, ARTICLES, "zh") == ([], [])
    # The neighbours' check runs on the candidate as on any proposal, and decides what stands.
    checked = look_further(ranked, {"非法狩猎"}, fact, 0.2, ARTICLES, "zh", lambda charges: ["盗窃"])
    assert checked[0] == [] and [(r["by"], r["charge"]) for r in checked[1]] == [("untold", "盗窃")] == [
        (r["by"], r["charge"]) for r in look_further([("盗窃", 0.3)], set(), fact, 0.2, ARTICLES, "zh")[1]
    ]


def test_a_charge_sheet_states_an_offence_so_its_own_evidence_is_enough_under_the_bar() -> None:
    told = "被告人王某以曝光其隐私相要挟，向李某索要人民币5万元，李某被迫交付。"
    ranked = [("故意伤害", 0.6), ("敲诈勒索", 0.1)]
    # An everyday account: a candidate under the bar is no proof of an offence, whatever its words.
    assert look_further(ranked, {"故意伤害"}, told, 0.2, ARTICLES, "zh") == ([], [])
    assert decide_charges(["故意伤害"], ranked, told, {}, ARTICLES, NEAR, "zh", 0.2).proposed == []
    # Looking below the bar, the candidate whose element the fact itself states is taken, though the scorer ranked
    # it low; one the fact gives no evidence of is not.
    assert look_further(ranked, {"故意伤害"}, told, 0.2, ARTICLES, "zh", below=True) == (["敲诈勒索"], [])
    assert (
        look_further([("故意伤害", 0.6), ("抢劫", 0.1)], {"故意伤害"}, told, 0.2, ARTICLES, "zh", below=True)[0] == []
    )
    # The decision looks below the bar for a charge sheet (公诉机关指控) whose proposal's act is untold, not for a
    # sheet whose offence is told under its floor (a 58-yuan theft is no other crime).
    sheet = "公诉机关指控：" + told.replace("向李某", "向被害人李某")
    assert decide_charges(["故意伤害"], ranked, sheet, {}, ARTICLES, NEAR, "zh", 0.2).proposed == ["敲诈勒索"]
    small = "公诉机关指控：被告人王某盗窃超市洗发水一瓶，价值58元，赃物已追回。"
    concealing = [("盗窃", 0.6), ("掩饰、隐瞒犯罪所得、犯罪所得收益", 0.1)]
    assert decide_charges(["盗窃"], concealing, small, {}, ARTICLES, NEAR, "zh", 0.2).proposed == []


def test_a_charge_sheet_s_candidate_the_nearest_judged_cases_convicted_of_is_looked_at_under_the_bar() -> None:
    # cail-test-69: the pre-judgment's 诈骗 is untold; the judged cases nearest the fact convicted of the invoice
    # offence the scorer ranked under the bar (its vote), which the sheet then states.
    sheet = "公诉机关指控：被告人曾某某购买假发票一批，在其铺位打印后以1.5元至5元不等的价格销售牟利，共售出约300张。"
    ranked = [("诈骗", 0.15), ("为亲友非法牟利", 0.044), ("非法制造、出售非法制造的发票", 0.043)]
    invoice = "非法制造、出售非法制造的发票"
    assert decide_charges(["诈骗"], ranked, sheet, {}, ARTICLES, NEAR, "zh", 0.2).proposed == []
    voted = decide_charges(["诈骗"], ranked, sheet, {}, ARTICLES, NEAR, "zh", 0.2, None, {invoice})
    assert voted.proposed == [invoice]
    # An everyday account is no charge sheet: precedents alone convict nobody.
    told = sheet.removeprefix("公诉机关指控：")
    assert decide_charges(["诈骗"], ranked, told, {}, ARTICLES, NEAR, "zh", 0.2, None, {invoice}).proposed == []


def test_every_candidate_looked_at_is_named_with_what_it_lacks() -> None:
    fact = "被告人宋某驾驶机动车前喝了一瓶啤酒，被查获时呼气酒精含量为30mg/100ml，车辆撞上路边护栏，无人受伤。"
    ranked = [("交通肇事", 0.9), ("盗窃", 0.5), ("危险驾驶", 0.4), ("故意伤害", 0.1)]
    kept, records = look_further(ranked, {"交通肇事"}, fact, 0.2, ARTICLES, "zh")
    assert kept == [] and [(r["by"], r["charge"], r["article"]) for r in records] == [
        ("untold", "盗窃", "刑法:264"),
        ("threshold", "危险驾驶", "刑法:133-1"),
    ]
    first = offences_stated(["交通肇事"], fact, NEAR, "zh", FLOOR)[1]
    reason = not_a_crime(first + records, "zh")
    assert reason.startswith("不构成犯罪：交通肇事（刑法:133）须有")
    assert "；事实没有讲述盗窃（刑法:264）的行为；" in reason
    assert "30毫克/100毫升" in reason and reason.endswith("；其他候选罪名的证据都不足以单独成立")
    # A victim's own account names no candidate: nothing was set aside one by one.
    victim = offences_stated(["盗窃"], "我家昨晚被小偷撬门入室，丢失了一台笔记本电脑。", NEAR, "zh", FLOOR)[1]
    assert not not_a_crime(victim, "zh").endswith("其他候选罪名的证据都不足以单独成立")


def test_the_decision_runs_every_check_in_the_order_the_judge_graph_runs_them() -> None:
    # One function decides for the graph's node and for the replays: told acts, families, relations, the offence
    # checks, then the next candidates with evidence of their own.
    baby = "被告人将自己刚满月的女儿遗弃于村东侧水塘旁边的一干沟内，后该女婴被他人抱走。"
    ranked = [("遗弃伤病军人", 0.6), ("故意杀人", 0.1)]
    d = decide_charges(["遗弃伤病军人"], ranked, baby, {}, {}, NEAR, "zh", 0.2)
    assert d.told == ["遗弃伤病军人"] and d.families == d.proposed == ["遗弃"] and not d.no_offence
    # A quarrel: the assault's act is untold, so the candidate with evidence of its own stands in and is set aside
    # on its element; nothing under the bar of own evidence is looked at.
    quarrel = "被告人与邻居因停车位发生口角，双方互相指责，后经社区调解平息。"
    ranked = [("故意伤害", 0.5), ("寻衅滋事", 0.3), ("侮辱", 0.1)]
    d = decide_charges(["故意伤害"], ranked, quarrel, {}, {"故意伤害": ["刑法:234"]}, NEAR, "zh", 0.2)
    assert d.told == ["寻衅滋事"] and d.proposed == [] and [r["charge"] for r in d.no_offence] == ["寻衅滋事"]


def test_an_offence_needs_its_subject_its_act_and_its_object_each_way() -> None:
    """The element table's categories, each way: an injury the one judged suffered, or a scuffle that hurt no one,
    is no 故意伤害; a post with no taking is no 贪污; a reprimand received is no criticism made (254); a licensed
    hunt breaks no hunting rule (341)."""
    stated = {
        "故意伤害": "被告人与邻居争吵，用拳头打伤邻居面部，经鉴定为轻伤二级。",
        "贪污": "被告人系某镇政府出纳，利用职务上的便利，将公款3万元据为己有。",
        "报复陷害": "被告人系镇长，因村民向纪委举报其违纪，指使他人以莫须有的理由扣押该村民的货车。",
        "非法狩猎": "被告人在禁猎期内使用铁夹在山上猎捕野兔十余只。",
        "破坏生产经营": "被告人因不满老板，用铁棍砸坏工厂的生产设备，致工厂停产。",
    }
    missing = {
        "故意伤害": [
            "被告人骑自行车下坡时摔倒，自己手臂骨折。",
            "被告人在车间操作机器时被划伤手指，工厂为其申报了工伤。",
            "被告人与他人互相推搡了几下，无人受伤。",
        ],
        "贪污": ["被告人系某区法院书记员，按规定领取了本月工资。"],
        "报复陷害": ["被告人在景区违规攀爬，被景区工作人员批评教育。"],
        "非法狩猎": ["被告人在规定的狩猎期内于指定猎区用弓箭猎捕野兔两只。"],
        "破坏生产经营": ["被告人的工厂因原材料涨价未能按期交货，客户要求支付违约金。"],
    }
    for charge, fact in stated.items():
        assert offences_stated([charge], fact, NEAR, "zh", FLOOR) == ([charge], []), charge
    for charge, facts in missing.items():
        for fact in facts:
            kept, [record] = offences_stated([charge], fact, NEAR, "zh", FLOOR)
            assert kept == [] and record["by"] == "element", (charge, fact)
