"""Which requests the page answers: its own, from its own origin, at the address it serves.

Any site a person visits can make their browser send a request to 127.0.0.1. A ``text/plain`` POST needs no
preflight, so without these checks it would start runs; and through DNS rebinding (attacker.example resolving to
127.0.0.1) a page of another origin would read the answers and resume reviews. So, before any route runs:
- the ``Host`` must name an address this server serves (127.0.0.1, localhost, ::1, or the ``--host`` given),
  else 421;
- a POST with an ``Origin`` must come from that same host, else 403; its body must be ``application/json``
  (which a cross-site form or a simple request cannot send without a preflight the server never grants), else
  415; and a ``Content-Length`` of at most :data:`MAX_BODY_BYTES`, else 413 (a body sent in chunks is counted
  as the routes read it).
Every response, the page's assets included, carries the page's headers (CSP, ``frame-ancestors``, ``nosniff``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The names this machine's own browser reaches a loopback server by."""
MAX_BODY_BYTES = 256 * 1024
"""Largest request body: a fact at its longest (20,000 characters, three bytes each) with room for the rest."""
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
"""The page runs only its own script: a question that smuggles markup past the escaping still runs nothing."""
HEADERS = {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


def host_name(host: str) -> str:
    """The name part of a ``Host`` header or an origin's netloc (``[::1]:8765`` -> ``::1``), lower-cased."""
    try:
        return (urlsplit(f"//{host}").hostname or "").lower()
    except ValueError:  # a malformed port or bracket
        return ""


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}, ensure_ascii=False).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class SameOrigin:
    """ASGI middleware that answers only requests for the served address from its own origin (module doc)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = frozenset(h.lower().strip("[]") for h in (*LOOPBACK_HOSTS, *hosts) if h)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            await _refuse(send, 421, f"this server answers {', '.join(sorted(self.hosts))}, not {host!r}")
            return
        if scope["method"] == "POST":
            problem = self._post_problem(headers, host)
            if problem:
                await _refuse(send, *problem)
                return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [
                    (k.lower().encode(), v.encode()) for k, v in HEADERS.items() if k.lower().encode() not in present
                ]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)

    @staticmethod
    def _post_problem(headers: Headers, host: str) -> tuple[int, str] | None:
        origin = headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return 403, f"a request from {origin} is not from this page"
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, f"the request body must be application/json, not {kind or 'untyped'}"
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return 413, f"the request body is over {MAX_BODY_BYTES} bytes"
        return None
