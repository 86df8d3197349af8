"""Where the CLI writes: the answer on stdout, progress and notes on stderr; progress bars and boxed text."""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from tools.text import visible


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # The reader closed the pipe (`jurisgraph ask … | head`): it took what it wanted, so the run succeeded;
        # rich's default ends it with 1 and no word, which reads as an unexplained failure.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0)


def shown(text: str) -> str:
    """Text from a user, a file or a model as the terminal may print it: rich markup escaped, control
    characters written out."""
    return escape(visible(text))


# Piped output is not cut to 80 columns: tables in logs and files stay readable.
console = _Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, soft_wrap=True)


class _Progress(Progress):
    """Progress bars on a terminal; elsewhere (nohup, CI logs) one line per task each tenth of the way, so a
    long background run shows how far it got."""

    def __init__(self) -> None:
        super().__init__(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            disable=not err.is_terminal,
        )
        self._tenths: dict[TaskID, int] = {}

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._log(task_id)

    def update(self, task_id: TaskID, **kwargs: Any) -> None:
        super().update(task_id, **kwargs)
        self._log(task_id)

    def _log(self, task_id: TaskID) -> None:
        task = next(t for t in self.tasks if t.id == task_id)
        if not self.disable or not task.total:
            return
        tenth = int(10 * task.completed / task.total)
        if tenth > self._tenths.get(task_id, 0):
            self._tenths[task_id] = tenth
            elapsed = task.elapsed or 0.0
            err.print(f"{task.description}: {task.completed:.0f}/{task.total:.0f} after {elapsed:.0f} s")


def progress_bars() -> Progress:
    """Progress bars for a long command (see :class:`_Progress`)."""
    return _Progress()


def print_panel(text: str, title: str) -> None:
    """Text in a titled box, wrapped inside it: the console's soft wrap (which keeps evidence lines whole for
    copying) would crop every line of a box at its edge, and judgments printed one line of their reasoning."""
    console.print(Panel(shown(text), title=shown(title), title_align="left"), soft_wrap=False)


def print_usage(out: dict[str, Any]) -> None:
    """LLM calls, tokens and time per stage of a run, on stderr."""
    usage = out["usage"]
    stages = ", ".join(f"{e['node']} {e['ms'] / 1000:.1f}s" for e in out["trace"])
    cached = f" ({usage['cached_prompt_tokens']} of them cached)" if "cached_prompt_tokens" in usage else ""
    err.print(
        f"[dim]LLM calls {usage['llm_calls']}, tokens {usage['prompt_tokens']} prompt{cached} + "
        f"{usage['completion_tokens']} completion; {stages}[/dim]"
    )
