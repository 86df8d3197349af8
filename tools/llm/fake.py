"""A deterministic chat model for tests and offline smoke runs (``JURIS_MODEL=fake``).

Scripted replies (``responses``) are returned in order; once they run out (or when none are given) the
model answers by rule: a checklist call gets items of the article its prompt shows, any other structured
call the smallest JSON instance of the requested schema, and a free-text call a short answer citing the
first evidence ids it finds in the prompt, so graph tests exercise retrieval, drafting and citation checking
end to end without a real model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field
from typing_extensions import override

from tools.law.checklist_rules import checkable, statute_elements

_EVIDENCE_ID_RE = re.compile(r"\[([^\[\]\s:]+:[0-9][0-9-]*)\]")
_SHOWN_ARTICLE_RE = re.compile(r"\[[^\[\]\s:]+:[0-9][0-9-]*\][^\n]*\n(.+?)(?:\n\n|$)", re.DOTALL)
"""The text of the article a checklist prompt shows, after its ``[id] heading`` line."""
_CLAUSE_RE = re.compile(r"[，。；：,;:\n]")
FALLBACK_ITEM = "行为人是否已满十六周岁？"
"""The checklist item of a prompt that shows no article (the smallest instance is no question)."""
_STREAM_CHUNK = 4
"""Characters per streamed chunk: several chunks per reply, like a real model's tokens."""


def minimal_instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """The smallest value valid for a JSON schema: required keys filled, arrays and strings at their minimum
    length, numbers at their minimum, enums at their first value, booleans true."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return minimal_instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return minimal_instance(schema["anyOf"][0], defs)
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        return {key: minimal_instance(props[key], defs) for key in schema.get("required", [])}
    if kind == "array":
        return [minimal_instance(schema.get("items", {}), defs) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    # Booleans answer yes: checklist items hold, so the rule-based fake keeps the articles it cites.
    return {"boolean": True, "null": None}.get(kind)


def checklist_items(prompt: str) -> list[str]:
    """A checklist of the article the prompt shows, as a model's is of that article: its basic offence read
    from its text, else its first clause asked as a question, else FALLBACK_ITEM; always items the
    checklist checks accept. An audit with the fake model then keeps an article the question states."""
    shown = _SHOWN_ARTICLE_RE.search(prompt)
    if not shown:
        return [FALLBACK_ITEM]
    text = shown.group(1).strip()
    clauses = [c for c in _CLAUSE_RE.split(text) if len(c) >= 4]
    for items in (statute_elements(text), [f"是否{clauses[0].removesuffix('的')}？"] if clauses else []):
        if items and checkable(items, text):
            return items
    return [FALLBACK_ITEM]


FAKE_SPEC = "fake"
"""The model spec that selects this model (``--model fake``, ``JURIS_MODEL=fake``)."""


class FakeChatModel(BaseChatModel):
    """Deterministic chat model; ``calls`` records every prompt it was sent."""

    accepts_json_schema: ClassVar[bool] = True

    responses: list[str] = Field(default_factory=list)
    """Replies returned in order before the rule-based answers take over."""
    by_schema: dict[str, list[str]] = Field(default_factory=dict)
    """Replies per requested schema title (``text`` for free-text calls), used in order before ``responses``
    and the rules: scripts stay correct whatever order parallel branches call in."""
    calls: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "jurisgraph-fake"

    def _reply(self, messages: list[BaseMessage], **kwargs: Any) -> str:
        fmt = kwargs.get("response_format") or {}
        queue = self.by_schema.get(fmt.get("schema", {}).get("title", "text"))
        if queue:
            return queue.pop(0)
        scripted = len(self.calls) - 1
        if scripted < len(self.responses):
            return self.responses[scripted]
        prompt = "\n".join(str(m.content) for m in messages)
        if schema := fmt.get("schema"):
            if schema.get("title") == "ChecklistSchema":
                return json.dumps({"items": checklist_items(prompt)}, ensure_ascii=False)
            return json.dumps(minimal_instance(schema), ensure_ascii=False)
        ids = list(dict.fromkeys(_EVIDENCE_ID_RE.findall(prompt)))[:2]
        if not ids:
            return "根据现有资料无法确定适用的法律条文。"
        cited = "、".join(f"[{i}]" for i in ids)
        return f"根据{cited}的规定，应当依照上述条文处理。"

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self._reply(messages, **kwargs)))])

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self.calls.append(list(messages))
        reply = self._reply(messages, **kwargs)
        for start in range(0, len(reply), _STREAM_CHUNK):
            piece = reply[start : start + _STREAM_CHUNK]
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
