"""The page's runs wait their turn, first come first served, and each hears how many are ahead of it."""

from __future__ import annotations

import threading
import time

from app.web.queue import RunQueue


def test_runs_beyond_the_slots_wait_in_order_and_hear_their_place() -> None:
    runs = RunQueue(slots=1)
    assert runs.wait_turn(lambda ahead: None)  # the first starts at once
    heard: dict[str, list[int]] = {"b": [], "c": []}
    order: list[str] = []

    def later(name: str) -> None:
        assert runs.wait_turn(heard[name].append)
        order.append(name)
        time.sleep(0.05)
        runs.done()

    b = threading.Thread(target=later, args=("b",))
    b.start()
    time.sleep(0.2)
    c = threading.Thread(target=later, args=("c",))
    c.start()
    time.sleep(0.2)
    assert heard == {"b": [1], "c": [2]} and runs.active == 1
    runs.done()  # the first ends: b, then c
    b.join(5)
    c.join(5)
    assert order == ["b", "c"] and heard["c"] == [2, 1] and runs.active == 0


def test_a_run_whose_client_left_while_it_waited_never_starts() -> None:
    runs = RunQueue(slots=1)
    assert runs.wait_turn(lambda ahead: None)
    left = threading.Event()
    started: list[bool] = []
    waiter = threading.Thread(target=lambda: started.append(runs.wait_turn(lambda ahead: None, left.is_set)))
    waiter.start()
    time.sleep(0.1)
    left.set()
    waiter.join(5)
    assert started == [False] and runs.active == 1
    runs.done()
    assert runs.wait_turn(lambda ahead: None) and runs.active == 1  # the queue is not stuck behind it
