"""Answered consultations in both stores: ingestion, the article card, LawSearch's vote and half hiding."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.context import ConsultContext
from agents.context.experiment import MeasuredConsult
from agents.law_search import consultation_rankings
from agents.state.ingest import IngestInput
from app.eval.systems import measured
from graphs.ingest import build_graph
from tools.corpus.consultations import load_consultations
from tools.corpus.halves import half_of
from tools.errors import CorpusError, InputError
from tools.kb.cases import CaseRepository
from tools.kb.charges import ChargeRepository
from tools.kb.consultations import ConsultationRepository
from tools.kb.inspect import article_card
from tools.kb.interpretations import InterpretationRepository
from tools.pipelines.ingestion import REMEMBERED_SOURCE, ingest_consultations, remember_answer, remove_source
from tools.retrieval.hybrid import LexicalCollection
from tools.retrieval.vectors import CONSULTATIONS
from tools.services import Services, set_services

pytestmark = pytest.mark.integration

THEFT = "法律依据:《中华人民共和国刑法》第二百六十四条"
DRUNK = "法律依据:《中华人民共和国刑法》第一百三十三条之一；《中华人民共和国刑法》第一百三十三条"
ROWS = [
    {"id": "t1", "question": "偷了同事的手机会判刑吗？", "answer": "回答:可能构成盗窃罪。" + THEFT},
    {"id": "t2", "question": "在超市偷东西被抓了怎么处理？", "answer": "回答:数额较大的构成盗窃罪。" + THEFT},
    {
        "id": "d1",
        "question": "喝酒后开车被交警查到会坐牢吗？",
        "answer": "回答:在道路上醉酒驾驶机动车的，构成危险驾驶罪，处拘役，并处罚金；"
        "发生重大事故致人重伤、死亡的，构成交通肇事罪。" + DRUNK,
    },
    {
        "id": "d2",
        "question": "醉驾撞伤了人怎么判？",
        "answer": "回答:醉酒驾驶机动车，违反交通运输管理法规，因而发生重大事故致人重伤的，"
        "构成交通肇事罪，处三年以下有期徒刑或者拘役。" + DRUNK,
    },
]


@pytest.fixture
def repo(kb: Services) -> Iterator[ConsultationRepository]:
    yield ConsultationRepository(kb.graph)
    kb.graph.query("MATCH (q:Consultation) DETACH DELETE q")
    kb.vectors.reset(CONSULTATIONS)


def _file(tmp_path: Path, name: str, rows: list[dict[str, str]]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_consultations_cite_articles_idempotently_and_show_on_the_article_card(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    consultations = load_consultations(_file(tmp_path, "answered", ROWS))[0]
    report = ingest_consultations(consultations, kb.vectors, repo, batch_size=3)
    assert (report.added, report.updated, report.unchanged) == (4, 0, 0)
    again = ingest_consultations(consultations, kb.vectors, repo, batch_size=3)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 4)
    assert kb.vectors.count(CONSULTATIONS) == 4
    assert repo.sources() == {"answered": 4}

    card = article_card(kb.graph, "刑法:133-1")
    assert {c["id"] for c in card["consultations"]} == {"d1", "d2"}
    assert [c["id"] for c in article_card(kb.graph, "刑法:264")["consultations"]] == ["t1", "t2"]

    # A changed answer is rewritten with its new citations; the old CITES edge goes.
    changed = [{**ROWS[0], "answer": "回答:构成抢劫罪。法律依据:《中华人民共和国刑法》第二百六十三条"}]
    report = ingest_consultations(load_consultations(_file(tmp_path, "answered", changed))[0], kb.vectors, repo, 3)
    assert (report.added, report.updated) == (0, 1)
    assert [c["id"] for c in article_card(kb.graph, "刑法:264")["consultations"]] == ["t2"]


def test_an_id_of_another_source_is_refused_and_a_source_is_removed_whole(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    ingest_consultations(load_consultations(_file(tmp_path, "mine", ROWS[:2]))[0], kb.vectors, repo, 8)
    theirs = load_consultations(_file(tmp_path, "theirs", ROWS[1:3]))[0]
    with pytest.raises(InputError, match="1 consultation id\\(s\\) of 'theirs' already belong to source 'mine'"):
        ingest_consultations(theirs, kb.vectors, repo, 8)
    assert kb.vectors.count(CONSULTATIONS) == 2  # nothing of the refused file was written

    charges = ChargeRepository(kb.graph)
    removed = remove_source(
        "mine", kb.vectors, CaseRepository(kb.graph, charges), InterpretationRepository(kb.graph), repo
    )
    assert removed == ("consultations", 2)
    assert kb.vectors.count(CONSULTATIONS) == 0 and repo.sources() == {}


def test_a_file_with_a_bad_line_writes_nothing(
    active_kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    path = _file(tmp_path, "bad", [*ROWS[:2], {"id": "x", "question": "问题\u0000", "answer": ROWS[0]["answer"]}])
    state = IngestInput(laws=["刑法"], consultations=[str(path)])
    with pytest.raises(CorpusError, match=r"bad\.jsonl:3: field question holds a control character \(U\+0000"):
        build_graph().invoke(state, context=ConsultContext(model="fake"))
    assert active_kb.vectors.count(CONSULTATIONS) == 0 and repo.sources() == {}


def test_law_search_votes_for_what_similar_consultations_cite_and_hides_a_half(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    ingest_consultations(load_consultations(_file(tmp_path, "answered", ROWS))[0], kb.vectors, repo, 8)
    question = "喝酒后开车被交警查到了，醉驾怎么判？"
    context = ConsultContext(model="fake", consultation_k=2, routed_laws=1)
    found = consultation_rankings(question, question, {"bm25": ["刑法:264", "刑法:133-1"]}, kb, context)
    assert found["consultations"][:2] == ["刑法:133-1", "刑法:133"]
    # The neighbours are matched with the question alone, not the search query's key facts and draft.
    drafted = f"{question}\n偷了同事的手机，在超市偷东西，盗窃罪，数额较大"
    assert consultation_rankings(question, drafted, {}, kb, context)["consultations"] == found["consultations"]
    assert all(a.startswith("刑法:") for a in found["routed"]) and found["routed"]
    # The prior holds only candidates some consultation cites: 263 and 232 were found by no source.
    assert set(found["prior"]) == {"刑法:264", "刑法:133-1", "刑法:133"} & set(
        found["consultations"] + found["routed"] + ["刑法:264", "刑法:133-1"]
    )

    # The question's BM25 query extended by the statute words answered questions point to, learned from the
    # KB's consultations (the learning itself: tests/unit/test_term_expansion.py).
    statutes = kb.retriever.statute_index()
    assert found["expanded"] == kb.consultations.expanded_ranking(question, statutes, context.candidates_per_retriever)
    assert found["expanded"] and all(a.startswith("刑法:") for a in found["expanded"])

    # Hiding the drunk-driving questions' half removes exactly those of that half from the neighbours.
    hidden = half_of("d1")
    neighbours = kb.consultations.neighbours(question, 10, hidden_half=hidden)
    assert neighbours and all(half_of(n.id) != hidden for n in neighbours)
    assert {n.id for n in kb.consultations.neighbours(question, 10)} == {r["id"] for r in ROWS}


def test_a_remembered_answer_becomes_a_consultation(kb: Services, repo: ConsultationRepository) -> None:
    kept = remember_answer("同事偷我手机怎么办？", "可以报警。", ["刑法:264"], kb.vectors, repo)
    assert kept.source == REMEMBERED_SOURCE and kept.articles == ("刑法:264",)
    assert [c["id"] for c in article_card(kb.graph, "刑法:264")["consultations"]] == [kept.id]
    remember_answer("同事偷我手机怎么办？", "应当报警。", ["刑法:264"], kb.vectors, repo)
    assert repo.sources() == {REMEMBERED_SOURCE: 1}
    with pytest.raises(InputError, match="no Legal Basis"):
        remember_answer("问题", "回答", [], kb.vectors, repo)


def test_bm25_reads_the_answers_reasoning_as_well_as_the_question(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    ingest_consultations(load_consultations(_file(tmp_path, "answered", ROWS))[0], kb.vectors, repo, 8)
    questions_only = LexicalCollection(kb.vectors, CONSULTATIONS, None)
    with_reasoning = LexicalCollection(kb.vectors, CONSULTATIONS, None, extra_field="reasoning")
    # "数额较大" is in t2's answer ("数额较大的构成盗窃罪"), in no question.
    assert questions_only.index().search("数额较大", 5) == []
    assert [cid for cid, _ in with_reasoning.index().search("数额较大", 5)] == ["t2"]


def test_citation_counts_follow_the_collection_and_the_hidden_half(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    from tools.retrieval.consultations import use_weight

    def counted(*cited: tuple[str, str]) -> float:
        # Each citation counts as much as its answer uses the article (the use itself: the test below).
        return sum(use_weight(kb.consultations.answer_use(cid, article)) for cid, article in cited)

    ingest_consultations(load_consultations(_file(tmp_path, "answered", ROWS[:3]))[0], kb.vectors, repo, 8)
    theft = counted(("t1", "刑法:264"), ("t2", "刑法:264"))
    assert kb.consultations.citation_counts()["刑法:264"] == pytest.approx(theft) and theft > 1
    # d1 is the only consultation of its half among these: hiding that half leaves t1 and t2 (both 264).
    hidden = kb.consultations.citation_counts(half_of("d1"))
    assert hidden["刑法:133-1"] == 0 and hidden["刑法:264"] == pytest.approx(theft)
    ingest_consultations(load_consultations(_file(tmp_path, "more", ROWS[3:]))[0], kb.vectors, repo, 8)
    # Counted again once the collection changed.
    drunk = counted(("d1", "刑法:133-1"), ("d2", "刑法:133-1"))
    assert kb.consultations.citation_counts()["刑法:133-1"] == pytest.approx(drunk) and drunk > 0


def test_an_article_is_as_near_as_the_mean_of_the_questions_citing_it(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    ingest_consultations(load_consultations(_file(tmp_path, "answered", ROWS[:3]))[0], kb.vectors, repo, 8)
    ranked = kb.consultations.centroid_ranking("喝酒后开车被交警查到会坐牢吗？", 5)
    assert set(ranked) == {"刑法:264", "刑法:133-1", "刑法:133"}  # every cited article, none other
    assert ranked.index("刑法:133-1") < ranked.index("刑法:264")
    assert kb.consultations.centroid_ranking("偷了同事的手机会判刑吗？", 1) == ["刑法:264"]
    # d1 is the only consultation of its half among these: hiding that half hides the articles only it cites.
    assert kb.consultations.centroid_ranking("喝酒后开车", 5, half_of("d1")) == ["刑法:264"]
    ingest_consultations(load_consultations(_file(tmp_path, "more", ROWS[3:]))[0], kb.vectors, repo, 8)
    # d2 (of the other half) cites 133-1 too: the centroids are recomputed once the collection changed.
    assert half_of("d2") != half_of("d1")
    assert "刑法:133-1" in kb.consultations.centroid_ranking("喝酒后开车", 5, half_of("d1"))


def test_the_nearest_answered_questions_become_the_drafts_worked_examples(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    from agents.law_search import EXAMPLES, nearest_consultations, similar_consultations

    ingest_consultations(load_consultations(_file(tmp_path, "answered", ROWS))[0], kb.vectors, repo, 8)
    question = "喝酒后开车被交警查到了，醉驾怎么判？"
    neighbours = nearest_consultations(question, kb, ConsultContext(model="fake", consultation_k=2))
    examples, cited = similar_consultations(neighbours, kb)
    assert len(examples) <= EXAMPLES and examples[0]["id"] in {"d1", "d2"}
    first = next(r for r in ROWS if r["id"] == examples[0]["id"])
    assert examples[0]["question"] == first["question"] and examples[0]["answer"] in first["answer"]
    assert examples[0]["articles"] == ["刑法:133-1", "刑法:133"]
    assert cited["刑法:133-1"] >= 1 and cited["刑法:133-1"] == sum("刑法:133-1" in e["articles"] for e in examples)
    # None with consultation_k 0 (nor without consultations to read).
    assert nearest_consultations(question, kb, ConsultContext(model="fake", consultation_k=0)) == []
    assert similar_consultations([], kb) == ([], {})
    # The vote reads the same neighbours whether given or read itself.
    context = ConsultContext(model="fake", consultation_k=2)
    assert consultation_rankings(question, question, {}, kb, context, neighbours) == consultation_rankings(
        question, question, {}, kb, context
    )


def test_an_answered_item_is_measured_with_its_halfs_consultations_hidden_any_other_with_none(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    ingest_consultations(load_consultations(_file(tmp_path, "answered", ROWS))[0], kb.vectors, repo, batch_size=4)
    set_services(kb)
    try:
        for item_id in ("t1", "t2", "d1", "d2"):
            assert measured(MeasuredConsult(model="fake"), {"id": item_id}).hidden_consultation_half == half_of(item_id)
        # A question of our own the KB never answered reads every consultation, as a user's does.
        assert measured(MeasuredConsult(model="fake"), {"id": "everyday-deposit"}).hidden_consultation_half == ""
    finally:
        set_services(None)


def test_a_citation_counts_by_how_much_its_answer_uses_the_article(
    kb: Services, repo: ConsultationRepository, tmp_path: Path
) -> None:
    from tools.retrieval.consultations import fitted_vote_saturation, use_weight

    # A theft answer that also cites 133 (traffic accidents) and never speaks of driving.
    stray = {
        "id": "x1",
        "question": "偷了邻居的电动车会怎么判？",
        "answer": "回答:盗窃邻居的电动车，数额较大的，构成盗窃罪，由公安机关立案侦查。"
        "法律依据:《中华人民共和国刑法》第二百六十四条；《中华人民共和国刑法》第一百三十三条",
    }
    ingest_consultations(load_consultations(_file(tmp_path, "answered", [*ROWS[:2], stray]))[0], kb.vectors, repo, 8)
    search, saturation = kb.consultations, fitted_vote_saturation()
    assert saturation > 0
    assert search.answer_use("x1", "刑法:264") >= saturation > search.answer_use("x1", "刑法:133")
    # Its vote for 133 counts in proportion, in the vote and in the prior's counts.
    neighbours = {n.id: n for n in search.neighbours("偷了邻居的电动车会怎么判？", 10)}
    assert neighbours["x1"].uses[1] == search.answer_use("x1", "刑法:133")
    weight = use_weight(search.answer_use("x1", "刑法:133"))
    assert search.citation_counts()["刑法:133"] == pytest.approx(weight) and weight < 1
    # An article is as near as the questions whose answers use it: 133, cited only unused, has no centroid.
    assert search.centroid_ranking("偷了邻居的电动车会怎么判？", 5) == ["刑法:264"]
