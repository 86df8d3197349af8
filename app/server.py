"""The HTTP app `langgraph dev` and a LangGraph server merge with their own (langgraph.json ``http.app``): the page
at ``/page/``, and its middleware guarding every route of the server, the API's included
(:mod:`app.web.guard`: its own Host names, loopback and Studio origins, a body limit, readable JSON), with a
check of every run request.

It refuses a run whose ``context`` its graph would not take, or whose ``input`` (the question, the fact) the
graph would refuse, with a 422 naming the problem, before the run is created, on every run endpoint (a batch
names the run): LangGraph builds the Context with ``Context(**context)`` inside the run, where an unknown key
was a TypeError and a wrong type a run that failed later (or, for a limit, ran unbounded), and an input error
raised inside a run came back as HTTP 200 with "An internal error occurred".
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path
from typing import Any
from uuid import UUID, uuid5

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.routing import Mount

from agents.common.question import set_aside_instructions, validate_question
from agents.context import ConsultContext, Context, GlobalSearchContext, JudgeContext
from app.web.guard import ASGIApp, Guard, Receive, Scope, Send, loopback_origin, same_origin
from app.web.routes import page_app
from tools.errors import InputError
from tools.settings import load_settings

CONTEXTS: dict[str, type[Context]] = {
    "consult": ConsultContext,
    "judge": JudgeContext,
    "global_search": GlobalSearchContext,
    "ingest": Context,
}
"""Each graph of langgraph.json and the Context it runs with."""
_DEFAULT_ASSISTANTS = {str(uuid5(UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8"), g)): g for g in CONTEXTS}
"""The server's default assistant of each graph, by the id it gives it: uuid5 of the graph name in
langgraph_api.graph.NAMESPACE_GRAPH (not imported: importing langgraph_api reads the server's configuration)."""


INPUTS: dict[str, tuple[str, str]] = {
    "consult": ("question", "max_question_chars"),
    "judge": ("fact", "max_fact_chars"),
    "global_search": ("question", "max_question_chars"),
}
"""The text field of each graph's input and the setting that bounds it."""


def run_problem(assistant_id: str, context: object, given: object) -> str | None:
    """Why a run of the assistant's graph with this ``context`` and ``input`` would be refused, or None."""
    if problem := context_problem(assistant_id, context):
        return problem
    graph = _DEFAULT_ASSISTANTS.get(assistant_id, assistant_id)
    if graph not in INPUTS or given is None:
        return None  # a run resuming an interrupt, or an assistant only the server knows
    if not isinstance(given, dict):
        return f"input must be an object with the {graph} graph's {INPUTS[graph][0]}"
    field, limit = INPUTS[graph]
    text = given.get(field)
    if text is None and graph == "consult" and "messages" in given:
        # A chat (Studio's chat view, agent-chat-ui): its last message is the question.
        text = _chat_question(given["messages"])
        if text is None:
            return "input.messages must end with a human message holding the question"
    if not isinstance(text, str):
        return f"input.{field} must be a text (got {type(text).__name__})"
    settings = CONTEXTS[graph](**(context if isinstance(context, dict) else {}))
    what = "fact description" if field == "fact" else "question"
    try:
        set_aside_instructions(validate_question(text, getattr(settings, limit), what, limit), settings.language, what)
    except InputError as exc:
        return str(exc)
    return None


def _chat_question(messages: object) -> str | None:
    """The text of a chat's last message when it is a human one, as the API takes messages (a dict with
    ``type`` human or ``role`` user, or a bare text), else None."""
    last = messages[-1] if isinstance(messages, list) and messages else None
    if isinstance(last, str):
        return last
    if not isinstance(last, dict) or (last.get("type") != "human" and last.get("role") not in ("user", "human")):
        return None
    content = last.get("content")
    if isinstance(content, list):  # multimodal: its text parts
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else None


def context_problem(assistant_id: str, context: object) -> str | None:
    """Why ``context`` cannot run on the assistant's graph, or None when it can (or the assistant is not one
    of the defaults, whose graph only the server knows: the graph itself then refuses a bad value)."""
    graph = _DEFAULT_ASSISTANTS.get(assistant_id, assistant_id)
    schema = CONTEXTS.get(graph)
    if schema is None or context is None:
        return None
    if not isinstance(context, dict):
        return f"context must be an object of {graph}'s settings"
    known = {f.name for f in fields(schema)}
    if unknown := sorted(set(context) - known):
        return f"unknown {graph} setting(s) {', '.join(unknown)}; settings are {', '.join(sorted(known))}"
    try:
        schema(**context)
    except InputError as exc:
        return str(exc)
    return None


def api_problem(method: str, path: str, body: Any) -> str | None:
    """Why the API request ``body`` (parsed by the guard) is refused, or None: a run (on every run endpoint; a
    batch names the run) whose context or input its graph would refuse."""
    if method != "POST" or "/runs" not in path:
        return None
    runs = body if isinstance(body, list) else [body]
    for i, run in enumerate(runs):
        if isinstance(run, dict):
            where = f"run {i}: " if isinstance(body, list) else ""
            if problem := run_problem(str(run.get("assistant_id", "")), run.get("context"), run.get("input")):
                return where + problem
    return None


PAGE_PATH = "/page"
"""Where `langgraph dev` serves the page `jurisgraph serve` serves at its root."""
RUNTIME_DIR = ".langgraph_api"
"""Where `langgraph dev` keeps its threads, runs and store (people's legal questions), in its working directory."""


def own_runtime_files(folder: Path) -> None:
    """The server's files are its user's alone from the start, as the data dir is: the runtime made its folder
    0755 and its files 0644 before the first run set the process's umask."""
    os.umask(0o077)
    if not folder.is_dir() or folder.stat().st_uid != os.getuid():
        return
    folder.chmod(0o700)
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink():
            path.chmod(0o600)


STUDIO_ORIGINS = ("https://smith.langchain.com",)
"""Where LangGraph Studio runs: the one origin off this machine whose pages may call the API (as its documented
Studio user, who sees the threads Studio made only: app/auth.py)."""
MAX_API_BODY_BYTES = 1024 * 1024
"""Largest API request body: a run's input is a question or a fact (20,000 characters at most); 50 MB bodies were
stored whole and took 773 MB of memory."""


def api_origin(origin: str, host: str) -> bool:
    """Whether a page at ``origin`` may call the API: the server's own, a loopback one (a chat UI on this machine),
    or Studio's."""
    return same_origin(origin, host) or loopback_origin(origin) or origin.lower() in STUDIO_ORIGINS


class StudioFromItsOrigin:
    """ASGI middleware: a request claiming to be LangGraph Studio's (``x-auth-scheme: langsmith``, which
    `langgraph dev` admits as its Studio user without a key) is refused unless it comes from Studio's origin.
    A browser sends the Origin it is on, so no other page can pass as Studio."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope) if scope["type"] == "http" else Headers()
        claims_studio = headers.get("x-auth-scheme", "").lower() == "langsmith"
        if claims_studio and headers.get("origin", "").lower() not in STUDIO_ORIGINS:
            refusal = JSONResponse(
                {"detail": f"x-auth-scheme langsmith is LangGraph Studio's, from {', '.join(STUDIO_ORIGINS)} only"},
                status_code=403,
            )
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


own_runtime_files(Path.cwd() / RUNTIME_DIR)
_hosts = load_settings().allowed_hosts
app = Starlette(
    routes=[Mount(PAGE_PATH, app=page_app(_hosts))],
    middleware=[
        Middleware(
            Guard,
            hosts=_hosts,
            origin_allowed=api_origin,
            max_body=MAX_API_BODY_BYTES,
            check=api_problem,
            field="detail",
        ),
        Middleware(StudioFromItsOrigin),
    ],
)
