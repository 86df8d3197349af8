"""Statute words learned from answered consultations (TermExpansion)."""

from __future__ import annotations

from collections import Counter

from tools.retrieval.lexical import LexicalIndex, tokenize
from tools.retrieval.term_expansion import TermExpansion

ARTICLES = {
    "民法典:703": "租赁合同是出租人将租赁物交付承租人使用、收益，承租人支付租金的合同。",
    "民法典:1079": "夫妻一方要求离婚的，可以由有关组织进行调解或者直接向人民法院提起离婚诉讼。",
    "劳动合同法:30": "用人单位应当按照劳动合同约定和国家规定，向劳动者及时足额支付劳动报酬。",
}
ANSWERED = [
    ("房东不退押金怎么办？", ["民法典:703"]),
    ("退租时房东扣押金合理吗？", ["民法典:703"]),
    ("老公要离婚我不同意怎么办？", ["民法典:1079"]),
    ("老板拖欠工资不给怎么办？", ["劳动合同法:30"]),
    ("公司三个月没发工资了", ["劳动合同法:30"]),
]


def _index() -> LexicalIndex:
    ids = sorted(ARTICLES)
    return LexicalIndex.from_tokens(ids, [tokenize(ARTICLES[i]) for i in ids])


def test_a_question_in_everyday_words_finds_the_article_answered_questions_cited() -> None:
    index = _index()
    question = "房东押金不退"
    # No word of the question is in the tenancy article: BM25 alone finds nothing.
    assert index.search(question, 3) == []
    expansion = TermExpansion(index, ANSWERED)
    assert expansion.pairs == 5
    assert expansion.ranking(question, 3)[0] == "民法典:703"
    assert expansion.ranking("拖欠工资", 3) == ["劳动合同法:30"]


def test_the_added_words_are_the_cited_articles_and_together_weigh_as_much_as_the_questions_own() -> None:
    expansion = TermExpansion(_index(), ANSWERED)
    question = "老板拖欠工资"
    own = Counter(tokenize(question))
    query = expansion.query(question)
    added = {w: n for w, n in query.items() if w not in own}
    assert added and set(added) <= set(tokenize(ARTICLES["劳动合同法:30"]))
    assert all(query[w] >= n for w, n in own.items())
    assert abs(sum(query.values()) - 2 * sum(own.values())) < 1e-9


def test_pairs_whose_articles_the_index_lacks_teach_nothing() -> None:
    expansion = TermExpansion(_index(), [("房东不退押金怎么办？", ["海商法:1"]), ("", ["民法典:703"])])
    assert expansion.pairs == 0
    assert expansion.query("房东押金") == dict(Counter(tokenize("房东押金")))
    assert expansion.ranking("房东押金", 3) == []
