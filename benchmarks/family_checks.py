"""How well the code's family checks read the separating element from facts (a benchmark, not a test; no
model): for each case with one gold charge of a family (:data:`tools.law.charge_families.FAMILIES`), the
check is run as the judge runs it when a neighbour was proposed instead (every other member, in turn) and
when the gold itself was, with every member a candidate and no targeted question. "repaired" is the share of
wrong proposals the fact turns into the gold, "kept" the share of right ones it leaves alone; what the fact
does not decide stays as proposed (the judge would then ask the model).

    JURIS_DATA_DIR=$KB/judge python benchmarks/family_checks.py --task charge \\
        --data ../shared/data/zh/cases/cmdl_small.jsonl --half tune

Charges are named as the KB's charge table names them, as the eval does.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from app.eval.tasks import gold_charges, load_items
from tools.corpus.halves import half_of
from tools.kb.charges import ChargeRepository
from tools.law.charge_families import FAMILIES, Family, check_families
from tools.services import get_services


def decided(family: Family, proposed: str, fact: str) -> str:
    """The charge the check leaves in place of ``proposed`` when every member is a candidate."""
    candidates = [m.charge for m in family.members]
    charges, _ = check_families([proposed], candidates, fact)
    return next((c for c in charges if family.member(c)), proposed)


def _share(outcomes: Counter[bool]) -> str:
    return f"{outcomes[True] / max(outcomes.total(), 1):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", choices=("ljp", "charge"), required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--half", choices=("tune", "report"), help="only the items of this half")
    parser.add_argument("--show", type=int, default=0, help="print this many wrong decisions per family")
    args = parser.parse_args()

    charges = ChargeRepository(get_services().graph)
    items = [i for i in load_items(args.task, args.data) if not args.half or half_of(i["id"]) == args.half]
    repaired: dict[str, Counter[bool]] = defaultdict(Counter)
    kept: dict[str, Counter[bool]] = defaultdict(Counter)
    wrong: dict[str, list[str]] = defaultdict(list)
    for item in items:
        gold = set(gold_charges(item["charges"], item.get("articles", []), charges))
        for family in FAMILIES:
            members = [m.charge for m in family.members if m.charge in gold]
            if len(members) != 1:
                continue
            for proposed in (m.charge for m in family.members):
                result = decided(family, proposed, item["fact"])
                (kept if proposed == members[0] else repaired)[family.name][result == members[0]] += 1
                if result != members[0] and len(wrong[family.name]) < args.show:
                    wrong[family.name].append(f"{item['id']}: gold {members[0]}, {proposed} -> {result}")
    print(f"{len(items)} items\n\n| family | cases | repaired | kept |\n|---|---|---|---|")
    for family in FAMILIES:
        r, k = repaired[family.name], kept[family.name]
        if k.total():
            counts_r, counts_k = f"({r[True]}/{r.total()})", f"({k[True]}/{k.total()})"
            print(f"| {family.name} | {k.total()} | {_share(r)} {counts_r} | {_share(k)} {counts_k} |")
    total_r = sum(repaired.values(), Counter[bool]())
    total_k = sum(kept.values(), Counter[bool]())
    print(f"| all | {total_k.total()} | {_share(total_r)} | {_share(total_k)} |")
    for name, lines in wrong.items():
        if lines:
            print(f"\n{name}:\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
