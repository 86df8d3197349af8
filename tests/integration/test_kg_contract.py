"""One contract for every graph adapter: FalkorDB (the embedded server) always, Neo4j wherever NEO4J_URI is
set."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace

import pytest

from tools.kb import GraphStore, open_graph_store
from tools.kb.statutes import StatuteRepository
from tools.law.articles import Article
from tools.settings import Settings

pytestmark = pytest.mark.integration


def _article(number: int, text: str, suffix: int = 0) -> Article:
    return Article(
        id=f"测试法:{number}" + (f"-{suffix}" if suffix else ""),
        law="测试法",
        law_full="中华人民共和国测试法",
        number=number,
        suffix="之一" if suffix else "",
        label=f"第{number}条",
        chapter="第一章",
        text=text,
    )


@pytest.fixture(params=["falkordb", "neo4j"])
def store(request: pytest.FixtureRequest, kb_settings: Settings) -> Iterator[GraphStore]:
    # The session KB fixture starts the embedded server the FalkorDB store connects to.
    request.getfixturevalue("kb")
    if request.param == "neo4j":
        if not os.environ.get("NEO4J_URI"):
            pytest.skip("Neo4j contract needs a server: set NEO4J_URI, NEO4J_USERNAME and NEO4J_PASSWORD")
        settings = replace(
            kb_settings,
            neo4j_uri=os.environ["NEO4J_URI"],
            neo4j_username=os.environ.get("NEO4J_USERNAME", "neo4j"),
            neo4j_password=os.environ.get("NEO4J_PASSWORD", ""),
        )
    else:
        # The session KB fixture started the embedded server; a separate graph keeps data apart.
        settings = replace(kb_settings, graph_name="contract")
    graph = open_graph_store(settings)
    graph.clear()
    yield graph
    graph.clear()
    graph.close()


def test_articles_round_trip_verbatim(store: GraphStore) -> None:
    repo = StatuteRepository(store)
    text = "第一款。\n（一）带引号的\"文本\"、反斜杠\\ 和 'quote'；\n（二）第二项。"
    repo.upsert_laws([("测试法", "中华人民共和国测试法")])
    repo.upsert_articles([_article(1, text), _article(2, "二"), _article(2, "之一", suffix=1)])
    got = repo.get_articles(["测试法:2-1", "测试法:1", "测试法:404"])
    assert [a.id for a in got] == ["测试法:2-1", "测试法:1"]
    assert got[1].text == text
    assert got[1] == _article(1, text)


def test_upserts_are_idempotent(store: GraphStore) -> None:
    repo = StatuteRepository(store)
    for _ in range(2):
        repo.upsert_articles([_article(1, "一"), _article(2, "二")])
    assert repo.counts() == {"测试法": 2}
    edges = store.read("MATCH (:Law)-[r:HAS_ARTICLE]->(:Article) RETURN count(r) AS n")
    assert edges == [{"n": 2}]
    repo.upsert_articles([_article(1, "一（修正）")])
    assert repo.get_articles(["测试法:1"])[0].text == "一（修正）"
    assert repo.article_hashes("测试法")["测试法:1"] == _article(1, "一（修正）").content_hash


def test_parameters_are_data_not_cypher(store: GraphStore) -> None:
    repo = StatuteRepository(store)
    hostile = "x'}) MATCH (n) DETACH DELETE n //"
    repo.upsert_articles([_article(1, "一")])
    assert repo.get_articles([hostile]) == []
    repo.upsert_articles([_article(3, hostile)])
    assert repo.get_articles(["测试法:3"])[0].text == hostile
    assert repo.counts() == {"测试法": 2}


def test_citation_check_splits_known_and_unknown(store: GraphStore) -> None:
    repo = StatuteRepository(store)
    repo.upsert_articles([_article(1, "一")])
    found, missing = repo.check_citations(["测试法:1", "测试法:999", "测试法:1"])
    assert [a.id for a in found] == ["测试法:1"]
    assert missing == ["测试法:999"]


def test_read_queries_cannot_write(store: GraphStore) -> None:
    with pytest.raises(Exception):  # noqa: B017 - each backend raises its own error type
        store.read("CREATE (:Law {id: 'x'})")
    assert store.read("MATCH (l:Law {id: 'x'}) RETURN count(l) AS n") == [{"n": 0}]


def test_charge_case_and_checklist_queries_run_on_the_backend(store: GraphStore) -> None:
    from tools.corpus.cail import Case
    from tools.kb.cases import CaseRepository, sentenced_convictions
    from tools.kb.charges import ChargeRepository
    from tools.kb.checklists import Checklist, ChecklistRepository

    statutes = StatuteRepository(store)
    statutes.upsert_articles(
        [Article("刑法:264", "刑法", "中华人民共和国刑法", 264, "", "第二百六十四条", "第五章", "盗窃公私财物……")]
    )
    charges = ChargeRepository(store)
    charges.upsert({"盗窃": ["刑法:264"]}, {"扒窃": "盗窃"})
    assert charges.articles_for(["盗窃罪", "扒窃"]) == {"盗窃罪": ["刑法:264"], "扒窃": ["刑法:264"]}
    cases = CaseRepository(store, charges)
    case = Case("c1", "src", "被告人秘密窃取……", ("刑法:264",), ("盗窃",), 6, False, False, 1000)
    cases.upsert([case])
    cases.upsert([case])
    rows = store.read(
        "MATCH (c:Case {id: 'c1'})-[:CITES]->(a:Article) MATCH (c)-[:CONVICTED_OF]->(ch:Charge) "
        "RETURN a.id AS article, ch.name AS charge"
    )
    assert rows == [{"article": "刑法:264", "charge": "盗窃"}]
    assert cases.sources() == {"src": 1}
    # A term's precedents: each sentenced case convicted of one of the charges, with all its charges.
    unsentenced = Case("c2", "src", "被告人窃取……", ("刑法:264",), ("盗窃",), None, False, False, 0)
    cases.upsert([unsentenced])
    assert sentenced_convictions(store, ["盗窃", "抢劫"]) == {"c1": frozenset({"盗窃"})}
    checklists = ChecklistRepository(store)
    checklists.save(Checklist("刑法:264", ("是否秘密窃取？", "数额是否较大？"), "fake", "v1"))
    stored = checklists.get("刑法:264")
    assert stored is not None and stored.items == ("是否秘密窃取？", "数额是否较大？")
    cases.delete_source("src")
    assert cases.sources() == {}
