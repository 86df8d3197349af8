"""The judge's offence checks and charge relations replayed on recorded charge signals (no model call).

    JURIS_DATA_DIR=$KB/judge python benchmarks/offence_replay.py ROWS.jsonl:DATA.jsonl [...] \
        [--negative benchmarks/runs/s52-noncrime/noncrime-local.jsonl:benchmarks/noncrime_facts.jsonl]

For each recorded fact (``benchmarks/charge_signals.py`` rows, with the local model's pre-judgments), the
shipped policy's proposal as the scorer makes it (:func:`app.fit.charges.decide`: thresholds, told acts,
family checks), then today's two steps in the scorer's order: the charges that may stand together
(:mod:`tools.law.charge_relations`) and whether the fact states an offence at all
(:func:`agents.common.no_offence.offences_stated`). Printed per file and half: exact charge sets before and
after each step with the paired change (bootstrap 95% interval), how many facts the checks acquit, and the
confusions of related charges (both of a rule's charges proposed together) before and after. With
``--negative``, the share of non-crime facts convicted before and after, on each half.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from agents.common.no_offence import offences_stated
from agents.scorer import nearest_offence
from app.eval.metrics import match_charges
from app.fit.charges import decide, policy_choice
from tools.corpus.halves import half_of
from tools.corpus.jsonl import read_jsonl, recorded_lines
from tools.kb.charges import ChargeRepository
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_relations import load_relations, stand_together
from tools.services import get_services


def load(spec: str) -> list[dict[str, Any]]:
    """The rows of ROWS:DATA (a committed ``.gz`` read as it is), each with its fact from DATA."""
    rows_path, data = spec.split(":", 1)
    facts = {str(item["id"]): item["fact"] for _, item in read_jsonl(Path(data), ("id", "fact"), "a fact")}
    rows = [json.loads(line) for line in recorded_lines(Path(rows_path.removesuffix(".gz")))]
    return [{**r, "fact": facts[str(r["id"])]} for r in rows if str(r["id"]) in facts]


def steps(rows: list[dict[str, Any]]) -> list[tuple[list[str], list[str], list[str]]]:
    """Per row: (proposed today before this issue, after the relations, after the offence checks)."""
    services = get_services()
    repository = ChargeRepository(services.graph)
    policy = fitted_charge_policy()
    choice = policy_choice(policy, 3)
    out = []
    for row in rows:
        _, before = decide(row, policy.model, choice)
        related, _ = stand_together(before, row["fact"])
        stated, _ = offences_stated(related, row["fact"], nearest_offence(services, repository, row["fact"]), "zh")
        out.append((before, related, stated))
    return out


def exact(chosen: list[str], gold: list[str]) -> int:
    tp, n_pred, n_gold = match_charges(chosen, gold)
    return int(tp == n_pred == n_gold)


def paired(a: list[int], b: list[int], seed: int = 0) -> tuple[float, float, float]:
    """Mean of b - a with a 95% bootstrap interval."""
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(diffs) for _ in diffs) / len(diffs) for _ in range(2000))
    return sum(diffs) / len(diffs), means[50], means[1949]


def together(charges: list[str]) -> list[str]:
    """The rules two or more of whose charges ``charges`` holds at once."""
    out = []
    for rule in load_relations():
        related = [c for c in charges if c in rule.charges or c == rule.general]
        if len(related) > 1:
            out.append("+".join(sorted(related)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rows", nargs="+", help="ROWS.jsonl:DATA.jsonl (criminal facts with gold charges)")
    parser.add_argument("--negative", help="ROWS.jsonl:DATA.jsonl of non-crime facts")
    args = parser.parse_args()
    print("| file | half | n | exact before | after relations | after offence checks | paired change | acquitted |")
    print("|---|---|---|---|---|---|---|---|")
    pairs_before: Counter[str] = Counter()
    pairs_after: Counter[str] = Counter()
    for spec in args.rows:
        rows = load(spec)
        decided = steps(rows)
        for half in ("tune", "report"):
            index = [i for i, r in enumerate(rows) if (r.get("half") or half_of(str(r["id"]))) == half]
            if not index:
                continue
            gold = [rows[i]["gold"] for i in index]
            before = [exact(decided[i][0], g) for i, g in zip(index, gold, strict=True)]
            related = [exact(decided[i][1], g) for i, g in zip(index, gold, strict=True)]
            after = [exact(decided[i][2], g) for i, g in zip(index, gold, strict=True)]
            change, low, high = paired(before, after)
            acquitted = sum(bool(decided[i][1]) and not decided[i][2] for i in index)
            n = len(index)
            print(
                f"| {Path(spec.split(':')[0]).name} | {half} | {n} | {sum(before) / n:.3f} | {sum(related) / n:.3f} |"
                f" {sum(after) / n:.3f} | {change:+.3f} [{low:+.3f}, {high:+.3f}] | {acquitted} |"
            )
            if half == "report":
                for i in index:
                    pairs_before.update(together(decided[i][0]))
                    pairs_after.update(together(decided[i][2]))
    print("\nRelated charges proposed together (report halves): before → after")
    for pair in sorted(set(pairs_before) | set(pairs_after)):
        print(f"- {pair}: {pairs_before[pair]} → {pairs_after[pair]}")
    if args.negative:
        rows = load(args.negative)
        decided = steps(rows)
        for half in ("tune", "report"):
            index = [i for i, r in enumerate(rows) if half_of(str(r["id"])) == half]
            convicted_before = [rows[i]["id"] for i in index if decided[i][0]]
            convicted_after = [rows[i]["id"] for i in index if decided[i][2]]
            print(
                f"\nnon-crimes ({half}, {len(index)}): convicted before {len(convicted_before)}, after"
                f" {len(convicted_after)}: {', '.join(convicted_after)}"
            )


if __name__ == "__main__":
    main()
