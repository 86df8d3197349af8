"""Law GraphRAG end to end with a rule-based fake model over two real data-protection laws: indexing
(extraction, merge, communities, reports; cached and incremental), then global and local search."""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from agents.context import GlobalSearchContext
from agents.context.experiment import MeasuredConsult
from agents.state.global_search import GlobalSearchInput
from graphs.global_search import build_graph
from tests.conftest import run_cli
from tools.corpus.laws_db import default_db_path, list_laws, resolve_laws
from tools.errors import InputError
from tools.kb.entity_graph import EntityGraphRepository
from tools.law.articles import parse_article_label
from tools.llm.fake import FakeChatModel
from tools.pipelines.entity_index import EntityIndexer, IndexConfig, ResultCache, estimate
from tools.pipelines.ingestion import ingest_laws
from tools.services import Services, set_services

pytestmark = pytest.mark.integration

LAWS = ["数据安全法", "个人信息保护法"]
TERMS = [
    "个人信息处理者",
    "敏感个人信息",
    "个人信息",
    "国家网信部门",
    "数据处理者",
    "重要数据",
    "关键信息基础设施运营者",
    "安全评估",
    "个人信息保护影响评估",
    "境外",
    "单独同意",
    "监护人",
    "核心数据",
    "数据交易中介服务机构",
    "公安机关",
    "国家安全机关",
    "风险评估",
    "主管部门",
    "国家机关",
    "数据安全",
]
_ID_RE = re.compile(r"\[([^\[\]\s:]+:\d+)\]")


class GraphFake(FakeChatModel):
    """Extracts the known terms a chunk contains (linked in a chain), writes reports and map points that
    cite the article ids of what it was shown, and answers free text by the fake's citing rule."""

    def _reply(self, messages: list[BaseMessage], **kwargs: Any) -> str:
        title = (kwargs.get("response_format") or {}).get("schema", {}).get("title")
        prompt = str(messages[-1].content)
        if self.by_schema.get(title or "text"):  # scripted replies first
            return super()._reply(messages, **kwargs)
        if title == "Extraction":
            chunk = prompt.split("条文：\n", 1)[1]
            lines = [line for line in chunk.splitlines() if line.startswith("[")]
            found = []
            for term in TERMS:
                where = next((line for line in lines if term in line), None)
                if where and term not in "".join(found):
                    found.append(term)
                    found.append(where[1 : where.index("]")])
            names = found[0::2]
            entities = [
                {"name": n, "type": "主体", "description": f"{n}的义务见[{a}]"}
                for n, a in zip(names, found[1::2], strict=True)
            ]
            relations = [
                {"source": a, "target": b, "description": f"{a}与{b}相关", "strength": 5}
                for a, b in itertools.pairwise(names)
            ]
            return json.dumps({"entities": entities, "relations": relations}, ensure_ascii=False)
        if title == "CommunityReport":
            ids = list(dict.fromkeys(_ID_RE.findall(prompt)))[:2] or ["数据安全法:1"]
            name = prompt.split("实体（名称|类型|描述|条文|度）：\n", 1)[1].split("|", 1)[0]
            return json.dumps(
                {
                    "title": f"{name}社区",
                    "summary": f"关于{name}的规则。",
                    "rating": 7,
                    "rating_explanation": "常用",
                    "findings": [{"summary": f"{name}的义务", "explanation": f"见[{ids[0]}]"}],
                },
                ensure_ascii=False,
            )
        if title == "MapReply":
            ids = list(dict.fromkeys(_ID_RE.findall(prompt.split("社区报告：", 1)[1])))[:2]
            points = [{"description": f"要点见[{a}]", "score": 80 - i} for i, a in enumerate(ids)]
            return json.dumps({"points": points}, ensure_ascii=False)
        return super()._reply(messages, **kwargs)


@pytest.fixture
def data_kb(fresh_services: Services) -> Iterator[Services]:
    ingest_laws(resolve_laws(LAWS, list_laws()), fresh_services.vectors, fresh_services.statutes, batch_size=128)
    set_services(fresh_services)
    yield fresh_services
    set_services(None)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> GraphFake:
    model = GraphFake()
    monkeypatch.setattr("tools.llm.chat._load", lambda spec, settings: model)
    return model


