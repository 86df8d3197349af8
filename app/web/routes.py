"""The page's HTTP app: the page itself, its assets, and the endpoints that run a question or a fact.

``jurisgraph serve`` serves it at ``/``; `langgraph dev` at ``/page/`` (app/server.py mounts it). The page
asks with relative URLs, so it works under either. A run answers as server-sent events (``step``,
``writing``, then ``answer``, ``review`` or ``error``), each a JSON object; a request the run would refuse
(an empty or over-long question, a malformed body) is a 422 naming the problem before anything runs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
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

from agents.common.question import validate_question
from agents.context import ConsultContext, JudgeContext
from agents.state.consult import ConsultInput
from agents.state.judge import JudgeInput
from app.output import to_json
from app.web.presence import SERVICE
from app.web.runs import GRAPHS, Event, new_thread, run_events
from tools.errors import InputError
from tools.settings import load_settings

STATIC = Path(__file__).with_name("static")
"""The page and its assets, shipped in the package: nothing is fetched from a network."""
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
"""The page runs only its own script: a question that smuggles markup past the escaping still runs nothing."""
HEADERS = {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


def _refused(message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=422)


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError as exc:
        raise InputError(f"the request body is not JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    return body


def _flag(body: dict[str, Any], key: str, default: bool = False) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise InputError(f"{key} must be true or false")
    return value


def _thread(body: dict[str, Any], graph: str) -> str | None:
    """The thread to run in: the one named, a new one, or none when ``keep`` is false (an answer given once,
    kept as no conversation, as `jurisgraph ask` without --thread)."""
    thread = body.get("thread")
    if thread is None or thread == "":
        return new_thread(graph) if _flag(body, "keep", True) else None
    if not isinstance(thread, str):
        raise InputError("thread must be a text")
    return thread


def _streamed(events: Iterator[Event]) -> StreamingResponse:
    """The events as a server-sent event stream. The run goes on in a thread of its own to its end even when
    the page goes away: the answer is kept in its thread."""
    queue: Queue[Event | None] = Queue()

    def work() -> None:
        try:
            for event in events:
                queue.put(event)
        finally:
            queue.put(None)

    threading.Thread(target=work, name="page-run", daemon=True).start()

    async def body() -> AsyncIterator[str]:
        while (event := await run_in_threadpool(queue.get)) is not None:
            data = to_json(event)
            yield f"event: {event['event']}\ndata: {data}\n\n"

    return StreamingResponse(body(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


def _text(body: dict[str, Any], key: str, limit: int, what: str) -> str:
    """The question or fact of a request, checked as the graph checks it."""
    text = body.get(key)
    if not isinstance(text, str):
        raise InputError(f"{key} must be a text")
    return validate_question(text, limit, what, f"max_{key}_chars")


async def ask(request: Request) -> Response:
    """A question, answered in its thread (a follow-up gives the thread the first answer came with)."""
    try:
        body = await _body(request)
        context = ConsultContext(human_review=_flag(body, "review"))
        question = _text(body, "question", context.max_question_chars, "question")
        thread = _thread(body, "consult")
        if thread is None and context.human_review:
            raise InputError("a review pauses the run in its thread: ask with keep true to review")
    except InputError as exc:
        return _refused(str(exc))
    return _streamed(run_events("consult", ConsultInput(question=question), thread, context, _flag(body, "raw")))


async def judge(request: Request) -> Response:
    """A criminal fact, judged."""
    try:
        body = await _body(request)
        context = JudgeContext(human_review=_flag(body, "review"))
        fact = _text(body, "fact", context.max_fact_chars, "fact description")
    except InputError as exc:
        return _refused(str(exc))
    # Only a judgment paused for review is kept (in memory, until the person answers).
    thread = new_thread("judge") if context.human_review else None
    return _streamed(run_events("judge", JudgeInput(fact=fact), thread, context, _flag(body, "raw")))


async def resume(request: Request) -> Response:
    """The person's review of a paused run: ``answers`` maps each interrupt id to the verdicts changed
    (``{article_id: {"applicable": bool, "reason": text}}``; an accepted verdict is left out)."""
    try:
        body = await _body(request)
        graph = body.get("graph")
        if graph not in GRAPHS:
            raise InputError(f"graph must be one of {', '.join(GRAPHS)}")
        answers = body.get("answers")
        if not isinstance(answers, dict):
            raise InputError("answers must be an object: interrupt id -> {article_id: {applicable, reason}}")
        thread = body.get("thread")
        if not isinstance(thread, str) or not thread:
            raise InputError("thread must name the paused run's thread")
        context = ConsultContext(human_review=True) if graph == "consult" else JudgeContext(human_review=True)
    except InputError as exc:
        return _refused(str(exc))
    return _streamed(run_events(graph, Command(resume=answers), thread, context, _flag(body, "raw")))


async def health(_request: Request) -> Response:
    """Who answers here, for ``jurisgraph ask`` and a person checking the server."""
    return JSONResponse({"service": SERVICE, "data_dir": str(load_settings().data_dir)})


async def page(_request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers=HEADERS)


def page_app() -> Starlette:
    """The page's app, to serve at the root or mount under a prefix."""
    return Starlette(
        routes=[
            Route("/", page),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
            Route("/api/health", health),
            Route("/api/ask", ask, methods=["POST"]),
            Route("/api/judge", judge, methods=["POST"]),
            Route("/api/resume", resume, methods=["POST"]),
        ]
    )
