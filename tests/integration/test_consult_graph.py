"""The consult graph end to end with the fake model over the real Criminal Law knowledge base."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agents.element import ElementGraph
from app.context import Context
from app.services import Services
from graphs.consult import build_graph
from tests.conftest import laws_db_text
from tools.errors import InputError
from tools.fake_llm import FakeChatModel
from tools.llm import _load

pytestmark = pytest.mark.integration

QUESTION = "醉酒驾驶机动车会受到什么处罚？"


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Install a FakeChatModel with scripted replies as the model every node loads."""

    def install(*responses: str) -> FakeChatModel:
        model = FakeChatModel(responses=list(responses))
        monkeypatch.setattr("agents.element.load_chat_model", lambda spec, settings: model)
        monkeypatch.setattr("agents.draft.load_chat_model", lambda spec, settings: model)
        return model

    return install


def test_answer_cites_real_articles_with_verbatim_text(active_kb: Services) -> None:
    _load.cache_clear()
    out = build_graph().invoke({"question": QUESTION}, context=Context(model="fake"))
    assert set(out) >= {"response", "legal_basis", "element_graph", "dropped_citations", "usage", "trace"}
    ids = [item["article_id"] for item in out["legal_basis"]]
    assert "刑法:133-1" in ids
    item = out["legal_basis"][ids.index("刑法:133-1")]
    assert item["text"] == laws_db_text("中华人民共和国刑法", "第一百三十三条之一")
    assert item["law"] == "中华人民共和国刑法"
    assert item["number"] == "第一百三十三条之一"
    assert out["dropped_citations"] == []
    assert set(out["element_graph"]) >= {
        "entities",
        "events",
        "relationships",
        "user_claims",
        "key_facts",
        "legal_questions",
    }
    assert out["usage"]["llm_calls"] == 2
    assert out["usage"]["prompt_tokens"] > 100
    assert [e["node"] for e in out["trace"]] == [
        "extract_elements",
        "search_law",
        "draft_answer",
        "cite_articles",
    ]
    json.dumps(out, ensure_ascii=False)  # the output state is plain JSON


def test_invented_citations_are_dropped_and_reported(active_kb: Services, scripted: Any) -> None:
    elements = ElementGraph.empty().model_copy(
        update={"key_facts": ["醉酒驾驶机动车"], "legal_questions": ["如何处罚"]}
    )
    elements_json = elements.model_dump_json()
    model = scripted(elements_json, "醉驾构成危险驾驶罪[刑法:133-1]，并处罚金[刑法:999-9]；另见[民法典:1]。")
    out = build_graph().invoke({"question": QUESTION}, context=Context(model="fake"))
    assert [i["article_id"] for i in out["legal_basis"]] == ["刑法:133-1"]
    assert out["dropped_citations"] == ["刑法:999-9", "民法典:1"]
    assert "999" not in out["response"] and "民法典" not in out["response"]
    assert "[刑法:133-1]" in out["response"]
    assert out["element_graph"]["key_facts"] == ["醉酒驾驶机动车"]
    # The draft prompt shows the retrieved evidence with ids and verbatim text.
    draft_prompt = str(model.calls[1][-1].content)
    assert "[刑法:133-1]" in draft_prompt and "醉酒驾驶机动车的" in draft_prompt


def test_garbage_element_json_is_recorded_not_fatal(active_kb: Services, scripted: Any) -> None:
    scripted("{not json", "[1, 2]", "still not", "回答[刑法:133-1]")
    out = build_graph().invoke({"question": QUESTION}, context=Context(model="fake", structured_retries=2))
    graph = out["element_graph"]
    assert graph["entities"] == [] and graph["key_facts"] == []
    assert "after 3 attempts" in graph["errors"][0]
    assert out["usage"]["llm_calls"] == 4
    assert out["trace"][0]["detail"]["failed"] is True
    assert [i["article_id"] for i in out["legal_basis"]] == ["刑法:133-1"]


@pytest.mark.parametrize(("question", "message"), [("   ", "empty"), ("问" * 4001, "more than the limit of 4000")])
def test_bad_questions_are_refused(active_kb: Services, question: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        build_graph().invoke({"question": question}, context=Context(model="fake"))
