"""What every graph's Context shares: the model, the prompt language and how settings are set and checked."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Literal, Self, get_args, get_origin, get_type_hints

from prompts import missing_prompts, prompt_languages
from tools.errors import InputError
from tools.settings import load_settings

Role = Literal["draft", "manager", "audit", "judge"]
ROLES: tuple[str, ...] = get_args(Role)


def setting(
    default: Any = None,
    description: str = "",
    *,
    low: float | None = 0,
    high: float | None = None,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A Context field: its one-line ``description`` (Studio's form, ``--set``'s error) and, for numbers, the
    range a value must lie in (``low``/``high`` inclusive; ``None``: unbounded)."""
    metadata = {"description": description, "low": low, "high": high}
    if default_factory is not None:
        return field(default_factory=default_factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def question_limit() -> Any:
    """The ``max_question_chars`` field of the graphs that take a question."""
    return setting(
        description="Longest question accepted; longer ones are refused, never truncated (JURIS_MAX_QUESTION_CHARS).",
        default_factory=lambda: load_settings().max_question_chars,
        low=1,
    )


@dataclass(kw_only=True)
class Context:
    """Settings a caller may choose per run (infrastructure, stores and paths are :mod:`tools.settings`)."""

    model: str = setting(
        description="Chat model: 'local' (embedded GGUF), 'fake', or a provider:model spec; default JURIS_MODEL.",
        default_factory=lambda: load_settings().model,
    )
    models: dict[str, str] = setting(
        description="Model of an agent role (draft, manager, audit, judge) where it is not `model`.",
        default_factory=dict,
    )
    structured_retries: int = setting(2, "Extra attempts when the model's JSON does not validate.", high=10)
    language: str = setting("zh", "Prompt language (prompts/<language>/).")

    PROMPTS: ClassVar[tuple[str, ...]] = ("system",)
    """Prompts the graph cannot run without: a language is offered only where prompts/<language>/ holds them all."""

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Refuse a value of the wrong type or outside its range (every way of setting one comes here)."""
        hints = get_type_hints(type(self))
        for f in fields(self):
            if problem := _problem(getattr(self, f.name), hints[f.name], f.metadata):
                raise InputError(f"setting {f.name}={getattr(self, f.name)!r}: {problem}")
        if missing := missing_prompts(self.language, self.PROMPTS):
            offered = [lang for lang in prompt_languages() if not missing_prompts(lang, self.PROMPTS)]
            raise InputError(
                f"setting language={self.language!r}: prompts/{self.language}/ lacks {', '.join(missing)}; "
                f"this graph runs in {', '.join(offered)}"
            )
        unknown = set(self.models) - set(ROLES)
        if unknown:
            raise InputError(f"setting models: unknown role {sorted(unknown)[0]!r}; roles are {', '.join(ROLES)}")

    def model_for(self, role: Role) -> str:
        """The model spec of an agent role: its own entry in ``models``, else ``model``."""
        return self.models.get(role, "").strip() or self.model

    def with_overrides(self, pairs: list[str]) -> Self:
        """A copy with ``key=value`` settings applied (values parsed as JSON where they are JSON, so
        ``audit=false``, ``audit_k=3`` and ``models={"audit": "fake"}`` all work)."""
        known = {f.name for f in fields(self)}
        hints = get_type_hints(type(self))
        changes: dict[str, Any] = {}
        for pair in pairs:
            key, sep, raw = pair.partition("=")
            key = key.strip()
            if not sep or key not in known:
                raise InputError(f"bad setting {pair!r}: use key=value with key one of {', '.join(sorted(known))}")
            try:
                value: object = json.loads(raw)
            except json.JSONDecodeError:
                value = raw
            expected = type(getattr(self, key))
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise InputError(f"bad setting {pair!r}: {key} needs a {expected.__name__}")
            if get_origin(hints[key]) is Literal and value not in (allowed := get_args(hints[key])):
                raise InputError(f"bad setting {pair!r}: {key} is one of {', '.join(map(str, allowed))}")
            changes[key] = value
        return replace(self, **changes)


def _problem(value: Any, expected: Any, metadata: Mapping[str, Any]) -> str | None:
    """What is wrong with one setting's value for its declared type and range, or None."""
    if expected in (bool, str) and not isinstance(value, expected):
        return "needs true or false" if expected is bool else "needs a text"
    if get_origin(expected) is dict:
        texts = isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
        return None if texts else "needs an object of texts"
    if get_origin(expected) is Literal:
        allowed = get_args(expected)
        return None if value in allowed else f"choose one of {', '.join(map(str, allowed))}"
    if expected not in (int, float):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "needs a number"
    if expected is int and not isinstance(value, int):
        return "needs a whole number"
    low, high = metadata.get("low"), metadata.get("high")
    if math.isnan(value) or (low is not None and value < low) or (high is not None and value > high):
        return f"must lie in {low if low is not None else '-inf'} to {high if high is not None else 'inf'}"
    return None
