"""Neighbouring-charge confusions of judge runs (a benchmark, not a test): a gold charge of a family
(:data:`tools.law.charge_families.FAMILIES`) left out while another member of its family, not gold, was
convicted — 职务侵占 judged 盗窃, 保险诈骗 judged 诈骗.

    JURIS_DATA_DIR=$KB/judge python benchmarks/charge_confusions.py --task charge --data $D/charge_dev.jsonl \\
        benchmarks/runs/s22-charge-report:naive_rag benchmarks/runs/s22-charge-report:full [--common]

Charges are compared as the KB's charge table names them, as the eval does. With --common only the items
every named run:system answered count, so runs of different lengths compare on the same items.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from app.eval.runner import gold_of, read_results
from app.eval.tasks import load_items, resolve_charge_labels
from tools.kb.charges import ChargeRepository
from tools.law.charge_families import FAMILIES
from tools.services import get_services


def confusions(gold: list[str], predicted: list[str]) -> list[tuple[str, str]]:
    """(gold, judged) pairs of one judgment: a gold family member missed while a non-gold member was convicted."""
    pairs = []
    for family in FAMILIES:
        names = {m.charge for m in family.members}
        missed = [g for g in gold if g in names and g not in predicted]
        wrong = [p for p in predicted if p in names and p not in gold]
        pairs += [(g, p) for g in missed for p in wrong]
    return pairs


def load_runs(
    specs: list[str], task: str, data: Path, repository: ChargeRepository
) -> dict[str, dict[str, dict[str, Any]]]:
    """RUN_DIR:SYSTEM -> item id -> its answered result with its gold, charges named as the KB's charge table
    names them (as the eval compares them)."""
    items = {item["id"]: item for item in load_items(task, data)}
    answered: dict[str, dict[str, dict[str, Any]]] = {}
    for spec in specs:
        run_dir, _, system = spec.rpartition(":")
        lines = [
            {**r, "gold": gold_of(items[r["item_id"]])}
            for r in read_results(Path(run_dir) / "results.jsonl")
            if r["system"] == system and r.get("ok") and r["item_id"] in items
        ]
        resolve_charge_labels(lines, repository)
        answered[spec] = {r["item_id"]: r for r in lines}
    return answered


def run_parser(description: str | None) -> argparse.ArgumentParser:
    """The arguments of a benchmark over judge runs: RUN_DIR:SYSTEM..., --task, --data."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="RUN_DIR:SYSTEM")
    parser.add_argument("--task", choices=("ljp", "charge"), required=True)
    parser.add_argument("--data", type=Path, required=True)
    return parser


def main() -> None:
    parser = run_parser(__doc__)
    parser.add_argument("--common", action="store_true", help="only the items every run:system answered")
    args = parser.parse_args()

    answered = load_runs(args.runs, args.task, args.data, ChargeRepository(get_services().graph))
    shared = set.intersection(*(set(a) for a in answered.values())) if args.common else None
    print("| run:system | items | confusions | pairs (gold -> judged) |\n|---|---|---|---|")
    for spec, lines in answered.items():
        chosen = [r for item_id, r in lines.items() if shared is None or item_id in shared]
        pairs = Counter(p for r in chosen for p in confusions(r["gold"]["charges"], r["prediction"]["charges"]))
        listed = ", ".join(f"{g} -> {p} {n}" for (g, p), n in pairs.most_common()) or "none"
        print(f"| {spec} | {len(chosen)} | {sum(pairs.values())} | {listed} |")


if __name__ == "__main__":
    main()
