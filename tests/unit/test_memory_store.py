"""The in-memory graph runs the Cypher the repositories write with FalkorDB's semantics (the shared contract
is tests/integration/test_kg_contract.py, run on it too); what it does not run is an error, never a guess."""

from __future__ import annotations

import pytest

from tools.corpus.india import Offence
from tools.errors import InputError
from tools.kb.memory_store import InMemoryGraphStore
from tools.kb.offences import OffenceRepository
from tools.retrieval.hybrid import kg_linked_articles


@pytest.fixture
def store() -> InMemoryGraphStore:
    graph = InMemoryGraphStore()
    graph.query(
        "UNWIND $rows AS row MERGE (a:Article {id: row.id}) SET a.law = row.law, a.order = row.order",
        {"rows": [{"id": "刑法:264", "law": "刑法", "order": 2}, {"id": "刑法:263", "law": "刑法", "order": None}]},
    )
    graph.query(
        "UNWIND $rows AS row MERGE (c:Charge {name: row.name}) WITH c, row "
        "UNWIND row.articles AS article_id MATCH (a:Article {id: article_id}) MERGE (a)-[:DEFINES]->(c)",
        {"rows": [{"name": "盗窃", "articles": ["刑法:264"]}, {"name": "抢劫", "articles": ["刑法:263", "刑法:264"]}]},
    )
    return graph


def test_merge_is_idempotent_and_null_removes_a_property(store: InMemoryGraphStore) -> None:
    store.query("MERGE (a:Article {id: $id}) SET a.law = null", {"id": "刑法:264"})
    rows = store.read("MATCH (a:Article) RETURN a.id AS id, a.law AS law, a.order AS ord ORDER BY ord")
    # Two articles still (MERGE found the first), nulls sort last, `order` is a property like any other.
    assert rows == [{"id": "刑法:264", "law": None, "ord": 2}, {"id": "刑法:263", "law": "刑法", "ord": None}]


def test_optional_match_aggregation_and_order(store: InMemoryGraphStore) -> None:
    store.query("CREATE (:Charge {name: '重婚'})")
    rows = store.read(
        "MATCH (c:Charge) OPTIONAL MATCH (a:Article)-[:DEFINES]->(c) "
        "RETURN c.name AS name, count(a) AS n, collect(a.id) AS ids ORDER BY n DESC, name"
    )
    assert [(r["name"], r["n"]) for r in rows] == [("抢劫", 2), ("盗窃", 1), ("重婚", 0)]
    assert rows[2]["ids"] == []
    empty = store.read("MATCH (x:Nothing) RETURN count(x) AS n")
    assert empty == [{"n": 0}]  # no grouping key: one row even of no input
    assert store.read("MATCH (x:Nothing) RETURN x.id AS id, count(x) AS n") == []


def test_union_distinct_undirected_and_predicates(store: InMemoryGraphStore) -> None:
    rows = store.read(
        "MATCH (a:Article)-[:DEFINES]->(:Charge {name: '盗窃'}) RETURN a.id AS id "
        "UNION MATCH (a:Article) WHERE a.law STARTS WITH '刑' AND NOT a.id IN $skip RETURN a.id AS id",
        {"skip": ["刑法:263"]},
    )
    assert rows == [{"id": "刑法:264"}]
    pairs = store.read("MATCH (c:Charge)-[:DEFINES]-(a) WHERE c.name = '盗窃' RETURN DISTINCT a.id AS id")
    assert pairs == [{"id": "刑法:264"}]
    labels = store.read("MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n ORDER BY label")
    assert labels == [{"label": "Article", "n": 2}, {"label": "Charge", "n": 2}]
    assert store.read("MATCH ()-[r]->() RETURN type(r) AS t, count(r) AS n") == [{"t": "DEFINES", "n": 3}]


def test_deletes_and_what_is_refused(store: InMemoryGraphStore) -> None:
    with pytest.raises(InputError, match="still has relationships"):
        store.query("MATCH (c:Charge {name: '盗窃'}) DELETE c")
    store.query("MATCH (c:Charge {name: '盗窃'}) DETACH DELETE c")
    assert store.read("MATCH (:Article)-[r:DEFINES]->() RETURN count(r) AS n") == [{"n": 2}]
    with pytest.raises(InputError, match="a read query may not write"):
        store.read("MATCH (a:Article) SET a.law = 'x'")
    with pytest.raises(InputError, match="unsupported clause"):
        store.query("CALL db.labels()")
    with pytest.raises(InputError, match=r"no value for parameter \$id"):
        store.read("MATCH (a:Article {id: $id}) RETURN a.id AS id")
    hostile = "x'}) MATCH (n) DETACH DELETE n //"
    assert store.read("MATCH (a:Article {id: $id}) RETURN a.id AS id", {"id": hostile}) == []
    assert store.read("MATCH (a:Article) RETURN count(a) AS n") == [{"n": 2}]


def test_the_kg_source_reaches_the_section_defining_an_offence_the_question_names() -> None:
    # The India pack's offence graph: a question naming an offence, in any case, reaches the section defining it;
    # an offence name inside another word ("grapes") names nothing.
    graph = InMemoryGraphStore()
    graph.query("UNWIND $ids AS id MERGE (:Article {id: id})", {"ids": ["IPC:379", "IPC:376", "IPC:302"]})
    table = [("IPC:379", "Theft"), ("IPC:376", "Rape"), ("IPC:302", "Murder")]
    OffenceRepository(graph).upsert([Offence(a, name, "", True, False, "Any Magistrate") for a, name in table])
    assert kg_linked_articles(graph, "What is the punishment for theft?", 10) == ["IPC:379"]
    assert kg_linked_articles(graph, "MURDER after a theft", 10) == ["IPC:302", "IPC:379"]
    assert kg_linked_articles(graph, "He stole grapes from a stall", 10) == []