def _index(
    services: Services, model: FakeChatModel, cache_dir: Path, laws: list[str] = LAWS, extractor: str = "llm"
) -> Any:
    config = IndexConfig(extractor=extractor, chunk_tokens=400, max_cluster_size=4)  # type: ignore[arg-type]
    cache = ResultCache(cache_dir)
    return EntityIndexer(services.statutes, services.vectors, model, config, cache).run(laws)


def test_index_is_cached_and_incremental(data_kb: Services, fake: GraphFake, tmp_path: Path) -> None:
    config = IndexConfig(extractor="llm", chunk_tokens=400, max_cluster_size=4)
    before = estimate(data_kb.statutes, LAWS[:1], config, ResultCache(tmp_path))
    assert before.estimated and before.calls["extract"] == before.chunks > 1 and before.prompt_tokens > 0

    first = _index(data_kb, fake, tmp_path, LAWS[:1])
    assert first.calls["extract"] == first.chunks == before.chunks
    assert first.entities >= 8 and first.relations >= 6 and first.communities >= 2
    assert first.calls["report"] == first.communities and first.prompt_tokens > 0
    repo = EntityGraphRepository(data_kb.graph)
    assert repo.counts() == {
        "entities": first.entities,
        "relations": first.relations,
        "communities": first.communities,
    }
    assert estimate(data_kb.statutes, LAWS[:1], config, ResultCache(tmp_path)).calls["extract"] == 0

    again = _index(data_kb, fake, tmp_path, LAWS[:1])  # nothing changed: no model call at all
    assert sum(again.calls.values()) == 0 and again.cached_chunks == again.chunks
    assert again.cached_reports == again.communities == first.communities

    both = _index(data_kb, fake, tmp_path)  # a second law costs only its own chunks
    assert both.cached_chunks == first.chunks and both.calls["extract"] == both.chunks - first.chunks
    levels = {row["id"]: row for row in repo.communities(0)}
    assert levels and all(row["report"].startswith("# ") for row in levels.values())
    finer = repo.communities(1)
    assert finer, "large communities are split one level down"
    # Level 1 covers the graph: the split communities' children plus the level-0 communities left whole.
    rows = data_kb.graph.read("MATCH (c:EntityCommunity) RETURN c.id AS id, c.level AS level, c.parent AS parent")
    split = {r["parent"] for r in rows if r["parent"]}
    whole = {r["id"] for r in rows if r["level"] == 0 and r["id"] not in split}
    assert {r["id"] for r in finer} == {r["id"] for r in rows if r["level"] == 1} | whole
    assert {r["id"] for r in finer}.isdisjoint(split)


def test_lexical_index_makes_report_calls_only_and_its_estimate_is_exact(
    data_kb: Services, fake: GraphFake, tmp_path: Path
) -> None:
    config = IndexConfig(chunk_tokens=400, max_cluster_size=4)
    assert config.extractor == "lexical"
    before = estimate(data_kb.statutes, LAWS, config, ResultCache(tmp_path))
    assert before.calls["extract"] == 0 and before.articles > 100 and before.calls["report"] == before.communities > 2

    run = _index(data_kb, fake, tmp_path, extractor="lexical")
    assert run.calls == {"extract": 0, "summarise": 0, "report": before.calls["report"]}
    assert run.communities == before.communities and run.entities == before.entities
    repo = EntityGraphRepository(data_kb.graph)
    (entity,) = repo.entities(["个人信息处理者"])
    assert entity["type"] == "概念" and entity["description"].startswith("[个人信息保护法:73] 是指")
    assert "个人信息保护法:73" in entity["articles"] and len(entity["articles"]) > 20
    assert {r["target_name"] for r in repo.relations_of(["个人信息处理者"])} >= {"敏感个人信息", "国家网信部门"}
    again = estimate(data_kb.statutes, LAWS, config, ResultCache(tmp_path))
    assert again.calls["report"] < before.calls["report"] and again.cached_reports > 0  # leaf reports cached


