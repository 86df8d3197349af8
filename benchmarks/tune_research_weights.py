"""Fit the Researcher's strategy weights on the tuning half of a retrieval run (a benchmark, not a test).

    JURIS_DATA_DIR=KB python benchmarks/tune_research_weights.py benchmarks/runs/RUN/results.jsonl \
        --data DATA.jsonl [--offset 60] [--strategies bm25,dense,...] [--c 1.0]

Reads a `jurisgraph eval --task retrieval` results file (every strategy's ranking is recorded per item; the
gold articles come from the data file the run was made on, since results files hold no gold). Each candidate
article of an item (the union of the strategies' rankings) is one example whose features are
1 / (offset + rank) in each strategy's ranking (0 when absent) and whose label says whether it is gold; an
L2-regularised logistic regression is fitted on the items of the tuning half (`app.eval.tasks.half_of`).
Its coefficients are the weights of weighted reciprocal-rank fusion with that offset (the intercept does not
change an order): with ``--offset 60`` (the Researcher's) they can go straight into ``strategy_weights``.
Recall@5 and @10 on both halves are printed beside the current defaults', with penalty companions followed
as the Researcher follows them (read from the KB the run was made on, hence ``JURIS_DATA_DIR``).
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from agents.common.research import follow_companions
from agents.context import Context
from app.eval.runner import gold_of, read_results
from app.eval.tasks import HALVES, half_of, load_items
from tools.retrieval.hybrid import RRF_K, weighted_rrf
from tools.services import get_services

STRATEGIES = ("bm25", "dense", "kg", "offence", "cases", "case_bm25", "features", "community", "charge", "generative")
ROWS = {name: f"research_{name}" for name in ("cases", "bm25", "dense", "kg")}
"""Strategies recorded under another row name (``cases``, ``bm25``, ``dense`` and ``kg`` there are LawSearch's
sources). Runs before session 25 kept only the Researcher's ``cases``; LawSearch's rankings stand in for the
other three there."""


def rankings_of(item: dict[str, Any]) -> dict[str, list[str]]:
    """The Researcher's strategies' rankings of one recorded item, by strategy name."""
    recorded = item["prediction"]["rankings"]
    return {name: recorded.get(ROWS.get(name, name), recorded.get(name, [])) for name in STRATEGIES}


def examples(item: dict[str, Any], strategies: Sequence[str], offset: int) -> tuple[list[str], np.ndarray]:
    rankings = rankings_of(item)
    row = {a: i for i, a in enumerate(dict.fromkeys(a for name in strategies for a in rankings.get(name, [])))}
    features = np.zeros((len(row), len(strategies)))
    for j, name in enumerate(strategies):
        for rank, article_id in enumerate(rankings.get(name, [])):
            features[row[article_id], j] = 1.0 / (offset + rank + 1)
    return list(row), features


def fit(items: list[dict[str, Any]], strategies: Sequence[str], offset: int, c: float) -> dict[str, float]:
    """Logistic-regression coefficients per strategy (L2 penalty 1 / c), rounded for a config file."""
    blocks = [examples(item, strategies, offset) for item in items]
    x = np.vstack([features for _, features in blocks])
    pairs = zip(items, blocks, strict=True)
    labels = [[a in set(item["gold"]["articles"]) for a in cands] for item, (cands, _) in pairs]
    y = np.concatenate(labels)
    x1 = np.hstack([x, np.ones((len(x), 1))])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x1 @ w
        p = 1.0 / (1.0 + np.exp(-z))
        value = float(np.sum(np.logaddexp(0, z) - y * z) + 0.5 * np.sum(w[:-1] ** 2) / c)
        grad = x1.T @ (p - y)
        grad[:-1] += w[:-1] / c
        return value, grad

    result = minimize(loss, np.zeros(x1.shape[1]), jac=True, method="L-BFGS-B")
    return {name: round(float(w), 2) for name, w in zip(strategies, result.x[:-1], strict=True)}


def recall(
    items: list[dict[str, Any]], weights: Mapping[str, float], offset: int, k: int, companions: Mapping[str, str]
) -> float:
    scores = []
    for item in items:
        gold = set(item["gold"]["articles"])
        # As in the Researcher, a strategy the weights do not name weighs 1.
        ranked = [c.article_id for c in weighted_rrf(rankings_of(item), weights, 2 * k, offset)]
        fused = follow_companions(ranked, companions)
        scores.append(len(gold & set(fused[:k])) / len(gold) if gold else 0.0)
    return statistics.mean(scores) if scores else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("--data", type=Path, required=True, help="the task file the run was made on")
    parser.add_argument("--offset", type=int, default=RRF_K, help="rank offset of the fitted fusion")
    parser.add_argument("--strategies", default=",".join(STRATEGIES), help="comma-separated strategies to weigh")
    parser.add_argument("--c", type=float, default=1.0, help="inverse L2 penalty")
    args = parser.parse_args()
    gold = {item["id"]: gold_of(item) for item in load_items("retrieval", args.data)}
    items = [{**r, "gold": gold[r["item_id"]]} for r in read_results(args.results) if r.get("ok")]
    halves = {h: [i for i in items if half_of(i["item_id"]) == h] for h in HALVES}
    recorded = {n for i in items for n, ranked in rankings_of(i).items() if ranked}
    strategies = [s for s in args.strategies.split(",") if s in recorded]
    default = Context(model="fake").strategy_weights
    weights = fit(halves["tune"], strategies, args.offset, args.c)
    companions = get_services().statutes.penalty_companions()

    def scores(w: Mapping[str, float], offset: int) -> dict[str, float]:
        return {f"{h} R@{k}": round(recall(halves[h], w, offset, k, companions), 3) for h in HALVES for k in (5, 10)}

    report = {
        "items": {h: len(v) for h, v in halves.items()},
        "default": {"weights": default, "offset": RRF_K} | scores(default, RRF_K),
        "fitted": {"weights": weights, "offset": args.offset} | scores(weights, args.offset),
    }
    print(json.dumps(report, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
