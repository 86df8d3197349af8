"""What a person waits for, in one run (a benchmark, not a test): the page's first answer from a `jurisgraph serve`
just started, then `jurisgraph ask` of another question while the server runs, then each question as a cold
`jurisgraph ask` in a process of its own.

    M=~/.local/share/jurisgraph/models JURIS_DATA_DIR=~/.local/share/jurisgraph/kb/consult \
    JURIS_MODEL_PATH=$M/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf JURIS_RERANKER=$M/embeddinggemma-300m \
    python benchmarks/page_timing.py --out benchmarks/runs/s45-page-timing/timing.json

Uses the data dir and models of the environment (the product's defaults when unset).
Also times the loads an `ask` process pays before its first model call (the chat model, the embedders, the KB's
indexes), in a process of their own. Timings on a shared machine are noisy: read the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from app.web.client import events
from tools.atomic import write_text_atomic

BIN = Path(sys.executable).parent
QUESTIONS = ("租房到期后房东不退押金怎么办？", "公司拖欠了我三个月工资，我该怎么办？")
"""The page's first question (the README's), then the one `ask` sends to the running server; each is also asked
cold, in a process of its own, to compare like with like."""
LOADS = """
import time
started = time.perf_counter()
from agents.common.models import chat_model
from agents.context import ConsultContext
from app.cli.answer import require_statutes
from tools.services import get_services
require_statutes()
chat_model(ConsultContext(), "draft")
get_services().warm_up().join()
print(time.perf_counter() - started)
"""
"""A process loading what an answer needs before its first model call, timed from its imports."""


def _timed(args: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(args[:3])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - started, done


def _basis(out: dict[str, Any]) -> list[str]:
    return [item["article_id"] for item in out["legal_basis"]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _page_answer(url: str, question: str) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{url}/api/ask",
        data=json.dumps({"question": question, "raw": True}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=1800) as response:
        for name, data in events(response):
            if name == "answer":
                return dict(data["out"])
            if name == "error":
                raise SystemExit(f"the page's run failed: {data['message']}")
    raise SystemExit("the page's stream ended without an answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", nargs=2, default=QUESTIONS, metavar=("PAGE", "ASK"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    exe = str(BIN / "jurisgraph")
    first, second = args.questions
    figures: dict[str, Any] = {"questions": [first, second]}
    figures["loads_s"] = float(_timed([sys.executable, "-c", LOADS])[1].stdout.strip().splitlines()[-1])
    port = _free_port()
    started = time.perf_counter()
    quiet = subprocess.DEVNULL
    server = subprocess.Popen([exe, "serve", "--port", str(port)], stdout=quiet, stderr=quiet, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/health", timeout=2).close()
                break
            except OSError:
                time.sleep(0.2)
        figures["serve_listening_s"] = time.perf_counter() - started
        asked = time.perf_counter()
        page = _page_answer(url, first)  # asked as soon as the page is there: the warm-up still runs
        figures["page_first_answer_s"] = time.perf_counter() - asked
        figures["page_first_basis"] = _basis(page)
        served_s, served = _timed([exe, "ask", "--json", second])
        assert "answered by the server" in served.stderr, served.stderr
        figures["served_ask_s"], figures["served_basis"] = served_s, _basis(json.loads(served.stdout))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    # The cold asks go last: whatever the answers above left in the KB (stored checklists) helps them, not the server.
    for key, question in (("cold_first", first), ("cold_second", second)):
        cold_s, cold = _timed([exe, "ask", "--no-server", "--json", question])
        figures[f"{key}_ask_s"], figures[f"{key}_basis"] = cold_s, _basis(json.loads(cold.stdout))
    figures["page_first_over_cold"] = figures["page_first_answer_s"] / figures["cold_first_ask_s"]
    figures["served_over_cold"] = served_s / figures["cold_second_ask_s"]
    figures["cold_minus_served_s"] = figures["cold_second_ask_s"] - served_s
    write_text_atomic(args.out, json.dumps(figures, ensure_ascii=False, indent=2) + "\n")
    print(json.dumps(figures, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
