from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.cail import load_cases
from tools.kb.cases import CaseRepository
from tools.kb.charges import ChargeRepository
from tools.kb.ontology import OntologyRepository, extract_lexical
from tools.pipelines.ingestion import build_ontology, ingest_cases
from tools.retrieval.vectors import CASES
from tools.services import Services

pytestmark = pytest.mark.integration


@pytest.fixture
def onto(kb: Services) -> Iterator[OntologyRepository]:
    cases = load_cases(SHARED_DATA / "zh/cases/cail2018_sample_train.jsonl")[:120]
    ingest_cases(cases, kb.vectors, CaseRepository(kb.graph, ChargeRepository(kb.graph)), batch_size=60)
    yield OntologyRepository(kb.graph)
    kb.graph.query("MATCH (n) WHERE n:Case OR n:Feature OR n:Community DETACH DELETE n")
    kb.vectors.reset(CASES)


def test_features_similarity_and_communities_over_real_cases(kb: Services, onto: OntologyRepository) -> None:
    calls: list[str] = []

    def counting(fact: str) -> dict[str, list[str]]:
        calls.append(fact)
        return extract_lexical(fact)

    counts = build_ontology(onto, counting, k=5)
    assert counts["cases"] == 120 and counts["extracted"] == 120
    assert 0 < counts["similar"] <= 120 * 5
    assert counts["communities_level_0"] <= counts["communities_level_1"]
    per_case = kb.graph.read(
        "MATCH (c:Case)-[:IN]->(m:Community) RETURN c.id AS id, count(m) AS n ORDER BY n DESC LIMIT 1"
    )
    assert per_case[0]["n"] == 2  # one community per level
    sizes = kb.graph.read("MATCH (m:Community {level: 0}) RETURN sum(m.size) AS total")
    assert sizes == [{"total": 120}]

    # Incremental: stored features are reused, only the structure is rebuilt.
    again = build_ontology(onto, counting, k=5)
    assert again["extracted"] == 0 and len(calls) == 120
    assert kb.graph.read("MATCH (:Case)-[s:SIMILAR]->(:Case) RETURN count(s) AS n") == [{"n": again["similar"]}]


def test_community_summaries_are_written_once_and_cached(kb: Services, onto: OntologyRepository) -> None:
    from tools.llm.fake import FakeChatModel

    build_ontology(onto, extract_lexical, k=5)
    largest = onto.communities(0)[0]
    model = FakeChatModel(responses=["多为因琐事殴打致人轻伤的故意伤害案件。"])
    summary, usage = onto.summarise(str(largest["id"]), model, "fake")
    assert summary == "多为因琐事殴打致人轻伤的故意伤害案件。" and usage is not None
    prompt = str(model.calls[0][-1].content)
    assert f"社区规模：{largest['size']} 个案件" in prompt and "代表性案情" in prompt
    cached, usage = onto.summarise(str(largest["id"]), model, "fake")
    assert cached == summary and usage is None and len(model.calls) == 1
    assert onto.communities(0)[0]["summary"] == summary
