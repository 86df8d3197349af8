"""A fact is split into its acts at enumerations, per-act conclusions and paragraphs; procedure is no act."""

from __future__ import annotations

from tools.law.acts import split_acts, stated_charge_count


def test_enumerated_acts_are_split_and_procedure_dropped() -> None:
    fact = (
        "公诉机关指控：1.2015年8月7日凌晨，被告人陶某窜至某商店，钻窗入室实施盗窃，窃得现金400余元。"
        "2.2015年8月24日凌晨，被告人陶某实施盗窃后，为毁灭证据将该店放火后逃离，烧毁物品价值6万余元。"
        "被告人陶某于2015年9月9日被公安机关抓获。"
    )
    acts = split_acts(fact)
    assert len(acts) == 2
    assert "窃得现金400余元" in acts[0] and "放火" in acts[1] and not any("抓获" in a for a in acts)


def test_per_act_conclusions_split_a_fact_without_numbers() -> None:
    fact = (
        "检察院指控被告人张某秘密窃取他人财物，价值3610元，其行为已触犯《中华人民共和国刑法》××之规定，构成××。"
        "被告人张某以非法占有为目的，要挟他人，强行索取10000元现金，其行为已触犯××之规定，构成××。"
    )
    acts = split_acts(fact)
    assert len(acts) == 2 and "窃取" in acts[0] and "要挟" in acts[1]


def test_a_heading_joins_its_act_and_one_act_stays_whole() -> None:
    fact = (
        "（一）盗窃部分\n2015年10月14日，被告人俞某窜至某公司盗窃现金9400元。"
        "（二）伪造身份证部分\n2015年11月，被告人俞某伪造居民身份证二张。"
    )
    acts = split_acts(fact)
    assert len(acts) == 2 and acts[0].startswith("（一）盗窃部分") and "伪造居民身份证" in acts[1]
    single = "2016年3月28日20时许，被告人颜某捡拾被害人手机一部，后通过支付宝秘密盗走被害人3723元。"
    assert split_acts(single) == [single]


def test_the_count_of_charges_the_fact_states() -> None:
    assert stated_charge_count("……其行为构成××。……其行为又构成××，应数罪并罚。") == 2
    assert stated_charge_count("公诉机关认为被告人应以××、××和××追究其刑事责任。") == 3
    assert stated_charge_count("被告人一人犯数罪，应根据刑法××的规定处罚。") == 2
    assert stated_charge_count("被告人的行为构成××，建议判处一年以下××。") == 1
    assert stated_charge_count("被告人秘密窃取他人财物，价值3000元。") == 0


def test_the_defendants_plea_the_evidence_list_and_later_payments_are_no_acts() -> None:
    fact = (
        "（一）××\n2015年7月18日晚，被告人李某窜至某公司仓库，用打火机点燃包装袋，烧毁货物价值3万元。"
        "（二）××\n2007年3月11日下午，被告人李某用刀逼住出租车司机苗某某，劫得现金800元。"
        "为证明上述事实，公诉机关向法庭提供了被害人陈述、证人证言、火灾现场勘验笔录等证据。"
        "本案在审理过程中，被告人李某的朋友自愿代为缴纳罚金人民币2000元。"
        "被告人李某表示认罪服法，同时辩称，自己的抢劫行为发生在2007年，应从轻处罚。"
    )
    acts = split_acts(fact)
    assert len(acts) == 2 and "点燃" in acts[0] and "劫得" in acts[1]
    assert not any(word in act for act in acts for word in ("为证明", "缴纳罚金", "辩称"))
