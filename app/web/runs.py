"""The runs the page starts: a graph run whose progress and result come as events a person can read.

A consultation runs in its conversation thread, kept in the data dir's thread store (``jurisgraph threads``
lists it, ``ask --thread`` continues it); a judgment paused for review waits in this server's memory until the
person answers. Every failure is an event naming the problem, never a stack trace.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agents.context import AuditContext
from app.cli.answer import require_statutes
from app.progress import follow
from app.threads import open_checkpointer, validate_thread_id
from app.web.views import consult_view, judge_view
from tools.errors import InputError, JurisError
from tools.settings import load_settings

Event = dict[str, Any]
GRAPHS = ("consult", "judge")
"""The graphs the page runs."""

log = logging.getLogger(__name__)
_paused = InMemorySaver()
"""Judgments paused for review, by thread, for the server's life (a judgment is not a conversation to keep)."""


def new_thread(graph: str) -> str:
    """A fresh thread id for a run of ``graph``."""
    return f"{graph}-{uuid.uuid4().hex[:12]}"


def _saver(graph: str, thread: str | None) -> AbstractContextManager[BaseCheckpointSaver[Any] | None]:
    if thread is None:
        return nullcontext(None)
    return open_checkpointer(load_settings()) if graph == "consult" else nullcontext(_paused)


def _build(graph: str, saver: BaseCheckpointSaver[Any] | None) -> Any:
    from graphs import consult, judge

    return (consult if graph == "consult" else judge).build_graph(checkpointer=saver)


def run_events(
    graph: str, request: Any, thread: str | None, context: AuditContext, raw: bool = False
) -> Iterator[Event]:
    """Run ``graph`` on ``request`` (its input, or a ``Command`` resuming a review) in ``thread`` (None: no
    conversation kept, and no review), yielding ``step`` and ``writing`` events as it works, then ``review``
    (borderline verdicts waiting for the person) or ``answer`` (what the page shows; with ``raw`` also the
    graph's whole output, for ``jurisgraph ask``), or ``error``."""
    try:
        if thread is not None:
            validate_thread_id(thread)
        yield {"event": "thread", "graph": graph, "thread": thread}
        require_statutes(warm=False)  # `serve` warmed the indexes at its start, not again per question
        yield from _run(graph, request, thread, context, raw)
    except JurisError as exc:
        yield {"event": "error", "message": str(exc), "exit_code": exc.exit_code}
    except Exception as exc:
        log.exception("run of %s in thread %s failed", graph, thread)
        message = f"the run failed ({type(exc).__name__}); the server's log has the details"
        yield {"event": "error", "message": message, "exit_code": 1}


def _run(graph: str, request: Any, thread: str | None, context: AuditContext, raw: bool) -> Iterator[Event]:
    config = {"configurable": {"thread_id": thread}} if thread is not None else None
    with _saver(graph, thread) as saver:
        compiled = _build(graph, saver)
        if isinstance(request, Command) and not compiled.get_state(config).interrupts:
            raise InputError(
                f"no {graph} run waits for a review in thread {thread} (answered already, or the server "
                "was restarted: ask again)"
            )
        out: dict[str, Any] = {}
        for kind, payload in follow(compiled, request, context, config):
            if kind == "output":
                out = payload
            else:
                yield {"event": kind, "text": payload}
        if saver is not None and (pending := compiled.get_state(config).interrupts):
            yield {
                "event": "review",
                "graph": graph,
                "thread": thread,
                "pending": [{"id": item.id, "verdicts": item.value["verdicts"]} for item in pending],
            }
            return
    if graph == "judge" and thread is not None:
        _paused.delete_thread(thread)  # reviewed and judged: nothing waits any more
    if graph == "consult":
        view = consult_view(str(out.get("question") or ""), out)
    else:
        view = judge_view(str(out.get("fact") or ""), out)
    event: Event = {"event": "answer", "view": view}
    if raw:
        event["out"] = out
    yield event
