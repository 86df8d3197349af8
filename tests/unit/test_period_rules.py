"""Articles a period the question states decides (tools/law/period_rules.json): each range is its article's own words,
and a period in it decides the article only with the fact the range is about."""

from __future__ import annotations

import pytest

from tests.conftest import laws_db_text
from tools.law.period_rules import PeriodRule, decided_by_period, period_rules

TEXTS = {
    "劳动合同法:82": ("中华人民共和国劳动合同法", "第八十二条"),
    "劳动合同法:14": ("中华人民共和国劳动合同法", "第十四条"),
}
"""Where laws.db holds each rule's article: a new rule names its own."""


@pytest.mark.parametrize("rule", period_rules(), ids=lambda r: r.article)
def test_each_range_is_its_articles_own_words(rule: PeriodRule) -> None:
    assert rule.range.text in laws_db_text(*TEXTS[rule.article])


def test_a_period_decides_only_in_its_range_and_with_the_fact_it_is_about() -> None:
    assert [r.article for r, _ in decided_by_period("入职半年了，公司还没跟我签合同，怎么办？")] == ["劳动合同法:82"]
    assert [r.article for r, _ in decided_by_period("干了两年了，一直没签劳动合同。")] == ["劳动合同法:14"]
    assert decided_by_period("公司和我签了劳动合同，我干了八个月，想辞职。") == []  # a contract signed
    assert decided_by_period("没签劳动合同，刚干了二十天。") == []  # under a month: no double wages yet
    assert decided_by_period("没签合同，干了三个月，又在别的公司干了两年。") == []  # two periods: not code's to pick
