"""Which file each ingested case or consultation source came from: (:Source {kind, name, path, sha256}).

A source is named by its file's name (``remove --source NAME``), but it is the file: a second file of the same
name elsewhere, or one named like the answers ``ask --remember`` keeps, would otherwise replace what the first
ingested, silently and with exit 0.
"""

from __future__ import annotations

from pathlib import Path

from tools.errors import InputError
from tools.kb.port import GraphStore
from tools.llm.model_files import sha256_of

_GET = "MATCH (s:Source {kind: $kind, name: $name}) RETURN s.path AS path, s.sha256 AS sha256"
_SET = "MERGE (s:Source {kind: $kind, name: $name}) SET s.path = $path, s.sha256 = $sha256"
_FORGET = "MATCH (s:Source {kind: $kind, name: $name}) DELETE s"


class SourceRepository:
    """Source records on any :class:`GraphStore`."""

    def __init__(self, store: GraphStore, reserved: frozenset[str] = frozenset()) -> None:
        self.store = store
        self.reserved = reserved
        """Source names no file may take (the answers ``ask --remember`` keeps)."""

    def claim(self, kind: str, path: Path) -> str:
        """The source name of ``path`` (its name without .jsonl), recorded as this file's: the same file again (by
        resolved path, or by content when it was moved) updates what it ingested; another file of that name is
        an InputError naming both, before anything is written."""
        name, where = path.stem, path.resolve()
        if name in self.reserved:
            raise InputError(
                f"{path}: the source name {name!r} is kept for answers `ask --remember` stored; rename the file"
            )
        digest = sha256_of(where)
        rows = self.store.read(_GET, {"kind": kind, "name": name})
        if rows and rows[0]["path"] not in (None, str(where)) and rows[0]["sha256"] != digest:
            raise InputError(
                f"{path}: the {kind} source {name!r} was ingested from another file, {rows[0]['path']}; rename this "
                f"one, or `jurisgraph remove --source {name}` first to replace it"
            )
        self.store.query(_SET, {"kind": kind, "name": name, "path": str(where), "sha256": digest})
        return name

    def forget(self, kind: str, name: str) -> None:
        """Drop the record of a removed source, so a file of that name may be ingested anew."""
        self.store.query(_FORGET, {"kind": kind, "name": name})
