"""The sentencing guard's pure parts: what the articles allow at the tier the facts meet, and the clamp."""

from __future__ import annotations

from tests.unit.test_claims import ARSON, THEFT
from tools.law.sentencing import (
    align_reasoning,
    charge_allowed,
    clamp,
    combine,
    describe_term,
    in_range,
    mitigated,
    precedent_term,
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


def test_precedent_term_is_the_lower_median_with_life_and_death_above_every_fixed_term() -> None:
    assert precedent_term([]) is None
    assert precedent_term([(6, False, False), (36, False, False), (8, False, False)]) == (8, False, False)
    assert precedent_term([(6, False, False), (12, False, False)]) == (6, False, False)
    # One life sentence does not drag the term up as a mean would; two of three make it the median.
    assert precedent_term([(120, False, False), (0, True, False), (96, False, False)]) == (120, False, False)
    assert precedent_term([(0, True, False), (0, False, True), (96, False, False)]) == (0, True, False)
