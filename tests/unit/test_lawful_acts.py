"""Acts the law permits (tools/law/lawful_acts.py): a fact that tells its act done with the law's leave, and nothing
beyond it, states no offence; one that tells the leave exceeded, denied or beside a harm is left to the other
checks."""

from __future__ import annotations

import pytest

from agents.common.no_offence import not_a_crime, offences_stated
from tools.law.charge_model import OffenceFloor
from tools.law.lawful_acts import _table, permitted_act

NEAR = ("滥伐林木", "刑法:345", 0.6)
FLOOR = OffenceFloor(0.15)
LOGGER = "被告人施某持有采伐许可证，按照许可证规定的地点和数量采伐了自家承包山上的杉树。"


def test_every_permission_cites_its_article_and_holds_for_its_examples() -> None:
    permissions, _ = _table()  # each entry's examples are tried as it loads: one failing names its entry
    assert {p.name for p in permissions} >= {"行政许可", "主管机关批准", "权利人许可", "公民扭送", "紧急避险"}
    assert all(p.article and p.quote for p in permissions)


@pytest.mark.parametrize(
    ("fact", "permission"),
    [
        (LOGGER, "行政许可"),
        ("被告人苍某在自家的宅基地上，经镇政府批准后翻建了两层住房。", "主管机关批准"),
        ("被告人麻某经作者书面授权，将其小说改编成剧本并支付了改编费。", "权利人许可"),
        ("被告人伍某发现一名男子正在掏乘客的口袋，抓住该男子的手腕并将其扭送到派出所。", "公民扭送"),
        ("被告人幸某是某中学的校长，按照教育局的规定组织学生进行了期末考试。", "依法履职"),
        ("被告人步某是公司的财务人员，按照公司规定代扣代缴了员工的个人所得税。", "如实申报"),
        ("被告人赖某是屠宰场工人，在定点屠宰场内按照检疫规程屠宰了一批生猪。", "依法履职"),
        ("被告人蔺某是一名消防员，为救出被困人员砸开了一户人家的防盗门。", "紧急避险"),
        ("被告人是小区保安，发现一名男子正在撬车锁，上前将其控制住并打电话报警。", "公民扭送"),
        ("被告人巢某持有狩猎证，在规定的狩猎期和狩猎区内猎捕野兔两只。", "行政许可"),
        # Another's drinking, a season denied: no conduct of the one judged beyond the leave.
        ("被告人是交警，依法对酒后驾驶的司机进行了呼气酒精检测。", "依法履职"),
        ("被告人是渔民，持有捕捞许可证，在非禁渔期内按规定网具捕鱼。", "行政许可"),
    ],
)
def test_an_act_told_as_permitted_names_its_permission(fact: str, permission: str) -> None:
    found = permitted_act(fact)
    assert found is not None and found.permission.name == permission and found.words in fact


@pytest.mark.parametrize(
    "fact",
    [
        # the leave exceeded, or acted outside it
        "被告人持有采伐许可证，超过许可证规定的数量采伐杉树四十立方米。",
        "被告人办理了10立方米的林木采伐许可证，雇人采伐时超方量采伐四十立方米。",
        "被告人持有采伐许可证，在许可证规定的地点以外采伐了杉树。",
        # the leave denied, however far from its verb
        "被告人在没有向林业主管部门申请办理采伐许可证的情况下砍伐了三株香樟树。",
        "被告人未经批准在耕地上建了两层住房。",
        # a harm to a person, which no permission here covers
        "被告人经批准燃放烟花，一名围观者被炸成重伤。",
        # a criminal record's own words: a licence named in a charge sheet is background, not the act
        "公诉机关指控，投资人何某领取个人独资企业营业执照后，被告人周某强行接手了采石场。",
        # one seized is not the one who seized
        "被告人在公交车上掏乘客的口袋，被群众扭送到派出所。",
        # an official's 依法执行职务 the one judged struck or obstructed is the official's duty, not a leave
        "被告人醉酒驾车被交警拦下，拒不配合，挥拳殴打正在依法执行职务的民警，致其面部软组织挫伤。",
        "被告人阻碍城管依法执行公务，将执法人员推倒在地。",
        # conduct no leave covers, told beside the leave held
        "被告人持有驾驶证，醉酒后驾驶机动车在道路上行驶，血液酒精含量200mg/100ml。",
        "被告人经批准开办了一家KTV，在店内容留多人吸食毒品。",
        "被告人持有狩猎证，在禁猎期内猎捕野生动物。",
        "被告人按照合同约定收到货款后，将货物以次充好交付给买方。",
        "经业主同意，被告人进入其家中维修，趁机盗走现金两千元。",
    ],
)
def test_a_permission_exceeded_denied_or_beside_a_harm_is_no_permission(fact: str) -> None:
    assert permitted_act(fact) is None


def test_a_permitted_act_states_no_offence_and_the_judgment_says_which_leave() -> None:
    kept, [record] = offences_stated(["滥伐林木"], LOGGER, NEAR, "zh", FLOOR)
    assert kept == [] and record["by"] == "lawful" and record["article"] == "行政许可法:2"
    assert record["stated"] == "持有采伐许可证"
    assert not_a_crime([record], "zh").startswith("不构成犯罪：事实讲述的行为是行政许可（“持有采伐许可证”）")
    # The same logging beyond the licence is for the other checks to decide.
    beyond = LOGGER.replace("按照许可证规定的地点和数量", "超过许可证规定的数量")
    assert offences_stated(["滥伐林木"], beyond, NEAR, "zh", FLOOR)[0] == ["滥伐林木"]
