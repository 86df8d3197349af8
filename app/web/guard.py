"""Which requests a server of ours answers: its own, from its own origin, at the address it serves, with a body it
can read. The page (`jurisgraph serve`, and ``/page/`` under `langgraph dev`) and the LangGraph API under
`langgraph dev` (app/server.py) are both behind :class:`Guard`, with the same rules.

Any site a person visits can make their browser send a request to 127.0.0.1. A ``text/plain`` POST needs no
preflight, so without these checks it would start runs; through DNS rebinding (attacker.example resolving to
127.0.0.1) a page of another origin would read the answers and resume reviews; and a preflight the server grants
lets it read them outright. So, before any route runs:
- the ``Host`` must name an address this server serves (127.0.0.1, localhost, ::1, the ``--host`` given, or
  ``JURIS_ALLOWED_HOSTS``), else 421;
- a request with an ``Origin`` (a preflight included) must come from an origin the server allows: its own, and
  for the API also a loopback origin on another port (a chat UI on this machine) and LangGraph Studio's; else 403;
- a body is read here, counted as it arrives: over the server's limit 413, whatever ``Content-Length`` says;
  a body that is not ``application/json`` (which a cross-site form or a simple request cannot send without a
  preflight that is never granted) 415; not JSON, nested too deep, or holding an unreadable character anywhere
  (:func:`tools.text.unreadable`) 422, each naming the problem; then the server's own check of the request
  (the API's: a run its graph would refuse) may refuse it with a 422 too.
No input reaches a route as a 500. The page's responses also carry its headers (CSP, ``frame-ancestors``,
``nosniff``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers

from tools.text import unreadable

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
Check = Callable[[str, str, Any], str | None]
"""A server's own check of a request: (method, path, its JSON body) -> why it is refused, or None."""

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The names this machine's own browser reaches a loopback server by."""
MAX_BODY_BYTES = 256 * 1024
"""Largest request body of the page: a fact at its longest (20,000 characters, three bytes each) with room."""
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
"""The page runs only its own script: a question that smuggles markup past the escaping still runs nothing."""
HEADERS = {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PARSED_BODY = "json_body"
"""Where, in the request's state, the guard leaves the JSON body it read and checked (absent for an empty body)."""


def host_name(host: str) -> str:
    """The name part of a ``Host`` header or an origin's netloc (``[::1]:8765`` -> ``::1``), lower-cased."""
    try:
        return (urlsplit(f"//{host}").hostname or "").lower()
    except ValueError:  # a malformed port or bracket
        return ""


def same_origin(origin: str, host: str) -> bool:
    """Whether ``origin`` is the origin of the server ``host`` names (the page's rule)."""
    return urlsplit(origin).netloc.lower() == host.lower()


def loopback_origin(origin: str) -> bool:
    """Whether ``origin`` is a page served from this machine's loopback address, on any port."""
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and host_name(parts.netloc) in LOOPBACK_HOSTS


def texts_problem(value: Any, where: str = "body") -> str | None:
    """Where the first unreadable character of any text in a parsed JSON ``value`` is, keys included
    (``body.question holds a lone surrogate (U+D800 at character 3)``), or None."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:  # no recursion: the body's nesting is bounded only by the parser's
        path, item = stack.pop()
        if isinstance(item, str):
            if problem := unreadable(item):
                return f"{path} holds {problem}"
        elif isinstance(item, dict):
            for key, child in item.items():
                if problem := unreadable(key):
                    return f"a key of {path} holds {problem}"
                stack.append((f"{path}.{key}", child))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
    return None


class Refused(Exception):
    """A request the guard answers itself, with ``status`` and ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Guard:
    """ASGI middleware answering only the requests the module doc allows; the others get one JSON line
    (``{field: message}``) with their status, before any route runs."""

    def __init__(
        self,
        app: ASGIApp,
        hosts: Iterable[str] = (),
        origin_allowed: Callable[[str, str], bool] = same_origin,
        max_body: int = MAX_BODY_BYTES,
        check: Check | None = None,
        field: str = "error",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.app = app
        self.hosts = frozenset(h.lower().strip("[]") for h in (*LOOPBACK_HOSTS, *hosts) if h)
        self.origin_allowed = origin_allowed
        self.max_body = max_body
        self.check = check
        self.field = field
        self.headers = headers or {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # No CORS stands before a WebSocket: any page may open one, so its Host and Origin are checked here,
            # and a refused one is closed before it is accepted (the client sees a 403).
            try:
                self._check_headers(Headers(scope=scope))
            except Refused:
                await send({"type": "websocket.close", "code": 1008})
                return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        try:
            self._check_headers(headers)
            body = await self._body(scope, headers, receive) if scope["method"] in _BODY_METHODS else None
        except Refused as refused:
            await self._refuse(send, refused.status, str(refused))
            return
        except _Gone:
            return  # the client left while sending: nobody to answer
        await self.app(scope, receive if body is None else _replay(body, receive), self._with_headers(send))

    def _check_headers(self, headers: Headers) -> None:
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            raise Refused(421, f"this server answers {', '.join(sorted(self.hosts))}, not {host!r}")
        origin = headers.get("origin")
        if origin is not None and not self.origin_allowed(origin, host):
            raise Refused(403, f"a request from {origin} is not from this page (nor an origin it allows)")
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            raise Refused(413, f"the request body is over {self.max_body} bytes")

    async def _body(self, scope: Scope, headers: Headers, receive: Receive) -> bytes:
        """The whole body, read within the limit and checked (module doc)."""
        body = await self._read(receive)
        if body:
            self._check_body(scope, headers, body)
        return body

    async def _read(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            try:
                message = await receive()
            except asyncio.CancelledError:
                # A stopping server cancels a request still sending its body: it ends here, unanswered and
                # unlogged (uvicorn printed a traceback for each), and nothing was run for it.
                raise _Gone from None
            if message["type"] == "http.disconnect":
                raise _Gone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:  # counted as it arrives: a chunked body states no length
                raise Refused(413, f"the request body is over {self.max_body} bytes")
            chunks.append(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)

    def _check_body(self, scope: Scope, headers: Headers, body: bytes) -> None:
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refused(415, f"the request body must be application/json, not {kind or 'untyped'}")
        try:
            parsed = json.loads(body)
        except RecursionError:
            raise Refused(422, "the request body nests too deeply") from None
        except ValueError as exc:  # not JSON, or not UTF-8
            raise Refused(422, f"the request body is not JSON: {exc}") from None
        if problem := texts_problem(parsed):
            raise Refused(422, f"{problem}: remove it")
        if self.check is not None and (problem := self.check(scope["method"], scope["path"], parsed)):
            raise Refused(422, problem)
        # The route reads the body as parsed here (``request.state``), not parsing it a second time.
        scope.setdefault("state", {})[PARSED_BODY] = parsed

    async def _refuse(self, send: Send, status: int, message: str) -> None:
        body = json.dumps({self.field: message}, ensure_ascii=False).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        headers += [(k.lower().encode(), v.encode()) for k, v in self.headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _with_headers(self, send: Send) -> Send:
        if not self.headers:
            return send

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [
                    (k.lower().encode(), v.encode())
                    for k, v in self.headers.items()
                    if k.lower().encode() not in present
                ]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        return with_headers


class _Gone(Exception):
    """The client disconnected before its body was whole."""


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` giving the body read already first, then what the connection says next (a disconnect)."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def page_guard(app: ASGIApp, hosts: Iterable[str] = ()) -> Guard:
    """The page's guard: its own origin only, its body limit, its headers on every response."""
    return Guard(app, hosts, same_origin, MAX_BODY_BYTES, headers=HEADERS)
