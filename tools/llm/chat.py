"""Chat models and the two ways agents call them: free text and validated structured output.

Providers: ``local`` (the embedded GGUF through llama.cpp, see :mod:`tools.llm.local`), ``fake``
(deterministic, see :mod:`tools.llm.fake`), and any ``provider:model`` spec LangChain's
``init_chat_model`` understands (``openai:gpt-4o-mini``, ``ollama:qwen2.5:7b``). Every call returns its
:class:`Usage`, with tiktoken estimates where the provider reports no token counts. Every call first
checks the stop flag (:mod:`tools.stop`): graph nodes run in worker threads that Ctrl-C or SIGTERM never
reaches, and without the check a stopped eval spent minutes finishing an item whose result it discards.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from copy import copy
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NotRequired, TypeVar, cast

from annotated_types import MaxLen
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError, create_model
from typing_extensions import TypedDict

from prompts import render_prompt
from tools.errors import ModelUnavailableError, StructuredOutputError
from tools.llm.fake import FAKE_SPEC
from tools.llm.tokens import count_tokens
from tools.stop import raise_if_stopped

if TYPE_CHECKING:
    from tools.settings import Settings

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class Usage(TypedDict):
    """LLM calls and tokens; summed across nodes by the state reducer :func:`add_usage`."""

    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_prompt_tokens: NotRequired[int]
    """Prompt tokens the model read from its cache instead of evaluating (a prefix the call before shared);
    absent where the provider does not say."""


def empty_usage() -> Usage:
    return {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}


def failed_usage(exc: StructuredOutputError) -> Usage:
    """What a structured call that never validated spent, so the run's ledger stays complete."""
    return {**empty_usage(), **exc.usage}  # type: ignore[typeddict-item]


def add_usage(left: Usage | None, right: Usage | None) -> Usage:
    """Reducer: field-wise sum (either side may be missing)."""
    a, b = left or empty_usage(), right or empty_usage()
    total: Usage = {
        "llm_calls": a["llm_calls"] + b["llm_calls"],
        "prompt_tokens": a["prompt_tokens"] + b["prompt_tokens"],
        "completion_tokens": a["completion_tokens"] + b["completion_tokens"],
    }
    if "cached_prompt_tokens" in a or "cached_prompt_tokens" in b:
        total["cached_prompt_tokens"] = a.get("cached_prompt_tokens", 0) + b.get("cached_prompt_tokens", 0)
    return total


