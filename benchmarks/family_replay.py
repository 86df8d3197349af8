"""Today's family checks replayed on recorded judge runs (a benchmark, not a test; no model): what a change to
:mod:`tools.law.charge_families` does to judgments already made, before a model run measures it.

    JURIS_DATA_DIR=$KB/judge python benchmarks/family_replay.py --task charge --data $D/charge_dev.jsonl \\
        benchmarks/runs/s37-charge-report:full [--show]

Each recorded judgment's family checks are undone (a decided charge back to the one proposed) and run again on
the scorer's recorded candidates, best first, with the model's recorded answers to targeted questions (a
question it was never asked gets no answer: the proposal stands). Printed per run: exact-set accuracy and
family confusions (:func:`benchmarks.charge_confusions.confusions`) recorded and replayed; with --show, every
judgment that changes (+ now right, - now wrong, ~ wrong either way). Lines made before the scorer recorded its
candidates are skipped.
"""

from __future__ import annotations

from typing import Any

from charge_confusions import confusions, load_runs, run_parser

from app.eval.tasks import load_items
from tools.kb.charges import ChargeRepository
from tools.law.charge_families import check_families
from tools.services import get_services

CANDIDATES = 8
"""The scorer's candidates the checks weigh (JudgeContext.scored_charges' default)."""


def replayed(prediction: dict[str, Any], fact: str) -> list[str]:
    """The charges of a recorded judgment with its family checks run again by today's code."""
    checks = prediction.get("family_checks") or []
    # An act offence left out as untold (before the checks) is not undone: the replay reruns the checks only.
    undo = {c["decided"]: c["charge"] for c in checks if c["decided"] != c["charge"] and c["by"] != "untold"}
    proposed = [undo.get(c, c) for c in prediction["charges"]]
    ranked = sorted(prediction["scored_charges"], key=lambda s: -s["probability"])
    candidates = [s["name"] for s in ranked][:CANDIDATES]
    answers = {c["charge"]: c["decided"] == c["charge"] for c in checks if c["by"] == "question"}
    charges, _ = check_families(proposed, candidates, fact, lambda member: answers.get(member.charge))
    return charges


def main() -> None:
    parser = run_parser(__doc__)
    parser.add_argument("--show", action="store_true", help="print every judgment that changes")
    args = parser.parse_args()

    facts = {item["id"]: item["fact"] for item in load_items(args.task, args.data)}
    answered = load_runs(args.runs, args.task, args.data, ChargeRepository(get_services().graph))
    print("| run:system | items | exact, recorded → replayed | family confusions |\n|---|---|---|---|")
    shown = []
    for spec, lines in answered.items():
        n = right = right_now = confused = confused_now = 0
        for item_id, line in lines.items():
            prediction = line["prediction"]
            if "scored_charges" not in prediction:
                continue
            gold, before = line["gold"]["charges"], prediction["charges"]
            after = replayed(prediction, facts[item_id])
            n += 1
            right += set(before) == set(gold)
            right_now += set(after) == set(gold)
            confused += len(confusions(gold, before))
            confused_now += len(confusions(gold, after))
            if set(after) != set(before):
                mark = "+" if set(after) == set(gold) else "-" if set(before) == set(gold) else "~"
                shown.append(f"{mark} {spec} {item_id}: gold {sorted(gold)}, {before} → {after}")
        share = f"{right / max(n, 1):.3f} → {right_now / max(n, 1):.3f}"
        print(f"| {spec} | {n} | {share} | {confused} → {confused_now} |")
    if args.show and shown:
        print("\n" + "\n".join(shown))


if __name__ == "__main__":
    main()