def test_failed_extraction_is_reported_and_retried_next_run(data_kb: Services, fake: GraphFake, tmp_path: Path) -> None:
    fake.by_schema["Extraction"] = ["not json"] * 3  # the first chunk fails all three attempts
    first = _index(data_kb, fake, tmp_path, LAWS[:1])
    assert len(first.failed_chunks) == 1 and "数据安全法:1" in first.failed_chunks[0]
    assert first.entities > 0  # the other chunks still built the index
    second = _index(data_kb, fake, tmp_path, LAWS[:1])
    assert second.failed_chunks == [] and second.calls["extract"] == 1


@pytest.mark.parametrize("extractor", ["llm", "lexical"])
def test_global_search_cites_articles_from_both_laws_verbatim(
    data_kb: Services, fake: GraphFake, tmp_path: Path, extractor: str
) -> None:
    _index(data_kb, fake, tmp_path, extractor=extractor)
    context = GlobalSearchContext(model="fake", map_tokens=120)
    out = build_graph().invoke(GlobalSearchInput(question="数据出境需要满足哪些条件？"), context=context)
    nodes = [e["node"] for e in out["trace"]]
    assert nodes[0] == "plan_map" and nodes[-2:] == ["write_answer", "quote_basis"]
    assert nodes.count("map_reports") >= 2  # the reports did not fit one map call
    assert out["points"] and all(p["score"] > 0 for p in out["points"])
    laws = {item["article_id"].split(":")[0] for item in out["legal_basis"]}
    assert out["legal_basis"] and out["dropped_citations"] == []
    truth = {**_laws_db_texts(LAWS[0]), **_laws_db_texts(LAWS[1])}
    for item in out["legal_basis"]:
        assert item["text"] == truth[item["article_id"]]
    assert laws <= set(LAWS)


def test_citations_the_model_was_not_shown_are_dropped(data_kb: Services, fake: GraphFake, tmp_path: Path) -> None:
    _index(data_kb, fake, tmp_path, LAWS[:1])
    fake.by_schema["text"] = ["出境前应当评估[数据安全法:31]，另见[刑法:264]与[数据安全法:999]。"]
    context = GlobalSearchContext(model="fake", search_level=0)
    out = build_graph().invoke(GlobalSearchInput(question="重要数据出境有什么要求？"), context=context)
    assert set(out["dropped_citations"]) >= {"刑法:264", "数据安全法:999"}
    assert "刑法:264" not in out["answer"] and "数据安全法:999" not in out["answer"]
    assert all(item["article_id"] not in out["dropped_citations"] for item in out["legal_basis"])


def test_bare_ids_count_only_when_the_model_was_shown_them(data_kb: Services, fake: GraphFake, tmp_path: Path) -> None:
    _index(data_kb, fake, tmp_path, LAWS[:1])
    fake.by_schema["text"] = ["出境前应当评估，见数据安全法:31、数据安全法:998；另见刑法:264。"]
    out = build_graph().invoke(
        GlobalSearchInput(question="重要数据出境有什么要求？"), context=GlobalSearchContext(model="fake")
    )
    (mapped,) = [p for p in fake.calls if "社区报告：" in str(p[-1].content)][:1]
    assert "[数据安全法:31]" in str(mapped[-1].content)  # the map step saw it
    assert [b["article_id"] for b in out["legal_basis"]] == ["数据安全法:31"]  # 刑法:264 was never shown
    assert out["dropped_citations"] == ["数据安全法:998"]  # a bare id of a shown law, but not one shown
    assert "998" not in out["answer"] and "数据安全法:31" in out["answer"]


def test_local_search_packs_entities_reports_and_articles(data_kb: Services, fake: GraphFake, tmp_path: Path) -> None:
    _index(data_kb, fake, tmp_path)
    context = GlobalSearchContext(model="fake", local_tokens=1200)
    question = GlobalSearchInput(question="处理敏感个人信息需要什么同意？", mode="local")
    out = build_graph().invoke(question, context=context)
    (built,) = [e for e in out["trace"] if e["node"] == "build_local_context"]
    assert built["detail"]["entities"] > 0 and built["detail"]["articles"] > 0
    assert built["detail"]["tokens"] <= 1200
    prompt = str(fake.calls[-1][-1].content)
    assert "条文：\n[" in prompt and "实体与关系：" in prompt
    assert out["legal_basis"]
    for item in out["legal_basis"]:
        assert f"[{item['article_id']}]" in prompt  # only what the context showed can be quoted


