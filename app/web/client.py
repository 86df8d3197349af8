"""``jurisgraph ask`` through a running ``jurisgraph serve``: the question goes to the warm server, its progress
and answer come back as the page's events, and the CLI prints them as if it had run the graph itself."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

from app.web.keys import thread_key
from tools.errors import InputError, JurisError
from tools.settings import load_settings

READ_TIMEOUT_S = 1800.0
"""Longest wait for the server's next event: one slow local-model call, with room to spare."""


class ServerError(JurisError):
    """What the server said went wrong, with the exit code the same failure has in-process."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def events(response: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of a server-sent event stream, as they arrive."""
    name, data = "message", ""
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data += line[6:]
        elif not line and data:
            yield name, json.loads(data)
            name, data = "message", ""


def ask_server(url: str, question: str, thread: str | None, progress: Callable[[str], None]) -> dict[str, Any]:
    """The consult graph's output for ``question`` (in ``thread``), run by the server at ``url``; each
    progress line goes to ``progress`` as it comes."""
    # Without a thread the answer is not kept as a conversation, as `ask` without --thread keeps none. A thread the
    # CLI names is reached with the key only a process that reads the data dir can make.
    key = thread_key(load_settings(), thread) if thread else None
    request_body = {"question": question, "thread": thread, "key": key, "keep": thread is not None, "raw": True}
    body = json.dumps(request_body, ensure_ascii=False).encode()
    request = urllib.request.Request(
        f"{url}/api/ask", data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        response = urllib.request.urlopen(request, timeout=READ_TIMEOUT_S)
    except urllib.error.HTTPError as exc:
        if exc.code == 422:
            raise InputError(json.loads(exc.read() or b"{}").get("error", exc.reason)) from exc
        raise ServerError(f"the server at {url} answered {exc.code} {exc.reason}", 1) from exc
    with response:
        for name, data in events(response):
            if name in ("step", "writing"):
                progress(data["text"])
            elif name == "error":
                raise ServerError(data["message"], int(data.get("exit_code", 1)))
            elif name == "answer":
                return dict(data["out"])
    raise ServerError(f"the server at {url} ended the answer early: see its log", 1)
