from __future__ import annotations

from dataclasses import replace

import pytest

from tests.conftest import SHARED_DATA
from tools.corpus.interpretations import parse_interpretation
from tools.errors import InputError
from tools.kb.interpretations import InterpretationRepository
from tools.pipelines.ingestion import ingest_interpretations, ingest_provisions
from tools.retrieval.vectors import INTERPRETATIONS, STATUTES
from tools.services import Services

pytestmark = pytest.mark.integration
RULES_DIR = SHARED_DATA / "zh" / "interpretations" / "lawrefbook"
FILES = [
    "最高人民法院、最高人民检察院关于办理与盗窃、抢劫、诈骗、抢夺机动车相关刑事案件具体应用法律若干问题的解释(2007-05-09).md",
    "最高人民法院、最高人民检察院关于办理盗窃刑事案件适用法律若干问题的解释(2013-04-02).md",
]


class Killed(Exception):
    pass


@pytest.fixture
def interps() -> list:
    return [parse_interpretation(RULES_DIR / name) for name in FILES]


LOANS = "最高人民法院关于审理民间借贷案件适用法律若干问题的规定"


def _forget(kb: Services) -> None:
    kb.vectors.reset(INTERPRETATIONS)
    kb.graph.query("MATCH (i:Interpretation) DETACH DELETE i")
    for law in [law for law in kb.statutes.counts() if law.startswith("最高人民")]:
        kb.vectors.delete_where(STATUTES, "law", law)
        kb.statutes.delete_law(law)


@pytest.fixture
def kb_clean(kb: Services) -> Services:
    """The session KB (Criminal Law present) without interpretations or their provisions before and after."""
    _forget(kb)
    yield kb
    _forget(kb)


def test_interpretations_link_to_the_articles_they_apply(kb_clean: Services, interps: list) -> None:
    repo = InterpretationRepository(kb_clean.graph)
    report = ingest_interpretations(interps, kb_clean.vectors, repo, batch_size=8)
    chunks = sum(len(i.chunks) for i in interps)
    assert (report.added, report.updated, report.unchanged, report.chunks) == (2, 0, 0, chunks)
    assert kb_clean.vectors.count(INTERPRETATIONS) == chunks
    applying = repo.for_articles(["刑法:264", "刑法:312"])
    assert [i["id"] for i in applying["刑法:264"]] == [interps[1].id]
    assert interps[0].id in [i["id"] for i in applying["刑法:312"]]
    again = ingest_interpretations(interps, kb_clean.vectors, repo, batch_size=8)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 2)


def test_a_changed_interpretation_replaces_its_chunks_and_links(kb_clean: Services, interps: list) -> None:
    repo = InterpretationRepository(kb_clean.graph)
    ingest_interpretations(interps, kb_clean.vectors, repo, batch_size=8)
    shorter = replace(interps[1], content_hash="changed", chunks=interps[1].chunks[:2])
    report = ingest_interpretations([interps[0], shorter], kb_clean.vectors, repo, batch_size=8)
    assert (report.updated, report.unchanged) == (1, 1)
    assert kb_clean.vectors.count(INTERPRETATIONS) == len(interps[0].chunks) + 2
    assert set(repo.for_articles(["刑法:264"])) == ({"刑法:264"} if "刑法:264" in shorter.cites else set())


def test_a_killed_ingestion_is_redone_on_the_next_run(kb_clean: Services, interps: list) -> None:
    repo = InterpretationRepository(kb_clean.graph)

    def die(n: int) -> None:
        raise Killed

    with pytest.raises(Killed):
        ingest_interpretations(interps, kb_clean.vectors, repo, batch_size=4, on_batch=die)
    assert repo.hashes() == {}
    report = ingest_interpretations(interps, kb_clean.vectors, repo, batch_size=4)
    assert report.added == 2
    assert kb_clean.vectors.count(INTERPRETATIONS) == sum(len(i.chunks) for i in interps)


def test_an_interpretation_file_is_removed_by_source(kb_clean: Services, interps: list) -> None:
    from tools.kb.cases import CaseRepository
    from tools.kb.charges import ChargeRepository
    from tools.kb.consultations import ConsultationRepository
    from tools.pipelines.ingestion import remove_source

    repo = InterpretationRepository(kb_clean.graph)
    ingest_interpretations(interps, kb_clean.vectors, repo, batch_size=8)
    cases = CaseRepository(kb_clean.graph, ChargeRepository(kb_clean.graph))
    kind, count = remove_source(
        interps[1].source, kb_clean.vectors, cases, repo, ConsultationRepository(kb_clean.graph)
    )
    assert (kind, count) == ("interpretations", 1)
    assert kb_clean.vectors.count(INTERPRETATIONS) == len(interps[0].chunks)  # the other file's chunks stay
    assert repo.hashes() == {interps[0].id: interps[0].content_hash}
    assert "刑法:264" not in repo.for_articles(["刑法:264"])
    assert kb_clean.statutes.counts()["刑法"] == 505
    with pytest.raises(InputError, match="no source named"):
        remove_source(interps[1].source, kb_clean.vectors, cases, repo, ConsultationRepository(kb_clean.graph))


