"""One runner for the answering commands (ask, judge, search): live progress, threads and human review."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import typer
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from rich.markup import escape

from agents.context import AuditContext, Context
from app.cli.console import err
from app.progress import follow
from app.threads import open_checkpointer, validate_thread_id
from tools.settings import load_settings


def run_with_status(
    graph: Any, request: Any, context: Context, live: bool, config: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run a graph, showing its stages as they finish (custom stream) and the final answer as the model
    writes it (messages stream) when ``live``; returns the output."""
    out: dict[str, Any] = {}
    with err.status("starting…", spinner="dots") if live else nullcontext() as status:
        for kind, payload in follow(graph, request, context, config, live):
            if kind == "output":
                out = payload
            elif status is not None:
                status.update(escape(payload))
    return out


def review(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """Ask the person at the terminal to accept or override each borderline verdict."""
    answers: dict[str, Any] = {}
    for verdict in verdicts:
        err.print(
            f"[bold]Review {escape(verdict['article_id'])}[/bold]: the model proposes "
            f"{'APPLICABLE' if verdict['applicable'] else 'NOT applicable'} ({escape(verdict['reason'])})"
        )
        for check in verdict["checks"]:
            mark = "[green]✓[/green]" if check["holds"] else "[red]✗[/red]"
            err.print(f"  {mark} {escape(check['item'])} — {escape(check['reason'])}")
        if typer.confirm("Accept this verdict?", default=True, err=True):
            continue
        reason = typer.prompt("Your reason", default="人工复核", err=True)
        answers[verdict["article_id"]] = {"applicable": not verdict["applicable"], "reason": reason}
    return answers


def run_reviewed(graph: Any, request: Any, context: AuditContext, live: bool, config: dict[str, Any]) -> dict[str, Any]:
    """Run a graph with a checkpointer, answering its review interrupts at the terminal until it finishes."""
    out = run_with_status(graph, request, context, live, config)
    while pending := graph.get_state(config).interrupts:
        resume = {item.id: review(item.value["verdicts"]) for item in pending}
        out = run_with_status(graph, Command(resume=resume), context, live, config)
    return out


def run_graph(
    build: Callable[..., Any],
    request: Any,
    context: AuditContext,
    live: bool,
    thread: str | None = None,
    check: Callable[[], None] = lambda: None,
) -> dict[str, Any]:
    """Run the graph ``build(checkpointer=...)`` compiles: in a kept conversation thread when ``thread`` names
    one, and with borderline verdicts reviewed at the terminal when ``context.human_review`` is on (a review
    pauses the run, so it needs a checkpointer: the thread's, or one in memory). ``check`` runs once the
    checkpointer is open, just before the graph: a thread store that is down is reported first."""
    if thread is not None:
        validate_thread_id(thread)
    if thread is None and not context.human_review:
        check()
        return run_with_status(build(), request, context, live)
    config = {"configurable": {"thread_id": thread or "review"}}
    with open_checkpointer(load_settings()) if thread else nullcontext(InMemorySaver()) as saver:
        check()
        graph = build(checkpointer=saver)
        if context.human_review:
            return run_reviewed(graph, request, context, live, config)
        return run_with_status(graph, request, context, live, config)
