"""The conditional tier of the Legal Basis, model-free: record what the search finds for questions a lawyer labelled,
then fit which candidates join the basis as conditional.

    JURIS_DATA_DIR=$KB/consult python benchmarks/conditional_basis.py replay RUN:DATA.jsonl --out ROWS.jsonl
    JURIS_DATA_DIR=$KB/consult JURIS_RERANKER=$G python benchmarks/conditional_basis.py record \
        ../shared/data/zh/eval/stard_train.jsonl --half report --limit 100 --out ROWS.jsonl
    python benchmarks/conditional_basis.py fit ROWS.jsonl [ROWS.jsonl ...] [--write]
    python benchmarks/conditional_basis.py compare BEFORE.jsonl AFTER.jsonl

``replay`` reads a ``jurisgraph eval --task retrieval`` run's recorded rankings (each question's half of the
answered consultations hidden where it is one of them) and fuses, supports and keeps them with the shipped fusion
and keeper: minutes for a thousand questions, and rerun after a refit of either. ``record`` searches each question
as the product does instead. Both write per question its labelled articles (and those of them the KB holds),
what the keeper kept with the criminal counterparts, and every evidence article in the evidence's order with its
support, whether it passes, the character pairs it shares with the question and the sources' reciprocal ranks.

``fit`` prints, per number of the evidence's first articles let in whatever their support (``top``, with nothing
concluded) and per support floor, the share of questions with a lawyer's article in the basis (either tier), of all and
of those whose lawyer's articles the KB holds, and the precision of each tier, on each file and half. It chooses ``top``
and the floor on the tuning halves: among those covering, of the questions the KB can answer (mean over the files), at
most ``--tolerance`` fewer than the most, the most precise conditional tier; and beside a concluded basis (the question
answered already), the lowest floor from there whose joining articles reach ``--beside-precision``. The curves are
printed with the beside floor applied (never under the floor).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from app.eval.metrics import paired_bootstrap
from tools.corpus.halves import half_of
from tools.corpus.jsonl import recorded_lines
from tools.fitted import provenance, write_fitted
from tools.retrieval.basis_keeper import BUNDLED_KEEPER, fitted_keeper
from tools.retrieval.conditional import (
    BUNDLED_FLOOR,
    CONDITIONAL_MAX,
    conditional_articles,
    fitted_conditional_floor,
    fitted_conditional_top,
)

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
            row = evidence_row(item, sorted(gold_articles(item)), list(evidence), kept)
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            print(f"{row['id']}: kept {row['kept']} gold {row['gold']}")


def evidence_row(item: dict[str, Any], gold: list[str], evidence: list[Any], kept: list[str]) -> dict[str, Any]:
    """One recorded question: its labelled articles (and those of them the KB holds), what the keeper kept and every
    evidence article with what the conditional tier reads of it."""
    from tools.law.wording import shared_pairs
    from tools.services import get_services

    question = item["question"]
    return {
        "id": str(item["id"]),
        "half": half_of(str(item["id"])),
        "question": question,
        "gold": sorted(gold),
        "held": sorted(a.id for a in get_services().statutes.get_articles(sorted(gold))),
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


def replay(args: argparse.Namespace) -> None:
    from everyday_basis import basis_of

    from agents.context import ConsultContext
    from app.fit.sources import recorded_rows
    from tools.services import get_services

    statutes, ctx = get_services().statutes, ConsultContext()
    with args.out.open("w", encoding="utf-8") as out:
        for item, rankings, gold in recorded_rows(args.run):
            evidence, kept = basis_of(rankings, statutes, ctx)
            out.write(json.dumps(evidence_row(item, sorted(gold), evidence, kept), ensure_ascii=False) + "\n")


def measure(
    rows: list[dict[str, Any]], floor: float, beside: float | None = None, top: int = 0, beside_top: int = 0
) -> dict[str, float]:
    """Share of rows with a lawyer's article in the basis (either tier), of all and of those whose lawyer's
    articles the KB holds (``held``; a law the statute corpus marks repealed cannot be cited), and each tier's
    precision; ``beside``: the floor beside a concluded basis (``floor`` when not given); ``top``
    (``beside_top``): the evidence's first articles that join a basis with nothing (something) concluded whatever
    their support."""
    covered = held_n = held_covered = kept_n = kept_good = cond_n = cond_good = 0
    for row in rows:
        gold = set(row["gold"])
        joining = floor if beside is None or not row["kept"] else beside
        conditional = conditional_articles(row["evidence"], row["kept"], row["question"], joining, top, beside_top)
        kept_n += len(row["kept"])
        kept_good += len(set(row["kept"]) & gold)
        cond_n += len(conditional)
        cond_good += len(set(conditional) & gold)
        hit = bool((set(row["kept"]) | set(conditional)) & gold)
        covered += hit
        if row.get("held", row["gold"]):
            held_n += 1
            held_covered += hit
    n = max(len(rows), 1)
    return {
        "covered": covered / n,
        "covered_held": held_covered / max(held_n, 1),
        "kept_precision": kept_good / max(kept_n, 1),
        "conditional_precision": cond_good / max(cond_n, 1),
        "conditional_per_question": cond_n / n,
    }


TOPS = (0, 1, 2, 3)
"""How many of the evidence's first articles may join a basis with nothing concluded whatever their support."""
BESIDE_TOPS = (0, 1, 2)
"""The same beside a concluded basis (it holds one article at least, of :data:`CONDITIONAL_MAX`)."""
SHOWN = [f for f in GRID if f <= 0.3]
"""Floors printed in the curves (no conditional article has support over 0.3 on the tune halves)."""


