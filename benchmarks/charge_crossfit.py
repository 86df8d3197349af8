"""Charge decisions fitted on one corpus, thresholds chosen on another, measured on the report halves of the rest,
with each family check's effect there (issue 65; a benchmark, not a test; no model).

    R=benchmarks/runs/s47-charge-signals C=../shared/data/zh/cases
    JURIS_DATA_DIR=$KB/judge python benchmarks/charge_crossfit.py \\
        --fit $R/cail-test-500.jsonl:$C/cail2018_sample_test.jsonl --choose $R/cmdl.jsonl:$C/cmdl_small.jsonl \\
        --report $R/charge_dev.jsonl:$D/charge_dev.jsonl ...

Every ROWS file (or its committed ``ROWS.gz``) holds ``benchmarks/charge_signals.py`` rows (recorded without
``--model``: no pre-judgment, so the shipped policy's strongest signal is absent for every decision alike). The
weights are fitted on the ``--fit`` rows of ``--fit-halves``; the thresholds and checks are chosen as ``jurisgraph
fit charges`` chooses them, on ``--choose``'s tuning half. Printed per file and half: exact-set accuracy and
micro-F1 of the shipped policy and of the fitted one, with and without the family checks; then, per family, the
report-half judgments it changes and how many of them it makes exact (+) or inexact (−).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from app.eval.tasks import load_items
from app.fit.charges import Choice, best_choice, decide, fit, measure
from tools.corpus.jsonl import recorded_lines
from tools.law import charge_families
from tools.law.charge_model import fitted_charge_policy
from tools.law.charge_scores import ChargeModel

MOST = 3


def signal_rows(spec: str) -> tuple[str, list[dict[str, Any]]]:
    """A ROWS:DATA spec's rows, each with its fact (rows whose item the data file lacks are left out)."""
    rows_path, _, data = spec.partition(":")
    facts = {str(item["id"]): item["fact"] for item in load_items("charge", Path(data))}
    rows = [json.loads(line) for line in recorded_lines(Path(rows_path)) if line]
    return Path(rows_path).name.split(".")[0], [
        {**r, "fact": facts[str(r["id"])]} for r in rows if str(r["id"]) in facts
    ]


def family_effects(rows: list[dict[str, Any]], model: ChargeModel, choice: Choice) -> dict[str, tuple[int, int, int]]:
    """Family name -> (judgments it changes, made exact by it, made inexact by it) over ``rows``."""
    every = charge_families.FAMILIES
    chosen = [set(decide(r, model, choice)[1]) for r in rows]
    effects = {}
    try:
        for family in every:
            charge_families.FAMILIES = tuple(f for f in every if f is not family)
            changed = plus = minus = 0
            for row, with_it in zip(rows, chosen, strict=True):
                without = set(decide(row, model, choice)[1])
                if without != with_it:
                    gold = set(row["gold"])
                    changed, plus, minus = changed + 1, plus + (with_it == gold), minus + (without == gold)
            effects[family.name] = (changed, plus, minus)
    finally:
        charge_families.FAMILIES = every
    return effects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="append", required=True, help="ROWS:DATA the weights are fitted on")
    parser.add_argument("--fit-halves", default="tune,report", help="halves of the --fit rows fitted on")
    parser.add_argument("--choose", required=True, help="ROWS:DATA whose tuning half chooses the thresholds")
    parser.add_argument("--report", action="append", default=[], help="ROWS:DATA measured (both halves)")
    args = parser.parse_args()
    halves = set(args.fit_halves.split(","))
    train = [r for spec in args.fit for r in signal_rows(spec)[1] if r["half"] in halves]
    files = dict(signal_rows(spec) for spec in [args.choose, *args.report])
    tune = [r for r in files[next(iter(files))] if r["half"] == "tune"]
    shipped = fitted_charge_policy()
    fitted = fit(train, 1.0)
    policies = {
        "shipped": (shipped.model, Choice(shipped.threshold, shipped.act_threshold, MOST, True, True, True)),
        "fitted": (fitted, best_choice(tune, fitted, MOST, True, True, True, True)),
        "fitted, no families": (fitted, best_choice(tune, fitted, MOST, True, False, True, True)),
    }
    print(f"fitted on {len(train)} rows: {dict(fitted.weights)} bias {fitted.bias}")
    for name, (_, choice) in policies.items():
        print(f"  {name}: {choice}")
    print("\n| file | half | " + " | ".join(policies) + " |\n|---|---|" + "---|" * len(policies))
    for file, rows in files.items():
        for half in ("tune", "report"):
            part = [r for r in rows if r["half"] == half]
            scores = [measure(part, model, choice) for model, choice in policies.values()]
            cells = " | ".join(f"{s['accuracy']:.3f} / {s['micro_f1']:.3f}" for s in scores)
            print(f"| {file} ({len(part)}) | {half} | {cells} |")
    print("\nFamily checks on the report halves, shipped policy (judgments changed: +made exact −made inexact):")
    model, choice = policies["shipped"]
    for file, rows in files.items():
        effects = family_effects([r for r in rows if r["half"] == "report"], model, choice)
        shown = ", ".join(f"{f} {n}: +{p} −{m}" for f, (n, p, m) in effects.items() if n)
        print(f"  {file}: {shown or 'none'}")


if __name__ == "__main__":
    main()