@lru_cache(maxsize=8)
def _load(spec: str, settings: Settings) -> BaseChatModel:
    if spec == "local":
        from tools.llm.local import LocalLlamaChat

        path = settings.model_path or settings.default_model_file
        return LocalLlamaChat.from_path(
            path,
            n_threads=settings.llama_threads,
            n_ctx=settings.llama_context,
            prefix_cache_mb=settings.llama_prefix_cache_mb,
        )
    if spec == FAKE_SPEC:
        from tools.llm.fake import FakeChatModel

        if settings.fake_script is None:
            return FakeChatModel()
        try:
            script = json.loads(settings.fake_script.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ModelUnavailableError(f"cannot read the fake model's script {settings.fake_script}: {exc}") from exc
        return FakeChatModel(by_schema=script)
    if ":" not in spec:
        raise ModelUnavailableError(f"unknown model {spec!r}: use local, fake, or provider:model")
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(spec, temperature=0)
    except (ImportError, ValueError) as exc:
        raise ModelUnavailableError(f"cannot load model {spec!r}: {exc}") from exc


_load_lock = threading.Lock()


def load_chat_model(spec: str, settings: Settings) -> BaseChatModel:
    """The chat model for ``spec``, built once per process and settings. Loads are serialised: lru_cache
    lets concurrent first calls all miss, and four parallel map branches loading four copies of the GGUF
    model at once ended the process (exit status 0, no output) in a global search."""
    with _load_lock:
        return _load(spec.strip(), settings)


def _usage_of(messages: Sequence[BaseMessage], reply: AIMessage) -> Usage:
    meta = reply.usage_metadata
    if meta and (meta.get("input_tokens") or meta.get("output_tokens")):
        usage: Usage = {
            "llm_calls": 1,
            "prompt_tokens": meta["input_tokens"],
            "completion_tokens": meta["output_tokens"],
        }
        cached = (meta.get("input_token_details") or {}).get("cache_read")
        if cached is not None:
            usage["cached_prompt_tokens"] = cached
        return usage
    prompt = sum(count_tokens(str(m.content)) for m in messages)
    return {"llm_calls": 1, "prompt_tokens": prompt, "completion_tokens": count_tokens(str(reply.content))}


def invoke_text(model: BaseChatModel, messages: Sequence[BaseMessage]) -> tuple[str, Usage]:
    """One free-text call; returns the reply text and its usage."""
    raise_if_stopped()
    reply = model.invoke(list(messages))
    if not isinstance(reply, AIMessage):
        reply = AIMessage(content=str(reply))
    return str(reply.content), _usage_of(messages, reply)


_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> object:
    """Parse the JSON object in a model reply, tolerating code fences and prose around it."""
    candidates = [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]
    for candidate in candidates:
        start, end = candidate.find("{"), candidate.rfind("}")
        if start != -1 and end > start:
            try:
                return json.loads(candidate[start : end + 1])
            except json.JSONDecodeError:
                continue
    raise ValueError("no JSON object found in the reply")


def _reason(exc: ValueError | ValidationError) -> str:
    # str() of a ValidationError starts "1 validation error for X": the reason itself is in errors().
    return str(exc.errors()[0]["msg"]) if isinstance(exc, ValidationError) else str(exc)


def invoke_structured(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    schema: type[SchemaT],
    retries: int = 2,
    max_tokens: int | None = None,
    context: dict[str, Any] | None = None,
) -> tuple[SchemaT, Usage]:
    """Call until the reply validates against ``schema``, feeding each error back; at most 1 + retries calls.

    Models that accept a JSON schema (llama.cpp grammar, the fake) get it as ``response_format`` so the
    first reply is already well-formed; others rely on the schema in the prompt. ``max_tokens`` raises the
    reply budget for schemas whose largest valid instance is longer than the model's default. ``context``
    reaches the schema's validators (pydantic's validation context), for checks that need the input.
    """
    json_schema = schema.model_json_schema()
    options: dict[str, Any] = {"max_tokens": max_tokens} if max_tokens else {}
    if getattr(model, "accepts_json_schema", False):
        options["response_format"] = {"type": "json_object", "schema": json_schema}
    runnable = model.bind(**options) if options else model
    history = list(messages)
    usage = empty_usage()
    errors: list[str] = []
    for _ in range(retries + 1):
        raise_if_stopped()
        reply = runnable.invoke(history)
        assert isinstance(reply, AIMessage)
        usage = add_usage(usage, _usage_of(history, reply))
        text = str(reply.content)
        try:
            return schema.model_validate(extract_json(text), context=context), usage
        except (ValueError, ValidationError) as exc:
            errors.append(_reason(exc))
            history = [
                *history,
                reply,
                HumanMessage(
                    content=render_prompt(
                        "repair_json",
                        error=str(exc)[:500],
                        schema=json.dumps(json_schema, ensure_ascii=False),
                    )
                ),
            ]
    raise StructuredOutputError(
        f"the model did not return valid {schema.__name__} JSON after {retries + 1} attempts: {'; '.join(errors)}",
        usage,
    )


@lru_cache(maxsize=64)
def with_max_items(schema: type[SchemaT], field: str, most: int) -> type[SchemaT]:
    """``schema`` whose list ``field`` holds at most ``most`` items, so that an answer format follows the run's
    limit (the same title: the grammar and a scripted fake model see the same schema). ``schema`` itself when
    it already says so."""
    info = schema.model_fields[field]
    if any(getattr(rule, "max_length", None) == most for rule in info.metadata):
        return schema
    capped = copy(info)
    capped.metadata = [rule for rule in info.metadata if not isinstance(rule, MaxLen)] + [MaxLen(most)]
    fields = cast(dict[str, Any], {field: (info.annotation, capped)})
    model = create_model(schema.__name__, __base__=schema, __doc__=schema.__doc__, **fields)
    return cast(type[SchemaT], model)
