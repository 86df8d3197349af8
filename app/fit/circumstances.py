"""Fit how far each sentencing circumstance moves a term (``tools/law/circumstance_factors.json``).

    jurisgraph fit circumstances --cases CAIL.jsonl [--cases MORE.jsonl] --exclude DEV.jsonl [...] \
        --check LJP_DEV.jsonl [--write]

On the judged cases of ``--cases`` (never one whose fact a dev file holds) with one charge and a fixed term,
each case's term is compared with the lower median term of the other cases of its charge, as the judge's
precedent median would set it: log((term + 1) / (median + 1)) is regressed on the circumstances the fact states
(ridge, with an intercept that is reported but not shipped: the median already is the typical case). Printed:
how often each circumstance is stated, its weight (the factor is exp(weight)), and on both halves of the
``--check`` file (ljp items, gold charges) the mean absolute error in months of the precedent median alone and
moved by the fitted factors. With ``--write`` the weights replace the shipped file, with their provenance.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from app.eval.tasks import HALVES, half_of, load_items
from app.fit.priors import chosen_cases
from tools.corpus.cail import Case
from tools.fitted import provenance, write_fitted
from tools.law.circumstances import BUNDLED_FACTORS, RULES, CircumstanceFactors, stated_circumstances
from tools.law.sentencing import precedent_term

MIN_PEERS = 3
"""Fewest other cases of a charge for its median to stand for the typical case."""
RIDGE = 5.0
"""L2 penalty on each weight: a circumstance stated in a few dozen cases moves little."""


def lower_median(values: Sequence[int]) -> int:
    """The judge's precedent median (:func:`tools.law.sentencing.precedent_term`) of fixed terms."""
    median = precedent_term([(months, False, False) for months in values])
    assert median is not None, "no terms to take a median of"
    return median[0]


def fixed_term_cases(cases: Sequence[Case]) -> list[Case]:
    return [
        c
        for c in cases
        if len(c.charges) == 1 and c.term_months is not None and not (c.life_imprisonment or c.death_penalty)
    ]


def design(cases: Sequence[Case]) -> tuple[np.ndarray, np.ndarray]:
    """(X, y): each case's circumstances (one column per rule) and log((term + 1) / (peers' median + 1)), over
    :func:`fixed_term_cases`."""
    by_charge: dict[str, list[int]] = defaultdict(list)
    for case in cases:
        by_charge[case.charges[0]].append(case.term_months or 0)
    rows: list[list[float]] = []
    targets: list[float] = []
    for case in cases:
        peers = list(by_charge[case.charges[0]])
        peers.remove(case.term_months or 0)
        if len(peers) < MIN_PEERS:
            continue
        names = {c.name for c in stated_circumstances(case.fact)}
        rows.append([float(rule.name in names) for rule in RULES])
        targets.append(math.log(((case.term_months or 0) + 1) / (lower_median(peers) + 1)))
    return np.asarray(rows), np.asarray(targets)


def ridge(x: np.ndarray, y: np.ndarray, penalty: float) -> tuple[float, np.ndarray]:
    """(intercept, weights) minimising squared error plus ``penalty`` times the weights' squared norm."""
    with_bias = np.hstack([np.ones((len(x), 1)), x])
    regulariser = penalty * np.eye(with_bias.shape[1])
    regulariser[0, 0] = 0.0
    solution = np.linalg.solve(with_bias.T @ with_bias + regulariser, with_bias.T @ y)
    return float(solution[0]), solution[1:]


def check_errors(cases: Sequence[Case], check: Path, factors: CircumstanceFactors) -> dict[str, dict[str, float]]:
    """Per half of the ljp file: MAE in months of the precedent median of the gold charges, alone and moved."""
    terms: dict[str, list[int]] = defaultdict(list)
    for case in cases:
        if case.term_months is None:  # a judgment without a sentence sets no median
            continue
        for charge in case.charges:
            terms[charge].append(case.term_months)
    errors: dict[str, dict[str, list[float]]] = {h: defaultdict(list) for h in HALVES}
    for item in load_items("ljp", check):
        if not isinstance(item.get("term_months"), int):  # life, death or no term given
            continue
        pool = [t for charge in item.get("charges", []) for t in terms.get(charge, [])]
        if not pool:
            continue
        base = lower_median(pool)
        names = [c.name for c in stated_circumstances(item["fact"])]
        gold = int(item["term_months"])
        half = errors[half_of(str(item["id"]))]
        half["median"].append(abs(base - gold))
        half["moved"].append(abs(factors.apply(base, names) - gold))
    return {
        h: {k: round(statistics.fmean(v), 2) for k, v in by.items()} | {"items": len(by["median"])}
        for h, by in errors.items()
    }


def fit_circumstances(case_files: Sequence[Path], exclude: Sequence[Path], check: Path, write: bool) -> None:
    cases = fixed_term_cases(chosen_cases(list(case_files), list(exclude), limit=10**9))
    x, y = design(cases)
    intercept, weights = ridge(x, y, RIDGE)
    fitted = CircumstanceFactors({rule.name: round(float(w), 3) for rule, w in zip(RULES, weights, strict=True)})
    print(f"{len(y)} cases with one charge, a fixed term and {MIN_PEERS}+ peers; intercept {intercept:+.3f}")
    for rule, column, weight in zip(RULES, x.T, weights, strict=True):
        print(f"  {rule.name}: stated in {int(column.sum())}, weight {weight:+.3f} (factor {math.exp(weight):.2f})")
    errors = check_errors(cases, check, fitted)
    print("ljp MAE (months), precedent median alone and moved:", errors)
    if write:
        source = provenance(
            [*case_files, check],
            "all",
            "jurisgraph fit circumstances "
            + " ".join(
                [*(f"--cases {p}" for p in case_files), *(f"--exclude {p}" for p in exclude), f"--check {check}"]
            ),
            cases=len(y),
            intercept=round(intercept, 3),
            ridge=RIDGE,
            check=errors,
        )
        write_fitted(BUNDLED_FACTORS, {"weights": dict(fitted.weights)}, source)
