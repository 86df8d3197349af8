"""Penalty tiers read from statute text, and the claims an answer makes checked against its basis."""

from __future__ import annotations

import pytest

from agents.claim_check import _unit_with, quoted_provisions
from tests.conftest import laws_db_text
from tools.law.claims import (
    FROM_QUESTION,
    SUPPORTED,
    UNSUPPORTED,
    asks_about_punishment,
    asks_what_the_law_says,
    check_claims,
    find_claims,
    misattributed,
    reattribute,
)
from tools.law.penalties import article_tiers, closest_tier, penalty_kinds, quantities
from tools.law.wording import relevant_passage

DRUNK = (
    "在道路上驾驶机动车，有下列情形之一的，处拘役，并处罚金：\n（一）追逐竞驶，情节恶劣的；\n"
    "（二）醉酒驾驶机动车的；\n（三）从事校车业务或者旅客运输，严重超过额定乘员载客，或者严重超过规定时速行驶的；"
)
ARSON = (
    "放火、决水、爆炸以及投放毒害性、放射性、传染病病原体等物质或者以其他危险方法致人重伤、死亡或者使公私财产"
    "遭受重大损失的，处十年以上有期徒刑、无期徒刑或者死刑。\n过失犯前款罪的，处三年以上七年以下有期徒刑；情节较轻的，"
    "处三年以下有期徒刑或者拘役。"
)
THEFT = (
    "盗窃公私财物，数额较大的，或者多次盗窃、入户盗窃、携带凶器盗窃、扒窃的，处三年以下有期徒刑、拘役或者管制，"
    "并处或者单处罚金；数额巨大或者有其他严重情节的，处三年以上十年以下有期徒刑，并处罚金；数额特别巨大或者有其他"
    "特别严重情节的，处十年以上有期徒刑或者无期徒刑，并处罚金或者没收财产。"
)
TRAFFIC = "饮酒后驾驶机动车的，处暂扣六个月机动车驾驶证，并处一千元以上二千元以下罚款。"


def test_tiers_of_a_listing_article_carry_its_items() -> None:
    (tier,) = article_tiers(DRUNK)
    assert (tier.low, tier.high, tier.life, tier.death) == (1, 6, False, False)
    assert tier.kinds == ("拘役", "罚金") and tier.penalty == "处拘役，并处罚金"
    assert "醉酒驾驶机动车" in tier.condition and "追逐竞驶" in tier.condition


def test_tiers_per_paragraph_with_bands() -> None:
    tiers = article_tiers(ARSON)
    assert [(t.paragraph, t.basic, t.low, t.high, t.death) for t in tiers] == [
        (0, True, 120, 180, True),
        (1, True, 36, 84, False),
        (1, False, 1, 36, False),
    ]
    theft = article_tiers(THEFT)
    assert [(t.low, t.high, t.life) for t in theft] == [(0, 36, False), (36, 120, False), (120, 180, True)]
    assert theft[0].kinds == ("管制", "拘役", "有期徒刑", "罚金")


def test_quantities_normalise_numerals_and_skip_dates() -> None:
    found = quantities("2016年3月28日，他被处三年以下有期徒刑，罚款5万元或者五万元，百分之三十，十五日，2倍")
    assert [(q.value, q.unit) for q in found] == [
        (3, "年"),
        (50000, "元"),
        (50000, "元"),
        (30, "%"),
        (15, "日"),
        (2, "倍"),
    ]


def test_penalty_kinds_tell_objects_and_measures_from_penalties() -> None:
    assert penalty_kinds("非法携带管制刀具被刑事拘留") == []
    assert penalty_kinds("处十五日以下拘留，吊销机动车驾驶证") == ["拘留", "吊销驾驶证"]


def test_unsupported_penalty_and_amount_are_flagged() -> None:
    basis = {"刑法:133-1": DRUNK}
    checked = check_claims("醉驾会被罚款、吊销驾驶证。还要处拘役并处罚金。", basis, "醉驾怎么处罚？")
    verdicts = {(c.text, c.sentence): v for c, v, _ in checked}
    assert verdicts == {
        ("罚款", 0): UNSUPPORTED,
        ("吊销驾驶证", 0): UNSUPPORTED,
        ("拘役", 1): SUPPORTED,
        ("罚金", 1): SUPPORTED,
    }
    traffic = {"道路交通安全法:91": TRAFFIC}
    checked = check_claims("处一千元以上二千元以下罚款，最多罚3000元。", traffic, "")
    assert [(c.text, v) for c, v, _ in checked] == [
        ("罚款", SUPPORTED),
        ("一千元", SUPPORTED),
        ("二千元", SUPPORTED),
        ("3000元", UNSUPPORTED),
    ]


