"""Unit tests reach one server, the session's embedded FalkorDB (each test's graph under a name of its own): a test
that would start another fails instead."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tools.kb import embedded
from tools.services import Services, set_services
from tools.settings import Settings


@pytest.fixture(autouse=True)
def _one_graph_server(monkeypatch: pytest.MonkeyPatch, kb_settings: Settings) -> None:
    ensure = embedded.ensure_server

    def session_only(data_dir: Path, *args: Any, **kwargs: Any) -> embedded.EmbeddedServer:
        if data_dir != kb_settings.falkordb_dir:
            raise AssertionError(f"a unit test tried to start a FalkorDB server in {data_dir}: use new_graph()")
        return ensure(data_dir, *args, **kwargs)

    monkeypatch.setattr("tools.kb.embedded.ensure_server", session_only)


@pytest.fixture
def active_kb(criminal_kb: Services) -> Iterator[Services]:
    """Make the unit tests' knowledge base the one graph nodes use."""
    set_services(criminal_kb)
    yield criminal_kb
    set_services(None)


@pytest.fixture
def reranker_dir(tmp_path: Path) -> Path:
    """A folder the reranker's loader takes for an installed model (tests replace what it loads)."""
    model_dir = tmp_path / "gemma"
    model_dir.mkdir()
    (model_dir / "modules.json").write_text("[]")
    return model_dir
