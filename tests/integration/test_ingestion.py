from __future__ import annotations

import pytest

from tests.conftest import laws_db_text
from tools.corpus.laws_db import list_laws, resolve_laws
from tools.pipelines.ingestion import ingest_laws
from tools.retrieval.vectors import STATUTES
from tools.services import Services

pytestmark = pytest.mark.integration


class Killed(Exception):
    """Stands in for a SIGKILL half-way through a run."""


def _criminal_law() -> list:
    return resolve_laws(["刑法"], list_laws())


def test_first_run_loads_everything_and_second_run_adds_nothing(fresh_services: Services) -> None:
    s = fresh_services
    first = ingest_laws(_criminal_law(), s.vectors, s.statutes, batch_size=100)
    assert (first.total, first.added, first.updated, first.unchanged) == (505, 505, 0, 0)
    assert s.vectors.count(STATUTES) == 505
    assert s.statutes.counts() == {"刑法": 505}
    article = s.statutes.get_articles(["刑法:133-1"])[0]
    assert article.text == laws_db_text("中华人民共和国刑法", "第一百三十三条之一")

    written: list[int] = []
    second = ingest_laws(_criminal_law(), s.vectors, s.statutes, batch_size=100, on_batch=written.append)
    assert (second.added, second.updated, second.unchanged) == (0, 0, 505)
    assert written == []


def test_a_killed_run_resumes_without_duplicates_or_loss(fresh_services: Services) -> None:
    s = fresh_services
    batches = 0

    def die_after_three(n: int) -> None:
        nonlocal batches
        batches += 1
        if batches == 3:
            raise Killed

    with pytest.raises(Killed):
        ingest_laws(_criminal_law(), s.vectors, s.statutes, batch_size=50, on_batch=die_after_three)
    assert s.statutes.counts() == {"刑法": 150}
    # Simulate a kill between the two stores' writes: vectors written, graph not.
    s.statutes.store.query("MATCH (a:Article {id: $id}) DETACH DELETE a", {"id": "刑法:1"})

    resumed = ingest_laws(_criminal_law(), s.vectors, s.statutes, batch_size=50)
    assert resumed.unchanged == 149
    assert resumed.added + resumed.updated == 505 - 149
    assert s.vectors.count(STATUTES) == 505
    assert s.statutes.counts() == {"刑法": 505}
    edges = s.graph.read("MATCH (:Law)-[r:HAS_ARTICLE]->(:Article) RETURN count(r) AS n")
    assert edges == [{"n": 505}]


def test_changed_text_is_updated_in_both_stores(fresh_services: Services) -> None:
    s = fresh_services
    ingest_laws(_criminal_law(), s.vectors, s.statutes, batch_size=200)
    s.statutes.store.query("MATCH (a:Article {id: '刑法:264'}) SET a.hash = 'stale'")
    report = ingest_laws(_criminal_law(), s.vectors, s.statutes, batch_size=200)
    assert (report.added, report.updated, report.unchanged) == (0, 1, 504)
