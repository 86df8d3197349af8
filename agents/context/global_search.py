"""Settings of the global and local search graph (Law GraphRAG over statute communities)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from agents.context.base import Context, question_limit, setting


@dataclass(kw_only=True)
class GlobalSearchContext(Context):
    """How much of the statute communities and entity graph a search reads."""

    PROMPTS: ClassVar[tuple[str, ...]] = ("system", "map_reports", "reduce_points", "answer_local", "no_answer")

    max_question_chars: int = question_limit()
    search_level: int = setting(0, "Statute-community level global and local search read (0: broadest).")
    map_tokens: int = setting(1500, "Global search: community-report tokens per map call.", low=100)
    reduce_tokens: int = setting(
        1500, "Global search: tokens of rated points the final answer is written from.", low=100
    )
    local_tokens: int = setting(
        2500, "Local search: context tokens (a quarter reports, half articles, the rest graph).", low=100
    )
    local_entities: int = setting(8, "Local search: entities matched to the question by embedding.", low=1)
