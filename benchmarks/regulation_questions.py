"""Write the questions of a consult data file whose lawyer cites an article of an administrative regulation in
force (as ``ingest --regulations`` loads them), to measure what the regulations changed where they matter:

    python benchmarks/regulation_questions.py ../shared/data/zh/eval/stard_train.jsonl \
        --regulations ../shared/data/zh/regulations --out stard_regulations.jsonl

Lines are copied as they are, in order; the output goes beside the KB, never into the repository.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.eval.tasks import gold_articles
from tools.atomic import write_text_atomic
from tools.corpus.laws_db import list_laws
from tools.corpus.regulations import load_regulations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--regulations", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    found = load_regulations(args.regulations, {law.short for law in list_laws()})
    held = {article.id for _, articles in found.laws for article in articles}
    lines = args.data.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if line.strip() and set(gold_articles(json.loads(line))) & held]
    write_text_atomic(args.out, "".join(kept))
    print(f"{len(kept)} of {len(lines)} questions cite an article of a regulation in force -> {args.out}")


if __name__ == "__main__":
    main()
