"""How much a consultation's vote should count by how much its answer uses the article it cites, model-free, on
labels a lawyer would accept (STARD train's, the everyday set's), never on the consultations' own citations.

    JURIS_DATA_DIR=$KB/consult python benchmarks/vote_usage.py record ../shared/data/zh/eval/stard_train.jsonl \
        --limit 300 --hide --out RUN/stard.jsonl          (and benchmarks/everyday_questions.jsonl, no --hide)
    python benchmarks/vote_usage.py fit RUN/stard.jsonl RUN/everyday.jsonl [--write]

``record`` finds each question's nearest answered consultations as LawSearch does (with ``--hide``, those of the
question's own half left out: STARD train's questions are among them) and writes per question its labelled
articles and each neighbour's similarity, cited articles and answer use. Items already in ``--out`` are
skipped. ``fit`` ranks the vote at each saturation (0: every vote in full, as before) and prints, per file and
half, the share of questions with a lawyer's article in the vote's first one, three and five, and its mean
reciprocal rank; the saturation chosen is the one with the best top-three share on the tuning halves of all
files together (ties to the smaller).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tools.corpus.halves import half_of
from tools.corpus.jsonl import recorded_lines
from tools.fitted import provenance, write_fitted
from tools.retrieval.consultations import BUNDLED_VOTE_USAGE, Neighbour, fitted_vote_saturation, vote

GRID = [0.0, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0]
DEPTH = 10


def record(args: argparse.Namespace) -> None:
    from conditional_basis import to_record

    from agents.context import ConsultContext
    from app.eval.tasks import gold_articles
    from tools.services import get_services

    services, k = get_services(), ConsultContext().consultation_k
    with args.out.open("a", encoding="utf-8") as out:
        for item in to_record(args.questions, args.out, None, args.limit):
            half = half_of(str(item["id"]))
            found = services.consultations.neighbours(item["question"], k, half if args.hide else "")
            row = {
                "id": str(item["id"]),
                "half": half,
                "gold": sorted(gold_articles(item)),
                "neighbours": [
                    [n.id, round(n.score, 4), list(n.articles), [round(u, 4) for u in n.uses]] for n in found
                ],
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def measure(rows: list[dict[str, Any]], saturation: float) -> dict[str, float]:
    """Share of rows with a lawyer's article in the vote's top one, three and five, and the mean reciprocal rank."""
    hits = {1: 0, 3: 0, 5: 0}
    reciprocal = 0.0
    for row in rows:
        gold = set(row["gold"])
        neighbours = [Neighbour(i, s, tuple(a), tuple(u)) for i, s, a, u in row["neighbours"]]
        ranked = vote(neighbours, DEPTH, saturation)
        first = next((rank for rank, a in enumerate(ranked, 1) if a in gold), 0)
        for k in hits:
            hits[k] += 0 < first <= k
        reciprocal += 1 / first if first else 0.0
    n = max(len(rows), 1)
    return {f"top{k}": v / n for k, v in hits.items()} | {"mrr": reciprocal / n}


def fit(args: argparse.Namespace) -> None:
    from conditional_basis import committed

    files = {p.name: [json.loads(line) for line in recorded_lines(p) if line] for p in args.rows}
    # Chosen on the tuning halves of every file together: the report halves are only measured.
    choose = [r for rows in files.values() for r in rows if r["half"] == "tune"]
    chosen = max(GRID, key=lambda s: (measure(choose, s)["top3"], -s))
    print(f"## chosen on the tune halves ({len(choose)}): saturation {chosen} (best top-three share)")
    print("file\thalf\tn\tsaturation\ttop1\ttop3\ttop5\tmrr")
    for name, rows in files.items():
        for half in ("tune", "report"):
            part = [r for r in rows if r["half"] == half]
            for saturation in GRID if part else []:
                m = measure(part, saturation)
                mark = " *" if saturation == chosen else ""
                print(
                    f"{name}\t{half}\t{len(part)}\t{saturation}{mark}\t{m['top1']:.3f}\t{m['top3']:.3f}\t"
                    f"{m['top5']:.3f}\t{m['mrr']:.3f}"
                )
    print(f"shipped saturation {fitted_vote_saturation()}")
    if args.write:
        command = "python benchmarks/vote_usage.py fit " + " ".join(map(str, args.rows)) + " --write"
        write_fitted(BUNDLED_VOTE_USAGE, {"saturation": chosen}, provenance(committed(args.rows), "tune", command))


def main() -> None:
    from conditional_basis import record_parser

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    record_parser(sub)
    fitting = sub.add_parser("fit")
    fitting.add_argument("rows", type=Path, nargs="+")
    fitting.add_argument("--write", action="store_true", help="ship the chosen saturation (vote_usage.json)")
    args = parser.parse_args()
    record(args) if args.command == "record" else fit(args)


if __name__ == "__main__":
    main()