def test_search_without_an_index_names_the_fix(data_kb: Services, fake: GraphFake) -> None:
    for mode in ("global", "local"):
        with pytest.raises(InputError, match="jurisgraph index"):
            build_graph().invoke(
                GlobalSearchInput(question="数据出境需要满足哪些条件？", mode=mode), context=GlobalSearchContext()
            )  # type: ignore[arg-type]


def test_cli_dry_run_estimates_and_an_empty_index_is_a_clear_error(tmp_path: Path) -> None:
    assert run_cli("ingest", "--laws", "数据安全法", data_dir=tmp_path).returncode == 0
    dry = run_cli("index", "--laws", "数据安全法", "--dry-run", data_dir=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert "model calls" in dry.stdout and "prompt / completion tokens" in dry.stdout
    missing = run_cli("index", "--laws", "民法典", "--dry-run", data_dir=tmp_path)
    assert missing.returncode == 2 and "jurisgraph ingest --laws 民法典" in missing.stderr
    asked = run_cli("search", "数据出境需要满足哪些条件？", data_dir=tmp_path)
    assert asked.returncode == 2 and "jurisgraph index" in asked.stderr


def _laws_db_texts(law: str) -> dict[str, str]:
    """Article id -> text straight from laws.db (the ground truth for verbatim checks)."""
    with sqlite3.connect(default_db_path()) as conn:
        rows = conn.execute(
            "SELECT a.article_no, a.article_text FROM articles a JOIN laws l ON a.law_id = l.law_id "
            "WHERE l.law_name = ? AND l.status IN ('现行有效', '已被修改')",
            (f"中华人民共和国{law}",),
        ).fetchall()
    return {f"{law}:{parse_article_label(no).key}": text for no, text in rows}


def _search_law_trace(question: str) -> dict[str, Any]:
    from agents.state.consult import ConsultInput
    from graphs.consult import build_graph as build_consult

    # Thorough: the model routes (fast routes by keywords).
    context = MeasuredConsult(
        model="fake", max_rounds=0, audit=False, content_check=False, use_elements=False, profile="thorough"
    )
    out = build_consult().invoke(ConsultInput(question=question), context=context)
    (search,) = [e for e in out["trace"] if e["node"] == "search_law"]
    return dict(search["detail"])


def test_law_search_router_picks_community_reports_and_kg_links_named_entities(
    data_kb: Services, fake: GraphFake, tmp_path: Path
) -> None:
    _index(data_kb, fake, tmp_path)
    route = {"domain": "数据与网络", "sources": ["community_reports", "cases"], "reason": "跨法律的数据合规问题"}
    fake.by_schema["SourceRoute"] = [json.dumps(route, ensure_ascii=False)]
    detail = _search_law_trace("重要数据出境前要做什么？")
    assert detail["route"] == {"router": "llm", "domain": "数据与网络", "reason": "跨法律的数据合规问题"}
    assert detail["collections"] == ["statutes", "community_reports"]
    assert detail["skipped"] == {"interpretations": "empty", "cases": "empty"}  # asked for, but not ingested
    assert detail["sources"]["community_reports"] > 0
    assert detail["sources"]["kg"] > 0  # 重要数据 is a statute entity: its articles join the fusion


def test_an_unreadable_router_reply_falls_back_to_the_rules(data_kb: Services, fake: GraphFake, tmp_path: Path) -> None:
    _index(data_kb, fake, tmp_path, LAWS[:1])
    fake.by_schema["SourceRoute"] = ["no json"] * 3
    detail = _search_law_trace("重要数据出境前要做什么？")
    assert detail["route"]["router"] == "rules" and "after 3 attempts" in detail["route"]["fallback"]
    assert detail["collections"] == ["statutes", "community_reports"]
