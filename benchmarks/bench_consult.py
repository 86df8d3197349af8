"""Latency, tokens and citation validity of `consult` over consult_dev questions (a benchmark, not a test).

    python benchmarks/bench_consult.py --limit 5 [--model local] [--data ../shared/data/zh/eval/consult_dev.jsonl]

Prints one line per question and a JSON summary: median/mean latency, tokens per question, share of cited
ids that exist in the KB (cited = kept + dropped), and recall of the gold answer's citations.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from agents.context import ConsultContext
from agents.state.consult import ConsultInput
from graphs.consult import graph
from tools.law.articles import parse_citations

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "zh" / "eval" / "consult_dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--model", default="local")
    parser.add_argument("--out", type=Path, default=None, help="write per-question results as JSONL")
    args = parser.parse_args()

    items = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for item in items[: args.limit]:
        started = time.perf_counter()
        out = graph.invoke(ConsultInput(question=item["question"]), context=ConsultContext(model=args.model))
        seconds = time.perf_counter() - started
        kept = [b["article_id"] for b in out["legal_basis"]]
        gold = parse_citations(item["answer"].split("法律依据", 1)[-1])
        row = {
            "id": item["id"],
            "seconds": round(seconds, 1),
            "usage": out["usage"],
            "cited": kept,
            "dropped": out["dropped_citations"],
            "gold": gold,
            "gold_hit": len(set(gold) & set(kept)),
            "stages_ms": {e["node"]: e["ms"] for e in out["trace"]},
        }
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    if args.out:
        args.out.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    cited = sum(len(r["cited"]) + len(r["dropped"]) for r in rows)
    summary = {
        "questions": len(rows),
        "median_s": statistics.median(r["seconds"] for r in rows),
        "mean_s": round(statistics.mean(r["seconds"] for r in rows), 1),
        "llm_calls_per_q": statistics.mean(r["usage"]["llm_calls"] for r in rows),
        "prompt_tokens_per_q": round(statistics.mean(r["usage"]["prompt_tokens"] for r in rows)),
        "completion_tokens_per_q": round(statistics.mean(r["usage"]["completion_tokens"] for r in rows)),
        "cited_ids": cited,
        "cited_in_kb_share": round(sum(len(r["cited"]) for r in rows) / cited, 3) if cited else None,
        "gold_citation_recall": round(sum(r["gold_hit"] for r in rows) / max(1, sum(len(r["gold"]) for r in rows)), 3),
    }
    print(json.dumps(summary, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
