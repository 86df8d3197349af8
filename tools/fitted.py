"""Fitted parameters as data: JSON files shipped with the package, each holding its values and their
provenance (the data files' sha256, the half fitted on, the code's commit, the command that refits it).
Nodes load them; `jurisgraph fit …` writes them."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tools.atomic import write_text_atomic
from tools.errors import InputError


def read_fitted(path: Path) -> dict[str, Any]:
    """The values of a fitted-parameter file (its ``provenance`` left out)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"fitted parameters {path} unreadable: {exc}") from exc
    return {key: value for key, value in data.items() if key != "provenance"}


def provenance(data_files: Sequence[Path], half: str, command: str, **details: Any) -> dict[str, Any]:
    """What a refit records: the half it saw, the data files' sha256, the commit and the command."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout
    return {
        "fitted_on": half,
        "data_sha256": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in data_files},
        "commit": commit.strip(),
        "command": command,
        **details,
    }


def write_fitted(path: Path, values: Mapping[str, Any], source: Mapping[str, Any]) -> None:
    """Write ``values`` with their provenance ``source`` (atomically: a reader never sees half a file)."""
    text = json.dumps({**values, "provenance": dict(source)}, ensure_ascii=False, indent=2) + "\n"
    write_text_atomic(path, text)
