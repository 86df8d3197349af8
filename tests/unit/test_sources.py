"""A source is its file (issue 64): a second file of the same name, or one named like ``ask --remember``'s
answers, is refused before anything is written; the same file, re-run or moved, updates what it ingested."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tools.errors import InputError
from tools.kb.port import GraphStore
from tools.kb.sources import SourceRepository


def _file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_another_file_of_the_same_name_is_refused_naming_both(
    tmp_path: Path, new_graph: Callable[[], GraphStore]
) -> None:
    sources = SourceRepository(new_graph())
    first = _file(tmp_path / "files/dupA.jsonl", '{"id": "a"}\n')
    assert sources.claim("cases", first) == "dupA"
    assert sources.claim("cases", first) == "dupA"  # the same file again: a resumed or updated ingestion
    other = _file(tmp_path / "files/other/dupA.jsonl", '{"id": "b"}\n')
    with pytest.raises(InputError, match=r"'dupA' was ingested from another file, .*files/dupA.jsonl"):
        sources.claim("cases", other)
    assert sources.claim("consultations", other) == "dupA"  # kinds are apart: remove --source names which


def test_a_moved_file_is_the_same_source_and_a_removed_source_frees_its_name(
    tmp_path: Path, new_graph: Callable[[], GraphStore]
) -> None:
    sources = SourceRepository(new_graph())
    first = _file(tmp_path / "dupA.jsonl", '{"id": "a"}\n')
    sources.claim("cases", first)
    moved = first.rename(tmp_path / "elsewhere.jsonl").rename(_dir(tmp_path / "moved") / "dupA.jsonl")
    assert sources.claim("cases", moved) == "dupA"  # same bytes: the user moved it
    edited = _file(tmp_path / "dupA.jsonl", '{"id": "c"}\n')
    with pytest.raises(InputError, match="remove --source dupA"):
        sources.claim("cases", edited)
    sources.forget("cases", "dupA")
    assert sources.claim("cases", edited) == "dupA"


def test_the_remembered_answers_name_is_no_files(tmp_path: Path, new_graph: Callable[[], GraphStore]) -> None:
    sources = SourceRepository(new_graph(), reserved=frozenset({"remembered"}))
    with pytest.raises(InputError, match="ask --remember"):
        sources.claim("consultations", _file(tmp_path / "remembered.jsonl", "{}\n"))


def _dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
