"""Many people asking the page at once (a benchmark, not a test): are answers lost or mixed up, and do the
server's threads and memory stay bounded?

    JURIS_MODEL=fake JURIS_EMBEDDINGS=hash jurisgraph serve --port 8765 &    # over an ingested data dir
    python benchmarks/page_load.py http://127.0.0.1:8765 --clients 60 --pid $(pgrep -f 'jurisgraph serve')

Each client asks its own question (a numbered amount, so its answer can be told from the others') in a thread of
its own, then a follow-up in that thread with the key the server gave. Printed: answers received and lost, any
answer whose question is not its client's, errors, the server's memory before and after and its peak OS threads
and memory (from /proc), and the longest wait.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from app.web.client import events


def ask(url: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    request = urllib.request.Request(
        f"{url}/api/ask",
        data=json.dumps(body, ensure_ascii=False).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=1800) as response:
        return list(events(response))


def client(url: str, n: int) -> dict[str, Any]:
    started = time.monotonic()
    question = f"借给朋友{1000 + n}元到期不还怎么办？"
    first = ask(url, {"question": question, "raw": True})
    thread = next((d for name, d in first if name == "thread"), {})
    answer = next((d for name, d in first if name == "answer"), None)
    follow = None
    if answer is not None:
        body = {
            "question": f"第{n}号：可以起诉吗？",
            "thread": thread.get("thread"),
            "key": thread.get("key"),
            "raw": True,
        }
        follow = next((d for name, d in ask(url, body) if name == "answer"), None)
    errors = [d.get("message", "") for name, d in first if name == "error"]
    return {
        "n": n,
        "lost": answer is None or follow is None,
        "mixed": answer is not None and answer["out"].get("question") != question,
        "queued": any(name == "queued" for name, _ in first),
        "errors": errors,
        "seconds": time.monotonic() - started,
    }


def process(pid: int) -> dict[str, int]:
    """The server's OS threads and resident memory now (0 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {"threads": 0, "rss_kb": 0}
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {"threads": int(fields["Threads"]), "rss_kb": int(fields["VmRSS"].split()[0])}


def watch(pid: int, peak: dict[str, int], stop: threading.Event) -> None:
    while not stop.is_set():
        now = process(pid)
        peak["threads"] = max(peak["threads"], now["threads"])
        peak["rss_kb"] = max(peak["rss_kb"], now["rss_kb"])
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--clients", type=int, default=60)
    parser.add_argument("--pid", type=int, help="the server's process, to watch its threads and memory")
    args = parser.parse_args()
    peak = {"threads": 0, "rss_kb": 0}
    before = process(args.pid) if args.pid else peak
    started = time.monotonic()
    stop = threading.Event()
    if args.pid:
        threading.Thread(target=watch, args=(args.pid, peak, stop), daemon=True).start()
    with ThreadPoolExecutor(args.clients) as pool:
        results = list(pool.map(lambda n: client(args.url, n), range(args.clients)))
    stop.set()
    after = process(args.pid) if args.pid else peak
    lost = [r["n"] for r in results if r["lost"]]
    mixed = [r["n"] for r in results if r["mixed"]]
    print(f"clients {args.clients}: answered {args.clients - len(lost)}, lost {len(lost)} {lost}, mixed {mixed}")
    errors = [e for r in results for e in r["errors"]]
    print(f"queued {sum(r['queued'] for r in results)}, errors {len(errors)} {errors[:5]}")
    print(
        f"all answered in {time.monotonic() - started:.1f} s, longest {max(r['seconds'] for r in results):.1f} s; "
        f"server RSS {before['rss_kb'] // 1024} MB before, {after['rss_kb'] // 1024} MB after, peak "
        f"{peak['rss_kb'] // 1024} MB; peak threads {peak['threads']}"
    )


if __name__ == "__main__":
    main()
