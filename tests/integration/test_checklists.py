from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.corpus.laws_db import list_laws, resolve_laws
from tools.errors import CorpusError, StructuredOutputError
from tools.kb.checklist_files import export_checklists, import_checklists, read_checklist_file
from tools.kb.checklist_generation import DERIVED_MODEL, ensure_checklist, failure_key, prompt_version
from tools.kb.checklists import Checklist, ChecklistRepository
from tools.law.articles import Article
from tools.llm.fake import FakeChatModel
from tools.pipelines.ingestion import ingest_laws
from tools.services import Services

pytestmark = pytest.mark.integration
ITEMS = ["行为人是否在道路上驾驶机动车？", "行为人是否处于醉酒状态？"]


def _article(kb: Services, article_id: str) -> Article:
    return kb.statutes.get_articles([article_id])[0]


@pytest.fixture
def repo(kb: Services) -> ChecklistRepository:
    kb.graph.query("MATCH (c:CheckItem) DETACH DELETE c")
    kb.graph.query("MATCH (a:Article) SET a.checklist_failure = null, a.checklist_failure_key = null")
    return ChecklistRepository(kb.graph)


def test_checklists_are_generated_once_then_reused(kb: Services, repo: ChecklistRepository) -> None:
    model = FakeChatModel(responses=[json.dumps({"items": [*ITEMS, ITEMS[0]]}, ensure_ascii=False)])
    made, usage = ensure_checklist(_article(kb, "刑法:133-1"), repo, model, "fake")
    assert made.items == tuple(ITEMS)  # duplicates dropped, order kept
    assert usage["llm_calls"] == 1
    assert "醉酒驾驶机动车的" in str(model.calls[0][-1].content)  # the article text is in the prompt
    stored = repo.get("刑法:133-1")
    assert stored is not None
    assert stored.items == tuple(ITEMS) and stored.model == "fake" and stored.prompt_version == prompt_version()

    again, usage = ensure_checklist(_article(kb, "刑法:133-1"), repo, model, "fake")
    assert again == stored and usage["llm_calls"] == 0 and len(model.calls) == 1


def test_regeneration_replaces_the_items(kb: Services, repo: ChecklistRepository) -> None:
    first = FakeChatModel(responses=[json.dumps({"items": ITEMS}, ensure_ascii=False)])
    ensure_checklist(_article(kb, "刑法:264"), repo, first, "fake")
    second = FakeChatModel(responses=[json.dumps({"items": ["是否以非法占有为目的？"]}, ensure_ascii=False)])
    ensure_checklist(_article(kb, "刑法:264"), repo, second, "other", regenerate=True)
    stored = repo.get("刑法:264")
    assert stored is not None and stored.items == ("是否以非法占有为目的？",) and stored.model == "other"
    count = kb.graph.read("MATCH (:Article {id: '刑法:264'})-[:HAS_CHECK]->(c:CheckItem) RETURN count(c) AS n")
    assert count == [{"n": 1}]


def test_bad_model_output_on_a_general_provision_fails_clearly_and_stores_nothing(
    kb: Services, repo: ChecklistRepository
) -> None:
    # 刑法:67 (自首) defines no offence, so there is no statute text to fall back on.
    with pytest.raises(StructuredOutputError):
        ensure_checklist(_article(kb, "刑法:67"), repo, FakeChatModel(responses=["x", "y", "z"]), "fake")
    assert repo.get("刑法:67") is None


def test_when_the_model_cannot_make_a_checklist_it_is_read_from_the_article(
    kb: Services, repo: ChecklistRepository
) -> None:
    statement = json.dumps({"items": ["故意伤害他人身体的，处三年以下有期徒刑。"]}, ensure_ascii=False)
    model = FakeChatModel(responses=[statement] * 3)
    made, usage = ensure_checklist(_article(kb, "刑法:234"), repo, model, "fake")
    assert made.items == ("是否故意伤害他人身体？",) and made.model == DERIVED_MODEL
    assert usage["llm_calls"] == 3  # the failed attempts stay in the ledger
    assert repo.get("刑法:234") == made

    # Stored like a model's checklist: reused without calls.
    again = FakeChatModel(responses=[statement] * 3)
    assert ensure_checklist(_article(kb, "刑法:234"), repo, again, "fake")[0] == made and again.calls == []