def test_question_amounts_and_defined_charges_are_not_unsupported() -> None:
    basis = {"刑法:133-1": DRUNK}
    checked = check_claims(
        "你借出的5万元可以追回；醉驾构成危险驾驶罪，不是交通肇事罪。",
        basis,
        "我借给他5万元",
        charge_names={"危险驾驶", "交通肇事", "驾驶"},
        charges_defined={"刑法:133-1": {"危险驾驶"}},
    )
    assert [(c.text, c.kind, v) for c, v, _ in checked] == [
        ("5万元", "quantity", FROM_QUESTION),
        ("危险驾驶", "charge", SUPPORTED),
        ("交通肇事", "charge", UNSUPPORTED),
    ]
    assert [c.text for c in find_claims("合同诈骗罪", {"诈骗", "合同诈骗"})] == ["合同诈骗"]


def test_closest_tier_follows_the_question() -> None:
    tiers = article_tiers(ARSON)
    assert closest_tier(tiers, "过失引起火灾，情节较轻，会判几年？") == tiers[2]
    assert closest_tier(tiers, "放火烧了邻居的房子怎么判") == tiers[0]
    assert asks_about_punishment("醉酒驾驶机动车会受到什么处罚？")
    assert not asks_about_punishment("离婚时房子怎么分？")


def test_the_condition_a_question_states_is_quoted_before_the_penalty() -> None:
    from tools.law.penalties import stated_condition

    (tier,) = article_tiers(DRUNK)
    assert stated_condition(tier, "醉酒驾驶机动车会受到什么处罚？") == "醉酒驾驶机动车的，"
    assert stated_condition(tier, "离婚怎么分财产") == ""


def test_a_penalty_added_names_the_one_charge_its_article_defines() -> None:
    from agents.claim_check import stated_penalties

    basis = [{"article_id": "刑法:133-1", "law": "中华人民共和国刑法", "number": "第一百三十三条之一", "text": DRUNK}]
    question = "醉酒驾驶机动车会受到什么处罚？"
    added, _ = stated_penalties(question, "", basis, "zh", {"刑法:133-1": {"危险驾驶"}})  # type: ignore[arg-type]
    assert added == "依照《中华人民共和国刑法》第一百三十三条之一，醉酒驾驶机动车的，构成危险驾驶罪，处拘役，并处罚金。"
    # Without the charge table, or for an article defining two charges, the article's words alone.
    assert "构成" not in stated_penalties(question, "", basis, "zh")[0]  # type: ignore[arg-type]
    two = {"刑法:133-1": {"危险驾驶", "交通肇事"}}
    assert "构成" not in stated_penalties(question, "", basis, "zh", two)[0]  # type: ignore[arg-type]


def test_the_passage_quoted_is_the_closest_sentences_in_their_order() -> None:
    parts = ["甲规定一。", "醉酒驾驶的，处拘役。", "其他无关事项。", "醉酒驾驶营运机动车的，吊销驾驶证。"]
    assert (
        relevant_passage(parts, "醉酒驾驶机动车怎么处罚", 2, 200)
        == "醉酒驾驶的，处拘役。醉酒驾驶营运机动车的，吊销驾驶证。"
    )
    # The best part alone when two do not fit; a part longer than the budget is cut.
    assert relevant_passage(parts, "醉酒驾驶营运机动车", 2, 18) == "醉酒驾驶营运机动车的，吊销驾驶证。"
    assert relevant_passage(["醉酒驾驶营运机动车的，吊销驾驶证。"], "醉酒", 1, 8) == "醉酒驾驶营运……"
    assert relevant_passage([], "醉酒", 2, 200) == ""
    # As many pairs shared: the part holding more of the question's characters (停, 水, 电) is closer.
    fee = [
        "业主应当按照约定向物业服务人支付物业费。",
        "合理期限届满仍不支付的，物业服务人可以提起诉讼或者申请仲裁。",
        "物业服务人不得采取停止供电、供水、供热、供燃气等方式催交物业费。",
    ]
    assert relevant_passage(fee, "我欠了物业费，物业能给我家停水停电吗？", 1, 200) == fee[2]


