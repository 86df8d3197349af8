"""A rate the question states against a cap the law names (tools/law/rate_caps.json): folk and percent forms read as a
yearly rate, and only a rate above the highest the cap can be decided."""

from __future__ import annotations

import pytest

from tools.law.rate_caps import exceeded_caps, rate_caps, stated_rate


@pytest.mark.parametrize(
    ("text", "yearly"),
    [
        ("借条上写的月息5分", 60.0),
        ("月息一分五", 18.0),
        ("月息1分5", 18.0),
        ("月息8厘", 9.6),
        ("年息2分", 20.0),
        ("年息5厘", 5.0),
        ("月利率2%", 24.0),
        ("年利率10％", 10.0),
        ("月息3分，借了5万元", 36.0),  # the amount after is no tenth of a 分
    ],
)
def test_a_stated_rate_is_read_as_a_yearly_percentage(text: str, yearly: float) -> None:
    rate = stated_rate(text)
    assert rate is not None and rate.yearly == pytest.approx(yearly)


def test_no_rate_or_two_rates_decide_nothing() -> None:
    assert stated_rate("借给朋友两万元，没说利息。") is None
    assert stated_rate("先说月息2分，后来改成年利率10%。") is None  # which one holds is not code's to pick


def test_only_a_rate_above_the_highest_cap_is_decided_and_only_for_a_loan() -> None:
    [cap] = rate_caps()
    assert cap.highest == pytest.approx(17.4) and cap.words in cap.quote
    assert [c.article for c, _ in exceeded_caps("借条上写的月息5分，法律保护吗？")] == [cap.article]
    assert exceeded_caps("借条上写的年利率15%，法律保护吗？") == []  # under 17.4: turns on the LPR at the date
    assert exceeded_caps("理财产品年利率20%，靠谱吗？") == []  # no loan told
