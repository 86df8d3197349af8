"""Offence descriptions against a fact: the article whose elements the fact states ranks first, penalties and
shared words aside."""

from __future__ import annotations

import pytest

from tools.law.penalties import offence_description
from tools.retrieval.offence import OffenceIndex, bigrams, pair_informativeness

THEFT = (
    "盗窃公私财物，数额较大的，或者多次盗窃、入户盗窃、携带凶器盗窃、扒窃的，"
    "处三年以下有期徒刑、拘役或者管制，并处或者单处罚金。"
)
BRIBERY = "国家工作人员利用职务上的便利，索取他人财物的，或者非法收受他人财物，为他人谋取利益的，是受贿罪。"
FRAUD = "诈骗公私财物，数额较大的，处三年以下有期徒刑、拘役或者管制，并处或者单处罚金。"
PENALTY_ONLY = "对犯受贿罪的，根据受贿所得数额及情节，依照本法第三百八十三条的规定处罚。"


def test_the_description_leaves_out_the_penalty_clauses() -> None:
    assert offence_description(THEFT) == "盗窃公私财物，数额较大的，或者多次盗窃、入户盗窃、携带凶器盗窃、扒窃的"
    assert offence_description(PENALTY_ONLY) == ""
    assert offence_description("第一句。\n处五年以下有期徒刑。") == "第一句"


def test_bigrams_never_span_punctuation_or_digits() -> None:
    assert bigrams("盗窃，财物3元") == {"盗窃", "财物"}
    assert bigrams("a1，") == set()


def test_a_bribery_fact_ranks_the_bribery_article_first_with_no_precedent() -> None:
    index = OffenceIndex([("刑法:264", THEFT), ("刑法:385", BRIBERY), ("刑法:266", FRAUD), ("刑法:386", PENALTY_ONLY)])
    fact = "被告人王某在担任某镇副镇长期间，利用职务上的便利，为他人谋取利益，非法收受他人财物共计人民币12万元。"
    found = index.search(fact, 3)
    assert found[0][0] == "刑法:385"
    # An article with no offence wording of its own is not indexed at all.
    assert "刑法:386" not in index.ids and len(index) == 3
    theft = index.search("被告人李某入户盗窃，窃得现金2000元。", 3)
    assert theft[0][0] == "刑法:264"
    assert all(score > 0 for _, score in theft)


def test_scores_weigh_rare_pairs_above_shared_ones() -> None:
    index = OffenceIndex([("刑法:264", THEFT), ("刑法:266", FRAUD)])
    # 公私财物 and 数额较大 belong to both descriptions; 诈骗 to one: it decides.
    (first, top), (second, low) = index.search("诈骗公私财物，数额较大", 2)
    assert (first, second) == ("刑法:266", "刑法:264")
    assert top > low > 0


@pytest.mark.parametrize("fact", ["", "abc 123", "量子纠缠"])
def test_a_fact_sharing_no_pair_finds_nothing(fact: str) -> None:
    assert OffenceIndex([("刑法:264", THEFT)]).search(fact, 5) == []
    assert OffenceIndex([]).search(fact or "盗窃", 5) == []


TORTURE = "司法工作人员对犯罪嫌疑人、被告人实行刑讯逼供或者使用暴力逼取证人证言的，处三年以下有期徒刑或者拘役。"
ARSON = "放火、决水、爆炸以及投放毒害性物质或者以其他危险方法危害公共安全，尚未造成严重后果的，处三年以上有期徒刑。"


def test_the_boilerplate_of_judged_facts_matches_no_offence() -> None:
    judged = [
        "被告人张某盗窃财物，有被告人供述、证人证言证实。",
        "被告人李某诈骗他人财物，有证人证言、鉴定意见证实。",
        "被告人王某醉酒驾驶机动车，有被告人供述证实。",
    ]
    weights = pair_informativeness(judged)
    assert weights["被告"] == 0.0 and weights["证言"] < weights["醉酒"] <= 1.0
    fact = "被告人赵某在张家大门上倒上汽油后放火，致门楼烧毁，有被告人供述、证人证言证实。"
    plain = OffenceIndex([("刑法:247", TORTURE), ("刑法:114", ARSON)])
    assert plain.search(fact, 1)[0][0] == "刑法:247"  # 被告人, 证人证言: the boilerplate decides
    weighed = OffenceIndex([("刑法:247", TORTURE), ("刑法:114", ARSON)], weights)
    assert [aid for aid, _ in weighed.search(fact, 2)] == ["刑法:114"]
    assert pair_informativeness(judged[:1]) == {}  # one fact says nothing of what facts share