def test_only_the_basis_articles_close_to_the_question_are_quoted() -> None:
    basis = [
        {"article_id": "刑法:133-1", "law": "中华人民共和国刑法", "number": "第一百三十三条之一",
         "text": laws_db_text("中华人民共和国刑法", "第一百三十三条之一")},
        {"article_id": "刑法:277", "law": "中华人民共和国刑法", "number": "第二百七十七条",
         "text": laws_db_text("中华人民共和国刑法", "第二百七十七条")},
    ]  # fmt: skip
    question = "醉酒驾驶机动车会受到什么处罚？"
    quoted = quoted_provisions(question, "构成危险驾驶罪。", basis, set(), "zh")  # type: ignore[arg-type]
    assert quoted.startswith("《中华人民共和国刑法》第一百三十三条之一规定：")
    assert "（二）醉酒驾驶机动车的。" in quoted and "第二百七十七条" not in quoted
    # Nor when the answer already says it in the article's words.
    said = "在道路上驾驶机动车，有下列情形之一的，处拘役，并处罚金：（二）醉酒驾驶机动车的。"
    assert quoted_provisions(question, said, basis, set(), "zh") == ""  # type: ignore[arg-type]
    # An article the answer already quotes (a stated penalty) is not quoted twice.
    assert quoted_provisions(question, "", basis, {"刑法:133-1"}, "zh") == ""  # type: ignore[arg-type]
    # 醉驾 is read as the law words it: the drunk-driving item, not the owner's liability the answer had quoted.
    assert "（二）醉酒驾驶机动车的。" in quoted_provisions("醉驾怎么处罚？", "", basis, set(), "zh")  # type: ignore[arg-type]


def test_a_sentence_citing_one_article_for_what_another_provides_cites_the_other() -> None:
    law = "中华人民共和国保险法"
    basis = {
        "保险法:89": laws_db_text(law, "第八十九条"),  # a company's dissolution
        "保险法:74": laws_db_text(law, "第七十四条"),  # branches have no legal personality
    }
    wrong = "根据[保险法:89]，保险公司的分支机构不具有法人资格，其民事责任由保险公司承担。"
    assert misattributed(wrong, basis) == ("保险法:89", "保险法:74")
    fixed, checks = reattribute("回答：" + wrong + "其余照旧[保险法:89]。", basis)
    assert (
        fixed
        == "回答：根据[保险法:74]，保险公司的分支机构不具有法人资格，其民事责任由保险公司承担。其余照旧[保险法:89]。"
    )
    assert checks == [
        {"claim": "保险法:89 → 保险法:74", "kind": "attribution", "verdict": "rewritten", "article": "保险法:74"}
    ]
    # Stating the cited article's own words, citing both, or saying too little to tell: the citation stands.
    assert misattributed("根据[保险法:89]，经营有人寿保险业务的保险公司不得解散。", basis) is None
    assert misattributed("根据[保险法:89]、[保险法:74]，分支机构不具有法人资格。", basis) is None
    assert misattributed("请依照[保险法:89]处理。", basis) is None


DRINKING = (
    "饮酒后驾驶机动车的，处暂扣六个月机动车驾驶证，并处一千元以上二千元以下罚款。\n"
    "醉酒驾驶机动车的，由公安机关交通管理部门约束至酒醒，吊销机动车驾驶证，依法追究刑事责任；五年内不得重新取得机动车驾驶证。"
)
"""道路交通安全法:91's first two paragraphs: a drinker's penalty, and a drunk driver's imposed by a named body."""


def test_a_penalty_a_named_body_imposes_is_a_tier_of_its_own() -> None:
    drinking, drunk = article_tiers(DRINKING)
    assert drunk.condition == "醉酒驾驶机动车的，"
    assert drunk.penalty.startswith("由公安机关交通管理部门约束至酒醒，吊销机动车驾驶证") and drunk.kinds == (
        "吊销驾驶证",
    )
    assert closest_tier([drinking, drunk], "醉酒驾驶机动车会受到什么处罚？") == drunk
    # "由" opens no tier where no measure follows within the clause.
    assert len(article_tiers("纠纷由双方协商解决；协商不成的，处五百元罚款。")) == 1