def test_a_civil_articles_conditions_are_read_by_code_not_asked_of_the_model(fresh_services: Services) -> None:
    ingest_laws(resolve_laws(["劳动合同法"], list_laws()), fresh_services.vectors, fresh_services.statutes, 128)
    repo = ChecklistRepository(fresh_services.graph)
    article = _article(fresh_services, "劳动合同法:38")
    # What the local model stored for such articles: the effect the article provides, asked back.
    repo.save(Checklist(article.id, ("劳动者是否可以解除劳动合同？",), "local", prompt_version()))
    unused = FakeChatModel(responses=[])
    made, usage = ensure_checklist(article, repo, unused, "local")
    assert made.model == DERIVED_MODEL and usage["llm_calls"] == 0 and unused.calls == []
    assert "是否未及时足额支付劳动报酬？" in made.items and len(made.items) >= 5  # one per listed condition
    assert repo.get(article.id) == made
    # Even asked to regenerate, the conditions stand; and reused without a call.
    assert ensure_checklist(article, repo, unused, "local", regenerate=True) == (made, usage)
    assert unused.calls == []


def test_a_checklist_restating_the_article_is_asked_for_again(kb: Services, repo: ChecklistRepository) -> None:
    murder = kb.statutes.get_articles(["刑法:232"])[0].text  # 故意杀人的，处死刑、无期徒刑……
    items = ["行为人是否故意非法剥夺他人生命？", "行为人是否具有杀人的故意？"]
    model = FakeChatModel(
        responses=[
            json.dumps({"items": [f"是否{murder}"]}, ensure_ascii=False),
            json.dumps({"items": items}, ensure_ascii=False),
        ]
    )
    made, usage = ensure_checklist(_article(kb, "刑法:232"), repo, model, "fake")
    assert made.items == tuple(items) and usage["llm_calls"] == 2
    assert "restate the whole article" in str(model.calls[1][-1].content)  # the reason is fed back


@pytest.mark.parametrize(
    "stored",
    [
        # As a KB built before the checks holds it: one placeholder item that every fact "satisfies".
        Checklist("刑法:232", ("是/否",), "fake", prompt_version()),
        Checklist("刑法:232", ("行为人是否构成故意杀人罪？",), "fake", prompt_version()),
        Checklist("刑法:232", ("行为人是否实施了本条规定的行为？",), "fake", prompt_version()),
        Checklist("刑法:232", ("行为人是否杀人？", "是否构成故意杀人罪？"), "fake", prompt_version()),
        # Valid items, but made by an earlier version of the prompt.
        Checklist("刑法:232", ("行为人是否杀人？",), "fake", "0ld0ld00"),
    ],
)
def test_a_stale_or_unusable_stored_checklist_is_made_again(
    kb: Services, repo: ChecklistRepository, stored: Checklist
) -> None:
    repo.save(stored)
    items = ["行为人是否故意非法剥夺他人生命？"]
    model = FakeChatModel(responses=[json.dumps({"items": items}, ensure_ascii=False)])
    made, usage = ensure_checklist(_article(kb, "刑法:232"), repo, model, "fake")
    assert made.items == tuple(items) and usage["llm_calls"] == 1
    assert repo.get("刑法:232") == made


def test_a_failure_is_recorded_and_not_repeated_until_asked(kb: Services, repo: ChecklistRepository) -> None:
    statement = json.dumps({"items": ["犯罪以后自动投案，如实供述自己的罪行的，是自首。"]}, ensure_ascii=False)
    article = _article(kb, "刑法:67")
    first = FakeChatModel(responses=[statement] * 3)
    with pytest.raises(StructuredOutputError, match="yes/no question"):
        ensure_checklist(article, repo, first, "fake")
    assert len(first.calls) == 3

    # Greedy decoding fails the same way again: the recorded reason comes back without a call.
    again = FakeChatModel(responses=[statement] * 3)
    with pytest.raises(StructuredOutputError, match="recorded earlier") as raised:
        ensure_checklist(article, repo, again, "fake")
    assert "yes/no question" in str(raised.value) and again.calls == []

    # Another model, or more retries, is another attempt.
    other = FakeChatModel(responses=[statement] * 3)
    with pytest.raises(StructuredOutputError, match="yes/no question"):
        ensure_checklist(article, repo, other, "other-model")
    assert len(other.calls) == 3

    # Regenerating tries anyway, and a checklist made clears the record.
    items = ["行为人是否自动投案？", "行为人是否如实供述自己的罪行？"]
    fixed = FakeChatModel(responses=[json.dumps({"items": items}, ensure_ascii=False)])
    made, usage = ensure_checklist(article, repo, fixed, "fake", regenerate=True)
    assert made.items == tuple(items) and usage["llm_calls"] == 1
    assert repo.failure("刑法:67", failure_key("fake", "zh", 2)) is None
    assert repo.failure("刑法:67", failure_key("other-model", "zh", 2)) is None


