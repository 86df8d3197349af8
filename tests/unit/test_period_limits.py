"""Limits the law sets on a period by the band of another (tools/law/period_limits.json): each band and limit is its
article's own words, and a question is compared only where it states both periods."""

from __future__ import annotations

import pytest

from agents.basis import decided_by_measure
from agents.claim_check import measured_answer
from agents.state.consult import ConsultState
from tests.conftest import article_texts
from tools.law.period_limits import PeriodLimit, decided_by_limit, period_limits

TEXTS = article_texts()


@pytest.mark.parametrize("limit", period_limits(), ids=lambda limit: limit.article)
def test_each_band_and_limit_is_its_articles_own_words(limit: PeriodLimit) -> None:
    text = TEXTS[limit.article]
    for band in limit.bands:
        assert band.limit.text in text
        assert band.range is None or band.range.text in text


def test_a_probation_is_set_against_the_limit_the_contracts_term_gives_it() -> None:
    [found] = decided_by_limit("合同签了一年，公司规定试用期六个月，合法吗？")
    assert found.article == "劳动合同法:19" and found.band.limit.text == "二个月" and found.exceeds
    [within] = decided_by_limit("签了三年的劳动合同，试用期两个月可以吗？")
    assert within.band.limit.text == "六个月" and not within.exceeds
    [short] = decided_by_limit("劳动合同期限半年，试用期一个月合法吗？")
    assert short.band.limit.text == "一个月" and not short.exceeds
    # One period alone, or none: nothing is compared (试用期六个月 is no contract term).
    assert decided_by_limit("公司规定试用期六个月，合法吗？") == []
    assert decided_by_limit("试用期公司可以随便辞退我吗？") == []
    # A limit every term has: a non-compete of three years, a lease of twenty-five.
    assert [f.exceeds for f in decided_by_limit("竞业限制协议约定离职后三年内不得到同行工作，有效吗？")] == [True]
    assert [f.exceeds for f in decided_by_limit("商铺合同写的租期十五年，有效吗？")] == [False]


class _Statutes:
    def get_articles(self, ids: list[str]) -> list[object]:
        from tools.law.articles import Article

        return [Article(i, "中华人民共和国劳动合同法", "", 19, "", "第十九条", "", TEXTS[i]) for i in ids if i in TEXTS]


def test_code_says_the_limit_is_exceeded_by_the_band_the_term_lies_in() -> None:
    question = "合同签了一年，公司规定试用期六个月，合法吗？"
    measured, _ = decided_by_measure(question, [], _Statutes(), "zh")  # type: ignore[arg-type]
    assert list(measured) == ["劳动合同法:19"] and "六个月" in measured["劳动合同法:19"]
    text = TEXTS["劳动合同法:19"]
    item = {"article_id": "劳动合同法:19", "law": "中华人民共和国劳动合同法", "number": "第十九条", "text": text}
    verdict = {"article_id": "劳动合同法:19", "decided_by": "measure", "applicable": True, "reason": ""}
    state = ConsultState(question=question, legal_basis=[item], verdicts=[verdict])  # type: ignore[list-item]
    answer, used = measured_answer(state, "zh")
    assert used == {"劳动合同法:19"}
    assert answer.startswith(
        "期限一年在本条“一年以上不满三年”的范围内，您所说的六个月超过了本条的上限二个月，不符合本条规定："
    )
    assert "劳动合同期限一年以上不满三年的，试用期不得超过二个月" in answer
