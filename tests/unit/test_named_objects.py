"""The object a charge's name says it is done to, for the charges no element covers (tools/law/named_objects.py);
every labelled judgment holds it to the bar in test_table_check."""

from __future__ import annotations

from agents.common.no_offence import decide_charges, set_aside
from tools.law.named_objects import missing_object, named_object


def test_a_rare_charge_needs_the_fact_to_name_what_its_name_says_it_is_done_to() -> None:
    found = named_object("为亲友非法牟利")
    assert found is not None and found.words == ("亲友", "牟利") and found.pattern == "亲友|牟利"
    quarrel = "被告人与邻居因停车位发生争吵，经物业调解后和好。"
    assert missing_object("为亲友非法牟利", quarrel) is not None
    assert missing_object("侵犯通信自由", quarrel) is not None
    # The same charges where the fact names their object.
    assert missing_object("为亲友非法牟利", "被告人系国有公司经理，将本单位的盈利业务交由其亲友经营。") is None
    assert missing_object("侵犯通信自由", "被告人多次私自拆开邻居的信件，侵犯他人通信自由。") is None
    # An organ named by its field is who acted on the person, not the object: 通信 of 通信管理部门.
    assert missing_object("侵犯通信自由", "被告人赖某丙的网站未备案就上线，被通信管理部门要求限期备案。") is not None
    assert missing_object("侵犯通信自由", "被告人私自拆开同事的信件，侵犯其通信自由，后被邮政管理部门查处。") is None
    # Denied, it is not named: 没有 before it.
    assert missing_object("非法低价出让国有土地使用权", "本案没有涉及土地使用权。") is not None


def test_charges_an_element_covers_or_judgments_tell_otherwise_are_left_alone() -> None:
    quarrel = "被告人与邻居因停车位发生争吵，经物业调解后和好。"
    for charge in ("故意伤害", "盗窃", "合同诈骗", "交通肇事"):  # elements or act words decide these
        assert named_object(charge) is None and missing_object(charge, quarrel) is None
    # Judgments name the ticket (火车票), not 有价票证; the name is all act (抢劫).
    assert named_object("伪造、倒卖伪造的有价票证") is None and named_object("抢劫") is None
    # A fact that may hide its words (CAIL's ×× mask) is never set aside for them.
    assert missing_object("侵犯通信自由", "被告人××了他人的××。") is None


def test_a_charge_set_aside_by_its_name_is_named_with_its_article_and_the_next_candidate_looked_at() -> None:
    quarrel = "被告人与邻居因停车位发生争吵，经物业调解后和好。"
    record = set_aside("侵犯通信自由", quarrel, "zh", "刑法:252")
    assert record is not None and record["by"] == "named" and record["article"] == "刑法:252"
    assert record["reason"] == "侵犯通信自由（刑法:252）的罪名指向“通信自由”，事实没有提到"
    decision = decide_charges(
        ["侵犯通信自由"],
        [("侵犯通信自由", 0.6)],
        quarrel,
        {"侵犯通信自由": None},
        {"侵犯通信自由": ["刑法:252"]},
        ("侵犯通信自由", "刑法:252", 0.6),
        "zh",
        0.3,
    )
    assert decision.proposed == [] and [r["by"] for r in decision.no_offence] == ["named"]
