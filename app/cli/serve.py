"""``jurisgraph serve``: the page a person uses, on this machine, with the models loaded once for every answer."""

from __future__ import annotations

import errno
import ipaddress
import socket
import threading
from typing import Annotated

import typer

from app.cli.console import err, shown
from tools.errors import InputError

DEFAULT_PORT = 8765
"""The page's port when none is given."""


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
    import uvicorn

    from app.threads import open_checkpointer, prune_threads
    from app.web.presence import announced, running_server
    from app.web.routes import page_app
    from tools.settings import load_settings

    settings = load_settings()
    if other := running_server(settings):
        # Two servers on one data dir would take turns over its server file, and the second's exit would delete it.
        raise InputError(f"a server already serves this data dir at {other}: stop it, or serve another data dir")
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
    with open_checkpointer(settings) as saver:  # every page question keeps a thread: the old ones go
        if pruned := prune_threads(saver, settings.thread_retention_days):
            err.print(f"pruned {len(pruned)} thread(s) older than {settings.thread_retention_days} days")
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
    err.print(f"JurisGraph page: {url}/  (Ctrl-C stops it)")
    server = uvicorn.Server(uvicorn.Config(page_app(hosts=[host]), host=host, port=port, log_level="warning"))
    with announced(settings, url):
        server.run()
    # uvicorn answers SIGINT and SIGTERM itself and returns: the server stopped as every command stops on a signal.
    raise typer.Exit(130)
