"""Record every candidate charge's signals for the items of a dev file (a benchmark, not a test).

    JURIS_DATA_DIR=KB python benchmarks/charge_signals.py --data DATA.jsonl --out RUN/signals.jsonl \
        [--model local] [--set key=value ...]

One line per item: its half, gold charges (as the KB names them) and, per candidate charge, the signals of
:mod:`tools.law.charge_scores` as the judge graph computes them before its audit (lexical features, the
model-free Researcher strategies and, with ``--model``, the model's pre-judgment, the one model call).
Items already in ``--out`` are skipped, so an interrupted run resumes. ``jurisgraph fit charges``
fits the charge model on the tuning half of these files.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents.context import JudgeContext
from agents.scorer import fact_signals
from agents.state.judge import JudgeInput
from app.eval.tasks import gold_articles, gold_charges, half_of, load_items
from graphs.research import graph as research
from tools.kb.charges import ChargeRepository
from tools.law.charge_model import fitted_charge_policy
from tools.services import get_services


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--model", default="", help="pre-judge with this model (e.g. local); none when empty")
    parser.add_argument(
        "--from", dest="recorded", type=Path, help="reuse the fused rankings and pre-judgments recorded in this file"
    )
    parser.add_argument("--set", dest="settings", action="append", default=[], help="Context key=value (repeatable)")
    args = parser.parse_args()
    services = get_services()
    repository = ChargeRepository(services.graph)
    base = JudgeContext().with_overrides(args.settings)
    own = {role: spec for role, spec in base.models.items() if role != "judge"}
    prejudge = base.prejudge if args.model else "off"
    ctx = replace(base, feature_extractor="lexical", model=args.model or base.model, models=own, prejudge=prejudge)
    done = set()
    if args.out.exists():
        done = {json.loads(line)["id"] for line in args.out.read_text(encoding="utf-8").splitlines() if line}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    items = [i for i in load_items("charge", args.data) if str(i["id"]) not in done]
    recorded: dict[str, tuple[list[str], dict[str, float]]] = {}
    if args.recorded:
        for line in args.recorded.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            recorded[str(row["id"])] = (row["fused"], row["prejudged"])
        items = [i for i in items if str(i["id"]) in recorded]

    def describe(item: dict[str, Any], fused: list[str], prejudged: dict[str, float]) -> dict[str, Any]:
        signals, _, act_signals = fact_signals(services, repository, item["fact"], fused, prejudged, ctx)
        return {
            "id": item["id"],
            "half": half_of(str(item["id"])),
            "gold": gold_charges(item["charges"], gold_articles(item), repository),
            "fused": fused,
            "prejudged": prejudged,
            "signals": signals,
            "acts": act_signals,
        }

    with args.out.open("a", encoding="utf-8") as sink:
        for item in tqdm(items, desc="charge signals"):
            fact = item["fact"]
            prejudged: dict[str, float]
            if str(item["id"]) in recorded:
                fused, prejudged = recorded[str(item["id"])]
                sink.write(json.dumps(describe(item, fused, prejudged), ensure_ascii=False) + "\n")
                continue
            # The judge's research pipeline, with the pre-judgment only when a model is given.
            researched = research.invoke(JudgeInput(fact=fact), context=ctx)
            prejudged = {g["name"]: g["confidence"] for g in researched.get("prejudged", [])}
            fused = researched["rankings"]["researcher"][: fitted_charge_policy().depth]
            sink.write(json.dumps(describe(item, fused, prejudged), ensure_ascii=False) + "\n")
            sink.flush()


if __name__ == "__main__":
    main()
