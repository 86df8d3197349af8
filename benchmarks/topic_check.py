"""How the consult graph's topic check treats legal and non-legal questions (a benchmark, not a test).

    JURIS_DATA_DIR=KB python benchmarks/topic_check.py --model local --legal DATA.jsonl [--legal …] \
        --other benchmarks/off_topic_zh.txt --out RUN/topic.jsonl

Every question of the ``--legal`` consult files that holds no legal word (those are never put to the model)
and every line of ``--other`` (questions that are not legal ones) goes through ``check_topic``; one line per
question: its kind, whether it was declined, the word that settled it or the seconds the model call took.
Prints how many legal questions skip the call, and the declined counts of each kind.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from agents.context import ConsultContext
from agents.state.consult import ConsultState
from agents.topic import check_topic, legal_word
from app.eval.tasks import load_items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--legal", type=Path, action="append", default=[], help="consult-format JSONL (repeatable)")
    parser.add_argument("--other", type=Path, required=True, help="questions that are not legal ones, one per line")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    runtime = SimpleNamespace(context=replace(ConsultContext(), model=args.model))
    legal = [str(item["question"]) for path in args.legal for item in load_items("consult", path)]
    other = [line.strip() for line in args.other.read_text(encoding="utf-8").splitlines() if line.strip()]
    unsettled = [q for q in legal if not legal_word(q, "zh")]
    print(f"{len(legal) - len(unsettled)} of {len(legal)} legal questions hold a legal word (no model call)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    declined = {"legal": 0, "other": 0}
    with args.out.open("w", encoding="utf-8") as sink:
        for kind, questions in (("legal", unsettled), ("other", other)):
            for question in questions:
                started = time.perf_counter()
                out = check_topic(ConsultState(question=question), runtime)  # type: ignore[arg-type]
                was_declined = bool(out.get("declined"))
                declined[kind] += was_declined
                row = {
                    "kind": kind,
                    "question": question,
                    "declined": was_declined,
                    "word": legal_word(question, "zh"),
                    "seconds": round(time.perf_counter() - started, 1),
                }
                sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(
        f"declined: {declined['legal']} of {len(unsettled)} legal questions without a legal word, "
        f"{declined['other']} of {len(other)} other questions"
    )


if __name__ == "__main__":
    main()
