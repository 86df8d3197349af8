"""Who may use the LangGraph API `langgraph dev` serves, and which threads each caller sees (langgraph.json
``auth``).

Without it the server ran with ``auth of type=noop``: any caller, any page a person visited through their
browser, listed every thread with its question. Now every request brings ``Authorization: Bearer KEY`` (or
``X-Api-Key: KEY``), a key
made from the data dir's secret (``jurisgraph api-key [--owner NAME]`` prints it; a process that cannot read the
data dir cannot make one), and what it creates (threads, runs, crons, assistants) is its owner's: reads, searches,
updates and deletes see the owner's own only, and the store's namespaces start with the owner. The default
assistants of langgraph.json's graphs are everyone's to read. LangGraph Studio, which cannot hold the key, comes
in as LangGraph documents (its ``x-auth-scheme: langsmith`` requests, from its origin only: app/server.py) as one
more owner, "langgraph-studio-user", who sees the threads Studio made and no others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from app.web.keys import api_owner
from app.web.presence import data_dir_id
from tools.settings import load_settings

auth = Auth()


@auth.authenticate
async def authenticate(authorization: str | None, headers: Mapping[bytes, bytes]) -> Auth.types.MinimalUserDict:
    """The caller, by the owner its key names (``Authorization: Bearer KEY``, or ``X-Api-Key: KEY`` as
    agent-chat-ui sends the key pasted in its API key field); no key, or one the data dir's secret did not make, is
    a 401."""
    scheme, _, key = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        key = headers.get(b"x-api-key", b"").decode("utf-8", "replace")
    # The secret is a file of the data dir: read off the event loop (`langgraph dev` refuses blocking calls on it).
    owner = await asyncio.to_thread(_owner, key) if key else None
    if owner is None:
        raise Auth.exceptions.HTTPException(
            status_code=401,
            detail="send Authorization: Bearer KEY; `jurisgraph api-key` prints the key of this data dir",
        )
    return {"identity": owner}


def _owner(key: str) -> str | None:
    """The caller's identity: the key's owner on this data dir (``alice@3f2a…``). The server keeps its threads in
    its working directory, not the data dir, so two data dirs' "local" owners must not be one."""
    settings = load_settings()
    owner = api_owner(settings, key)
    return None if owner is None else f"{owner}@{data_dir_id(settings)}"


@auth.on.assistants.read
async def read_assistants(ctx: Auth.types.AuthContext, value: Any) -> None:
    """The graphs' assistants are everyone's to read: their configuration holds nobody's question."""


@auth.on.assistants.search
async def search_assistants(ctx: Auth.types.AuthContext, value: Any) -> None:
    """As :func:`read_assistants`."""


@auth.on.store
async def own_namespace(ctx: Auth.types.AuthContext, value: Any) -> None:
    """A store item lives under its owner's namespace: ``(owner, …)``."""
    namespace = tuple(value.get("namespace") or ())
    if not namespace or namespace[0] != ctx.user.identity:
        raise Auth.exceptions.HTTPException(status_code=403, detail="a store namespace must start with its owner")


@auth.on
async def owned(ctx: Auth.types.AuthContext, value: Any) -> dict[str, str]:
    """Everything else: what is created is marked its owner's, and every read, search, update or delete is
    filtered to the caller's own."""
    mine = {"owner": ctx.user.identity}
    if isinstance(value, dict):
        if value.get("metadata") is None:
            value["metadata"] = {}
        if isinstance(value["metadata"], dict):
            value["metadata"].update(mine)  # in place: the server may hold the dict already
    return mine
