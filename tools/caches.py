"""Caches are disposable: a damaged cache file is reported in one warning line and rebuilt, never fatal."""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path

LOG = logging.getLogger("jurisgraph")


def discard_damaged(path: Path, what: str, exc: BaseException, keep: bool = False) -> None:
    """Warn that ``path`` (a ``what`` cache) could not be read and will be rebuilt; the file is removed, or
    with ``keep`` renamed beside itself (``<name>.damaged-<time>``) when it may be worth recovering."""
    moved = ""
    with contextlib.suppress(OSError):
        if keep:
            target = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d%H%M%S')}")
            path.rename(target)
            moved = f"; kept as {target.name}"
        else:
            path.unlink(missing_ok=True)
    LOG.warning("warning: the %s cache %s was damaged (%s); rebuilt%s", what, path, type(exc).__name__, moved)
