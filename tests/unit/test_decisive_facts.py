"""The table of decisive facts (prompts/zh/decisive_facts.json): each entry asks, in a person's words, for a fact
its article makes decide the answer, justified by a quote of that article, and is never the article copied out."""

from __future__ import annotations

import re

import pytest

from agents.common.guidance import COPIED_SHARE, decisive_fact
from prompts import load_table
from tests.conftest import article_texts
from tools.law.wording import bigram_share

FACTS = load_table("decisive_facts", "zh")["facts"]


@pytest.mark.parametrize("fact", FACTS, ids=[f["article"] for f in FACTS])
def test_each_entry_asks_in_a_persons_words(fact: dict[str, object]) -> None:
    # Its why quotes its article: tests/unit/test_tables.py checks every table's quotes.
    text = re.sub(r"\s", "", article_texts()[str(fact["article"])])
    ask = str(fact["ask"])
    assert ask.endswith("？") and bigram_share(ask, text) < COPIED_SHARE, f"{fact['article']}: {ask} copies its article"
    assert fact["stated"] and all(isinstance(word, str) and word for word in fact["stated"])  # type: ignore[attr-defined]


def test_the_first_article_whose_fact_the_question_does_not_state_is_asked() -> None:
    asked = decisive_fact(["民法典:394", "民法典:577"], "zh", "租房到期后房东不退押金怎么办？")
    assert "您和对方的合同对这件事是怎么约定的" in asked and asked.startswith("答复还取决于")
    # A question that names the interest is not asked about it; the next article's fact is asked instead.
    assert "利息" in decisive_fact(["民法典:680", "民法典:675"], "zh", "借钱给朋友一直不还怎么办？")
    asked = decisive_fact(["民法典:680", "民法典:675"], "zh", "借给朋友五万元，约定月息1分，他一直不还怎么办？")
    assert "还款期限" in asked and "利息" not in asked
    assert decisive_fact(["民法典:680"], "zh", "借款时约定了利息，到期不还怎么办？") == ""
    # No entry, or a language without a table: nothing asked here (the audit's checklist may still ask).
    assert decisive_fact(["刑法:264"], "zh", "偷东西怎么判？") == ""
    assert decisive_fact(["民法典:680"], "en", "A friend does not repay") == ""


def test_beside_a_concluded_basis_only_a_concluded_articles_fact_is_asked() -> None:
    from agents.claim_check import _next_steps
    from agents.context import ConsultContext
    from agents.state.consult import ConsultState, LegalBasisItem

    texts = article_texts()

    def item(article: str) -> LegalBasisItem:
        return {"article_id": article, "law": "", "number": "", "text": texts[article]}

    question = "合同签了一年，公司规定试用期六个月，合法吗？"
    wage = "您在这家单位工作了多少年"
    beside = ConsultState(
        question=question, legal_basis=[item("劳动合同法:19")], conditional_basis=[item("劳动合同法:47")]
    )
    assert wage not in _next_steps(beside, ConsultContext())
    # With nothing concluded, the conditional article's fact is the one the answer turns on.
    alone = ConsultState(question="公司无缘无故把我开除了，能要赔偿吗？", conditional_basis=[item("劳动合同法:47")])
    assert wage in _next_steps(alone, ConsultContext())
