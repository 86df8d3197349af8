from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from agents.element import ElementGraph
from tools.errors import StructuredOutputError
from tools.llm.chat import add_usage, extract_json, invoke_structured, invoke_text
from tools.llm.fake import FakeChatModel, minimal_instance
from tools.llm.tokens import count_tokens


class Verdict(BaseModel):
    applicable: bool
    reason: str


def test_extract_json_tolerates_fences_and_prose() -> None:
    assert extract_json('好的：\n```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('结果是 {"a": {"b": [1, 2]}} 。') == {"a": {"b": [1, 2]}}
    with pytest.raises(ValueError, match="no JSON object"):
        extract_json("没有 JSON")


def test_structured_call_repairs_garbage_then_validates() -> None:
    model = FakeChatModel(
        responses=["这不是 JSON", '{"applicable": "maybe"}', '{"applicable": true, "reason": "符合"}']
    )
    verdict, usage = invoke_structured(model, [HumanMessage(content="判断")], Verdict, retries=2)
    assert verdict == Verdict(applicable=True, reason="符合")
    assert usage["llm_calls"] == 3
    # Each retry shows the model its previous reply and the validation error.
    assert "上一条回复不是符合要求的 JSON" in str(model.calls[1][-1].content)
    assert str(model.calls[1][-2].content) == "这不是 JSON"


def test_structured_call_gives_up_with_a_clear_error_and_keeps_usage() -> None:
    model = FakeChatModel(responses=["x", "y", "z"])
    with pytest.raises(StructuredOutputError, match="did not return valid Verdict JSON after 3 attempts") as info:
        invoke_structured(model, [HumanMessage(content="判断")], Verdict, retries=2)
    assert info.value.usage["llm_calls"] == 3


def test_text_call_counts_tokens_with_tiktoken_when_provider_reports_none() -> None:
    model = FakeChatModel(responses=["危险驾驶罪"])
    text, usage = invoke_text(model, [HumanMessage(content="醉驾构成什么罪？")])
    assert text == "危险驾驶罪"
    assert usage == {
        "llm_calls": 1,
        "prompt_tokens": count_tokens("醉驾构成什么罪？"),
        "completion_tokens": count_tokens("危险驾驶罪"),
    }
    assert count_tokens("醉驾构成什么罪？") > 0


def test_usage_reducer_sums_fields() -> None:
    a = {"llm_calls": 1, "prompt_tokens": 10, "completion_tokens": 2}
    assert add_usage(a, a) == {"llm_calls": 2, "prompt_tokens": 20, "completion_tokens": 4}  # type: ignore[arg-type]
    assert add_usage(None, a) == a  # type: ignore[arg-type]
    # Cached prompt tokens are summed where either side reports them (a side that does not counts 0).
    cached = {**a, "cached_prompt_tokens": 7}
    assert add_usage(a, cached)["cached_prompt_tokens"] == 7  # type: ignore[arg-type,typeddict-item]
    assert "cached_prompt_tokens" not in add_usage(a, a)  # type: ignore[arg-type]


def test_minimal_instance_validates_against_the_element_schema() -> None:
    instance = minimal_instance(ElementGraph.model_json_schema())
    assert ElementGraph.model_validate(instance) == ElementGraph.empty()
    assert minimal_instance(Verdict.model_json_schema()) == {"applicable": True, "reason": ""}


def test_fake_script_steers_the_fake_model_and_bad_scripts_are_clear_errors(tmp_path: Path) -> None:
    from dataclasses import replace

    from tools.errors import ModelUnavailableError
    from tools.llm.chat import _load
    from tools.settings import Settings

    script = tmp_path / "script.json"
    script.write_text(json.dumps({"text": ["scripted"]}), encoding="utf-8")
    settings = replace(Settings(), fake_script=script)
    _load.cache_clear()
    model = _load("fake", settings)
    assert model.invoke("hi").content == "scripted"
    assert model.invoke("hi").content != "scripted"  # the script is used once, then the rules answer
    script.write_text("{broken", encoding="utf-8")
    _load.cache_clear()
    with pytest.raises(ModelUnavailableError, match="fake model's script"):
        _load("fake", settings)
    _load.cache_clear()


def test_checklists_that_cannot_be_checked_are_rejected() -> None:
    from tools.law.checklist_rules import ChecklistSchema

    article = {"article_text": "夫妻双方都有各自使用自己姓名的权利。"}
    assert ChecklistSchema.model_validate({"items": ["行为人是否秘密窃取他人财物？"]}).items
    assert ChecklistSchema.model_validate({"items": ["当事人是否为夫妻？", "是否涉及姓名的使用？"]}, context=article)
    with pytest.raises(ValueError, match="without ellipses"):
        ChecklistSchema.model_validate({"items": ["盗窃公私财物的主体是否……？"]})
    # Seen from the local model on civil articles: a placeholder, and the article copied out as one item.
    with pytest.raises(ValueError, match="yes/no question"):
        ChecklistSchema.model_validate({"items": ["是/否"]})
    with pytest.raises(ValueError, match="restate the whole article"):
        ChecklistSchema.model_validate({"items": ["夫妻双方是否都有各自使用自己姓名的权利？"]}, context=article)
    # Mixed lists keep their usable questions (the local model's 刑法:264 list began with 是否构成盗窃罪).
    mixed = ["是否构成盗窃罪", "盗窃公私财物的数额是否达到较大标准", "是/否"]
    assert ChecklistSchema.model_validate({"items": mixed}).items == ["盗窃公私财物的数额是否达到较大标准"]


def test_concurrent_first_loads_build_the_model_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import threading
    import time

    from tools.llm import chat as llm
    from tools.llm import fake as fake_llm
    from tools.settings import Settings

    built: list[int] = []

    class SlowFake(FakeChatModel):
        def __init__(self, **kwargs: object) -> None:
            time.sleep(0.2)  # a GGUF load takes seconds: every thread arrives before the first finishes
            built.append(1)
            super().__init__(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fake_llm, "FakeChatModel", SlowFake)
    llm._load.cache_clear()
    settings = Settings(data_dir=tmp_path)
    models: list[object] = []
    threads = [threading.Thread(target=lambda: models.append(llm.load_chat_model("fake", settings))) for _ in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        llm._load.cache_clear()
    assert len(built) == 1 and len(models) == 4 and all(m is models[0] for m in models)


def test_a_requested_stop_ends_structured_calls_before_the_model_is_asked() -> None:
    from tools.stop import StopRequested, clear_stop, request_stop

    class Answer(BaseModel):
        ok: bool

    model = FakeChatModel()
    request_stop()
    try:
        with pytest.raises(StopRequested):
            invoke_structured(model, [HumanMessage(content="q")], Answer)
    finally:
        clear_stop()
    assert model.calls == []
    assert invoke_structured(model, [HumanMessage(content="q")], Answer)[0].ok


def test_a_failed_structured_call_says_why_each_reply_was_refused() -> None:
    from tools.law.checklist_rules import ChecklistSchema

    model = FakeChatModel(responses=[json.dumps({"items": ["是/否"]})] * 3)
    with pytest.raises(StructuredOutputError, match=r"after 3 attempts: .*yes/no question") as failed:
        invoke_structured(model, [HumanMessage(content="q")], ChecklistSchema)
    assert "validation error for" not in str(failed.value)
