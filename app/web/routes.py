"""The page's HTTP app: the page itself, its assets, and the endpoints that run a question or a fact.

``jurisgraph serve`` serves it at ``/``; `langgraph dev` at ``/page/`` (app/server.py mounts it). The page
asks with relative URLs, so it works under either. A run answers as server-sent events (``step``,
``writing``, then ``answer``, ``review`` or ``error``), each a JSON object; a request the run would refuse
(an empty or over-long question, a malformed body) is a 422 naming the problem before anything runs.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from queue import Queue
from typing import Any

from langgraph.types import Command
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.common.question import set_aside_instructions, validate_question
from agents.context import ConsultContext, JudgeContext
from agents.state.consult import ConsultInput
from agents.state.judge import JudgeInput
from app.output import to_json
from app.threads import validate_thread_id
from app.web.guard import PARSED_BODY, ASGIApp, page_guard
from app.web.keys import Forbidden, check_key
from app.web.presence import SERVICE, data_dir_id
from app.web.queue import Busy, RunQueue, ThreadClaims
from app.web.runs import GRAPHS, Event, Expired, check_answers, new_thread, pending_reviews, run_events
from tools.errors import InputError
from tools.settings import load_settings

STATIC = Path(__file__).with_name("static")
"""The page and its assets, shipped in the package: nothing is fetched from a network."""


_STATUS = {Forbidden: 403, Busy: 409, Expired: 410}
"""The status of each refusal that is not a 422."""


def _refused(exc: InputError) -> JSONResponse:
    return JSONResponse({"error": str(exc)}, status_code=_STATUS.get(type(exc), 422))


def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object, as the guard (:mod:`app.web.guard`) read it whole, within its limit, and found
    it JSON with every text readable."""
    body = getattr(request.state, PARSED_BODY, {})
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    return body


def _flag(body: dict[str, Any], key: str, default: bool = False) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise InputError(f"{key} must be true or false")
    return value


def _thread(body: dict[str, Any], graph: str) -> str | None:
    """The thread to run in: the one named (with its key: :mod:`app.web.keys`), a new one, or none when ``keep``
    is false (an answer given once, kept as no conversation, as `jurisgraph ask` without --thread)."""
    thread = body.get("thread")
    if thread is None or thread == "":
        return new_thread(graph) if _flag(body, "keep", True) else None
    if not isinstance(thread, str):
        raise InputError("thread must be a text")
    return _reached(body, thread)


def _reached(body: dict[str, Any], thread: str) -> str:
    """``thread`` when it is a valid id and the request brings its key (:mod:`app.web.keys`)."""
    validate_thread_id(thread)
    check_key(load_settings(), thread, body.get("key"))
    return thread


RUNS = RunQueue()
"""The server's runs, a few at once (:mod:`app.web.queue`)."""
WRITERS = ThreadClaims()
"""The thread each run writes, one run at a time (:mod:`app.web.queue`)."""


