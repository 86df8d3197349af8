"""Each charge family's effect on recorded judge runs, one family left out at a time (a benchmark, not a test; no
model): whether a family's patterns help on a corpus they were not written from (issue 65).

    JURIS_DATA_DIR=$KB/judge python benchmarks/family_ablation.py --task charge \\
        --data ../shared/data/zh/cases/cmdl_small.jsonl benchmarks/runs/s40-cmdl-report80-tunekb:full

Every recorded judgment is replayed as ``family_replay.py`` replays it (today's checks, the model's recorded
answers), once with every family and once without each family in turn. Printed per family: the items whose charges
it touches, and exact-set accuracy with it and without it (a positive difference: the family helps there).
"""

from __future__ import annotations

from charge_confusions import load_runs, run_parser
from family_replay import replayed

from app.eval.tasks import load_items
from tools.kb.charges import ChargeRepository
from tools.law import charge_families
from tools.services import get_services


def main() -> None:
    args = run_parser(__doc__).parse_args()
    facts = {item["id"]: item["fact"] for item in load_items(args.task, args.data)}
    answered = load_runs(args.runs, args.task, args.data, ChargeRepository(get_services().graph))
    judged = [
        (line["prediction"], facts[item_id], set(line["gold"]["charges"]))
        for lines in answered.values()
        for item_id, line in lines.items()
        if "scored_charges" in line["prediction"]
    ]
    every = charge_families.FAMILIES
    full = [set(replayed(p, fact)) for p, fact, _ in judged]
    right = sum(after == gold for after, (_, _, gold) in zip(full, judged, strict=True))
    print(f"{len(judged)} judgments, exact with every family {right / max(len(judged), 1):.3f}\n")
    print("| family | judgments it changes | exact with it | without it | difference |\n|---|---|---|---|---|")
    try:
        for family in every:
            charge_families.FAMILIES = tuple(f for f in every if f is not family)
            without = [set(replayed(p, fact)) for p, fact, _ in judged]
            changed = [i for i, (a, b) in enumerate(zip(full, without, strict=True)) if a != b]
            if not changed:
                continue
            gold = [judged[i][2] for i in changed]
            with_it = sum(full[i] == g for i, g in zip(changed, gold, strict=True))
            without_it = sum(without[i] == g for i, g in zip(changed, gold, strict=True))
            print(f"| {family.name} | {len(changed)} | {with_it} | {without_it} | {with_it - without_it:+d} |")
    finally:
        charge_families.FAMILIES = every


if __name__ == "__main__":
    main()