KEEPER_THRESHOLDS = [round(0.325 + 0.025 * i, 3) for i in range(15)]
"""Keeper thresholds tried: from the one `jurisgraph fit keeper` chose with its weights (0.325), up."""


def concluded_at(row: dict[str, Any], threshold: float) -> dict[str, Any]:
    """``row`` with its concluded tier as a keeper threshold of ``threshold`` keeps it: the best-supported evidence
    articles reaching it (three at most, as the product keeps them), and the recorded criminal counterparts (kept
    without passing: the law's structure added them) while one of those remains."""
    best = sorted(row["evidence"], key=lambda e: -float(e["support"]))
    kept = [e["article_id"] for e in best if float(e["support"]) >= threshold][: fitted_keeper().max_kept]
    passed = {e["article_id"] for e in row["evidence"] if e["passes"]}
    counterparts = [a for a in row["kept"] if a not in passed and a not in kept] if kept else []
    return {**row, "kept": [*kept, *counterparts]}


def keeper_threshold(files: dict[str, list[dict[str, Any]]], target: float) -> float:
    """The lowest keeper threshold at which the concluded tier's precision over the tune halves pooled reaches
    ``target``, with its curve printed for every file and half."""
    print("keeper threshold\t" + "\t".join(f"{n} {h} precision / covered" for n in files for h in ("tune", "report")))
    chosen = None
    for threshold in KEEPER_THRESHOLDS:
        cells, tunes = [], []
        for rows in files.values():
            for half in ("tune", "report"):
                part = [concluded_at(r, threshold) for r in rows if r["half"] == half]
                m = measure(part, 1.01)
                cells.append(f"{m['kept_precision']:.3f} / {m['covered']:.3f}")
                tunes += part if half == "tune" else []
        print(f"{threshold}\t" + "\t".join(cells))
        if chosen is None and measure(tunes, 1.01)["kept_precision"] >= target:
            chosen = threshold
    return chosen if chosen is not None else KEEPER_THRESHOLDS[-1]


