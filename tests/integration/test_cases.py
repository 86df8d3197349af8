from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agents.state.ingest import IngestInput
from graphs.ingest import build_graph
from tests.conftest import SHARED_DATA
from tools.corpus.cail import load_cases
from tools.corpus.charge_rules import load_charge_rules
from tools.errors import CorpusError, InputError
from tools.kb.cases import CaseRepository
from tools.kb.charges import ChargeRepository
from tools.kb.consultations import ConsultationRepository
from tools.kb.interpretations import InterpretationRepository
from tools.pipelines.ingestion import ingest_cases, ingest_charges, remove_source
from tools.retrieval.vectors import CASES
from tools.services import Services, set_services
from tools.stop import StopRequested, clear_stop, request_stop

pytestmark = pytest.mark.integration
TRAIN = SHARED_DATA / "zh" / "cases" / "cail2018_sample_train.jsonl"


@pytest.fixture
def repo(kb: Services) -> Iterator[CaseRepository]:
    charges = ChargeRepository(kb.graph)
    ingest_charges(load_charge_rules(SHARED_DATA / "zh/interpretations/lawrefbook"), charges, kb.statutes)
    yield CaseRepository(kb.graph, charges)
    kb.graph.query("MATCH (c:Case) DETACH DELETE c")
    kb.vectors.reset(CASES)


def _subset(tmp_path: Path, name: str, lines: int) -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(TRAIN.read_text(encoding="utf-8").splitlines()[:lines]) + "\n", encoding="utf-8")
    return path


def test_cases_link_to_articles_and_charges_and_are_removable_by_source(
    kb: Services, repo: CaseRepository, tmp_path: Path
) -> None:
    first = load_cases(_subset(tmp_path, "batch_a", 40))
    other = [c for c in load_cases(_subset(tmp_path, "batch_b", 60)) if c.id not in {x.id for x in first}]
    other = [type(c)(**{**c.__dict__, "id": f"b-{c.id}"}) for c in other]
    report = ingest_cases(first, kb.vectors, repo, batch_size=16)
    assert (report.added, report.unchanged) == (40, 0)
    ingest_cases(other, kb.vectors, repo, batch_size=16)
    assert repo.sources() == {"batch_a": 40, "batch_b": 20}
    assert ingest_cases(first, kb.vectors, repo, batch_size=16).unchanged == 40

    case = first[0]  # 故意伤害, article 234
    rows = kb.graph.read(
        "MATCH (c:Case {id: $id}) OPTIONAL MATCH (c)-[:CITES]->(a:Article) "
        "OPTIONAL MATCH (c)-[:CONVICTED_OF]->(ch:Charge) "
        "RETURN collect(DISTINCT a.id) AS articles, collect(DISTINCT ch.name) AS charges",
        {"id": case.id},
    )
    assert rows == [{"articles": ["刑法:234"], "charges": ["故意伤害"]}]
    assert kb.vectors.count(CASES) == 60

    interps = InterpretationRepository(kb.graph)
    assert remove_source("batch_a", kb.vectors, repo, interps, ConsultationRepository(kb.graph)) == ("cases", 40)
    assert repo.sources() == {"batch_b": 20}
    assert kb.vectors.count(CASES) == 20
    assert kb.statutes.counts()["刑法"] == 505  # nothing else touched
    with pytest.raises(InputError, match="no source named 'batch_a'"):
        remove_source("batch_a", kb.vectors, repo, interps, ConsultationRepository(kb.graph))


def test_an_id_another_source_holds_is_refused_naming_both(kb: Services, repo: CaseRepository, tmp_path: Path) -> None:
    first = load_cases(_subset(tmp_path, "court_a", 3))
    ingest_cases(first, kb.vectors, repo, batch_size=16)
    same_ids = [type(c)(**{**c.__dict__, "source": "court_b"}) for c in first]
    with pytest.raises(InputError, match=r"3 case id\(s\) of 'court_b' already belong to source 'court_a'"):
        ingest_cases(same_ids, kb.vectors, repo, batch_size=16)
    assert repo.sources() == {"court_a": 3} and kb.vectors.count(CASES) == 3  # nothing taken over
    interps = InterpretationRepository(kb.graph)
    assert remove_source("court_a", kb.vectors, repo, interps, ConsultationRepository(kb.graph)) == ("cases", 3)


def test_malformed_case_files_are_corpus_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"fact": "x", "articles": [1], "charges": []}) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad\.jsonl:2: not JSON"):
        load_cases(bad)
    bad.write_text(json.dumps({"fact": "x", "charges": []}) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="a case needs articles"):
        load_cases(bad)


def test_a_requested_stop_ends_ingestion_after_the_stored_batch_and_a_rerun_resumes(
    kb: Services, repo: CaseRepository, tmp_path: Path
) -> None:
    path = _subset(tmp_path, "stopped", 40)
    set_services(replace(kb, settings=replace(kb.settings, ingest_batch_size=16)))
    try:
        request_stop()  # as the CLI's Ctrl-C / SIGTERM handler does
        with pytest.raises(StopRequested, match="re-run the same command to resume"):
            build_graph().invoke(IngestInput(laws=["刑法"], cases=[str(path)]))
        assert repo.sources() == {"stopped": 16}  # the first batch is stored whole, nothing after it
        assert kb.vectors.count(CASES) == 16
        clear_stop()
        out = build_graph().invoke(IngestInput(laws=["刑法"], cases=[str(path)]))
    finally:
        clear_stop()
        set_services(None)
    assert out["reports"]["cases:stopped"]["added"] == 24
    assert out["reports"]["cases:stopped"]["unchanged"] == 16
    assert repo.sources() == {"stopped": 40}


