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
micro-F1 of the shipped policy and of the fitted one, with and without the family checks, and with the checks as
signals fitted beside the others instead of overrides (:data:`FAMILY_SIGNALS`); then, per family, the
report-half judgments it changes and how many of them it makes exact (+) or inexact (−): every judgment of an
``--unseen`` file (a corpus no pattern was written from, such as the CAIL samples). With ``--unjudged``, charges
the KB holds no judgment of (:func:`unjudged_rows`): how often a one-charge fact is still convicted of its charge
once that charge's precedents are taken away, by the shipped policy and with such charges scored by a
statute-only model, beside what the latter costs where every charge keeps its precedents.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.eval.metrics import paired_bootstrap
from app.eval.tasks import load_items
from app.fit.charges import Choice, best_choice, decide, exact, fit, measure, policy_choice
from tools.corpus.jsonl import recorded_lines
from tools.kb.cases import judgment_counts
from tools.kb.charges import ChargeRepository
from tools.law import charge_families
from tools.law.charge_model import ChargePolicy, fitted_charge_policy
from tools.law.charge_scores import SIGNALS, ChargeModel, rank_charges
from tools.services import get_services

MOST = 3


def signal_rows(spec: str) -> tuple[str, list[dict[str, Any]]]:
    """A ROWS:DATA spec's name and rows, each with its fact (rows whose item the data file lacks are left out);
    ROWS may join several files with + (rows of one corpus recorded in parts)."""
    rows_paths, _, data = spec.partition(":")
    facts = {str(item["id"]): item["fact"] for item in load_items("charge", Path(data))}
    paths = [Path(p) for p in rows_paths.split("+")]
    rows = [json.loads(line) for path in paths for line in recorded_lines(path) if line]
    name = "+".join(path.name.split(".")[0] for path in paths)
    return name, [{**r, "fact": facts[str(r["id"])]} for r in rows if str(r["id"]) in facts]


def family_effects(
    rows: list[dict[str, Any]], model: ChargeModel, choice: Choice, members: bool = False
) -> dict[str, tuple[int, int, int]]:
    """Family name (with ``members``: family/member, for each member of a family of three or more) -> (judgments
    its leaving out changes, made exact by it, made inexact by it) over ``rows``."""
    every = charge_families.FAMILIES
    chosen = [set(decide(r, model, choice)[1]) for r in rows]
    variants: dict[str, tuple[charge_families.Family, ...]] = {}
    for family in every:
        others = tuple(f for f in every if f is not family)
        variants[family.name] = others
        if members and len(family.members) > 2:
            for member in family.members:
                rest = replace(family, members=tuple(m for m in family.members if m is not member))
                variants[f"{family.name}/{member.charge}"] = (*others, rest)
    effects = {}
    try:
        for name, families in variants.items():
            charge_families.FAMILIES = families
            changed = plus = minus = 0
            for row, with_it in zip(rows, chosen, strict=True):
                without = set(decide(row, model, choice)[1])
                if without != with_it:
                    gold = set(row["gold"])
                    changed, plus, minus = changed + 1, plus + (with_it == gold), minus + (without == gold)
            effects[name] = (changed, plus, minus)
    finally:
        charge_families.FAMILIES = every
    return effects


FAMILY_SIGNALS = ("element", "neighbour")
"""The family checks as signals (issue 65 asks for them as features, not overrides): the fact states the
candidate's distinguishing element; the fact states a more specific rival's. Rivals as the checks find them:
members among the base model's best eight candidates, and a by-law family's members the fact states."""


