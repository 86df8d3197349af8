"""Who may reach a conversation through the page: whoever holds its thread's key.

A thread id alone would let anyone who learns or guesses it read the whole conversation (earlier questions, names,
ID numbers) and continue it. The page gets each thread's key when the thread starts (the ``thread`` event) and
keeps it; every later request naming the thread must bring it. A key is an HMAC of the thread id under a secret
kept in the data dir (``page.key``, readable by its owner only), so a thread the CLI named (``ask --thread t1``) is
reachable from the web only by a process that can read the data dir: ``jurisgraph ask`` through ``serve`` can,
another site's page cannot. The secret outlives a restart, so a page's threads do too.

The same secret makes the LangGraph API's keys (``jurisgraph api-key``): under `langgraph dev` a thread is its
creator's, and the key names the creator (app/auth.py).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from functools import lru_cache
from pathlib import Path

from tools.errors import InputError
from tools.settings import Settings

KEY_FILE = "page.key"
"""The secret's file, under the data dir."""


class Forbidden(InputError):
    """A request for a thread without its key (a 403: it says nothing of whether the thread exists)."""


@lru_cache(maxsize=8)
def _secret(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # made before, or by another process just now: theirs is the secret
        text = path.read_text(encoding="ascii").strip()
        if not text:  # the other process has not written it yet
            raise InputError(f"{path} is being written: try again") from None
        return bytes.fromhex(text)
    value = secrets.token_bytes(32)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(value.hex())
    return value


def thread_key(settings: Settings, thread: str) -> str:
    """The key that reaches ``thread`` through the page of the server on ``settings``' data dir."""
    secret = _secret(settings.data_dir.resolve() / KEY_FILE)
    return hmac.new(secret, thread.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def check_key(settings: Settings, thread: str, key: object) -> None:
    """Refuse (:class:`Forbidden`) a request naming ``thread`` without its key."""
    if not isinstance(key, str) or not hmac.compare_digest(key, thread_key(settings, thread)):
        raise Forbidden(f"thread {thread} is not this page's: its key is missing or wrong")


_OWNER = r"[A-Za-z0-9_-]{1,64}"
API_KEY_FORMAT = re.compile(rf"({_OWNER})\.([0-9a-f]{{32}})")
"""``OWNER.DIGEST``: whose key it is, and the HMAC that proves the data dir's secret made it."""


def api_key(settings: Settings, owner: str) -> str:
    """The key that makes ``owner`` the owner of the LangGraph API threads it creates (app/auth.py)."""
    if not re.fullmatch(_OWNER, owner):
        raise InputError(f"the owner {owner!r} must be 1 to 64 letters, digits, '-' or '_'")
    return f"{owner}.{thread_key(settings, f'api-owner:{owner}')}"


def api_owner(settings: Settings, key: str) -> str | None:
    """Whose ``key`` is (:func:`api_key`), or None when the data dir's secret did not make it."""
    match = API_KEY_FORMAT.fullmatch(key.strip())
    if match is None or not hmac.compare_digest(api_key(settings, match.group(1)), match.group(0)):
        return None
    return match.group(1)
