"""Where a running ``jurisgraph serve`` says it listens: a file in the data dir it serves, while it runs.

``jurisgraph ask`` reads it to send its question to the warm server instead of loading every model again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from tools.errors import InputError
from tools.settings import Settings

SERVER_FILE = "serve.json"
"""The file, under the data dir, naming the server's process and address."""
LOCK_FILE = "serve.lock"
"""Held (an exclusive ``flock``) by the one server of the data dir for its whole life."""
SERVICE = "jurisgraph"
"""What the page's ``/api/health`` names itself, so a port another program took over is not asked."""
HEALTH_TIMEOUT_S = 2.0
"""How long ``ask`` waits for a listed server to say it is there before answering in-process."""


def data_dir_id(settings: Settings) -> str:
    """The data dir as ``/api/health`` names it: a digest of its resolved path, so ``ask`` can tell that a server
    serves its data dir while nobody who asks learns where that is."""
    return hashlib.sha256(str(settings.data_dir.resolve()).encode()).hexdigest()[:16]


@contextmanager
def sole_server(settings: Settings) -> Iterator[None]:
    """Hold the data dir's server lock while the block runs, or refuse (InputError) when another server holds it.
    Two servers started at the same instant both found no server file, and the second failed on the thread store
    with "database is locked"; the lock is taken before anything else, and the kernel frees it when a server
    dies, even by -9."""
    path = settings.data_dir / LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = running_server(settings)
            where = f"at {other}" if other else "(it is starting)"
            raise InputError(
                f"a server already serves this data dir {where}: stop it, or serve another data dir"
            ) from None
        yield
    finally:
        os.close(descriptor)  # closing frees the lock


@contextmanager
def announced(settings: Settings, url: str) -> Iterator[None]:
    """The server file names this process and ``url`` while the block runs; removed after, if still ours."""
    path = settings.data_dir / SERVER_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{SERVER_FILE}.{os.getpid()}")
    partial.write_text(json.dumps({"pid": os.getpid(), "url": url}), encoding="utf-8")
    partial.replace(path)  # whole or not at all: a reader never sees half a file
    try:
        yield
    finally:
        with suppress(OSError, ValueError):
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()


def running_server(settings: Settings) -> str | None:
    """The URL of a ``jurisgraph serve`` on this data dir that answers now, or None."""
    try:
        listed = json.loads((settings.data_dir / SERVER_FILE).read_text(encoding="utf-8"))
        pid, url = int(listed["pid"]), str(listed["url"])
        os.kill(pid, 0)  # a server killed with -9 left its file behind
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=HEALTH_TIMEOUT_S) as response:
            health = json.loads(response.read())
    except (OSError, ValueError):
        return None
    if health.get("service") != SERVICE or health.get("data_dir") != data_dir_id(settings):
        return None
    return url
