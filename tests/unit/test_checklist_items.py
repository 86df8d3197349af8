"""Checklist items that say nothing of the facts are refused before they are stored, and a stored list that
holds one is made again on its next use."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from tests.conftest import laws_db_text
from tools.law.checklist_rules import ChecklistSchema, checkable, statute_elements

LEASE = "出租人应当按照约定将租赁物交付承租人，并在租赁期限内保持租赁物符合约定的用途。"
THEFT = "盗窃公私财物，数额较大的，或者多次盗窃、入户盗窃、携带凶器盗窃、扒窃的，处三年以下有期徒刑、拘役或者管制。"


@pytest.mark.parametrize(
    "item",
    [
        "是否是保险法第八十九条？",
        "是否是《中华人民共和国消费者权益保护法》？",
        "是否适用民法典第七百零八条的规定？",
        "是否属于民法典的调整范围？",
    ],
)
def test_an_item_that_only_names_a_law_or_an_article_is_refused(item: str) -> None:
    with pytest.raises(ValidationError, match="not name a law or an article"):
        ChecklistSchema.model_validate({"items": [item]}, context={"article_text": LEASE})


def test_a_law_named_in_the_articles_own_words_is_an_element() -> None:
    felling = "违反森林法的规定，滥伐森林或者其他林木，数量较大的，处三年以下有期徒刑、拘役或者管制，并处或者单处罚金。"
    assert checkable(["是否违反森林法的规定？", "是否滥伐森林或者其他林木？"], felling)
    with pytest.raises(ValidationError, match="not name a law or an article"):
        ChecklistSchema.model_validate({"items": ["是否违反森林法的规定？"]}, context={"article_text": LEASE})


def test_a_civil_article_is_not_asked_about_a_crime_and_a_criminal_one_may_be() -> None:
    crime = "行为人是否实施了犯罪行为？"
    with pytest.raises(ValidationError, match="defines no offence"):
        ChecklistSchema.model_validate({"items": [crime]}, context={"article_text": LEASE})
    parsed = ChecklistSchema.model_validate(
        {"items": [crime, "出租人是否已按约定交付租赁物？"]}, context={"article_text": LEASE}
    )
    assert parsed.items == ["出租人是否已按约定交付租赁物？"]  # the usable item of a mixed list is kept
    assert checkable(["是否盗窃公私财物？", "行为人是否达到刑事责任年龄？"], THEFT)


def test_items_of_facts_pass_and_a_stored_list_naming_the_law_fails_todays_checks() -> None:
    assert checkable(["出租人是否已按约定交付租赁物？", "是否依法办理了登记？"], LEASE)
    # A list stored before this check fails it, so ensure_checklist makes it again on first use.
    assert not checkable(["是否是民法典第七百零八条？", "出租人是否已按约定交付租赁物？"], LEASE)


@pytest.mark.parametrize(
    "item", ["受贿所得数额是多少？", "虚开发票的主体是哪些人？", "当事人一方不履行合同义务的，应当承担什么责任？"]
)
def test_an_open_question_is_refused(item: str) -> None:
    with pytest.raises(ValidationError, match="not ask what, which or how much"):
        ChecklistSchema.model_validate({"items": [item]}, context={"article_text": LEASE})
    assert not checkable([item, "出租人是否已按约定交付租赁物？"], LEASE)


def _article(law: str, number: str) -> str:
    """An article's text as the knowledge base stores it (laws.db opens some with their number)."""
    return re.sub(r"^第[^条]+条\s*", "", laws_db_text(law, number))


@pytest.mark.parametrize(
    ("law", "number", "items"),
    [
        ("中华人民共和国民法典", "第一千二百四十五条", ["是否饲养的动物造成他人损害？"]),
        ("中华人民共和国民法典", "第一千零七十九条", ["是否夫妻一方要求离婚？"]),
        ("中华人民共和国消费者权益保护法", "第五十五条", ["是否经营者提供商品或者服务有欺诈行为？"]),
        # A list head: each listed condition is an item, and the list ends where its lines do.
        (
            "中华人民共和国劳动合同法",
            "第三十八条",
            [
                "是否未按照劳动合同约定提供劳动保护或者劳动条件？",
                "是否未及时足额支付劳动报酬？",
                "是否未依法为劳动者缴纳社会保险费？",
                "是否用人单位的规章制度违反法律、法规的规定，损害劳动者权益？",
                "是否因本法第二十六条第一款规定的情形致使劳动合同无效？",
                "是否法律、行政法规规定劳动者可以解除劳动合同的其他情形？",
            ],
        ),
        # An obligation, an order of heirs, a time limit: no condition to read.
        ("中华人民共和国民法典", "第六百七十五条", []),
        ("中华人民共和国民法典", "第一千一百二十七条", []),
        ("中华人民共和国民法典", "第一百八十八条", []),
    ],
)
def test_the_conditions_of_an_article_outside_criminal_law_are_read_from_its_text(
    law: str, number: str, items: list[str]
) -> None:
    text = _article(law, number)
    assert statute_elements(text) == items
    if items:
        assert checkable(items, text)  # what code reads passes the checks a model's list must