def _streamed(events: Iterator[Event], finish: bool = False, thread: str | None = None) -> StreamingResponse:
    """The events as a server-sent event stream, the run waiting its turn first (``queued`` events say how many
    runs are ahead). When the page goes away the run stops at its next step (what it finished is kept in its
    thread), or never starts if it was still waiting; with ``finish`` it goes on to its end. The ``thread`` it was
    given (claimed in :data:`WRITERS`) is free again when the run ends."""
    queue: Queue[Event | None] = Queue()
    left = threading.Event()

    def work() -> None:
        try:
            if not RUNS.wait_turn(lambda ahead: queue.put({"event": "queued", "ahead": ahead}), left.is_set):
                return
            try:
                for event in events:
                    queue.put(event)
                    if left.is_set() and not finish:
                        break  # closing the run's generator stops the graph before its next step
            finally:
                RUNS.done()
        finally:
            if thread is not None:
                WRITERS.release(thread)
            queue.put(None)

    threading.Thread(target=work, name="page-run", daemon=True).start()

    async def body() -> AsyncIterator[str]:
        try:
            while (event := await run_in_threadpool(queue.get)) is not None:
                data = to_json(event)
                yield f"event: {event['event']}\ndata: {data}\n\n"
        finally:  # the stream ended, or the client went away
            left.set()

    return StreamingResponse(body(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


def _text(body: dict[str, Any], key: str, limit: int, what: str) -> str:
    """The question or fact of a request, checked as the graph checks it (one made of instructions to the system
    alone is refused here, as the CLI refuses it, not answered with an error event)."""
    text = body.get(key)
    if not isinstance(text, str):
        raise InputError(f"{key} must be a text")
    checked = validate_question(text, limit, what, f"max_{key}_chars")
    set_aside_instructions(checked, what=what)
    return checked


async def ask(request: Request) -> Response:
    """A question, answered in its thread (a follow-up gives the thread the first answer came with)."""
    try:
        body = _body(request)
        context = ConsultContext(human_review=_flag(body, "review"))
        question = _text(body, "question", context.max_question_chars, "question")
        thread = _thread(body, "consult")
        if thread is None and context.human_review:
            raise InputError("a review pauses the run in its thread: ask with keep true to review")
        raw, finish = _flag(body, "raw"), _flag(body, "finish")
        if thread is not None:
            WRITERS.claim(thread, "a question")  # a second turn at once would overwrite the first's
    except InputError as exc:
        return _refused(exc)
    return _streamed(run_events("consult", ConsultInput(question=question), thread, context, raw), finish, thread)


async def judge(request: Request) -> Response:
    """A criminal fact, judged."""
    try:
        body = _body(request)
        context = JudgeContext(human_review=_flag(body, "review"))
        fact = _text(body, "fact", context.max_fact_chars, "fact description")
        raw, finish = _flag(body, "raw"), _flag(body, "finish")
    except InputError as exc:
        return _refused(exc)
    # Only a judgment paused for review is kept (in memory, until the person answers).
    thread = new_thread("judge") if context.human_review else None
    return _streamed(run_events("judge", JudgeInput(fact=fact), thread, context, raw), finish)


async def resume(request: Request) -> Response:
    """The person's review of a paused run: ``answers`` maps each interrupt id to the verdicts changed
    (``{article_id: {"applicable": bool, "reason": text}}``; an accepted verdict is left out). A review that would
    not apply (nothing paused, an unknown interrupt or article, a malformed change) is a 422 naming what is pending."""
    try:
        body = _body(request)
        graph = body.get("graph")
        if graph not in GRAPHS:
            raise InputError(f"graph must be one of {', '.join(GRAPHS)}")
        answers = body.get("answers")
        if not isinstance(answers, dict):
            raise InputError("answers must be an object: interrupt id -> {article_id: {applicable, reason}}")
        thread = body.get("thread")
        if not isinstance(thread, str) or not thread:
            raise InputError("thread must name the paused run's thread")
        _reached(body, thread)
        context = ConsultContext(human_review=True) if graph == "consult" else JudgeContext(human_review=True)
        raw, finish = _flag(body, "raw"), _flag(body, "finish")
        # Claimed before the review is checked: a second review sent at once is a 409, never applied twice.
        WRITERS.claim(thread, "a review")
        try:
            # A malformed answer or one for nothing pending is refused here, and the run stays paused for a valid one.
            check_answers(graph, thread, answers, await run_in_threadpool(pending_reviews, graph, thread))
        except BaseException:  # refused, or the store failed: no run will release it
            WRITERS.release(thread)
            raise
    except InputError as exc:
        return _refused(exc)
    return _streamed(run_events(graph, Command(resume=answers), thread, context, raw), finish, thread)


async def health(_request: Request) -> Response:
    """Who answers here, for ``jurisgraph ask`` and a person checking the server: the data dir by a digest of its
    path, never the path itself."""
    return JSONResponse({"service": SERVICE, "data_dir": data_dir_id(load_settings())})


async def page(_request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


def page_app(hosts: Iterable[str] = ()) -> ASGIApp:
    """The page's app, to serve at the root or mount under a prefix, answering only its own requests at the
    loopback names and ``hosts`` (:func:`app.web.guard.page_guard`)."""
    app = Starlette(
        routes=[
            Route("/", page),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
            Route("/api/health", health),
            Route("/api/ask", ask, methods=["POST"]),
            Route("/api/judge", judge, methods=["POST"]),
            Route("/api/resume", resume, methods=["POST"]),
        ]
    )
    return page_guard(app, hosts)
