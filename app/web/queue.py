"""The page's runs, at most a few at once: the rest wait their turn in order, and each is told where it stands.

Sixty people asking at once started sixty runs: the process held hundreds of OS threads, the thread store's
writes collided, and every answer came slowly. A machine that runs a local model serves one or two runs well;
the others wait here, first come first served, and the page shows each its place in the queue.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

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
