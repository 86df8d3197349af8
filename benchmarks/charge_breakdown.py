"""Charge accuracy of judge runs broken down as issue 41 asks (a benchmark, not a test): exact-set accuracy,
micro-F1 and macro-F1 over charges, and exact-set accuracy by how many judgments the KB holds of the item's
rarest gold charge (0, 1-9, 10+) and by single- or multi-charge item.

    JURIS_DATA_DIR=$KB/judge-cmdl-tune python benchmarks/charge_breakdown.py --task charge \\
        --data ../shared/data/zh/cases/cmdl_small.jsonl benchmarks/runs/RUN:full benchmarks/runs/RUN:naive_rag

Counts come from the KB the command runs on: give it the KB the runs were measured on. Only the items every
run:system answered count, so that the systems compare on the same items.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from charge_confusions import load_runs, run_parser

from app.eval.metrics import match_charges, micro_prf
from app.eval.report import charges_exact
from tools.kb.cases import judgment_counts
from tools.kb.charges import ChargeRepository
from tools.services import get_services

BUCKETS = ((0, 0, "0"), (1, 9, "1-9"), (10, 10**9, "10+"))
"""Judgments the KB holds of an item's rarest gold charge."""


def macro_f1(results: Sequence[Mapping[str, Any]]) -> float:
    """Mean over the charges gold or predicted anywhere of each charge's F1 (exact names, as the KB's charge table
    names them)."""
    tp: Counter[str] = Counter()
    predicted: Counter[str] = Counter()
    gold: Counter[str] = Counter()
    for r in results:
        g, p = set(r["gold"]["charges"]), set(r["prediction"]["charges"])
        tp.update(g & p)
        predicted.update(p)
        gold.update(g)
    charges = set(predicted) | set(gold)
    scores = [2 * tp[c] / (predicted[c] + gold[c]) for c in charges]
    return sum(scores) / len(scores) if scores else 0.0


def bucket_of(result: Mapping[str, Any], counts: Mapping[str, int]) -> str:
    rarest = min((counts.get(c, 0) for c in result["gold"]["charges"]), default=0)
    return next(name for low, high, name in BUCKETS if low <= rarest <= high)


def breakdown(results: Sequence[Mapping[str, Any]], counts: Mapping[str, int]) -> dict[str, str]:
    """The row of one run:system: each figure with its item count where it is a share of a subset."""

    def share(subset: list[Mapping[str, Any]]) -> str:
        return f"{sum(map(charges_exact, subset)) / len(subset):.3f} ({len(subset)})" if subset else "– (0)"

    counts_prf = [match_charges(r["prediction"]["charges"], r["gold"]["charges"]) for r in results]
    row = {
        "items": str(len(results)),
        "exact": share(list(results)),
        "micro-F1": f"{micro_prf(counts_prf).f1:.3f}",
        "macro-F1": f"{macro_f1(results):.3f}",
    }
    for _, _, name in BUCKETS:
        row[f"precedents {name}"] = share([r for r in results if bucket_of(r, counts) == name])
    row["single"] = share([r for r in results if len(r["gold"]["charges"]) == 1])
    row["multi"] = share([r for r in results if len(r["gold"]["charges"]) > 1])
    return row


def main() -> None:
    args = run_parser(__doc__).parse_args()
    services = get_services()
    answered = load_runs(args.runs, args.task, args.data, ChargeRepository(services.graph))
    shared = set.intersection(*(set(a) for a in answered.values()))
    counts = judgment_counts(services.graph)
    rows = {spec: breakdown([r for i, r in lines.items() if i in shared], counts) for spec, lines in answered.items()}
    head = list(next(iter(rows.values())))
    print("| run:system | " + " | ".join(head) + " |")
    print("|---" * (len(head) + 1) + "|")
    for spec, row in rows.items():
        print(f"| {spec} | " + " | ".join(row[h] for h in head) + " |")


if __name__ == "__main__":
    main()