def test_checklists_move_to_another_knowledge_base_through_a_file(
    kb: Services, repo: ChecklistRepository, tmp_path: Path
) -> None:
    repo.save(Checklist("刑法:133-1", tuple(ITEMS), "fake", prompt_version()))
    key = failure_key("fake", "zh", 2)
    repo.record_failure("刑法:234", key, "no yes/no question")
    rows = export_checklists(repo, kb.statutes)
    assert [r["article"] for r in rows] == ["刑法:133-1", "刑法:234"]
    assert rows[0]["items"] == ITEMS and rows[1]["failure_key"] == key
    assert rows[0]["article_hash"] == _article(kb, "刑法:133-1").content_hash

    # Made for other text, or for an article this KB lacks: skipped and named, never attached.
    stale = {**rows[0], "article": "刑法:264", "article_hash": "0" * 16}
    absent = {**rows[0], "article": "刑法:9999"}
    path = tmp_path / "checklists.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [*rows, stale, absent]), encoding="utf-8")
    kb.graph.query("MATCH (c:CheckItem) DETACH DELETE c")
    kb.graph.query("MATCH (a:Article) SET a.checklist_failure = null")
    assert repo.made() == []

    report = import_checklists(read_checklist_file(path), repo, kb.statutes)
    assert (report.checklists, report.failures) == (1, 1)
    assert report.changed == ["刑法:264"] and report.missing == ["刑法:9999"]
    assert repo.get("刑法:133-1") == Checklist("刑法:133-1", tuple(ITEMS), "fake", prompt_version())
    assert repo.failure("刑法:234", key) == "no yes/no question"
    assert repo.get("刑法:264") is None

    # An imported checklist is used as if made here: no model call.
    unused = FakeChatModel(responses=[])
    made, usage = ensure_checklist(_article(kb, "刑法:133-1"), repo, unused, "fake")
    assert made.items == tuple(ITEMS) and usage["llm_calls"] == 0


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "Expecting property name"),
        ('{"article": "刑法:264", "article_hash": "ab"}', "either items"),
        ('{"article": "刑法:264", "article_hash": "ab", "items": []}', "items"),
        ('{"article": "刑法:264", "article_hash": "ab", "items": ["是否…"], "failure": "x"}', "either items"),
        ('{"article": "", "article_hash": "ab", "items": ["是否…"], "model": "m", "prompt_version": "p"}', "article"),
        ('{"article": "刑法:264", "article_hash": "ab", "items": ["是否…"]}', "prompt_version"),
    ],
)
def test_a_malformed_checklist_file_is_refused_whole(
    kb: Services, repo: ChecklistRepository, tmp_path: Path, line: str, problem: str
) -> None:
    good = json.dumps(
        {
            "article": "刑法:133-1",
            "article_hash": _article(kb, "刑法:133-1").content_hash,
            "items": ITEMS,
            "model": "fake",
            "prompt_version": prompt_version(),
        },
        ensure_ascii=False,
    )
    path = tmp_path / "checklists.jsonl"
    path.write_text(f"{good}\n{line}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=problem) as raised:
        import_checklists(read_checklist_file(path), repo, kb.statutes)
    assert f"{path}:2:" in str(raised.value)
    assert repo.get("刑法:133-1") is None  # the good first line was not written either


def test_a_real_model_does_not_audit_with_the_fake_models_list(kb: Services, repo: ChecklistRepository) -> None:
    # A `--model fake` try (or a test) used to leave its placeholder lists for every later real run.
    ensure_checklist(_article(kb, "刑法:264"), repo, FakeChatModel(responses=[json.dumps({"items": ITEMS})]), "fake")
    real = FakeChatModel(responses=[json.dumps({"items": ["是否以非法占有为目的？"]}, ensure_ascii=False)])
    made, usage = ensure_checklist(_article(kb, "刑法:264"), repo, real, "openai:gpt-4o-mini")
    assert made.model == "openai:gpt-4o-mini" and made.items == ("是否以非法占有为目的？",)
    assert usage["llm_calls"] == 1
    again, usage = ensure_checklist(_article(kb, "刑法:264"), repo, FakeChatModel(), "fake")
    assert again == made and usage["llm_calls"] == 0  # a real model's list serves fake runs too
