"""The conditional tier of the Legal Basis, model-free: record what the search finds for questions a lawyer labelled,
then fit the floor a candidate's support must reach to join the basis as conditional.

    JURIS_DATA_DIR=$KB/consult JURIS_RERANKER=$G python benchmarks/conditional_basis.py record \
        ../shared/data/zh/eval/stard_train.jsonl --half report --limit 100 --out RUN/stard-report.jsonl
    python benchmarks/conditional_basis.py fit RUN/everyday.jsonl RUN/stard-tune.jsonl RUN/stard-report.jsonl [--write]

``record`` runs LawSearch as the product does on each question (its own half of the answered consultations hidden:
STARD train's questions are among them), the keeper and the criminal counterparts, and writes per question its
labelled articles and every evidence article with its support, whether it passes, and the character pairs it
shares with the question, and the sources' reciprocal ranks. Items already in ``--out`` are skipped. ``fit``
prints, per floor, the share of questions with a lawyer's article in the basis (either tier), the precision of
the concluded tier and of the conditional one, on each file and half, and chooses the floor on the tuning halves:
the highest at which every file's tuning half has a lawyer's article in the basis for at least ``--coverage`` of
its questions (a floor higher still lets in fewer wrong articles, and misses the lawyer's for more people); and
beside a concluded basis (the question answered already), the lowest floor from there whose joining articles
reach ``--beside-precision``. The curves are printed with the beside floor applied (never under the floor).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tools.corpus.halves import half_of
from tools.corpus.jsonl import recorded_lines
from tools.fitted import provenance, write_fitted
from tools.retrieval.conditional import BUNDLED_FLOOR, CONDITIONAL_MAX, conditional_articles, fitted_conditional_floor

GRID = [round(0.02 * i, 2) for i in range(1, 31)]


def to_record(questions: Path, out: Path, half: str | None, limit: int) -> list[dict[str, Any]]:
    """The items of ``questions`` (of ``half`` when given; the first ``limit`` when given) that ``out`` does not
    hold yet: a record resumes where it stopped."""
    done = {json.loads(line)["id"] for line in recorded_lines(out) if line}
    items = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [i for i in items if not half or half_of(str(i["id"])) == half]
    return [i for i in (items[:limit] if limit else items) if str(i["id"]) not in done]


def record(args: argparse.Namespace) -> None:
    from everyday_basis import searched

    from agents.context.experiment import MeasuredConsult
    from app.eval.tasks import gold_articles
    from tools.law.wording import shared_pairs
    from tools.retrieval.hybrid import OPTIONAL_SOURCES
    from tools.services import get_services

    services = get_services()
    counts = {c: services.vectors.count(c) for c in OPTIONAL_SOURCES}
    with args.out.open("a", encoding="utf-8") as out:
        for item in to_record(args.questions, args.out, args.half, args.limit):
            half = half_of(str(item["id"]))
            ctx = MeasuredConsult(hidden_consultation_half=half if args.hide else "")
            question = item["question"]
            evidence, kept = searched(question, services, ctx, counts)
            row = {
                "id": str(item["id"]),
                "half": half,
                "question": question,
                "gold": sorted(gold_articles(item)),
                "kept": kept,
                "evidence": [
                    {
                        "article_id": e["article_id"],
                        "support": round(e["support"], 4),
                        "passes": e["passes"],
                        "shared": shared_pairs(e["text"], question),
                        "signals": e["signals"],
                    }
                    for e in evidence
                ],
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            print(f"{row['id']}: kept {row['kept']} gold {row['gold']}")


def measure(rows: list[dict[str, Any]], floor: float, beside: float | None = None) -> dict[str, float]:
    """Share of rows with a lawyer's article in the basis (either tier), and each tier's precision; ``beside``: the
    floor beside a concluded basis (``floor`` when not given)."""
    covered = kept_n = kept_good = cond_n = cond_good = 0
    for row in rows:
        gold = set(row["gold"])
        joining = floor if beside is None or not row["kept"] else beside
        conditional = conditional_articles(row["evidence"], row["kept"], row["question"], joining)
        kept_n += len(row["kept"])
        kept_good += len(set(row["kept"]) & gold)
        cond_n += len(conditional)
        cond_good += len(set(conditional) & gold)
        covered += bool((set(row["kept"]) | set(conditional)) & gold)
    n = max(len(rows), 1)
    return {
        "covered": covered / n,
        "kept_precision": kept_good / max(kept_n, 1),
        "conditional_precision": cond_good / max(cond_n, 1),
        "conditional_per_question": cond_n / n,
    }


def fit(args: argparse.Namespace) -> None:
    # A committed file is read from its .gz twin (recorded_lines), as every committed run is.
    files = {p.name: [json.loads(line) for line in recorded_lines(p) if line] for p in args.rows}
    # Chosen on the tuning halves of every file: the report halves are only measured.
    tunes = [[r for r in rows if r["half"] == "tune"] for rows in files.values()]
    tunes = [rows for rows in tunes if rows]
    eligible = [f for f in GRID if all(measure(rows, f)["covered"] >= args.coverage for rows in tunes)]
    chosen = max(eligible) if eligible else min(GRID)
    print(f"## chosen on the tune halves ({sum(map(len, tunes))}): floor {chosen} (covered >= {args.coverage} on each)")
    # Beside a concluded basis: the lowest floor from there whose joining articles a lawyer cites as often as asked.
    concluded = [r for rows in tunes for r in rows if r["kept"]]
    beside_curve = [(f, measure(concluded, f)) for f in GRID if f >= chosen]
    print("beside a concluded basis, tune halves: floor\tcovered\tconditional precision\tper question")
    for f, m in beside_curve:
        print(f"  {f}\t{m['covered']:.3f}\t{m['conditional_precision']:.3f}\t{m['conditional_per_question']:.2f}")
    beside = next((f for f, m in beside_curve if m["conditional_precision"] >= args.beside_precision), max(GRID))
    print(f"## beside a concluded basis: floor {beside} (conditional precision >= {args.beside_precision})")
    print("file\thalf\tn\tfloor\tcovered\tkept precision\tconditional precision\tconditional per question")
    for name, rows in files.items():
        for half in ("tune", "report"):
            part = [r for r in rows if r["half"] == half]
            if not part:
                continue
            for floor in (1.01, *GRID):  # 1.01: no conditional tier (the concluded tier alone)
                m = measure(part, floor, max(floor, beside))
                mark = " *" if floor == chosen else ""
                print(
                    f"{name}\t{half}\t{len(part)}\t{floor}{mark}\t{m['covered']:.3f}\t{m['kept_precision']:.3f}\t"
                    f"{m['conditional_precision']:.3f}\t{m['conditional_per_question']:.2f}"
                )
    shipped = fitted_conditional_floor(), fitted_conditional_floor(beside=True)
    print(f"shipped floors {shipped[0]} / {shipped[1]} beside, at most {CONDITIONAL_MAX} articles in the basis")
    if args.write:
        command = "python benchmarks/conditional_basis.py fit " + " ".join(map(str, args.rows)) + " --write"
        details = {"coverage": args.coverage, "beside_precision": args.beside_precision}
        write_fitted(
            BUNDLED_FLOOR,
            {"floor": chosen, "beside": beside},
            provenance(committed(args.rows), "tune", command, **details),
        )


def record_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``record`` command's arguments, shared with the other benchmarks that record questions."""
    rec: argparse.ArgumentParser = sub.add_parser("record")
    rec.add_argument("questions", type=Path)
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--limit", type=int, default=0)
    rec.add_argument("--hide", action="store_true", help="hide the question's half of the answered consultations")
    return rec


def committed(paths: list[Path]) -> list[Path]:
    """Each recorded file as committed, to hash for a provenance: itself, or its .gz twin once compressed."""
    return [p if p.is_file() else p.with_name(p.name + ".gz") for p in paths]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    record_parser(sub).add_argument("--half", choices=["tune", "report"])
    fitting = sub.add_parser("fit")
    fitting.add_argument("rows", type=Path, nargs="+")
    fitting.add_argument("--coverage", type=float, default=0.6, help="least share covered on each tune half")
    fitting.add_argument("--beside-precision", type=float, default=0.2, help="least precision beside a concluded basis")
    fitting.add_argument("--write", action="store_true", help="ship the chosen floor (conditional_floor.json)")
    args = parser.parse_args()
    record(args) if args.command == "record" else fit(args)


if __name__ == "__main__":
    main()
