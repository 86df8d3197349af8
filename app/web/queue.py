"""The page's runs, at most a few at once: the rest wait their turn in order, and each is told where it stands;
and at most one run writing each thread.

Sixty people asking at once started sixty runs: the process held hundreds of OS threads, the thread store's
writes collided, and every answer came slowly. A machine that runs a local model serves one or two runs well;
the others wait here, first come first served, and the page shows each its place in the queue.

Two follow-ups sent at once on one thread both ran from the same last checkpoint, and the second's write
replaced the first's turn (3 turns of 4 kept); two reviews sent at once both resumed the paused run, with
contradictory judgments. A thread therefore has one writer: a second run naming it while the first runs (or
waits) is refused with a 409 naming the first, and nothing is lost or applied twice.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from tools.errors import InputError

RUNS_AT_ONCE = 2
"""Runs the page's server works on at once: two cores and one local model serve about that many well."""


class RunQueue:
    """First come, first served turns for at most ``slots`` runs at once."""

    def __init__(self, slots: int = RUNS_AT_ONCE) -> None:
        self.slots = slots
        self.active = 0
        self._waiting: deque[object] = deque()
        self._turn = threading.Condition()

    def wait_turn(self, report: Callable[[int], None], gone: Callable[[], bool] = lambda: False) -> bool:
        """Wait until this run may start, calling ``report`` with the number of runs ahead of it whenever that
        changes (not at all when it starts at once); False, and no turn taken, when ``gone`` says its client left
        while it waited."""
        ticket = object()
        last = -1
        with self._turn:
            self._waiting.append(ticket)
            while not (self.active < self.slots and self._waiting[0] is ticket):
                ahead = self._waiting.index(ticket) + self.active - self.slots + 1
                if ahead != last:
                    report(max(ahead, 1))
                    last = ahead
                if gone():
                    self._waiting.remove(ticket)
                    self._turn.notify_all()
                    return False
                self._turn.wait(timeout=1.0)
            self._waiting.popleft()
            self.active += 1
            self._turn.notify_all()
            return True

    def done(self) -> None:
        """A run that had its turn has ended: the next may start."""
        with self._turn:
            self.active -= 1
            self._turn.notify_all()


class Busy(InputError):
    """A run named a thread another run is writing (a 409)."""


class ThreadClaims:
    """The threads runs are writing now, each with what writes it and since when."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def claim(self, thread: str, what: str) -> None:
        """Take ``thread`` for a run (``what``: "a question", "a review"), or :class:`Busy` naming the run that
        holds it."""
        with self._lock:
            if thread in self._held:
                holder, since = self._held[thread]
                raise Busy(
                    f"thread {thread} is busy: {holder} sent {time.monotonic() - since:.0f} s ago is still running; "
                    "send this one when its answer has come"
                )
            self._held[thread] = (what, time.monotonic())

    def release(self, thread: str) -> None:
        """The run writing ``thread`` has ended."""
        with self._lock:
            self._held.pop(thread, None)