def with_family_signals(row: dict[str, Any], base: ChargeModel) -> dict[str, Any]:
    """``row`` with :data:`FAMILY_SIGNALS` in every candidate's signals (a by-law member it states is added)."""

    def augmented(signals: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        out = {name: {**values, **dict.fromkeys(FAMILY_SIGNALS, 0.0)} for name, values in signals.items()}
        best = [name for name, _ in rank_charges(signals, base)[:8]]
        for family in charge_families.FAMILIES:
            stated = [m for m in family.members if m.stated_in(row["fact"])]
            rivals = [m for m in family.members if m.charge in best or (family.by_law and m in stated)]
            if len(rivals) < 2:
                continue
            for member in rivals:
                values = out.setdefault(member.charge, dict.fromkeys((*SIGNALS, *FAMILY_SIGNALS), 0.0))
                position = family.members.index(member)
                values["element"] = float(member in stated)
                values["neighbour"] = float(any(family.members.index(m) < position for m in stated if m in rivals))
        return out

    return {**row, "signals": augmented(row["signals"]), "acts": [augmented(a) for a in row.get("acts", [])]}


UNJUDGED = "unjudged"
"""Marks a candidate the KB holds no judgment of (no weight: only :class:`StatuteWhereUnjudged` reads it)."""
STATUTE_SIGNALS = ("offence", "rank", "prejudged")
"""What speaks for a charge no precedent can vote for: its statute and the pre-judgment."""


@dataclass(frozen=True)
class StatuteWhereUnjudged(ChargeModel):
    """``statute``'s probability for a candidate marked :data:`UNJUDGED`, the weights' own for the rest."""

    statute: ChargeModel

    def probability(self, signals: Mapping[str, float]) -> float:
        return self.statute.probability(signals) if signals.get(UNJUDGED) else super().probability(signals)


def unjudged_rows(rows: list[dict[str, Any]], judged: set[str], unprecedented: bool) -> list[dict[str, Any]]:
    """``rows`` with :data:`UNJUDGED` marking the candidates not in ``judged``; with ``unprecedented``, only the
    one-charge rows whose gold is a candidate, each as if the KB held no judgment of that charge: its vote and
    coverage 0 and marked, its share of the vote spread over the other voted charges (their neighbours would
    have taken its place)."""

    def marked(signals: dict[str, dict[str, float]], gold: str) -> dict[str, dict[str, float]]:
        out = {name: {**values, UNJUDGED: float(name not in judged)} for name, values in signals.items()}
        if gold in out:
            share = out[gold]["vote"]
            out[gold] |= {"vote": 0.0, "coverage": 0.0, UNJUDGED: 1.0}
            for name, values in out.items():
                if name != gold and values["vote"] > 0 and share < 1:
                    values["vote"] = min(values["vote"] / (1 - share), 1.0)
        return out

    picked = [r for r in rows if len(r["gold"]) == 1 and r["gold"][0] in r["signals"]] if unprecedented else rows
    out = []
    for row in picked:
        gold = row["gold"][0] if unprecedented else ""
        out.append(
            {**row, "signals": marked(row["signals"], gold), "acts": [marked(a, gold) for a in row.get("acts", [])]}
        )
    return out


def reached(rows: list[dict[str, Any]], model: ChargeModel, choice: Choice) -> float:
    """Share of one-charge ``rows`` convicted of their gold charge (among others or not)."""
    return sum(r["gold"][0] in decide(r, model, choice)[1] for r in rows) / max(len(rows), 1)


def unjudged_table(files: dict[str, list[dict[str, Any]]], train: list[dict[str, Any]], shipped: ChargePolicy) -> None:
    """Per file: exact accuracy with and without the statute-only scoring, and how often the gold of a one-charge
    fact is still convicted when the KB holds no judgment of it."""
    services = get_services()
    repository = ChargeRepository(services.graph)
    judged = {repository.resolve(name) or name for name, n in judgment_counts(services.graph).items() if n}
    statute = fit(train, 1.0, STATUTE_SIGNALS)
    scorer = StatuteWhereUnjudged(shipped.model.weights, shipped.model.bias, statute)
    choice = policy_choice(shipped, MOST)
    print(f"\nCharges without judgments (statute-only model {dict(statute.weights)} bias {statute.bias}):")
    print("| file | exact, shipped | exact, statute where unjudged | gold unjudged: convicted, shipped | statute |")
    print("|---|---|---|---|---|")
    for file, rows in files.items():
        plain = unjudged_rows(rows, judged, False)
        gone = unjudged_rows(rows, judged, True)
        exact = [measure(plain, model, choice)["accuracy"] for model in (shipped.model, scorer)]
        print(
            f"| {file} ({len(rows)}) | {exact[0]:.3f} | {exact[1]:.3f} | {reached(gone, shipped.model, choice):.3f} "
            f"({len(gone)}) | {reached(gone, scorer, choice):.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="append", required=True, help="ROWS:DATA the weights are fitted on")
    parser.add_argument("--fit-halves", default="tune,report", help="halves of the --fit rows fitted on")
    parser.add_argument("--choose", required=True, help="ROWS:DATA whose tuning half chooses the thresholds")
    parser.add_argument("--report", action="append", default=[], help="ROWS:DATA measured (both halves)")
    parser.add_argument(
        "--unseen",
        action="append",
        default=[],
        help="ROWS:DATA no pattern was written from: measured like --report, each family's effect on all its rows",
    )
    parser.add_argument("--members", action="store_true", help="also leave out each member of a larger family")
    parser.add_argument(
        "--shipped-thresholds", action="store_true", help="the fitted weights with the shipped thresholds, none chosen"
    )
    parser.add_argument(
        "--unjudged", action="store_true", help="also measure charges the KB holds no judgment of (reads the KB)"
    )
    args = parser.parse_args()
    halves = set(args.fit_halves.split(","))
    train = [r for spec in args.fit for r in signal_rows(spec)[1] if r["half"] in halves]
    unseen = dict(signal_rows(spec) for spec in args.unseen)
    reports = dict(signal_rows(spec) for spec in args.report)
    files = {**dict([signal_rows(args.choose)]), **reports, **unseen}
    tune = [r for r in files[next(iter(files))] if r["half"] == "tune"]
    shipped = fitted_charge_policy()
    fitted = fit(train, 1.0)
    augmented = {file: [with_family_signals(r, fitted) for r in rows] for file, rows in files.items()}
    featured = fit([with_family_signals(r, fitted) for r in train], 1.0, (*SIGNALS, *FAMILY_SIGNALS))
    featured_tune = [r for r in augmented[next(iter(files))] if r["half"] == "tune"]
    shipped_choice = policy_choice(shipped, MOST)
    policies = {
        "shipped": (shipped.model, shipped_choice),
        "shipped, any candidate fills a stated count": (shipped.model, replace(shipped_choice, fill=0.0)),
        "fitted": (
            fitted,
            shipped_choice if args.shipped_thresholds else best_choice(tune, fitted, MOST, True, True, True, True),
        ),
        "fitted, no families": (fitted, best_choice(tune, fitted, MOST, True, False, True, True)),
        "fitted, families as signals": (
            featured,
            best_choice(featured_tune, featured, MOST, True, False, True, True),
        ),
    }
    print(f"fitted on {len(train)} rows: {dict(fitted.weights)} bias {fitted.bias}")
    print(f"with the families as signals: {dict(featured.weights)} bias {featured.bias}")
    for name, (_, choice) in policies.items():
        print(f"  {name}: {choice}")
    print("\n| file | half | " + " | ".join(policies) + " |\n|---|---|" + "---|" * len(policies))
    for file, rows in files.items():
        for half in ("tune", "report"):
            part = [r for r in rows if r["half"] == half]
            featured_part = [r for r in augmented[file] if r["half"] == half]
            scores = [
                measure(featured_part if FAMILY_SIGNALS[0] in model.weights else part, model, choice)
                for model, choice in policies.values()
            ]
            cells = " | ".join(f"{s['accuracy']:.3f} / {s['micro_f1']:.3f}" for s in scores)
            print(f"| {file} ({len(part)}) | {half} | {cells} |")
    pairs: list[tuple[object, object]] = [
        (exact(r, *policies["shipped"]), exact(r, *policies["fitted"]))
        for rows in reports.values()
        for r in rows
        if r["half"] == "report"
    ]
    change, (low, high) = paired_bootstrap(pairs, lambda exacts: sum(map(bool, exacts)) / len(exacts))
    print(f"\nfitted − shipped, exact sets, the --report files' report halves together ({len(pairs)}): ", end="")
    print(f"{change:+.3f} [{low:+.3f}, {high:+.3f}]")
    print("\nFamily checks on the report halves (every row of an --unseen file), shipped policy (judgments changed:")
    print("+made exact −made inexact):")
    model, choice = policies["shipped"]
    for file, rows in files.items():
        part = [r for r in rows if file in unseen or r["half"] == "report"]
        effects = family_effects(part, model, choice, args.members)
        shown = ", ".join(f"{f} {n}: +{p} −{m}" for f, (n, p, m) in effects.items() if n)
        print(f"  {file}: {shown or 'none'}")
    if args.unjudged:
        unjudged_table(files, train, shipped)


if __name__ == "__main__":
    main()
