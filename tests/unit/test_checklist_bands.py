"""Checklist items must test the basic offence, not a sentencing band: the rules read from the article text."""

from __future__ import annotations

import pytest

from tests.conftest import laws_db_text
from tools.law.checklist_rules import ChecklistSchema, statute_elements
from tools.law.penalties import penalty_tiers


def _criminal(number: str) -> str:
    return laws_db_text("中华人民共和国刑法", number)


def _kept(number: str, items: list[str]) -> list[str]:
    context = {"article_text": _criminal(number)}
    return list(ChecklistSchema.model_validate({"items": items}, context=context).items)


def test_the_offence_and_the_bands_of_an_article() -> None:
    offence, bands = penalty_tiers(_criminal("第二百六十三条")) or ("", "")
    assert offence == "以暴力、胁迫或者其他方法抢劫公私财物的，"
    assert "（一）入户抢劫的" in bands and "持枪抢劫的" in bands
    # 奸淫幼女 has no penalty of its own (以强奸论): an offence, not a band.
    offence, bands = penalty_tiers(_criminal("第二百三十六条")) or ("", "")
    assert "强奸妇女的" in offence and "奸淫不满十四周岁的幼女的" in offence and "致使被害人重伤" in bands
    # 猥亵儿童 is a second offence with a penalty from nothing (处五年以下), not a band.
    offence, bands = penalty_tiers(_criminal("第二百三十七条")) or ("", "")
    assert "猥亵儿童的" in offence and "聚众或者在公共场所当众" in bands
    # The forms listed under the first penalty belong to the offence.
    offence, bands = penalty_tiers(_criminal("第一百三十三条之一")) or ("", "")
    assert "醉酒驾驶机动车的" in offence and bands == ""
    # No penalty, no tiers: general provisions and civil law are never checked this way.
    assert penalty_tiers(_criminal("第六十七条")) is None
    assert penalty_tiers("夫妻双方都有各自使用自己姓名的权利。") is None


def test_band_items_are_dropped_and_a_list_of_bands_only_is_refused() -> None:
    # The local model's checklist for 刑法:263: only the aggravated band, all false for a plain robbery.
    bands_only = ["是否入户抢劫", "是否在公共交通工具上抢劫", "是否抢劫致人重伤、死亡的", "是否持枪抢劫的"]
    with pytest.raises(ValueError, match="basic offence \\(以暴力、胁迫或者其他方法抢劫公私财物的\\)"):
        _kept("第二百六十三条", bands_only)
    assert _kept("第二百六十三条", [*bands_only, "是否以暴力、胁迫手段劫取他人财物？"]) == [
        "是否以暴力、胁迫手段劫取他人财物？"
    ]
    # 刑法:264's alternatives are all in the offence (数额较大, 多次, 入户…); 数额巨大 is a band.
    theft = ["盗窃公私财物的数额是否较大", "盗窃公私财物是否入户", "盗窃数额是否巨大？"]
    assert _kept("第二百六十四条", theft) == theft[:2]
    assert _kept(
        "第二百三十六条", ["是否为奸淫不满十四周岁的幼女", "是否导致被害人重伤、死亡或者造成其他严重后果"]
    ) == ["是否为奸淫不满十四周岁的幼女"]
    assert _kept("第二百三十二条", ["行为人是否故意非法剥夺他人生命？", "是否有情节较轻的情形？"]) == [
        "行为人是否故意非法剥夺他人生命？"
    ]
    assert _kept("第一百三十三条之一", ["是否追逐竞驶，情节恶劣？", "是否醉酒驾驶机动车？"]) == [
        "是否追逐竞驶，情节恶劣？",
        "是否醉酒驾驶机动车？",
    ]


@pytest.mark.parametrize(
    ("number", "items"),
    [
        # A penalty follows the offence at once.
        ("第二百三十四条", ["是否故意伤害他人身体？"]),
        ("第二百六十三条", ["是否以暴力、胁迫或者其他方法抢劫公私财物？"]),
        # 或者 opens an alternative to the element before it.
        ("第二百六十四条", ["是否盗窃公私财物？", "是否数额较大，或者多次盗窃、入户盗窃、携带凶器盗窃、扒窃？"]),
        # 为目的 keeps its 的; the 有下列情形之一 head is left out.
        (
            "第二百二十四条",
            ["是否以非法占有为目的？", "是否在签订、履行合同过程中？", "是否骗取对方当事人财物？", "是否数额较大？"],
        ),
        # A definition (…的，是受贿罪) and a referral (…的，依照…处罚) end the elements too.
        (
            "第三百八十五条",
            ["是否国家工作人员利用职务上的便利？", "是否索取他人财物，或者非法收受他人财物？", "是否为他人谋取利益？"],
        ),
        ("第二百一十条", ["是否盗窃增值税专用发票或者可以用于骗取出口退税、抵扣税款的其他发票？"]),
        # A unit offence stops before the persons it punishes.
        (
            "第三百九十六条",
            [
                "是否国家机关、国有公司、企业、事业单位、人民团体？",
                "是否违反国家规定？",
                "是否以单位名义将国有资产集体私分给个人？",
                "是否数额较大？",
            ],
        ),
        # 自首 is no offence: nothing to read.
        ("第六十七条", []),
    ],
)
def test_the_elements_of_the_basic_offence_are_read_from_the_first_sentence(number: str, items: list[str]) -> None:
    assert statute_elements(_criminal(number)) == items


def test_items_copied_from_the_prompts_example_are_dropped() -> None:
    # The local model's checklist for 刑法:389 (bribery) carried 携带凶器 and 扒窃 from the prompt's theft example.
    made = ["是否为谋取不正当利益？", "是否给予国家工作人员以财物？", "是否携带凶器？", "是否扒窃？"]
    assert _kept("第三百八十九条", made) == made[:2]
    # The same words are the article's own in 刑法:264, so they stay there.
    assert _kept("第二百六十四条", ["是否入户盗窃？", "是否扒窃？"]) == ["是否入户盗窃？", "是否扒窃？"]
