"""What the repository keeps of measured runs: docs/results.md holds current figures only, benchmarks/runs only
the runs cited, compressed; a committed run is read (and resumed) as it was written."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from app.eval.runner import read_results

REPO = Path(__file__).resolve().parents[2]
RUNS = REPO / "benchmarks" / "runs"
RESULTS_LINES = 200
RUNS_BYTES = 10 * 2**20


def test_results_page_and_run_directories_stay_within_their_limits() -> None:
    assert len((REPO / "docs" / "results.md").read_text(encoding="utf-8").splitlines()) < RESULTS_LINES
    assert sum(p.stat().st_size for p in RUNS.rglob("*") if p.is_file()) < RUNS_BYTES
    assert not list(RUNS.rglob("*.png"))  # plots are redrawn by `jurisgraph eval --out`, not kept


def test_every_kept_run_is_cited_and_every_cited_run_is_kept() -> None:
    cited = set(re.findall(r"benchmarks/runs/(s\d+-[\w-]+)", (REPO / "docs" / "results.md").read_text("utf-8")))
    cited |= set(re.findall(r"`(s\d+-[\w-]+)`", (REPO / "docs" / "results.md").read_text("utf-8")))
    for fitted in [*REPO.glob("tools/*/*.json")]:
        cited |= set(re.findall(r"benchmarks/runs/(s\d+-[\w-]+)", fitted.read_text(encoding="utf-8")))
    kept = {p.name for p in RUNS.iterdir() if p.is_dir()}
    assert kept == cited


def test_a_compressed_run_is_read_and_a_resumed_one_appends_beside_it(tmp_path: Path) -> None:
    rows = [{"item_id": "a", "system": "full", "ok": True}, {"item_id": "b", "system": "full", "ok": True}]
    path = tmp_path / "results.jsonl"
    (tmp_path / "results.jsonl.gz").write_bytes(gzip.compress(json.dumps(rows[0]).encode() + b"\n"))
    assert read_results(path) == rows[:1]
    path.write_text(json.dumps(rows[1]) + "\n{torn", encoding="utf-8")  # a resumed run, killed mid-line
    assert read_results(path) == rows
    assert read_results(tmp_path / "none.jsonl") == []
