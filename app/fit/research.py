"""Fit the Researcher's strategy weights on the tuning half of a retrieval run.

    JURIS_DATA_DIR=KB jurisgraph fit research RUN/results.jsonl --data DATA.jsonl [--offset 60] \
        [--strategies bm25,dense,...] [--c 1.0] [--write]

Reads a `jurisgraph eval --task retrieval` results file (every strategy's ranking is recorded per item; the
gold articles come from the data file the run was made on, since results files hold no gold). Each candidate
article of an item (the union of the strategies' rankings) is one example whose features are 1 / (offset +
rank) in each strategy's ranking (0 when absent) and whose label says whether it is gold; an L2-regularised
logistic regression is fitted on the items of the tuning half (`app.eval.tasks.half_of`). Its coefficients are
the weights of weighted reciprocal-rank fusion with that offset (the intercept does not change an order): with
``--offset 60`` (the Researcher's) ``--write`` makes them the shipped weights
(``tools/retrieval/research_weights.json``). Recall@5 and @10 on both halves are printed beside the shipped
ones, with penalty companions followed as the Researcher follows them (read from the KB the run was made on,
hence ``JURIS_DATA_DIR``).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.researcher import follow_companions
from app.eval.runner import gold_of, read_results
from app.eval.tasks import HALVES, half_of, load_items
from app.fit.logistic import l2_logistic
from tools.errors import InputError
from tools.fitted import provenance, write_fitted
from tools.retrieval.hybrid import RRF_K, weighted_rrf
from tools.retrieval.research_weights import BUNDLED_RESEARCH_WEIGHTS, fitted_research_weights
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
    found = l2_logistic(x, y, c)
    return {name: round(float(w), 2) for name, w in zip(strategies, found[:-1], strict=True)}


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


def fit_research(results: Path, data: Path, offset: int, strategies: Sequence[str], c: float, write: bool) -> None:
    """Fit on the tuning half, print both halves beside the shipped weights; with ``write`` (and the
    Researcher's offset) the fitted weights replace the shipped ones."""
    gold = {item["id"]: gold_of(item) for item in load_items("retrieval", data)}
    items = [{**r, "gold": gold[r["item_id"]]} for r in read_results(results) if r.get("ok")]
    halves = {h: [i for i in items if half_of(i["item_id"]) == h] for h in HALVES}
    recorded = {n for i in items for n, ranked in rankings_of(i).items() if ranked}
    chosen = [s for s in strategies if s in recorded]
    shipped = fitted_research_weights()
    weights = fit(halves["tune"], chosen, offset, c)
    companions = get_services().statutes.penalty_companions()

    def scores(w: Mapping[str, float], at: int) -> dict[str, float]:
        return {f"{h} R@{k}": round(recall(halves[h], w, at, k, companions), 3) for h in HALVES for k in (5, 10)}

    report = {
        "items": {h: len(v) for h, v in halves.items()},
        "shipped": {"weights": dict(shipped.strategy), "offset": RRF_K} | scores(shipped.strategy, RRF_K),
        "fitted": {"weights": weights, "offset": offset} | scores(weights, offset),
    }
    print(json.dumps(report, ensure_ascii=False, indent=2))
    if write:
        if offset != RRF_K:
            raise InputError(f"only weights fitted at the Researcher's offset {RRF_K} can be written")
        values = {
            "strategy_weights": weights,
            "magnet_threshold": shipped.magnet_threshold,
            "article_prior_strength": shipped.prior_strength,
        }
        command = f"jurisgraph fit research {results} --data {data} --c {c} --strategies {','.join(chosen)}"
        source = provenance([data], "tune", command, runs=[str(results.parent)], recall=report["fitted"])
        write_fitted(BUNDLED_RESEARCH_WEIGHTS, values, source)
