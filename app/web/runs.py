"""The runs the page starts: a graph run whose progress and result come as events a person can read.

A consultation runs in its conversation thread, kept in the data dir's thread store (``jurisgraph threads``
lists it, ``ask --thread`` continues it); a judgment paused for review waits in the data dir's review store
(``reviews.sqlite``: thirty-three paused in memory had taken the server from 307 to 432 MB) until the person
answers, for ``JURIS_REVIEW_EXPIRY_MINUTES``: a review sent later is refused (410) and the paused state is kept
until the thread retention prunes it. Every failure is an event naming the problem, never a stack trace.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from agents.context import AuditContext
from app.cli.answer import require_statutes
from app.progress import follow
from app.threads import open_checkpointer, validate_thread_id
from app.web.keys import thread_key
from app.web.views import consult_view, judge_view
from tools.errors import InputError, JurisError
from tools.settings import load_settings

Event = dict[str, Any]
GRAPHS = ("consult", "judge")
"""The graphs the page runs."""

log = logging.getLogger(__name__)


class Expired(InputError):
    """A review sent after its run's pause expired (a 410)."""


def new_thread(graph: str) -> str:
    """A fresh thread id for a run of ``graph``: unguessable, though its key (:mod:`app.web.keys`) guards it."""
    return f"{graph}-{uuid.uuid4().hex}"


def _saver(graph: str, thread: str | None) -> AbstractContextManager[BaseCheckpointSaver[Any] | None]:
    if thread is None:
        return nullcontext(None)
    settings = load_settings()
    return open_checkpointer(settings) if graph == "consult" else open_checkpointer(settings, settings.reviews_file)


def _check_fresh(graph: str, saver: BaseCheckpointSaver[Any], thread: str) -> None:
    """Refuse (:class:`Expired`) a review of a run paused longer than ``JURIS_REVIEW_EXPIRY_MINUTES``."""
    paused = saver.get_tuple({"configurable": {"thread_id": thread}})
    if paused is None:
        return
    minutes = load_settings().review_expiry_minutes
    since = datetime.fromisoformat(str(paused.checkpoint["ts"]))
    if minutes > 0 and datetime.now(UTC) - since > timedelta(minutes=minutes):
        raise Expired(
            f"the {graph} review in thread {thread}, paused at {since:%Y-%m-%d %H:%M} UTC, expired after {minutes} "
            f"minutes (JURIS_REVIEW_EXPIRY_MINUTES); its state is kept in the data dir: ask again to review anew"
        )


def _build(graph: str, saver: BaseCheckpointSaver[Any] | None) -> Any:
    from graphs import consult, judge

    return (consult if graph == "consult" else judge).build_graph(checkpointer=saver)


def pending_reviews(graph: str, thread: str) -> dict[str, set[str]]:
    """Interrupt id -> the article ids its borderline verdicts name, of the run paused in ``thread`` (empty when
    none waits)."""
    with _saver(graph, thread) as saver:
        state = _build(graph, saver).get_state({"configurable": {"thread_id": thread}})
        pending = {item.id: {v["article_id"] for v in item.value["verdicts"]} for item in state.interrupts}
        if pending and saver is not None:
            _check_fresh(graph, saver, thread)
        return pending


def check_answers(graph: str, thread: str, answers: dict[str, Any], pending: dict[str, set[str]]) -> None:
    """Refuse (InputError) a review that would not apply as written: nothing paused, an interrupt or an article
    that is not pending, a change that is not ``{"applicable": bool, "reason": text}``. Checked before the run
    resumes: a malformed answer that reached the graph failed its node, and every later resume with it."""
    if not pending:
        raise InputError(
            f"no {graph} run waits for a review in thread {thread} (answered already, or never paused: ask again)"
        )
    waiting = "; ".join(f"{i}: {', '.join(sorted(ids))}" for i, ids in pending.items())
    for interrupt_id, changes in answers.items():
        if interrupt_id not in pending:
            raise InputError(f"no review {interrupt_id!r} is pending in thread {thread}; pending: {waiting}")
        if not isinstance(changes, dict):
            raise InputError(f"answers[{interrupt_id!r}] must be an object: article id -> {{applicable, reason}}")
        for article, change in changes.items():
            if article not in pending[interrupt_id]:
                raise InputError(f"{article} is not pending in review {interrupt_id!r}; pending: {waiting}")
            if not isinstance(change, dict) or not isinstance(change.get("applicable"), bool):
                raise InputError(f"the review of {article}: applicable must be true or false")
            if not isinstance(change.get("reason", ""), str):
                raise InputError(f"the review of {article}: reason must be a text")
    if unanswered := sorted(set(pending) - set(answers)):
        # ``{}`` answered nothing and showed the review again: accepting every verdict is ``{id: {}}``.
        raise InputError(
            f"answers must answer every pending review ({{id: {{}}}} accepts its verdicts): {', '.join(unanswered)} "
            f"unanswered; pending: {waiting}"
        )


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
        # The thread's key, which the page keeps and brings back with every later request naming the thread.
        key = thread_key(load_settings(), thread) if thread is not None else None
        yield {"event": "thread", "graph": graph, "thread": thread, "key": key}
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
                f"no {graph} run waits for a review in thread {thread} (answered already, or never paused: ask again)"
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
        if graph == "judge" and saver is not None:
            saver.delete_thread(str(thread))  # reviewed and judged: nothing waits any more
    if graph == "consult":
        view = consult_view(str(out.get("question") or ""), out)
    else:
        view = judge_view(str(out.get("fact") or ""), out)
    event: Event = {"event": "answer", "view": view}
    if raw:
        event["out"] = out
    yield event
