"""The ``jurisgraph`` command: every command group registered on one Typer app, and the entry point."""

from __future__ import annotations

import errno
import os
import signal
import sqlite3
import sys

import typer

from app.cli import answer, evaluate, fit, graphrag, ingest, kb, kg, model, serve
from app.cli.console import err, shown
from tools.errors import JurisError, StoreUnavailableError
from tools.stop import STOP_GRACE_S, end_soon, request_stop, stop_requested

cli = typer.Typer(
    add_completion=False, no_args_is_help=True, help="JurisGraph: legal answers with verifiable citations."
)
model_cli = typer.Typer(no_args_is_help=True, help="Manage the embedded local model.")
kg_cli = typer.Typer(no_args_is_help=True, help="Inspect the knowledge graph.")
fit_cli = typer.Typer(no_args_is_help=True, help="Refit a parameter the package ships as data (weights, priors).")

cli.command()(ingest.ingest)
cli.command()(ingest.remove)
cli.command()(kb.checklists)
cli.command()(kb.vectors)
cli.command()(graphrag.index)
cli.command()(graphrag.search)
cli.command()(kb.communities)
cli.command()(answer.threads)
cli.add_typer(kg_cli, name="kg")
kg_cli.command("stats")(kg.kg_stats)
kg_cli.command("show")(kg.kg_show)
kg_cli.command("repair")(kg.kg_repair)
cli.command("judge")(answer.judge_cmd)
cli.command("laws")(kg.list_laws_cmd)
cli.command()(answer.ask)
cli.command()(serve.serve)
cli.command("api-key")(serve.api_key_cmd)
cli.command("eval")(evaluate.eval_cmd)
cli.command("replay")(evaluate.replay_cmd)
cli.add_typer(model_cli, name="model")
model_cli.command("install")(model.model_install)
model_cli.command("path")(model.model_path)
cli.add_typer(fit_cli, name="fit")
fit_cli.command("sources")(fit.fit_sources_cmd)
fit_cli.command("keeper")(fit.fit_keeper_cmd)
fit_cli.command("adapter")(fit.fit_adapter_cmd)
fit_cli.command("charges")(fit.fit_charges_cmd)
fit_cli.command("research")(fit.fit_research_cmd)
fit_cli.command("priors")(fit.fit_priors_cmd)
fit_cli.command("circumstances")(fit.fit_circumstances_cmd)


def _stop(_signum: int, _frame: object) -> None:
    # The flag reaches batch loops running in LangGraph worker threads; the exception, the main thread.
    # Typer turns the exception into exit code 130 without a word, so the message is printed here, plainly:
    # a handler printing through rich, while the main thread was importing rich's emoji table for its own
    # print, failed on the half-imported module and the run exited 1 instead of 130 (seen in CI).
    if stop_requested():  # a second signal: out now
        os._exit(130)
    request_stop()
    sys.stderr.write("interrupted: nothing is lost; re-run the same command to resume.\n")
    end_soon(STOP_GRACE_S)
    raise KeyboardInterrupt


_STORE_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT}
_STORE_HINT = "free disk space or fix the data dir's permissions, then run the command again (nothing is lost)"


def main() -> None:
    """Entry point: run the CLI, turning JurisErrors and interrupts into messages and exit codes."""
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    # What a command writes (threads, stores, caches, exports) is its user's alone.
    os.umask(0o077)
    try:
        cli()
    except JurisError as exc:
        err.print(f"[red]error:[/red] {shown(str(exc))}")
        sys.exit(exc.exit_code)
    except (OSError, sqlite3.Error) as exc:
        if isinstance(exc, OSError) and exc.errno not in _STORE_ERRNOS:
            raise
        # A full disk, a read-only or foreign data dir: the stores' own errors, as one line and exit code 3.
        err.print(f"[red]error:[/red] a local store could not be written: {shown(str(exc))}; {_STORE_HINT}")
        sys.exit(StoreUnavailableError.exit_code)
    except Exception as exc:
        if not type(exc).__module__.startswith("chromadb"):
            raise
        err.print(
            f"[red]error:[/red] the vector store failed: {shown(str(exc))}; run the command again (nothing is "
            "lost); if it fails again, `jurisgraph kg repair` rebuilds the vector store from the knowledge graph"
        )
        sys.exit(StoreUnavailableError.exit_code)
