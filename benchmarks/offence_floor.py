"""Fit the judge's offence floor: how much of its nearest offence description a fact must state to be convicted at all.

    JURIS_DATA_DIR=KB python benchmarks/offence_floor.py --criminal DATA.jsonl [--criminal ...] \
        --negative benchmarks/noncrime_facts.jsonl [--write] [--out RUN/offence_floor.txt]

Model-free (the offence index of the KB, no model call). For every fact, the offence-index score of the
charge-defining article it covers best (``agents.offence.nearest_offence``). The curve prints, per candidate
floor, the share of criminal facts it would acquit and of non-crimes it would convict, on each half; the floor
chosen (on ``tune``) is the highest that acquits at most ``--criminal-cost`` of the criminal facts, and
``--write`` ships it (``tools/law/offence_floor.json``) with its provenance. What the judge's other checks
(victims, thresholds, elements, stand-ins) add is measured by ``benchmarks/offence_replay.py``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agents.offence import nearest_offence
from tools.corpus.halves import half_of
from tools.fitted import provenance, write_fitted
from tools.kb.charges import ChargeRepository
from tools.law.charge_model import BUNDLED_OFFENCE_FLOOR
from tools.services import get_services

GRID = [round(0.05 * i, 2) for i in range(0, 41)]


def rows(path: Path, criminal: bool) -> list[dict[str, object]]:
    services = get_services()
    repository = ChargeRepository(services.graph)
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        fact = str(item["fact"])
        charge, _, score = nearest_offence(services, repository, fact)
        out.append(
            {
                "id": str(item["id"]),
                "half": half_of(str(item["id"])),
                "criminal": criminal,
                "score": score,
                "nearest": charge,
                "file": path.name,
            }
        )
    return out


def curve(data: list[dict[str, object]], half: str) -> list[tuple[float, float, float, int, int]]:
    """(floor, criminal facts acquitted, non-crimes convicted, n criminal, n non-crime) on ``half``."""
    crim = [r for r in data if r["criminal"] and r["half"] == half]
    neg = [r for r in data if not r["criminal"] and r["half"] == half]
    out = []
    for floor in GRID:
        acquitted = sum(float(r["score"]) < floor for r in crim) / max(len(crim), 1)  # type: ignore[arg-type]
        convicted = sum(float(r["score"]) >= floor for r in neg) / max(len(neg), 1)  # type: ignore[arg-type]
        out.append((floor, acquitted, convicted, len(crim), len(neg)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--criminal", type=Path, action="append", required=True)
    parser.add_argument("--negative", type=Path, required=True)
    parser.add_argument("--criminal-cost", type=float, default=0.01, help="largest share of criminal facts acquitted")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    data = [r for p in args.criminal for r in rows(p, True)] + rows(args.negative, False)
    lines = []
    for half in ("tune", "report"):
        lines.append(f"## {half}: floor, criminal acquitted, non-crimes convicted (floor alone)")
        for floor, acquitted, convicted, n_crim, n_neg in curve(data, half):
            lines.append(f"{floor:.2f}\t{acquitted:.3f}\t{convicted:.3f}\t(n={n_crim}/{n_neg})")
    tune = curve(data, "tune")
    chosen = max(floor for floor, acquitted, *_ in tune if acquitted <= args.criminal_cost)
    lines.append(f"chosen on tune (criminal acquitted <= {args.criminal_cost}): {chosen:.2f}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.write:
        files = [*args.criminal, args.negative]
        command = "python benchmarks/offence_floor.py " + " ".join(
            [*(f"--criminal {p}" for p in args.criminal), f"--negative {args.negative}", "--write"]
        )
        write_fitted(
            BUNDLED_OFFENCE_FLOOR,
            {"coverage": chosen},
            provenance(files, "tune", command, criminal_cost=args.criminal_cost),
        )


if __name__ == "__main__":
    main()
