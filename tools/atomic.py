"""Files written whole or not at all."""

from __future__ import annotations

import os
import time
from pathlib import Path

_TEMP_SUFFIX = ".tmp"
_ABANDONED_AFTER_S = 3600
"""A temporary file this old was left by a killed writer: a write takes seconds."""


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed over it, so a killed process never leaves
    a truncated file under the name, and processes or threads writing the same path never share a temp
    file (the name carries the process id; a rename replaces whole files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}{_TEMP_SUFFIX}")
    tmp.write_bytes(data)
    tmp.replace(path)


def write_text_atomic(path: Path, text: str) -> None:
    """:func:`write_bytes_atomic` for UTF-8 text."""
    write_bytes_atomic(path, text.encode("utf-8"))


def being_written(path: Path) -> bool:
    """Whether ``path`` is the temporary file of a write that may still be in progress (another process's:
    removing it makes that write's rename fail), not one a killed writer left long ago."""
    if path.suffix != _TEMP_SUFFIX:
        return False
    try:
        return time.time() - path.stat().st_mtime <= _ABANDONED_AFTER_S
    except FileNotFoundError:
        return False
