"""Conversation threads of the CLI: consult runs checkpointed in SQLite under the data dir, so
``jurisgraph ask --thread ID`` continues a conversation in a later process."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from app.settings import Settings


@contextmanager
def open_checkpointer(settings: Settings) -> Iterator[SqliteSaver]:
    """A SQLite checkpointer on the settings' threads file, closed on exit."""
    settings.threads_file.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(settings.threads_file, check_same_thread=False)
    try:
        yield SqliteSaver(conn)
    finally:
        conn.close()


def list_threads(saver: SqliteSaver, graph: Any) -> list[dict[str, Any]]:
    """Every thread with its number of turns and last question, most recently updated first."""
    latest: dict[str, str] = {}
    for checkpoint in saver.list(None):
        thread_id = str(checkpoint.config["configurable"]["thread_id"])
        latest.setdefault(thread_id, str(checkpoint.checkpoint["ts"]))
    threads = []
    for thread_id, ts in sorted(latest.items(), key=lambda item: item[1], reverse=True):
        values = graph.get_state({"configurable": {"thread_id": thread_id}}).values
        history = values.get("history", [])
        last = history[-1]["question"] if history else values.get("question", "")
        threads.append({"thread_id": thread_id, "updated": ts, "turns": len(history), "last_question": last})
    return threads
