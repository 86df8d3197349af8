"""Runs systems over task items, one JSONL line per (item, system), resumable and failure-tolerant.

A line is appended and flushed as soon as a prediction is made, so an interrupted run loses at most the
item in flight; re-running with the same --out skips every (item, system) pair already recorded. An item
that raises is recorded with its error and the run goes on.

Lines hold item ids, never the items' text or gold labels (those stay in the data file and are attached
when the file is read): a run directory may be committed with the code and resumed in a later session.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from app.eval.systems import System
from app.eval.tasks import gold_articles
from tools.corpus.jsonl import recorded_lines
from tools.errors import InputError, JurisError
from tools.stop import StopRequested

Result = dict[str, Any]


def read_results(path: Path) -> list[Result]:
    """Results recorded so far (a committed run's ``results.jsonl.gz`` too); a torn last line (killed mid-write) is
    ignored and rewritten later."""
    results = []
    for line in recorded_lines(path):
        try:
            results.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return results


def _line(result: Result) -> str:
    return json.dumps({k: v for k, v in result.items() if k != "gold"}, ensure_ascii=False) + "\n"


RUNS_DIR = "benchmarks/runs"
"""Where eval runs are committed with the code (relative to the repository root)."""


@lru_cache(maxsize=1)
def code_version() -> str:
    """The commit the code under test comes from (``+dirty`` with uncommitted changes), stamped on every
    result line: a run resumed across sessions may mix code versions, and its summary must say so."""
    root = Path(__file__).resolve().parents[2]
    try:
        git = ["git", "-C", str(root)]
        head = subprocess.run([*git, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True)
        # Committed run directories change as a run writes them; they are results, not the code under test.
        status = [*git, "status", "--porcelain", "--untracked-files=no", "--", ".", f":!{RUNS_DIR}"]
        dirty = subprocess.run(status, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        try:
            return f"jurisgraph {version('jurisgraph')}"
        except PackageNotFoundError:
            return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def gold_of(item: dict[str, Any]) -> dict[str, Any]:
    """The gold labels of an item, attached to its results in memory (never written to results.jsonl)."""
    gold: dict[str, Any] = {"articles": gold_articles(item)}
    for key in ("charges", "term_months", "answer"):
        if key in item:
            gold[key] = item[key]
    return gold


def run_systems(
    task: str,
    items: Sequence[dict[str, Any]],
    systems: dict[str, System],
    results_path: Path,
    annotate: Callable[[Result, dict[str, Any]], None] = lambda _result, _item: None,
    on_result: Callable[[Result], None] = lambda _result: None,
    recorded_items: Sequence[dict[str, Any]] | None = None,
) -> list[Result]:
    """Run every system on every item not yet in ``results_path``; returns all results of the file, each
    with its item's gold labels under ``gold``.

    ``annotate`` adds derived fields to a fresh result from its item (which cited ids exist in the KB,
    judge scores). ``recorded_items`` (default ``items``) are the items earlier lines may be about, such as
    a whole data file when this run is limited to its first items.
    """
    code = code_version()  # read once as the run starts: edits made while it runs are not what it runs
    gold = {item["id"]: gold_of(item) for item in [*(recorded_items or ()), *items]}
    results = [r for r in read_results(results_path) if r.get("ok") is not None]
    if unknown := sorted({r["item_id"] for r in results} - gold.keys()):
        raise InputError(
            f"{results_path} holds results for {len(unknown)} item(s) not in this data file "
            f"({', '.join(unknown[:3])}): give the data file it was made from, or another --out"
        )
    for r in results:
        r["gold"] = gold[r["item_id"]]
    done = {(r["item_id"], r["system"]) for r in results}
    results_path.parent.mkdir(parents=True, exist_ok=True)
    # Rewrite without a torn tail (and without gold labels written by older versions) before appending.
    results_path.write_text("".join(_line(r) for r in results), encoding="utf-8")
    with results_path.open("a", encoding="utf-8") as out:
        for item in items:
            for name, system in systems.items():
                if (item["id"], name) in done:
                    continue
                started = time.perf_counter()
                result: Result = {
                    "item_id": item["id"],
                    "system": name,
                    "task": task,
                    "gold": gold[item["id"]],
                    "code": code,
                }
                try:
                    result["prediction"] = system(item)
                    result["ok"] = True
                    annotate(result, item)
                except StopRequested:
                    raise  # not the system's failure: the item runs again on resume
                except (JurisError, ValueError, RuntimeError, KeyError) as exc:
                    result["ok"] = False
                    result["error"] = f"{type(exc).__name__}: {exc}"
                result["seconds"] = round(time.perf_counter() - started, 2)
                out.write(_line(result))
                out.flush()
                results.append(result)
                on_result(result)
    return results