def fit(args: argparse.Namespace) -> None:
    # A committed file is read from its .gz twin (recorded_lines), as every committed run is.
    files = {p.name: [json.loads(line) for line in recorded_lines(p) if line] for p in args.rows}
    # The concluded tier first: the keeper's threshold, at the precision asked of it on the tune halves.
    threshold = keeper_threshold(files, args.concluded_precision)
    print(f"## keeper threshold {threshold} (concluded precision >= {args.concluded_precision} on the tune halves)")
    files = {name: [concluded_at(r, threshold) for r in rows] for name, rows in files.items()}
    # Chosen on the tuning halves of every file (the report halves are only measured): the most questions whose
    # articles the KB holds with a lawyer's among them (mean over the files), then the most precise conditional tier.
    tunes = [[r for r in rows if r["half"] == "tune"] for rows in files.values()]
    tunes = [rows for rows in tunes if rows]

    def tuned(t: int, f: float) -> tuple[float, float]:
        measured = [measure(rows, f, top=t) for rows in tunes]
        pooled = measure([r for rows in tunes for r in rows], f, top=t)
        return round(sum(m["covered_held"] for m in measured) / len(measured), 3), pooled["conditional_precision"]

    scored = {(t, f): tuned(t, f) for t in TOPS for f in GRID}
    most = max(covered for covered, _ in scored.values())
    near = [tf for tf, (covered, _) in scored.items() if covered >= most - args.tolerance]
    top, chosen = max(near, key=lambda tf: (scored[tf][1], -tf[0]))
    print(
        f"## chosen on the tune halves ({sum(map(len, tunes))}): the evidence's first {top}, and floor {chosen} "
        f"(covered {scored[top, chosen][0]:.3f} of the answerable, the most {most:.3f} less --tolerance at most; "
        f"then the most precise conditional tier, {scored[top, chosen][1]:.3f})"
    )
    # Beside a concluded basis: of the first few and the floors from there whose joining articles a lawyer cites as
    # often as asked, the most covered, then the most precise (where the keeper concluded on a wrong article, the
    # search's first that may join is often the lawyer's).
    concluded = [r for rows in tunes for r in rows if r["kept"]]
    beside_curve = [((t, f), measure(concluded, f, beside_top=t)) for t in BESIDE_TOPS for f in GRID if f >= chosen]
    print("beside a concluded basis, tune halves: first\tfloor\tcovered\tconditional precision\tper question")
    for (t, f), m in beside_curve:
        print(f"  {t}\t{f}\t{m['covered']:.3f}\t{m['conditional_precision']:.3f}\t{m['conditional_per_question']:.2f}")
    precise = [(tf, m) for tf, m in beside_curve if m["conditional_precision"] >= args.beside_precision]
    most_covered = max(precise, key=lambda p: (p[1]["covered"], p[1]["conditional_precision"]), default=None)
    beside_top, beside = most_covered[0] if most_covered else (0, max(GRID))
    print(
        f"## beside a concluded basis: the first {beside_top}, floor {beside} (the most covered whose conditional "
        f"precision >= {args.beside_precision})"
    )
    print("file\thalf\tn\ttop\tfloor\tcovered\tof answerable\tkept precision\tconditional precision\tper question")
    for name, rows in files.items():
        for half in ("tune", "report"):
            part = [r for r in rows if r["half"] == half]
            if not part:
                continue
            for t in TOPS:
                # 1.01 with top 0: no conditional tier (the concluded tier alone).
                for floor in ((1.01,) if t == 0 else ()) + tuple(SHOWN):
                    m = measure(part, floor, max(floor, beside), t, beside_top)
                    mark = " *" if (t, floor) == (top, chosen) else ""
                    print(
                        f"{name}\t{half}\t{len(part)}\t{t}\t{floor}{mark}\t{m['covered']:.3f}\t{m['covered_held']:.3f}\t"
                        f"{m['kept_precision']:.3f}\t{m['conditional_precision']:.3f}\t{m['conditional_per_question']:.2f}"
                    )
    shipped = fitted_conditional_floor(), fitted_conditional_floor(beside=True)
    print(
        f"shipped floors {shipped[0]} / {shipped[1]} beside, first {fitted_conditional_top()} / "
        f"{fitted_conditional_top(beside=True)} beside; at most {CONDITIONAL_MAX} in the basis"
    )
    if args.write:
        command = "python benchmarks/conditional_basis.py fit " + " ".join(map(str, args.rows)) + " --write"
        details = {"tolerance": args.tolerance, "beside_precision": args.beside_precision}
        source = provenance(committed(args.rows), "tune", command, **details)
        fitted = {"floor": chosen, "beside": beside, "top": top, "beside_top": beside_top}
        write_fitted(BUNDLED_FLOOR, fitted, source)
        # The keeper's weights stay as `jurisgraph fit keeper` fitted them; its threshold is chosen here, on labels a
        # lawyer would accept, and says so beside it.
        keeper = json.loads(BUNDLED_KEEPER.read_text(encoding="utf-8"))
        keeper["variants"]["all"]["threshold"] = threshold
        keeper["variants"]["all"]["threshold_provenance"] = {**source, "concluded_precision": args.concluded_precision}
        write_fitted(BUNDLED_KEEPER, {k: v for k, v in keeper.items() if k != "provenance"}, keeper["provenance"])


