"""The judge's offence checks and charge relations replayed on recorded charge signals (no model call).

    JURIS_DATA_DIR=$KB/judge python benchmarks/offence_replay.py ROWS.jsonl:DATA.jsonl [...] \
        [--negative benchmarks/runs/s52-noncrime/noncrime-local.jsonl:benchmarks/noncrime_facts.jsonl]

For each recorded fact (``benchmarks/charge_signals.py`` rows, with the local model's pre-judgments), the
proposal as the scorer made it before issue 77 (:func:`app.fit.charges.decide` with any stand-in for an untold
act offence), then today's steps in the scorer's order: a stand-in needs its own evidence (the policy's
``stand_in``), the charges that may stand together (:mod:`tools.law.charge_relations`), whether the fact
states an offence at all (:func:`agents.common.no_offence.offences_stated`) and, when that sets every charge
aside, the further candidates (:func:`agents.common.no_offence.look_further`). Printed per file and half: exact
charge sets after each step, the paired change from before to after (bootstrap 95% interval), how many facts
end with no charge, and the related charges proposed together before and after. With ``--negative`` (repeatable),
how many non-crime facts are convicted before and after, per batch and half (``benchmarks/noncrime_facts.jsonl``:
batch 1 and 2 are the facts the tables' entries were written from, batch 3 was written after them and only measured).
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.common.no_offence import decide_charges
from agents.context import JudgeContext
from agents.offence import nearest_offence
from app.eval.metrics import match_charges
from app.fit.charges import choose, decide, policy_choice
from tools.corpus.halves import half_of
from tools.corpus.jsonl import read_jsonl, recorded_lines
from tools.kb.charges import ChargeRepository
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_relations import load_relations
from tools.law.charge_scores import assign_acts, precedented, rank_charges
from tools.services import get_services


def load(spec: str) -> list[dict[str, Any]]:
    """The rows of ROWS:DATA (a committed ``.gz`` read as it is), each with its fact (and batch, where the data
    file gives one) from DATA."""
    rows_path, data = spec.split(":", 1)
    items = {str(item["id"]): item for _, item in read_jsonl(Path(data), ("id", "fact"), "a fact")}
    rows = [json.loads(line) for line in recorded_lines(Path(rows_path.removesuffix(".gz")))]
    return [
        {**r, "fact": items[str(r["id"])]["fact"], "batch": items[str(r["id"])].get("batch", "")}
        for r in rows
        if str(r["id"]) in items
    ]


CANDIDATES = JudgeContext().scored_charges
"""The candidates the judge graph's offence decision reads, best first (its default)."""
STEPS = ("exact before", "stand-in", "relations", "offence checks", "further")


def steps(rows: list[dict[str, Any]]) -> list[tuple[list[str], ...]]:
    """Per row: the charges proposed before issue 77, with the stand-in rule, after the relations, after the
    offence checks, after looking further (each of :data:`STEPS`)."""
    services = get_services()
    repository = ChargeRepository(services.graph)
    policy = fitted_charge_policy()
    choice = policy_choice(policy, 3)
    out: list[tuple[list[str], ...]] = []
    for row in rows:
        fact = row["fact"]
        _, before = decide(row, policy.model, replace(choice, stand_in=0.0))
        ranked, chosen = choose(row, policy.model, choice)
        # The best candidates, as the judge graph's node reads them; acts assigned as the scorer assigns them.
        best = ranked[:CANDIDATES]
        candidates = [name for name, _ in best]
        scored = list(dict.fromkeys(candidates + chosen))
        acts = assign_acts(scored, [rank_charges(act, policy.model) for act in row.get("acts", [])])
        nearest = nearest_offence(services, repository, fact)
        articles = repository.articles_for(scored)
        voted = precedented(row["signals"])
        d = decide_charges(chosen, best, fact, acts, articles, nearest, "zh", policy.stand_in, None, voted)
        out.append((before, d.families, d.related, d.stated, d.proposed))
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


def confused(chosen: list[str], gold: list[str]) -> list[str]:
    """``gold → chosen`` for each rule whose charges both hold, differently (保险诈骗 → 诈骗;
    受贿 → 受贿+非国家工作人员受贿)."""
    out = []
    for rule in load_relations():
        group = {*rule.charges, rule.general} - {""}
        want, got = sorted(set(gold) & group), sorted(set(chosen) & group)
        if want and got and want != got:
            out.append(f"{'+'.join(want)} → {'+'.join(got)}")
    return out


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
    parser.add_argument("--negative", action="append", default=[], help="ROWS.jsonl:DATA.jsonl of non-crime facts")
    args = parser.parse_args()
    last = len(STEPS) - 1
    print(f"| file | half | n | {' | '.join(STEPS)} | paired change | no charge |")
    print("|---" * (len(STEPS) + 5) + "|")
    pairs_before: Counter[str] = Counter()
    pairs_after: Counter[str] = Counter()
    confusions: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
    for spec in args.rows:
        rows = load(spec)
        decided = steps(rows)
        for half in ("tune", "report"):
            index = [i for i, r in enumerate(rows) if (r.get("half") or half_of(str(r["id"]))) == half]
            if not index:
                continue
            gold = [rows[i]["gold"] for i in index]
            exacts = [[exact(decided[i][k], g) for i, g in zip(index, gold, strict=True)] for k in range(len(STEPS))]
            change, low, high = paired(exacts[0], exacts[last])
            acquitted = sum(bool(decided[i][0]) and not decided[i][last] for i in index)
            n = len(index)
            shares = " | ".join(f"{sum(e) / n:.3f}" for e in exacts)
            print(
                f"| {Path(spec.split(':')[0]).name} | {half} | {n} | {shares} |"
                f" {change:+.3f} [{low:+.3f}, {high:+.3f}] | {acquitted} |"
            )
            if half == "report":
                for i in index:
                    pairs_before.update(together(decided[i][0]))
                    pairs_after.update(together(decided[i][last]))
                    confusions[0].update(confused(decided[i][0], rows[i]["gold"]))
                    confusions[1].update(confused(decided[i][last], rows[i]["gold"]))
    print("\nRelated charges proposed together (report halves): before → after")
    for pair in sorted(set(pairs_before) | set(pairs_after)):
        print(f"- {pair}: {pairs_before[pair]} → {pairs_after[pair]}")
    print("\nConfusions within a rule's charges (report halves; gold → judged): before → after")
    for pair in sorted(set(confusions[0]) | set(confusions[1])):
        print(f"- {pair}: {confusions[0][pair]} → {confusions[1][pair]}")
    for negative in args.negative:
        rows = load(negative)
        decided = steps(rows)
        groups = sorted({(str(r["batch"]), half_of(str(r["id"]))) for r in rows})
        for batch, half in groups:
            index = [i for i, r in enumerate(rows) if (str(r["batch"]), half_of(str(r["id"]))) == (batch, half)]
            convicted_before = [rows[i]["id"] for i in index if decided[i][0]]
            convicted_after = [f"{rows[i]['id']} ({'、'.join(decided[i][-1])})" for i in index if decided[i][-1]]
            checked = sum(bool(decided[i][last - 1]) for i in index)
            print(
                f"\nnon-crimes, batch {batch or '-'} ({half}, {len(index)}): convicted before"
                f" {len(convicted_before)}, after the offence checks {checked}, after looking further"
                f" {len(convicted_after)}: {', '.join(convicted_after)}"
            )


if __name__ == "__main__":
    main()