def test_penalties_of_a_tier_the_question_does_not_state_are_unsupported() -> None:
    basis = {"道路交通安全法:91": DRINKING}
    answer = "醉驾处暂扣六个月机动车驾驶证，并处一千元以上二千元以下罚款。还会吊销机动车驾驶证。"
    drunk = {(c.text, v) for c, v, _ in check_claims(answer, basis, "醉酒驾驶机动车会受到什么处罚？")}
    assert drunk == {
        ("暂扣驾驶证", UNSUPPORTED),
        ("六个月", UNSUPPORTED),
        ("罚款", UNSUPPORTED),
        ("一千元", UNSUPPORTED),
        ("二千元", UNSUPPORTED),
        ("吊销驾驶证", SUPPORTED),
    }
    # 醉酒驾驶 without 机动车 states no tier's condition well, but only the drunk-driving tier holds all four words.
    assert drunk == {(c.text, v) for c, v, _ in check_claims(answer, basis, "醉酒驾驶会受到什么处罚？")}
    # 醉驾 is how people say 醉酒驾驶 (tools/law/abbreviations.json): the drunk-driving tier answers it.
    assert drunk == {(c.text, v) for c, v, _ in check_claims(answer, basis, "醉驾怎么处罚？")}
    # 酒驾 is either: the whole article supports.
    assert all(v == SUPPORTED for _, v, _ in check_claims(answer, basis, "酒驾怎么罚？"))
    # A drinker's question states the first tier: its penalties are the answer's.
    drinker = {(c.text, v) for c, v, _ in check_claims(answer, basis, "饮酒后驾驶机动车怎么处罚？")}
    assert ("暂扣驾驶证", SUPPORTED) in drinker and ("一千元", SUPPORTED) in drinker
    # A question stating no tier well leaves the whole article as support.
    vague = {(c.text, v) for c, v, _ in check_claims(answer, basis, "开车被查了怎么办？")}
    assert all(v == SUPPORTED for _, v in vague)


CONTRACT = "中华人民共和国劳动合同法"
LAND = {"民法典:337": "承包期内发包人不得收回承包地。法律另有规定的，依照其规定。"}


@pytest.mark.parametrize(
    ("answer", "basis", "question", "verdict"),
    [
        # consult-57's harmful conclusion: 劳动合同法:47 makes 月工资 the average wage, and denies nothing of it.
        (
            "不可以要求单位按七千一年工龄补偿给我。",
            {"劳动合同法:47": laws_db_text(CONTRACT, "第四十七条")},
            "工作三年，月工资七千，能按七千一年补偿吗？",
            UNSUPPORTED,
        ),
        # stard-23's: nothing in the basis says a contractor who breached loses the right.
        ("承包方没有履行合同义务，不享有土地承包经营权。", LAND, "承包方违约，承包地会被收回吗？", UNSUPPORTED),
        # The article's own denial, cited or not, and a bare reply read with the question it answers.
        ("根据《中华人民共和国民法典》第三百三十七条的规定，发包人不得收回承包地。", LAND, "", SUPPORTED),
        ("不可以。", LAND, "土地承包期内，承包地可以被收回吗？", SUPPORTED),
    ],
)
def test_a_denial_stands_only_where_a_basis_sentence_denies_it(
    answer: str, basis: dict[str, str], question: str, verdict: str
) -> None:
    assert [(c.kind, v) for c, v, _ in check_claims(answer, basis, question) if c.kind == "denial"] == [
        ("denial", verdict)
    ]


def test_the_answers_own_asides_deny_nothing() -> None:
    assert find_claims("（以上是一般法律信息，不构成法律意见；具体情况请咨询律师。）") == []


def test_every_abbreviation_selects_the_tier_of_the_provision_it_spells_out() -> None:
    # One case per entry of tools/law/abbreviations.json, from the provision the entry names.
    from tools.law.abbreviations import abbreviations, spelled_out
    from tools.law.penalties import asked_tiers

    hit_and_run = laws_db_text("中华人民共和国刑法", "第一百三十三条")
    cases = {
        "醉驾": (DRINKING, "醉驾怎么处罚？", "醉酒驾驶机动车的，"),
        "肇事逃逸": (hit_and_run, "开车撞人后肇事逃逸会怎么判？", "交通运输肇事后逃逸或者有其他特别恶劣情节的，"),
    }
    assert set(cases) == set(abbreviations())
    for short, (text, question, condition) in cases.items():
        tiers = article_tiers(text)
        assert asked_tiers(tiers, question.replace(short, "")) == []  # without it the question names no tier
        assert [t.condition for t in asked_tiers(tiers, question)] == [condition]
        assert spelled_out(question).count(short) == 1  # the user's own words stay


