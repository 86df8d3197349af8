from __future__ import annotations

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.charge_rules import load_charge_rules
from tools.errors import InputError
from tools.kb.charges import ChargeRepository
from tools.pipelines.ingestion import ingest_charges
from tools.services import Services

pytestmark = pytest.mark.integration


def test_charges_link_to_articles_and_resolve_old_names(kb: Services) -> None:
    rules = load_charge_rules(SHARED_DATA / "zh" / "interpretations" / "lawrefbook")
    repo = ChargeRepository(kb.graph)
    assert ingest_charges(rules, repo, kb.statutes) == len(rules.articles)
    ingest_charges(rules, repo, kb.statutes)  # idempotent
    assert repo.count() == len(rules.articles)
    assert repo.has_charges()
    found = repo.articles_for(["盗窃", "贩卖毒品", "生产、销售假药", "不存在"])
    assert found == {
        "盗窃": ["刑法:264"],
        "贩卖毒品": ["刑法:347"],
        "生产、销售假药": ["刑法:141"],
        "不存在": [],
    }
    defines = kb.graph.read("MATCH (:Article)-[r:DEFINES]->(:Charge {name: '危险驾驶'}) RETURN count(r) AS n")
    assert defines == [{"n": 1}]


def test_a_charge_the_rules_no_longer_name_is_retired(kb: Services) -> None:
    # A name an earlier parser made of a whole table cell (two charges and a note) stayed in existing KBs.
    rules = load_charge_rules(SHARED_DATA / "zh" / "interpretations" / "lawrefbook")
    repo = ChargeRepository(kb.graph)
    junk, label = "滥用职权罪、玩忽职守", "嫖宿幼女"  # a misparsed name; a repealed charge a stored case holds
    repo.upsert({**rules.articles, junk: ["刑法:397"], label: ["刑法:360"]}, rules.aliases)
    kb.graph.query(
        "MATCH (c:Charge {name: $name}) MERGE (:Case {id: 'retired-probe'})-[:CONVICTED_OF]->(c)", {"name": label}
    )
    try:
        assert junk in repo.defined_by({"刑法:397"})
        ingest_charges(rules, repo, kb.statutes)
        assert repo.defined_by({"刑法:397"}) == {"滥用职权", "玩忽职守"} and label not in repo.defined_by({"刑法:360"})
        assert repo.articles_for([junk, label]) == {junk: [], label: []}
        names = {row["name"] for row in kb.graph.read("MATCH (c:Charge) RETURN c.name AS name")}
        assert junk not in names and label in names  # kept as the case's label, defined by no article
    finally:
        kb.graph.query("MATCH (c:Case {id: 'retired-probe'}) DETACH DELETE c")
        kb.graph.query("MATCH (c:Charge {name: $name}) DETACH DELETE c", {"name": label})


def test_charges_need_the_criminal_law_first(fresh_services: Services) -> None:
    rules = load_charge_rules(SHARED_DATA / "zh" / "interpretations" / "lawrefbook")
    empty = ChargeRepository(fresh_services.graph)
    with pytest.raises(InputError, match="ingest --laws 刑法"):
        ingest_charges(rules, empty, fresh_services.statutes)
    assert not empty.has_charges()
