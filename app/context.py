"""Per-run configuration, read by nodes through ``Runtime[Context]`` (and shown as Studio's form)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(kw_only=True)
class Context:
    """Knobs a caller may set per run; infrastructure (stores, paths) lives in :mod:`app.settings`."""

    model: str = field(
        default_factory=lambda: os.environ.get("JURIS_MODEL", "").strip() or "local",
        metadata={"description": "Chat model: 'local' (embedded GGUF), 'fake', or a provider:model spec."},
    )
    top_k: int = field(
        default=5,
        metadata={"description": "Statute articles given to the Draft agent as evidence."},
    )
    candidates_per_retriever: int = field(
        default=20,
        metadata={"description": "Candidates each retriever (BM25, dense) contributes before fusion."},
    )
    structured_retries: int = field(
        default=2,
        metadata={"description": "Extra attempts when the model's JSON does not validate."},
    )
    max_question_chars: int = field(
        default_factory=lambda: int(os.environ.get("JURIS_MAX_QUESTION_CHARS", "").strip() or 4000),
        metadata={"description": "Longest question accepted; longer ones are refused, never truncated."},
    )
    language: str = field(
        default="zh",
        metadata={"description": "Prompt language (prompts/<language>/)."},
    )
