"""What a fact must state to be an offence: the thresholds below which a stated amount or level is none (every entry
against its own examples and its source, the reading of amounts), the elements an article needs, the deceit a
special fraud needs, and the victim's own account."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.charge_rules import load_charge_rules
from tools.corpus.laws_db import list_laws, load_articles, resolve_laws
from tools.law.charge_families import untold_act
from tools.law.elements import load_elements, missing_element
from tools.law.thresholds import TABLE, load_thresholds, shortfall
from tools.law.wording import stated_amount, told, victim_account

ENTRIES = json.loads(TABLE.read_text(encoding="utf-8"))["thresholds"]
INTERPRETATIONS = SHARED_DATA / "zh/interpretations/lawrefbook"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["charge"] for e in ENTRIES])
def test_each_threshold_finds_its_example_under_and_not_the_one_above(entry: dict[str, str]) -> None:
    assert shortfall(entry["charge"], entry["example_below"]) is not None
    assert shortfall(entry["charge"], entry["example_above"]) is None
    # An alternative of the article that needs no amount or level lifts the threshold.
    if entry["unless"]:
        assert shortfall(entry["charge"], entry["example_below"] + "此前已多次作案。") is None or entry["measure"] in (
            "alcohol",
            "injury",
        )


def test_theft_needs_no_amount_when_it_is_a_burglary_pickpocketing_or_repeated() -> None:
    small = "被告人张某盗窃他人手机一部，价值500元。"
    assert shortfall("盗窃", small) is not None
    for alternative in ("入户", "扒窃", "携带凶器", "二年内三次"):
        assert shortfall("盗窃", small.replace("盗窃", alternative + "盗窃")) is None, alternative
    # 第二条: a theft from a disabled person halves the floor to 500 yuan, which 500 reaches.
    assert shortfall("盗窃", small.replace("他人", "残疾人")) is None
    assert shortfall("盗窃", small.replace("他人", "残疾人").replace("500", "400")) is not None


def test_a_halved_floor_names_the_article_that_halves_it() -> None:
    from agents.common.no_offence import threshold_record

    fact = "被告人张某盗窃他人手机一部，价值400元。"
    whole = shortfall("盗窃", fact)
    halved = shortfall("盗窃", fact.replace("他人", "残疾人"))
    assert whole is not None and halved is not None and halved.floor == whole.floor / 2
    assert threshold_record("盗窃", whole, "zh")["source"].endswith("第一条")
    record = threshold_record("盗窃", halved, "zh")
    assert record["source"].endswith("第一条、第二条") and "500元" in record["reason"]


def test_drunk_driving_starts_at_80_mg_and_racing_needs_no_alcohol() -> None:
    fact = "被告人饮酒后驾驶机动车，经检验血液中酒精含量为79.5mg/100ml。"
    found = shortfall("危险驾驶", fact)
    assert found is not None and found.value == 79.5 and found.threshold.instead == "道路交通安全法:91"
    assert shortfall("危险驾驶", fact.replace("79.5", "80")) is None
    assert shortfall("危险驾驶", "被告人在城市道路上与他人追逐竞驶。" + fact) is None
    assert shortfall("危险驾驶", "被告人追逐竞驶。") is None  # no level stated: nothing to fall short


def test_amounts_are_summed_with_their_upper_ends_and_unreadable_ones_decide_nothing() -> None:
    assert stated_amount("盗窃手机一部（价值三千余元）及现金200元") == 4200
    assert stated_amount("价值人民币2,300元") == 2300
    assert stated_amount("共计1.5万元") == 15000
    assert stated_amount("800多元") == 900
    assert stated_amount("数千元") is None and stated_amount("价值200美元") is None
    assert stated_amount("没有说金额") is None
    # Two small sums together reach the floor: a theft of 800 and 300 yuan took 1,100.
    assert shortfall("盗窃", "被告人盗窃手机一部价值800元、现金300元。") is None


@pytest.mark.parametrize(
    "fact",
    [
        "我家昨晚被小偷撬门入室，丢失了一台笔记本电脑。",
        "我被同事打了，鼻骨骨折。",
        "我的电动车停在楼下被人偷了。",
        # Who did the act, told without 被: another acts on the teller, a seller or a debtor fails them.
        "我在网上买的鞋子，收到后发现是假货。",
        "邻居喝醉了酒打了我一拳。",
        "我借给同学两万块钱，他一直不还。",
        # The teller's kin as the one things were done to, told over clauses.
        "我母亲接到一个自称银行客服的电话，按对方说的把钱转了过去，后来才知道上当了。",
        # A third-person fact whose every act was done to the one it calls 被告人, or to what is theirs.
        "被告人盖某的电动车停在楼下被人偷走了，他调取了监控后报警。",
        "被告人欧某的身份证丢失后，被人冒用办理了信用卡并透支了两万元，银行向欧某催收，欧某报警。",
        "被告人权某接到自称客服的电话，对方以退款为名骗走了他八千元，权某报了警。",
        "被告人吕某在商场试衣服时，放在试衣间外的手提包被人拎走了。",
        # One the fact names by what they did alone (一个冒充……的电话) is another.
        "被告人阎某的母亲接到一个冒充阎某的电话，称阎某出了车祸急需用钱，母亲转账五万元后发现被骗。",
        # An act whose doer is not named anew is the last named doer's, in its clause or the next one's opening.
        "被告人尚某在银行门口取完钱后，一名男子抢走了他手里的信封后逃跑，路人帮他追了一段没追上。",
        "被告人桑某家里的监控拍到有人半夜翻墙进了院子，偷走了两只鸡。",
        "被告人庄某下班路上被几个陌生人拦住要钱，庄某给了他们一百元后对方离开，庄某报了警。",
        # A thing that fell on the defendant: harm to themselves is no one's offence against them.
        "被告人东某在单位搬文件柜时，柜子倒下砸到了自己的脚，造成脚趾骨折。",
    ],
)
def test_a_victims_own_account_is_read_as_one(fact: str) -> None:
    assert victim_account(fact)


@pytest.mark.parametrize(
    "fact",
    [
        "被告人张某盗窃被害人李某的电动车，李某被打伤。",  # a named defendant
        "我偷了邻居的电动车，后来被警察抓了。",  # the teller's own act
        "张某被李某打伤后，持刀将李某砍死。",  # third person
        "他骂我，我就打了他一拳，把他打伤了。",  # done to the teller, but the teller acted too
        "我哥偷了邻居的电动车，后来被抓了。",  # the kin's own act, the police acting on it
        # The defendant acted too, or the fact is a proceeding's record (the victim's words tell the defendant's act).
        "被告人张某被李某打伤后，持刀将李某砍死。",
        "被告人张某的手机被盗后，他在网吧偷了别人的手机。",
        "经审理查明，被害人李某的电动车被盗，价值三千元。被告人张某到案后如实供述。",
        "被告人驾驶机动车闯红灯撞死行人。",  # 被告人's own 被 is no passive
        # Another named as the occasion of the defendant's act (趁有人不在) hands it no act; one named anew acts.
        "被告人张某趁有人不在，偷走了两只鸡。",
        "被告人张某见一名男子倒地，被告人张某上前拿走了该男子的手机。",
    ],
)
def test_a_defendants_fact_or_the_tellers_own_act_is_no_victims_account(fact: str) -> None:
    assert victim_account(fact) == ""


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["instead"]], ids=lambda e: e["charge"])
def test_the_provision_named_instead_is_in_the_statute_corpus_and_governs_the_act(entry: dict[str, str]) -> None:
    law, number = entry["instead"].split(":")
    found = {a.id: a.text for a in load_articles(resolve_laws([law], list_laws())[0])}
    assert entry["instead_act"] in found[entry["instead"]], number


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.get("act")], ids=lambda e: e["charge"])
def test_the_act_a_measure_makes_is_worded_as_the_article_and_its_instead_word_it(entry: dict[str, str]) -> None:
    # A question stating the measure is read in these words (醉酒驾驶 at 80 mg/100 ml or more, 饮酒后驾驶 from 20):
    # each must be the provision's own, or the sentence it should choose shares nothing with it.
    law, number = entry["instead"].split(":")
    instead = {a.id: a.text for a in load_articles(resolve_laws([law], list_laws())[0])}[entry["instead"]]
    criminal = {a.id: a.text for a in load_articles(resolve_laws(["刑法"], list_laws())[0])}[entry["article"]]
    assert entry["act"] in criminal and entry["act"] in instead and entry["instead_act"] in instead, number
    threshold = load_thresholds()[entry["charge"]]
    assert threshold.conduct(entry["example_above"]) == entry["act"]
    assert threshold.conduct(entry["example_below"]) == entry["instead_act"]


ELEMENTS = json.loads((TABLE.parent / "elements.json").read_text(encoding="utf-8"))["elements"]
CHARGES = load_charge_rules(INTERPRETATIONS).articles


@pytest.mark.parametrize("entry", ELEMENTS, ids=lambda e: e["charges"][0])
def test_each_element_is_found_in_its_example_and_missed_in_the_other(entry: dict[str, Any]) -> None:
    for charge in entry["charges"]:
        assert missing_element(charge, entry["example_stated"]) is None
        found = missing_element(charge, entry["example_missing"])
        assert found is not None and found.element == entry["element"]
        # Every charge is one the charge rules define, under the article the entry cites.
        assert charge in CHARGES and any(a.split("-")[0] in entry["article"] for a in CHARGES[charge]), charge


@pytest.mark.parametrize(
    ("charge", "told", "untold"),
    [
        (
            "合同诈骗",
            "被告人签订购销合同收取货款30万元后携款逃匿。",
            "被告人签订房屋买卖合同收取定金后因房价上涨反悔不卖。",
        ),
        ("保险诈骗", "被告人故意纵火烧毁投保车辆，向保险公司索赔。", "被告人借朋友的汽车撞到护栏导致保险杠损坏。"),
        (
            "贷款诈骗",
            "被告人使用虚假的产权证明作担保，从银行取得贷款50万元。",
            "被告人向银行贷款50万元，因经营亏损到期未能归还。",
        ),
        ("集资诈骗", "被告人以虚假的投资项目向社会公众集资300万元。", "被告人经批准发行企业债券募集资金。"),
        ("信用卡诈骗", "被告人冒用他人信用卡在商场消费2万元。", "被告人使用自己的信用卡消费后按期还款。"),
    ],
)
def test_a_special_fraud_needs_the_deceit_its_article_names(charge: str, told: str, untold: str) -> None:
    assert not untold_act(charge, told) and untold_act(charge, untold)


@pytest.mark.parametrize("charge", ["故意伤害", "故意毁坏财物", "寻衅滋事", "故意杀人", "放火"])
def test_an_intentional_offence_needs_more_than_a_harm_the_one_judged_did_by_accident(charge: str) -> None:
    intent = load_elements()[charge].stated[-1]  # the INTENDED fragment, last of each entry's patterns
    accident = "被告人甘某在工地上不慎掉落一块木板，砸坏了路边一辆汽车，致车主手臂受伤。"
    assert not told(intent, accident) and missing_element(charge, accident) is not None
    assert not told(intent, "被告人益某在健身房举重时器械脱手，砸坏了地板。")
    # A grudge is intent, whatever else went by accident.
    assert told(intent, accident.replace("不慎掉落", "因与车主有矛盾，扔下"))
    # The victim's own accident (被害人……不小心), or one done to the defendant, is not the defendant's.
    assert told(intent, "被害人贺某出门时不小心摔倒，被告人李某追上去用拳头打他。")
    assert told(intent, "贺某出门时不小心碰了一下被告人李某，李某追出来用拳头打他。")


def test_pollution_needs_a_form_of_serious_pollution_not_a_limit_slightly_exceeded() -> None:
    # 水污染防治法:83's 超标排放 is an administrative matter; 338 needs the 2023 interpretation's forms, or the
    # discharge told as the act.
    assert missing_element("污染环境", "被告人魏某丙的企业排放的废水氨氮指标略超标准，被生态环境部门责令整改并罚款。")
    assert missing_element("污染环境", "被告人经营的电镀厂排放的废水镍含量超过国家排放标准十二倍。") is None
    assert missing_element("污染环境", "被告人雇人将废酸向院内污水井内排放时被环保局查获。") is None
