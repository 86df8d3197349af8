"""Which charges may stand together for one course of conduct: every rule against its own example, and the
cases the law decides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.law.charge_relations import TABLE, load_relations, stand_together
from tools.law.tables import TableError

RULES = json.loads(TABLE.read_text(encoding="utf-8"))["rules"]


@pytest.mark.parametrize("rule", RULES, ids=[r["name"] for r in RULES])
def test_each_rule_keeps_what_its_example_says_and_cites_an_article(rule: dict[str, object]) -> None:
    example = rule["example"]
    assert isinstance(example, dict)
    kept, merged = stand_together(example["proposed"], example.get("fact", ""))
    assert kept == example["kept"]
    assert all(m.kept in kept and m.charge not in kept for m in merged)
    assert str(rule["article"]).startswith("刑法:") and rule["why"]


def test_a_bribe_is_taken_by_one_kind_of_person_never_two() -> None:
    official = "被告人系某县国土资源局科员，利用职务上的便利，收受他人现金5万元。"
    staff = "被告人系某公司采购经理，利用职务上的便利，收受供应商好处费5万元。"
    for fact, taker in ((official, "受贿"), (staff, "非国家工作人员受贿")):
        for proposed in (["受贿", "非国家工作人员受贿"], ["非国家工作人员受贿", "受贿"]):
            kept, _ = stand_together(proposed, fact)
            assert kept == [taker], (fact, proposed)


def test_the_general_fraud_article_yields_to_the_special_one() -> None:
    kept, merged = stand_together(["诈骗", "保险诈骗", "故意伤害"], "")
    assert kept == ["保险诈骗", "故意伤害"]
    assert [(m.charge, m.kept, m.article) for m in merged] == [("诈骗", "保险诈骗", "刑法:266")]
    assert stand_together(["诈骗"], "")[0] == ["诈骗"]  # alone, the general article stands


def test_smuggling_is_one_charge_per_object_the_fact_names() -> None:
    proposed = ["走私普通货物、物品", "走私废物", "走私淫秽物品"]
    assert stand_together(proposed, "被告人走私废塑料300吨。")[0] == ["走私废物"]
    assert stand_together(proposed, "被告人走私废塑料300吨，另夹带淫秽光盘500张。")[0] == ["走私废物", "走私淫秽物品"]
    assert stand_together(proposed, "被告人走私手机300部。")[0] == ["走私普通货物、物品"]


def test_mixed_cargo_keeps_the_goods_whose_tax_was_evaded_beside_what_was_hidden_in_them() -> None:
    # 2014 走私 解释 第二十二条: charged by what was actually smuggled, each offence punished together (issue 86).
    proposed = ["走私珍贵动物、珍贵动物制品", "走私普通货物、物品"]
    mixed = "被告人以冻品名义申报进口，偷逃应缴税额人民币80万元，并在冻品中藏匿象牙制品12件。"
    assert stand_together(proposed, mixed)[0] == proposed
    # Without goods of its own (no tax evaded), the object named is the one charge.
    hidden = "被告人入境时未申报，在行李箱夹层中藏匿象牙制品12件。"
    assert stand_together(proposed, hidden)[0] == ["走私珍贵动物、珍贵动物制品"]


def test_posing_as_an_official_to_defraud_is_judged_by_the_heavier_charge() -> None:
    # 2011 诈骗 解释 第八条: 择一重罪. From 数额巨大 (30,000 yuan) 诈骗's band is the heavier; below it 招摇撞骗's.
    large = "被告人冒充公安民警，以帮忙处理案件为名，骗取被害人现金20万元。"
    small = large.replace("20万元", "5000元")
    for proposed in (["诈骗", "招摇撞骗"], ["招摇撞骗", "诈骗"]):
        assert stand_together(proposed, large)[0] == ["诈骗"], proposed
        assert stand_together(proposed, small)[0] == ["招摇撞骗"], proposed
    # No amount stated: 招摇撞骗 needs none, 诈骗 is not shown to be the heavier.
    assert stand_together(["诈骗", "招摇撞骗"], "被告人冒充法官，骗得被害人信任后与其交往。")[0] == ["招摇撞骗"]
    # The special frauds still take 诈骗's place whatever the amount.
    assert stand_together(["诈骗", "保险诈骗"], large)[0] == ["保险诈骗"]


def test_bribes_told_as_separate_acts_to_different_recipients_stand_together() -> None:
    fact = "一、被告人为承揽工程，送给某县交通局局长现金10万元。二、被告人为销售钢材，向某公司采购经理支付回扣5万元。"
    proposed = ["行贿", "对非国家工作人员行贿"]
    assert stand_together(proposed, fact, {"行贿": 0, "对非国家工作人员行贿": 1})[0] == proposed
    # One act (or a fact of one act): one bribe, one charge, chosen as before.
    assert len(stand_together(proposed, fact, {"行贿": 0, "对非国家工作人员行贿": 0})[0]) == 1
    assert len(stand_together(proposed, fact)[0]) == 1
    # Takings on separate acts whose other element is nowhere stated stay one charge: a firm's buyer taking four
    # times is 非国家工作人员受贿 four times, not 受贿 too.
    buyer = "1、被告人在任某公司采购员期间，收受甲公司好处费5万元；2、被告人利用职务之便，收受乙公司好处费8000元。"
    takings = {"受贿": 1, "非国家工作人员受贿": 0}
    assert stand_together(["非国家工作人员受贿", "受贿"], buyer, takings)[0] == ["非国家工作人员受贿"]


def test_a_rule_whose_example_fails_names_itself(tmp_path: Path) -> None:
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    table["rules"][0]["example"]["kept"] = ["受贿", "非国家工作人员受贿"]
    bad = tmp_path / "charge_relations.json"
    bad.write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(TableError, match=r"entry 1 \(受贿（谁收受）\): its example keeps"):
        load_relations(bad)


def test_a_thief_who_used_violence_to_resist_arrest_is_a_robber() -> None:
    # 刑法:269: the one act is 抢劫; a fraud told apart from it stays (issue 86's multi-charge judgment).
    one = "被告人在超市偷拿手机一部，被店员发现后追赶，被告人为抗拒抓捕持水果刀刺伤店员。"
    kept, merged = stand_together(["盗窃", "诈骗"], one + "次日，被告人冒充房东骗取租客押金五千元。")
    assert kept == ["抢劫", "诈骗"]
    assert [(m.charge, m.kept, m.article) for m in merged] == [("盗窃", "抢劫", "刑法:269")]
    # Other thefts told apart from the violent one stay charged beside it, as every such judgment holds.
    assert stand_together(["盗窃"], "被告人先后三次入户盗窃。" + one)[0] == ["盗窃", "抢劫"]
    # Pulling free is not the violence 269 names; violence with no theft, fraud or snatching proposed changes nothing.
    assert stand_together(["盗窃"], "被告人盗窃电动车一辆，被发现后挣脱逃跑。")[0] == ["盗窃"]
    assert stand_together(["故意伤害"], one)[0] == ["故意伤害"]


def test_one_who_stood_in_for_the_driver_shielded_him_and_did_not_drive() -> None:
    # 刑法:310: the driving was another's; the false account is 作假证明包庇 (every such labelled judgment).
    stood_in = "王某酒后驾车撞倒行人致死。被告人张某明知王某肇事，仍向公安机关作虚假陈述，谎称自己驾驶。"
    kept, merged = stand_together(["交通肇事"], stood_in)
    assert kept == ["窝藏、包庇"]
    assert [(m.charge, m.kept, m.article) for m in merged] == [("交通肇事", "窝藏、包庇", "刑法:310")]
    # The driver who asked a friend to stand in drove: his driving stays.
    arranged = "被告人邹某某醉酒驾车追尾，见交警到场便弃车逃跑，后返回现场意图让其朋友梁某顶包肇事司机。"
    assert stand_together(["危险驾驶"], arranged)[0] == ["危险驾驶"]
