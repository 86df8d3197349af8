"""Unit tests reach no server: a test that would start the embedded FalkorDB fails instead."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.services import Services, set_services


@pytest.fixture(autouse=True)
def _no_graph_server(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("a unit test tried to start the embedded FalkorDB: use the memory_kb fixture")

    monkeypatch.setattr("tools.kb.embedded.ensure_server", refuse)


@pytest.fixture
def active_kb(memory_kb: Services) -> Iterator[Services]:
    """Make the in-memory knowledge base the one graph nodes use."""
    set_services(memory_kb)
    yield memory_kb
    set_services(None)


@pytest.fixture
def reranker_dir(tmp_path: Path) -> Path:
    """A folder the reranker's loader takes for an installed model (tests replace what it loads)."""
    model_dir = tmp_path / "gemma"
    model_dir.mkdir()
    (model_dir / "modules.json").write_text("[]")
    return model_dir
