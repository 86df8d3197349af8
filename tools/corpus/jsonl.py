"""Line-numbered JSONL reading with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tools.errors import CorpusError


def read_jsonl(path: Path, required: tuple[str, ...], what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; bad JSON, a non-object or a missing ``required`` key
    is a CorpusError such as ``cases.jsonl:7: a case needs articles``."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise CorpusError(f"{path}:{number}: expected a JSON object")
        missing = [key for key in required if key not in row]
        if missing:
            raise CorpusError(f"{path}:{number}: {what} needs {', '.join(missing)}")
        yield number, row