def compare(args: argparse.Namespace) -> None:
    """Per half, the share of questions with a lawyer's article in the basis (either tier) and the conditional tier's
    precision, with the shipped floors, for two replays of the same questions (``before``, ``after``: two retrieval
    runs, or two knowledge bases), and the paired change with its bootstrap 95% interval."""
    before, after = (
        {row["id"]: row for row in (json.loads(line) for line in recorded_lines(path) if line)}
        for path in (args.before, args.after)
    )
    floors = {kept: fitted_conditional_floor(beside=kept) for kept in (False, True)}
    tops = (fitted_conditional_top(), fitted_conditional_top(beside=True))

    def scored(row: dict[str, Any]) -> tuple[int, int, int]:
        joined = conditional_articles(row["evidence"], row["kept"], row["question"], floors[bool(row["kept"])], *tops)
        gold = set(row["gold"])
        return int(bool((set(row["kept"]) | set(joined)) & gold)), len(joined), len(set(joined) & gold)

    print("half\tn\teither tier before → after\tpaired [95%]\tconditional precision before → after")
    for half in ("tune", "report"):
        ids = sorted(i for i in set(before) & set(after) if after[i]["half"] == half)
        if not ids:
            continue
        a, b = [scored(before[i]) for i in ids], [scored(after[i]) for i in ids]
        hits = [(x[0], y[0]) for x, y in zip(a, b, strict=True)]
        change, (low, high) = paired_bootstrap(hits, lambda rows: sum(rows) / len(rows), rounds=2000)  # type: ignore[arg-type]

        def precision(rows: list[tuple[int, int, int]]) -> float:
            return sum(r[2] for r in rows) / max(sum(r[1] for r in rows), 1)

        print(
            f"{half}\t{len(ids)}\t{sum(x[0] for x in a) / len(ids):.3f} → {sum(y[0] for y in b) / len(ids):.3f}\t"
            f"{change:+.3f} [{low:+.3f}, {high:+.3f}]\t"
            f"{precision(a):.3f} → {precision(b):.3f}"
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
    replaying = sub.add_parser("replay")
    replaying.add_argument("run", help="RUN_DIR:DATA.jsonl of a `jurisgraph eval --task retrieval` run")
    replaying.add_argument("--out", type=Path, required=True)
    fitting = sub.add_parser("fit")
    fitting.add_argument("rows", type=Path, nargs="+")
    fitting.add_argument(
        "--concluded-precision",
        type=float,
        default=0.7,
        help="least precision of the concluded tier on the tune halves (the keeper's threshold)",
    )
    fitting.add_argument(
        "--tolerance", type=float, default=0.01, help="coverage short of the most that a more precise tier may give up"
    )
    fitting.add_argument("--beside-precision", type=float, default=0.2, help="least precision beside a concluded basis")
    fitting.add_argument("--write", action="store_true", help="ship the chosen floor (conditional_floor.json)")
    comparing = sub.add_parser("compare")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    {"record": record, "replay": replay, "fit": fit, "compare": compare}[args.command](args)


if __name__ == "__main__":
    main()
