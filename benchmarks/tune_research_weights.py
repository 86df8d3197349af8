"""Re-fuse the Researcher's recorded rankings under other strategy weights (a benchmark, not a test).

    python benchmarks/tune_research_weights.py benchmarks/runs/RUN/results.jsonl --data DATA.jsonl [--k 5] [--split 0.5]

Reads a `jurisgraph eval --task retrieval` results file (every strategy's ranking is recorded per item; the
gold articles come from the data file the run was made on, since results files hold no gold),
searches the weights on the first part of the items (coordinate ascent from the defaults: one weight at a
time over a small grid, until no change helps; a full grid over nine strategies took longer than 20 min)
and reports recall@k of the best setting on the rest, beside the current defaults, so a weight change is
justified by held-out numbers.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from agents.context import Context
from app.eval.runner import gold_of, read_results
from app.eval.tasks import load_items
from tools.retrieval.hybrid import weighted_rrf

STRATEGIES = ("charge", "generative", "cases", "case_bm25", "features", "community", "bm25", "dense", "kg")
GRID = (0.0, 0.5, 1.0, 2.0, 3.0)


def recall(items: list[dict[str, Any]], weights: dict[str, float], k: int) -> float:
    scores = []
    for item in items:
        gold = set(item["gold"]["articles"])
        rankings = {name: item["prediction"]["rankings"].get(name, []) for name in STRATEGIES}
        fused = [c.article_id for c in weighted_rrf(rankings, weights, k)]
        scores.append(len(gold & set(fused)) / len(gold) if gold else 0.0)
    return statistics.mean(scores) if scores else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("--data", type=Path, required=True, help="the task file the run was made on")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--split", type=float, default=0.5, help="share of items used for the grid search")
    args = parser.parse_args()
    gold = {item["id"]: gold_of(item) for item in load_items("retrieval", args.data)}
    items = [{**r, "gold": gold[r["item_id"]]} for r in read_results(args.results) if r.get("ok")]
    cut = int(len(items) * args.split)
    tune, held = items[:cut], items[cut:]
    default = Context(model="fake").strategy_weights
    # The defaults win ties: a change must be strictly better on the tuning items.
    best, best_score = default, recall(tune, default, args.k)
    improved = True
    while improved:
        improved = False
        for name in STRATEGIES:
            for value in GRID:
                trial = {**best, name: value}
                if any(trial.values()) and (score := recall(tune, trial, args.k)) > best_score:
                    best, best_score, improved = trial, score, True
    print(
        json.dumps(
            {
                "items": {"tune": len(tune), "held_out": len(held)},
                "default": {
                    "weights": default,
                    "tune": recall(tune, default, args.k),
                    "held_out": recall(held, default, args.k),
                },
                "best": {"weights": best, "tune": recall(tune, best, args.k), "held_out": recall(held, best, args.k)},
            },
            ensure_ascii=False,
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