def test_a_permission_to_withhold_a_duty_the_law_bars_refusing_is_unsupported() -> None:
    from tools.law.claims import check_claims

    law = "中华人民共和国民法典"
    basis = {"民法典:944": laws_db_text(law, "第九百四十四条")}
    question = "物业服务很差，业主可以不交物业费吗？"

    # The graded answer's harmful conclusion shares its words with 944's bar on refusing, and says the opposite.
    def denials(text: str) -> list[tuple[str, str]]:
        checked = check_claims(text, basis, question)
        return [(verdict, article) for claim, verdict, article in checked if claim.kind == "denial"]

    assert denials("如果物业服务很差，业主可以不交物业费。") == [("unsupported", "")]
    # A denial restating the bar is the article's own.
    assert denials("业主不得以未接受物业服务为由拒绝支付物业费。") == [("supported", "民法典:944")]


def test_a_duty_held_standing_after_the_other_side_failed_its_own_is_unsupported() -> None:
    from tools.law.claims import check_claims

    noncompete = laws_db_text("中华人民共和国劳动合同法", "第二十三条")
    question = "签了竞业限制协议，离职后公司一直不给补偿，我还要遵守吗？"

    def denials(text: str, basis: dict[str, str]) -> list[tuple[str, str]]:
        checked = check_claims(text, basis, question)
        return [(verdict, article) for claim, verdict, article in checked if claim.kind == "denial"]

    # The graded answer's harmful conclusion: 23 conditions the non-compete on compensation, and keeps no duty standing.
    harmful = "如果公司与你签订竞业限制协议，离职后不给补偿，你仍然需要遵守。"
    assert denials(harmful, {"劳动合同法:23": noncompete}) == [("unsupported", "")]
    # A duty the law itself keeps standing is stated: 民法典:944 bars refusing the fee for a service not received.
    fee = "物业服务不好，业主仍然需要支付物业费，不得以未接受物业服务为由拒绝支付物业费。"
    property_fee = laws_db_text("中华人民共和国民法典", "第九百四十四条")
    assert denials(fee, {"民法典:944": property_fee}) == [("supported", "民法典:944")]


def test_a_tier_the_question_says_is_unmet_or_a_repeat_it_does_not_state_is_not_asked() -> None:
    from agents.claim_check import conditional_sentences
    from tools.law.penalties import asked_tiers

    text = laws_db_text("中华人民共和国道路交通安全法", "第九十一条")
    tiers = article_tiers(text)
    # 没到醉驾 names drunk driving only to deny it; 91's drunk-driving tiers were asked, and their penalties checked.
    assert asked_tiers(tiers, "喝了一瓶啤酒开车被查，没到醉驾，会怎么处罚？") == []
    assert asked_tiers(tiers, "醉驾会怎么处罚？")[0].condition == "醉酒驾驶机动车的，"

    # The repeat offence's rule is quoted only to a question that states a prior penalty (both share its 处罚).
    def quoted(question: str) -> str:
        item = {"article_id": "道路交通安全法:91", "law": "中华人民共和国道路交通安全法", "number": "第九十一条"}
        return "".join(conditional_sentences([{**item, "text": text}], "zh", question))  # type: ignore[typeddict-item]

    assert quoted("喝了一瓶啤酒开车被查，没到醉驾，会怎么处罚？").startswith("如果饮酒后驾驶机动车，则处暂扣六个月")
    assert quoted("以前喝酒开车被处罚过，这次又被查了，会怎么处罚？").startswith("如果因饮酒后驾驶机动车被处罚，再次")


