from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tools.errors import ModelUnavailableError
from tools.llm.model_files import assemble_model


def _parts(tmp_path: Path) -> tuple[list[Path], str]:
    chunks = [b"GGUF" + bytes(range(256)) * 3, b"middle" * 1000, b"tail"]
    parts = []
    for i, chunk in enumerate(chunks, 1):
        part = tmp_path / f"part{i:02d}.bin"
        part.write_bytes(chunk)
        parts.append(part)
    return parts, hashlib.sha256(b"".join(chunks)).hexdigest()


def test_parts_are_concatenated_in_order_and_verified(tmp_path: Path) -> None:
    parts, sha = _parts(tmp_path)
    seen: list[int] = []
    dest = assemble_model(tmp_path / "m" / "model.gguf", parts, sha, on_bytes=seen.append)
    assert dest.read_bytes() == b"".join(p.read_bytes() for p in parts)
    assert sum(seen) == dest.stat().st_size
    # A verified copy is not rebuilt.
    seen.clear()
    assemble_model(dest, parts, sha, on_bytes=seen.append)
    assert seen == []


def test_a_wrong_checksum_leaves_no_model_file(tmp_path: Path) -> None:
    parts, _ = _parts(tmp_path)
    dest = tmp_path / "model.gguf"
    with pytest.raises(ModelUnavailableError, match="expected 0000"):
        assemble_model(dest, parts, "0" * 64)
    assert not dest.exists()
    assert not list(tmp_path.glob("*.partial"))
