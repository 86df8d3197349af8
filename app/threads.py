"""Conversation threads of the CLI: consult runs checkpointed in SQLite under the data dir (or in PostgreSQL
when ``JURIS_CHECKPOINT_URI`` names one), so ``jurisgraph ask --thread ID`` continues a conversation in a
later process, on this machine or, with PostgreSQL, on a colleague's."""

from __future__ import annotations

import dataclasses
import importlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from tools.errors import InputError, StoreUnavailableError
from tools.settings import Settings

STORE_WAIT_S = 60.0
"""How long a write to the thread store waits for another writer's lock before it fails."""
MAX_THREAD_CHARS = 200
"""Longest thread id: a name a person types, not a document."""


def validate_thread_id(thread: str) -> str:
    """The id as given; an empty, over-long or id holding a line break or control character (printed by
    ``threads`` as a row of its own) is an InputError naming it."""
    if not thread.strip() or len(thread) > MAX_THREAD_CHARS:
        raise InputError(f"the thread id must hold 1 to {MAX_THREAD_CHARS} characters (got {len(thread)})")
    if any(not ch.isprintable() for ch in thread):
        raise InputError(f"the thread id {thread!r} holds a line break or control character: use letters and digits")
    return thread


STATE_MODULES = ("audit", "common", "consult", "global_search", "ingest", "judge")
"""The modules of ``agents.state``: what a checkpoint stores besides plain values is one of their dataclasses."""


def state_types() -> list[tuple[str, str]]:
    """(module, name) of every dataclass the graphs' states define: the types a checkpoint may hold."""
    found = set()
    for name in STATE_MODULES:
        module = importlib.import_module(f"agents.state.{name}")
        for attribute, value in vars(module).items():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                found.add((module.__name__, attribute))
    return sorted(found)


@cache
def serializer() -> JsonPlusSerializer:
    """The checkpoints' serializer with the graphs' own types registered: LangGraph warns of (and will refuse) an
    unregistered type read back from a checkpoint."""
    return JsonPlusSerializer(allowed_msgpack_modules=state_types())


@contextmanager
def open_checkpointer(settings: Settings, file: Path | None = None) -> Iterator[BaseCheckpointSaver[Any]]:
    """The threads' checkpointer (PostgreSQL if configured, else SQLite), or the SQLite ``file``'s when given;
    closed on exit."""
    if settings.checkpoint_uri and file is None:
        with _postgres_checkpointer(settings.checkpoint_uri) as saver:
            yield saver
        return
    path = file or settings.threads_file
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Many processes and the page's runs write here at once: a writer waits for the lock (up to a minute)
        # instead of failing the run after every step finished, and WAL lets readers go on beside it.
        conn = sqlite3.connect(path, check_same_thread=False, timeout=STORE_WAIT_S)
        conn.execute("PRAGMA journal_mode=WAL")
    except (OSError, sqlite3.Error) as exc:
        raise StoreUnavailableError(f"cannot open the conversation threads {path}: {exc}") from exc
    try:
        saver = SqliteSaver(conn, serde=serializer())
        # Its tables are made now, not inside the run: a read-only data dir is one line before any model call.
        saver.setup()
    except sqlite3.Error as exc:
        conn.close()
        raise StoreUnavailableError(f"cannot write the conversation threads {path}: {exc}") from exc
    try:
        yield saver
    finally:
        conn.close()


@contextmanager
def _postgres_checkpointer(uri: str) -> Iterator[BaseCheckpointSaver[Any]]:
    if not uri.startswith(("postgresql://", "postgres://")):
        raise InputError(f"JURIS_CHECKPOINT_URI must be a postgresql:// URI, got {uri.split('://')[0]!r}://…")
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as exc:
        raise StoreUnavailableError(
            "JURIS_CHECKPOINT_URI is set but the PostgreSQL checkpointer is not installed: "
            "pip install 'jurisgraph[postgres]'"
        ) from exc
    try:
        manager = PostgresSaver.from_conn_string(uri)
        saver = manager.__enter__()
        saver.serde = serializer()
        # Creates or migrates the checkpoint tables; idempotent, so every process may call it.
        saver.setup()
    except psycopg.Error as exc:
        # The URI may hold a password: name only the host part.
        where = uri.rsplit("@", 1)[-1]
        raise StoreUnavailableError(f"cannot open the PostgreSQL checkpointer at {where}: {exc}") from exc
    try:
        yield saver
    finally:
        manager.__exit__(None, None, None)


def _last_turns(saver: BaseCheckpointSaver[Any]) -> dict[str, str]:
    """Thread id -> the ISO time of its newest checkpoint."""
    latest: dict[str, str] = {}
    for checkpoint in saver.list(None):
        thread_id = str(checkpoint.config["configurable"]["thread_id"])
        ts = str(checkpoint.checkpoint["ts"])
        # SQLite lists newest first, PostgreSQL does not promise an order across threads.
        if ts > latest.get(thread_id, ""):
            latest[thread_id] = ts
    return latest


def list_threads(saver: BaseCheckpointSaver[Any], graph: Any) -> list[dict[str, Any]]:
    """Every thread with its number of turns and last question, most recently updated first."""
    threads = []
    for thread_id, ts in sorted(_last_turns(saver).items(), key=lambda item: item[1], reverse=True):
        values = graph.get_state({"configurable": {"thread_id": thread_id}}).values
        history = values.get("history", [])
        last = history[-1]["question"] if history else values.get("question", "")
        threads.append({"thread_id": thread_id, "updated": ts, "turns": len(history), "last_question": last})
    return threads


def prune_threads(saver: BaseCheckpointSaver[Any], days: int, now: datetime | None = None) -> list[str]:
    """Delete every thread whose last turn is more than ``days`` days old (none when ``days`` is 0); the ids
    deleted, oldest first. Every page question keeps a thread, so without this the store only grows."""
    if days <= 0:
        return []
    cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
    latest = {thread_id: datetime.fromisoformat(ts) for thread_id, ts in _last_turns(saver).items()}
    old = sorted((ts, thread_id) for thread_id, ts in latest.items() if ts < cutoff)
    for _, thread_id in old:
        saver.delete_thread(thread_id)
    return [thread_id for _, thread_id in old]