def test_a_repealed_interpretation_is_neither_offered_nor_shown(kb_clean: Services) -> None:
    from tools.corpus.interpretations import mark_superseded
    from tools.retrieval.hybrid import articles_cited_by
    from tools.retrieval.vectors import IN_FORCE

    food = "最高人民法院、最高人民检察院关于办理危害食品安全刑事案件适用法律若干问题的解释"
    interps = [parse_interpretation(RULES_DIR / f"{food}({date}).md") for date in ("2013-05-02", "2021-12-30")]
    mark_superseded(interps)
    ingest_interpretations(interps, kb_clean.vectors, InterpretationRepository(kb_clean.graph), batch_size=16)
    shown = InterpretationRepository(kb_clean.graph).for_articles(["刑法:143", "刑法:144"])
    assert {i["id"] for found in shown.values() for i in found} == {f"{food}(2021-12-30)"}
    query = "生产、销售不符合食品安全标准的食品，足以造成严重食物中毒事故"
    in_force = kb_clean.vectors.search(INTERPRETATIONS, query, 50, {IN_FORCE: True})
    assert in_force and {h.metadata["interpretation"] for h in in_force} == {f"{food}(2021-12-30)"}
    everything = kb_clean.vectors.search(INTERPRETATIONS, query, 50)
    assert f"{food}(2013-05-02)" in {h.metadata["interpretation"] for h in everything}
    assert articles_cited_by(kb_clean.vectors, INTERPRETATIONS, query, 5, 10, {IN_FORCE: True})


def test_the_provisions_in_force_are_articles_embedded_as_their_chunks(kb_clean: Services) -> None:
    from tools.corpus.interpretations import mark_superseded, provisions
    from tools.kb.cases import CaseRepository
    from tools.kb.charges import ChargeRepository
    from tools.kb.consultations import ConsultationRepository
    from tools.pipelines.ingestion import remove_source

    food = "最高人民法院、最高人民检察院关于办理危害食品安全刑事案件适用法律若干问题的解释"
    interps = [
        parse_interpretation(RULES_DIR / name)
        for name in (f"{food}(2013-05-02).md", f"{food}(2021-12-30).md", f"{LOANS}(2020-12-29).md")
    ]
    mark_superseded(interps)
    repo = InterpretationRepository(kb_clean.graph)
    ingest_interpretations(interps, kb_clean.vectors, repo, batch_size=16)
    report = ingest_provisions(interps, kb_clean.vectors, kb_clean.statutes, batch_size=16)
    # The 2013 food-safety interpretation is replaced by the 2021 one: none of its provisions is offered.
    assert report.laws == [food, LOANS]
    counts = kb_clean.statutes.counts()
    assert (counts[food], counts[LOANS]) == (len(provisions(interps[1])[1]), len(provisions(interps[2])[1]))
    rate = kb_clean.statutes.get_articles([f"{LOANS}:25"])[0]
    assert rate.heading == f"《{LOANS}》第二十五条"
    assert rate.text.startswith("出借人请求借款人按照合同约定利率支付利息的")
    # Stored (and so embedded) as its chunk was: a KB built from the shipped vectors embeds nothing again.
    chunk = f"{interps[2].id}#第二十五条"
    stored = kb_clean.vectors.texts(STATUTES, [rate.id])[rate.id]
    assert stored == kb_clean.vectors.texts(INTERPRETATIONS, [chunk])[chunk]
    # Found by a question as a statute article is.
    hits = kb_clean.vectors.search(STATUTES, "借贷双方约定的利率超过合同成立时一年期贷款市场报价利率四倍", 5)
    assert rate.id in [h.id for h in hits]
    again = ingest_provisions(interps, kb_clean.vectors, kb_clean.statutes, batch_size=16)
    assert (again.added, again.updated, again.unchanged) == (0, 0, report.total)
    # Removing the file removes its provisions too, and nothing else.
    cases = CaseRepository(kb_clean.graph, ChargeRepository(kb_clean.graph))
    remove_source(interps[2].source, kb_clean.vectors, cases, repo, ConsultationRepository(kb_clean.graph))
    assert kb_clean.statutes.get_articles([f"{LOANS}:25"]) == []
    assert not kb_clean.vectors.metadata(STATUTES, [f"{LOANS}:25"])
    assert kb_clean.statutes.counts()["刑法"] == 505 and food in kb_clean.statutes.counts()


def test_a_provision_is_searched_kept_and_quoted_in_the_answer_like_an_article(kb_clean: Services) -> None:
    from agents.context import ConsultContext
    from agents.state.consult import ConsultInput
    from graphs.consult import build_graph
    from tools.corpus.interpretations import mark_superseded
    from tools.services import set_services

    interps = [parse_interpretation(RULES_DIR / f"{LOANS}(2020-12-29).md")]
    mark_superseded(interps)
    ingest_provisions(interps, kb_clean.vectors, kb_clean.statutes, batch_size=32)
    rate = f"{LOANS}:25"
    set_services(kb_clean)
    try:
        question = (
            "民间借贷约定的利率超过合同成立时一年期贷款市场报价利率四倍，出借人请求借款人支付利息，人民法院支持吗？"
        )
        out = build_graph().invoke(ConsultInput(question=question), context=ConsultContext(model="fake"))
    finally:
        set_services(None)
    assert rate in [e["article_id"] for e in out["evidence"]]
    quoted = {i["article_id"]: i for i in out["legal_basis"] + out["conditional_basis"]}
    assert rate in quoted, out["response"]
    # Quoted verbatim from the KB, and cited by the interpretation's title as a lawyer cites it.
    assert quoted[rate]["text"] == kb_clean.statutes.get_articles([rate])[0].text
    assert (quoted[rate]["law"], quoted[rate]["number"]) == (LOANS, "第二十五条")
    assert f"《{LOANS}》第二十五条" in out["response"]
