"""What a run is doing, in the words a person reads: the step labels the CLI's status line and the page show."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agents.context import Context
from graphs.consult import ANSWER_NODE, DRAFT_NODE
from prompts import label

ANSWER_TAIL = 60
"""Characters of the answer being written that a progress line shows."""
WRITING = (DRAFT_NODE, ANSWER_NODE)
"""The nodes whose tokens a progress line shows (a fast consult's Response is its draft)."""


def step_name(node: str, language: str) -> str:
    """A graph step as a person reads it (检索法条, 核验法条, 撰写答复), the node's own name when it has none."""
    try:
        return label(f"step_{node}", language)
    except KeyError:
        return node


def stage_text(chunk: dict[str, Any], language: str) -> str:
    """One progress event of a graph's custom stream as a line of plain text (检索法条：完成, 核验法条 刑法:264…)."""
    detail = chunk.get("detail", {})
    extra = detail.get("decision") or chunk.get("article_id") or detail.get("article_id") or ""
    what = f"{step_name(chunk['stage'], language)} {extra}".strip()
    return label("step_done", language, step=what) if chunk.get("event") == "done" else f"{what}…"


def writing_text(node: str, written: str, language: str) -> str:
    """The line shown while ``node`` writes: its step and the last characters written, on one line."""
    return f"{step_name(node, language)}: {written.replace(chr(10), ' ')[-ANSWER_TAIL:]}"


def follow(
    graph: Any, request: Any, context: Context, config: dict[str, Any] | None = None, live: bool = True
) -> Iterator[tuple[str, Any]]:
    """Run a graph, yielding what a person watching it reads: ``("step", line)`` as each step starts (the tasks
    stream) and as each stage finishes or verifies an article (the custom stream), ``("writing", line)`` as the
    model writes the answer (the messages stream), and last ``("output", out)``, the graph's output. Without
    ``live`` only the output comes."""
    out: dict[str, Any] = {}
    answer, writer = "", ""
    modes = ["tasks", "custom", "values", "messages"] if live else ["values"]
    for namespace, mode, chunk in graph.stream(request, config, context=context, stream_mode=modes, subgraphs=True):
        if mode == "values":
            if not namespace:
                out = chunk
        elif mode == "messages":
            token, metadata = chunk
            node = metadata.get("langgraph_node")
            if node in WRITING and isinstance(token.content, str):
                answer, writer = (answer if node == writer else ""), node
                answer += token.content
                yield "writing", writing_text(node, answer, context.language)
        elif mode == "tasks":
            # A step starting (its end is the node's own "done" event): what a slow model call is working on.
            if "input" in chunk:
                yield "step", f"{step_name(chunk['name'], context.language)}…"
        else:
            yield "step", stage_text(chunk, context.language)
    yield "output", out
