"""The sentencing guard's pure parts: what the articles allow at the tier the facts meet, and the clamp."""

from __future__ import annotations

from tests.unit.test_claims import ARSON, THEFT
from tools.law.penalties import article_tiers, penalty_reference
from tools.law.sentencing import (
    align_reasoning,
    charge_allowed,
    clamp,
    combine,
    describe_term,
    in_range,
    mitigated,
    precedent_term,
    tier_met,
)

HURT = (
    "故意伤害他人身体的，处三年以下有期徒刑、拘役或者管制。\n犯前款罪，致人重伤的，处三年以上十年以下有期徒刑；"
    "致人死亡或者以特别残忍手段致人重伤造成严重残疾的，处十年以上有期徒刑、无期徒刑或者死刑。本法另有规定的，依照规定。"
)


def test_negligent_fire_is_read_from_the_negligence_paragraph() -> None:
    fire = charge_allowed("失火", {"刑法:115": ARSON}, "被告人吸烟引燃柴草，烧毁房屋三间")
    assert fire is not None and (fire.low, fire.high, fire.life, fire.death) == (1, 84, False, False)
    arson = charge_allowed("放火", {"刑法:115": ARSON}, "被告人故意放火，致一人死亡")
    assert arson is not None and arson.death and arson.low == 120
    # A death sentence for 失火 becomes the longest term its paragraph allows.
    assert not in_range(0, False, True, fire)
    assert clamp(0, False, True, fire) == (84, False, False)


def test_bands_need_their_stated_condition_unless_it_is_a_degree() -> None:
    minor = charge_allowed("故意伤害", {"刑法:234": HURT}, "被告人将被害人打成轻伤二级")
    assert minor is not None and (minor.high, minor.life, minor.death) == (36, False, False)
    grave = charge_allowed("故意伤害", {"刑法:234": HURT}, "致被害人重伤二级")
    assert grave is not None and (grave.high, grave.death) == (120, False)
    fatal = charge_allowed("故意伤害", {"刑法:234": HURT}, "被害人经抢救无效死亡")
    assert fatal is not None and fatal.death
    # 数额巨大 is a degree the court weighs from the amount: the theft bands stay open.
    theft = charge_allowed("盗窃", {"刑法:264": THEFT}, "盗窃现金人民币5万元")
    assert theft is not None and (theft.low, theft.high, theft.life, theft.death) == (0, 180, True, False)


EMBEZZLEMENT_PENALTY = (
    "对犯贪污罪的，根据情节轻重，分别依照下列规定处罚：\n（一）贪污数额较大或者有其他较重情节的，处三年以下有期徒刑或者拘役，"
    "并处罚金。\n（二）贪污数额巨大或者有其他严重情节的，处三年以上十年以下有期徒刑，并处罚金或者没收财产。"
)
BRIBERY_PENALTY = (
    "对犯行贿罪的，处五年以下有期徒刑或者拘役，并处罚金；因行贿谋取不正当利益，情节严重的，或者使国家利益遭受重大损失的，"
    "处五年以上十年以下有期徒刑，并处罚金；情节特别严重的，或者使国家利益遭受特别重大损失的，处十年以上有期徒刑或者无期徒刑，"
    "并处罚金或者没收财产。"
)


def test_an_amounts_degree_is_a_degree_whatever_it_counts_and_so_is_a_degree_among_alternatives() -> None:
    # 386 punishes 受贿 under 383's bands, which count 贪污数额: a bribe-taking fact that never says 贪污 may meet them.
    taken = charge_allowed("受贿", {"刑法:383": EMBEZZLEMENT_PENALTY}, "被告人收受他人财物共计人民币45万元")
    assert taken is not None and (taken.low, taken.high) == (1, 120)
    # 情节特别严重 is one alternative of 390's top band; the lesser band's alternatives are both concrete.
    given = charge_allowed("行贿", {"刑法:390": BRIBERY_PENALTY}, "被告人送给某局长人民币30万元")
    assert given is not None and (given.high, given.life) == (180, True)
    met = [tier_met(t, "被告人送给某局长人民币30万元") for t in article_tiers(BRIBERY_PENALTY)]
    assert met == [True, False, True]


def test_terms_are_clamped_to_the_nearest_bound_unless_mitigated() -> None:
    hurt = charge_allowed("故意伤害", {"刑法:234": HURT}, "致被害人重伤")
    assert hurt is not None and hurt.low == 1
    grave = charge_allowed("故意伤害", {"刑法:234": HURT.split("\n")[1]}, "致被害人重伤")
    assert grave is not None and (grave.low, grave.high) == (36, 120)
    assert clamp(200, False, False, grave) == (120, False, False)
    assert clamp(12, False, False, grave) == (36, False, False)
    assert clamp(12, False, False, grave, mitigated=True) == (12, False, False)
    assert clamp(0, True, False, grave) == (120, False, False)
    assert mitigated(["刑法:234", "刑法:67"], "") and mitigated([], "被告人系犯罪未遂") and not mitigated([], "殴打")


