"""Terms of ljp runs as issue 41 asks (a benchmark, not a test): the mean absolute error in months and the
share of judgments whose term falls within the gold's statutory tier — the penalty range of a gold article
(处三年以下…, 处三年以上十年以下…) that holds the gold term. A term at a tier's bound belongs to both tiers.

    JURIS_DATA_DIR=$KB/judge python benchmarks/term_tiers.py --task ljp --data $D/ljp_dev.jsonl \\
        benchmarks/runs/s34-ljp-report:full benchmarks/runs/s34-ljp-report:naive_rag benchmarks/runs/s23-ljp-report:full

Only items with a fixed gold term (months) that every run:system answered count, and of those, for the tier
share, the items one of whose gold articles sets a fixed-term tier holding the gold term (a gold article the KB
lacks or that sets no term, such as art. 67, gives none).
"""

from __future__ import annotations

from typing import Any

from charge_confusions import load_runs, run_parser

from tools.kb.charges import ChargeRepository
from tools.kb.statutes import StatuteRepository
from tools.law.penalties import Tier, article_tiers
from tools.services import get_services


def gold_tiers(gold: dict[str, Any], texts: dict[str, str]) -> list[Tier]:
    """The tiers of the gold articles that hold the gold term."""
    months = gold["term_months"]
    tiers = [t for a in gold["articles"] if a in texts for t in article_tiers(texts[a])]
    return [t for t in tiers if t.low <= months <= t.high]


def main() -> None:
    args = run_parser(__doc__).parse_args()
    services = get_services()
    answered = load_runs(args.runs, args.task, args.data, ChargeRepository(services.graph))
    shared = set.intersection(*(set(a) for a in answered.values()))
    first = next(iter(answered.values()))
    fixed = sorted(i for i in shared if isinstance(first[i]["gold"].get("term_months"), int))
    ids = sorted({a for i in fixed for a in first[i]["gold"]["articles"]})
    texts = {a.id: a.text for a in StatuteRepository(services.graph).get_articles(ids)}
    tiers = {i: gold_tiers(first[i]["gold"], texts) for i in fixed}
    tiered = [i for i in fixed if tiers[i]]
    print(f"{len(fixed)} items with a fixed gold term; {len(tiered)} with a gold tier holding it\n")
    print("| run:system | term MAE (months) | within the gold's tier |\n|---|---|---|")
    for spec, lines in answered.items():
        errors = [abs(lines[i]["prediction"]["term_months"] - lines[i]["gold"]["term_months"]) for i in fixed]
        within = [any(t.low <= lines[i]["prediction"]["term_months"] <= t.high for t in tiers[i]) for i in tiered]
        mae = sum(errors) / len(errors) if errors else 0.0
        share = sum(within) / len(within) if within else 0.0
        print(f"| {spec} | {mae:.2f} | {share:.3f} ({sum(within)}/{len(within)}) |")


if __name__ == "__main__":
    main()
