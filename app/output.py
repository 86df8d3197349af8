"""A graph's output as JSON text: plain data, but for the consult graph's chat messages, which go as the dicts
LangGraph's API gives them (type, content, additional_kwargs …)."""

from __future__ import annotations

import json

from langchain_core.messages import BaseMessage


def _plain(value: object) -> object:
    return value.model_dump() if isinstance(value, BaseMessage) else str(value)


def to_json(value: object, indent: int | None = None) -> str:
    """``value`` as JSON, Chinese kept as written."""
    return json.dumps(value, ensure_ascii=False, indent=indent, default=_plain)