def test_several_charges_combine_under_the_art_69_cap() -> None:
    theft = charge_allowed("盗窃", {"刑法:264": THEFT.split("；")[0]}, "")
    hurt = charge_allowed("故意伤害", {"刑法:234": HURT.split("\n")[0]}, "")
    assert theft is not None and hurt is not None
    both = combine([theft, hurt])
    assert (both.low, both.high, both.articles) == (1, 72, ("刑法:264", "刑法:234"))


def test_reasoning_names_the_judgments_own_term() -> None:
    assert describe_term(42, False, False) == "有期徒刑3年6个月"
    assert describe_term(3, False, False, detention=True) == "拘役3个月"
    assert describe_term(0, False, True) == "死刑"
    said = align_reasoning("被告人构成失火罪[1]，判处有期徒刑三年。", describe_term(3, False, False, detention=True))
    assert said == "被告人构成失火罪[1]，判处拘役3个月。"
    # The law's own words are not a sentence: 处三年以下有期徒刑 stays.
    law = "依照[1]处三年以下有期徒刑的规定，酌情从轻。"
    assert align_reasoning(law, "有期徒刑1年") == f"{law}（判处有期徒刑1年）"
    assert align_reasoning("应判处死刑。", "有期徒刑7年") == "应判处有期徒刑7年。"


def test_precedent_term_is_the_median_with_life_and_death_above_every_fixed_term() -> None:
    assert precedent_term([]) is None
    assert precedent_term([(6, False, False), (36, False, False), (8, False, False)]) == (8, False, False)
    # An even count: the mean of the middle two, so five fines-only among ten precedents do not make it no term.
    assert precedent_term([(6, False, False), (12, False, False)]) == (9, False, False)
    fines = [(0, False, False)] * 5 + [(6, False, False), (6, False, False), (8, False, False), (10, False, False)]
    assert precedent_term([*fines, (54, False, False)]) == (3, False, False)
    # A middle life sentence is not averaged with a fixed term.
    assert precedent_term([(96, False, False), (0, True, False)]) == (96, False, False)
    # One life sentence does not drag the term up as a mean would; two of three make it the median.
    assert precedent_term([(120, False, False), (0, True, False), (96, False, False)]) == (120, False, False)
    assert precedent_term([(0, True, False), (0, False, True), (96, False, False)]) == (0, True, False)


def test_an_article_that_only_applies_anothers_penalty_refers_to_it() -> None:
    taken = "对犯受贿罪的，根据受贿所得数额及情节，依照本法第三百八十三条的规定处罚。"
    assert penalty_reference("刑法:386", taken) == "刑法:383"
    assert penalty_reference("刑法:9", "犯前罪的，依照本法第一百三十三条之一的规定处罚。") == "刑法:133-1"
    # An article with a penalty of its own, or one that also convicts under the other (定罪处罚), refers to none.
    assert penalty_reference("刑法:390", "对犯行贿罪的，处五年以下有期徒刑或者拘役，并处罚金。") is None
    insurer = "保险公司的工作人员…骗取保险金归自己所有的，依照本法第二百七十一条的规定定罪处罚。"
    assert penalty_reference("刑法:183", insurer) is None


ILLEGAL_PRACTICE = (
    "未取得医生执业资格的人非法行医，情节严重的，处三年以下有期徒刑、拘役或者管制，并处或者单处罚金；严重损害就诊人身体"
    "健康的，处三年以上十年以下有期徒刑，并处罚金；造成就诊人死亡的，处十年以上有期徒刑，并处罚金。"
)


def test_a_band_whose_concrete_condition_the_fact_states_is_where_a_term_without_precedents_starts() -> None:
    # 非法行医 has one judgment in kb-judge, which records no term: a patient's death was sentenced from the basic
    # tier's floor (免予刑事处罚). The article names the person by role (就诊人死亡); a fact names the patient.
    died = charge_allowed("非法行医", {"刑法:336": ILLEGAL_PRACTICE}, "李某经送医院抢救无效死亡。")
    assert died is not None and (died.floor, died.low, died.high) == (120, 0, 180)
    # Denied, the consequence is not stated: neither the band nor its floor.
    spared = charge_allowed("非法行医", {"刑法:336": ILLEGAL_PRACTICE}, "所幸未造成就诊人死亡。")
    assert spared is not None and (spared.floor, spared.high) == (0, 36)
    hurt = charge_allowed("故意伤害", {"刑法:234": HURT}, "经鉴定被害人损伤程度为轻伤一级，未达重伤。")
    assert hurt is not None and hurt.high == 36
    # A degree the fact repeats (重大损失, 情节严重) is the court's to weigh: the band may apply, the floor stays.
    given = charge_allowed("行贿", {"刑法:390": BRIBERY_PENALTY}, "被告人行贿，使国家利益遭受重大损失。")
    assert given is not None and given.floor == given.low == 1 and given.life
