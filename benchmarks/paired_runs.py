"""One system of one run against one system of another, item by item: the paired bootstrap of every metric
on the items both answered (a benchmark, not a test). For a change measured in a new run against the run
before it on the same items and KB, e.g. `full` of s19-consult30 against `full` of s18-consult30:

    JURIS_DATA_DIR=.../kb/consult-new python benchmarks/paired_runs.py --task consult \\
        --data ../shared/data/zh/eval/consult_dev.jsonl \\
        --before benchmarks/runs/s18-consult30:full --after benchmarks/runs/s19-consult30:full

Prints a markdown table (after - before, 95% interval); checks are derived from the KB as the eval does.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from app.eval.checks import derive_checks
from app.eval.report import paired_comparison
from app.eval.runner import gold_of, read_results
from app.eval.tasks import load_items, resolve_charge_labels
from tools.kb.charges import ChargeRepository
from tools.services import get_services


def _load(spec: str, label: str, gold: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    run, _, system = spec.rpartition(":")
    results = [r for r in read_results(Path(run) / "results.jsonl") if r["system"] == system and r["item_id"] in gold]
    if not results:
        raise SystemExit(f"no results of system {system!r} in {run}")
    # A gold of its own per result: charge labels are rewritten in place.
    return [{**r, "system": label, "gold": dict(gold[r["item_id"]])} for r in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", required=True, choices=["ljp", "charge", "consult"])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--before", required=True, help="RUN_DIR:SYSTEM")
    parser.add_argument("--after", required=True, help="RUN_DIR:SYSTEM")
    parser.add_argument(
        "--as-written", action="store_true", help="score charges as each system spelled them (normalised only)"
    )
    args = parser.parse_args()
    items = {item["id"]: item for item in load_items(args.task, args.data)}
    gold = {item_id: gold_of(item) for item_id, item in items.items()}
    results = _load(args.before, "before", gold) + _load(args.after, "after", gold)
    services = get_services()
    charges = ChargeRepository(services.graph)
    if args.task in ("ljp", "charge"):
        # As the eval compares them: CMDL's finer names (a charge's alternative) as the KB's charge table has them.
        resolve_charge_labels(results, charges, as_written=args.as_written)
    derive_checks(args.task, results, items, services.statutes, charges)
    paired = paired_comparison(args.task, results, compared=("after", ["before"]))["after - before"]
    print(f"after - before, {paired.pop('items')} items, 95% paired bootstrap\n")
    print("| metric | difference [95% CI] |\n|---|---|")
    for name, entry in paired.items():
        print(f"| {name} | {entry['value']:.3f} [{entry['ci95'][0]:.3f}, {entry['ci95'][1]:.3f}] |")


if __name__ == "__main__":
    main()
