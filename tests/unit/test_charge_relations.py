"""Which charges may stand together for one course of conduct: every rule against its own example, and the
cases the law decides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.law.charge_relations import TABLE, RelationTableError, load_relations, stand_together

RULES = json.loads(TABLE.read_text(encoding="utf-8"))["rules"]


@pytest.mark.parametrize("rule", RULES, ids=[r["name"] for r in RULES])
def test_each_rule_keeps_what_its_example_says_and_cites_an_article(rule: dict[str, object]) -> None:
    example = rule["example"]
    assert isinstance(example, dict)
    kept, merged = stand_together(example["proposed"], example.get("fact", ""))
    assert kept == example["kept"]
    assert all(m.kept in kept and m.charge not in kept for m in merged)
    assert str(rule["article"]).startswith("刑法:") and rule["why"]


def test_a_bribe_is_taken_by_one_kind_of_person_never_two() -> None:
    official = "被告人系某县国土资源局科员，利用职务上的便利，收受他人现金5万元。"
    staff = "被告人系某公司采购经理，利用职务上的便利，收受供应商好处费5万元。"
    for fact, taker in ((official, "受贿"), (staff, "非国家工作人员受贿")):
        for proposed in (["受贿", "非国家工作人员受贿"], ["非国家工作人员受贿", "受贿"]):
            kept, _ = stand_together(proposed, fact)
            assert kept == [taker], (fact, proposed)


def test_the_general_fraud_article_yields_to_the_special_one() -> None:
    kept, merged = stand_together(["诈骗", "保险诈骗", "故意伤害"], "")
    assert kept == ["保险诈骗", "故意伤害"]
    assert [(m.charge, m.kept, m.article) for m in merged] == [("诈骗", "保险诈骗", "刑法:266")]
    assert stand_together(["诈骗"], "")[0] == ["诈骗"]  # alone, the general article stands


def test_smuggling_is_one_charge_per_object_the_fact_names() -> None:
    proposed = ["走私普通货物、物品", "走私废物", "走私淫秽物品"]
    assert stand_together(proposed, "被告人走私废塑料300吨。")[0] == ["走私废物"]
    assert stand_together(proposed, "被告人走私废塑料300吨，另夹带淫秽光盘500张。")[0] == ["走私废物", "走私淫秽物品"]
    assert stand_together(proposed, "被告人走私手机300部。")[0] == ["走私普通货物、物品"]


def test_a_rule_whose_example_fails_names_itself(tmp_path: Path) -> None:
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    table["rules"][0]["example"]["kept"] = ["受贿", "非国家工作人员受贿"]
    bad = tmp_path / "charge_relations.json"
    bad.write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(RelationTableError, match="受贿（谁收受）: its example keeps"):
        load_relations(bad)
