"""Fit the charge scorer's policy on the tuning half of recorded charge signals.

    jurisgraph fit charges RUN/signals.jsonl [MORE.jsonl ...] --data DEV.jsonl [--data MORE] [--c 1.0] \
        [--per-charge N] [--write]

Reads files written by ``benchmarks/charge_signals.py`` (``--data``: the dev files they were made from).
Every candidate charge of a tuning-half item is one example (its signals; label: a gold charge); an
L2-regularised logistic regression gives the weights and the intercept, and the thresholds for further charges,
for acts and for filling a stated count are those that maximise exact-set accuracy on the tuning half;
``--write`` replaces the shipped ``tools/law/charge_model.json``. Printed for both halves, beside the
defaults: exact-set accuracy and micro-F1 of the chosen charges, how often the best candidate is gold, and
the ceiling (items whose gold charges are all among the candidates).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from app.eval.metrics import match_charges, micro_prf
from app.eval.tasks import HALVES, load_items
from app.fit.logistic import l2_logistic
from tools.corpus.jsonl import recorded_lines
from tools.fitted import provenance, write_fitted
from tools.law import charge_families
from tools.law.acts import stated_charge_count
from tools.law.charge_families import check_families, told_acts
from tools.law.charge_model import BUNDLED_CHARGE_MODEL, ChargePolicy, fitted_charge_policy
from tools.law.charge_scores import SIGNALS, ChargeModel, choose_charges, rank_charges

STATED_THRESHOLDS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
"""The fill thresholds tried: a stated count's charges come from low probabilities (the best candidate aside)."""


@dataclass(frozen=True)
class Choice:
    """How charges are chosen from a ranking: further charges' and acts' thresholds, the cap, family checks."""

    threshold: float
    acts: float
    most: int
    families: bool
    stated: bool = False
    told: bool = False
    """Act offences only for facts that tell their act (the judge's ``told_acts``)."""
    fill: float = 0.0
    """Probability a candidate needs to fill the count of charges the fact states (with ``stated``)."""
    stand_in: float = 0.0
    """Probability a candidate needs to stand in for an untold act offence (with ``told``)."""


def policy_choice(policy: ChargePolicy, most: int) -> Choice:
    """How ``policy`` chooses charges as the judge does: its thresholds, every check on."""
    return Choice(
        policy.threshold, policy.act_threshold, most, True, True, True, policy.stated_threshold, policy.stand_in
    )


def fit(rows: Sequence[dict[str, Any]], c: float, names: Sequence[str] = SIGNALS) -> ChargeModel:
    """Logistic regression over the ``names`` signals of every candidate of ``rows`` (L2 penalty 1 / c on the
    weights, not the bias)."""
    x = np.array([[s[name] for name in names] for row in rows for s in row["signals"].values()])
    y = np.array([float(cand in row["gold"]) for row in rows for cand in row["signals"]])
    found = l2_logistic(x, y, c)
    return ChargeModel(
        {name: round(float(v), 3) for name, v in zip(names, found[:-1], strict=True)}, round(float(found[-1]), 3)
    )


def choose(row: dict[str, Any], model: ChargeModel, choice: Choice) -> tuple[list[tuple[str, float]], list[str]]:
    """(ranking, charges the scorer chooses) of one recorded item under ``choice``, before any check of the fact."""
    ranked = rank_charges(row["signals"], model)
    acts = [rank_charges(act, model) for act in row.get("acts", [])] if choice.acts < 1 else []
    least = stated_charge_count(row["fact"]) if choice.stated else 0
    return ranked, choose_charges(ranked, choice.threshold, choice.most, acts, choice.acts, least, choice.fill)


def decide(row: dict[str, Any], model: ChargeModel, choice: Choice) -> tuple[list[tuple[str, float]], list[str]]:
    """(ranking, chosen charges) of one recorded item under ``choice``, after the told acts and family checks."""
    ranked, chosen = choose(row, model, choice)
    candidates = tuple(name for name, _ in ranked[:8])
    able = tuple(name for name, p in ranked[:8] if p >= choice.stand_in)
    checks = (choice.told, choice.families and charge_families.FAMILIES)
    return ranked, list(_checked(tuple(chosen), candidates, row["fact"], *checks, able))