@pytest.mark.parametrize(
    ("question", "tier"),
    [
        ("我开车被查，血液酒精含量为120mg/100ml，会怎么处罚？", "醉酒驾驶机动车的，"),
        ("酒后开车被查，血液酒精含量80毫克每100毫升，会怎么处罚？", "醉酒驾驶机动车的，"),  # at the floor: 醉酒
        ("酒后开车被查，血液酒精含量45毫克/100毫升，会怎么处罚？", "饮酒后驾驶机动车的，"),
        ("喝了一杯啤酒，测出来15mg/100ml，会怎么处罚？", None),  # under 20: neither (GB 19522)
    ],
)
def test_a_stated_blood_alcohol_level_chooses_the_sentence_it_meets(question: str, tier: str | None) -> None:
    from tools.law.penalties import asked_tiers

    assert [t.condition for t in asked_tiers(article_tiers(DRINKING), question)] == ([tier] if tier else [])
    basis = [
        {"article_id": "刑法:133-1", "law": "中华人民共和国刑法", "number": "第一百三十三条之一",
         "text": laws_db_text("中华人民共和国刑法", "第一百三十三条之一")},
    ]  # fmt: skip
    if tier == "醉酒驾驶机动车的，":  # 刑法:133-1 quoted by the item the level meets, not by its list's lead
        quoted = quoted_provisions(question, "", basis, set(), "zh")  # type: ignore[arg-type]
        assert "处拘役，并处罚金：（二）醉酒驾驶机动车的" in quoted


def test_a_lists_lead_is_never_quoted_without_an_item() -> None:
    from tools.law.claims import citable_units

    text = laws_db_text("中华人民共和国刑法", "第一百三十三条之一")
    lead = "在道路上驾驶机动车，有下列情形之一的，处拘役，并处罚金："
    units = citable_units(text)
    assert [u for ld, u in units if ld == lead][1] == "（二）醉酒驾驶机动车的；"
    assert ("", lead) not in units and all(u != lead for _, u in units)
    assert citable_units("有下列情形之一的，可以解除合同：") == [("", "有下列情形之一的，可以解除合同：")]
    basis = [{"article_id": "刑法:133-1", "law": "中华人民共和国刑法", "number": "第一百三十三条之一", "text": text}]
    # Whatever the question, a quote holding the lead holds an item after it, and the lead once.
    for question in ["开车会怎么处罚？", "追逐竞驶和醉酒驾驶怎么处罚？", "车主要负责吗？", "在道路上驾驶机动车"]:
        quoted = quoted_provisions(question, "", basis, set(), "zh")  # type: ignore[arg-type]
        assert lead not in quoted or (quoted.count(lead) == 1 and quoted.split(lead)[1].startswith("（")), quoted


@pytest.mark.parametrize(
    ("conduct", "unit"),
    [
        (
            "醉酒驾驶",
            "醉酒驾驶机动车的，由公安机关交通管理部门约束至酒醒，吊销机动车驾驶证，依法追究刑事责任；五年内不得重新取得机动车驾驶证",
        ),
        ("饮酒后驾驶", "饮酒后驾驶机动车的，处暂扣六个月机动车驾驶证，并处一千元以上二千元以下罚款"),
    ],
)
def test_a_measured_conduct_is_said_by_the_unit_that_opens_with_it(conduct: str, unit: str) -> None:
    # 91 holds both conducts, and a crash's lifetime ban beside them: the unit said is the one for the conduct.
    assert _unit_with(laws_db_text("中华人民共和国道路交通安全法", "第九十一条"), conduct, opening=True) == unit
    lead = "在道路上驾驶机动车，有下列情形之一的，处拘役，并处罚金：（二）醉酒驾驶机动车的"
    assert _unit_with(laws_db_text("中华人民共和国刑法", "第一百三十三条之一"), conduct, opening=True) == (
        lead if conduct == "醉酒驾驶" else ""
    )


def test_a_question_about_what_the_law_provides_tells_no_case() -> None:
    for general in (
        "产品质量应当符合什么要求？",
        "产品存在缺陷指的是什么？",
        "损害他人生命健康的，应当如何赔偿？",
        "醉酒驾驶会受到什么处罚？",
    ):
        assert asks_what_the_law_says(general), general
    # A case told (我, an event that happened) or a yes-or-no question about one is no such question.
    for case in (
        "我开车被查了，会受到什么处罚？",
        "被邻居家的狗咬伤了，狗主人要承担什么责任？",
        "宠物被人打伤，主人能否要求精神损害赔偿？",
        "租房到期后房东不退押金怎么办？",
        "这样做合法么？",
    ):
        assert not asks_what_the_law_says(case), case
