"""Line-numbered JSONL reading with errors that name the file and line."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tools.errors import CorpusError
from tools.text import read_utf8


def read_jsonl(path: Path, required: tuple[str, ...], what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; bad JSON, a non-object or a missing ``required`` key
    is a CorpusError such as ``cases.jsonl:7: a case needs articles``."""
    text = read_utf8(path, what.removeprefix("a ").removeprefix("an ") + " file", CorpusError)
    # Lines end at "\n" only: str.splitlines also splits at U+2028 and other separators JSON strings may hold.
    for number, raw_line in enumerate(text.split("\n"), 1):
        line = raw_line.removesuffix("\r")
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


def recorded_lines(path: Path) -> list[str]:
    """The lines of a record file kept in the repository: those of its gzip-compressed twin ``PATH.gz`` (how
    committed runs are stored), then those of ``PATH`` itself (what a resumed run appends); none when neither
    exists."""
    packed = path.with_name(path.name + ".gz")
    lines = gzip.decompress(packed.read_bytes()).decode("utf-8").splitlines() if packed.is_file() else []
    return lines + (path.read_text(encoding="utf-8").splitlines() if path.is_file() else [])