@lru_cache(maxsize=1 << 16)
def _checked(
    chosen: tuple[str, ...],
    candidates: tuple[str, ...],
    fact: str,
    told: bool,
    families: object,
    able: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """``chosen`` after the told-acts rule (``able``: the candidates that may stand in) and the family checks
    (``families``: the family table in force, or False): once per distinct choice, however many thresholds
    make it (the fit tries hundreds)."""
    checked = told_acts(chosen, candidates, fact, able) if told else list(chosen)
    if families:
        checked, _ = check_families(checked, candidates, fact)
    return tuple(checked)


def exact(row: dict[str, Any], model: ChargeModel, choice: Choice) -> bool:
    """Whether ``row``'s charges as ``choice`` decides them are its gold ones, as :func:`measure` counts them."""
    tp, n_pred, n_gold = match_charges(decide(row, model, choice)[1], row["gold"])
    return tp == n_pred == n_gold


def measure(rows: Sequence[dict[str, Any]], model: ChargeModel, choice: Choice) -> dict[str, float]:
    """Exact-set accuracy, micro-F1, best-candidate precision and the candidates' ceiling over ``rows``."""
    exact = best = ceiling = 0
    counts = []
    for row in rows:
        ranked, chosen = decide(row, model, choice)
        tp, n_pred, n_gold = match_charges(chosen, row["gold"])
        counts.append((tp, n_pred, n_gold))
        exact += tp == n_pred == n_gold
        best += bool(ranked) and ranked[0][0] in row["gold"]
        ceiling += set(row["gold"]) <= set(row["signals"])
    n = max(len(rows), 1)
    return {
        "items": len(rows),
        "accuracy": round(exact / n, 3),
        "micro_f1": round(micro_prf(counts).f1, 3),
        "best_is_gold": round(best / n, 3),
        "ceiling": round(ceiling / n, 3),
    }


def best_choice(
    rows: Sequence[dict[str, Any]], model: ChargeModel, most: int, acts: bool, families: bool, stated: bool, told: bool
) -> Choice:
    """The thresholds with the best tuning-half accuracy (the higher ones on ties)."""
    grid = [round(float(t), 2) for t in np.arange(0.1, 1.05, 0.1)]
    fills = STATED_THRESHOLDS if stated else (0.0,)
    choices = [
        Choice(t, a, most, families, stated, told, f, fitted_charge_policy().stand_in)
        for t in grid
        for a in (grid if acts else [1.0])
        for f in fills
    ]
    return max(choices, key=lambda c: (measure(rows, model, c)["accuracy"], c.threshold, c.acts, c.fill))


def report(halves: Mapping[str, Sequence[dict[str, Any]]], model: ChargeModel, choice: Choice) -> None:
    print(f"  {choice}")
    for half, rows in halves.items():
        print(f"  {half:6} {measure(rows, model, choice)}")


def balanced(rows: Sequence[dict[str, Any]], per_charge: int) -> list[dict[str, Any]]:
    """At most ``per_charge`` rows per gold charge set, the first in file order (0: all), so that the frequent
    charges do not set the weights alone."""
    if per_charge < 1:
        return list(rows)
    seen: Counter[tuple[str, ...]] = Counter()
    kept = []
    for row in rows:
        key = tuple(sorted(row["gold"]))
        seen[key] += 1
        if seen[key] <= per_charge:
            kept.append(row)
    return kept


def fit_charges(
    files: Sequence[Path], data: Sequence[Path], c: float, most: int, write: bool, per_charge: int = 0
) -> ChargePolicy:
    """Fit the weights on the tuning half (at most ``per_charge`` items per gold charge set, when given), then the
    thresholds step by step (acts, family checks, stated counts, told acts) on the same items, printing both
    halves at each step; with ``write`` the last step replaces the shipped policy."""
    rows = [json.loads(line) for path in files for line in recorded_lines(path) if line]
    halves: dict[str, list[dict[str, Any]]] = {half: [r for r in rows if r["half"] == half] for half in HALVES}
    tune = balanced(halves["tune"], per_charge)
    facts = {str(item["id"]): item["fact"] for path in data for item in load_items("charge", path)}
    for row in rows:
        row["fact"] = facts[str(row["id"])]
    shipped = fitted_charge_policy()
    print(f"shipped {dict(shipped.model.weights)} bias {shipped.model.bias}")
    shipped_choice = policy_choice(shipped, most)
    report(halves, shipped.model, replace(shipped_choice, told=False))
    report(halves, shipped.model, shipped_choice)
    fitted = fit(tune, c)
    print(f"fitted on tune: {dict(fitted.weights)} bias {fitted.bias}")
    report(halves, fitted, Choice(1.01, 1.01, 1, False))
    choice = Choice(1.0, 1.0, most, False)
    for acts, families, stated, told in (
        (False, False, False, False),
        (True, False, False, False),
        (True, True, False, False),
        (True, True, True, False),
        (True, True, True, True),
    ):
        choice = best_choice(tune, fitted, most, acts, families, stated, told)
        report(halves, fitted, choice)
    depths = {len(r["fused"]) for r in rows}
    policy = ChargePolicy(
        fitted, max(depths), choice.threshold, choice.acts, shipped.floor, choice.fill, shipped.stand_in
    )
    if write:
        values = {
            "weights": dict(fitted.weights),
            "bias": fitted.bias,
            "depth": policy.depth,
            "threshold": policy.threshold,
            "act_threshold": policy.act_threshold,
            "floor": policy.floor,
            "stated_threshold": policy.stated_threshold,
            "stand_in": policy.stand_in,
        }
        command = (
            f"jurisgraph fit charges {' '.join(map(str, files))} {' '.join(f'--data {d}' for d in data)} --c {c}"
            + (f" --per-charge {per_charge}" if per_charge else "")
        )
        source = provenance(
            list(data),
            "tune",
            command,
            runs=sorted({str(p.parent) for p in files}),
            measured={half: measure(halves[half], fitted, choice) for half in HALVES},
            floor="kept from the shipped policy (not fitted)",
            stand_in="kept from the shipped policy (not fitted)",
        )
        write_fitted(BUNDLED_CHARGE_MODEL, values, source)
    return policy
