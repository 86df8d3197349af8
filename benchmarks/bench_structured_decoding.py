"""Structured decoding with llama-cpp-python's grammar chain against the lazy grammar (a benchmark, not a test).

    JURIS_MODEL_PATH=.../qwen2.5-coder-1.5b-instruct-q4_k_m.gguf python benchmarks/bench_structured_decoding.py \
        --data ../shared/data/zh/eval/consult_dev.jsonl --items 6

Runs the consult's element extraction (the element-graph schema, the same prompt as the node) on the first
questions, once with ``llama_cpp.Llama`` (every vocabulary token tested against the grammar at every step)
and once with ``LlamaEngine`` (the greedy token first; its saved prompt states off), alternating which goes
first. Prints per item the seconds and tokens of each and whether the replies are identical, then the
medians, as JSON lines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from agents.element import ElementGraph
from prompts import render_prompt
from tools.settings import load_settings


def _extract(llm: Any, question: str) -> tuple[float, int, str]:
    messages = [
        {"role": "system", "content": render_prompt("system", "zh")},
        {"role": "user", "content": render_prompt("extract_elements", "zh", question=question)},
    ]
    llm.reset()  # no prefix from the other model's run: both evaluate the whole prompt
    started = time.perf_counter()
    out = llm.create_chat_completion(
        messages=messages,
        temperature=0.0,
        repeat_penalty=1.1,
        max_tokens=768,
        response_format={"type": "json_object", "schema": ElementGraph.model_json_schema()},
    )
    return time.perf_counter() - started, out["usage"]["completion_tokens"], out["choices"][0]["message"]["content"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a consult task file (JSONL with 'question')")
    parser.add_argument("--items", type=int, default=6)
    args = parser.parse_args()
    import llama_cpp

    from tools.llm.engine import LlamaEngine

    settings = load_settings()
    path = str(settings.model_path or settings.default_model_file)
    options: dict[str, Any] = {"n_ctx": 4096, "n_threads": settings.llama_threads, "verbose": False, "seed": 0}
    models = {
        "chain": llama_cpp.Llama(model_path=path, **options),
        "lazy": LlamaEngine(model_path=path, prefix_cache_bytes=0, **options),
    }
    lines = args.data.read_text(encoding="utf-8").splitlines()[: args.items]
    seconds: dict[str, list[float]] = {name: [] for name in models}
    for index, line in enumerate(lines):
        question = json.loads(line)["question"]
        order = list(models) if index % 2 == 0 else list(reversed(models))
        replies = {}
        row: dict[str, Any] = {"item": index}
        for name in order:
            elapsed, tokens, replies[name] = _extract(models[name], question)
            seconds[name].append(elapsed)
            row[name] = {"s": round(elapsed, 2), "tokens": tokens}
        row["identical"] = replies["chain"] == replies["lazy"]
        print(json.dumps(row), flush=True)
    print(json.dumps({f"median_{name}_s": round(statistics.median(v), 2) for name, v in seconds.items()}))


if __name__ == "__main__":
    main()
