"""``jurisgraph serve``: the page a person uses, on this machine, with the models loaded once for every answer."""

from __future__ import annotations

import errno
import ipaddress
import os
import socket
import sys
import threading
from typing import Annotated

import typer

from app.cli.console import err, shown
from tools.errors import InputError
from tools.settings import Settings

DEFAULT_PORT = 8765
"""The page's port when none is given."""
STOP_GRACE_S = 2
"""Seconds a stopping server gives the requests in flight before it cancels them (it must end within five)."""


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _warm_up() -> None:
    """Load the KB's indexes, the embedding models and the chat model now, not in the first person's answer."""
    from agents.common.models import chat_model
    from agents.context import ConsultContext
    from app.cli.answer import require_statutes
    from tools.errors import JurisError

    try:
        require_statutes()
        chat_model(ConsultContext(), "draft")
    except JurisError as exc:  # the page names it again on each question, where the person sees it
        err.print(f"[yellow]warning:[/yellow] {shown(str(exc))}")


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on; 127.0.0.1 keeps the page on this machine.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = DEFAULT_PORT,
) -> None:
    """Serve the page (ask a question, judge a fact, see the evidence) at http://HOST:PORT/; while it runs,
    `jurisgraph ask` on the same data dir sends its question here and answers from the warm models."""
    from app.web.presence import sole_server
    from tools.settings import load_settings

    settings = load_settings()
    # Two servers on one data dir would take turns over its server file, and the second's exit would delete it.
    with sole_server(settings):
        _serve(settings, host, port)
    # uvicorn answers SIGINT and SIGTERM itself and returns: the server stopped as every command stops on a signal.
    # Out now, past the interpreter's teardown: every store is written as it goes and the server file is gone, and
    # a native library torn down after the stop crashed the process now and then (exit -11 instead of 130, seen in
    # tests/integration/test_page.py).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _serve(settings: Settings, host: str, port: int) -> None:
    import uvicorn

    from app.threads import open_checkpointer, prune_threads
    from app.web.presence import announced
    from app.web.routes import page_app

    if not _loopback(host):
        err.print(
            f"[yellow]warning:[/yellow] listening on {shown(host)}: anyone who reaches it can ask and read answers"
        )
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise InputError(f"port {port} on {host} is in use: give another with --port") from exc
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    for store in (None, settings.reviews_file):  # every page question keeps a thread: the old ones go
        with open_checkpointer(settings, store) as saver:
            if pruned := prune_threads(saver, settings.thread_retention_days):
                err.print(f"pruned {len(pruned)} thread(s) older than {settings.thread_retention_days} days")
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
    err.print(f"JurisGraph page: {url}/  (Ctrl-C stops it)")
    app = page_app(hosts=[host, *settings.allowed_hosts])
    # A stop waits this long for runs and uploads in flight, then cancels them: a client sending its body slowly
    # kept the server up for 40 s. What a run finished is in its thread already.
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=STOP_GRACE_S)
    with announced(settings, url):
        uvicorn.Server(config).run()


def api_key_cmd(
    owner: Annotated[str, typer.Option(help="Whose threads the key creates and sees (letters, digits, - or _).")] = (
        "local"
    ),
) -> None:
    """Print the key a LangGraph API client sends to `langgraph dev` on this data dir (Authorization: Bearer KEY):
    each owner sees the threads its key created, and nobody without the data dir can make one."""
    from app.web.keys import api_key
    from tools.settings import load_settings

    print(api_key(load_settings(), owner))
