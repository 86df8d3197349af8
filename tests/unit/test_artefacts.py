"""The build inputs under artefacts/ are exactly those its manifest lists, with the sizes and digests it
records, and the Makefile reads them from there."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARTEFACTS = REPO / "artefacts"


def test_every_build_input_is_listed_and_matches_its_manifest() -> None:
    listed = json.loads((ARTEFACTS / "manifest.json").read_text(encoding="utf-8"))["files"]
    present = {p.name for p in ARTEFACTS.iterdir()} - {"manifest.json", "README.md"}
    assert {entry["file"] for entry in listed} == present
    for entry in listed:
        data = (ARTEFACTS / entry["file"]).read_bytes()
        assert len(data) == entry["bytes"], entry["file"]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
        assert entry["what"] and entry["rebuild"]


def test_the_makefile_reads_build_inputs_from_artefacts_only() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "benchmarks/runs" not in makefile
    assert "artefacts/kb-judge-vectors.npz" in makefile
