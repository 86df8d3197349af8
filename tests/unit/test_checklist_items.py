"""Checklist items that say nothing of the facts are refused before they are stored, and a stored list that
holds one is made again on its next use."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tools.law.checklist_rules import ChecklistSchema, checkable

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
