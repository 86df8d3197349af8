"""Would the charge scorer's charges, read back as articles, raise the Researcher's recall? (A benchmark.)

    JURIS_DATA_DIR=$KB/judge python benchmarks/scored_charge_recall.py --data $D/ljp_dev.jsonl

For every ljp item, no model: the Researcher's strategies and fused ranking (as `jurisgraph eval --task
retrieval` runs them), then the charge scorer on that fusion with no pre-judgment, and a `scored` ranking:
the defining articles of its ten best charges, best first, penalty companions following. Prints R@5 / R@10
per half for the fused ranking, `scored` alone, `scored` fused in as one more strategy (depth x weight) and
`scored`'s first articles put in front of the fused ranking. Session 24: no variant beat the fused ranking
on the tuning half (session 24, in the git history of benchmarks/runs/README.md).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from agents.context import JudgeContext
from agents.researcher import follow_companions, fuse_strategies
from agents.scorer import fact_signals
from agents.state.judge import JudgeInput
from app.eval.tasks import HALVES, half_of
from graphs.research import graph as research_graph
from tools.kb.charges import ChargeRepository
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_scores import rank_charges
from tools.retrieval.research_weights import fitted_research_weights
from tools.services import get_services


def collect(items: list[dict[str, Any]], ctx: JudgeContext) -> list[dict[str, Any]]:
    services = get_services()
    companions = services.statutes.penalty_companions()
    repository = ChargeRepository(services.graph)
    rows = []
    for number, item in enumerate(items, 1):
        researched = dict(research_graph.invoke(JudgeInput(fact=item["fact"]), context=ctx)["rankings"])
        fused = researched.pop("researcher")
        research = researched
        policy = fitted_charge_policy()
        signals, _, _ = fact_signals(services, repository, item["fact"], fused, {}, ctx)
        best = [name for name, _ in rank_charges(signals, policy.model)[:10]]
        defined = repository.articles_for(best)
        scored = follow_companions([a for name in best for a in defined.get(name, [])], companions)
        gold = [f"刑法:{a}" for a in item["articles"]]
        rows.append({"half": half_of(item["id"]), "gold": gold, "research": research, "scored": scored})
        print(f"\r{number}/{len(items)}", end="", flush=True)
    print()
    return rows


def report(rows: list[dict[str, Any]], name: str, rank: Callable[[dict[str, Any]], Sequence[str]]) -> None:
    cells = []
    for half in (*HALVES, "all"):
        chosen = [r for r in rows if half in (r["half"], "all")]
        at = {k: sum(sum(g in rank(r)[:k] for g in r["gold"]) / len(r["gold"]) for r in chosen) for k in (5, 10)}
        cells.append(f"{half} {at[5] / len(chosen):.3f} / {at[10] / len(chosen):.3f}")
    print(f"{name:32s} " + "   ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="ljp task file (JSONL: id, fact, articles)")
    args = parser.parse_args()
    ctx = JudgeContext(feature_extractor="lexical", prejudge="off")
    items = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = collect(items, ctx)
    companions = get_services().statutes.penalty_companions()

    def fused(row: dict[str, Any], extra: int = 0, weight: float = 0.0) -> list[str]:
        fitted = fitted_research_weights()
        weights = replace(fitted, strategy={**fitted.strategy, "scored": weight})
        rankings = {**row["research"], "scored": row["scored"][:extra]}
        return fuse_strategies(rankings, ctx, 20, companions, weights)

    def scored_first(row: dict[str, Any], first: int) -> list[str]:
        return list(dict.fromkeys([*row["scored"][:first], *fused(row)]))

    report(rows, "fused (Researcher)", fused)
    report(rows, "scored alone", lambda r: r["scored"])
    for depth in (3, 5, 10):
        for weight in (0.5, 1.0, 2.0):
            report(rows, f"+ scored[:{depth}] at {weight}", partial(fused, extra=depth, weight=weight))
    for first in (1, 2):
        report(rows, f"scored[:{first}] first", partial(scored_first, first=first))


if __name__ == "__main__":
    main()
