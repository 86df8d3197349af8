"""Write one half of a data file (as ``jurisgraph eval --half`` splits it) as JSONL, for a measurement KB that
must not hold the other half: CMDL's report half is measured against precedents of its tuning half only.

    python benchmarks/half_file.py ../shared/data/zh/cases/cmdl_small.jsonl --half tune --out $KB/cmdl_tune.jsonl

Lines are copied as they are, in order; the output goes beside the KB, never into the repository.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tools.atomic import write_text_atomic
from tools.corpus.halves import HALVES, half_of
from tools.errors import InputError


def half_lines(path: Path, half: str) -> list[str]:
    """The lines of ``path`` whose item id falls in ``half``."""
    kept = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item_id = str(json.loads(line)["id"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{path}:{number}: not a JSON object with an id ({exc})") from exc
        if half_of(item_id) == half:
            kept.append(line)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path)
    parser.add_argument("--half", choices=HALVES, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    lines = half_lines(args.data, args.half)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(args.out, "".join(f"{line}\n" for line in lines))
    print(f"{len(lines)} items of the {args.half} half written to {args.out}")


if __name__ == "__main__":
    main()
