"""Cooperative stop for long batch loops.

A node of a LangGraph run may execute in a worker thread, where a KeyboardInterrupt never arrives: the
main thread's interrupt then waits for the node to finish its whole loop. The CLI's signal handler sets
this flag as well, and loops check it between batches, so Ctrl-C or SIGTERM stops a long ingestion after
the batch in hand is stored (nothing half-written, and a re-run resumes from there).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from tools.errors import JurisError

_requested = threading.Event()

STOP_GRACE_S = 4.5
"""Seconds a stopped command gets to finish the batch in hand before it ends anyway (the README promises an
exit within five seconds; leaving the process takes a few tenths more). One embedding or model
call cannot be interrupted (a 3-million-character case kept one busy for minutes), and every write is atomic
and every ingestion resumable, so ending mid-batch loses that batch only: a re-run redoes it."""


class StopRequested(JurisError):
    """The user asked the process to stop; everything finished so far is stored."""

    exit_code = 130


def request_stop() -> None:
    """Ask every loop that checks the flag to stop at its next batch boundary."""
    _requested.set()


def stop_requested() -> bool:
    """Whether a stop was requested (a second signal means: now)."""
    return _requested.is_set()


def end_soon(seconds: float, end: Callable[[int], object] = os._exit) -> threading.Timer:
    """End the process with exit code 130 after ``seconds``, unless it has ended by then."""
    timer = threading.Timer(seconds, end, args=(130,))
    timer.daemon = True
    timer.start()
    return timer


def clear_stop() -> None:
    """Forget an earlier request (a new run in the same process starts afresh)."""
    _requested.clear()


def raise_if_stopped() -> None:
    """Raise ``StopRequested`` when a stop was requested; called after each stored batch."""
    if _requested.is_set():
        raise StopRequested("stopped on request after the last stored batch; re-run the same command to resume")