def test_a_label_naming_several_charges_is_settled_by_the_cited_article(
    kb: Services, repo: CaseRepository, tmp_path: Path
) -> None:
    label = "[组织、强迫、引诱、容留、介绍]卖淫"  # CAIL's label for three charges of articles 358 and 359
    assert repo.charges.candidates(label) == ["引诱、容留、介绍卖淫", "强迫卖淫", "组织卖淫"]
    assert repo.charges.resolve(label) is None  # ambiguous on its own: never one picked by set order
    assert repo.charges.resolve(label, within={"组织卖淫", "盗窃"}) == "组织卖淫"
    assert repo.charges.resolve("[走私、贩卖、运输、制造]毒品") == "走私、贩卖、运输、制造毒品"  # one charge
    row = {"fact": "被告人容留他人卖淫。", "articles": [359], "charges": [label], "term_months": 6}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    ingest_cases(load_cases(path), kb.vectors, repo, batch_size=16)
    found = kb.graph.read("MATCH (:Case)-[:CONVICTED_OF]->(ch:Charge) RETURN ch.name AS name")
    assert found == [{"name": "引诱、容留、介绍卖淫"}]


def test_judgments_finer_labels_map_onto_the_charges_in_force_and_the_rest_are_reported(
    kb: Services, repo: CaseRepository, tmp_path: Path
) -> None:
    charges = repo.charges
    # The alternative committed, an abridged name, a name cut short, an annotation: one charge each.
    assert charges.map_label("买卖国家机关证件", {"伪造、变造、买卖国家机关公文、证件、印章"}) == (
        "伪造、变造、买卖国家机关公文、证件、印章"
    )
    assert charges.map_label("非法持有枪支") == "非法持有、私藏枪支、弹药"
    assert charges.map_label("帮助信息网络犯") == "帮助信息网络犯罪活动"
    assert charges.map_label("诈骗（未遂）") == "诈骗"
    # A short label is read only where the cited articles leave one charge holding it.
    assert charges.map_label("包庇") is None
    assert charges.map_label("包庇", {"窝藏、包庇", "盗窃"}) == "窝藏、包庇"
    # The cited article defines another charge: every charge is searched (骗取贷款 is 175-1, the case cites 175).
    assert charges.map_label("骗取贷款", {"高利转贷"}) == "骗取贷款、票据承兑、金融票证"
    assert charges.map_label("寻衅肇事", {"寻衅滋事"}) is None  # a miswritten name is not guessed
    rows = [
        {"id": "a", "fact": "被告人买卖居民身份证。", "articles": [280], "charges": ["买卖国家机关证件"]},
        {"id": "b", "fact": "被告人寻衅肇事。", "articles": [293], "charges": ["寻衅肇事"]},
        {"id": "c", "fact": "被告人又寻衅肇事。", "articles": [293], "charges": ["寻衅肇事", "盗窃"]},
    ]
    path = tmp_path / "cmdl.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    cases = load_cases(path)
    ingest_cases(cases, kb.vectors, repo, batch_size=16)
    found = kb.graph.read("MATCH (c:Case)-[:CONVICTED_OF]->(ch:Charge) RETURN c.id AS id, ch.name AS name ORDER BY id")
    assert found == [{"id": "a", "name": "伪造、变造、买卖国家机关公文、证件、印章"}, {"id": "c", "name": "盗窃"}]
    # A case stored before the mapping knew its label (same content hash) is relinked by the next ingestion.
    kb.graph.query("MATCH (c:Case {id: 'a'})-[v:CONVICTED_OF]->() SET c.charges = [] DELETE v")
    assert repo.relabel(cases) == 1 and repo.relabel(cases) == 0
    assert kb.graph.read("MATCH (c:Case {id: 'a'})-[:CONVICTED_OF]->(ch) RETURN ch.name AS name") == [
        {"name": "伪造、变造、买卖国家机关公文、证件、印章"}
    ]
    report = repo.label_report(cases)
    assert report.mapped == {"买卖国家机关证件": "伪造、变造、买卖国家机关公文、证件、印章"}
    assert report.unmapped == {"寻衅肇事": 2}


def test_a_judgment_stored_once_per_defendant_counts_once_for_its_charges(
    kb: Services, repo: CaseRepository, tmp_path: Path
) -> None:
    from tools.kb.cases import judgment_counts

    theft = "被告人甲、乙共同盗窃电动车一辆。"
    rows = [
        {"id": "d1", "fact": theft, "articles": [264], "charges": ["盗窃"]},
        {"id": "d2", "fact": theft, "articles": [264], "charges": ["盗窃"]},  # the same judgment, second defendant
        {"id": "d3", "fact": "被告人丙盗窃手机一部。", "articles": [264], "charges": ["盗窃"]},
    ]
    path = tmp_path / "defendants.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    ingest_cases(load_cases(path), kb.vectors, repo, batch_size=16)
    assert judgment_counts(kb.graph) == {"盗窃": 2}
